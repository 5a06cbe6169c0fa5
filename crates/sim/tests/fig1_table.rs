//! Seed 001's Fig. 1 experiment, every policy at bandwidths 1..10: a table for the record,
//! not a test (`cargo test --release -p freshet-sim --test fig1_table -- --ignored --nocapture`).

mod common;

use freshet_sim::{PolicyKind, RatesMode, simulate};

#[test]
#[ignore = "prints the Fig. 1 table; slow in debug builds"]
fn fig1_table() {
    for file in ["azar-fig1-zipf.csv", "azar-fig1-uniform.csv"] {
        let pages = common::load_pages(file);
        println!(
            "\n{file}: weighted freshness (warm-up 20%), solver fixed-order F and Azar F2 for reference"
        );
        print!("{:>3} {:>8} {:>8}", "R", "solverF", "azarF2");
        for kind in PolicyKind::ALL {
            print!(" {:>12}", &kind.name()[..kind.name().len().min(12)]);
        }
        println!();
        for budget in 1..=10 {
            let budget = f64::from(budget);
            let horizon = 1.0e6 / budget;
            let config = common::config(&pages, budget, horizon);
            print!(
                "{budget:>3} {:>8.4} {:>8.4}",
                common::solver_freshness(&pages, budget),
                common::azar_f2(&pages, budget)
            );
            for kind in PolicyKind::ALL {
                let config = if kind == PolicyKind::Greedy {
                    common::config(&pages, budget, 2.0e5 / budget)
                } else {
                    config.clone()
                };
                let summary = simulate(&config, kind, RatesMode::Known, 1).unwrap_or_else(|e| panic!("{e}"));
                print!(" {:>12.4}", summary.weighted_freshness);
            }
            println!();
        }
    }
}
