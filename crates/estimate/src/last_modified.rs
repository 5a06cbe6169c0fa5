//! Maximum-likelihood rate from Last-Modified ages: changes per unit of change-free exposure.

use crate::estimate::{EstimateStatus, RateEstimate};
use crate::history::ChangeHistory;

/// Last-Modified MLE `λ = k / E` over the observations that carried a Last-Modified.
///
/// Derivation. Looking back from a fetch, the time to the last change of a Poisson process is
/// exponential with rate λ (memorylessness). A fetch that saw a change whose Last-Modified is
/// `a` old has density `λ e^{−λ a}` (a change at `a`, none after); a fetch that saw no change
/// in its interval `I` has probability `e^{−λ I}`. So
///
/// `L = Π_U λ e^{−λ a_i} · Π_S e^{−λ I_i} = λ^k e^{−λ E}`,  `E = Σ_U a_i + Σ_S I_i`   (L1)
///
/// and `d ln L/dλ = k/λ − E = 0` gives `λ̂ = k / E`; the information `k/λ²` gives the
/// standard error `λ̂ / √k`.
///
/// Bias. On the exposure axis the changes form a Poisson process of rate λ. If `E` were fixed
/// in advance, `k ~ Poisson(λE)` and `k/E` would be unbiased. If one stopped at the `k`-th
/// change, `E ~ Gamma(k, λ)` and `E[k/E] = λ k/(k − 1)`: biased up, with `(k − 1)/E` unbiased.
/// A crawler fixes neither: when `λI ≪ 1` the exposure is nearly fixed (`≈ Σ I`) and `k/E`
/// nearly unbiased; when `λI ≫ 1` every fetch sees a change, `k = n` is fixed and `k/E`
/// overestimates by about `k/(k − 1)`. No single correction is right in both regimes (the
/// simulation tests show it), so none is applied: for small `k` use
/// [`crate::GammaPrior::posterior_from_last_modified`], whose shrinkage dominates this bias.
///
/// Use it when most fetches of a page carry a reliable Last-Modified: it uses the time of
/// the last change, not only its existence, and so does not saturate when `λI` is large.
///
/// Edge cases: no Last-Modified observation → `NoData`, rate 0. No change → rate 0,
/// `NoChangeSeen`. Changes with zero exposure (every age 0, as with servers that stamp
/// Last-Modified with the fetch time) → the MLE is +∞; the rate is capped at `k / (Ī/2)` with
/// `Ī` the mean interval (half a mean interval of pseudo-exposure), status `Capped`.
pub fn last_modified_rate(history: &ChangeHistory) -> RateEstimate {
    if history.last_modified_intervals() == 0 {
        return RateEstimate::no_data();
    }
    let k = history.last_modified_changes();
    if k == 0 {
        return RateEstimate::no_change_seen();
    }
    let k = f64::from(k);
    let exposure = history.last_modified_exposure();
    if exposure > 0.0 {
        let rate = k / exposure;
        return RateEstimate { rate, std_error: rate / k.sqrt(), status: EstimateStatus::Estimated };
    }
    // last_modified_intervals > 0 implies intervals > 0, so the mean exists and is positive.
    let half_interval = 0.5 * history.mean_interval().unwrap_or(1.0);
    RateEstimate { rate: k / half_interval, std_error: f64::INFINITY, status: EstimateStatus::Capped }
}

#[cfg(test)]
#[allow(clippy::expect_used)] // a failing fixture should panic the test
mod tests {
    use super::*;

    #[test]
    fn exposure_estimate_is_count_over_change_free_time() {
        let mut h = ChangeHistory::new();
        h.observe(4.0, true, Some(1.0)).expect("valid");
        h.observe(2.0, false, Some(7.0)).expect("valid");
        h.observe(3.0, true, None).expect("valid");
        // k = 1, E = 1 + 2 (the unchanged fetch adds its interval, not its age).
        let e = last_modified_rate(&h);
        assert_eq!(e.status, EstimateStatus::Estimated);
        assert!((e.rate - 1.0 / 3.0).abs() < 1e-15);
        assert!((e.std_error - 1.0 / 3.0).abs() < 1e-15);
    }

    #[test]
    fn zero_exposure_is_capped_at_half_a_mean_interval() {
        let mut h = ChangeHistory::new();
        h.observe(2.0, true, Some(0.0)).expect("valid");
        h.observe(4.0, true, Some(0.0)).expect("valid");
        let e = last_modified_rate(&h);
        assert_eq!(e.status, EstimateStatus::Capped);
        assert!((e.rate - 2.0 / 1.5).abs() < 1e-15);
    }
}
