//! `freshness-poisson`: binary freshness when fetches happen at Poisson times.

use super::{Objective, RateAtMarginal};
use crate::Page;

/// Azar et al.'s Problem 2 (seed 001_1ae7d23b6da2937a.txt, eq. 5): fetching at the times of a
/// Poisson process of rate `f`, the page is fresh when the last event before now was a fetch,
/// with probability `f/(f + λ)`:
///
/// `C(f) = w·f/(f + λ)`, `C'(f) = w·λ/(f + λ)²`, `C''(f) = −2wλ/(f + λ)³`.
///
/// Inverse marginal: `f = √(wλ/μ) − λ` (the paper's eq. 11 before normalisation), 0 when
/// `μ ≥ w/λ`. It is below `freshness` for the same rates (Jensen: fixed order beats random).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FreshnessPoisson;

impl Objective for FreshnessPoisson {
    fn name(self) -> &'static str {
        "freshness-poisson"
    }

    fn value(self, page: Page, rate: f64) -> f64 {
        if rate <= 0.0 {
            return 0.0;
        }
        if rate.is_infinite() {
            return page.weight;
        }
        page.weight * rate / (rate + page.change_rate)
    }

    fn marginal(self, page: Page, rate: f64) -> f64 {
        let denominator = rate.max(0.0) + page.change_rate;
        page.weight * page.change_rate / (denominator * denominator)
    }

    fn marginal_at_zero(self, page: Page) -> f64 {
        page.weight / page.change_rate
    }

    fn rate_at_marginal(self, page: Page, threshold: f64) -> RateAtMarginal {
        if threshold <= 0.0 {
            return RateAtMarginal { rate: f64::INFINITY, slope: 0.0 };
        }
        if threshold >= self.marginal_at_zero(page) {
            return RateAtMarginal::ZERO;
        }
        let root = (page.weight * page.change_rate / threshold).sqrt();
        let rate = root - page.change_rate;
        RateAtMarginal { rate, slope: -0.5 * root / threshold }
    }
}
