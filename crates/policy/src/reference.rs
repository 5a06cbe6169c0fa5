//! The plain baseline: bisection on `λ_0` with a per-page numeric root finder.
//!
//! This is the obvious solver a reader would write first, kept for two jobs: the slow,
//! obviously-correct twin that property tests compare [`crate::solve()`] against, and the
//! baseline that the benchmarks quote the fast solver's speed against. It uses only
//! [`Objective::marginal`] (never the closed-form inverse), bisects each page's `C'(f) = μ` in
//! `ln f`, and bisects `ln λ_0` (and each binding host's `ln μ_i`) on the total demand.

use crate::objective::Objective;
use crate::problem::Problem;
use crate::{Page, Result};

/// Bisection steps for each scalar root (in log space: 2^-100 of a 1400-nat range, ≈ 1e-27).
const STEPS: u32 = 100;

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
    // The search ends on two adjacent thresholds; where demand jumps between them (a page at its
    // cutoff), the rates are blended to spend exactly the budget, as the optimum does.
    let (lambda0_low, lambda0_high) = if total_demand(0.0) <= problem.budget {
        (0.0, 0.0)
    } else {
        bisect_threshold(|threshold| total_demand(threshold) > problem.budget)
    };
    // Hosts over their cap even at the smaller-rate end are solved alone; the others share the
    // rest of the budget, each up to min(cap, demand at the larger-rate end).
    let at_high = host_demand(lambda0_high);
    let at_low = host_demand(lambda0_low);
    let mut rates = vec![0.0; pages.len()];
    let mut capped = vec![false; groups];
    let mut capped_total = 0.0;
    for host in 0..groups {
        let cap = capacity(host);
        if at_high[host] <= cap {
            continue;
        }
        capped[host] = true;
        capped_total += cap;
        let members: Vec<usize> = (0..pages.len()).filter(|&index| host_of(index) == host).collect();
        let demand = |threshold: f64| -> f64 {
            members.iter().map(|&index| rate_by_bisection(objective, pages[index], threshold)).sum()
        };
        let (low, high) = bisect_threshold(|threshold| demand(threshold) > cap);
        let blend = blend_factor(cap, demand(low), demand(high));
        for &index in &members {
            rates[index] = blended_rate(objective, pages[index], low, high, blend);
        }
    }
    let fixed: f64 = (0..groups).filter(|&host| !capped[host]).map(|host| at_high[host]).sum();
    let reachable = |host: usize| at_low[host].min(capacity(host)) - at_high[host];
    let spread: f64 = (0..groups).filter(|&host| !capped[host]).map(reachable).sum();
    let blend = blend_factor(problem.budget - capped_total, fixed + spread, fixed);
    for index in (0..pages.len()).filter(|&index| !capped[host_of(index)]) {
        let host = host_of(index);
        let full = at_low[host] - at_high[host];
        let host_blend = if full > 0.0 { blend * reachable(host) / full } else { 0.0 };
        rates[index] = blended_rate(objective, pages[index], lambda0_low, lambda0_high, host_blend);
    }
    Ok(ReferenceSolution { rates, lambda0: lambda0_high })
}

/// The share `θ ∈ [0, 1]` of the way from the demand at `high` to that at `low` that meets `target`.
fn blend_factor(target: f64, demand_low: f64, demand_high: f64) -> f64 {
    if demand_low > demand_high {
        ((target - demand_high) / (demand_low - demand_high)).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

fn blended_rate<O: Objective>(objective: O, page: Page, low: f64, high: f64, blend: f64) -> f64 {
    let rate_high = rate_by_bisection(objective, page, high);
    if blend == 0.0 {
        return rate_high;
    }
    rate_high + blend * (rate_by_bisection(objective, page, low) - rate_high)
}

/// Bisects `ln μ` over `[−700, 700]` for the boundary where `too_much(μ)` stops holding; returns
/// the two ends `(low, high)` of the final interval (`too_much(low)`, not `too_much(high)`).
fn bisect_threshold(too_much: impl Fn(f64) -> bool) -> (f64, f64) {
    let (mut low, mut high) = (-700.0_f64, 700.0_f64);
    for _ in 0..STEPS {
        let middle = 0.5 * (low + high);
        if too_much(middle.exp()) { low = middle } else { high = middle }
    }
    (low.exp(), high.exp())
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
