//! Exactly periodic fetching: page `i` every `1/f_i`, the "fixed-order" policy that Cho &
//! Garcia-Molina's freshness formula `(f/λ)(1 − e^(−λ/f))` assumes.
//!
//! The carousel approximates this within one slot of `1/R`; when a page's interval is only a
//! few slots the jitter costs freshness (the per-interval freshness is concave in the
//! interval). This executor has no jitter, so it measures the formula itself; it keeps the
//! long-run budget `Σ f_i` but not a one-fetch-per-slot spacing.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::{Fetch, Observation, Policy};
use crate::rng::SimRng;

/// Page `i` at `φ_i/f_i + k/f_i`, `k = 0, 1, …`, with phases `φ_i = frac((i + 1)·0.618…)`
/// spreading the first fetches; pages with rate 0 are never fetched.
#[derive(Debug, Clone)]
pub struct FixedIntervals {
    periods: Vec<f64>,
    phases: Vec<f64>,
    counts: Vec<u64>,
    /// `(next fetch time bits, page)`; times are ≥ 0, whose bits sort as the numbers do.
    queue: BinaryHeap<Reverse<(u64, usize)>>,
}

impl FixedIntervals {
    /// Fetches every page with a positive finite rate exactly every `1/rate`.
    #[must_use]
    pub fn new(rates: &[f64]) -> Self {
        const GOLDEN: f64 = 0.618_033_988_749_894_9;
        let periods: Vec<f64> = rates.iter().map(|&rate| 1.0 / rate).collect();
        let phases: Vec<f64> = (0..rates.len()).map(|i| ((i + 1) as f64 * GOLDEN).fract()).collect();
        let queue = (0..rates.len())
            .filter(|&i| rates[i].is_finite() && rates[i] > 0.0)
            .map(|i| Reverse(((phases[i] * periods[i]).to_bits(), i)))
            .collect();
        Self { counts: vec![0; rates.len()], periods, phases, queue }
    }
}

impl Policy for FixedIntervals {
    fn next_fetch(&mut self, now: f64, _rng: &mut SimRng) -> Option<Fetch> {
        let Reverse((time, page)) = self.queue.pop()?;
        self.counts[page] += 1;
        // Times from integer counts, so nothing drifts over long runs.
        let next = (self.phases[page] + self.counts[page] as f64) * self.periods[page];
        self.queue.push(Reverse((next.to_bits(), page)));
        Some(Fetch { page, time: f64::from_bits(time).max(now) })
    }

    fn observe(&mut self, _observation: &Observation) {}
}
