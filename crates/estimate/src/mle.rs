//! Maximum-likelihood rate for irregular intervals, and its bias-corrected variant.

use crate::estimate::{EstimateStatus, RateEstimate};
use crate::history::ChangeHistory;
use crate::solve::solve;

/// Maximum-likelihood rate from changed/unchanged intervals of any lengths
/// (seed 000_df0cf756c1e6fcc1.txt, "Estimation of page change rate").
///
/// With `U` the intervals that saw a change and `S` those that did not, the likelihood is
/// `L = Π_S e^{−λ I_i} · Π_U (1 − e^{−λ I_i})`, and `d ln L / dλ = 0` gives
///
/// `Σ_U I_i / (e^{λ I_i} − 1) = Σ_S I_i`                          (M1)
///
/// solved by a safeguarded Newton iteration in `ln λ` to ~1e-13 relative. For equal intervals
/// (M1) has the closed form `λ = ln(1 + |U|/|S|) / I`. `Σ_U` comes from the bounded histogram,
/// so the result is within [`ChangeHistory::mle_error_bound`] of the exact MLE (below it).
///
/// Edge cases: no observation → `NoData`, rate 0. No change seen → the MLE is 0
/// (`NoChangeSeen`); use a [`crate::GammaPrior`] to keep the page schedulable. Every interval
/// saw a change → the MLE is +∞; the rate returned is capped at [`bias_corrected_rate`]
/// (finite, growing like `ln(2n + 1)/I` with `n`) with status `Capped`.
///
/// Bias: upward for few observations. For equal intervals `λ̂ I = −ln(1 − X/n)` is convex in
/// `X/n`, so by Jensen `E[λ̂] ≥ λ`, and it diverges with probability `(1 − e^{−λI})^n`; use
/// [`bias_corrected_rate`] for small samples.
/// Standard error `1/√J`, `J = Σ_U I_i² e^{λI_i} / (e^{λI_i} − 1)²` the observed information.
pub fn mle_rate(history: &ChangeHistory) -> RateEstimate {
    let changes = history.changes();
    if history.intervals() == 0 {
        return RateEstimate::no_data();
    }
    if changes == 0 {
        return RateEstimate::no_change_seen();
    }
    if changes == history.intervals() {
        return RateEstimate {
            rate: bias_corrected_rate(history).rate,
            std_error: f64::INFINITY,
            status: EstimateStatus::Capped,
        };
    }
    let root = solve(0.0, history.changed_intervals(), history.unchanged_time());
    RateEstimate { rate: root.rate, std_error: root.std_error(), status: EstimateStatus::Estimated }
}

/// Bias-corrected MLE for irregular intervals; never diverges.
///
/// Adds to the right side of (M1) a pseudo-observation of half a mean interval
/// `Ī = T / n` without change:
///
/// `Σ_U I_i / (e^{λ I_i} − 1) = Σ_S I_i + 0.5 Ī`                  (M2)
///
/// For equal intervals `I` this is exactly Cho & Garcia-Molina's improved estimator
/// ([`crate::improved_rate_regular`]): `X I / (e^{λI} − 1) = (n − X + 0.5) I` gives
/// `e^{λI} = (n + 0.5)/(n − X + 0.5)`. For irregular intervals it is the natural extension
/// (one half-interval of extra "no change" evidence), with the same effect: finite when every
/// interval saw a change, and a smaller upward small-sample bias than (M1).
///
/// Use it as the default interval-based estimator when no prior is wanted. No observation →
/// `NoData`; no change seen → rate 0, `NoChangeSeen`. Binning error as for [`mle_rate`].
/// Standard error from the observed information of (M2), the same `J` as [`mle_rate`].
pub fn bias_corrected_rate(history: &ChangeHistory) -> RateEstimate {
    let Some(mean_interval) = history.mean_interval() else {
        return RateEstimate::no_data();
    };
    if history.changes() == 0 {
        return RateEstimate::no_change_seen();
    }
    let rhs = history.unchanged_time() + 0.5 * mean_interval;
    let root = solve(0.0, history.changed_intervals(), rhs);
    RateEstimate { rate: root.rate, std_error: root.std_error(), status: EstimateStatus::Estimated }
}
