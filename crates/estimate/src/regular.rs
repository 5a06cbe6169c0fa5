//! Cho & Garcia-Molina's improved estimator for pages fetched at a regular interval.

use crate::error::{Error, Result};
use crate::estimate::{EstimateStatus, RateEstimate};

/// Improved rate for `intervals` fetches at a regular `interval`, `changes` of which saw a
/// change (seed 004_e0cda6b04941d422.txt, "A better estimator"; Cho & Garcia-Molina,
/// "Estimating frequency of change", TOIT 2003):
///
/// `λ = −ln((n − X + 0.5) / (n + 0.5)) / I`                       (R1)
///
/// The `+ 0.5` terms keep it finite when `X = n` (every fetch saw a change), where the plain
/// MLE `ln(n / (n − X)) / I` diverges; they also make it nearly unbiased for moderate `λI`
/// (the paper's analysis), unlike the naive `X / T`, which is biased low. It equals
/// [`crate::bias_corrected_rate`] on equal intervals.
///
/// Use it when the interval is fixed; for irregular intervals use
/// [`crate::bias_corrected_rate`]. Standard error from the binomial Fisher information
/// `n I² / (e^{λI} − 1)`: `√((e^{λI} − 1)/n) / I`; `f64::INFINITY` when no change was seen.
///
/// # Errors
/// [`Error::InvalidInterval`] unless `interval` is finite and positive;
/// [`Error::ChangesExceedIntervals`] if `changes > intervals`.
pub fn improved_rate_regular(intervals: u32, changes: u32, interval: f64) -> Result<RateEstimate> {
    if !(interval.is_finite() && interval > 0.0) {
        return Err(Error::InvalidInterval(interval));
    }
    if changes > intervals {
        return Err(Error::ChangesExceedIntervals { changes, intervals });
    }
    if intervals == 0 {
        return Ok(RateEstimate::no_data());
    }
    if changes == 0 {
        return Ok(RateEstimate::no_change_seen());
    }
    let n = f64::from(intervals);
    let x = f64::from(changes);
    // (R1) as ln(1 + X/(n − X + 0.5)) / I, exact for small X.
    let rate = (x / (n - x + 0.5)).ln_1p() / interval;
    let std_error = ((rate * interval).exp_m1() / n).sqrt() / interval;
    Ok(RateEstimate { rate, std_error, status: EstimateStatus::Estimated })
}
