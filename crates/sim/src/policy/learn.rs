//! Learned change rates: per-page histories and an empirical-Bayes prior fitted to all of them
//! (see the module docs of [`crate::policy`], "Learned rates").

use freshet_estimate::{ChangeHistory, RateMixture, RatePosterior};
use freshet_policy::Page;

use super::Observation;

pub(crate) mod probe;

/// Smallest rate handed to the solvers, as a fraction of the default rate `R/n` (the solvers
/// need `λ > 0`).
const MIN_RATE_FRACTION: f64 = 1e-6;

/// The prior's grid, relative to the default rate `R/n`: from `R/n · 10^LOW` to
/// `R/n · 10^HIGH`, [`GRID_PER_DECADE`] points per decade. `R/n` is one change per uniform
/// revisit interval; a page changing 10^4 times per uniform interval cannot be kept fresh by
/// any policy, and one changing 10^−3 times needs almost no fetch: the exact value beyond
/// these ends does not change a schedule.
const GRID_LOW_DECADES: i32 = -3;
const GRID_HIGH_DECADES: i32 = 4;
/// Grid points per decade: neighbouring rates differ by 33 %, below the spread a few dozen
/// observations leave in a posterior.
const GRID_PER_DECADE: u32 = 8;
/// EM iterations of the all-pages fit (started from the log-uniform prior) and of each host's
/// fit (started from the all-pages fit).
const GLOBAL_ITERATIONS: usize = 100;
const HOST_ITERATIONS: usize = 20;
/// Pseudo-pages of the log-uniform prior in the all-pages fit (keeps every rate possible).
const SMOOTHING_PAGES: f64 = 1.0;
/// Pseudo-pages of the all-pages fit in a host's fit: a host with far fewer observed pages
/// than this keeps the all-pages prior, one with far more gets its own.
const HOST_CENTER_PAGES: f64 = 10.0;

/// What a learned-rate policy knows about the pages: their histories.
#[derive(Debug, Clone)]
pub(crate) struct Learner {
    histories: Vec<ChangeHistory>,
    weights: Vec<f64>,
    host_of_page: Vec<u32>,
    hosts: usize,
    /// `R/n`: the rate assumed before anything is observed.
    default_rate: f64,
    observed_since_estimate: usize,
    /// Length of the current epoch, in observations (doubles at each re-estimate).
    next_estimate: usize,
}

/// The result of one re-estimate: the fitted priors and every page's posterior mean.
#[derive(Debug, Clone)]
pub(crate) struct Estimates {
    /// The pages with their posterior mean rates (all `R/n` before any observation).
    pub(crate) pages: Vec<Page>,
    /// Each host's prior; empty before any observation.
    priors: Vec<RateMixture>,
}

impl Learner {
    pub(crate) fn new(weights: Vec<f64>, host_of_page: Vec<u32>, hosts: usize, budget: f64) -> Self {
        let n = weights.len() as f64;
        Self {
            histories: vec![ChangeHistory::new(); weights.len()],
            next_estimate: weights.len(),
            weights,
            host_of_page,
            hosts,
            default_rate: budget / n,
            observed_since_estimate: 0,
        }
    }

    /// Records an observation; returns true when it is time to re-estimate: at the end of
    /// epochs of `n`, `2n`, `4n`, … observations.
    pub(crate) fn observe(&mut self, observation: &Observation) -> bool {
        if let Some(history) = self.histories.get_mut(observation.page)
            && observation.interval > 0.0
        {
            let recorded =
                history.observe(observation.interval, observation.changed, observation.last_modified_age);
            if recorded.is_err() {
                // A Last-Modified off by rounding: keep the interval information only.
                let _ = history.observe(observation.interval, observation.changed, None);
            }
        }
        self.observed_since_estimate += 1;
        if self.observed_since_estimate >= self.next_estimate {
            self.observed_since_estimate = 0;
            self.next_estimate = self.next_estimate.saturating_mul(2);
            true
        } else {
            false
        }
    }

    /// Observations until the next re-estimate is due.
    pub(crate) fn until_next_estimate(&self) -> usize {
        self.next_estimate.saturating_sub(self.observed_since_estimate)
    }

    /// The pages with their current estimated rates.
    pub(crate) fn pages(&self) -> Vec<Page> {
        self.estimates().pages
    }

    /// Fits the priors (all pages', then each host's) and returns every page's posterior mean.
    pub(crate) fn estimates(&self) -> Estimates {
        let uniform = || self.weights.iter().map(|&weight| Page::new(weight, self.default_rate)).collect();
        let observed = self.histories.iter().any(|history| history.intervals() > 0);
        let grid = RateMixture::log_uniform(
            self.default_rate * 10f64.powi(GRID_LOW_DECADES),
            self.default_rate * 10f64.powi(GRID_HIGH_DECADES),
            GRID_PER_DECADE,
        );
        let (true, Some(mut global)) = (observed, grid) else {
            return Estimates { pages: uniform(), priors: Vec::new() };
        };
        global.fit(&self.histories, GLOBAL_ITERATIONS, None, SMOOTHING_PAGES);
        let priors: Vec<RateMixture> = if self.hosts <= 1 {
            vec![global; self.hosts.max(1)]
        } else {
            (0..self.hosts)
                .map(|host| {
                    let mut prior = global.clone();
                    let pages = self
                        .histories
                        .iter()
                        .zip(&self.host_of_page)
                        .filter(|&(_, &page_host)| page_host as usize == host)
                        .map(|(history, _)| history);
                    prior.fit(pages, HOST_ITERATIONS, Some((&global, HOST_CENTER_PAGES)), 0.0);
                    prior
                })
                .collect()
        };
        let floor = self.default_rate * MIN_RATE_FRACTION;
        let pages = (0..self.histories.len())
            .map(|page| {
                let rate = self.posterior_with(&priors, page).map_or(self.default_rate, |p| p.mean);
                let rate = if rate.is_finite() { rate.max(floor) } else { self.default_rate };
                Page::new(self.weights[page], rate)
            })
            .collect();
        Estimates { pages, priors }
    }

    fn posterior_with(&self, priors: &[RateMixture], page: usize) -> Option<RatePosterior> {
        let host = *self.host_of_page.get(page)? as usize;
        let prior = priors.get(host).or_else(|| priors.first())?;
        Some(prior.posterior(self.histories.get(page)?))
    }

    /// Page `page`'s posterior under the priors of `estimates`, with the grid rates; `None`
    /// before any observation (or for an unknown page).
    pub(crate) fn posterior<'a>(
        &self,
        estimates: &'a Estimates,
        page: usize,
    ) -> Option<(RatePosterior, &'a [f64])> {
        let host = *self.host_of_page.get(page)? as usize;
        let prior = estimates.priors.get(host).or_else(|| estimates.priors.first())?;
        Some((prior.posterior(self.histories.get(page)?), prior.rates()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_uniform_and_learns() {
        let mut learner = Learner::new(vec![1.0, 1.0], vec![0, 0], 1, 2.0);
        let pages = learner.pages();
        assert_eq!(pages[0].change_rate, 1.0);
        assert_eq!(pages[1].change_rate, 1.0);
        let mut resolve = false;
        for step in 0..200u32 {
            let page = (step % 2) as usize;
            let changed = page == 0 || step % 20 == 1;
            let observation =
                Observation { page, time: f64::from(step), interval: 1.0, changed, last_modified_age: None };
            resolve |= learner.observe(&observation);
        }
        assert!(resolve);
        let pages = learner.pages();
        assert!(pages[0].change_rate > 2.0 && pages[1].change_rate < 0.3, "{pages:?}");
    }
}
