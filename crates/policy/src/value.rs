//! The crawl value function of seed 003 and the time at which it reaches a threshold.
//!
//! Seed 003_aad34b8e7abe1f9a.txt: with `τ` the time since a page was last fetched, its crawl
//! value is `V(τ) = C'(1/τ)`, the marginal value of its objective at the rate that fetching now
//! would imply. It rises from `V(0) = 0` to `V(∞) = C'(0⁺)`; at the optimal period `Δ*`,
//! `V(Δ*) = λ_i + λ_0`. So an online crawler fetches a page when its value crosses its host's
//! threshold `λ_i + λ_0`: the static solution executed as a stream. For `freshness`,
//! `V(τ) = (w/λ)(1 − e^(−λτ)) − wτe^(−λτ) = (w/λ)·G(λτ)` exactly as in the seed, and
//! `V(∞) = w/λ`: a page whose `w/λ` is below the threshold is never due.

use crate::Page;
use crate::objective::Objective;

/// `V(τ) = C'(1/τ)`: the value of fetching `page` now, `elapsed` time units after its last fetch.
/// `elapsed = ∞` (never fetched) gives `C'(0⁺)`.
#[must_use]
pub fn crawl_value<O: Objective>(objective: O, page: Page, elapsed: f64) -> f64 {
    if elapsed <= 0.0 {
        return 0.0;
    }
    if elapsed.is_infinite() {
        return objective.marginal_at_zero(page);
    }
    objective.marginal(page, 1.0 / elapsed)
}

/// `τ*(θ)`: the time since the last fetch at which `V` reaches `threshold`; `∞` when it never
/// does (`θ ≥ V(∞)`), 0 when `θ ≤ 0`. For `freshness-discrete` the result is at least one slot.
#[must_use]
pub fn time_to_reach<O: Objective>(objective: O, page: Page, threshold: f64) -> f64 {
    if threshold <= 0.0 {
        return 0.0;
    }
    let rate = objective.rate_at_marginal(page, threshold).rate;
    if rate <= 0.0 { f64::INFINITY } else { 1.0 / rate }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::objective::{Age, Changes, Delay, Freshness, FreshnessPoisson};

    #[test]
    fn freshness_value_is_seed_003s_formula() {
        let (w, delta) = (2.0, 0.3);
        let page = Page::new(w, delta);
        for tau in [0.01_f64, 0.5, 3.0, 40.0] {
            let seed = (w / delta) * (1.0 - (-delta * tau).exp()) - w * tau * (-delta * tau).exp();
            assert!((crawl_value(Freshness, page, tau) - seed).abs() < 1e-13 * (w / delta));
        }
        assert_eq!(crawl_value(Freshness, page, f64::INFINITY), w / delta);
        assert_eq!(crawl_value(Freshness, page, 0.0), 0.0);
    }

    #[test]
    fn time_to_reach_inverts_the_value() {
        let page = Page::new(3.0, 0.7);
        for tau in [0.05, 1.0, 9.0] {
            let theta = crawl_value(Freshness, page, tau);
            assert!((time_to_reach(Freshness, page, theta) / tau - 1.0).abs() < 1e-9);
            let theta = crawl_value(Age, page, tau);
            assert!((time_to_reach(Age, page, theta) / tau - 1.0).abs() < 1e-9);
            let theta = crawl_value(Changes, page, tau);
            assert!((time_to_reach(Changes, page, theta) / tau - 1.0).abs() < 1e-9);
            let theta = crawl_value(Delay, page, tau);
            assert!((time_to_reach(Delay, page, theta) / tau - 1.0).abs() < 1e-9);
            let theta = crawl_value(FreshnessPoisson, page, tau);
            assert!((time_to_reach(FreshnessPoisson, page, theta) / tau - 1.0).abs() < 1e-9);
        }
        // Never due when the threshold is at or above V(∞) = w/λ.
        assert_eq!(time_to_reach(Freshness, page, 3.0 / 0.7), f64::INFINITY);
        // Age and delay: every page is eventually due.
        assert!(time_to_reach(Age, page, 1e9).is_finite());
    }

    #[test]
    fn value_increases_with_time() {
        let page = Page::new(1.0, 2.0);
        let mut previous = 0.0;
        for step in 1..200 {
            let value = crawl_value(Freshness, page, f64::from(step) * 0.05);
            assert!(value >= previous);
            previous = value;
        }
    }
}
