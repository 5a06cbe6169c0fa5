//! An independent check of a solution: its objective value, KKT violation and duality gap.

use crate::objective::Objective;
use crate::problem::Problem;
use crate::solve::Solution;
use crate::sum::CompensatedSum;

/// What [`certify`] measured. A solution with a small `max_kkt_violation` and a small
/// `relative_duality_gap` is optimal to that precision, whoever produced it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Certificate {
    /// `Σ C_j(f_j)` (for `age` and `delay`, minus the weighted cost).
    pub value: f64,
    /// `Σ f_j`.
    pub budget_used: f64,
    /// The largest violation of the KKT conditions, relative: stationarity
    /// `|C'(f) − μ|/μ` for `0 < f < max`, `(C'(0) − μ)⁺/μ` for `f = 0`, primal feasibility of the
    /// budget and caps relative to their size, and complementary slackness of every positive
    /// multiplier.
    pub max_kkt_violation: f64,
    /// `D(λ) − value ≥ 0`, where `D` is the Lagrange dual at the solution's multipliers: an upper
    /// bound on how far `value` is below the optimum (when the solution is feasible).
    pub duality_gap: f64,
    /// `duality_gap / |value|`.
    pub relative_duality_gap: f64,
}

/// Checks `solution` against `problem`: every page's marginal against its threshold
/// `λ_i + λ_0`, the budget and the caps, and the duality gap computed with each page's own
/// maximiser of the Lagrangian `C(f) − μf` (recomputed, not taken from the solution).
#[must_use]
pub fn certify<O: Objective>(objective: O, problem: &Problem<'_>, solution: &Solution) -> Certificate {
    let mut value = CompensatedSum::default();
    let mut used = CompensatedSum::default();
    let mut gap = CompensatedSum::default();
    let mut violation: f64 = 0.0;
    let host_count = problem.host_count();
    let mut host_used = vec![0.0; host_count];
    for (index, (&page, &rate)) in problem.pages.iter().zip(&solution.rates).enumerate() {
        let host = problem.hosts.map(|hosts| hosts.host_of_page[index]);
        if let Some(host) = host {
            host_used[host as usize] += rate;
        }
        let threshold = solution.threshold(host);
        let page_value = objective.value(page, rate);
        value.add(page_value);
        used.add(rate);
        if !(rate.is_finite() && rate >= 0.0) {
            violation = f64::INFINITY;
            continue;
        }
        let marginal = objective.marginal(page, rate);
        let scale = if threshold > 0.0 { threshold } else { 1.0 };
        let page_violation = if rate <= 0.0 {
            (marginal - threshold).max(0.0) / scale
        } else if rate >= objective.max_rate(page) {
            (threshold - marginal).max(0.0) / scale
        } else {
            (marginal - threshold).abs() / scale
        };
        violation = violation.max(page_violation);
        // The page's term of D − P: max_f [C(f) − μf] − [C(rate) − μ·rate] ≥ 0.
        let best = objective.rate_at_marginal(page, threshold).rate;
        if best.is_finite() {
            let best_lagrangian = objective.value(page, best) - threshold * best;
            let lagrangian = page_value - threshold * rate;
            gap.add((best_lagrangian - lagrangian).max(0.0));
        } else {
            gap.add(f64::INFINITY);
        }
    }
    let budget_used = used.value();
    // The budget: feasibility, and slackness λ_0·(k_0 − Σf) in the dual.
    violation = violation.max((budget_used - problem.budget).max(0.0) / problem.budget);
    if solution.lambda0 > 0.0 {
        violation = violation.max((problem.budget - budget_used).abs() / problem.budget);
    }
    gap.add(solution.lambda0 * (problem.budget - budget_used));
    if let Some(hosts) = problem.hosts {
        for (host, (&capacity, &host_total)) in hosts.capacity.iter().zip(&host_used).enumerate() {
            let lambda = solution.host_lambda.get(host).copied().unwrap_or(0.0);
            if capacity.is_finite() {
                violation = violation.max((host_total - capacity).max(0.0) / capacity);
                if lambda > 0.0 {
                    violation = violation.max((capacity - host_total).abs() / capacity);
                }
                gap.add(lambda * (capacity - host_total));
            } else if lambda > 0.0 {
                violation = f64::INFINITY;
            }
            if lambda < 0.0 {
                violation = f64::INFINITY;
            }
        }
    }
    let value = value.value();
    let duality_gap = gap.value();
    Certificate {
        value,
        budget_used,
        max_kkt_violation: violation,
        duality_gap,
        relative_duality_gap: duality_gap / value.abs().max(f64::MIN_POSITIVE),
    }
}
