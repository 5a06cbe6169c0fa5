//! Shared test helpers: the Fig. 1 page sets and the solver's predicted values.

#![allow(dead_code, unreachable_pub)]

use freshet_policy::objective::{Freshness, FreshnessPoisson};
use freshet_policy::{Objective, Page, Problem, azar_poisson, solve};
use freshet_sim::{Config, Host, SimPage};

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

/// 200 Poisson pages on 50 hosts (page `i` on host `i mod 50`, weight `1/(i+1)`, rate
/// `0.05 + 0.1·(i mod 7)`), budget 20, horizon 400; the even hosts capped at 0.2 fetches per
/// unit (4 pages each, one fetch every 5 units at most) with a minimum delay of `min_delay`,
/// the odd ones unlimited: the host limits bind.
pub fn fifty_hosts_half_capped(min_delay: f64) -> Config {
    let pages = (0..200u32)
        .map(|i| SimPage {
            host: i % 50,
            ..SimPage::poisson(1.0 / f64::from(i + 1), 0.05 + f64::from(i % 7) * 0.1)
        })
        .collect();
    let mut config = Config::new(pages, 20.0, 400.0);
    config.hosts = (0..50)
        .map(|host| if host % 2 == 0 { Host { capacity: 0.2, min_delay } } else { Host::UNLIMITED })
        .collect();
    config
}
