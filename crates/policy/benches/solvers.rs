//! Criterion benches of the exact solver, budgeted and host-capped, at 10^5, 10^6 and 10^7 pages
//! (Zipf-like weights, log-uniform change rates, 10^4 hosts, a third of them capped at half their
//! demand), and side by side at 10^5 the plain baseline: bisection on `λ_0` with a per-page
//! bisection root finder (`reference::solve_by_bisection`).
//!
//! `cargo bench -p freshet-policy --bench solvers`; figures go to BENCHMARKS.md.
#![allow(missing_docs, clippy::unwrap_used)]

#[path = "support/instance.rs"]
mod instance;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use freshet_policy::objective::Freshness;
use freshet_policy::reference::solve_by_bisection;
use freshet_policy::solve;
use instance::Instance;
use std::time::Duration;

const HOSTS: usize = 10_000;

fn solvers(criterion: &mut Criterion) {
    let mut group = criterion.benchmark_group("solve-freshness");
    group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(10));
    for page_count in [100_000, 1_000_000, 10_000_000] {
        let instance = Instance::generate(page_count, HOSTS, 42);
        group.bench_with_input(BenchmarkId::new("budgeted", page_count), &instance, |bencher, instance| {
            bencher.iter(|| solve(Freshness, &instance.budgeted()).unwrap());
        });
        group.bench_with_input(
            BenchmarkId::new("host-capped", page_count),
            &instance,
            |bencher, instance| {
                bencher.iter(|| solve(Freshness, &instance.host_capped()).unwrap());
            },
        );
        if page_count == 100_000 {
            group.bench_with_input(
                BenchmarkId::new("baseline-bisection-budgeted", page_count),
                &instance,
                |bencher, instance| {
                    bencher.iter(|| solve_by_bisection(Freshness, &instance.budgeted()).unwrap())
                },
            );
            group.bench_with_input(
                BenchmarkId::new("baseline-bisection-host-capped", page_count),
                &instance,
                |bencher, instance| {
                    bencher.iter(|| solve_by_bisection(Freshness, &instance.host_capped()).unwrap())
                },
            );
        }
    }
    group.finish();
}

criterion_group!(benches, solvers);
criterion_main!(benches);
