//! The global budget: the fetch rate converges to `k_0` when demand exceeds it.

use freshet_schedule::online::{Budget, Decision, HostId, Outcome, PageId, Politeness, Scheduler};

/// 2,000 pages on 200 hosts that would take far more than the budget at any small threshold,
/// driven by a loop that wakes at fixed steps (a crawler's tick) rather than at `WaitUntil`.
#[test]
fn fetch_rate_converges_to_the_budget_under_excess_demand() {
    let budget = 50.0;
    let mut scheduler =
        Scheduler::freshness(Budget { initial_lambda0: Some(1e-3), ..Budget::new(budget) }).unwrap();
    for host in 0..200 {
        scheduler.set_host(HostId(host), Politeness::default()).unwrap();
    }
    for page in 0..2_000_u32 {
        let change_rate = 0.1 + f64::from(page % 17) * 0.2;
        scheduler.add(PageId(page), HostId(page % 200), 1.0 + f64::from(page % 3), change_rate, 0.0).unwrap();
    }
    let step = 0.01;
    let mut fetches_per_window = Vec::new();
    let mut count = 0_u64;
    for tick in 0..200_000_u32 {
        let now = f64::from(tick) * step;
        while let Decision::Fetch { page, .. } = scheduler.next(now) {
            scheduler.fetched(page, Outcome::Fetched, now).unwrap();
            count += 1;
        }
        if tick % 10_000 == 9_999 {
            fetches_per_window.push(count as f64 / (10_000.0 * step));
            count = 0;
        }
    }
    eprintln!("fetch rate per 100 time units: {fetches_per_window:?}, λ_0 {}", scheduler.lambda0());
    for (window, rate) in fetches_per_window.iter().enumerate().skip(2) {
        assert!((rate / budget - 1.0).abs() < 0.01, "window {window}: rate {rate}, budget {budget}");
    }
}
