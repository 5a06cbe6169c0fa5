//! Shared test helpers: the Fig. 1 page sets and the solver's predicted values.

#![allow(dead_code, unreachable_pub)]

use freshet_policy::objective::{Freshness, FreshnessPoisson};
use freshet_policy::{Objective, Page, Problem, azar_poisson, solve};
use freshet_sim::{Config, SimPage};

/// `(weight, change_rate)` rows of a `tests/data` CSV with header `id,weight,change_rate`.
pub fn load_pages(file: &str) -> Vec<(f64, f64)> {
    let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{path}: {error}"));
    text.lines()
        .skip(1)
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            let parse = |i: usize| fields[i].trim().parse::<f64>().unwrap_or_else(|e| panic!("{line}: {e}"));
            (parse(1), parse(2))
        })
        .collect()
}

pub fn policy_pages(pages: &[(f64, f64)]) -> Vec<Page> {
    pages.iter().map(|&(w, rate)| Page::new(w, rate)).collect()
}

/// `Σ C(f)/Σ w` of `rates` under `objective`.
pub fn normalised_value<O: Objective>(objective: O, pages: &[Page], rates: &[f64]) -> f64 {
    let total: f64 = pages.iter().map(|page| page.weight).sum();
    pages.iter().zip(rates).map(|(page, &rate)| objective.value(*page, rate)).sum::<f64>() / total
}

/// The solver's fixed-order freshness rates at budget `budget`.
pub fn solver_rates(pages: &[(f64, f64)], budget: f64) -> Vec<f64> {
    let pages = policy_pages(pages);
    solve(Freshness, &Problem::budgeted(&pages, budget)).unwrap_or_else(|e| panic!("{e}")).rates
}

/// The solver's fixed-order freshness at budget `budget`.
pub fn solver_freshness(pages: &[(f64, f64)], budget: f64) -> f64 {
    let pages = policy_pages(pages);
    let solution = solve(Freshness, &Problem::budgeted(&pages, budget)).unwrap_or_else(|e| panic!("{e}"));
    normalised_value(Freshness, &pages, &solution.rates)
}

/// Azar's F2 (`Σ w f/(f + λ) / Σ w`) at the optimum of Problem 2.
pub fn azar_f2(pages: &[(f64, f64)], budget: f64) -> f64 {
    let pages = policy_pages(pages);
    let rates = azar_poisson(&pages, budget).unwrap_or_else(|e| panic!("{e}"));
    normalised_value(FreshnessPoisson, &pages, &rates)
}

pub fn config(pages: &[(f64, f64)], budget: f64, horizon: f64) -> Config {
    Config::new(pages.iter().map(|&(w, rate)| SimPage::poisson(w, rate)).collect(), budget, horizon)
}
