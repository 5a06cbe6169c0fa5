//! Long-run fetch rates and thresholds against the batch solver `freshet_policy::solve`.

use freshet_policy::objective::Freshness;
use freshet_policy::{Page, Problem, Solution, solve};
use freshet_schedule::online::{Budget, HostId, Outcome, PageId, Politeness, Scheduler};

use super::sim;

/// `n` pages: weights 1..=5, change rates log-spread over [0.05, 5].
fn pages(n: usize) -> Vec<Page> {
    (0..n)
        .map(|j| {
            let weight = 1.0 + (j % 5) as f64;
            let change_rate = 0.05 * 100f64.powf(((j * 37) % n) as f64 / (n - 1) as f64);
            Page::new(weight, change_rate)
        })
        .collect()
}

/// Fetch counts after `warm`, until `horizon`, and the mean of `λ_0` and of each host's `λ_i`
/// sampled once per time unit.
struct LongRun {
    counts: Vec<u64>,
    span: f64,
    lambda0: f64,
    host_lambda: Vec<f64>,
}

fn long_run(scheduler: &mut Scheduler, pages: usize, hosts: usize, warm: f64, horizon: f64) -> LongRun {
    sim::run(scheduler, 0.0, warm, 0.0, |_, _| Outcome::Fetched).unwrap();
    let mut starts = Vec::new();
    let (mut lambda0, mut host_lambda, mut samples) = (0.0, vec![0.0; hosts], 0.0);
    let mut t = warm;
    while t < horizon {
        starts.extend(sim::run(scheduler, t, t + 1.0, 0.0, |_, _| Outcome::Fetched).unwrap());
        lambda0 += scheduler.lambda0();
        for (host, sum) in host_lambda.iter_mut().enumerate() {
            *sum += scheduler.host_lambda(HostId(host as u32)).unwrap();
        }
        samples += 1.0;
        t += 1.0;
    }
    LongRun {
        counts: sim::counts(&starts, pages, warm),
        span: horizon - warm,
        lambda0: lambda0 / samples,
        host_lambda: host_lambda.into_iter().map(|sum| sum / samples).collect(),
    }
}

/// Checks every page's long-run rate against the solver's. Pages whose `V(∞)` lies within 5% of
/// their threshold sit at the cutoff, where the optimal rate jumps from about `λ/5` to 0 and a
/// 1% wobble of `λ_0` matters: they are only reported. Returns the worst relative error of the
/// others.
fn worst_rate_error(
    pages: &[Page],
    run: &LongRun,
    solution: &Solution,
    threshold: impl Fn(usize) -> f64,
) -> f64 {
    let mut worst: f64 = 0.0;
    for (j, page) in pages.iter().enumerate() {
        let rate = run.counts[j] as f64 / run.span;
        let expected = solution.rates[j];
        let headroom = page.weight / page.change_rate / threshold(j);
        // λ_0 wobbles with the bucket level (a factor e^{±1/4} at the extremes).
        if page.weight / page.change_rate < 0.75 * solution.lambda0 {
            assert_eq!(
                run.counts[j],
                0,
                "page {j}: V(∞)/λ_0 = {} but it was fetched",
                page.weight / page.change_rate / solution.lambda0
            );
        } else if headroom < 0.95 {
            eprintln!("page {j} below its host's threshold (V(∞)/θ = {headroom:.3}): rate {rate:.4}");
        } else if headroom < 1.05 {
            eprintln!("cutoff page {j} (V(∞)/θ = {headroom:.3}): rate {rate:.4}, solver {expected:.4}");
        } else {
            worst = worst.max((rate / expected - 1.0).abs());
        }
    }
    worst
}

#[test]
fn uncapped_rates_and_lambda0_match_the_solver() {
    let pages = pages(50);
    let budget = 10.0;
    let solution = solve(Freshness, &Problem::budgeted(&pages, budget)).unwrap();
    let mut scheduler = Scheduler::freshness(Budget::new(budget)).unwrap();
    for (j, page) in pages.iter().enumerate() {
        let host = HostId(j as u32);
        scheduler.set_host(host, Politeness::default()).unwrap();
        scheduler.add(PageId(j as u32), host, page.weight, page.change_rate, 0.0).unwrap();
    }
    let run = long_run(&mut scheduler, pages.len(), pages.len(), 500.0, 5_500.0);
    let total = run.counts.iter().sum::<u64>() as f64 / run.span;
    let worst = worst_rate_error(&pages, &run, &solution, |_| solution.lambda0);
    let lambda_error = run.lambda0 / solution.lambda0 - 1.0;
    eprintln!(
        "uncapped: rate {total} / {budget}, λ_0 error {lambda_error:+.4}, worst page rate error {worst:.4}"
    );
    assert!((total / budget - 1.0).abs() < 0.005, "total rate {total}");
    assert!(lambda_error.abs() < 0.01, "λ_0 {} vs solver {}", run.lambda0, solution.lambda0);
    assert!(worst < 0.02, "worst page rate error {worst}");
    // λ_i is the mean excess value of the pages a host served: on an uncapped host only the
    // waits for a budget token make it positive.
    for host in 0..pages.len() {
        assert!(
            run.host_lambda[host] < 0.03 * solution.lambda0,
            "uncapped host {host} has λ_i {}",
            run.host_lambda[host]
        );
    }
}

/// The seed's rule on a capped host (serve the highest-value page when the slot frees) hands out
/// whole slots, so a page's period is a whole number of the host's gaps: rates are quantised
/// at about `1/(period in slots)`. The instance gives the capped host 100 pages and periods of
/// hundreds of slots, so that quantisation stays below 1%.
#[test]
fn a_binding_host_cap_gives_its_capacity_and_a_positive_host_lambda() {
    let pages = pages(400);
    let budget = 40.0;
    // Four hosts of 100 pages each (page j on host j % 4); host 3 may take half of what it
    // would get uncapped.
    let host_of_page: Vec<u32> = (0..pages.len() as u32).map(|j| j % 4).collect();
    let uncapped = solve(Freshness, &Problem::budgeted(&pages, budget)).unwrap();
    let host3_demand: f64 =
        uncapped.rates.iter().enumerate().filter(|(j, _)| j % 4 == 3).map(|(_, rate)| rate).sum();
    let capacity = [f64::INFINITY, f64::INFINITY, f64::INFINITY, host3_demand / 2.0];
    let problem = Problem::host_capped(&pages, budget, &host_of_page, &capacity);
    let solution = solve(Freshness, &problem).unwrap();
    assert!(solution.host_lambda[3] > 0.0, "the instance must make host 3's cap bind");
    let mut scheduler = Scheduler::freshness(Budget::new(budget)).unwrap();
    for (host, &cap) in capacity.iter().enumerate() {
        scheduler.set_host(HostId(host as u32), Politeness::rate(cap)).unwrap();
    }
    for (j, page) in pages.iter().enumerate() {
        scheduler.add(PageId(j as u32), HostId(host_of_page[j]), page.weight, page.change_rate, 0.0).unwrap();
    }
    let run = long_run(&mut scheduler, pages.len(), capacity.len(), 500.0, 2_500.0);
    let host3: u64 = run.counts.iter().enumerate().filter(|(j, _)| j % 4 == 3).map(|(_, count)| count).sum();
    let host3_rate = host3 as f64 / run.span;
    let total = run.counts.iter().sum::<u64>() as f64 / run.span;
    let threshold_error = (run.lambda0 + run.host_lambda[3]) / solution.threshold(Some(3)) - 1.0;
    let lambda_error = run.lambda0 / solution.lambda0 - 1.0;
    let worst = worst_rate_error(&pages, &run, &solution, |j| solution.threshold(Some(host_of_page[j])));
    eprintln!(
        "capped: host 3 rate {host3_rate} / {}, total {total}, λ_0 error {lambda_error:+.4}, λ_i {} vs {} \
         (θ_3 error {threshold_error:+.4}), worst page rate error {worst:.4}",
        capacity[3], run.host_lambda[3], solution.host_lambda[3]
    );
    assert!(
        (host3_rate / capacity[3] - 1.0).abs() < 0.002,
        "host 3 rate {host3_rate}, capacity {}",
        capacity[3]
    );
    assert!((total / budget - 1.0).abs() < 0.005, "total rate {total}");
    assert!(threshold_error.abs() < 0.05, "host 3 threshold off by {threshold_error}");
    assert!(lambda_error.abs() < 0.02, "λ_0 {} vs solver {}", run.lambda0, solution.lambda0);
    assert!(worst < 0.08, "worst page rate error {worst}");
}
