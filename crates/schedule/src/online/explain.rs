//! Why a page is (not) being fetched: [`Scheduler::explain`], seed 003's debuggability in one call.

use freshet_policy::Objective;

use super::dispatch::goes_before;
use super::host::host_key;
use super::keys::{THRESHOLD_TOLERANCE, due_time, reaches, value_now};
use super::page::PageEntry;
use super::scheduler::REKEY_TOLERANCE;
use super::{HostId, OnlineError, OnlineResult, PageId, Scheduler};

/// Where a page stands, from its own curve outwards: first its value against `λ_0`, then its
/// host (slot, other pages), then the global budget.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Status {
    /// A fetch of the page is under way.
    InFlight,
    /// `V(∞) < λ_0` (by more than the 1% within which a value counts as reaching `λ_0`): the
    /// page is not worth a fetch at any age under the current threshold.
    NeverDue,
    /// Not yet taken out of the calendar: `V(τ) < λ_0` yet, and it will reach `λ_0` at
    /// `eligible_at`; or, if `λ_0` fell since its calendar key was computed, `V(τ)` may have
    /// reached `λ_0` already and the page waits for that key, late by the drift.
    NotYetEligible,
    /// Eligible, but its host's slot is taken (`until: None`, a fetch in flight) or closed by
    /// politeness or a back-off until the given time.
    HostBusy {
        /// When the slot opens, if known.
        until: Option<f64>,
    },
    /// Eligible and its host free, but another page of the host reaches the host's threshold
    /// earlier and goes first.
    BehindOtherPages,
    /// Next on a free host, waiting for a budget token.
    WaitingForBudget {
        /// When the next token arrives.
        until: f64,
    },
    /// Next on a free host with a token: `next` starts it now or, if other hosts were ready
    /// earlier, after them.
    Ready,
}

/// The numbers behind a page's schedule at a given time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Explanation {
    /// The page.
    pub page: PageId,
    /// Its host.
    pub host: HostId,
    /// `V(τ)` now (`V(∞)` if never fetched).
    pub value: f64,
    /// `V(∞) = C'(0⁺)`: the most it can ever be worth (`w/λ` for `freshness`).
    pub value_at_infinity: f64,
    /// The global threshold `λ_0` now.
    pub lambda0: f64,
    /// Its host's `λ_i`.
    pub host_lambda: f64,
    /// `λ_i + λ_0`.
    pub threshold: f64,
    /// Start of its last fetch, `None` if never fetched.
    pub last_fetch: Option<f64>,
    /// When `V` reaches `λ_i + λ_0`: `last + τ*(λ_i + λ_0)` (`∞`: never).
    pub due_at: f64,
    /// When `V` reaches `λ_0`, from which time an idle host takes it: `last + τ*(λ_0)`.
    pub eligible_at: f64,
    /// Why it is (not) fetched now.
    pub status: Status,
}

impl<O: Objective> Scheduler<O> {
    /// Explains `page` at `now` (not earlier than the latest time seen) without changing anything:
    /// the thresholds are those `next(now)` would use, and so is the host's choice among its
    /// eligible pages: `O(entries due by now + hidden pages + the host's backlog)`, `O(pages)`
    /// right after a fall of `λ_0` that rebuilds the calendar at the next `next`.
    ///
    /// # Errors
    /// [`OnlineError::UnknownPage`].
    pub fn explain(&self, page: PageId, now: f64) -> OnlineResult<Explanation> {
        let slot = self.pages.get(page.0 as usize).filter(|slot| slot.is_present());
        let slot = slot.ok_or(OnlineError::UnknownPage(page))?;
        let host = self.host(HostId(slot.host))?;
        let now = if self.clock.is_finite() { now.max(self.clock) } else { now };
        let mut controller = self.controller;
        let lambda0 = if self.started {
            controller.advance(now - self.clock);
            self.lambda0_at(controller.log_lambda0()).0
        } else {
            self.lambda0
        };
        let threshold = lambda0 + host.lambda;
        let value_at_infinity = self.objective.marginal_at_zero(slot.page());
        let eligible_at = due_time(self.objective, slot, lambda0);
        let value = value_now(self.objective, slot, now);
        let eligible = self.eligible_pages(slot.host, now, lambda0);
        let is_eligible = eligible.iter().any(|entry| entry.page == page.0);
        let choice =
            eligible.into_iter().reduce(|best, entry| if goes_before(&entry, &best) { entry } else { best });
        let status = if slot.in_flight() {
            Status::InFlight
        } else if value_at_infinity < lambda0 * (1.0 - THRESHOLD_TOLERANCE) {
            Status::NeverDue
        } else if !is_eligible {
            Status::NotYetEligible
        } else if u32::from(host.in_flight) >= self.host_slots {
            Status::HostBusy { until: None }
        } else if host.free_at > now {
            Status::HostBusy { until: Some(host.free_at) }
        } else if choice.is_none_or(|entry| entry.page != page.0) {
            Status::BehindOtherPages
        } else if !controller.has_token() {
            Status::WaitingForBudget { until: controller.token_time(now) }
        } else {
            Status::Ready
        };
        Ok(Explanation {
            page,
            host: HostId(slot.host),
            value,
            value_at_infinity,
            lambda0,
            host_lambda: host.lambda,
            threshold,
            last_fetch: slot.was_fetched().then_some(slot.last),
            due_at: due_time(self.objective, slot, threshold),
            eligible_at,
            status,
        })
    }

    /// The pages of `host` that `next(now)` would find eligible, each with the key it would
    /// give it in the host's order: its offer and backlog (keys re-computed if the host's
    /// threshold drifted), the pages whose calendar key is at or before `now`, and the pages
    /// `next` keys again first (before the start, at a rebuild, hidden pages `lambda0`
    /// reveals), each if its value has reached `lambda0`. `O(pages)`.
    fn eligible_pages(&self, host_index: u32, now: f64, lambda0: f64) -> Vec<PageEntry> {
        let Some(host) = self.hosts.get(host_index as usize) else { return Vec::new() };
        let threshold = host.threshold(lambda0);
        let rebuilt = !self.started || self.rebuild_due(lambda0);
        let has_eligible = !rebuilt && (host.offer.is_some() || !host.backlog_is_empty());
        let drifted = has_eligible
            && (threshold - host.keyed_threshold).abs() > REKEY_TOLERANCE * host.keyed_threshold.abs();
        let key_threshold = if drifted || !has_eligible { threshold } else { host.keyed_threshold };
        let of_host = |entry: &PageEntry| {
            self.pages
                .get(entry.page as usize)
                .is_some_and(|slot| slot.host == host_index && slot.is_live(entry))
        };
        // Where each page of the host waits, if `next` would look at it now.
        let mut candidates: Vec<(PageEntry, bool)> = Vec::new();
        if rebuilt {
            for (page, slot) in self.pages.iter().enumerate() {
                if slot.host == host_index && slot.is_present() && !slot.in_flight() {
                    let entry = PageEntry { key: f64::NAN, page: page as u32, generation: slot.generation() };
                    candidates.push((entry, false));
                }
            }
        } else {
            candidates.extend(
                host.offer.into_iter().chain(host.backlog()).filter(of_host).map(|entry| (entry, true)),
            );
            candidates.extend(
                self.calendar.entries_until(now).filter(|entry| of_host(entry)).map(|&entry| (entry, false)),
            );
            candidates.extend(self.hidden.iter().filter(|hidden| hidden.level > lambda0).filter_map(
                |hidden| {
                    let entry = PageEntry { key: f64::NAN, page: hidden.page, generation: hidden.generation };
                    of_host(&entry).then_some((entry, false))
                },
            ));
        }
        candidates
            .into_iter()
            .filter_map(|(entry, held)| {
                let slot = self.pages.get(entry.page as usize)?;
                let worth_it = reaches(self.objective, slot, now, lambda0);
                let key = if held && !drifted && !entry.key.is_nan() {
                    entry.key
                } else {
                    host_key(self.objective, slot, key_threshold)
                };
                worth_it.then_some(PageEntry { key, ..entry })
            })
            .collect()
    }
}
