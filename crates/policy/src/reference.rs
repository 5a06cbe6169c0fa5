//! The plain baseline: bisection on `λ_0` with a per-page numeric root finder.
//!
//! This is the obvious solver a reader would write first, kept for two jobs: the slow,
//! obviously-correct twin that property tests compare [`crate::solve`] against, and the
//! baseline that the benchmarks quote the fast solver's speed against. It uses only
//! [`Objective::marginal`] (never the closed-form inverse), bisects each page's `C'(f) = μ` in
//! `ln f`, and bisects `ln λ_0` (and each binding host's `ln μ_i`) on the total demand.

use crate::objective::Objective;
use crate::problem::Problem;
use crate::{Page, Result};

/// Bisection steps for each scalar root (in log space: 2^-120 of a 2000-nat range).
const STEPS: u32 = 120;

/// The reference solution: rates and the global threshold.
#[derive(Clone, Debug)]
pub struct ReferenceSolution {
    /// The rates, in page order.
    pub rates: Vec<f64>,
    /// The global threshold `λ_0` (0 when the budget does not bind).
    pub lambda0: f64,
}

/// Solves `problem` by nested bisection. Slow (≈ `STEPS²` marginal evaluations per page).
///
/// # Errors
/// Invalid input, as [`Problem::validate`].
pub fn solve_by_bisection<O: Objective>(objective: O, problem: &Problem<'_>) -> Result<ReferenceSolution> {
    problem.validate(objective)?;
    let pages = problem.pages;
    let host_count = problem.host_count();
    let host_of = |index: usize| problem.hosts.map_or(0, |hosts| hosts.host_of_page[index] as usize);
    let capacity = |host: usize| problem.hosts.map_or(f64::INFINITY, |hosts| hosts.capacity[host]);
    let groups = host_count.max(1);
    // Demand of each host at threshold μ.
    let host_demand = |threshold: f64| {
        let mut totals = vec![0.0; groups];
        for (index, page) in pages.iter().enumerate() {
            totals[host_of(index)] += rate_by_bisection(objective, *page, threshold);
        }
        totals
    };
    let total_demand = |threshold: f64| -> f64 {
        host_demand(threshold).iter().enumerate().map(|(host, &demand)| demand.min(capacity(host))).sum()
    };
    let lambda0 = if total_demand(0.0) <= problem.budget {
        0.0
    } else {
        bisect_threshold(|threshold| total_demand(threshold) > problem.budget)
    };
    // Each host whose cap binds at λ_0 gets its own threshold.
    let at_lambda0 = host_demand(lambda0);
    let mut threshold_of_host = vec![lambda0; groups];
    for host in 0..groups {
        let cap = capacity(host);
        if at_lambda0[host] > cap {
            threshold_of_host[host] = bisect_threshold(|threshold| {
                let demand: f64 = pages
                    .iter()
                    .enumerate()
                    .filter(|(index, _)| host_of(*index) == host)
                    .map(|(_, page)| rate_by_bisection(objective, *page, threshold))
                    .sum();
                demand > cap
            });
        }
    }
    let rates = pages
        .iter()
        .enumerate()
        .map(|(index, page)| rate_by_bisection(objective, *page, threshold_of_host[host_of(index)]))
        .collect();
    Ok(ReferenceSolution { rates, lambda0 })
}

/// The largest `μ` (bisected in `ln μ` over `[e^-1000, e^1000]`) at which `too_much(μ)` holds.
fn bisect_threshold(too_much: impl Fn(f64) -> bool) -> f64 {
    let (mut low, mut high) = (-700.0_f64, 700.0_f64);
    for _ in 0..STEPS {
        let middle = 0.5 * (low + high);
        if too_much(middle.exp()) { low = middle } else { high = middle }
    }
    (0.5 * (low + high)).exp()
}

/// The rate with `C'(f) = threshold`, by bisection on `ln f` using only the forward marginal.
fn rate_by_bisection<O: Objective>(objective: O, page: Page, threshold: f64) -> f64 {
    let max_rate = objective.max_rate(page);
    if threshold <= 0.0 {
        return max_rate;
    }
    if objective.marginal_at_zero(page) <= threshold {
        return 0.0;
    }
    if max_rate.is_finite() && objective.marginal(page, max_rate) >= threshold {
        return max_rate;
    }
    let (mut low, mut high) = (-700.0_f64, 700.0_f64.min(max_rate.ln()));
    for _ in 0..STEPS {
        let middle = 0.5 * (low + high);
        if objective.marginal(page, middle.exp()) > threshold { low = middle } else { high = middle }
    }
    (0.5 * (low + high)).exp()
}
