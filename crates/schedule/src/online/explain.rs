//! Why a page is (not) being fetched: [`Scheduler::explain`], seed 003's debuggability in one call.

use freshet_policy::Objective;

use super::keys::{due_time, value_now};
use super::{HostId, OnlineError, OnlineResult, PageId, Scheduler};

/// Where a page stands, from its own curve outwards: first its value against `λ_0`, then its
/// host (slot, other pages), then the global budget.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Status {
    /// A fetch of the page is under way.
    InFlight,
    /// `V(∞) < λ_0`: the page is not worth a fetch at any age under the current threshold.
    NeverDue,
    /// `V(τ) < λ_0` yet; it will reach `λ_0` at `eligible_at`.
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
    /// the thresholds are those `next(now)` would use. `O(pages of its host)`.
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
            controller.lambda0()
        } else {
            self.lambda0
        };
        let threshold = lambda0 + host.lambda;
        let value_at_infinity = self.objective.marginal_at_zero(slot.page());
        let eligible_at = due_time(self.objective, slot, lambda0);
        let status = if slot.in_flight() {
            Status::InFlight
        } else if value_at_infinity < lambda0 {
            Status::NeverDue
        } else if eligible_at > now {
            Status::NotYetEligible
        } else if u32::from(host.in_flight) >= self.host_slots {
            Status::HostBusy { until: None }
        } else if host.free_at > now {
            Status::HostBusy { until: Some(host.free_at) }
        } else if self.next_on_host(slot.host, threshold) != Some(page.0) {
            Status::BehindOtherPages
        } else if !controller.has_token() {
            Status::WaitingForBudget { until: controller.token_time(now) }
        } else {
            Status::Ready
        };
        Ok(Explanation {
            page,
            host: HostId(slot.host),
            value: value_now(self.objective, slot, now),
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

    /// The page `host` would serve now: the head of its queue found as `next` finds it (on a
    /// copy: re-keyed under `threshold` if due for it, stale heads refreshed).
    fn next_on_host(&self, host_index: u32, threshold: f64) -> Option<u32> {
        let mut host = self.hosts.get(host_index as usize)?.clone();
        host.refresh_keys(self.objective, &self.pages, threshold);
        host.fresh_head(self.objective, &self.pages, threshold).map(|fresh| fresh.head.page)
    }
}
