//! Prints the online scheduler's fetch rate and `λ_0` over time on the bench's instance (seeded:
//! Zipf-like weights, log-uniform change rates, a tenth of the hosts capped at 5 fetches per
//! unit), next to the batch solver's `λ_0`: how the budget controller recovers from a first
//! crawl of pages never fetched (`new`) or from a start where every copy is fresh at 0
//! (`restore`, the simulator's start).
//!
//! `cargo run --release -p freshet-schedule --example online_transient -- [pages] [hosts] [horizon] [new|restore]`
#![allow(clippy::unwrap_used, clippy::expect_used)]

use freshet_policy::objective::Freshness;
use freshet_policy::{Page, Problem, solve};
use freshet_schedule::online::{Budget, Decision, HostId, Outcome, PageId, Politeness, Scheduler};

/// SplitMix64, as in the bench: the same instance on every run.
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

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let pages: u32 = args.get(1).and_then(|arg| arg.parse().ok()).unwrap_or(100_000);
    let hosts: u32 = args.get(2).and_then(|arg| arg.parse().ok()).unwrap_or(10_000);
    let horizon: f64 = args.get(3).and_then(|arg| arg.parse().ok()).unwrap_or(500.0);
    let restore = args.get(4).is_some_and(|arg| arg == "restore");
    let mut rng = SplitMix(42);
    let mut instance = Vec::new();
    let mut host_of_page = Vec::new();
    for _ in 0..pages {
        let weight = 1.0 / (1.0 + rng.next_f64() * 1000.0);
        let change_rate = 10f64.powf(-3.0 + 3.0 * rng.next_f64());
        instance.push(Page::new(weight, change_rate));
        host_of_page.push((rng.next_f64() * f64::from(hosts)) as u32);
    }
    let capacity: Vec<f64> =
        (0..hosts).map(|host| if host % 10 == 0 { 5.0 } else { f64::INFINITY }).collect();
    let budget = f64::from(pages) / 10.0;
    let solution =
        solve(Freshness, &Problem::host_capped(&instance, budget, &host_of_page, &capacity)).unwrap();
    println!("solver λ_0 {:.4e}, {} hosts capped", solution.lambda0, solution.hosts_capped());
    let mut scheduler = Scheduler::freshness(Budget::new(budget)).unwrap();
    for (host, &cap) in capacity.iter().enumerate() {
        scheduler.set_host(HostId(host as u32), Politeness::rate(cap)).unwrap();
    }
    for (page, (parameters, &host)) in instance.iter().zip(&host_of_page).enumerate() {
        let (id, host) = (PageId(page as u32), HostId(host));
        if restore {
            scheduler.restore(id, host, parameters.weight, parameters.change_rate, 0.0, 0.0).unwrap();
        } else {
            scheduler.add(id, host, parameters.weight, parameters.change_rate, 0.0).unwrap();
        }
    }
    let window = horizon / 50.0;
    let mut now = 0.0;
    let mut next_report = window;
    let (mut fetches, mut lambda_sum, mut samples) = (0_u64, 0.0, 0_u64);
    println!("{:>9} {:>10} {:>11} {:>8}", "time", "rate/k_0", "mean λ_0", "/solver");
    while now < horizon {
        match scheduler.next(now) {
            Decision::Fetch { page, .. } => {
                scheduler.fetched(page, Outcome::Fetched, now).unwrap();
                fetches += 1;
                lambda_sum += scheduler.lambda0();
                samples += 1;
            }
            Decision::WaitUntil(time) => now = time.min(next_report),
            Decision::Idle => now = next_report,
        }
        if now >= next_report {
            let mean = lambda_sum / samples.max(1) as f64;
            println!(
                "{next_report:>9.2} {:>10.4} {mean:>11.4e} {:>8.3}",
                fetches as f64 / window / budget,
                mean / solution.lambda0
            );
            (fetches, lambda_sum, samples) = (0, 0.0, 0);
            next_report += window;
        }
    }
    println!("{:?}", scheduler.stats());
}
