//! Regression tests, each named after the bug it pins.
#![allow(clippy::unwrap_used)]

use freshet_policy::objective::Freshness;
use freshet_policy::{Page, Problem, certify, solve};

/// Found by `host_capped_matches_the_bisection_twin`: 22 identical pages whose optimum lies in
/// the jump at their cutoff (rates fall from ≈ λ/37 to 0 between adjacent thresholds). Both hosts
/// exceed their caps at the larger-rate end of the bracket but not at the other; the solver used
/// to commit both caps in full and overspend the budget by 15%.
#[test]
fn host_caps_that_bind_only_inside_a_demand_jump_are_not_committed_in_full() {
    let pages = vec![Page::new(1.0, 1.0); 22];
    let per_page = 0.0026;
    let budget = 22.0 * per_page;
    let host_of_page: Vec<u32> = (0..22).map(|index| (index % 2) as u32).collect();
    let capacity = [0.8 * 11.0 * per_page, 1.5 * 11.0 * per_page];
    assert!(capacity.iter().sum::<f64>() > budget);
    let problem = Problem::host_capped(&pages, budget, &host_of_page, &capacity);
    let solution = solve(Freshness, &problem).unwrap();
    let certificate = certify(Freshness, &problem, &solution);
    assert!((certificate.budget_used / budget - 1.0).abs() < 1e-12, "{certificate:?}");
    assert!(certificate.max_kkt_violation < 1e-9, "{certificate:?}");
    let host_total = |host: u32| -> f64 {
        solution.rates.iter().zip(&host_of_page).filter(|(_, h)| **h == host).map(|(rate, _)| rate).sum()
    };
    assert!(host_total(0) <= capacity[0] * (1.0 + 1e-12));
    assert!(host_total(1) <= capacity[1] * (1.0 + 1e-12));
}
