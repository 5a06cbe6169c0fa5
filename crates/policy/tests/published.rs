//! The solver against published numbers: Cho & Garcia-Molina's five elements and seed 000's
//! two-page example.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use freshet_policy::objective::{Age, Changes, Freshness};
use freshet_policy::special::erlang2_cdf;
use freshet_policy::{Objective, Page, Problem, certify, solve};
use serde_json::Value;

/// `tests/data/cho-5-elements.json`, copied from `shared/vectors/` (its `source` field cites
/// Cho & Garcia-Molina, SIGMOD 2000).
fn cho_vector() -> Value {
    serde_json::from_str(include_str!("data/cho-5-elements.json")).unwrap()
}

fn numbers(value: &Value) -> Vec<f64> {
    value.as_array().unwrap().iter().map(|number| number.as_f64().unwrap()).collect()
}

fn check_cho<O: Objective>(objective: O, key: &str) {
    let vector = cho_vector();
    let rates = numbers(&vector["change_rates"]);
    let weights = numbers(&vector["weights"]);
    let budget = vector["budget_fetches_per_unit"].as_f64().unwrap();
    let expected = &vector["optimal"][key];
    let tolerance = expected["tolerance"].as_f64().unwrap();
    let pages: Vec<Page> = weights.iter().zip(&rates).map(|(&w, &l)| Page::new(w, l)).collect();
    let problem = Problem::budgeted(&pages, budget);
    let solution = solve(objective, &problem).unwrap();
    for (got, want) in solution.rates.iter().zip(numbers(&expected["rates"])) {
        assert!((got - want).abs() <= tolerance, "{key}: {:?} vs {want}", solution.rates);
    }
    let certificate = certify(objective, &problem, &solution);
    assert!(certificate.max_kkt_violation < 1e-12, "{certificate:?}");
    assert!((certificate.budget_used / budget - 1.0).abs() < 1e-12);
    // The mean freshness (or age) the vector reports for the optimum.
    let mean = certificate.value.abs() / pages.len() as f64;
    let mean_key = if key == "age" { "mean_age_days" } else { "mean_freshness" };
    assert!((mean - expected[mean_key].as_f64().unwrap()).abs() < 5e-4, "{key}: mean {mean}");
}

#[test]
fn cho_five_elements_freshness() {
    check_cho(Freshness, "freshness");
}

#[test]
fn cho_five_elements_age() {
    check_cho(Age, "age");
}

/// Seed 000's two pages under `changes`: w = (1, 5), λ = (5, 1).
fn two_pages() -> [Page; 2] {
    [Page::new(1.0, 5.0), Page::new(5.0, 1.0)]
}

/// Bisection on a decreasing-to-increasing sign change of `f` over `[low, high]`.
fn bisect(mut low: f64, mut high: f64, positive_at_low: bool, f: impl Fn(f64) -> f64) -> f64 {
    for _ in 0..200 {
        let middle = 0.5 * (low + high);
        if (f(middle) > 0.0) == positive_at_low { low = middle } else { high = middle }
    }
    0.5 * (low + high)
}

#[test]
fn seed_000_two_page_example_has_both_crossings() {
    let pages = two_pages();
    // Crossing 1: page 1 (C'(0) = w₁ = 1) starts being fetched when page 2's marginal
    // 5·G(1/f₂) falls to 1; below that budget page 1 gets nothing.
    let first_rate_of_page_2 = bisect(1e-3, 1e3, true, |f| 5.0 * erlang2_cdf(1.0 / f) - 1.0);
    let first_crossing = first_rate_of_page_2;
    // Crossing 2: both pages fetched equally often, f₁ = f₂ = f, where the marginals are equal:
    // G(5/f) = 5·G(1/f). Above 2f page 1 (the fast-changing one) gets more.
    let equal_rate = bisect(1e-2, 1e3, true, |f| 5.0 * erlang2_cdf(1.0 / f) - erlang2_cdf(5.0 / f));
    let second_crossing = 2.0 * equal_rate;
    assert!(first_crossing < second_crossing);
    let rates_at = |budget: f64| solve(Changes, &Problem::budgeted(&pages, budget)).unwrap().rates;

    let below = rates_at(first_crossing * 0.999);
    assert_eq!(below[0], 0.0, "below the first crossing page 1 is not fetched: {below:?}");
    let above = rates_at(first_crossing * 1.001);
    assert!(above[0] > 0.0 && above[0] < above[1], "{above:?}");
    let before_second = rates_at(second_crossing * 0.999);
    assert!(before_second[0] < before_second[1], "{before_second:?}");
    let after_second = rates_at(second_crossing * 1.001);
    assert!(after_second[0] > after_second[1], "{after_second:?}");
    // Seed 000 shows the crossings in a figure, not as numbers; print them for the record.
    println!("seed 000 crossings: total budget {first_crossing:.6} and {second_crossing:.6}");
}
