//! Empirical-Bayes priors pooled over many pages, globally and per host: [`PooledPrior`].
//!
//! One [`RateMixture`] is fitted to the likelihoods of all pages (the all-pages prior), then
//! each host's own is fitted to its pages, started from and shrunk toward the all-pages prior
//! with [`PoolSettings::host_center_pages`] pseudo-pages: a host with far fewer observed pages
//! keeps the all-pages prior, one with far more gets its own. A page's rate is then its
//! posterior under its host's prior ([`PooledPrior::posterior`]).
//!
//! Why pool likelihoods, not point estimates (what a Gamma prior centred on a
//! [`crate::HostPool`] or a geometric mean of estimates does): a page fetched at intervals
//! `I ≫ 1/λ` sees a change every time, which says only "`λ ≳ 1/I`" (the interval likelihood
//! of seed 000_df0cf756c1e6fcc1.txt, "Estimation of page change rate", is flat above `1/I`);
//! point estimators turn that into `≈ ln(2n+1)/I`, so a pool of them measures the crawler's own
//! fetch rates. The mixture keeps the censoring: the posterior of such a page is the prior above
//! `~1/I`, learnt from the pages that were seen at shorter intervals. Seed
//! 004_e0cda6b04941d422.txt ("Estimating the rate parameter") shows the same bias in the simple
//! estimator `X/T` and why a page seen changed at every visit gives no finite estimate.
//!
//! The state is the caller's: it keeps each page's [`ChangeHistory`] (96 bytes) and hands them
//! to [`PooledPrior::fit`] with the page's host; the prior is `O(G)` per host (`G` grid rates).

use crate::error::{Error, Result};
use crate::history::ChangeHistory;
use crate::mixture::{RateMixture, RatePosterior};

/// How a [`PooledPrior`] is fitted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PoolSettings {
    /// Lowest grid rate (changes per time unit).
    pub low: f64,
    /// Highest grid rate (at least; the grid is whole steps of `10^(1/per_decade)` from `low`).
    pub high: f64,
    /// Grid points per decade.
    pub per_decade: u32,
    /// EM iterations of the all-pages fit, started from the log-uniform prior.
    pub global_iterations: usize,
    /// EM iterations of each host's fit, started from the all-pages fit.
    pub host_iterations: usize,
    /// Pseudo-pages of the log-uniform prior in the all-pages fit (keeps every rate possible).
    pub smoothing_pages: f64,
    /// Pseudo-pages of the all-pages prior in each host's fit.
    pub host_center_pages: f64,
}

impl PoolSettings {
    /// The defaults around a `typical_rate` (e.g. the fetch rate per page, budget/pages): a
    /// grid from `10^−3` to `10^4` times it, 8 points per decade (neighbours 33 % apart, less
    /// than the spread a few dozen observations leave in a posterior), 100 all-pages and 20
    /// per-host EM iterations, 1 smoothing pseudo-page and 10 per-host centre pseudo-pages.
    /// A page changing `10^4` times per typical interval cannot be kept fresh and one changing
    /// `10^−3` times needs almost no fetch: the exact rate beyond these ends changes no schedule.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless `typical_rate` is finite and positive.
    pub fn around(typical_rate: f64) -> Result<Self> {
        if !(typical_rate.is_finite() && typical_rate > 0.0) {
            return Err(Error::InvalidParameter { name: "typical_rate", value: typical_rate });
        }
        Ok(Self {
            low: typical_rate * 1e-3,
            high: typical_rate * 1e4,
            per_decade: 8,
            global_iterations: 100,
            host_iterations: 20,
            smoothing_pages: 1.0,
            host_center_pages: 10.0,
        })
    }

    fn grid(&self) -> Result<RateMixture> {
        RateMixture::log_uniform(self.low, self.high, self.per_decade)
            .ok_or(Error::InvalidParameter { name: "low..high", value: self.high / self.low })
    }
}

/// The all-pages prior and each host's (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct PooledPrior {
    global: RateMixture,
    /// Index = host; `None` for a host with no observed page (it uses `global`).
    hosts: Vec<Option<RateMixture>>,
}

impl PooledPrior {
    /// The log-uniform prior of `settings`' grid for every host: what nothing observed gives.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless `0 < low < high` (finite) and `per_decade ≥ 1`.
    pub fn uninformed(settings: &PoolSettings) -> Result<Self> {
        Ok(Self { global: settings.grid()?, hosts: Vec::new() })
    }

    /// Fits the priors to `pages`, each a `(host, history)`: the all-pages prior by
    /// `global_iterations` EM steps (see [`RateMixture::fit`]), then each host with an observed
    /// page by `host_iterations` steps from it, shrunk toward it. Pages with no observation carry
    /// no information and are skipped. `O((N + H)·G)` per iteration.
    ///
    /// # Errors
    /// As [`PooledPrior::uninformed`].
    pub fn fit<'a>(
        settings: &PoolSettings,
        pages: impl IntoIterator<Item = (usize, &'a ChangeHistory)>,
    ) -> Result<Self> {
        let mut global = settings.grid()?;
        let observed: Vec<(usize, &ChangeHistory)> =
            pages.into_iter().filter(|(_, history)| history.intervals() > 0).collect();
        global.fit(
            observed.iter().map(|&(_, h)| h),
            settings.global_iterations,
            None,
            settings.smoothing_pages,
        );
        let host_count = observed.iter().map(|&(host, _)| host + 1).max().unwrap_or(0);
        let mut by_host: Vec<Vec<&ChangeHistory>> = vec![Vec::new(); host_count];
        for &(host, history) in &observed {
            by_host[host].push(history);
        }
        let several_hosts = by_host.iter().filter(|pages| !pages.is_empty()).count() > 1;
        let hosts = by_host
            .into_iter()
            .map(|pages| {
                (several_hosts && !pages.is_empty()).then(|| {
                    let mut prior = global.clone();
                    let center = Some((&global, settings.host_center_pages));
                    prior.fit(pages, settings.host_iterations, center, 0.0);
                    prior
                })
            })
            .collect();
        Ok(Self { global, hosts })
    }

    /// The all-pages prior.
    pub fn global(&self) -> &RateMixture {
        &self.global
    }

    /// Host `host`'s prior (the all-pages prior for a host with no observed page, or when every
    /// observed page is on one host).
    pub fn host(&self, host: usize) -> &RateMixture {
        self.hosts.get(host).and_then(Option::as_ref).unwrap_or(&self.global)
    }

    /// The posterior of a page of `host` with `history` under the host's prior.
    pub fn posterior(&self, host: usize, history: &ChangeHistory) -> RatePosterior {
        self.host(host).posterior(history)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::mixture::tests::history;

    #[test]
    fn hosts_learn_their_own_rates() {
        let settings = PoolSettings::around(1.0).unwrap();
        // Host 0: pages changed in 15 of 20 intervals of 1 (MLE ln 4 ≈ 1.4); host 1: in 2 of 20
        // (MLE ln(20/18) ≈ 0.1).
        let fast = history(&(0..20).map(|i| (1.0, i < 15)).collect::<Vec<_>>());
        let slow = history(&(0..20).map(|i| (1.0, i < 2)).collect::<Vec<_>>());
        let pages: Vec<(usize, ChangeHistory)> =
            (0..60).map(|i| if i % 2 == 0 { (0, fast) } else { (1, slow) }).collect();
        let prior = PooledPrior::fit(&settings, pages.iter().map(|(h, p)| (*h, p))).unwrap();
        // Prior mass below rate 0.5 (means are dominated by the smoothing's upper tail).
        let slow_mass = |mixture: &RateMixture| -> f64 {
            mixture.rates().iter().zip(mixture.weights()).filter(|&(&r, _)| r < 0.5).map(|(_, w)| w).sum()
        };
        let (fast_host, slow_host) = (slow_mass(prior.host(0)), slow_mass(prior.host(1)));
        assert!(slow_host > 0.8 && fast_host < 0.2, "{fast_host} {slow_host}");
        // A new page on each host starts from its host's prior.
        let new = ChangeHistory::new();
        assert!(prior.posterior(0, &new).harmonic_mean > prior.posterior(1, &new).harmonic_mean);
        // An unknown host gets the all-pages prior.
        assert_eq!(prior.host(7), prior.global());
    }

    #[test]
    fn nothing_observed_is_the_uninformed_prior() {
        let settings = PoolSettings::around(0.5).unwrap();
        let pages = [ChangeHistory::new(); 3];
        let fitted = PooledPrior::fit(&settings, pages.iter().map(|p| (0, p))).unwrap();
        assert_eq!(fitted, PooledPrior::uninformed(&settings).unwrap());
        assert!(PoolSettings::around(0.0).is_err());
    }
}
