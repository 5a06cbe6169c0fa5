//! The special functions behind the objectives' marginals, accurate over the whole range.
//!
//! Two shapes recur in the seeds' refresh math:
//!
//! * `G(x) = 1 − (1 + x)·e^(−x)`, the Erlang-2 distribution function (the probability of at
//!   least two events of a unit-rate Poisson process in time `x`). The marginal value of the
//!   `freshness` objective is `C'(f) = (w/λ)·G(λ/f)` and seed 003's crawl value function is
//!   `V(τ) = (w/δ)·G(δτ)` (seed 003_aad34b8e7abe1f9a.txt); the `changes` objective of seed
//!   000_df0cf756c1e6fcc1.txt has `C'(f) = w·G(λ/f)`.
//! * `H(r) = r²/2 − G(r)`, which gives the marginal of Cho's fixed-order age.
//!
//! Both are computed by their Taylor series near 0 (where the closed forms cancel
//! catastrophically) and by the closed forms elsewhere. `G⁻¹` has a closed form through the
//! secondary branch of the Lambert W function: `G(x) = c ⇔ x = −1 − W₋₁(−(1 − c)/e)`. Near the
//! branch point (`c → 0`) the argument `−(1 − c)/e` loses the information in `c`, so there we use
//! the branch-point series of `W₋₁` in `p = √(2c)` instead, which is exact in `c`.

/// Below this `x`, `G(x)` and `H(x)` are summed from their Taylor series.
const SERIES_LIMIT: f64 = 1.0;

/// Below this `c`, `G⁻¹(c)` is evaluated from the branch-point series in `p = √(2c)`, above it
/// from Lambert `W₋₁`. Measured against bisection on the series-accurate `G` (`cargo run
/// --release -p freshet-policy --example quantile_error`): the 8-term series is within 1e-13
/// relative below 1e-3 (4e-16 below 1e-4), `lambert_wm1` within 6.6e-14 above 1e-3 (its error grows
/// towards the branch point: 7.9e-12 at 1e-5). So the switch at 1e-3 keeps ~1e-13 everywhere,
/// with no iteration.
const QUANTILE_SERIES_LIMIT: f64 = 1e-3;

/// `G(x) = 1 − (1 + x)·e^(−x)` for `x ≥ 0`: the Erlang-2 CDF. Increasing from `G(0) = 0` to
/// `G(∞) = 1`, with `G(x) ≈ x²/2` near 0 and `G'(x) = x·e^(−x)`.
///
/// Returns 0 for `x ≤ 0` (and for NaN) and 1 for `x = +∞`.
#[inline]
#[must_use]
pub fn erlang2_cdf(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        return 0.0;
    }
    if x < CDF_SERIES_LIMIT {
        // G(x) = x²·Σ_{m=2}^{14} (−1)^m (m−1)/m! · x^(m−2), by Horner: no division and no
        // test per term (the summed series divided once per term and took up to 40 terms: its
        // removal took 13% of the online bench's instructions, BENCHMARKS.md).
        let tail = CDF_SERIES.iter().rev().fold(0.0_f64, |sum, &coefficient| sum * x + coefficient);
        return x * x * tail;
    }
    if x.is_infinite() {
        return 1.0;
    }
    // 1 − (1 + x)·e^(−x) with e^(−x) = 1 + m, m = e^(−x) − 1: one exponential, where
    // `−expm1(−x) − x·exp(−x)` took two (an `exp` is ~50 instructions, and the online
    // scheduler evaluates `G` about once per fetch).
    let m = (-x).exp_m1();
    -(m + x * (1.0 + m))
}

/// Below this `x`, `G(x)` is the polynomial [`CDF_SERIES`]; above it the closed form, whose
/// two terms cancel to `x²/2` with a relative error of about `4ε/x` (2e-15 at the limit).
const CDF_SERIES_LIMIT: f64 = 0.25;

/// `(−1)^m (m−1)/m!` for `m = 2..=14`: the Taylor coefficients of `G(x)/x²`. At `x = 0.25` the
/// first term left out (`m = 15`) is below 1e-19 of `G`.
const CDF_SERIES: [f64; 13] = [
    1.0 / 2.0,
    -2.0 / 6.0,
    3.0 / 24.0,
    -4.0 / 120.0,
    5.0 / 720.0,
    -6.0 / 5_040.0,
    7.0 / 40_320.0,
    -8.0 / 362_880.0,
    9.0 / 3_628_800.0,
    -10.0 / 39_916_800.0,
    11.0 / 479_001_600.0,
    -12.0 / 6_227_020_800.0,
    13.0 / 87_178_291_200.0,
];

/// `1 − G(x) = (1 + x)·e^(−x)`, accurate when `G(x)` is close to 1 (large `x`).
#[must_use]
pub fn erlang2_survival(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        return 1.0;
    }
    if x < SERIES_LIMIT {
        return 1.0 - erlang2_cdf(x);
    }
    (1.0 + x) * (-x).exp()
}

/// The inverse of [`erlang2_cdf`]: the `x ≥ 0` with `1 − (1 + x)·e^(−x) = c`.
///
/// Returns 0 for `c ≤ 0` (and NaN), `+∞` for `c ≥ 1`. Closed form through Lambert `W₋₁`
/// (no per-call iteration), with the branch-point series for small `c`:
/// `x = p + p²/3 + 11p³/72 + 43p⁴/540 + 769p⁵/17280 + 221p⁶/8505 + …`, `p = √(2c)`.
#[inline]
#[must_use]
pub fn erlang2_quantile(c: f64) -> f64 {
    if c.is_nan() || c <= 0.0 {
        return 0.0;
    }
    if c >= 1.0 {
        return f64::INFINITY;
    }
    if c < QUANTILE_SERIES_LIMIT {
        let p = (2.0 * c).sqrt();
        // Coefficients of −1 − W₋₁ around the branch point (Corless et al. 1996, eq. 4.22,
        // with p ↦ −p for the secondary branch).
        const COEFFICIENTS: [f64; 8] = [
            1.0,
            1.0 / 3.0,
            11.0 / 72.0,
            43.0 / 540.0,
            769.0 / 17_280.0,
            221.0 / 8_505.0,
            680_863.0 / 43_545_600.0,
            1_963.0 / 204_120.0,
        ];
        let mut sum = 0.0;
        for coefficient in COEFFICIENTS.iter().rev() {
            sum = sum * p + coefficient;
        }
        return sum * p;
    }
    // (1 + x)e^(−(1+x)) = (1 − c)/e  ⇒  −(1 + x) = W₋₁(−(1 − c)/e).
    let w = lambert_w::lambert_wm1(-(1.0 - c) / std::f64::consts::E);
    -1.0 - w
}

/// `H(r) = r²/2 − G(r) = r²/2 − 1 + (1 + r)·e^(−r)` for `r ≥ 0`: increasing and convex, with
/// `H(r) ≈ r³/3` near 0 and `H'(r) = r·(1 − e^(−r))`. The marginal value of the `age` objective
/// is `(w/λ²)·H(λ/f)`.
#[must_use]
pub fn age_marginal_shape(r: f64) -> f64 {
    if r.is_nan() || r <= 0.0 {
        return 0.0;
    }
    if r < SERIES_LIMIT {
        // H(r) = Σ_{m≥3} (−1)^(m+1) (m−1) r^m / m!
        let mut power_over_factorial = r * r * r / 6.0;
        let mut sum = 0.0;
        for m in 3..40_u32 {
            let term = f64::from(m - 1) * power_over_factorial;
            let signed = if m % 2 == 1 { term } else { -term };
            sum += signed;
            if term < sum.abs() * 1e-17 {
                break;
            }
            power_over_factorial *= r / f64::from(m + 1);
        }
        return sum;
    }
    if r.is_infinite() {
        return f64::INFINITY;
    }
    0.5 * r * r - erlang2_cdf(r)
}

/// The inverse of [`age_marginal_shape`]: the `r ≥ 0` with `H(r) = c`.
///
/// `H` has no closed-form inverse; this is Newton's method started inside the bracket
/// `[max(√(2c), ∛(3c)), √(2(c + 1))]` (from `r²/2 − 1 ≤ H(r) ≤ min(r²/2, r³/3)`), which
/// converges monotonically because `H` is increasing and convex; 3–6 steps in practice.
#[must_use]
pub fn age_marginal_shape_inverse(c: f64) -> f64 {
    if c.is_nan() || c <= 0.0 {
        return 0.0;
    }
    if c.is_infinite() {
        return f64::INFINITY;
    }
    let lower = (2.0 * c).sqrt().max((3.0 * c).cbrt());
    let upper = (2.0 * (c + 1.0)).sqrt();
    // Start at the left end: for a convex increasing function the first Newton step lands at or
    // right of the root, and the iterates then decrease monotonically onto it.
    let mut r = lower;
    for _ in 0..100 {
        let slope = r * (-(-r).exp_m1());
        if slope <= 0.0 || !slope.is_finite() {
            break;
        }
        let next = (r - (age_marginal_shape(r) - c) / slope).clamp(lower, upper);
        let converged = (next - r).abs() <= 1e-15 * r;
        r = next;
        if converged {
            break;
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `G⁻¹` by bisection on the accurate `G`: the slow, obviously correct twin.
    fn quantile_by_bisection(c: f64) -> f64 {
        let (mut lo, mut hi) = (0.0_f64, 800.0_f64);
        for _ in 0..2000 {
            let mid = 0.5 * (lo + hi);
            if mid <= lo || mid >= hi {
                break;
            }
            // Near c = 1 compare survivals: G itself rounds to 1 there.
            let below = if c > 0.5 { erlang2_survival(mid) > 1.0 - c } else { erlang2_cdf(mid) < c };
            if below { lo = mid } else { hi = mid }
        }
        0.5 * (lo + hi)
    }

    #[test]
    fn erlang2_cdf_matches_closed_form_where_it_is_accurate() {
        for x in [1.5_f64, 2.0, 5.0, 20.0] {
            let closed = 1.0 - (1.0 + x) * (-x).exp();
            assert!((erlang2_cdf(x) - closed).abs() < 1e-15, "x = {x}");
        }
        // Continuity at the series limit.
        let below = erlang2_cdf(CDF_SERIES_LIMIT - 1e-12);
        let above = erlang2_cdf(CDF_SERIES_LIMIT + 1e-12);
        assert!((below - above).abs() < 1e-12, "{below} vs {above}");
    }

    /// The polynomial against the series summed term by term to convergence (the previous
    /// implementation) and against the closed form where that is accurate, over its range.
    #[test]
    fn erlang2_cdf_polynomial_matches_the_summed_series() {
        let summed = |x: f64| {
            let (mut power_over_factorial, mut sum) = (x * x / 2.0, 0.0_f64);
            for m in 2..60_u32 {
                let term = f64::from(m - 1) * power_over_factorial;
                sum += if m % 2 == 0 { term } else { -term };
                power_over_factorial *= x / f64::from(m + 1);
            }
            sum
        };
        let mut x = 1e-9;
        while x < CDF_SERIES_LIMIT {
            let (fast, slow) = (erlang2_cdf(x), summed(x));
            assert!((fast / slow - 1.0).abs() < 1e-15, "x = {x}: {fast} vs {slow}");
            x *= 1.01;
        }
        for x in [0.25_f64, 0.3, 0.5, 0.75, 0.999] {
            let (closed, slow) = (erlang2_cdf(x), summed(x));
            assert!((closed / slow - 1.0).abs() < 4e-15, "x = {x}: {closed} vs {slow}");
        }
        // Above 1 the one-exponential form against the two-exponential one it replaced.
        for x in [1.0_f64, 1.7, 3.0, 8.0, 20.0, 40.0, 700.0] {
            let two = -(-x).exp_m1() - x * (-x).exp();
            assert!((erlang2_cdf(x) / two - 1.0).abs() < 1e-15, "x = {x}: {} vs {two}", erlang2_cdf(x));
        }
    }

    #[test]
    fn erlang2_cdf_is_accurate_near_zero() {
        // G(x) = x²/2 − x³/3 + x⁴/8 − …
        let x = 1e-6;
        let expected = x * x / 2.0 - x * x * x / 3.0;
        assert!((erlang2_cdf(x) / expected - 1.0).abs() < 1e-12);
    }

    #[test]
    fn quantile_inverts_the_cdf_over_twenty_decades() {
        let mut c = 1e-20;
        while c < 1.0 - 1e-12 {
            let x = erlang2_quantile(c);
            let twin = quantile_by_bisection(c);
            assert!((x / twin - 1.0).abs() < 2e-13, "c = {c}: {x} vs {twin}");
            c *= 1.7;
        }
        for c in [0.5, 0.9, 0.99, 0.999_999, 1.0 - 1e-10] {
            let x = erlang2_quantile(c);
            let twin = quantile_by_bisection(c);
            assert!((x / twin - 1.0).abs() < 1e-9, "c = {c}: {x} vs {twin}");
        }
    }

    #[test]
    fn quantile_is_continuous_at_the_series_limit() {
        let below = erlang2_quantile(QUANTILE_SERIES_LIMIT * (1.0 - 1e-12));
        let above = erlang2_quantile(QUANTILE_SERIES_LIMIT * (1.0 + 1e-12));
        assert!((below / above - 1.0).abs() < 1e-11);
    }

    #[test]
    fn quantile_edges() {
        assert_eq!(erlang2_quantile(0.0), 0.0);
        assert_eq!(erlang2_quantile(-1.0), 0.0);
        assert_eq!(erlang2_quantile(1.0), f64::INFINITY);
        assert_eq!(erlang2_quantile(f64::NAN), 0.0);
    }

    #[test]
    fn age_shape_inverse_round_trips() {
        let mut c = 1e-18;
        while c < 1e12 {
            let r = age_marginal_shape_inverse(c);
            let back = age_marginal_shape(r);
            assert!((back / c - 1.0).abs() < 1e-12, "c = {c}: r = {r}, H(r) = {back}");
            c *= 3.1;
        }
    }

    #[test]
    fn age_shape_near_zero_is_r_cubed_over_three() {
        let r: f64 = 1e-5;
        let expected = r * r * r / 3.0 - r * r * r * r / 8.0 + r.powi(5) / 30.0;
        assert!((age_marginal_shape(r) / expected - 1.0).abs() < 1e-14);
    }
}
