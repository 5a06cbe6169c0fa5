//! Criterion bench of the online scheduler: `next`/`fetched` pairs per second with 10^7 pages on
//! 10^5 hosts (seeded: Zipf-like weights, log-uniform change rates, a tenth of the hosts capped),
//! and its memory per page. `λ_0` is warm-started from the batch solver (as a deployment would,
//! from its previous run), so the steady state is the equilibrium, not a transient. Setup
//! (adding the pages and the whole first crawl) is timed once, outside criterion; then a long
//! run of 10^7 pairs; then criterion times batches of 10^5 pairs.
//!
//! `cargo bench -p freshet-schedule --bench online` (`FRESHET_BENCH_PAGES` overrides 10^7,
//! `FRESHET_BENCH_PAIRS` the long run's 10^7 pairs, `FRESHET_BENCH_WINDOWS` reports that run in
//! so many windows).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use cpu_time::ThreadTime;
use criterion::{Criterion, criterion_group, criterion_main};
use freshet_policy::objective::Freshness;
use freshet_policy::{Objective, Page, Problem, solve};
use freshet_schedule::online::{Budget, Decision, HostId, Outcome, PageId, Politeness, Scheduler};

const HOSTS: u32 = 100_000;
const BATCH: u64 = 100_000;

/// SplitMix64: a seeded generator, so the instance is the same on every run.
struct SplitMix(u64);

impl SplitMix {
    fn next_f64(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Pairs per second of `elapsed`, or NaN without a time.
fn per_second(pairs: u64, elapsed: Option<Duration>) -> f64 {
    elapsed.map_or(f64::NAN, |elapsed| pairs as f64 / elapsed.as_secs_f64())
}

/// Runs `pairs` next/fetched pairs (fetches complete instantly), jumping time to each
/// `WaitUntil`. Returns the pairs done.
fn drive(scheduler: &mut Scheduler, now: &mut f64, pairs: u64) -> u64 {
    let mut done = 0;
    while done < pairs {
        match scheduler.next(*now) {
            Decision::Fetch { page, .. } => {
                scheduler.fetched(page, Outcome::Fetched, *now).unwrap();
                done += 1;
            }
            Decision::WaitUntil(time) => *now = time,
            Decision::Idle => break,
        }
    }
    done
}

fn build(pages: u32) -> (Scheduler, f64, f64) {
    let mut rng = SplitMix(42);
    let mut instance = Vec::with_capacity(pages as usize);
    let mut host_of_page = Vec::with_capacity(pages as usize);
    for _ in 0..pages {
        let weight = 1.0 / (1.0 + rng.next_f64() * 1000.0);
        let change_rate = 10f64.powf(-3.0 + 3.0 * rng.next_f64());
        instance.push(Page::new(weight, change_rate));
        host_of_page.push((rng.next_f64() * f64::from(HOSTS)) as u32);
    }
    let capacity: Vec<f64> =
        (0..HOSTS).map(|host| if host % 10 == 0 { 5.0 } else { f64::INFINITY }).collect();
    // Budget: about one fetch per page per 10 time units.
    let budget = f64::from(pages) / 10.0;
    let solved = Instant::now();
    let solution =
        solve(Freshness, &Problem::host_capped(&instance, budget, &host_of_page, &capacity)).unwrap();
    // The fluid optimum of the expected weighted freshness: Σ C_j(f_j) / Σ w_j.
    let optimum =
        instance.iter().zip(&solution.rates).map(|(page, &rate)| Freshness.value(*page, rate)).sum::<f64>()
            / instance.iter().map(|page| page.weight).sum::<f64>();
    eprintln!(
        "solver: λ_0 {:.4e}, freshness {optimum:.4}, in {:?}, {} hosts capped, {} pages at rate 0",
        solution.lambda0,
        solved.elapsed(),
        solution.hosts_capped(),
        solution.pages_not_fetched()
    );
    let rss_before = resident_bytes().unwrap_or(0);
    let started = Instant::now();
    let budget = Budget { initial_lambda0: Some(solution.lambda0), ..Budget::new(budget) };
    let mut scheduler = Scheduler::freshness(budget).unwrap();
    for (host, &cap) in capacity.iter().enumerate() {
        scheduler.set_host(HostId(host as u32), Politeness::rate(cap)).unwrap();
    }
    for (page, (parameters, &host)) in instance.iter().zip(&host_of_page).enumerate() {
        scheduler
            .add(PageId(page as u32), HostId(host), parameters.weight, parameters.change_rate, 0.0)
            .unwrap();
    }
    drop((instance, host_of_page));
    let added = started.elapsed();
    let mut now = 0.0;
    let first_crawl = Instant::now();
    let cpu_before = ThreadTime::try_now().ok();
    // The first pair on its own: its `next` starts the scheduler and surfaces every page at
    // once (all are due at their add time), handing each to its host.
    let first_pair = drive(&mut scheduler, &mut now, 1);
    let first_pair_time = first_crawl.elapsed();
    let pairs = first_pair + drive(&mut scheduler, &mut now, u64::from(pages).saturating_sub(1));
    let crawl = first_crawl.elapsed();
    let crawl_cpu = cpu_before.and_then(|before| before.try_elapsed().ok());
    let rss_after = resident_bytes().unwrap_or(0);
    eprintln!(
        "setup: {pages} pages added in {added:?}; first {pairs} pairs in {crawl:?} ({:.0} pairs/s, \
         {:.0} per CPU second; the first pair alone {first_pair_time:?}); λ_0 {:.4e}; allocated {} B ({:.1} B/page); RSS grew {} B ({:.1} B/page); {:?}",
        pairs as f64 / crawl.as_secs_f64(),
        per_second(pairs, crawl_cpu),
        scheduler.lambda0(),
        scheduler.allocated_bytes(),
        scheduler.allocated_bytes() as f64 / f64::from(pages),
        rss_after.saturating_sub(rss_before),
        rss_after.saturating_sub(rss_before) as f64 / f64::from(pages),
        scheduler.stats(),
    );
    (scheduler, now, optimum)
}

fn online(criterion: &mut Criterion) {
    let pages =
        std::env::var("FRESHET_BENCH_PAGES").ok().and_then(|value| value.parse().ok()).unwrap_or(10_000_000);
    let (mut scheduler, mut now, optimum) = build(pages);
    // Steady state: a long run of pairs after the first crawl.
    let long = Instant::now();
    let cpu_before = ThreadTime::try_now().ok();
    let start_time = now;
    let long_pairs =
        std::env::var("FRESHET_BENCH_PAIRS").ok().and_then(|value| value.parse().ok()).unwrap_or(10_000_000);
    // `FRESHET_BENCH_WINDOWS` splits the run into windows, each reported on its own line, to
    // show whether the rate (and the requeues, withdrawals and rebuilds) has settled.
    let windows: u64 =
        std::env::var("FRESHET_BENCH_WINDOWS").ok().and_then(|value| value.parse().ok()).unwrap_or(1).max(1);
    let mut pairs = 0;
    for window in 0..windows {
        let window_pairs = long_pairs / windows + u64::from(window < long_pairs % windows);
        let (window_start, window_cpu, window_time, before) =
            (Instant::now(), ThreadTime::try_now().ok(), now, scheduler.stats());
        let done = drive(&mut scheduler, &mut now, window_pairs);
        pairs += done;
        if windows > 1 {
            let cpu = window_cpu.and_then(|before| before.try_elapsed().ok());
            let after = scheduler.stats();
            eprintln!(
                "window {window}: {done} pairs, {:.0} per CPU second ({:.0} wall); {:.0} fetches per unit; \
                 per pair: {:.3} requeued, {:.3} withdrawn, {:.3} host rekeys; {} rebuilds; λ_0 {:.4e}",
                per_second(done, cpu),
                per_second(done, Some(window_start.elapsed())),
                done as f64 / (now - window_time),
                (after.requeued - before.requeued) as f64 / done as f64,
                (after.withdrawn - before.withdrawn) as f64 / done as f64,
                (after.host_rekeys - before.host_rekeys) as f64 / done as f64,
                after.global_rebuilds - before.global_rebuilds,
                scheduler.lambda0(),
            );
        }
        if done < window_pairs {
            break;
        }
    }
    let elapsed = long.elapsed();
    let cpu = cpu_before.and_then(|before| before.try_elapsed().ok());
    eprintln!(
        "steady state: {pairs} pairs in {elapsed:?}: {:.0} pairs/s, {:.0} per CPU second; simulated time {now:.2} \
         ({:.0} fetches per unit, budget {}); λ_0 {:.4e}; {:?}",
        pairs as f64 / elapsed.as_secs_f64(),
        per_second(pairs, cpu),
        pairs as f64 / (now - start_time),
        scheduler.budget().rate,
        scheduler.lambda0(),
        scheduler.stats()
    );
    let census = scheduler.census(now);
    eprintln!(
        "at the end: expected freshness {:.4} = {:.4} of the solver's; λ_0 / solver's {:.4}",
        census.expected_freshness,
        census.expected_freshness / optimum,
        scheduler.lambda0() / scheduler.budget().initial_lambda0.unwrap_or(f64::NAN)
    );
    let mut group = criterion.benchmark_group("online");
    group.sample_size(20).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(10));
    group.throughput(criterion::Throughput::Elements(BATCH));
    group.bench_function(format!("next+fetched/{pages}-pages"), |bencher| {
        bencher.iter(|| drive(&mut scheduler, &mut now, BATCH));
    });
    group.finish();
}

criterion_group!(benches, online);
criterion_main!(benches);
