//! Behaviour the seed asks for: new pages first, worthless pages never, `explain` agreeing with
//! `next`, recrawls of a new host spread rather than bunched, and bad input refused.

use freshet_schedule::online::{
    Budget, Decision, HostId, OnlineError, Outcome, PageId, Politeness, Scheduler, Status,
};

use super::sim;

#[test]
fn a_new_page_worth_more_than_the_threshold_is_fetched_at_once() {
    let mut scheduler = Scheduler::freshness(Budget::new(10.0)).unwrap();
    scheduler.set_host(HostId(0), Politeness::default()).unwrap();
    scheduler.set_host(HostId(1), Politeness::default()).unwrap();
    for page in 0..20 {
        scheduler.add(PageId(page), HostId(0), 1.0, 0.5, 0.0).unwrap();
    }
    sim::run(&mut scheduler, 0.0, 50.0, 0.0, |_, _| Outcome::Fetched).unwrap();
    let threshold = scheduler.lambda0();
    scheduler.add(PageId(99), HostId(1), 3.0 * threshold, 1.0, 50.0).unwrap();
    let explanation = scheduler.explain(PageId(99), 50.0).unwrap();
    assert_eq!(explanation.status, Status::Ready, "{explanation:?}");
    assert_eq!(scheduler.next(50.0), Decision::Fetch { page: PageId(99), host: HostId(1) });
}

#[test]
fn a_page_worth_less_than_the_threshold_at_any_age_is_never_fetched() {
    let mut scheduler = Scheduler::freshness(Budget::new(5.0)).unwrap();
    scheduler.set_host(HostId(0), Politeness::default()).unwrap();
    for page in 0..20 {
        scheduler.add(PageId(page), HostId(0), 1.0, 0.1, 0.0).unwrap();
    }
    sim::run(&mut scheduler, 0.0, 200.0, 0.0, |_, _| Outcome::Fetched).unwrap();
    // V(∞) = w/λ = 0.1·λ_0 for the newcomer.
    let lambda0 = scheduler.lambda0();
    scheduler.add(PageId(50), HostId(0), 0.1 * lambda0, 1.0, 200.0).unwrap();
    assert_eq!(scheduler.explain(PageId(50), 200.0).unwrap().status, Status::NeverDue);
    let starts = sim::run(&mut scheduler, 200.0, 2_000.0, 0.0, |_, _| Outcome::Fetched).unwrap();
    assert!(starts.len() > 1_000);
    assert!(starts.iter().all(|start| start.page != PageId(50)));
}

/// Before every decision, every page is explained at the same time: a fetched page was always
/// `Ready`. The converse is not exact: `λ_0` falls continuously while the bucket refills, and a
/// host keyed at the exact `λ_0` of an earlier moment (the second stage of its key) surfaces
/// late by that drift, so `explain` may call a page `Ready` a little before `next` hands it
/// out. The test bounds how often that happens.
#[test]
fn explain_agrees_with_next() {
    let mut scheduler = Scheduler::freshness(Budget::new(4.0)).unwrap();
    for host in 0..4 {
        scheduler
            .set_host(HostId(host), Politeness { min_delay: 0.1 * f64::from(host), max_rate: 8.0 })
            .unwrap();
    }
    for page in 0..30_u32 {
        let weight = 1.0 + f64::from(page % 4);
        scheduler.add(PageId(page), HostId(page % 4), weight, 0.05 + 0.1 * f64::from(page % 7), 0.0).unwrap();
    }
    let mut now = 0.0;
    let mut fetches = 0;
    let (mut waits, mut waits_while_ready) = (0, 0);
    let mut in_flight: Option<(f64, PageId)> = None;
    for _ in 0..20_000 {
        if let Some((end, page)) = in_flight.filter(|&(end, _)| end <= now) {
            scheduler.fetched(page, Outcome::Fetched, end).unwrap();
            in_flight = None;
        }
        let statuses: Vec<Status> =
            (0..30).map(|page| scheduler.explain(PageId(page), now).unwrap().status).collect();
        let explained_lambda0 = scheduler.explain(PageId(0), now).unwrap().lambda0;
        let decision = scheduler.next(now);
        if matches!(decision, Decision::WaitUntil(_)) {
            // No token taken: `next` decided under the very `λ_0` that `explain` reported (it
            // is carried by small steps; `explain` must carry it the same way).
            assert_eq!(scheduler.lambda0().to_bits(), explained_lambda0.to_bits(), "λ_0 at {now}");
        }
        match decision {
            Decision::Fetch { page, .. } => {
                assert_eq!(statuses[page.0 as usize], Status::Ready, "fetched {page} at {now}");
                fetches += 1;
                if fetches % 3 == 0 && in_flight.is_none() {
                    in_flight = Some((now + 0.2, page));
                } else {
                    scheduler.fetched(page, Outcome::Fetched, now).unwrap();
                }
            }
            Decision::WaitUntil(time) => {
                waits += 1;
                if statuses.contains(&Status::Ready) {
                    waits_while_ready += 1;
                }
                now = in_flight.map_or(time, |(end, _)| time.min(end));
            }
            Decision::Idle => now = in_flight.map_or(now + 1.0, |(end, _)| end),
        }
    }
    eprintln!("{fetches} fetches, {waits} waits, {waits_while_ready} of them with a page explained as ready");
    assert!(fetches > 5_000, "{fetches} fetches");
    assert!(waits_while_ready * 10 <= waits, "{waits_while_ready} of {waits} waits had a page ready");
}

/// Seed 003's "new host comes online": 1,000 undifferentiated pages fetched within one time unit,
/// then the host caps its rate. A solver's periodic schedule would recrawl all of them together
/// one period later; the threshold scheduler starts recrawls earlier and spreads them at the cap.
#[test]
fn a_new_hosts_recrawls_are_spread_not_bunched() {
    let mut scheduler = Scheduler::freshness(Budget::new(100.0)).unwrap();
    let (new_host, other) = (HostId(0), HostId(1));
    scheduler.set_host(new_host, Politeness { min_delay: 0.001, max_rate: f64::INFINITY }).unwrap();
    scheduler.set_host(other, Politeness::default()).unwrap();
    for page in 0..500 {
        scheduler.add(PageId(1_000 + page), other, 1.0, 1.0, 0.0).unwrap();
    }
    for page in 0..1_000 {
        scheduler.add(PageId(page), new_host, 1.0, 0.1, 0.0).unwrap();
    }
    let first = sim::run(&mut scheduler, 0.0, 2.0, 0.0, |_, _| Outcome::Fetched).unwrap();
    let first_crawl_end =
        first.iter().filter(|start| start.host == new_host).map(|start| start.time).fold(0.0, f64::max);
    assert!(first_crawl_end < 2.0);
    let cap = 20.0;
    scheduler.set_host(new_host, Politeness::rate(cap)).unwrap();
    let starts = sim::run(&mut scheduler, 2.0, 400.0, 0.0, |_, _| Outcome::Fetched).unwrap();
    let times: Vec<f64> =
        starts.iter().filter(|start| start.host == new_host).map(|start| start.time).collect();
    // With the cap, all 1,000 pages share 20 fetches per time unit: a period of 50 at best.
    let solver_period = 1_000.0 / cap;
    let first_recrawl = times[0];
    let gaps: Vec<(f64, f64)> =
        times.windows(2).filter(|w| w[1] - w[0] > 0.5).map(|w| (w[0], w[1])).collect();
    eprintln!("long gaps: {gaps:?}");
    let window = 5.0;
    let mut most = 0;
    let mut fewest = usize::MAX;
    let mut t = first_recrawl;
    while t + window < 400.0 {
        let count = times.iter().filter(|&&time| time >= t && time < t + window).count();
        most = most.max(count);
        fewest = fewest.min(count);
        t += window;
    }
    eprintln!(
        "first recrawl at {first_recrawl:.2} (static period {solver_period}); per {window} time units: \
         {fewest}..={most} fetches (cap {}); λ_i {}",
        cap * window,
        scheduler.host_lambda(new_host).unwrap()
    );
    assert!(first_recrawl < solver_period, "recrawls start before the static period ends");
    assert!(most as f64 <= cap * window + 1.0, "bunched: {most} fetches in {window}");
    // At its cap in every window, also while the other host's pages (all due together, as
    // they were all fetched together) keep the budget short: a slot that opened a rounding
    // error after a token's time lost that token (97 and 94 fetches in some windows).
    assert!(fewest as f64 >= cap * window - 1.0, "the host idles: {fewest} fetches in {window}");
    assert!(scheduler.host_lambda(new_host).unwrap() > 0.0);
}

#[test]
fn bad_input_is_refused_with_the_offending_item() {
    let mut scheduler = Scheduler::freshness(Budget::new(1.0)).unwrap();
    assert!(matches!(Scheduler::freshness(Budget::new(f64::NAN)), Err(OnlineError::InvalidBudget { .. })));
    assert_eq!(scheduler.add(PageId(0), HostId(3), 1.0, 1.0, 0.0), Err(OnlineError::UnknownHost(HostId(3))));
    let bad = Politeness { min_delay: -1.0, max_rate: 1.0 };
    assert!(matches!(scheduler.set_host(HostId(3), bad), Err(OnlineError::InvalidPoliteness { .. })));
    scheduler.set_host(HostId(3), Politeness::default()).unwrap();
    assert!(matches!(
        scheduler.add(PageId(0), HostId(3), f64::NAN, 1.0, 0.0),
        Err(OnlineError::InvalidWeight { page: PageId(0), .. })
    ));
    assert!(matches!(
        scheduler.add(PageId(0), HostId(3), 1.0, -2.0, 0.0),
        Err(OnlineError::InvalidChangeRate { page: PageId(0), .. })
    ));
    scheduler.add(PageId(0), HostId(3), 1.0, 1.0, 0.0).unwrap();
    assert_eq!(
        scheduler.add(PageId(0), HostId(3), 1.0, 1.0, 0.0),
        Err(OnlineError::DuplicatePage(PageId(0)))
    );
    assert_eq!(scheduler.fetched(PageId(0), Outcome::Fetched, 0.0), Err(OnlineError::NotInFlight(PageId(0))));
    assert_eq!(scheduler.update(PageId(7), 1.0, 1.0), Err(OnlineError::UnknownPage(PageId(7))));
    let Decision::Fetch { page, .. } = scheduler.next(0.0) else { panic!("the only page is due") };
    let backoff = Outcome::BackOff { retry_after: f64::NAN };
    assert!(matches!(scheduler.fetched(page, backoff, 0.0), Err(OnlineError::InvalidBackOff { .. })));
    scheduler.remove(page).unwrap();
    scheduler.fetched(page, Outcome::Fetched, 1.0).unwrap();
    assert_eq!(scheduler.next(2.0), Decision::Idle);
    assert_eq!(scheduler.explain(page, 2.0), Err(OnlineError::UnknownPage(page)));
}

/// A restored page (fetched before the scheduler started, e.g. by an earlier run of the crawler)
/// competes with its age, not with `V(∞)`: it is due when `V(now − last_fetch)` reaches the
/// threshold, while a new page with the same parameters is due at once.
#[test]
fn a_restored_page_waits_for_its_value_while_a_new_one_is_due_at_once() {
    let budget = Budget { initial_lambda0: Some(1.0), ..Budget::new(10.0) };
    let mut scheduler = Scheduler::freshness(budget).unwrap();
    scheduler.set_host(HostId(0), Politeness::default()).unwrap();
    scheduler.set_host(HostId(1), Politeness::default()).unwrap();
    // w/λ = 10 ≫ λ_0 = 1: worth fetching, but a copy fetched at 0 is worth little at first.
    scheduler.restore(PageId(0), HostId(0), 1.0, 0.1, 0.0, 0.0).unwrap();
    scheduler.add(PageId(1), HostId(1), 1.0, 0.1, 0.0).unwrap();
    assert_eq!(scheduler.next(0.0), Decision::Fetch { page: PageId(1), host: HostId(1) });
    let restored = scheduler.explain(PageId(0), 0.0).unwrap();
    assert_eq!(restored.status, Status::NotYetEligible, "{restored:?}");
    assert!(restored.value < restored.lambda0 && restored.eligible_at > 0.0, "{restored:?}");
    assert!(matches!(scheduler.next(0.0), Decision::WaitUntil(time) if time > 0.0));
    assert!(matches!(
        scheduler.restore(PageId(2), HostId(0), 1.0, 0.1, f64::NAN, 0.0),
        Err(OnlineError::InvalidTime { .. })
    ));
    assert!(matches!(
        scheduler.restore(PageId(0), HostId(0), 1.0, 0.1, 0.0, 0.0),
        Err(OnlineError::DuplicatePage(_))
    ));
}

/// Every page's change rate re-estimated at once, 500× higher (a learner's first estimates after
/// a uniform pass): `λ_0`, solved for the old rates, is far above every page's new `V(∞)`.
/// `resolve_lambda0` finds the new equilibrium at once and the budget is used again (985 fetches
/// of 1,000 in the next 100 units; 992 while a re-solve also refilled half the bucket, see
/// `resolving_lambda0_mints_no_tokens`); left to the incremental sweep, every host is parked and
/// the driver sees `Idle` (0 fetches).
#[test]
fn resolving_lambda0_after_a_bulk_update_uses_the_budget_again() {
    let run_after_update = |resolve: bool| {
        let mut scheduler = Scheduler::freshness(Budget::new(10.0)).unwrap();
        scheduler.set_host(HostId(0), Politeness::default()).unwrap();
        for page in 0..1_000_u32 {
            let weight = 0.5 + f64::from(page) / 1_000.0;
            scheduler.restore(PageId(page), HostId(0), weight, 0.001, 0.0, 0.0).unwrap();
        }
        sim::run(&mut scheduler, 0.0, 200.0, 0.0, |_, _| Outcome::Fetched).unwrap();
        for page in 0..1_000_u32 {
            let weight = 0.5 + f64::from(page) / 1_000.0;
            scheduler.update(PageId(page), weight, 0.5).unwrap();
        }
        if resolve {
            scheduler.resolve_lambda0();
        }

        sim::run(&mut scheduler, 200.0, 300.0, 0.0, |_, _| Outcome::Fetched).unwrap().len()
    };
    let resolved = run_after_update(true);
    let left = run_after_update(false);
    println!("fetches in 100 units after the update: {resolved} resolved, {left} left to the sweep");
    assert!(resolved >= 980, "{resolved} fetches of a budget of 1,000");
    assert!(resolved > left, "{resolved} vs {left}");
}

/// Regression: `resolve_lambda0` restarted the controller with a half-full bucket at every call,
/// so a driver that re-solves often loses the bucket's feedback (the level is what steers `λ_0`
/// around the feed-forward): the simulator's learned-rate `threshold`, which re-solves every
/// `n/8` fetches, spent 2–3% over its budget, and here (pages in their steady state, last
/// fetches spread over the past 100 units, a re-solve every time unit) 763 fetches were started
/// in 100 units at a budget of 10. Keeping the level: 962, and never more than the budget plus
/// one burst.
#[test]
fn resolving_lambda0_mints_no_tokens() {
    let mut scheduler = Scheduler::freshness(Budget::new(10.0)).unwrap();
    scheduler.set_host(HostId(0), Politeness::default()).unwrap();
    for page in 0..1_000_u32 {
        let last_fetch = -f64::from(page) / 10.0;
        scheduler.restore(PageId(page), HostId(0), 1.0, 0.5, last_fetch, 0.0).unwrap();
    }
    let mut fetches = 0;
    for step in 0..100 {
        let start = f64::from(step);
        fetches += sim::run(&mut scheduler, start, start + 1.0, 0.0, |_, _| Outcome::Fetched).unwrap().len();
        scheduler.resolve_lambda0();
    }
    let most = 10.0 * 100.0 + Budget::DEFAULT_BURST;
    assert!(fetches as f64 <= most, "{fetches} fetches, at most {most} allowed");
    println!("{fetches} fetches in 100 units at a budget of 10");
    assert!(fetches >= 950, "{fetches} fetches: the budget is not used");
}

/// A page updated over and over while it waits (its weight moves with every link found to it)
/// leaves a stale entry behind each time; they are dropped once they outnumber the pages twice
/// over, so memory stays bounded however many updates come.
#[test]
fn many_updates_leave_memory_bounded() {
    let mut scheduler = Scheduler::freshness(Budget::new(10.0)).unwrap();
    scheduler.set_host(HostId(0), Politeness::default()).unwrap();
    for page in 0..1_000_u32 {
        scheduler.add(PageId(page), HostId(0), 1.0, 0.01 + f64::from(page % 10) * 0.1, 0.0).unwrap();
    }
    sim::run(&mut scheduler, 0.0, 200.0, 0.0, |_, _| Outcome::Fetched).unwrap();
    let settled = scheduler.allocated_bytes();
    for round in 0..300_u32 {
        for page in 0..1_000_u32 {
            // Some rates hide the page (`V(∞)` under `λ_0`), some queue it in the calendar.
            let weight = 1.0 + f64::from((page + round) % 7);
            scheduler.update(PageId(page), weight, 0.01 + f64::from((page + round) % 10) * 0.1).unwrap();
        }
    }
    let after = scheduler.allocated_bytes();
    assert!(after < settled + 200_000, "{settled} bytes before 300,000 updates, {after} after");
    let starts = sim::run(&mut scheduler, 200.0, 300.0, 0.0, |_, _| Outcome::Fetched).unwrap();
    assert!(starts.len() > 900, "{} fetches after the updates", starts.len());
}

/// Started far above every page's value (nothing is fetched, so no fetch advances the demand
/// sweep), the scheduler still brings `λ_0` down to where the pages are worth fetching: the
/// sweep goes on while the budget's bucket is full.
#[test]
fn a_threshold_above_every_page_comes_down_without_fetches() {
    let budget = Budget { initial_lambda0: Some(1e6), ..Budget::new(10.0) };
    let mut scheduler = Scheduler::freshness(budget).unwrap();
    scheduler.set_host(HostId(0), Politeness::default()).unwrap();
    for page in 0..200_u32 {
        scheduler.add(PageId(page), HostId(0), 1.0, 0.1 + f64::from(page % 5) * 0.1, 0.0).unwrap();
    }
    // A driver that polls at fixed steps when told nothing is due, as the crawler does.
    let mut fetches = 0;
    for tick in 0..20_000_u32 {
        let now = f64::from(tick) * 0.05;
        while let Decision::Fetch { page, .. } = scheduler.next(now) {
            scheduler.fetched(page, Outcome::Fetched, now).unwrap();
            fetches += 1;
        }
    }
    assert!(scheduler.lambda0() < 100.0, "λ_0 {}", scheduler.lambda0());
    assert!(fetches > 1_000, "{fetches} fetches");
}

/// A copy known to be stale (a sitemap's `lastmod` after the last fetch) is due at once, as a
/// page never fetched, with its weight and rate kept; a page in flight and an unknown page are
/// not marked.
#[test]
fn a_page_marked_stale_is_due_at_once() {
    let budget = Budget { initial_lambda0: Some(1.0), ..Budget::new(10.0) };
    let mut scheduler = Scheduler::freshness(budget).unwrap();
    scheduler.set_host(HostId(0), Politeness::default()).unwrap();
    scheduler.restore(PageId(0), HostId(0), 1.0, 0.1, 0.0, 0.0).unwrap();
    assert_eq!(scheduler.last_fetch(PageId(0)), Some(0.0));
    assert!(matches!(scheduler.next(0.5), Decision::WaitUntil(time) if time > 0.5));
    assert!(scheduler.mark_stale(PageId(0), 0.5).unwrap());
    assert_eq!(scheduler.last_fetch(PageId(0)), None);
    let explanation = scheduler.explain(PageId(0), 0.5).unwrap();
    assert!((explanation.value_at_infinity - 10.0).abs() < 1e-6, "w/λ kept: {explanation:?}");
    assert_eq!(scheduler.next(0.5), Decision::Fetch { page: PageId(0), host: HostId(0) });
    assert!(!scheduler.mark_stale(PageId(0), 0.6).unwrap(), "in flight: left alone");
    scheduler.fetched(PageId(0), Outcome::Fetched, 0.7).unwrap();
    assert_eq!(scheduler.last_fetch(PageId(0)), Some(0.5));
    assert_eq!(scheduler.len(), 1);
    assert!(matches!(scheduler.mark_stale(PageId(9), 1.0), Err(OnlineError::UnknownPage(_))));
    assert_eq!(scheduler.last_fetch(PageId(9)), None);
}

/// A page marked stale only to borrow its host's slot gets its copy's time back: it is not due
/// at once any more, and competes with its age again; a page in flight is left alone, and a
/// time that is not finite is refused.
#[test]
fn a_page_given_back_its_last_fetch_waits_for_its_turn_again() {
    let budget = Budget { initial_lambda0: Some(1.0), ..Budget::new(10.0) };
    let mut scheduler = Scheduler::freshness(budget).unwrap();
    scheduler.set_host(HostId(0), Politeness::default()).unwrap();
    scheduler.restore(PageId(0), HostId(0), 1.0, 0.1, 0.0, 0.0).unwrap();
    let Decision::WaitUntil(due) = scheduler.next(0.5) else { panic!("not due at 0.5") };
    assert!(scheduler.mark_stale(PageId(0), 0.5).unwrap());
    assert!(scheduler.set_last_fetch(PageId(0), 0.0, 0.5).unwrap());
    assert_eq!(scheduler.last_fetch(PageId(0)), Some(0.0));
    assert_eq!(scheduler.next(0.5), Decision::WaitUntil(due), "due when it was before");
    let explanation = scheduler.explain(PageId(0), 0.5).unwrap();
    assert!((explanation.value_at_infinity - 10.0).abs() < 1e-6, "w/λ kept: {explanation:?}");
    assert!(matches!(
        scheduler.set_last_fetch(PageId(0), f64::NAN, 0.6),
        Err(OnlineError::InvalidTime { .. })
    ));
    assert!(scheduler.mark_stale(PageId(0), 0.6).unwrap());
    assert_eq!(scheduler.next(0.6), Decision::Fetch { page: PageId(0), host: HostId(0) });
    assert!(!scheduler.set_last_fetch(PageId(0), 0.0, 0.6).unwrap(), "in flight: left alone");
    assert_eq!(scheduler.last_fetch(PageId(0)), None);
    assert!(matches!(scheduler.set_last_fetch(PageId(9), 0.0, 1.0), Err(OnlineError::UnknownPage(_))));
    assert!(scheduler.contains(PageId(0)) && !scheduler.contains(PageId(9)));
    scheduler.remove(PageId(0)).unwrap();
    assert!(!scheduler.contains(PageId(0)), "removed, though its fetch is still in flight");
}

/// Regression (found by the crawler's focused crawl, `freshet_crawl::focus`): pages never
/// fetched whose weights move while they wait (re-estimated as links to them are found), with
/// pages removed as their fetches end and new ones added, must all be fetched: `next` never
/// answers `Idle` while pages are present and none is in flight.
#[test]
fn new_pages_updated_while_they_wait_are_never_stranded() {
    let hosts = 3_u32;
    let mut scheduler = Scheduler::freshness(Budget::new(1_000.0)).unwrap();
    for host in 0..hosts {
        scheduler.set_host(HostId(host), Politeness::rate(500.0)).unwrap();
    }
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut draw = move || {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (state >> 11) as f64 / (1_u64 << 53) as f64
    };
    let total = 600_u32;
    let (mut added, mut fetched) = (0_u32, 0_u32);
    let mut waiting: Vec<u32> = Vec::new();
    let mut in_flight: Vec<(u32, f64)> = Vec::new();
    let mut now = 0.0;
    for _ in 0..2 * hosts {
        scheduler.add(PageId(added), HostId(added % hosts), 0.01 + 5.0 * draw(), 1e-5, now).unwrap();
        waiting.push(added);
        added += 1;
    }
    for _ in 0..200_000 {
        now += 0.001;
        let (done, still): (Vec<_>, Vec<_>) = in_flight.iter().partition(|&&(_, end)| end <= now);
        in_flight = still;
        for (page, _) in done {
            scheduler.remove(PageId(page)).unwrap();
            scheduler.fetched(PageId(page), Outcome::Fetched, now).unwrap();
            fetched += 1;
            // A fetch finds a new page of the same host and moves the estimates of others.
            if added < total {
                scheduler.add(PageId(added), HostId(page % hosts), 0.01 + 5.0 * draw(), 1e-5, now).unwrap();
                waiting.push(added);
                added += 1;
            }
            for &other in &waiting {
                if draw() < 0.5 {
                    scheduler.update(PageId(other), 0.01 + 5.0 * draw(), 1e-5).unwrap();
                }
            }
        }
        match scheduler.next(now) {
            Decision::Fetch { page, .. } => {
                waiting.retain(|&other| other != page.0);
                in_flight.push((page.0, now + 0.003));
            }
            Decision::WaitUntil(_) => {}
            Decision::Idle => assert!(
                waiting.is_empty() || !in_flight.is_empty(),
                "Idle at {now:.3} with {} pages waiting and none in flight ({fetched} fetched)",
                waiting.len()
            ),
        }
        if fetched == total {
            break;
        }
    }
    assert_eq!(fetched, total, "{} pages never fetched", total - fetched);
}
