//! Measures how far a fetch sequence strays from its shares, over every prefix.

use crate::shares::Shares;

/// Worst deviations `N_i(T) − T·p_i` seen so far, over all pages `i` and prefixes `T`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Discrepancy {
    /// Largest `N_i(T) − T·p_i`: how far a page ran ahead of its share (≥ 0).
    pub ahead: f64,
    /// Largest `T·p_i − N_i(T)`: how far a page fell behind its share (≥ 0).
    pub behind: f64,
}

impl Discrepancy {
    /// Largest `|N_i(T) − T·p_i|`.
    pub fn worst(&self) -> f64 {
        self.ahead.max(self.behind)
    }
}

/// Records a fetch sequence and tracks its [`Discrepancy`] over every prefix, in `O(1)` per
/// slot (plus `O(n)` per [`DiscrepancyMeter::discrepancy`] call).
///
/// Between two fetches of page `i` its lag `T·p_i − N_i(T)` only grows, and a fetch drops it
/// by `1 − p_i`; so the extremes over all `T` are reached just before a fetch (behind), just
/// after one (ahead), or at the current prefix, and only those are checked. Lags are computed
/// from integer counters with one fused multiply-add each, so they do not drift.
///
/// ```
/// use freshet_schedule::{Carousel, DiscrepancyMeter, Shares};
///
/// let shares = Shares::new(&[5.0, 3.0, 1.0, 1.0])?;
/// let mut meter = DiscrepancyMeter::new(&shares);
/// for page in Carousel::from_shares(shares).take(1000) {
///     meter.record(page);
/// }
/// assert!(meter.discrepancy().worst() < 1.0);
/// # Ok::<(), freshet_schedule::ScheduleError>(())
/// ```
#[derive(Debug, Clone)]
pub struct DiscrepancyMeter {
    shares: Vec<f64>,
    served: Vec<u64>,
    slots: u64,
    worst: Discrepancy,
}

impl DiscrepancyMeter {
    /// A meter for sequences over `shares`, before any slot.
    pub fn new(shares: &Shares) -> Self {
        Self {
            shares: shares.as_slice().to_vec(),
            served: vec![0; shares.page_count()],
            slots: 0,
            worst: Discrepancy { ahead: 0.0, behind: 0.0 },
        }
    }

    /// Records that the next slot fetched `page`; a page outside the shares counts as an idle
    /// slot (every page falls behind by its share).
    pub fn record(&mut self, page: usize) {
        if let Some(&share) = self.shares.get(page) {
            let behind = lag(share, self.slots, self.served[page]);
            self.worst.behind = self.worst.behind.max(behind);
            self.served[page] += 1;
            let ahead = -lag(share, self.slots + 1, self.served[page]);
            self.worst.ahead = self.worst.ahead.max(ahead);
        }
        self.slots += 1;
    }

    /// Number of slots recorded.
    pub fn slots(&self) -> u64 {
        self.slots
    }

    /// How many times `page` was recorded (0 for an unknown page).
    pub fn served(&self, page: usize) -> u64 {
        self.served.get(page).copied().unwrap_or(0)
    }

    /// Worst deviations over every page and every prefix recorded so far.
    pub fn discrepancy(&self) -> Discrepancy {
        let mut worst = self.worst;
        for (&share, &served) in self.shares.iter().zip(&self.served) {
            let lag = lag(share, self.slots, served);
            worst.behind = worst.behind.max(lag);
            worst.ahead = worst.ahead.max(-lag);
        }
        worst
    }
}

/// The lag `T·p − N`, rounded once.
fn lag(share: f64, slots: u64, served: u64) -> f64 {
    (slots as f64).mul_add(share, -(served as f64))
}
