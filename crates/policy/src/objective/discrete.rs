//! `freshness-discrete`: freshness with one fetch per time slot (Azar et al.'s Problem 1).

use super::{Objective, RateAtMarginal, check_positive};
use crate::{Page, PolicyError};

/// Azar et al.'s Problem 1 (seed 001_1ae7d23b6da2937a.txt, eq. 3): time is cut into slots; in
/// each slot the page changes with probability `Δ` (the page's `change_rate`, in (0, 1)) and is
/// fetched with probability `p` (its rate, fetches per slot, `0 ≤ p ≤ 1`). It is fresh with
/// probability `p/(p + Δ − pΔ)`:
///
/// `C(p) = w·p/(p + Δ − pΔ)`, `C'(p) = w·Δ/(p + Δ − pΔ)²` (eq. 8), `C''(p) = −2wΔ(1−Δ)/(…)³`.
///
/// Inverse marginal: `p = (√(wΔ/μ) − Δ)/(1 − Δ)` (eq. 9), clamped to `[0, 1]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FreshnessDiscrete;

impl Objective for FreshnessDiscrete {
    fn name(self) -> &'static str {
        "freshness-discrete"
    }

    fn check_page(self, index: usize, page: Page) -> Result<(), PolicyError> {
        check_positive(index, page)?;
        if page.change_rate >= 1.0 {
            return Err(PolicyError::InvalidChangeRate {
                page: index,
                change_rate: page.change_rate,
                expected: "a change probability per slot in (0, 1)",
            });
        }
        Ok(())
    }

    fn value(self, page: Page, rate: f64) -> f64 {
        if rate <= 0.0 {
            return 0.0;
        }
        let change = page.change_rate;
        page.weight * rate / (rate + change - rate * change)
    }

    fn marginal(self, page: Page, rate: f64) -> f64 {
        let change = page.change_rate;
        let rate = rate.max(0.0);
        let denominator = rate + change - rate * change;
        if denominator.is_infinite() {
            return 0.0;
        }
        page.weight * change / (denominator * denominator)
    }

    fn marginal_at_zero(self, page: Page) -> f64 {
        page.weight / page.change_rate
    }

    fn max_rate(self, _page: Page) -> f64 {
        1.0
    }

    fn rate_at_marginal(self, page: Page, threshold: f64) -> RateAtMarginal {
        if threshold <= 0.0 {
            return RateAtMarginal { rate: 1.0, slope: 0.0 };
        }
        if threshold >= self.marginal_at_zero(page) {
            return RateAtMarginal::ZERO;
        }
        let change = page.change_rate;
        let root = (page.weight * change / threshold).sqrt();
        let rate = (root - change) / (1.0 - change);
        if rate >= 1.0 {
            return RateAtMarginal { rate: 1.0, slope: 0.0 };
        }
        RateAtMarginal { rate, slope: -0.5 * root / threshold / (1.0 - change) }
    }
}
