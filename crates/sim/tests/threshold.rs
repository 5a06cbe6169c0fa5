//! `threshold` (seed 003's online scheduler) against the fluid optimum. (Against
//! solver-then-schedule under a host cap: `freshet_sim::scenario`, seed 003's new-host scenario.)

mod common;

use common::{config, load_pages, solver_freshness};
use freshet_sim::{PolicyKind, RatesMode, simulate};

/// The first 200 pages of the uniform Fig. 1 set at bandwidth 20 (each page fetched ~every 10
/// units), known rates: `threshold` finds `λ_0` online and gets close to the solver's fluid
/// optimum, which no policy can beat with the same budget, and close to the carousel that is
/// handed the solver's rates.
#[test]
fn threshold_gets_close_to_the_fluid_optimum_without_solving() {
    let pages: Vec<(f64, f64)> = load_pages("azar-fig1-uniform.csv").into_iter().take(200).collect();
    let budget = 20.0;
    let config = config(&pages, budget, 3_000.0);
    let optimum = solver_freshness(&pages, budget);
    let threshold =
        simulate(&config, PolicyKind::Threshold, RatesMode::Known, 1).unwrap_or_else(|e| panic!("{e}"));
    let periodic =
        simulate(&config, PolicyKind::PeriodicOptimal, RatesMode::Known, 1).unwrap_or_else(|e| panic!("{e}"));
    let ratio = threshold.weighted_freshness / optimum;
    println!(
        "optimum {optimum:.4}, threshold {:.4} (ratio {ratio:.4}, fetch rate {:.3}), periodic-optimal {:.4}",
        threshold.weighted_freshness, threshold.fetch_rate, periodic.weighted_freshness
    );
    assert_eq!(threshold.violations.total(), 0);
    assert!(ratio > 0.98, "threshold reached {ratio:.4} of the fluid optimum");
    assert!(threshold.fetch_rate <= budget * 1.01, "{}", threshold.fetch_rate);
}
