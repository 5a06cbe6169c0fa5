//! The one-dimensional search for a threshold `μ` at which total demand meets a budget.
//!
//! Total demand `Φ(μ) = Σ f_i(μ)` is continuous and decreasing in the threshold `μ` (each page's
//! rate is the inverse of its decreasing marginal). The search runs Newton's method on
//! `ln Φ` against `ln μ`, which is exact in one step where `Φ ∝ μ^(−1/2)` (`delay`, and
//! `freshness` at small thresholds), safeguarded by a bracket: a step that leaves the bracket, or a
//! bracket that does not halve, falls back to bisection in `ln μ`.

/// A demand curve: `Φ(μ)` and `dΦ/dμ` at a threshold `μ > 0`.
pub(crate) trait Demand {
    fn demand(&mut self, threshold: f64) -> (f64, f64);
}

impl<F: FnMut(f64) -> (f64, f64)> Demand for F {
    fn demand(&mut self, threshold: f64) -> (f64, f64) {
        self(threshold)
    }
}

/// Where the search stopped: either a threshold that meets the budget to `tolerance`, or two
/// adjacent thresholds between which demand jumps over the budget.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bracket {
    /// Threshold with demand ≥ budget (the larger-rate side).
    pub(crate) low: f64,
    /// Demand at `low`.
    pub(crate) demand_low: f64,
    /// Threshold with demand ≤ budget.
    pub(crate) high: f64,
    /// Demand at `high`.
    pub(crate) demand_high: f64,
    /// Number of demand evaluations.
    pub(crate) evaluations: u32,
}

/// Relative tolerance on the budget at which the search stops.
pub(crate) const BUDGET_TOLERANCE: f64 = 1e-13;

/// Finds `μ > 0` with `Φ(μ) = budget`, assuming `Φ(0⁺) > budget` (the caller checks).
pub(crate) fn find_threshold(demand: &mut impl Demand, budget: f64, guess: f64) -> Bracket {
    let ln_budget = budget.ln();
    let mut t = if guess.is_finite() && guess > 0.0 { guess.ln() } else { 0.0 };
    // (ln μ, Φ) at the bracket ends found so far.
    let mut low: Option<(f64, f64)> = None;
    let mut high: Option<(f64, f64)> = None;
    let mut expansion = std::f64::consts::LN_10;
    // Sizes of the last two steps (rtsafe's rule: keep Newton while its steps shrink fast).
    let mut step_before = f64::INFINITY;
    let mut step_before_last = f64::INFINITY;
    let mut evaluations = 0;
    for _ in 0..400 {
        let threshold = t.exp();
        let (total, slope) = demand.demand(threshold);
        evaluations += 1;
        if (total - budget).abs() <= BUDGET_TOLERANCE * budget {
            return Bracket {
                low: threshold,
                demand_low: total,
                high: threshold,
                demand_high: total,
                evaluations,
            };
        }
        if total > budget {
            low = Some((t, total));
        } else {
            high = Some((t, total));
        }
        // Newton on g(t) = ln Φ(e^t) − ln budget, with g'(t) = μ·Φ'(μ)/Φ(μ).
        let newton = if total > 0.0 && total.is_finite() && slope < 0.0 {
            t - (total.ln() - ln_budget) / (threshold * slope / total)
        } else {
            f64::NAN
        };
        t = match (low, high) {
            (Some((t_low, demand_low)), Some((t_high, demand_high))) => {
                let width = t_high - t_low;
                if width <= 4.0 * f64::EPSILON * t_low.abs().max(t_high.abs()).max(1.0) {
                    return Bracket {
                        low: t_low.exp(),
                        demand_low,
                        high: t_high.exp(),
                        demand_high,
                        evaluations,
                    };
                }
                let newton_step = (newton - t).abs();
                let next = if newton > t_low && newton < t_high && newton_step <= 0.5 * step_before_last {
                    newton
                } else {
                    0.5 * (t_low + t_high)
                };
                step_before_last = step_before;
                step_before = (next - t).abs();
                next
            }
            (Some(_), None) => {
                // Demand too high: raise the threshold.
                let step =
                    if newton.is_finite() && newton > t { (newton - t).min(expansion) } else { expansion };
                expansion *= 2.0;
                t + step
            }
            (None, _) => {
                // Demand too low (possibly zero): lower the threshold.
                let step =
                    if newton.is_finite() && newton < t { (t - newton).min(expansion) } else { expansion };
                expansion *= 2.0;
                t - step
            }
        };
    }
    // The loop is bounded for safety; report the best bracket known.
    let (t_low, demand_low) = low.unwrap_or((t, f64::INFINITY));
    let (t_high, demand_high) = high.unwrap_or((t, 0.0));
    Bracket { low: t_low.exp(), demand_low, high: t_high.exp(), demand_high, evaluations }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn power_law_demand_is_solved_in_one_newton_step() {
        // Φ(μ) = 10·μ^(−1/2): the root of Φ = 5 is μ = 4.
        let mut demand = |mu: f64| (10.0 * mu.powf(-0.5), -5.0 * mu.powf(-1.5));
        let bracket = find_threshold(&mut demand, 5.0, 1.0);
        assert!((bracket.low / 4.0 - 1.0).abs() < 1e-12);
        assert!(bracket.evaluations <= 3, "{bracket:?}");
    }

    #[test]
    fn a_jump_over_the_budget_is_bracketed_tightly() {
        // Demand jumps from 10 to 0 at μ = 3.
        let mut demand = |mu: f64| (if mu < 3.0 { 10.0 } else { 0.0 }, 0.0);
        let bracket = find_threshold(&mut demand, 5.0, 1.0);
        assert!(bracket.low < 3.0 && bracket.high >= 3.0);
        assert!((bracket.high / bracket.low - 1.0) < 1e-14, "{bracket:?}");
        assert_eq!((bracket.demand_low, bracket.demand_high), (10.0, 0.0));
    }
}
