//! Learned change rates: per-page histories, pooled per-host priors (see the module docs of
//! [`crate::policy`], "Learned rates").

use freshet_estimate::{
    ChangeHistory, GammaPrior, HostPool, RateEstimate, bias_corrected_rate, last_modified_rate,
};
use freshet_policy::Page;

use super::Observation;

/// Smallest rate handed to the solvers, as a fraction of the default rate `R/n` (the solvers
/// need `λ > 0`; a page that never changed gets a tiny rate, not zero).
const MIN_RATE_FRACTION: f64 = 1e-6;

/// What a learned-rate policy knows about the pages: their histories.
#[derive(Debug, Clone)]
pub(crate) struct Learner {
    histories: Vec<ChangeHistory>,
    weights: Vec<f64>,
    host_of_page: Vec<u32>,
    hosts: usize,
    /// `R/n`: the rate assumed before anything is observed.
    default_rate: f64,
    /// Prior strength in time units: `n/R`.
    strength: f64,
    observed_since_estimate: usize,
    /// Length of the current epoch, in observations (doubles at each re-estimate).
    next_estimate: usize,
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
            strength: n / budget,
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

    fn own_estimate(history: &ChangeHistory) -> RateEstimate {
        if history.last_modified_intervals() > 0 {
            last_modified_rate(history)
        } else {
            bias_corrected_rate(history)
        }
    }

    /// The pages with their current estimated rates.
    pub(crate) fn pages(&self) -> Vec<Page> {
        let mut pools = vec![HostPool::new(); self.hosts];
        let mut all = HostPool::new();
        for (history, &host) in self.histories.iter().zip(&self.host_of_page) {
            if history.intervals() == 0 {
                continue;
            }
            let rate = Self::own_estimate(history).rate;
            if let Some(pool) = pools.get_mut(host as usize) {
                // Rates are finite and ≥ 0 by the estimators' contract; a rejected one is skipped.
                let _ = pool.add(rate);
            }
            let _ = all.add(rate);
        }
        let fallback = GammaPrior::from_pool(self.default_rate, self.strength).ok();
        let global = all.prior(self.strength).ok().or(fallback);
        let priors: Vec<Option<GammaPrior>> =
            pools.iter().map(|pool| pool.prior(self.strength).ok().or(global)).collect();
        let floor = self.default_rate * MIN_RATE_FRACTION;
        self.histories
            .iter()
            .zip(&self.host_of_page)
            .zip(&self.weights)
            .map(|((history, &host), &weight)| {
                let prior = priors.get(host as usize).copied().flatten();
                let rate = match prior {
                    Some(prior) if history.last_modified_intervals() > 0 => {
                        prior.posterior_from_last_modified(history).rate
                    }
                    Some(prior) => prior.posterior_from_intervals(history).rate,
                    None => self.default_rate,
                };
                let rate = if rate.is_finite() { rate.max(floor) } else { self.default_rate };
                Page::new(weight, rate)
            })
            .collect()
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
