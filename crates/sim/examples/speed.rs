//! The instance of `benches/simulate.rs` without criterion, for CPU-time measurements on a
//! shared machine (wall-clock figures there measure the other processes too):
//!
//! ```text
//! cargo build --release -p freshet-sim --example speed
//! target/release/examples/speed 100000 5
//! ```
//!
//! (`experiments/speed/sim.sh` alternates builds over rounds and prints medians.)
//!
//! Arguments: pages (default 100,000) and runs (default 5). Each run simulates about 2·10^6
//! fetches of Poisson pages (weights and rates U(0,1], seed 42) under `periodic-optimal` with
//! known rates and budget `n/10`, the solver's setup included, as the bench does. Prints the
//! fetches and the summary's freshness of each run (the same every run), then the total with
//! the wall time and the thread's CPU time (`cpu_time::ThreadTime`, `CLOCK_THREAD_CPUTIME_ID`;
//! NaN where there is none), whose rate is the figure BENCHMARKS.md quotes.

use std::time::Instant;

use freshet_sim::{Config, PolicyKind, RatesMode, SimRng, simulate};

fn main() -> Result<(), freshet_sim::SimError> {
    let mut args = std::env::args().skip(1);
    let pages: usize = args.next().and_then(|arg| arg.parse().ok()).unwrap_or(100_000);
    let runs: usize = args.next().and_then(|arg| arg.parse().ok()).unwrap_or(5);
    let mut rng = SimRng::new(42);
    let specs: Vec<(f64, f64)> = (0..pages).map(|_| (rng.uniform_open0(), rng.uniform_open0())).collect();
    let budget = pages as f64 / 10.0;
    let config = Config::poisson(&specs, budget, 2.0e6 / budget);
    let start = Instant::now();
    // This thread's time on a CPU (`CLOCK_THREAD_CPUTIME_ID`): on a shared machine, wall time
    // also measures the other processes.
    let cpu_start = cpu_time::ThreadTime::try_now().ok();
    let mut fetches = 0;
    for _ in 0..runs {
        let summary = simulate(&config, PolicyKind::PeriodicOptimal, RatesMode::Known, 1)?;
        println!("{} fetches, weighted freshness {:?}", summary.fetches, summary.weighted_freshness);
        fetches += summary.fetches;
    }
    let seconds = start.elapsed().as_secs_f64();
    let cpu_seconds =
        cpu_start.and_then(|start| start.try_elapsed().ok()).map_or(f64::NAN, |cpu| cpu.as_secs_f64());
    println!(
        "{pages} pages: {fetches} fetches in {seconds:.3} s wall, {cpu_seconds:.3} s CPU: \
         {:.3} M fetches/s wall, {:.3} M per CPU second",
        fetches as f64 / seconds / 1e6,
        fetches as f64 / cpu_seconds / 1e6
    );
    Ok(())
}
