//! Simulated fetches per second: Poisson pages under `periodic-optimal` (known rates).
//!
//! `cargo bench -p freshet-sim`; throughput is reported in fetches ("elements") per second.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use freshet_sim::{Config, PolicyKind, RatesMode, SimRng, simulate};

/// `n` Poisson pages with seeded weights in (0, 1] and rates in (0, 1].
fn pages(n: usize) -> Vec<(f64, f64)> {
    let mut rng = SimRng::new(42);
    (0..n).map(|_| (rng.uniform_open0(), rng.uniform_open0())).collect()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("simulate");
    group.sample_size(10);
    for n in [1_000usize, 100_000] {
        let budget = n as f64 / 10.0;
        // About 2,000,000 fetches per run.
        let horizon = 2.0e6 / budget;
        let config = Config::poisson(&pages(n), budget, horizon);
        let fetches = simulate(&config, PolicyKind::PeriodicOptimal, RatesMode::Known, 1)
            .map(|summary| summary.fetches)
            .unwrap_or(0);
        group.throughput(Throughput::Elements(fetches));
        group.bench_function(format!("periodic-optimal/poisson/{n}-pages"), |b| {
            b.iter(|| simulate(&config, PolicyKind::PeriodicOptimal, RatesMode::Known, 1))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
