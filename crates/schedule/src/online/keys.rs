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

/// Whether the page is worth a fetch at `now` under `lambda0` (within [`THRESHOLD_TOLERANCE`]),
/// or its due time has come (a page whose value has not moved since, in floating point).
pub(super) fn reaches<O: Objective>(objective: O, slot: &PageSlot, now: f64, lambda0: f64) -> bool {
    reaches_with(objective, slot, value_now(objective, slot, now), now, lambda0)
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
