//! `freshness`: binary freshness under fixed-order (periodic) visits.

use super::{Objective, RateAtMarginal};
use crate::Page;
use crate::special::{erlang2_cdf, erlang2_quantile};

/// Expected weighted freshness of a page visited every `1/f` time units (Cho & Garcia-Molina;
/// seed 003_aad34b8e7abe1f9a.txt, `C(ρ)`):
///
/// `C(f) = w·(f/λ)·(1 − e^(−λ/f))`, and with `r = λ/f`, `C'(f) = (w/λ)·G(r)` where
/// `G(r) = 1 − (1 + r)e^(−r)` (seed 003's `C'(ρ)`), `C''(f) = −w·λ·e^(−r)/f³`.
///
/// Inverse marginal: `C'(f) = μ ⇔ G(λ/f) = μλ/w ⇔ f = λ / G⁻¹(μλ/w)`, in closed form through
/// Lambert W (see [`crate::special::erlang2_quantile`]). Pages with `w/λ ≤ μ` are not fetched:
/// the optimum ignores pages that change too often for their weight.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Freshness;

impl Objective for Freshness {
    fn name(self) -> &'static str {
        "freshness"
    }

    fn value(self, page: Page, rate: f64) -> f64 {
        if rate <= 0.0 {
            return 0.0;
        }
        let r = page.change_rate / rate;
        if r == 0.0 {
            return page.weight;
        }
        page.weight * (-(-r).exp_m1()) / r
    }

    #[inline]
    fn marginal(self, page: Page, rate: f64) -> f64 {
        if rate <= 0.0 {
            return self.marginal_at_zero(page);
        }
        page.weight / page.change_rate * erlang2_cdf(page.change_rate / rate)
    }

    #[inline]
    fn marginal_at_zero(self, page: Page) -> f64 {
        page.weight / page.change_rate
    }

    #[inline]
    fn rate_at_marginal(self, page: Page, threshold: f64) -> RateAtMarginal {
        if threshold <= 0.0 {
            return RateAtMarginal { rate: f64::INFINITY, slope: 0.0 };
        }
        if threshold >= self.marginal_at_zero(page) {
            return RateAtMarginal::ZERO;
        }
        erlang2_rate(page.change_rate, threshold * page.change_rate / page.weight, threshold)
    }
}

/// `f = λ / G⁻¹(c)` and `df/dμ`: shared by `freshness` and `changes`, whose marginals are both
/// `scale·G(λ/f)` with `c = μ/scale`.
///
/// With `x = G⁻¹(c)`: `dx/dc = 1/G'(x) = e^x/x`, so `df/dμ = −(λ/x²)·(e^x/x)·(c/μ)`; and
/// `e^x = (1 + x)/(1 − c)` by the definition of `x`, which saves an exponential per page.
#[inline]
pub(super) fn erlang2_rate(change_rate: f64, c: f64, threshold: f64) -> RateAtMarginal {
    if c >= 1.0 {
        return RateAtMarginal::ZERO;
    }
    let x = erlang2_quantile(c);
    if x <= 0.0 {
        // c underflowed: use the small-c asymptote f ≈ λ/√(2c).
        return RateAtMarginal { rate: f64::INFINITY, slope: 0.0 };
    }
    let rate = change_rate / x;
    let slope = -(change_rate / (x * x * x)) * ((1.0 + x) / (1.0 - c)) * (c / threshold);
    RateAtMarginal { rate, slope }
}
