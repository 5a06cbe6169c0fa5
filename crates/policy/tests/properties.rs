//! Property tests of the solver on random instances: budget and caps met, KKT conditions hold,
//! no NaN or infinity, agreement with the bisection twin and with Azar's closed forms, and no
//! random feasible perturbation does better.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use freshet_policy::objective::{Age, Changes, Delay, Freshness, FreshnessDiscrete, FreshnessPoisson};
use freshet_policy::reference::solve_by_bisection;
use freshet_policy::{Objective, Page, Problem, Solution, azar_discrete, azar_poisson, certify, solve};
use proptest::prelude::*;

/// Pages with weights in 1e-6..1e6 and change rates in 1e-9..1e3 (log-uniform).
fn pages(max: usize) -> impl Strategy<Value = Vec<Page>> {
    prop::collection::vec((-6.0_f64..6.0, -9.0_f64..3.0), 1..max)
        .prop_map(|raw| raw.into_iter().map(|(w, l)| Page::new(10f64.powf(w), 10f64.powf(l))).collect())
}

/// Pages for `freshness-discrete`: change probabilities in (1e-9, 0.999).
fn discrete_pages(max: usize) -> impl Strategy<Value = Vec<Page>> {
    prop::collection::vec((-6.0_f64..6.0, -9.0_f64..-0.0005), 1..max)
        .prop_map(|raw| raw.into_iter().map(|(w, l)| Page::new(10f64.powf(w), 10f64.powf(l))).collect())
}

/// A budget relative to the pages' total change rate, from scarce to plentiful.
fn budget_for(pages: &[Page], scale: f64) -> f64 {
    let total: f64 = pages.iter().map(|page| page.change_rate).sum();
    total * scale
}

/// Hosts and caps: pages spread over `host_count` hosts; each cap is `factor ×` the host's
/// demand in the uncapped optimum (so some bind, some do not), or no cap.
fn hosts_for<O: Objective>(
    objective: O,
    pages: &[Page],
    budget: f64,
    assignment: &[u32],
    factors: &[f64],
) -> (Vec<u32>, Vec<f64>) {
    let host_count = factors.len();
    let host_of_page: Vec<u32> =
        pages.iter().enumerate().map(|(i, _)| assignment[i % assignment.len()] % host_count as u32).collect();
    let uncapped = solve(objective, &Problem::budgeted(pages, budget)).unwrap();
    let mut demand = vec![0.0; host_count];
    for (rate, &host) in uncapped.rates.iter().zip(&host_of_page) {
        demand[host as usize] += rate;
    }
    let capacity = demand
        .iter()
        .zip(factors)
        .map(|(&d, &factor)| if factor > 1.9 || d <= 0.0 { f64::INFINITY } else { d * factor })
        .collect();
    (host_of_page, capacity)
}

/// Everything a solution must satisfy, whatever the instance.
fn check_solution<O: Objective>(
    objective: O,
    problem: &Problem<'_>,
    solution: &Solution,
) -> Result<(), TestCaseError> {
    for &rate in &solution.rates {
        prop_assert!(rate.is_finite() && rate >= 0.0, "rate {rate}");
    }
    prop_assert!(solution.lambda0.is_finite() && solution.lambda0 >= 0.0);
    let certificate = certify(objective, problem, solution);
    prop_assert!(certificate.value.is_finite(), "{certificate:?}");
    prop_assert!(certificate.max_kkt_violation < 1e-9, "{} {certificate:?}", objective.name());
    prop_assert!(certificate.relative_duality_gap < 1e-9, "{} {certificate:?}", objective.name());
    // The budget is exact unless the pages cannot use it (all caps or max rates bind).
    prop_assert!(certificate.budget_used <= problem.budget * (1.0 + 1e-9));
    if solution.lambda0 > 0.0 {
        prop_assert!((certificate.budget_used / problem.budget - 1.0).abs() < 1e-9, "{certificate:?}");
    }
    Ok(())
}

fn value_of<O: Objective>(objective: O, pages: &[Page], rates: &[f64]) -> f64 {
    pages.iter().zip(rates).map(|(&page, &rate)| objective.value(page, rate)).sum()
}

/// Moves rate between random pairs of pages, keeping every constraint, and checks that none of
/// 1,000 such feasible points is better than the solution.
fn check_perturbations<O: Objective>(
    objective: O,
    problem: &Problem<'_>,
    solution: &Solution,
    seed: u64,
) -> Result<(), TestCaseError> {
    let pages = problem.pages;
    let optimum = value_of(objective, pages, &solution.rates);
    let tolerance = 1e-9 * optimum.abs().max(1e-300);
    let mut state = seed;
    let mut next = move || {
        // splitmix64
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let host = |index: usize| problem.hosts.map(|hosts| hosts.host_of_page[index]);
    let mut tried = 0;
    let mut attempts = 0;
    while tried < 1000 && attempts < 20_000 {
        attempts += 1;
        let from = (next() % pages.len() as u64) as usize;
        let to = (next() % pages.len() as u64) as usize;
        if from == to || solution.rates[from] <= 0.0 {
            continue;
        }
        // Moving between hosts would break a binding cap: stay on one host, or move between
        // hosts with slack (here: hosts without a finite cap).
        if let Some(hosts) = problem.hosts {
            let (a, b) = (host(from).unwrap(), host(to).unwrap());
            if a != b && hosts.capacity[b as usize].is_finite() {
                continue;
            }
        }
        let fraction = (next() % 1000) as f64 / 1000.0 * 0.5 + 1e-3;
        let amount = solution.rates[from] * fraction;
        let mut rates = solution.rates.clone();
        rates[from] -= amount;
        rates[to] += amount;
        if rates[to] > objective.max_rate(pages[to]) {
            continue;
        }
        tried += 1;
        let value = value_of(objective, pages, &rates);
        prop_assert!(value <= optimum + tolerance, "perturbation improved {optimum} to {value}");
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn budgeted_matches_the_bisection_twin(
        pages in pages(60),
        scale in -3.0_f64..2.0,
        seed in any::<u64>(),
    ) {
        let budget = budget_for(&pages, 10f64.powf(scale));
        let problem = Problem::budgeted(&pages, budget);
        fn compare<O: Objective>(objective: O, problem: &Problem<'_>, seed: u64) -> Result<(), TestCaseError> {
            let solution = solve(objective, problem).unwrap();
            check_solution(objective, problem, &solution)?;
            check_perturbations(objective, problem, &solution, seed)?;
            let twin = solve_by_bisection(objective, problem).unwrap();
            let ours = value_of(objective, problem.pages, &solution.rates);
            let theirs = value_of(objective, problem.pages, &twin.rates);
            prop_assert!(
                (ours - theirs).abs() <= 1e-7 * ours.abs().max(theirs.abs()),
                "{}: value {ours} vs twin {theirs}", objective.name()
            );
            prop_assert!((solution.lambda0 / twin.lambda0 - 1.0).abs() < 1e-6,
                "{}: λ0 {} vs twin {}", objective.name(), solution.lambda0, twin.lambda0);
            Ok(())
        }
        compare(Freshness, &problem, seed)?;
        compare(Changes, &problem, seed)?;
        compare(FreshnessPoisson, &problem, seed)?;
        compare(Age, &problem, seed)?;
        compare(Delay, &problem, seed)?;
    }

    #[test]
    fn host_capped_matches_the_bisection_twin(
        pages in pages(60),
        scale in -3.0_f64..2.0,
        assignment in prop::collection::vec(any::<u32>(), 1..60),
        factors in prop::collection::vec(0.1_f64..2.0, 1..12),
        seed in any::<u64>(),
    ) {
        let budget = budget_for(&pages, 10f64.powf(scale));
        fn compare<O: Objective>(
            objective: O, pages: &[Page], budget: f64, assignment: &[u32], factors: &[f64], seed: u64,
        ) -> Result<(), TestCaseError> {
            let (host_of_page, capacity) = hosts_for(objective, pages, budget, assignment, factors);
            let problem = Problem::host_capped(pages, budget, &host_of_page, &capacity);
            let solution = solve(objective, &problem).unwrap();
            check_solution(objective, &problem, &solution)?;
            check_perturbations(objective, &problem, &solution, seed)?;
            let twin = solve_by_bisection(objective, &problem).unwrap();
            let ours = value_of(objective, pages, &solution.rates);
            let theirs = value_of(objective, pages, &twin.rates);
            prop_assert!(
                (ours - theirs).abs() <= 1e-7 * ours.abs().max(theirs.abs()),
                "{}: value {ours} vs twin {theirs}", objective.name()
            );
            Ok(())
        }
        compare(Freshness, &pages, budget, &assignment, &factors, seed)?;
        compare(Changes, &pages, budget, &assignment, &factors, seed)?;
        compare(FreshnessPoisson, &pages, budget, &assignment, &factors, seed)?;
        compare(Age, &pages, budget, &assignment, &factors, seed)?;
        compare(Delay, &pages, budget, &assignment, &factors, seed)?;
    }

    #[test]
    fn discrete_objective_with_and_without_hosts(
        pages in discrete_pages(60),
        budget in 0.001_f64..100.0,
        assignment in prop::collection::vec(any::<u32>(), 1..60),
        factors in prop::collection::vec(0.1_f64..2.0, 1..12),
        seed in any::<u64>(),
    ) {
        let problem = Problem::budgeted(&pages, budget);
        let solution = solve(FreshnessDiscrete, &problem).unwrap();
        check_solution(FreshnessDiscrete, &problem, &solution)?;
        check_perturbations(FreshnessDiscrete, &problem, &solution, seed)?;
        for &rate in &solution.rates {
            prop_assert!(rate <= 1.0);
        }
        let (host_of_page, capacity) = hosts_for(FreshnessDiscrete, &pages, budget, &assignment, &factors);
        let capped = Problem::host_capped(&pages, budget, &host_of_page, &capacity);
        let solution = solve(FreshnessDiscrete, &capped).unwrap();
        check_solution(FreshnessDiscrete, &capped, &solution)?;
        check_perturbations(FreshnessDiscrete, &capped, &solution, seed)?;
    }

    #[test]
    fn azar_closed_forms_agree_with_the_solver(
        pages in pages(200),
        discrete in discrete_pages(200),
        scale in -3.0_f64..2.0,
        slot_share in 0.001_f64..1.0,
    ) {
        let budget = budget_for(&pages, 10f64.powf(scale));
        let closed = azar_poisson(&pages, budget).unwrap();
        let solved = solve(FreshnessPoisson, &Problem::budgeted(&pages, budget)).unwrap();
        let largest = solved.rates.iter().cloned().fold(0.0, f64::max);
        for (a, b) in closed.iter().zip(&solved.rates) {
            prop_assert!((a - b).abs() <= 1e-9 * largest, "Algorithm 2: {a} vs {b}");
        }
        let closed = azar_discrete(&discrete, slot_share).unwrap();
        let solved = solve(FreshnessDiscrete, &Problem::budgeted(&discrete, slot_share)).unwrap();
        let largest = solved.rates.iter().cloned().fold(0.0, f64::max);
        for (a, b) in closed.iter().zip(&solved.rates) {
            prop_assert!((a - b).abs() <= 1e-9 * largest, "Algorithm 1: {a} vs {b}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]

    /// Large instances (n up to 1e5, hosts 1..n): certificate only, the twin is too slow.
    #[test]
    fn large_instances_are_certified(
        seed in any::<u64>(),
        page_count in 1_000_usize..100_000,
        host_fraction in 0.0_f64..1.0,
        scale in -3.0_f64..1.0,
    ) {
        let mut state = seed;
        let mut uniform = move || {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
        };
        let pages: Vec<Page> = (0..page_count)
            .map(|_| Page::new(10f64.powf(uniform() * 12.0 - 6.0), 10f64.powf(uniform() * 12.0 - 9.0)))
            .collect();
        let budget = budget_for(&pages, 10f64.powf(scale));
        let host_count = ((page_count as f64).powf(host_fraction) as usize).clamp(1, page_count);
        let assignment: Vec<u32> = (0..page_count).map(|_| (uniform() * host_count as f64) as u32).collect();
        let factors: Vec<f64> = (0..host_count).map(|_| 0.1 + uniform() * 1.9).collect();
        let problem = Problem::budgeted(&pages, budget);
        let solution = solve(Freshness, &problem).unwrap();
        check_solution(Freshness, &problem, &solution)?;
        let (host_of_page, capacity) = hosts_for(Freshness, &pages, budget, &assignment, &factors);
        let capped = Problem::host_capped(&pages, budget, &host_of_page, &capacity);
        let solution = solve(Freshness, &capped).unwrap();
        check_solution(Freshness, &capped, &solution)?;
        check_perturbations(Freshness, &capped, &solution, seed)?;
    }
}
