//! The budget controller after the two transients a crawler starts from: a first crawl of pages
//! never fetched, and a start where every copy was fetched at the same moment (a restore, the
//! simulator's start). Either way the fetch rate must settle at the budget and `λ_0` at the batch
//! solver's, with host caps binding on some hosts.

use freshet_policy::objective::Freshness;
use freshet_policy::{Page, Problem, solve};
use freshet_schedule::online::{Budget, Decision, HostId, Outcome, PageId, Politeness, Scheduler};

use super::sim;

/// 2,000 pages on 40 hosts, every tenth host capped at 4 fetches per unit; weights spread over
/// a decade and change rates over two (a fixed pattern, no RNG), budget 200: revisit periods of
/// about 10 units.
struct Instance {
    pages: Vec<Page>,
    host_of_page: Vec<u32>,
    capacity: Vec<f64>,
    budget: f64,
}

fn instance() -> Instance {
    let count = 2_000_u32;
    let pages = (0..count)
        .map(|j| {
            let weight = 10f64.powf(f64::from((j * 7) % 101) / 100.0);
            let change_rate = 0.01 * 100f64.powf(f64::from((j * 37) % count) / f64::from(count - 1));
            Page::new(weight, change_rate)
        })
        .collect();
    let host_of_page = (0..count).map(|j| (j * 13) % 40).collect();
    let capacity = (0..40).map(|host| if host % 10 == 0 { 4.0 } else { f64::INFINITY }).collect();
    Instance { pages, host_of_page, capacity, budget: 200.0 }
}

/// Runs the instance from 0 to `horizon` (pages new, or restored as fetched at 0) and returns
/// the fetch rate and the mean `λ_0` (sampled once per unit) after `warm`, over the solver's.
fn settle(restore: bool, warm: f64, horizon: f64) -> (f64, f64) {
    let instance = instance();
    let problem =
        Problem::host_capped(&instance.pages, instance.budget, &instance.host_of_page, &instance.capacity);
    let solution = solve(Freshness, &problem).unwrap();
    assert!(solution.hosts_capped() > 0, "the instance must make some host cap bind");
    let mut scheduler = Scheduler::freshness(Budget::new(instance.budget)).unwrap();
    for (host, &cap) in instance.capacity.iter().enumerate() {
        scheduler.set_host(HostId(host as u32), Politeness::rate(cap)).unwrap();
    }
    for (j, (page, &host)) in instance.pages.iter().zip(&instance.host_of_page).enumerate() {
        let (id, host) = (PageId(j as u32), HostId(host));
        if restore {
            scheduler.restore(id, host, page.weight, page.change_rate, 0.0, 0.0).unwrap();
        } else {
            scheduler.add(id, host, page.weight, page.change_rate, 0.0).unwrap();
        }
    }
    sim::run(&mut scheduler, 0.0, warm, 0.0, |_, _| Outcome::Fetched).unwrap();
    let (mut fetches, mut lambda0, mut samples) = (0, 0.0, 0.0);
    let mut t = warm;
    while t < horizon {
        fetches += sim::run(&mut scheduler, t, t + 1.0, 0.0, |_, _| Outcome::Fetched).unwrap().len();
        lambda0 += scheduler.lambda0();
        samples += 1.0;
        t += 1.0;
    }
    let rate = fetches as f64 / (horizon - warm) / instance.budget;
    let lambda0 = lambda0 / samples / solution.lambda0;
    eprintln!(
        "{}: fetch rate / budget {rate:.4}, mean λ_0 / solver {lambda0:.4}",
        if restore { "restore" } else { "new" }
    );
    (rate, lambda0)
}

#[test]
fn after_a_first_crawl_the_rate_meets_the_budget_at_the_solvers_lambda0() {
    let (rate, lambda0) = settle(false, 50.0, 150.0);
    assert!((rate - 1.0).abs() < 0.005, "fetch rate {rate} of the budget");
    assert!((lambda0 - 1.0).abs() < 0.01, "mean λ_0 {lambda0} of the solver's");
}

#[test]
fn after_a_restore_at_zero_the_rate_meets_the_budget_at_the_solvers_lambda0() {
    let (rate, lambda0) = settle(true, 50.0, 150.0);
    assert!((rate - 1.0).abs() < 0.005, "fetch rate {rate} of the budget");
    assert!((lambda0 - 1.0).abs() < 0.01, "mean λ_0 {lambda0} of the solver's");
}

/// A first crawl from `λ_0` warm-started at the solver's (a deployment's previous run): the
/// bucket is empty all through it, because every page is due at once, but that is demand the
/// steady-state model leaves out, not a model error, so `λ_0` must come out of it near where
/// it went in, and the budget be used in the revisits right after it. (With the whole error
/// integrated, `λ_0` came out 1.08 times the solver's here, and 0.976 of the budget was used in
/// the next 10 units; 1.23 times in `benches/online.rs`.)
#[test]
fn a_first_crawl_does_not_wind_lambda0_up() {
    let instance = instance();
    let problem =
        Problem::host_capped(&instance.pages, instance.budget, &instance.host_of_page, &instance.capacity);
    let solution = solve(Freshness, &problem).unwrap();
    let budget = Budget { initial_lambda0: Some(solution.lambda0), ..Budget::new(instance.budget) };
    let mut scheduler = Scheduler::freshness(budget).unwrap();
    for (host, &cap) in instance.capacity.iter().enumerate() {
        scheduler.set_host(HostId(host as u32), Politeness::rate(cap)).unwrap();
    }
    for (j, (page, &host)) in instance.pages.iter().zip(&instance.host_of_page).enumerate() {
        scheduler.add(PageId(j as u32), HostId(host), page.weight, page.change_rate, 0.0).unwrap();
    }
    // The first crawl: the pages worth a fetch at 200 a unit, the capped hosts' 50 each at 4
    // a unit (12.5 units).
    let t = 15.0;
    sim::run(&mut scheduler, 0.0, t, 0.0, |_, _| Outcome::Fetched).unwrap();
    let after_first_crawl = scheduler.lambda0() / solution.lambda0;
    let revisits = sim::run(&mut scheduler, t, t + 10.0, 0.0, |_, _| Outcome::Fetched).unwrap().len();
    let rate = revisits as f64 / 10.0 / instance.budget;
    eprintln!(
        "after the first crawl, at {t}: λ_0 / solver's {after_first_crawl:.4}; the next 10 units: fetch rate / budget {rate:.4}"
    );
    assert!(after_first_crawl < 1.04, "λ_0 {after_first_crawl} of the solver's after the first crawl");
    assert!(rate > 0.99, "fetch rate {rate} of the budget after the first crawl");
}

/// A threshold far above what the pages are worth, with no page to fetch for a long while: 100
/// pages worth at most 10 each (weight 1, change rate 0.1; at the budget's equilibrium, one
/// fetch each per 10 units, `λ_0 = 10·G(1) = 2.64`) and one page worth up to 10^6 whose
/// value reaches `λ_0 = 100` only after 10^4 time units, budget 10 per unit. The budget goes
/// unused, and the demand sweep, advanced by the unused tokens, brings `λ_ff` (and `λ_0`) down
/// to the pages within the first 200 units, where they are fetched. Before, the sweep advanced
/// only by fetches and `Idle` answers: `next` waited for the slow page's key, 10^4 units, with
/// the threshold where it was (the stall of `freshet-sim`'s learned `threshold` after a
/// re-solve, `Scheduler::next`).
#[test]
fn a_threshold_above_every_page_comes_down_though_nothing_is_fetched() {
    let budget = Budget { rate: 10.0, burst: 64.0, initial_lambda0: Some(100.0) };
    let mut scheduler = Scheduler::freshness(budget).unwrap();
    scheduler.set_host(HostId(0), Politeness::default()).unwrap();
    for page in 0..100 {
        scheduler.restore(PageId(page), HostId(0), 1.0, 0.1, 0.0, 0.0).unwrap();
    }
    // V(τ) ≈ wλτ²/2 = 100 at τ = 10^4; V(∞) = w/λ = 10^6.
    let sqrt_2 = std::f64::consts::SQRT_2;
    scheduler.restore(PageId(100), HostId(0), sqrt_2, sqrt_2 * 1e-6, 0.0, 0.0).unwrap();
    let starts = sim::run(&mut scheduler, 0.0, 200.0, 0.0, |_, _| Outcome::Fetched).unwrap();
    let first = starts.first().map(|start| start.time);
    let fetched: std::collections::HashSet<_> = starts.iter().map(|start| start.page).collect();
    eprintln!("first fetch at {first:?}, {} fetches, λ_0 {:.3}", starts.len(), scheduler.lambda0());
    assert!(fetched.len() >= 100, "{} pages fetched by 200 (first at {first:?})", fetched.len());
    assert!(scheduler.lambda0() < 4.0, "λ_0 {}", scheduler.lambda0());
}

/// A bucket full for longer than any count of tokens: the unused tokens saturate, the sweep
/// completes one pass, and nothing overflows.
#[test]
fn an_endless_quiet_spell_saturates_the_unused_tokens() {
    let mut scheduler = Scheduler::freshness(Budget::new(1e6)).unwrap();
    scheduler.set_host(HostId(0), Politeness::default()).unwrap();
    scheduler.restore(PageId(0), HostId(0), 1.0, 0.1, 0.0, 0.0).unwrap();
    scheduler.next(0.0);
    assert!(matches!(scheduler.next(1e300), Decision::Fetch { .. } | Decision::WaitUntil(_)));
    assert!(scheduler.lambda0().is_finite() && scheduler.lambda0() > 0.0);
}
