//! The deciding verbs: [`Scheduler::next`] and [`Scheduler::fetched`], and the moves of a page
//! from the calendar to its host and from its host to the ready queue.

use freshet_policy::Objective;

use super::demand::{SWEEP_SLOTS_MOVING, SWEEP_SLOTS_SETTLED};
use super::heap::Heap;
use super::host::{HiddenPage, HostState, ReadyEntry, TimerEntry, earliest_after, host_key};
use super::keys::{THRESHOLD_TOLERANCE, due_time, offer_holds, reaches_soon, reaches_with, value_now};
use super::page::{PageEntry, PageSlot};
use super::scheduler::{LATE_KEY_MARGIN, REKEY_TOLERANCE};
use super::{Decision, HostId, OnlineError, OnlineResult, Outcome, PageId, Scheduler};

/// The key of an offer made without competition, not computed until another page competes.
pub(super) const UNKEYED: f64 = f64::NAN;

/// Entries of a bulk read ahead at a time (see `Scheduler::touch_run_ahead`).
const BULK_TOUCH: usize = 16;

/// Offers taken between two re-rankings of the ready queue at least (see `refresh_ready`).
const READY_REFRESH: usize = 16;

impl<O: Objective> Scheduler<O> {
    /// What to do at `now`: fetch a page, wait, or nothing.
    ///
    /// A page is fetched when its value has reached `λ_0`, its host's slot is free
    /// (politeness), it is the page its host serves first (earliest to reach `λ_0 + λ_i`), and a
    /// budget token is there. Tokens go by value (seed 003: pages are served in order of crawl
    /// value): among the pages offered by free hosts, the one worth most gets the token. `now`
    /// earlier than a previous call (or NaN) counts as the latest time seen.
    pub fn next(&mut self, now: f64) -> Decision {
        self.advance(now);
        if !self.started {
            match self.initial_lambda0() {
                Some(initial) if self.budget.initial_lambda0.is_some() => self.start_from(initial),
                Some(guess) => {
                    let solved = self.solve_feedforward(guess);
                    self.start_from(solved);
                }
                None => return Decision::Idle,
            }
        }
        let decision = self.decide();
        // After the decision, so that `explain` at the same time sees the `λ_0` it was made
        // with (a sweep that completes moves `λ_ff`); once per fetch, where it was once per call
        // (a driver calls `next` about twice per fetch: the wait for a token, then the fetch),
        // at every `Idle`, and once per token a full bucket let go: with nothing or little to
        // fetch (`λ_0` above most pages' values) the sweep must still go on, or `λ_ff` would
        // never come down. (At every call while the bucket is full instead, the bulk-update
        // test fell from 985 to 972 fetches of 1,000.) Without the unused tokens, a threshold
        // re-solved after the learner's estimates moved (`freshet-sim`'s learned `threshold`)
        // stayed put while the estimates moved on and the few pages still worth `λ_0` came due
        // far apart: the sweep waited for fetches that did not come, the bucket stayed full,
        // `λ_0` did not move for 34,000 of the run's 40,000 time units, and it fetched 4,777
        // times on a budget of 40,000 (Fig. 1 Zipf set at R = 1, seed 1).
        let unused = self.controller.take_unused_tokens();
        let fetched_or_idle = usize::from(matches!(decision, Decision::Fetch { .. } | Decision::Idle));
        let steps = fetched_or_idle.saturating_add(unused);
        if steps > 0 {
            self.sweep_demand(self.sweep_slots().saturating_mul(steps));
        }
        decision
    }

    /// Page slots the demand sweep visits per fetch (or unused token).
    fn sweep_slots(&self) -> usize {
        if self.controller.settled() { SWEEP_SLOTS_SETTLED } else { SWEEP_SLOTS_MOVING }
    }

    /// `next`'s decision, once started.
    fn decide(&mut self) -> Decision {
        self.surface();
        self.open_slots();
        if self.ready_taken >= self.ready.len().max(READY_REFRESH) {
            self.refresh_ready();
        }
        loop {
            let Some(best) = self.ready.peek().copied() else { return self.wait() };
            if !self.is_live_offer(&best) {
                self.ready.pop();
                continue;
            }
            let token_time = self.controller.token_time(self.clock);
            if token_time > self.clock {
                return Decision::WaitUntil(token_time);
            }
            if let Some(opening) = self.slot_opening_now() {
                return Decision::WaitUntil(opening);
            }
            self.ready.pop();
            self.ready_taken += 1;
            if !self.host_still_free(&best) {
                continue;
            }
            let Some(value) = self.still_worth_it(&best) else { continue };
            return self.start_fetch(best, value);
        }
    }

    /// A host slot that opens after the clock by no more than a rounding error: it competes for
    /// the token about to be given, so `next` waits for it. A host's slot opens a gap after its
    /// last start, rounded up (`earliest_after`), and while the budget is short that start was
    /// at a token's time, so the slot opened a few ulps after the token that many gaps later
    /// (a gap a whole number of tokens long) and lost it, every time, to any other host's offer:
    /// a host capped at 20 fetches per unit time under a budget of 100 took one fetch every
    /// 0.06 instead of 0.05 while another host's pages kept the bucket empty
    /// (`a_new_hosts_recrawls_are_spread_not_bunched`).
    fn slot_opening_now(&self) -> Option<f64> {
        let opening = self.timers.peek()?.at;
        (opening > self.clock && opening - self.clock <= SAME_INSTANT * self.clock.abs().max(1.0))
            .then_some(opening)
    }

    /// Ranks the offers again by their value now: values grow with time at different speeds,
    /// so an offer passed over keeps a value that is lower than its value now. Once per
    /// `max(READY_REFRESH, offers)` offers taken (`O(1)` amortised per fetch), so no offer waits
    /// more than that many tokens behind offers that are worth less than it is.
    ///
    /// Skipped while every offer is of a page never fetched (a first crawl): their values do
    /// not change with time, so the ranking would come out as it is, and the pass (a host
    /// record and a page slot read at random per offer) was the largest single cost of the
    /// bench's first crawl after its first `next` (BENCHMARKS.md, "Online scheduler"). The
    /// stale offers the pass would drop are dropped when they come to the top, and a pass
    /// still runs once `ready` holds more than two offers a host.
    fn refresh_ready(&mut self) {
        self.ready_taken = 0;
        if !self.ready_has_fetched && self.ready.len() <= 2 * self.hosts.len() {
            return;
        }
        let mut has_fetched = false;
        let mut entries = std::mem::take(&mut self.ready).into_vec();
        entries.retain_mut(|entry| {
            let live = self.hosts.get(entry.host as usize).and_then(|host| host.offer).is_some_and(|offer| {
                offer.page == entry.page
                    && offer.generation == entry.generation
                    && self.pages.get(entry.page as usize).is_some_and(|slot| slot.is_live(&offer))
            });
            if live && let Some(slot) = self.pages.get(entry.page as usize) {
                entry.set_value(value_now(self.objective, slot, self.clock), self.clock);
                has_fetched |= slot.was_fetched();
            }
            live
        });
        self.ready = Heap::from_vec(entries);
        self.ready_has_fetched = has_fetched;
    }

    /// Nothing to start now: the time of the next event (a page reaching `λ_0`, a slot
    /// opening), no later than the time the budget's bucket fills (a fall of `λ_0` then may
    /// make pages eligible sooner than their keys say) or, once it is full, than the time its
    /// unused tokens complete the demand sweep's pass (which moves `λ_ff`); `Idle` if nothing is
    /// queued.
    fn wait(&self) -> Decision {
        let timer = self.timers.peek().map(|entry| entry.at);
        let wake = match (self.calendar.next_time(), timer) {
            (Some(key), Some(timer)) => key.min(timer),
            (Some(time), None) | (None, Some(time)) => time,
            (None, None) => return Decision::Idle,
        };
        let full = self.controller.full_time(self.clock);
        let wake = if full > self.clock { wake.min(full) } else { wake.min(self.sweep_end_time()) };
        Decision::WaitUntil(if wake > self.clock { wake } else { self.clock.next_up() })
    }

    /// When the tokens a full bucket lets go, one sweep step each once they count as unused,
    /// complete the demand sweep's pass: `next` then moves `λ_ff`.
    fn sweep_end_time(&self) -> f64 {
        let left = self.pages.len().saturating_sub(self.sweep.cursor()).max(1);
        let tokens = self.controller.tokens_before_unused() + left.div_ceil(self.sweep_slots()) as f64;
        self.clock + tokens / self.budget.rate
    }

    /// Takes the pages whose key has come out of the calendar: those worth `λ_0` now or soon
    /// (`keys::reaches`) go to their host; the others (`λ_0` rose since their key was computed)
    /// are keyed again.
    fn surface(&mut self) {
        self.calendar.advance(self.clock);
        // Read the slots and host records of the entries handed out, one after another: their
        // cache misses overlap (each is independent of the others), where the checks below
        // would take them one at a time. At 10^6 pages this took the prototype from 0.70–0.78
        // to 0.97–1.04 M pairs per CPU second (BENCHMARKS.md, "Online scheduler").
        let mut touched = 0.0;
        for entry in self.calendar.fresh() {
            if let Some(slot) = self.pages.get(entry.page as usize) {
                touched += self.hosts.get(slot.host as usize).map_or(0.0, |host| host.free_at);
            }
        }
        std::hint::black_box(touched);
        self.calendar.settle_fresh();
        let mut until_touch = 0;
        while let Some(entry) = self.calendar.pop_due(self.clock) {
            if until_touch == 0 && self.calendar.in_bulk() {
                until_touch = BULK_TOUCH;
                self.touch_run_ahead();
            }
            until_touch = until_touch.saturating_sub(1);
            let Some(slot) = self.pages.get(entry.page as usize).copied() else { continue };
            if !slot.is_live(&entry) {
                continue;
            }
            let value = value_now(self.objective, &slot, self.clock);
            if value < self.lambda0 * (1.0 - THRESHOLD_TOLERANCE)
                && !reaches_soon(self.objective, &slot, self.clock, self.lambda0)
            {
                let key = due_time(self.objective, &slot, self.lambda0);
                if key > self.clock {
                    self.stats.requeued += 1;
                    if key == f64::INFINITY {
                        let level = self.objective.marginal_at_zero(slot.page());
                        self.hidden.push(HiddenPage {
                            level,
                            page: entry.page,
                            generation: entry.generation,
                        });
                    } else {
                        self.calendar.push(PageEntry { key, ..entry });
                    }
                    continue;
                }
            }
            self.make_eligible(entry, value);
        }
    }

    /// In a bulk (every page of a first crawl surfacing in one `next`), reads the host records
    /// and the backlogs' first entries and ends of the next [`BULK_TOUCH`] entries one after another, so that
    /// their cache misses overlap, where [`Scheduler::make_eligible`] would take them one at a
    /// time (BENCHMARKS.md, "Online scheduler"). Nothing to read outside a bulk.
    #[inline(never)]
    fn touch_run_ahead(&self) {
        let mut touched = 0.0;
        for entry in self.calendar.due_run_ahead(BULK_TOUCH) {
            if let Some(slot) = self.pages.get(entry.page as usize)
                && let Some(host) = self.hosts.get(slot.host as usize)
            {
                // The record's other cache lines (`refresh_keys` reads the threshold and the
                // offer), and the slot of the backlog's first page (whose liveness
                // `make_eligible` checks): misses that came one at a time.
                let top = host.backlog_top();
                touched += host.free_at
                    + host.keyed_threshold
                    + host.lambda
                    + host.offer.map_or(0.0, |offer| offer.key)
                    + top.map_or(0.0, |top| top.key)
                    + host.backlog_end_key().unwrap_or(0.0)
                    + top.and_then(|top| self.pages.get(top.page as usize)).map_or(0.0, |slot| slot.last);
            }
        }
        std::hint::black_box(touched);
    }

    /// Hands an eligible page (worth `value` now) to its host: it becomes the host's offer if
    /// the host may start now and the page reaches the host's threshold first; else it waits
    /// in the host's backlog.
    fn make_eligible(&mut self, entry: PageEntry, value: f64) {
        let (clock, lambda0, slots) = (self.clock, self.lambda0, self.host_slots);
        let Some(slot) = self.pages.get(entry.page as usize).copied() else { return };
        let host_id = slot.host;
        let Some(host) = self.hosts.get_mut(host_id as usize) else { return };
        let threshold = host.threshold(lambda0);
        if host.refresh_keys(self.objective, &self.pages, threshold, REKEY_TOLERANCE) {
            self.stats.host_rekeys += 1;
        }
        if !host.can_start(clock, slots) {
            let key = host_key(self.objective, &slot, host.keyed_threshold);
            host.push_backlog(PageEntry { key, ..entry }, slot.was_fetched());
            self.arm_timer(host_id);
            return;
        }
        if host.offer.is_none() && host.backlog_is_empty() {
            // The usual case of a host whose slot is free when its pages come due: the page is
            // its offer at once, and its key in the host's order is computed only if another
            // page comes to compete with it (`UNKEYED`).
            self.publish_offer(host_id, PageEntry { key: UNKEYED, ..entry }, value);
            return;
        }
        let key = host_key(self.objective, &slot, host.keyed_threshold);
        let candidate = PageEntry { key, ..entry };
        // The host's offer is the first of its eligible pages in its order: the candidate, an
        // entry of its backlog, or the offer it has.
        let offer = match host.take_offer_keyed(self.objective, &self.pages) {
            None => {
                host.push_backlog(candidate, slot.was_fetched());
                let Some(best) = host.pop_backlog(&self.pages) else { return };
                best
            }
            Some(offer)
                if !goes_before(&candidate, &offer)
                    && host.backlog_top().is_none_or(|top| {
                        !goes_before(&top, &offer)
                            && self.pages.get(top.page as usize).is_some_and(|slot| slot.is_live(&top))
                    }) =>
            {
                // Neither the candidate nor the backlog's best (live) goes before the offer: the
                // offer stays, what the general case below finds with a pop and a push that
                // sift through the backlog. A first crawl takes this path for every page of a
                // host after its first (BENCHMARKS.md, "Online scheduler").
                host.push_backlog(candidate, slot.was_fetched());
                host.offer = Some(offer);
                return;
            }
            Some(offer) => {
                host.push_backlog(candidate, slot.was_fetched());
                match host.pop_backlog(&self.pages) {
                    Some(best) if goes_before(&best, &offer) => {
                        host.push_backlog(offer, true);
                        best
                    }
                    Some(best) => {
                        // The offer stays (its ready entry with it).
                        host.push_backlog(best, true);
                        host.offer = Some(offer);
                        return;
                    }
                    None => {
                        host.offer = Some(offer);
                        return;
                    }
                }
            }
        };
        let value = if offer.page == entry.page {
            value
        } else {
            self.pages.get(offer.page as usize).map_or(0.0, |slot| value_now(self.objective, slot, clock))
        };
        self.publish_offer(host_id, offer, value);
    }

    /// Makes `entry` its host's offer, in the ready queue at `value` (its crawl value now).
    fn publish_offer(&mut self, host_id: u32, entry: PageEntry, value: f64) {
        if let Some(host) = self.hosts.get_mut(host_id as usize) {
            host.offer = Some(entry);
            self.ready_has_fetched |= self.pages.get(entry.page as usize).is_none_or(PageSlot::was_fetched);
            self.ready.push(ReadyEntry::new(value, self.clock, entry.page, entry.generation, host_id));
        }
    }

    /// Puts `host` in the timer queue at the time its slot opens, if it has eligible pages, a
    /// slot to open (not all in flight: `fetched` wakes it then) and no earlier timer.
    fn arm_timer(&mut self, host_id: u32) {
        let slots = self.host_slots;
        let Some(host) = self.hosts.get_mut(host_id as usize) else { return };
        if u32::from(host.in_flight) >= slots || host.free_at >= host.timer_at {
            return;
        }
        host.timer_at = host.free_at;
        self.timers.push(TimerEntry { at: host.free_at, host: host_id });
    }

    /// Opens the slots whose time has come: each such host offers its best eligible page.
    fn open_slots(&mut self) {
        while let Some(entry) = self.timers.peek().copied() {
            if entry.at > self.clock {
                return;
            }
            self.timers.pop();
            let Some(host) = self.hosts.get_mut(entry.host as usize) else { continue };
            if host.timer_at != entry.at {
                continue;
            }
            host.timer_at = f64::INFINITY;
            self.wake_host(entry.host);
        }
    }

    /// If `host` may start now and has no live offer, it offers its best eligible page (or,
    /// with none, its capacity does not bind: `λ_i = 0`); if it may start later, it waits in
    /// the timer queue.
    pub(super) fn wake_host(&mut self, host_id: u32) {
        let (clock, lambda0, slots) = (self.clock, self.lambda0, self.host_slots);
        let Some(host) = self.hosts.get_mut(host_id as usize) else { return };
        if !host.present {
            return;
        }
        if let Some(offer) = host.offer {
            if self.pages.get(offer.page as usize).is_some_and(|slot| slot.is_live(&offer)) {
                return;
            }
            host.offer = None;
        }
        if !host.can_start(clock, slots) {
            self.arm_timer(host_id);
            return;
        }
        let threshold = host.threshold(lambda0);
        if host.refresh_keys(self.objective, &self.pages, threshold, REKEY_TOLERANCE) {
            self.stats.host_rekeys += 1;
        }
        let Some(entry) = host.pop_backlog(&self.pages) else {
            // The slot opens with nothing worth a fetch: the capacity does not bind now.
            host.lambda = 0.0;
            return;
        };
        let value =
            self.pages.get(entry.page as usize).map_or(0.0, |slot| value_now(self.objective, slot, clock));
        self.publish_offer(host_id, entry, value);
    }

    /// Whether the offer's host may still start now: its slot may have closed since the offer
    /// was made (a longer gap from `set_host`, a back-off reported by another fetch of a host
    /// with several slots). If not, the offer goes back to the host's backlog and the host
    /// waits for its slot: politeness is never traded for an offer already made.
    fn host_still_free(&mut self, offer: &ReadyEntry) -> bool {
        let (clock, slots) = (self.clock, self.host_slots);
        let Some(host) = self.hosts.get_mut(offer.host as usize) else { return false };
        if host.can_start(clock, slots) {
            return true;
        }
        if let Some(entry) = host.take_offer_keyed(self.objective, &self.pages) {
            host.push_backlog(entry, true);
        }
        self.arm_timer(offer.host);
        false
    }

    /// The offered page's value now, if it is still worth `λ_0` (`λ_0` may have risen since it
    /// was offered). If not, it goes back to the calendar (or the hidden pages) and its host
    /// offers its next page. Not `keys::reaches_soon`, as a page surfacing is: keeping the offers
    /// a twentieth of their age early too ended the 0.02–0.10 offers withdrawn per fetch of the
    /// bench's steady state, but spent up to 0.6% less than the budget there and took the
    /// expected freshness from 0.9996 to 0.9992 of the solver's (10^6 pages).
    ///
    /// An offer valued at this clock keeps its value: the offer is live (`is_live_offer`: same
    /// page generation, so the same `last`, weight and change rate), and `V` is a function of
    /// those and the clock. Most fetches take the offer made in the same `next`; computing its
    /// value again was ~4% of a pair's instructions in `benches/online.rs`.
    fn still_worth_it(&mut self, offer: &ReadyEntry) -> Option<f64> {
        let slot = self.pages.get(offer.page as usize).copied()?;
        let value = if offer.valued_at == self.clock {
            offer.value()
        } else {
            value_now(self.objective, &slot, self.clock)
        };
        if offer_holds(value, self.lambda0)
            || reaches_with(self.objective, &slot, value, self.clock, self.lambda0)
        {
            return Some(value);
        }
        if let Some(host) = self.hosts.get_mut(offer.host as usize) {
            host.offer = None;
        }
        self.stats.withdrawn += 1;
        self.enqueue(offer.page);
        self.wake_host(offer.host);
        None
    }

    /// Whether a ready entry is its host's live offer (the page present, queued, unchanged).
    fn is_live_offer(&mut self, entry: &ReadyEntry) -> bool {
        let Some(host) = self.hosts.get(entry.host as usize) else { return false };
        let Some(offer) = host.offer else { return false };
        if offer.page != entry.page || offer.generation != entry.generation {
            return false;
        }
        if self.pages.get(entry.page as usize).is_some_and(|slot| slot.is_live(&offer)) {
            return true;
        }
        // The offered page was removed or changed: the host offers its next page.
        if let Some(host) = self.hosts.get_mut(entry.host as usize) {
            host.offer = None;
        }
        self.wake_host(entry.host);
        false
    }

    /// Reports the end of a fetch that [`next`](Self::next) started; releases its host's slot.
    /// `now` is when it ended (the next start on the host is no earlier, and at least the host's
    /// gap after this one's start).
    ///
    /// # Errors
    /// [`OnlineError::UnknownPage`], [`OnlineError::NotInFlight`], [`OnlineError::InvalidBackOff`].
    pub fn fetched(&mut self, page: PageId, outcome: Outcome, now: f64) -> OnlineResult<()> {
        if let Outcome::BackOff { retry_after } = outcome
            && (retry_after.is_nan() || retry_after < 0.0)
        {
            return Err(OnlineError::InvalidBackOff { page, retry_after });
        }
        let slot = self.pages.get(page.0 as usize).copied().ok_or(OnlineError::UnknownPage(page))?;
        if !slot.in_flight() {
            return Err(if slot.is_present() {
                OnlineError::NotInFlight(page)
            } else {
                OnlineError::UnknownPage(page)
            });
        }
        self.advance(now);
        let clock = self.clock;
        let host =
            self.hosts.get_mut(slot.host as usize).ok_or(OnlineError::UnknownHost(HostId(slot.host)))?;
        host.in_flight = host.in_flight.saturating_sub(1);
        let earliest_by_gap = earliest_after(host.last_start, host.gap);
        // With more than one slot, a back-off another fetch of the host reported stands: the
        // host's earliest start only moves later.
        let floor = if self.host_slots > 1 { host.free_at } else { f64::NEG_INFINITY };
        let page_slot = &mut self.pages[page.0 as usize];
        match outcome {
            Outcome::Fetched | Outcome::Failed => {
                page_slot.mark_fetched(host.last_start);
                host.free_at = earliest_by_gap.max(clock).max(floor);
            }
            Outcome::BackOff { retry_after } => {
                host.free_at = earliest_by_gap.max(clock + retry_after).max(floor);
            }
        }
        // A timer set for an earlier opening is stale now.
        if host.timer_at < host.free_at {
            host.timer_at = f64::INFINITY;
        }
        page_slot.set_in_flight(false);
        let present = page_slot.is_present();
        self.touch_next_offer(slot.host);
        if present {
            self.enqueue(page.0);
        }
        self.wake_host(slot.host);
        Ok(())
    }

    /// Reads the page slot of the first entry of `host`'s backlog, which `wake_host` is about to
    /// look at, before `enqueue` computes the fetched page's key: the slot is a cache miss (a
    /// host's pages lie anywhere in the page vector), and read here it is fetched while the key's
    /// `G⁻¹` is computed (BENCHMARKS.md, "Online scheduler").
    #[inline]
    fn touch_next_offer(&self, host: u32) {
        let top = self.hosts.get(host as usize).and_then(HostState::backlog_top);
        let touched = top.and_then(|top| self.pages.get(top.page as usize)).map_or(0.0, |slot| slot.last);
        std::hint::black_box(touched);
    }

    /// Moves the clock to `now` (never backwards), runs the budget controller, and refreshes
    /// `λ_0` (see [`refresh_lambda0`](Self::refresh_lambda0)).
    pub(super) fn advance(&mut self, now: f64) {
        if now > self.clock {
            if self.started && self.clock.is_finite() {
                self.controller.advance(now - self.clock);
            }
            self.clock = now;
        }
        self.refresh_lambda0();
    }

    /// Takes `λ_0` from the controller; brings back the hidden pages it now makes worth a
    /// fetch, and rebuilds the calendar if it fell below the margin of its keys.
    #[inline]
    pub(super) fn refresh_lambda0(&mut self) {
        if !self.started {
            return;
        }
        // Unchanged `ln λ_0`: the same `λ_0`, no hidden page to reveal, and the same answer from
        // `rebuild_due` (its other terms move only with fetches and the bucket's level, which
        // move `λ_0`; a key computed since is computed with this `λ_0`, so `keyed_lambda0`
        // cannot have risen past it).
        let log = self.controller.log_lambda0();
        if log != self.lambda0_log {
            self.move_lambda0(log);
        }
    }

    /// [`refresh_lambda0`](Self::refresh_lambda0) once `ln λ_0` has moved to `log`. Out of
    /// line, so that the calls that find it unmoved (about half) stay a few instructions inline
    /// instead of a call that saves and restores registers.
    #[inline(never)]
    fn move_lambda0(&mut self, log: f64) {
        let (lambda0, carried) = self.lambda0_at(log);
        self.lambda0 = lambda0;
        self.lambda0_steps = if carried { self.lambda0_steps + 1 } else { 0 };
        self.lambda0_log = log;
        if self.rebuild_due(self.lambda0) {
            self.rebuild();
            return;
        }
        if self.hidden.peek().is_some_and(|hidden| hidden.level > self.lambda0) {
            self.reveal_hidden();
        }
    }

    /// The `λ_0` that a refresh to `ln λ_0 = log` sets, and whether it was carried by a small
    /// step. Most refreshes move `ln λ_0` a little (a token taken: `K_P/B`, 0.0016 by default;
    /// a short wait): `λ_0` is then carried over by `e^step` from a short series, re-derived by
    /// a full exponential every `LAMBDA0_RESYNC` steps so that rounding cannot build up.
    /// `explain` asks it too, so that it reports the very `λ_0` that `next` would use.
    pub(super) fn lambda0_at(&self, log: f64) -> (f64, bool) {
        if log == self.lambda0_log {
            return (self.lambda0, false);
        }
        let step = log - self.lambda0_log;
        if step.abs() <= SMALL_LOG_STEP && self.lambda0_steps < LAMBDA0_RESYNC {
            (self.lambda0 * exp_of_small(step), true)
        } else {
            (log.exp(), false)
        }
    }

    /// Queues the hidden pages that `λ_0` has fallen below (their `V(∞)` is above it now). Out
    /// of line: rare, and inlined it made every refresh of `λ_0` save and restore the registers
    /// of its loop (~14 instructions a call in `benches/online.rs`).
    #[inline(never)]
    fn reveal_hidden(&mut self) {
        let mut revealed = Vec::new();
        while let Some(hidden) = self.hidden.peek().copied() {
            if hidden.level <= self.lambda0 {
                break;
            }
            self.hidden.pop();
            let live = self.pages.get(hidden.page as usize).is_some_and(|slot| {
                slot.is_present() && !slot.in_flight() && slot.generation() == hidden.generation
            });
            if live {
                revealed.push(hidden.page);
            }
        }
        for page in revealed {
            self.enqueue(page);
        }
    }

    /// Whether a fall of `λ_0` to `lambda0` rebuilds the calendar: below `LATE_KEY_MARGIN` of
    /// the largest `λ_0` a key was computed with, and the bucket full or no rebuild in the last
    /// `min(pages, max(hosts, 1024))` fetches. A rebuild costs `O(pages)`; between two, keys may
    /// be late by the drift of `λ_0` below their margin. The falls that trigger it are those of
    /// a transient (after a first crawl `λ_0` falls by a factor of several), not the bucket's
    /// proportional swing (±5%).
    pub(super) fn rebuild_due(&self, lambda0: f64) -> bool {
        if lambda0 >= LATE_KEY_MARGIN * self.keyed_lambda0 {
            return false;
        }
        // While the bucket is full the budget goes unused: late keys cost fetches, not only
        // freshness, and the fall of λ_0 that makes them late is bounded (each rebuild needs a
        // further fall past the margin).
        let spacing = self.page_count.min(self.hosts.len().max(1024)) as u64;
        self.controller.is_full() || self.stats.fetches - self.fetches_at_rebuild >= spacing
    }

    /// The configured initial `λ_0`, or half the mean `V(∞)` of the pages present.
    fn initial_lambda0(&self) -> Option<f64> {
        if let Some(initial) = self.budget.initial_lambda0 {
            return Some(initial);
        }
        let (sum, count) =
            self.pages.iter().filter(|slot| slot.is_present()).fold((0.0, 0_u64), |(sum, count), slot| {
                (sum + self.objective.marginal_at_zero(slot.page()), count + 1)
            });
        let mean = sum / count as f64;
        (count > 0 && mean.is_finite() && mean > 0.0).then_some(mean / 2.0)
    }

    /// Starts fetching `offer`, the live offer of its host, worth `value` now.
    fn start_fetch(&mut self, offer: ReadyEntry, value: f64) -> Decision {
        let (clock, lambda0, slots) = (self.clock, self.lambda0, self.host_slots);
        let (Some(state), Some(slot)) =
            (self.hosts.get_mut(offer.host as usize), self.pages.get_mut(offer.page as usize))
        else {
            return Decision::Idle;
        };
        state.offer = None;
        let first_fetch = !slot.has_copy();
        slot.set_in_flight(true);
        state.record_service(value, lambda0);
        state.in_flight += 1;
        state.last_start = clock;
        state.fetches = state.fetches.saturating_add(1);
        // A host with a slot left may start again, but no sooner than its gap after this start.
        if u32::from(state.in_flight) < slots {
            state.free_at = state.free_at.max(earliest_after(clock, state.gap));
        }
        self.controller.consume(first_fetch);
        self.stats.fetches += 1;
        self.refresh_lambda0();
        self.wake_host(offer.host);
        Decision::Fetch { page: PageId(offer.page), host: HostId(offer.host) }
    }
}

/// Times within this relative distance of the clock are taken as now by
/// [`Scheduler::slot_opening_now`]: far above the few ulps of rounding, far below any gap or
/// token interval.
const SAME_INSTANT: f64 = 1e-9;

/// The largest `|Δ ln λ_0|` carried over by [`exp_of_small`] (`2^−6`).
const SMALL_LOG_STEP: f64 = 0.015_625;
/// Steps carried over at most before `λ_0` is re-derived from `ln λ_0` by `exp`: each step
/// rounds once (relative error ~1e-16), so `λ_0` stays within ~3e-14 of `e^{ln λ_0}`, far below
/// the 1% tolerance of the threshold and the ±5% swing of the bucket's proportional term.
const LAMBDA0_RESYNC: u32 = 256;

/// `e^step` for `|step| ≤ 2^−6` by its Taylor series to the sixth power (the first term left
/// out, `step^7/5040`, is below 3e-17): ~12 instructions where the platform's `exp` takes ~50,
/// and the online scheduler moves `λ_0` about twice per fetch (`Scheduler::refresh_lambda0`).
#[inline]
fn exp_of_small(step: f64) -> f64 {
    const INVERSE_FACTORIALS: [f64; 7] =
        [1.0, 1.0, 1.0 / 2.0, 1.0 / 6.0, 1.0 / 24.0, 1.0 / 120.0, 1.0 / 720.0];
    INVERSE_FACTORIALS.iter().rev().fold(0.0, |sum, &coefficient| sum * step + coefficient)
}

/// Whether `candidate` goes before `offer` in its host's order: the smaller key, then the lower
/// page (the order of the host's backlog).
pub(super) fn goes_before(candidate: &PageEntry, offer: &PageEntry) -> bool {
    candidate.key.total_cmp(&offer.key).then(candidate.page.cmp(&offer.page)).is_lt()
}

#[cfg(test)]
mod small_steps {
    use proptest::prelude::*;

    use super::{SMALL_LOG_STEP, exp_of_small};

    proptest! {
        /// The short series is `exp` to within two roundings over the whole range it is used on.
        #[test]
        fn the_series_is_exp(step in -SMALL_LOG_STEP..=SMALL_LOG_STEP) {
            let (series, exact) = (exp_of_small(step), step.exp());
            prop_assert!((series / exact - 1.0).abs() <= 2.3e-16, "{step}: {series} vs {exact}");
        }
    }
}

#[cfg(test)]
mod early_keys {
    #![allow(clippy::unwrap_used)]

    use freshet_policy::objective::Freshness;
    use freshet_policy::{crawl_value, time_to_reach};

    use crate::online::keys::{SURFACE_EARLINESS, THRESHOLD_TOLERANCE};
    use crate::online::{Budget, Decision, HostId, PageId, Politeness, Scheduler};

    /// One page (weight 1, change rate 0.5) fetched at 0, keyed under `λ_0 = 0.5`; just before
    /// its key comes, `λ_0` rises so that the page is due at `(1 + early_by)` times its key.
    /// Returns the decision at the key, the time the page reaches the new `λ_0` and the pages
    /// keyed again.
    fn at_the_key(early_by: f64) -> (Decision, f64, u64) {
        let budget = Budget { rate: 1.0, burst: 64.0, initial_lambda0: Some(0.5) };
        let mut scheduler = Scheduler::freshness(budget).unwrap();
        scheduler.set_host(HostId(0), Politeness::default()).unwrap();
        scheduler.restore(PageId(0), HostId(0), 1.0, 0.5, 0.0, 0.0).unwrap();
        let Decision::WaitUntil(key) = scheduler.next(0.0) else { panic!("the page is not due at 0") };
        scheduler.advance(key);
        let page = scheduler.pages[0].page();
        let lambda0 = crawl_value(Freshness, page, key * (1.0 + early_by)) / (1.0 - THRESHOLD_TOLERANCE);
        // A half-full bucket and no correction: `λ_0` is exactly this.
        scheduler.controller.reset(lambda0);
        (scheduler.next(key), time_to_reach(Freshness, page, lambda0), scheduler.stats().requeued)
    }

    /// A page whose key is early by less than `SURFACE_EARLINESS` of its age is fetched when its
    /// key comes, without being keyed again; one early by more goes back to the calendar, under
    /// its new due time.
    #[test]
    fn a_page_a_little_early_is_fetched_without_being_keyed_again() {
        let (decision, _, requeued) = at_the_key(SURFACE_EARLINESS / 2.0);
        assert!(matches!(decision, Decision::Fetch { page: PageId(0), .. }), "{decision:?}");
        assert_eq!(requeued, 0);
        let (decision, reached, requeued) = at_the_key(2.0 * SURFACE_EARLINESS);
        let Decision::WaitUntil(due) = decision else { panic!("{decision:?}") };
        assert!((due / reached - 1.0).abs() < 1e-12, "{due}, reached at {reached}");
        assert_eq!(requeued, 1);
    }
}
