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
