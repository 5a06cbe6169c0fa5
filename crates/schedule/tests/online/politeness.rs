//! Politeness is never violated: property test over random hosts, delays, durations, outcomes.

use freshet_schedule::online::{Budget, Decision, HostId, Outcome, PageId, Politeness, Scheduler};
use proptest::prelude::*;

/// A host's configuration: (min_delay, max_rate).
fn host_strategy() -> impl Strategy<Value = (f64, f64)> {
    (0.0..2.0_f64, prop_oneof![Just(f64::INFINITY), 0.2..5.0_f64])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// One fetch in flight per host (the default), or up to `slots` with `with_host_slots`
    /// (politeness explicitly off): never more, and starts keep the host's gap and back-offs.
    #[test]
    fn no_host_is_fetched_faster_than_its_gap_or_more_than_its_slots_at_once(
        hosts in prop::collection::vec(host_strategy(), 1..6),
        pages in prop::collection::vec((0..6_u32, 0.1..10.0_f64, 0.01..3.0_f64), 1..40),
        durations in prop::collection::vec(0.0..1.5_f64, 64),
        outcomes in prop::collection::vec(0..4_u8, 64),
        budget in 0.5..50.0_f64,
        slots in prop_oneof![Just(1_u32), 2..5_u32],
    ) {
        check(&hosts, &pages, &durations, &outcomes, budget, slots)?;
    }
}

/// Runs a scheduler with `slots` per host against simulated fetches and checks every start.
fn check(
    hosts: &[(f64, f64)],
    pages: &[(u32, f64, f64)],
    durations: &[f64],
    outcomes: &[u8],
    budget: f64,
    slots: u32,
) -> Result<(), TestCaseError> {
    let mut scheduler = Scheduler::freshness(Budget::new(budget)).unwrap().with_host_slots(slots);
    for (index, &(min_delay, max_rate)) in hosts.iter().enumerate() {
        scheduler.set_host(HostId(index as u32), Politeness { min_delay, max_rate }).unwrap();
    }
    for (index, &(host, weight, change_rate)) in pages.iter().enumerate() {
        let host = HostId(host % hosts.len() as u32);
        scheduler.add(PageId(index as u32), host, weight, change_rate, 0.0).unwrap();
    }
    // Per host: last start, fetches in flight, and the back-off end.
    let mut last_start = vec![f64::NEG_INFINITY; hosts.len()];
    let mut busy = vec![0_u32; hosts.len()];
    let mut closed_until = vec![f64::NEG_INFINITY; hosts.len()];
    let mut in_flight: Vec<(f64, PageId, usize, Outcome)> = Vec::new();
    let mut now = 0.0;
    for step in 0..3_000 {
        in_flight.sort_by(|a, b| b.0.total_cmp(&a.0));
        while in_flight.last().is_some_and(|fetch| fetch.0 <= now) {
            let (end, page, host, outcome) = in_flight.pop().unwrap();
            busy[host] -= 1;
            if let Outcome::BackOff { retry_after } = outcome {
                closed_until[host] = end + retry_after;
            }
            scheduler.fetched(page, outcome, end).unwrap();
        }
        let next_end = in_flight.last().map_or(f64::INFINITY, |fetch| fetch.0);
        match scheduler.next(now) {
            Decision::Fetch { page, host } => {
                let h = host.0 as usize;
                let (min_delay, max_rate) = hosts[h];
                let gap = min_delay.max(1.0 / max_rate);
                prop_assert!(busy[h] < slots, "host {h}: more than {slots} fetches in flight at {now}");
                prop_assert!(
                    now - last_start[h] >= gap * (1.0 - 1e-12),
                    "host {h}: starts {} and {now}, gap {gap}",
                    last_start[h]
                );
                prop_assert!(now >= closed_until[h], "host {h}: started during a back-off");
                last_start[h] = now;
                let duration = durations[step % durations.len()];
                let outcome = match outcomes[step % outcomes.len()] {
                    0 => Outcome::Failed,
                    1 => Outcome::BackOff { retry_after: 2.0 * duration },
                    _ => Outcome::Fetched,
                };
                busy[h] += 1;
                in_flight.push((now + duration, page, h, outcome));
            }
            Decision::WaitUntil(time) => now = time.min(next_end),
            Decision::Idle => now = if next_end.is_finite() { next_end } else { break },
        }
    }
    Ok(())
}

/// A host whose gap grows (`set_host`) while one of its pages is already offered for the next
/// token does not start it before the new gap has passed.
#[test]
fn a_longer_gap_holds_back_a_page_already_offered() {
    let mut scheduler =
        Scheduler::freshness(Budget { initial_lambda0: Some(0.1), ..Budget::new(100.0) }).unwrap();
    scheduler.set_host(HostId(0), Politeness::default()).unwrap();
    for page in 0..3 {
        scheduler.add(PageId(page), HostId(0), 1.0, 0.1, 0.0).unwrap();
    }
    let Decision::Fetch { page, .. } = scheduler.next(0.0) else { panic!("a new page is due at once") };
    scheduler.fetched(page, Outcome::Fetched, 0.0).unwrap();
    // The host's slot is free again and its next page is offered; now its gap becomes 10.
    scheduler.set_host(HostId(0), Politeness { min_delay: 10.0, max_rate: f64::INFINITY }).unwrap();
    let mut now = 0.0;
    loop {
        match scheduler.next(now) {
            Decision::Fetch { .. } => break,
            Decision::WaitUntil(time) => now = time,
            Decision::Idle => panic!("pages are due"),
        }
    }
    assert!(now >= 10.0, "the next start came at {now}, inside the new gap of 10 after 0");
}
