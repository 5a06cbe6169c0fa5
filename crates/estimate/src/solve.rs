//! Safeguarded Newton solver for the interval-censored likelihood equations.
//!
//! Every interval-based estimator in this crate (MLE, bias-corrected MLE, posterior mode) sets
//! a derivative of a log-likelihood to zero, which always has the form
//!
//! `F(λ) = c/λ + Σ_j n_j m_j / (e^{λ m_j} − 1) − r = 0`        (S1)
//!
//! with `c ≥ 0`, `r > 0`, and `(n_j, m_j)` the histogram entries (count, mean changed interval).
//! `F` is strictly decreasing, so the root is unique. Since `1 − y/2 ≤ y/(e^y − 1) ≤ 1`,
//! with `N = c + Σ n_j` and `M = Σ n_j m_j`:
//!
//! `N/(r + M/2) ≤ λ ≤ N/r`                                    (S2)
//!
//! which is the starting bracket. Newton steps are taken in `u = ln λ` and replaced by a
//! bisection whenever they leave the bracket; iteration stops at a relative width of 1e-14.

use crate::histogram::ChangedIntervals;

/// Root of (S1) and the negated slope `−F'(λ)` there (the observed Fisher information).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Root {
    pub(crate) rate: f64,
    pub(crate) information: f64,
}

impl Root {
    /// Standard error `1/√information` (∞ when the information vanishes).
    pub(crate) fn std_error(&self) -> f64 {
        1.0 / self.information.sqrt()
    }
}

/// `(F(λ), −F'(λ))` for equation (S1).
fn evaluate(c: f64, bins: &ChangedIntervals, r: f64, rate: f64) -> (f64, f64) {
    let mut value = c / rate - r;
    let mut slope = c / (rate * rate);
    for (n, m) in bins.entries() {
        let q = (rate * m).exp_m1();
        value += n * m / q;
        let inv = 1.0 / q;
        // e^{x}/(e^{x} − 1)^2 = 1/q + 1/q²; written so that q = ∞ gives 0, not NaN.
        slope += n * m * m * (inv + inv * inv);
    }
    (value, slope)
}

/// Solves (S1). Requires `r > 0` and `c + Σ n_j > 0` (callers check).
pub(crate) fn solve(c: f64, bins: &ChangedIntervals, r: f64) -> Root {
    let weight = c + f64::from(bins.count());
    let clamp = |x: f64| {
        if x.is_nan() { 1.0 } else { x.clamp(f64::MIN_POSITIVE, f64::MAX) }
    };
    let mut lo = clamp(weight / (r + 0.5 * bins.total())).ln();
    let mut hi = clamp(weight / r).ln();
    let mut u = 0.5 * (lo + hi);
    for _ in 0..400 {
        let rate = u.exp();
        let (value, slope) = evaluate(c, bins, r, rate);
        if value == 0.0 {
            break;
        }
        if value > 0.0 {
            lo = u;
        } else {
            hi = u;
        }
        // dF/du = λ F'(λ) = −λ·slope, so the Newton step is u + F/(λ·slope).
        let newton = u + value / (rate * slope);
        let next = if newton > lo && newton < hi { newton } else { 0.5 * (lo + hi) };
        let done = (next - u).abs() <= 1e-14 * u.abs().max(1.0) || hi - lo <= 1e-14;
        u = next;
        if done {
            break;
        }
    }
    let rate = clamp(u.exp());
    let (_, information) = evaluate(c, bins, r, rate);
    Root { rate, information }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The binning bound relies on `h(x) = x/(e^x − 1)` being convex; check it on a grid by
    /// second differences.
    #[test]
    fn bernoulli_kernel_is_convex() {
        let h = |x: f64| x / x.exp_m1();
        let step = 1e-2;
        for i in 1..5_000 {
            let x = f64::from(i) * step;
            let second = h(x - step * 0.5) - 2.0 * h(x) + h(x + step * 0.5);
            assert!(second > 0.0, "not convex at {x}");
        }
    }

    #[test]
    fn solves_the_equal_interval_closed_form_to_machine_precision() {
        let mut bins = ChangedIntervals::default();
        for _ in 0..3 {
            bins.insert(2.0);
        }
        // 3 changed and 5 unchanged intervals of 2: λ = ln(1 + 3/5) / 2.
        let root = solve(0.0, &bins, 10.0);
        let exact = 1.6f64.ln() / 2.0;
        assert!((root.rate - exact).abs() <= 1e-14 * exact, "{}", root.rate);
    }
}
