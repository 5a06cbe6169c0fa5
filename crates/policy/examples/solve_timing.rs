//! Quick timing of the solver on a seeded instance: `cargo run --release -p freshet-policy
//! --example solve_timing -- PAGES HOSTS`. The figures in BENCHMARKS.md come from the criterion
//! bench; this is for profiling and for a one-shot look.
#![allow(clippy::unwrap_used, missing_docs)]

#[path = "../benches/support/instance.rs"]
mod instance;

use freshet_policy::objective::Freshness;
use freshet_policy::{certify, solve};
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let pages: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1_000_000);
    let hosts: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let started = Instant::now();
    let instance = instance::Instance::generate(pages, hosts, 42);
    println!("generated {pages} pages on {hosts} hosts in {:.2?}", started.elapsed());
    for (name, problem) in [("budgeted", instance.budgeted()), ("host-capped", instance.host_capped())] {
        let started = Instant::now();
        let solution = solve(Freshness, &problem).unwrap();
        let solved = started.elapsed();
        let started = Instant::now();
        let certificate = certify(Freshness, &problem, &solution);
        println!(
            "{name}: solve {solved:.3?} ({:.1} passes), certify {:.3?}, kkt {:.2e}, gap {:.2e}, budget {:.3e}, hosts capped {}",
            solution.passes,
            started.elapsed(),
            certificate.max_kkt_violation,
            certificate.relative_duality_gap,
            certificate.budget_used / problem.budget - 1.0,
            solution.hosts_capped()
        );
    }
}
