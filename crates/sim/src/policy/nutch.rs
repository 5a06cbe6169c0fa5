//! `nutch-adaptive`: Apache Nutch's `AdaptiveFetchSchedule`.
//!
//! Each page has its own fetch interval, started at the uniform policy's `n/R`. After a fetch
//! that found a change it is multiplied by `1 − DEC_RATE`, after one that did not by
//! `1 + INC_RATE`, then clamped to `[MIN_INTERVAL, MAX_INTERVAL]`. Defaults as in Nutch's
//! `AdaptiveFetchSchedule.java` (`db.fetch.schedule.adaptive.inc_rate` / `dec_rate` 0.2,
//! `min_interval` 60 s, `max_interval` 365 days), reading one simulated time unit as one day.
//! Nutch's optional `sync_delta` refinement (snapping to the Last-Modified time) is not
//! modelled. A page is due one interval after its last fetch; due pages are fetched in order
//! of due time, at most one per `1/R` (the budget), so an overloaded schedule runs late.
//! Nutch uses no change rates, so known and learned runs are the same.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::{Fetch, Observation, Policy};
use crate::rng::SimRng;

/// `db.fetch.schedule.adaptive.inc_rate`: interval growth after an unchanged fetch.
pub const NUTCH_INC_RATE: f64 = 0.2;
/// `db.fetch.schedule.adaptive.dec_rate`: interval shrink after a changed fetch.
pub const NUTCH_DEC_RATE: f64 = 0.2;
/// `db.fetch.schedule.adaptive.min_interval`: 60 seconds, in days.
pub const NUTCH_MIN_INTERVAL: f64 = 60.0 / 86_400.0;
/// `db.fetch.schedule.adaptive.max_interval`: 365 days.
pub const NUTCH_MAX_INTERVAL: f64 = 365.0;

/// Nutch's interval update: `×(1 − DEC_RATE)` on change, `×(1 + INC_RATE)` otherwise, clamped.
#[must_use]
pub fn nutch_next_interval(interval: f64, changed: bool) -> f64 {
    let next = if changed { interval * (1.0 - NUTCH_DEC_RATE) } else { interval * (1.0 + NUTCH_INC_RATE) };
    next.clamp(NUTCH_MIN_INTERVAL, NUTCH_MAX_INTERVAL)
}

/// Per-page adaptive intervals and a queue by due time.
#[derive(Debug, Clone)]
pub(crate) struct NutchPolicy {
    intervals: Vec<f64>,
    /// `(due time bits, page)`: due times are ≥ 0, whose bit patterns sort as the numbers do.
    due: BinaryHeap<Reverse<(u64, usize)>>,
    slot: f64,
    clock: f64,
}

impl NutchPolicy {
    pub(crate) fn new(pages: usize, budget: f64) -> Self {
        let start = (pages as f64 / budget).clamp(NUTCH_MIN_INTERVAL, NUTCH_MAX_INTERVAL);
        let due = (0..pages).map(|page| Reverse((start.to_bits(), page))).collect();
        Self { intervals: vec![start; pages], due, slot: 1.0 / budget, clock: f64::NEG_INFINITY }
    }

    /// The current interval of `page`.
    #[cfg(test)]
    pub(crate) fn interval(&self, page: usize) -> f64 {
        self.intervals[page]
    }
}

impl Policy for NutchPolicy {
    fn next_fetch(&mut self, now: f64, _rng: &mut SimRng) -> Option<Fetch> {
        let Reverse((due, page)) = self.due.pop()?;
        let time = f64::from_bits(due).max(self.clock + self.slot).max(now);
        self.clock = time;
        Some(Fetch { page, time })
    }

    fn observe(&mut self, observation: &Observation) {
        let Some(interval) = self.intervals.get_mut(observation.page) else { return };
        *interval = nutch_next_interval(*interval, observation.changed);
        let due = (observation.time + *interval).max(0.0);
        self.due.push(Reverse((due.to_bits(), observation.page)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_follow_nutch() {
        assert!((nutch_next_interval(10.0, true) - 8.0).abs() < 1e-12);
        assert!((nutch_next_interval(10.0, false) - 12.0).abs() < 1e-12);
        assert_eq!(nutch_next_interval(360.0, false), 365.0);
        assert_eq!(nutch_next_interval(NUTCH_MIN_INTERVAL, true), NUTCH_MIN_INTERVAL);
    }

    #[test]
    fn policy_applies_the_update_and_the_budget() {
        let mut policy = NutchPolicy::new(2, 1.0);
        let mut rng = SimRng::new(0);
        let first = policy.next_fetch(0.0, &mut rng).unwrap_or_else(|| unreachable!("two pages queued"));
        assert_eq!((first.page, first.time), (0, 2.0));
        policy.observe(&Observation {
            page: 0,
            time: 2.0,
            interval: 2.0,
            changed: true,
            last_modified_age: None,
        });
        assert!((policy.interval(0) - 1.6).abs() < 1e-12);
        // Page 1 is due at 2 too, but the budget spaces fetches 1 apart.
        let second = policy.next_fetch(2.0, &mut rng).unwrap_or_else(|| unreachable!("page 1 queued"));
        assert_eq!((second.page, second.time), (1, 3.0));
        policy.observe(&Observation {
            page: 1,
            time: 3.0,
            interval: 3.0,
            changed: false,
            last_modified_age: None,
        });
        assert!((policy.interval(1) - 2.4).abs() < 1e-12);
        let third = policy.next_fetch(3.0, &mut rng).unwrap_or_else(|| unreachable!("page 0 queued"));
        assert_eq!(third.page, 0);
        assert!((third.time - 4.0).abs() < 1e-12, "page 0 due at 2 + 1.6 = 3.6, budget allows 4");
    }
}
