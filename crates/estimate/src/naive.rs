//! The naive estimator `X / T`: changes seen per unit of observed time.

use crate::estimate::{EstimateStatus, RateEstimate};
use crate::history::ChangeHistory;

/// Naive rate `λ = X / T` (seed 000_df0cf756c1e6fcc1.txt, last formula of "Estimation of page
/// change rate"; seed 004_e0cda6b04941d422.txt, "Simple estimator").
///
/// `X` is the number of intervals in which a change was seen and `T` the total observed time.
///
/// Bias: low. Several changes inside one interval count once, so `E[X/T] = (1 − e^{−λI})/I <
/// λ` for regular intervals `I`; the shortfall grows with `λI` and `X/T ≤ 1/I` whatever λ is.
/// It is unbiased only if every change is observed (λI → 0).
///
/// Use it only as a lower bound or for pages fetched much more often than they change.
/// Standard error `√X / T` (Poisson); `f64::INFINITY` when no change was seen.
pub fn naive_rate(history: &ChangeHistory) -> RateEstimate {
    let changes = history.changes();
    if history.intervals() == 0 {
        return RateEstimate::no_data();
    }
    if changes == 0 {
        return RateEstimate::no_change_seen();
    }
    let total = history.total_time();
    let x = f64::from(changes);
    RateEstimate { rate: x / total, std_error: x.sqrt() / total, status: EstimateStatus::Estimated }
}
