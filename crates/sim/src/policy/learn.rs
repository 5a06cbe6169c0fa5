//! Learned change rates: per-page histories and an empirical-Bayes prior fitted to all of them
//! (see the module docs of [`crate::policy`], "Learned rates").

use freshet_estimate::{ChangeHistory, PoolSettings, PooledPrior, RatePosterior};
use freshet_policy::Page;

use super::Observation;

pub(crate) mod explore;
pub(crate) mod probe;

/// Smallest rate handed to the solvers, as a fraction of the default rate `R/n` (the solvers
/// need `λ > 0`).
const MIN_RATE_FRACTION: f64 = 1e-6;

/// The posterior quantile that sets an uncertain page's `V(∞)` under [`Summary::Optimistic`].
/// Measured with the commands of `experiments/learned.sh` (`threshold`, learned/known, Fig. 1
/// uniform set, R = 1, 5, 10, seeds 1 and 2): 0.02 gave 0.91–0.93, 0.05 gave 0.85–0.94, 0.1 gave
/// 0.83–0.93; on an earlier build (seed 1, before `resolve_lambda0` kept the bucket) 0.25 gave
/// 0.73–0.90 and the posterior mean without optimism 0.17–0.34. 0.05 also kept the Zipf set at
/// 0.98–1.00, where 0.02 dipped to 0.976 (seed 1, R = 1, earlier build).
pub(crate) const OPTIMISTIC_QUANTILE: f64 = 0.05;

/// How a page's posterior becomes the `(w, λ)` a policy is handed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Summary {
    /// Weight as is, rate the posterior mean (the rate policies, which solve for rates).
    Mean,
    /// `(w', λ')` with `w'λ' = w·E[λ]` and `w'/λ' = w/λ_q`, `λ_q` the posterior's
    /// [`OPTIMISTIC_QUANTILE`]: `λ' = √(E[λ]·λ_q)`, `w' = w·√(E[λ]/λ_q)` (`threshold`). For
    /// `freshness`, seed 003's crawl value is `V(τ) ≈ wλτ²/2` for small `τ` and `V(∞) = w/λ`:
    /// the first end follows the posterior mean (a known page is fetched at its period), the
    /// second the lowest rate the data still find plausible, so a page that might be slow keeps
    /// competing for fetches until its own observations say otherwise: optimism in the face of
    /// uncertainty (the exploration of seed 002_987a179045e4afb6.txt, "Multi-armed bandits",
    /// here inside the value function rather than as separate probes). Seed
    /// 004_e0cda6b04941d422.txt explains why it is needed: a page seen changed at every fetch
    /// (intervals `≫ 1/λ`) gives no finite estimate, only "`λ` is at least about `1/I`", so
    /// its posterior mean is the prior's upper tail and, without optimism, its `V(∞)` stays
    /// under `λ_0` and it is never fetched again at an interval that would tell.
    Optimistic,
}

/// What a learned-rate policy knows about the pages: their histories, and the priors
/// (`freshet_estimate::PooledPrior`, all pages' and each host's) fitted at the last re-estimate.
#[derive(Debug, Clone)]
pub(crate) struct Learner {
    histories: Vec<ChangeHistory>,
    weights: Vec<f64>,
    host_of_page: Vec<u32>,
    /// `R/n`: the rate assumed before anything is observed.
    default_rate: f64,
    settings: Option<PoolSettings>,
    /// `None` until the first re-estimate that had an observation.
    prior: Option<PooledPrior>,
    observed_since_estimate: usize,
    /// Length of the current epoch, in observations (doubles at each re-estimate).
    next_estimate: usize,
}

impl Learner {
    pub(crate) fn new(weights: Vec<f64>, host_of_page: Vec<u32>, budget: f64) -> Self {
        let n = weights.len() as f64;
        let default_rate = budget / n;
        Self {
            histories: vec![ChangeHistory::new(); weights.len()],
            next_estimate: weights.len(),
            weights,
            host_of_page,
            default_rate,
            settings: PoolSettings::around(default_rate).ok(),
            prior: None,
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

    /// Every page's weight.
    pub(crate) fn weights(&self) -> &[f64] {
        &self.weights
    }

    /// Page `page`'s observations so far (`None` for an unknown page).
    pub(crate) fn history(&self, page: usize) -> Option<&ChangeHistory> {
        self.histories.get(page)
    }

    /// Observations until the next re-estimate is due.
    pub(crate) fn until_next_estimate(&self) -> usize {
        self.next_estimate.saturating_sub(self.observed_since_estimate)
    }

    /// Re-fits the priors to every page's history (nothing before the first observation).
    pub(crate) fn refit(&mut self) {
        if !self.histories.iter().any(|history| history.intervals() > 0) {
            return;
        }
        let Some(settings) = &self.settings else { return };
        let pages = self.host_of_page.iter().map(|&host| host as usize).zip(&self.histories);
        if let Ok(prior) = PooledPrior::fit(settings, pages) {
            self.prior = Some(prior);
        }
    }

    /// Every page with its weight and rate under the current priors (`R/n` before the first fit).
    pub(crate) fn pages(&self, summary: Summary) -> Vec<Page> {
        (0..self.weights.len()).map(|page| self.page(page, summary)).collect()
    }

    /// Page `page` as the policy should see it: its weight and its rate under the current
    /// priors (finite, at least `R/n · 10^−6`; `R/n` before the first fit), both as `summary`
    /// says.
    pub(crate) fn page(&self, page: usize, summary: Summary) -> Page {
        let weight = self.weights.get(page).copied().unwrap_or(0.0);
        let floor = self.default_rate * MIN_RATE_FRACTION;
        let Some((posterior, grid)) = self.posterior(page) else {
            return Page::new(weight, self.default_rate);
        };
        let mean = posterior.mean.max(floor);
        if !mean.is_finite() {
            return Page::new(weight, self.default_rate);
        }
        match summary {
            Summary::Mean => Page::new(weight, mean),
            Summary::Optimistic => {
                let low = posterior.quantile(grid, OPTIMISTIC_QUANTILE).clamp(floor, mean);
                Page::new(weight * (mean / low).sqrt(), (mean * low).sqrt())
            }
        }
    }

    /// Page `page`'s posterior under its host's prior, with the grid rates; `None` before the
    /// first fit (or for an unknown page).
    pub(crate) fn posterior(&self, page: usize) -> Option<(RatePosterior, &[f64])> {
        let prior = self.prior.as_ref()?;
        let host = *self.host_of_page.get(page)? as usize;
        let mixture = prior.host(host);
        Some((mixture.posterior(self.histories.get(page)?), mixture.rates()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_uniform_and_learns() {
        let mut learner = Learner::new(vec![1.0, 1.0], vec![0, 0], 2.0);
        let pages = learner.pages(Summary::Mean);
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
        learner.refit();
        let pages = learner.pages(Summary::Mean);
        assert!(pages[0].change_rate > 2.0 && pages[1].change_rate < 0.3, "{pages:?}");
    }
}
