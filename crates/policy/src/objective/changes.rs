//! `changes`: the expected number of changed versions found per unit time (seed 000).

use super::freshness::erlang2_rate;
use super::{Objective, RateAtMarginal};
use crate::Page;
use crate::special::erlang2_cdf;

/// The value of finding new content (seed 000_df0cf756c1e6fcc1.txt, "Target function"): a
/// refresh is worth `w` if the page changed since the last one, so with period `1/f`
///
/// `C(f) = w·f·(1 − e^(−λ/f))` and `C'(f) = w·G(λ/f)` with `G(r) = 1 − (1 + r)e^(−r)` (the
/// seed's `∂T̄/∂f_i`). Note `C_changes(w, λ) = C_freshness(w·λ, λ)`: this is `freshness` with
/// weights multiplied by the change rate, which is why fast-changing pages are no longer starved.
///
/// Inverse marginal: `f = λ / G⁻¹(μ/w)` (the seed's `f*/λ = g(α/(wN))`, in closed form).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Changes;

impl Objective for Changes {
    fn name(self) -> &'static str {
        "changes"
    }

    fn value(self, page: Page, rate: f64) -> f64 {
        if rate <= 0.0 {
            return 0.0;
        }
        if rate.is_infinite() {
            return page.weight * page.change_rate;
        }
        page.weight * rate * (-(-page.change_rate / rate).exp_m1())
    }

    fn marginal(self, page: Page, rate: f64) -> f64 {
        if rate <= 0.0 {
            return self.marginal_at_zero(page);
        }
        page.weight * erlang2_cdf(page.change_rate / rate)
    }

    fn marginal_at_zero(self, page: Page) -> f64 {
        page.weight
    }

    fn rate_at_marginal(self, page: Page, threshold: f64) -> RateAtMarginal {
        if threshold <= 0.0 {
            return RateAtMarginal { rate: f64::INFINITY, slope: 0.0 };
        }
        if threshold >= self.marginal_at_zero(page) {
            return RateAtMarginal::ZERO;
        }
        erlang2_rate(page.change_rate, threshold / page.weight, threshold)
    }
}
