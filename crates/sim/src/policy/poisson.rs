//! `poisson-optimal`: Azar's rates executed at random times (seed 001's randomized policy).
//!
//! Fetches form a Poisson process of rate `R = Σ f_i` and each fetch picks page `i` with
//! probability `f_i/R`, so page `i` is fetched at the points of an independent Poisson process
//! of rate `f_i`: exactly the policy whose freshness is `Σ w·f/(f + λ)` (Problem 2).

use super::alias::Alias;
use super::source::RateSource;
use super::{Fetch, Observation, Policy};
use crate::rng::SimRng;

/// Poisson-timed fetches with pages drawn in proportion to their rates.
#[derive(Debug, Clone)]
pub(crate) struct PoissonPolicy {
    source: RateSource,
    table: Option<Alias>,
    total: f64,
    /// Time of the last fetch proposed.
    clock: f64,
    /// The next random fetch, held back while probes go first.
    pending: Option<Fetch>,
}

impl PoissonPolicy {
    pub(crate) fn new(source: RateSource, rates: &[f64]) -> Self {
        Self { source, table: Alias::new(rates), total: rates.iter().sum(), clock: 0.0, pending: None }
    }
}

impl Policy for PoissonPolicy {
    fn next_fetch(&mut self, now: f64, rng: &mut SimRng) -> Option<Fetch> {
        if self.pending.is_none()
            && let Some(table) = self.table.as_ref()
        {
            self.clock += rng.exponential(self.total);
            self.pending = Some(Fetch { page: table.sample(rng), time: self.clock });
        }
        let before = self.pending.map_or(f64::INFINITY, |fetch| fetch.time);
        let fetch = self.source.next_probe(before).or_else(|| self.pending.take())?;
        Some(Fetch { page: fetch.page, time: fetch.time.max(now) })
    }

    fn observe(&mut self, observation: &Observation) {
        if let Some(rates) = self.source.observe(observation)
            && let Some(table) = Alias::new(&rates)
        {
            self.table = Some(table);
            self.total = rates.iter().sum();
        }
    }
}
