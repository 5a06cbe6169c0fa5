//! `delay`: the total delay of seed 004, minimised.

use super::{Objective, RateAtMarginal};
use crate::Page;

/// Seed 004_e0cda6b04941d422.txt ("A useful lemma"): visiting every `τ = 1/f`, the changes that
/// arrive during an interval wait on average `τ/2`, so the total delay accrued per interval is
/// `λτ²/2` and per unit time `λ/(2f)`. Weighted and negated to be maximised:
///
/// `C(f) = −w·λ/(2f)`, `C'(f) = w·λ/(2f²)`, `C''(f) = −w·λ/f³`.
///
/// Inverse marginal: `f = √(wλ/(2μ))`, hence the seed's rule: the optimum is `f ∝ √(wλ)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Delay;

impl Objective for Delay {
    fn name(self) -> &'static str {
        "delay"
    }

    fn value(self, page: Page, rate: f64) -> f64 {
        if rate <= 0.0 {
            return f64::NEG_INFINITY;
        }
        -page.weight * page.change_rate / (2.0 * rate)
    }

    fn marginal(self, page: Page, rate: f64) -> f64 {
        if rate <= 0.0 {
            return f64::INFINITY;
        }
        page.weight * page.change_rate / (2.0 * rate * rate)
    }

    fn marginal_at_zero(self, _page: Page) -> f64 {
        f64::INFINITY
    }

    fn rate_at_marginal(self, page: Page, threshold: f64) -> RateAtMarginal {
        if threshold <= 0.0 {
            return RateAtMarginal { rate: f64::INFINITY, slope: 0.0 };
        }
        let rate = (page.weight * page.change_rate / (2.0 * threshold)).sqrt();
        RateAtMarginal { rate, slope: -0.5 * rate / threshold }
    }
}
