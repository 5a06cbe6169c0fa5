//! The [`Scheduler`]: its state, and the verbs that change what it knows (pages, hosts,
//! threshold). The verbs that decide (`next`, `fetched`) are in `dispatch.rs`.

use std::collections::BinaryHeap;

use freshet_policy::objective::Freshness;
use freshet_policy::{Objective, Page, PolicyError};

use super::budget::BudgetController;
use super::calendar::Calendar;
use super::demand::{CappedHosts, DemandSweep};
use super::heap::Heap;
use super::host::{HiddenPage, HostState, ReadyEntry, TimerEntry};
use super::keys::due_time;
use super::page::{PageEntry, PageSlot};
use super::{Budget, HostId, OnlineError, OnlineResult, PageId, Politeness};

/// When `λ_0` falls below this fraction of the largest `λ_0` any calendar key was computed
/// with, keys may be late by more than a small drift: the calendar is rebuilt (see
/// `Scheduler::rebuild_due`). Below the full swing of the bucket's proportional term
/// (`e^(−0.1)` = 0.905 from a full bucket to an empty one, `budget.rs`), which would otherwise
/// rebuild the calendar over and over in a steady state (47 rebuilds of 10^6 pages in 10^7
/// fetches at 0.9, `benches/online.rs`).
pub(super) const LATE_KEY_MARGIN: f64 = 0.85;

/// A host's backlog is re-keyed when its threshold `λ_0 + λ_i` has moved by more than this
/// fraction since its keys were computed.
pub(super) const REKEY_TOLERANCE: f64 = 0.05;

/// Stale queue entries tolerated beyond twice the pages before they are dropped.
const STALE_SLACK: usize = 1_024;

/// Calendar buckets are this many token intervals `1/k_0` wide: a few entries per bucket.
const BUCKET_TOKENS: f64 = 4.0;

/// Counters for tests, benchmarks and dashboards.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Fetches started ([`Decision::Fetch`](super::Decision::Fetch) answers).
    pub fetches: u64,
    /// Rebuilds of the calendar (every page keyed again, after `λ_0` fell below the margin
    /// of its keys).
    pub global_rebuilds: u64,
    /// Passes over one host's backlog to key it again (its threshold drifted, and the backlog
    /// may hold a page fetched before: the others' keys do not depend on it).
    pub host_rekeys: u64,
    /// Pages that surfaced from the calendar not yet worth a fetch (`λ_0` rose since their key
    /// was computed) and were keyed again.
    pub requeued: u64,
    /// Offers withdrawn when picked: `λ_0` had risen above their value since they were made.
    pub withdrawn: u64,
}

/// The online threshold scheduler of seed 003 (see the [module docs](super)): sans-IO, generic
/// over the refresh [`Objective`] (monomorphised), `freshness` by default.
#[derive(Clone, Debug)]
pub struct Scheduler<O: Objective = Freshness> {
    pub(super) objective: O,
    pub(super) pages: Vec<PageSlot>,
    pub(super) hosts: Vec<HostState>,
    /// Pages not yet worth a fetch, by the time their value reaches `λ_0`.
    pub(super) calendar: Calendar,
    /// Pages worth less than `λ_0` at any age (`V(∞) < λ_0`), highest `V(∞)` first.
    pub(super) hidden: BinaryHeap<HiddenPage>,
    /// The offers of hosts free to start (each host's best eligible page), by value; may hold
    /// stale entries (live while the host's `offer` is that page). A 4-ary heap (`heap.rs`).
    pub(super) ready: Heap<ReadyEntry, 4>,
    /// Hosts with eligible pages whose slot opens later, by that time; may hold stale entries.
    pub(super) timers: BinaryHeap<TimerEntry>,
    /// Offers taken from `ready` since its values were last refreshed.
    pub(super) ready_taken: usize,
    /// Whether `ready` may hold an offer of a page fetched before: only such an offer's value
    /// changes with time (a page never fetched is worth its `V(∞)` at any time).
    pub(super) ready_has_fetched: bool,
    pub(super) budget: Budget,
    pub(super) controller: BudgetController,
    /// The sweep that evaluates the pages' steady-state demand for the feed-forward `λ_ff`.
    pub(super) sweep: DemandSweep,
    /// Whether `λ_0` has been initialised (at the first `next`, or by `set_lambda0`).
    pub(super) started: bool,
    pub(super) lambda0: f64,
    /// The `ln λ_0` that `lambda0` was last refreshed from (`NaN`: refresh at the next call).
    /// A driver calls `next`, then `fetched` at the same time, and the controller has not
    /// moved in between: `refresh_lambda0` then has nothing to do (an exponential and the
    /// checks it guards were 15% of a pair's instructions).
    pub(super) lambda0_log: f64,
    /// Refreshes of `λ_0` carried over by a small step since the last full `exp`
    /// (`refresh_lambda0`).
    pub(super) lambda0_steps: u32,
    /// The latest time seen; time never runs backwards inside the scheduler.
    pub(super) clock: f64,
    /// The largest `λ_0` any calendar key was computed with since the last rebuild: if `λ_0`
    /// falls below `LATE_KEY_MARGIN` times it, the calendar is rebuilt.
    pub(super) keyed_lambda0: f64,
    pub(super) page_count: usize,
    pub(super) stats: Stats,
    /// `stats.fetches` at the last rebuild of the calendar.
    pub(super) fetches_at_rebuild: u64,
    /// At most this many fetches in flight per host (see [`Scheduler::with_host_slots`]).
    pub(super) host_slots: u32,
    /// The hosts whose politeness caps their fetch rate (`gap > 0`), for the demand sweep.
    pub(super) capped_hosts: CappedHosts,
}

impl Scheduler<Freshness> {
    /// A scheduler for the `freshness` objective with the given budget.
    ///
    /// # Errors
    /// [`OnlineError::InvalidBudget`] or [`OnlineError::InvalidThreshold`].
    pub fn freshness(budget: Budget) -> OnlineResult<Self> {
        Self::new(Freshness, budget)
    }
}

impl<O: Objective> Scheduler<O> {
    /// An empty scheduler for `objective` under `budget`.
    ///
    /// # Errors
    /// [`OnlineError::InvalidBudget`] or [`OnlineError::InvalidThreshold`].
    pub fn new(objective: O, budget: Budget) -> OnlineResult<Self> {
        budget.validate()?;
        let initial = budget.initial_lambda0.unwrap_or(1.0);
        Ok(Self {
            objective,
            pages: Vec::new(),
            hosts: Vec::new(),
            calendar: Calendar::new(BUCKET_TOKENS / budget.rate, 0.0),
            hidden: BinaryHeap::new(),
            ready: Heap::default(),
            timers: BinaryHeap::new(),
            ready_taken: 0,
            ready_has_fetched: false,
            budget,
            controller: BudgetController::new(budget.rate, budget.burst, initial),
            sweep: DemandSweep::default(),
            started: false,
            lambda0: 0.0,
            lambda0_log: f64::NAN,
            lambda0_steps: 0,
            clock: f64::NEG_INFINITY,
            keyed_lambda0: 0.0,
            page_count: 0,
            stats: Stats::default(),
            fetches_at_rebuild: 0,
            host_slots: 1,
            capped_hosts: CappedHosts::default(),
        })
    }

    /// Lets each host have up to `slots` fetches in flight at once (at least 1; default 1, the
    /// polite setting). Starts on one host stay at least its gap apart (`min_delay`,
    /// `1/max_rate`) whatever the slots; with more than one, a host's capacity is no longer
    /// `1/gap` bounded by its fetch durations. Meant for crawls whose politeness is explicitly
    /// off (benchmarks against one's own server), never a default. A page is recorded as fetched
    /// at its host's latest start, which with several slots may be a later fetch's start.
    /// At most `u16::MAX` (more are taken as that many: a host record counts its fetches in
    /// flight in 16 bits).
    #[must_use]
    pub fn with_host_slots(mut self, slots: u32) -> Self {
        self.host_slots = slots.clamp(1, u32::from(u16::MAX));
        self
    }

    /// Declares `host` or changes its politeness. A fetch in flight keeps its slot; the next start
    /// respects the new gap from the last one.
    ///
    /// # Errors
    /// [`OnlineError::InvalidPoliteness`].
    pub fn set_host(&mut self, host: HostId, politeness: Politeness) -> OnlineResult<()> {
        politeness.validate(host)?;
        let index = host.0 as usize;
        if self.hosts.len() <= index {
            self.hosts.resize_with(index + 1, HostState::default);
        }
        let state = &mut self.hosts[index];
        if state.present {
            state.set_politeness(politeness);
        } else {
            *state = HostState::new(politeness);
        }
        self.capped_hosts.set(index, politeness.gap() > 0.0);
        if self.started {
            self.wake_host(host.0);
        }
        Ok(())
    }

    /// Adds a page never fetched: it competes at once with `V(∞) = C'(0⁺)` (`w/λ` for
    /// `freshness`), so it is due at `now` if that is at least its host's threshold.
    ///
    /// # Errors
    /// [`OnlineError::UnknownHost`], [`OnlineError::DuplicatePage`] (also while a removed page's
    /// fetch under the same id is in flight), [`OnlineError::InvalidWeight`],
    /// [`OnlineError::InvalidChangeRate`].
    pub fn add(
        &mut self,
        page: PageId,
        host: HostId,
        weight: f64,
        change_rate: f64,
        now: f64,
    ) -> OnlineResult<()> {
        self.insert(page, host, weight, change_rate, now, None)
    }

    /// Adds a page whose local copy was fetched at `last_fetch` (a crawler resuming from its
    /// store; a simulation that starts with every copy fresh): it competes with
    /// `V(now − last_fetch)`, not `V(∞)`. `last_fetch` may lie in the future of `now` (its value
    /// is then 0 until it passes).
    ///
    /// # Errors
    /// As [`add`](Self::add), and [`OnlineError::InvalidTime`] if `last_fetch` is not finite.
    pub fn restore(
        &mut self,
        page: PageId,
        host: HostId,
        weight: f64,
        change_rate: f64,
        last_fetch: f64,
        now: f64,
    ) -> OnlineResult<()> {
        if !last_fetch.is_finite() {
            return Err(OnlineError::InvalidTime { page, time: last_fetch });
        }
        self.insert(page, host, weight, change_rate, now, Some(last_fetch))
    }

    fn insert(
        &mut self,
        page: PageId,
        host: HostId,
        weight: f64,
        change_rate: f64,
        now: f64,
        last_fetch: Option<f64>,
    ) -> OnlineResult<()> {
        let (weight, change_rate) = self.checked_parameters(page, weight, change_rate)?;
        if !self.hosts.get(host.0 as usize).is_some_and(|state| state.present) {
            return Err(OnlineError::UnknownHost(host));
        }
        let index = page.0 as usize;
        if self.pages.len() <= index {
            self.pages.resize(index + 1, PageSlot::default());
        }
        let old = self.pages[index];
        if old.is_present() || old.in_flight() {
            return Err(OnlineError::DuplicatePage(page));
        }
        self.advance(now);
        let generation = old.generation().wrapping_add(1);
        let mut slot = PageSlot::new(weight, change_rate, self.added_at(), host.0, generation);
        if let Some(last_fetch) = last_fetch {
            slot.mark_fetched(last_fetch);
        }
        self.pages[index] = slot;
        self.hosts[host.0 as usize].live_pages += 1;
        self.page_count += 1;
        self.enqueue(page.0);
        Ok(())
    }

    /// Changes a page's weight and change rate; its next due time follows at once.
    ///
    /// # Errors
    /// [`OnlineError::UnknownPage`], [`OnlineError::InvalidWeight`],
    /// [`OnlineError::InvalidChangeRate`].
    pub fn update(&mut self, page: PageId, weight: f64, change_rate: f64) -> OnlineResult<()> {
        let (weight, change_rate) = self.checked_parameters(page, weight, change_rate)?;
        let slot = self.present_page_mut(page)?;
        slot.weight = weight;
        slot.change_rate = change_rate;
        if !slot.in_flight() {
            let host = slot.host;
            self.enqueue(page.0);
            // An offer of the page is stale now (its generation moved): the host offers again,
            // as after `remove`, or its slot would wait on an offer no ready entry holds.
            if let Some(state) = self.hosts.get_mut(host as usize)
                && state.offer.is_some_and(|offer| offer.page == page.0)
            {
                state.offer = None;
                self.wake_host(host);
            }
        }
        Ok(())
    }

    /// Whether `page` is in the schedule (added and not removed; in flight or not).
    #[must_use]
    pub fn contains(&self, page: PageId) -> bool {
        self.pages.get(page.0 as usize).is_some_and(|slot| slot.is_present())
    }

    /// The start of `page`'s last fetch; `None` if it was never fetched (or is unknown).
    #[must_use]
    pub fn last_fetch(&self, page: PageId) -> Option<f64> {
        let slot = self.pages.get(page.0 as usize).filter(|slot| slot.is_present())?;
        slot.was_fetched().then_some(slot.last)
    }

    /// The local copy of `page` is known to be stale (a sitemap's `lastmod`, a ping said it
    /// changed after the last fetch): its value becomes `V(∞)`, as a page never fetched, so it
    /// is due at `now` if that reaches its host's threshold. Its weight and change rate are
    /// kept. A page in flight is left alone: the fetch under way sees the change. Returns
    /// whether the page was marked.
    ///
    /// # Errors
    /// [`OnlineError::UnknownPage`].
    pub fn mark_stale(&mut self, page: PageId, now: f64) -> OnlineResult<bool> {
        self.reinsert(page, now, None)
    }

    /// The local copy of `page` is that of a fetch at `last_fetch` (undoing a
    /// [`mark_stale`](Self::mark_stale) that only borrowed the page's turn: a crawler that
    /// needs its host's next politeness slot for a request of its own, a sitemap say): the page
    /// competes with `V(now − last_fetch)` again. Its weight and change rate are kept. A page
    /// in flight is left alone. Returns whether the page was changed.
    ///
    /// # Errors
    /// [`OnlineError::UnknownPage`], and [`OnlineError::InvalidTime`] if `last_fetch` is not
    /// finite.
    pub fn set_last_fetch(&mut self, page: PageId, last_fetch: f64, now: f64) -> OnlineResult<bool> {
        if !last_fetch.is_finite() {
            return Err(OnlineError::InvalidTime { page, time: last_fetch });
        }
        self.reinsert(page, now, Some(last_fetch))
    }

    /// `page` removed and added again with its weight and change rate, its copy that of
    /// `last_fetch` (`None`: never fetched); a page in flight is left alone (`false`).
    fn reinsert(&mut self, page: PageId, now: f64, last_fetch: Option<f64>) -> OnlineResult<bool> {
        let slot = *self.present_page_mut(page)?;
        if slot.in_flight() {
            return Ok(false);
        }
        let (host, weight, change_rate) =
            (HostId(slot.host), f64::from(slot.weight), f64::from(slot.change_rate));
        self.remove(page)?;
        self.insert(page, host, weight, change_rate, now, last_fetch)?;
        if last_fetch.is_none()
            && slot.has_copy()
            && let Some(slot) = self.pages.get_mut(page.0 as usize)
        {
            slot.mark_stale_copy();
        }
        Ok(true)
    }

    /// Forgets a page. If it is in flight, its host's slot is still released by
    /// [`fetched`](Self::fetched).
    ///
    /// # Errors
    /// [`OnlineError::UnknownPage`].
    pub fn remove(&mut self, page: PageId) -> OnlineResult<()> {
        let slot = self.present_page_mut(page)?;
        slot.bump_generation();
        slot.clear();
        let host = slot.host as usize;
        if let Some(state) = self.hosts.get_mut(host) {
            state.live_pages = state.live_pages.saturating_sub(1);
            if state.offer.is_some_and(|offer| offer.page == page.0) {
                state.offer = None;
                self.wake_host(host as u32);
            }
        }
        self.page_count -= 1;
        Ok(())
    }

    /// Sets `λ_0` (e.g. the batch solver's `lambda0`, or a previous run's) and restarts the
    /// controller from it with a half-full bucket.
    ///
    /// # Errors
    /// [`OnlineError::InvalidThreshold`].
    pub fn set_lambda0(&mut self, lambda0: f64) -> OnlineResult<()> {
        if !(lambda0.is_finite() && lambda0 > 0.0) {
            return Err(OnlineError::InvalidThreshold(lambda0));
        }
        self.start_from(lambda0);
        Ok(())
    }

    /// Re-solves the demand equation `Σ_i min(k_i, S_i(λ_0)) = k_0` over every page now and
    /// restarts from its root, as the first [`next`](Self::next) does, but keeping the budget's
    /// bucket as it is (a re-solve mints no tokens and drops none): `O(pages + hosts)` per
    /// iteration. For after a change to many pages at once (the change rates re-estimated in
    /// bulk): the incremental sweep would need `pages/4` calls of `next` or more to see it, and a `λ_0`
    /// left far above every page's `V(∞)` parks every host. Before the first `next`, nothing to
    /// do.
    pub fn resolve_lambda0(&mut self) {
        if !self.started || self.page_count == 0 {
            return;
        }
        let guess = if self.lambda0 > 0.0 { self.lambda0 } else { 1.0 };
        let solved = self.solve_feedforward(guess);
        if solved.is_finite() && solved > 0.0 {
            let level = self.controller.level();
            self.start_from(solved);
            self.controller.set_level(level);
        }
    }

    /// The global threshold `λ_0` now (0 before the first [`next`](Self::next)).
    #[must_use]
    pub fn lambda0(&self) -> f64 {
        self.lambda0
    }

    /// Host `i`'s emergent `λ_i`: the moving average of `max(0, V − λ_0)` over the pages it
    /// served. Near 0 for a host whose slot is free when its pages come due; positive for one
    /// whose capacity binds.
    ///
    /// # Errors
    /// [`OnlineError::UnknownHost`].
    pub fn host_lambda(&self, host: HostId) -> OnlineResult<f64> {
        self.host(host).map(|state| state.lambda)
    }

    /// Fetches started on `host` so far.
    ///
    /// # Errors
    /// [`OnlineError::UnknownHost`].
    pub fn host_fetches(&self, host: HostId) -> OnlineResult<u64> {
        self.host(host).map(|state| u64::from(state.fetches))
    }

    /// Number of pages present.
    #[must_use]
    pub fn len(&self) -> usize {
        self.page_count
    }

    /// True when no page is present.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.page_count == 0
    }

    /// Counters: fetches, rebuilds, re-keyings.
    #[must_use]
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// The global budget it runs under.
    #[must_use]
    pub fn budget(&self) -> Budget {
        self.budget
    }

    /// Bytes held by the scheduler's vectors and queues (capacities, not lengths): `O(hosts)`.
    #[must_use]
    pub fn allocated_bytes(&self) -> usize {
        let backlogs: usize = self.hosts.iter().map(HostState::backlog_capacity).sum();
        size_of::<Self>()
            + self.pages.capacity() * size_of::<PageSlot>()
            + self.hosts.capacity() * size_of::<HostState>()
            + backlogs * size_of::<PageEntry>()
            + self.calendar.allocated_bytes()
            + self.hidden.capacity() * size_of::<HiddenPage>()
            + self.ready.capacity() * size_of::<ReadyEntry>()
            + self.timers.capacity() * size_of::<TimerEntry>()
            + self.sweep.allocated_bytes()
            + self.capped_hosts.allocated_bytes()
    }

    pub(super) fn host(&self, host: HostId) -> OnlineResult<&HostState> {
        self.hosts.get(host.0 as usize).filter(|state| state.present).ok_or(OnlineError::UnknownHost(host))
    }

    fn present_page_mut(&mut self, page: PageId) -> OnlineResult<&mut PageSlot> {
        self.pages
            .get_mut(page.0 as usize)
            .filter(|slot| slot.is_present())
            .ok_or(OnlineError::UnknownPage(page))
    }

    /// The add time of a page: the clock, or 0 before any time was given.
    fn added_at(&self) -> f64 {
        if self.clock.is_finite() { self.clock } else { 0.0 }
    }

    /// Rounds weight and change rate to `f32` and checks them against the objective's domain.
    fn checked_parameters(&self, page: PageId, weight: f64, change_rate: f64) -> OnlineResult<(f32, f32)> {
        let (weight32, rate32) = (weight as f32, change_rate as f32);
        if !weight32.is_normal() || weight32 < 0.0 {
            return Err(OnlineError::InvalidWeight { page, weight });
        }
        if !rate32.is_normal() || rate32 < 0.0 {
            return Err(OnlineError::InvalidChangeRate { page, change_rate });
        }
        let rounded = Page::new(f64::from(weight32), f64::from(rate32));
        match self.objective.check_page(page.0 as usize, rounded) {
            Ok(()) => Ok((weight32, rate32)),
            Err(PolicyError::InvalidWeight { .. }) => Err(OnlineError::InvalidWeight { page, weight }),
            Err(_) => Err(OnlineError::InvalidChangeRate { page, change_rate }),
        }
    }

    /// Gives a page (present, not in flight) a fresh entry: in the calendar under the time its
    /// value reaches `λ_0`, or among the hidden pages if it never does. Entries it had are stale
    /// from now on. Before the start, nothing is queued (`start_from` queues every page).
    pub(super) fn enqueue(&mut self, page: u32) {
        let Some(slot) = self.pages.get_mut(page as usize) else { return };
        let generation = slot.bump_generation();
        if !self.started {
            return;
        }
        let slot = *slot;
        let key = due_time(self.objective, &slot, self.lambda0);
        if key == f64::INFINITY {
            let level = self.objective.marginal_at_zero(slot.page());
            self.hidden.push(HiddenPage { level, page, generation });
        } else {
            self.calendar.push(PageEntry { key, page, generation });
            self.keyed_lambda0 = self.keyed_lambda0.max(self.lambda0);
        }
        if self.calendar.len() + self.hidden.len() > 2 * self.page_count + STALE_SLACK {
            self.drop_stale_entries();
        }
    }

    /// Drops the calendar's and the hidden pages' stale entries (pages updated, removed or
    /// queued again since): `O(entries)`, run once they outnumber the pages twice over, so
    /// `O(1)` per `enqueue` amortised. Without it a page updated many times while it waits (a
    /// weight that moves with every link found to it) would leave an entry behind each time.
    fn drop_stale_entries(&mut self) {
        let pages = &self.pages;
        self.calendar.retain(|entry| pages.get(entry.page as usize).is_some_and(|slot| slot.is_live(entry)));
        let mut hidden = std::mem::take(&mut self.hidden).into_vec();
        hidden.retain(|entry| {
            pages.get(entry.page as usize).is_some_and(|slot| {
                slot.is_present() && !slot.in_flight() && slot.generation() == entry.generation
            })
        });
        self.hidden = BinaryHeap::from(hidden);
    }

    /// Initialises `λ_0` and keys every page again with it.
    pub(super) fn start_from(&mut self, lambda0: f64) {
        self.controller.reset(lambda0);
        self.sweep.restart();
        self.started = true;
        self.lambda0 = lambda0;
        self.lambda0_log = f64::NAN;
        self.rebuild();
    }

    /// Keys every page again under the current `λ_0`: the calendar, the hidden pages and the
    /// hosts' eligible pages are emptied and every page present and not in flight is queued
    /// again (`O(pages + hosts)`). Hosts keep their `λ_i`, slots and back-offs.
    pub(super) fn rebuild(&mut self) {
        let now = if self.clock.is_finite() { self.clock } else { 0.0 };
        self.calendar.reset(now);
        self.hidden.clear();
        self.ready.clear();
        self.ready_has_fetched = false;
        self.timers.clear();
        for host in &mut self.hosts {
            host.clear_eligible();
        }
        self.keyed_lambda0 = 0.0;
        for page in 0..self.pages.len() {
            let slot = self.pages[page];
            if slot.is_present() && !slot.in_flight() {
                self.enqueue(page as u32);
            }
        }
        self.stats.global_rebuilds += 1;
        self.fetches_at_rebuild = self.stats.fetches;
    }
}
