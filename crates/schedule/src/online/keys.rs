//! The two formulas every decision rests on: a page's crawl value now, and when it reaches a
//! threshold (seed 003_aad34b8e7abe1f9a.txt, through `freshet_policy::value`).

use freshet_policy::{Objective, crawl_value, time_to_reach};

use super::page::PageSlot;

/// `V(τ)` at `now`: `V(now − last)`, or `V(∞) = C'(0⁺)` for a page never fetched.
pub(super) fn value_now<O: Objective>(objective: O, slot: &PageSlot, now: f64) -> f64 {
    let page = slot.page();
    if slot.was_fetched() {
        crawl_value(objective, page, now - slot.last)
    } else {
        objective.marginal_at_zero(page)
    }
}

/// The time at which the page's value reaches `threshold`: `last + τ*(θ)`; for a page never
/// fetched, its add time if `V(∞) ≥ θ` (due at once) and `∞` otherwise.
pub(super) fn due_time<O: Objective>(objective: O, slot: &PageSlot, threshold: f64) -> f64 {
    let page = slot.page();
    if slot.was_fetched() {
        slot.last + time_to_reach(objective, page, threshold)
    } else if objective.marginal_at_zero(page) >= threshold {
        slot.last
    } else {
        f64::INFINITY
    }
}

/// Values this far (relative) under `λ_0` count as reaching it. `λ_0` moves by about 0.16% with
/// every token taken (the bucket's proportional term over its default 64 tokens, `budget.rs`):
/// without the margin, a page found worth a fetch when its key came is sent back to the
/// calendar because of the fetch started just before it (3.4 offers withdrawn per fetch at
/// 10^7 pages in `benches/online.rs`). The proportional term itself moves `λ_0` by ±5%.
pub(super) const THRESHOLD_TOLERANCE: f64 = 0.01;

/// Values this far (relative) under `λ_0` keep an offer already made (`Scheduler::next` withdraws
/// one whose value fell further): the bucket's proportional term moves `λ_0` by up to ±5% as it
/// drains and fills (`budget.rs`), so while the budget is short (a wave of pages due at once,
/// after a first crawl) every token raised `λ_0` past the pages just offered at it, and each
/// went back to the calendar to surface again a little later: 2.05 offers withdrawn per fetch
/// at 10^7 pages in the window after the first crawl of `benches/online.rs` (half the pairs per
/// CPU second of the windows around it) once that first crawl no longer wound the correction
/// up.
pub(super) const OFFER_TOLERANCE: f64 = 0.05;

/// Whether an offer worth `value` now is still worth its fetch under `lambda0`, within
/// [`OFFER_TOLERANCE`].
pub(super) fn offer_holds(value: f64, lambda0: f64) -> bool {
    value >= lambda0 * (1.0 - OFFER_TOLERANCE)
}

/// A page fetched before that surfaces from the calendar goes to its host if its value reaches
/// `λ_0` within this fraction of its age (time since its last fetch) from now: a key computed
/// under a lower `λ_0` is early, and `λ_0` rises by about 0.16% with every token taken (up to
/// the proportional term's ±5%), so without it most such pages went back to the calendar, each
/// for a `G⁻¹` and a push: 0.35–0.79 pages keyed again per fetch in the steady state of
/// `benches/online.rs` at 10^7 pages (0.19–0.66 at 10^6); with it 0.005–0.07 at 10^6
/// (BENCHMARKS.md, "Pages early by a twentieth of their age").
///
/// A margin in time, not in value: near its cutoff (`V(∞)` close to `λ_0`) a page's value
/// flattens, so a margin of 5% in value let such pages go tens of percent of their interval
/// early; with learned rates, whose optimistic values put many pages near the cutoff, that
/// cost 4.5% of the freshness of the test `learned_rates_keep_most_of_what_notifications_give`
/// (`freshet-sim`, reads every 1: 0.443 against 0.465), where a margin in time changed nothing.
/// Fetching a page a twentieth of its interval early costs freshness of second order in that
/// twentieth (the optimum is flat): the bench's expected freshness stayed 0.9996 of the
/// solver's.
pub(super) const SURFACE_EARLINESS: f64 = 0.05;

/// Whether a page fetched before will be worth a fetch under `lambda0` (within
/// [`THRESHOLD_TOLERANCE`]) once its age has grown by [`SURFACE_EARLINESS`]: one `V`, where
/// keying it again costs a `G⁻¹` and a calendar push. Never for a page not fetched (its value
/// does not grow).
pub(super) fn reaches_soon<O: Objective>(objective: O, slot: &PageSlot, now: f64, lambda0: f64) -> bool {
    slot.was_fetched()
        && crawl_value(objective, slot.page(), (now - slot.last) * (1.0 + SURFACE_EARLINESS))
            >= lambda0 * (1.0 - THRESHOLD_TOLERANCE)
}

/// Whether a page that surfaces from the calendar at `now` goes to its host under `lambda0`:
/// it is worth a fetch (within [`THRESHOLD_TOLERANCE`]), its due time has come, or it will be
/// worth one soon ([`reaches_soon`]). `Scheduler::surface` decides so; `explain` asks it.
pub(super) fn reaches<O: Objective>(objective: O, slot: &PageSlot, now: f64, lambda0: f64) -> bool {
    reaches_with(objective, slot, value_now(objective, slot, now), now, lambda0)
        || reaches_soon(objective, slot, now, lambda0)
}

/// [`reaches`] for a page whose value now, `value`, the caller has computed already.
pub(super) fn reaches_with<O: Objective>(
    objective: O,
    slot: &PageSlot,
    value: f64,
    now: f64,
    lambda0: f64,
) -> bool {
    value >= lambda0 * (1.0 - THRESHOLD_TOLERANCE) || due_time(objective, slot, lambda0) <= now
}

#[cfg(test)]
mod tests {
    use freshet_policy::objective::Freshness;

    use super::*;

    /// A page fetched at 0 (weight 1, change rate 0.5).
    fn fetched_at_zero() -> PageSlot {
        let mut slot = PageSlot::new(1.0, 0.5, 0.0, 0, 0);
        slot.mark_fetched(0.0);
        slot
    }

    /// The `λ_0` under which the page reaches the threshold (within the tolerance) at `age`.
    fn reached_at(slot: &PageSlot, age: f64) -> f64 {
        crawl_value(Freshness, slot.page(), age) / (1.0 - THRESHOLD_TOLERANCE)
    }

    /// At age 3, a page due by age `3·(1 + e)` reaches `λ_0` soon for `e` up to
    /// `SURFACE_EARLINESS` and not beyond; its value now is under `λ_0` in every case.
    #[test]
    fn a_page_reaches_soon_within_a_twentieth_of_its_age() {
        let slot = fetched_at_zero();
        for (early_by, soon) in [(0.0, true), (0.02, true), (0.049, true), (0.051, false), (0.3, false)] {
            let lambda0 = reached_at(&slot, 3.0 * (1.0 + early_by));
            assert_eq!(reaches_soon(Freshness, &slot, 3.0, lambda0), soon, "early by {early_by}");
            assert_eq!(reaches(Freshness, &slot, 3.0, lambda0), soon, "early by {early_by}");
            if early_by > 0.0 {
                assert!(!reaches_with(Freshness, &slot, value_now(Freshness, &slot, 3.0), 3.0, lambda0));
            }
        }
    }

    /// A page never fetched is worth `V(∞)` at any time: it never reaches soon.
    #[test]
    fn a_page_never_fetched_never_reaches_soon() {
        let slot = PageSlot::new(1.0, 0.5, 0.0, 0, 0);
        assert!(!reaches_soon(Freshness, &slot, 100.0, 1.0));
        assert!(reaches_soon(Freshness, &fetched_at_zero(), 100.0, 1.0));
    }
}
