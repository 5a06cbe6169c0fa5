//! A host's pooled prior on its pages' change rates, and a page's rate under it: what a crawler
//! that learns rates page by page uses (`freshet-crawl`'s freshness loop and the URLFrontier
//! service's revisits).
//!
//! The prior is a Gamma prior ([`GammaPrior::from_pool`]) centred on the geometric mean of the
//! current estimates of the host's pages that have data, with a crawl-wide prior counted as one
//! more page (so a host with one page is not taken at that page's word), worth a number of the
//! page's own mean fetch intervals of observation ([`PRIOR_FETCHES`] by default): a prior worth
//! a fixed time would outweigh a whole crawl's data whenever it is off by orders of magnitude,
//! while one worth a number of fetches lets a page's own data win after about that many fetches
//! at any time scale. The geometric mean, not the arithmetic one, because rates on one host
//! span orders of magnitude and the arithmetic mean follows the fastest page. Measured in
//! `freshet-crawl`'s `revisit` docs and BENCHMARKS.md (`freshet demo`).

use crate::{ChangeHistory, GammaPrior, RateEstimate};

/// A host's pooled prior: the geometric mean of its pages' current estimates (see the module
/// docs), kept as running sums so that a page's new estimate replaces its old one.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HostRates {
    log_sum: f64,
    pages: u32,
}

impl HostRates {
    /// Counts a page's estimate (a page that has observations).
    pub fn add(&mut self, rate: f64) {
        if rate.is_finite() && rate > 0.0 {
            self.log_sum += rate.ln();
            self.pages += 1;
        }
    }

    /// Takes back an estimate counted before.
    pub fn remove(&mut self, rate: f64) {
        if rate.is_finite() && rate > 0.0 && self.pages > 0 {
            self.log_sum -= rate.ln();
            self.pages -= 1;
            if self.pages == 0 {
                self.log_sum = 0.0;
            }
        }
    }

    /// Pages counted.
    #[must_use]
    pub fn pages(&self) -> u32 {
        self.pages
    }

    /// The prior mean: the geometric mean of the counted estimates and `crawl_prior` (counted
    /// once).
    #[must_use]
    pub fn mean(&self, crawl_prior: f64) -> f64 {
        ((self.log_sum + crawl_prior.ln()) / f64::from(self.pages + 1)).exp()
    }

    /// The Gamma prior for a page of this host whose mean fetch interval is `mean_interval`
    /// (`None` before its first observation): mean [`mean`](Self::mean), worth `fetches` such
    /// intervals of observation (one mean change interval without one).
    #[must_use]
    pub fn prior(&self, crawl_prior: f64, mean_interval: Option<f64>, fetches: f64) -> Option<GammaPrior> {
        let mean = self.mean(crawl_prior);
        let strength = mean_interval.map_or(1.0 / mean, |interval| fetches * interval);
        GammaPrior::from_pool(mean, strength).ok()
    }
}

/// How many of a page's own fetch intervals of observation its host's prior is worth, by
/// default (see the module docs).
pub const PRIOR_FETCHES: f64 = 20.0;

/// A page's change rate under its host's prior (see the module docs).
#[must_use]
pub fn estimate_rate(history: &ChangeHistory, prior: &GammaPrior) -> RateEstimate {
    let intervals = history.intervals();
    if intervals > 0 && history.last_modified_intervals() == intervals {
        prior.posterior_from_last_modified(history)
    } else {
        prior.posterior_from_intervals(history)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn the_host_prior_is_a_geometric_mean_with_the_crawl_prior_as_one_page() {
        let mut host = HostRates::default();
        assert!((host.mean(0.5) - 0.5).abs() < 1e-12);
        host.add(2.0);
        // √(2 · 0.5) = 1.
        assert!((host.mean(0.5) - 1.0).abs() < 1e-12);
        host.add(8.0);
        host.remove(2.0);
        assert!((host.mean(0.5) - 2.0).abs() < 1e-12);
        host.remove(8.0);
        assert_eq!(host, HostRates::default());
        let prior = host.prior(0.5, None, PRIOR_FETCHES).unwrap();
        assert!((prior.shape() - 1.0).abs() < 1e-12);
        let prior = host.prior(0.5, Some(3.0), 2.0).unwrap();
        assert!((prior.rate() - 6.0).abs() < 1e-12 && (prior.mean() - 0.5).abs() < 1e-12);
    }
}
