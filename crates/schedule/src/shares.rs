//! Validated refresh rates, normalised into each page's share of the fetch slots.

use crate::error::{Result, ScheduleError};

/// Refresh rates `f_i ≥ 0` turned into shares `p_i = f_i / R` of a slot sequence.
///
/// With total rate `R = Σ f_i > 0`, time is cut into slots of length `1/R` and the crawler
/// fetches one page per slot; page `i` should get a fraction `p_i` of the slots
/// (seed 001_1ae7d23b6da2937a.txt, "Derandomizing the Optimal Random Policy").
///
/// The shares are `f64` and sum to 1 only up to rounding (a few units in the last place
/// times the number of pages); the schedulers of this crate treat them as exact numbers.
/// A positive rate so small that `f_i / R` underflows to zero is treated as zero.
#[derive(Debug, Clone, PartialEq)]
pub struct Shares {
    shares: Vec<f64>,
    total_rate: f64,
}

impl Shares {
    /// Validates `rates` (fetches per unit time, one per page) and normalises them.
    ///
    /// # Errors
    /// [`ScheduleError`] if `rates` is empty, holds a NaN, a negative or an infinite rate,
    /// if all rates are zero, or if their sum overflows.
    pub fn new(rates: &[f64]) -> Result<Self> {
        if rates.is_empty() {
            return Err(ScheduleError::Empty);
        }
        for (page, &rate) in rates.iter().enumerate() {
            if rate.is_nan() {
                return Err(ScheduleError::NotANumber { page });
            }
            if rate < 0.0 {
                return Err(ScheduleError::Negative { page, rate });
            }
            if rate.is_infinite() {
                return Err(ScheduleError::Infinite { page });
            }
        }
        let total_rate: f64 = rates.iter().sum();
        if total_rate == 0.0 {
            return Err(ScheduleError::AllZero { pages: rates.len() });
        }
        if total_rate.is_infinite() {
            return Err(ScheduleError::TotalOverflow);
        }
        // Adding non-negative floats is monotone, so `rate <= total_rate` and every share is
        // in [0, 1]; `abs` turns a `-0.0` rate into `+0.0`.
        let shares = rates.iter().map(|rate| rate.abs() / total_rate).collect();
        Ok(Self { shares, total_rate })
    }

    /// Number of pages, including those with share zero.
    pub fn page_count(&self) -> usize {
        self.shares.len()
    }

    /// Share `p_i` of page `page`, or `None` if there is no such page.
    pub fn share(&self, page: usize) -> Option<f64> {
        self.shares.get(page).copied()
    }

    /// All shares, indexed by page.
    pub fn as_slice(&self) -> &[f64] {
        &self.shares
    }

    /// Total rate `R = Σ f_i`, in fetches per unit time.
    pub fn total_rate(&self) -> f64 {
        self.total_rate
    }

    /// Length `1/R` of one slot, in the time unit of the rates.
    pub fn slot_length(&self) -> f64 {
        1.0 / self.total_rate
    }

    /// Start time `k/R` of slot `slot`, counted from the start of slot 0.
    ///
    /// Computed as one division from the slot index, so it does not drift over long runs.
    pub fn slot_start(&self, slot: u64) -> f64 {
        slot as f64 / self.total_rate
    }

    /// Indices of the pages with a positive share, in increasing order.
    pub(crate) fn positive_pages(&self) -> impl Iterator<Item = usize> + '_ {
        self.shares.iter().enumerate().filter(|&(_, &share)| share > 0.0).map(|(page, _)| page)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_rates() {
        assert_eq!(Shares::new(&[]), Err(ScheduleError::Empty));
        assert_eq!(Shares::new(&[1.0, f64::NAN]), Err(ScheduleError::NotANumber { page: 1 }));
        assert_eq!(Shares::new(&[1.0, 2.0, -0.5]), Err(ScheduleError::Negative { page: 2, rate: -0.5 }));
        assert_eq!(
            Shares::new(&[f64::NEG_INFINITY]),
            Err(ScheduleError::Negative { page: 0, rate: f64::NEG_INFINITY })
        );
        assert_eq!(Shares::new(&[f64::INFINITY, 1.0]), Err(ScheduleError::Infinite { page: 0 }));
        assert_eq!(Shares::new(&[0.0, -0.0, 0.0]), Err(ScheduleError::AllZero { pages: 3 }));
        assert_eq!(Shares::new(&[f64::MAX, f64::MAX]), Err(ScheduleError::TotalOverflow));
    }

    #[test]
    fn normalises_and_maps_slots_to_time() -> Result<()> {
        let shares = Shares::new(&[2.0, 1.0, 0.0, 1.0])?;
        assert_eq!(shares.as_slice(), &[0.5, 0.25, 0.0, 0.25]);
        assert_eq!(shares.total_rate(), 4.0);
        assert_eq!(shares.slot_length(), 0.25);
        assert_eq!(shares.slot_start(10), 2.5);
        assert_eq!(shares.share(3), Some(0.25));
        assert_eq!(shares.share(4), None);
        assert_eq!(shares.positive_pages().collect::<Vec<_>>(), [0, 1, 3]);
        Ok(())
    }

    #[test]
    fn negative_zero_is_zero() -> Result<()> {
        let shares = Shares::new(&[-0.0, 1.0])?;
        assert!(shares.as_slice()[0].is_sign_positive());
        assert_eq!(shares.positive_pages().collect::<Vec<_>>(), [1]);
        Ok(())
    }
}
