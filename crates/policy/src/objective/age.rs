//! `age`: Cho's expected age under fixed-order visits, minimised.

use super::{Objective, RateAtMarginal};
use crate::Page;
use crate::special::{age_marginal_shape, age_marginal_shape_inverse};

/// The time-averaged age of a page visited every `1/f` (Cho & Garcia-Molina, fixed order; the
/// formula of `shared/vectors/cho-5-elements.json`), with `r = λ/f`:
///
/// `A(f) = (1/f)·(1/2 − 1/r + (1 − e^(−r))/r²)`, maximised as `C(f) = −w·A(f)`.
///
/// `dA/df = −1/(2f²) + G(r)/λ²`, so `C'(f) = (w/λ²)·H(r)` with `H(r) = r²/2 − G(r)` increasing
/// from 0 to ∞: every page gets a positive rate (`C'(0⁺) = ∞`), increasing sub-linearly in λ.
/// `C''(f) = −(w/(λf²))·r·(1 − e^(−r))`. The inverse `H⁻¹` has no closed form; it is a few
/// Newton steps on a convex function (see [`crate::special::age_marginal_shape_inverse`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Age;

impl Age {
    /// The expected age `A(f)` (time units), without weight: `(1/f)·K(r)`,
    /// `K(r) = (r²/2 − r + 1 − e^(−r))/r²`, summed as a series for small `r` where the closed form
    /// cancels (`K(r) = r/6 − r²/24 + r³/120 − …`).
    #[must_use]
    pub fn expected_age(page: Page, rate: f64) -> f64 {
        if rate <= 0.0 {
            return f64::INFINITY;
        }
        let r = page.change_rate / rate;
        let k = if r < 1.0 {
            // r²/2 − r + 1 − e^(−r) = Σ_{m≥3} (−1)^(m+1) r^m/m!
            let mut power_over_factorial = r * r * r / 6.0;
            let mut sum = 0.0;
            for m in 3..40_u32 {
                let signed = if m % 2 == 1 { power_over_factorial } else { -power_over_factorial };
                sum += signed;
                if power_over_factorial < sum.abs() * 1e-17 {
                    break;
                }
                power_over_factorial *= r / f64::from(m + 1);
            }
            sum / (r * r)
        } else {
            0.5 - 1.0 / r + (-(-r).exp_m1()) / (r * r)
        };
        k / rate
    }
}

impl Objective for Age {
    fn name(self) -> &'static str {
        "age"
    }

    fn value(self, page: Page, rate: f64) -> f64 {
        -page.weight * Self::expected_age(page, rate)
    }

    fn marginal(self, page: Page, rate: f64) -> f64 {
        if rate <= 0.0 {
            return f64::INFINITY;
        }
        let change = page.change_rate;
        page.weight / (change * change) * age_marginal_shape(change / rate)
    }

    fn marginal_at_zero(self, _page: Page) -> f64 {
        f64::INFINITY
    }

    fn rate_at_marginal(self, page: Page, threshold: f64) -> RateAtMarginal {
        if threshold <= 0.0 {
            return RateAtMarginal { rate: f64::INFINITY, slope: 0.0 };
        }
        let change = page.change_rate;
        let c = threshold * change * change / page.weight;
        let r = age_marginal_shape_inverse(c);
        if r <= 0.0 {
            return RateAtMarginal { rate: f64::INFINITY, slope: 0.0 };
        }
        let rate = change / r;
        // df/dμ = 1/C''(f) = −λ·f²/(w·r·(1 − e^(−r)))
        let slope = -(change * rate * rate) / (page.weight * r * (-(-r).exp_m1()));
        RateAtMarginal { rate, slope }
    }
}
