//! The deciding verbs: [`Scheduler::next`] and [`Scheduler::fetched`], and the host queue keys
//! they maintain.

use freshet_policy::Objective;

use super::demand::{SWEEP_SLOTS_MOVING, SWEEP_SLOTS_SETTLED};
use super::host::{Contender, HeadView, ParkedHost};
use super::keys::{due_time, value_now};
use super::scheduler::{HOST_KEY_MARGIN, REKEY_TOLERANCE};
use super::{Decision, HostId, OnlineError, OnlineResult, Outcome, PageId, Scheduler};

impl<O: Objective> Scheduler<O> {
    /// What to do at `now`: fetch a page, wait, or nothing.
    ///
    /// A page is fetched when its host's slot is free (politeness) and a budget token is there,
    /// and it heads its host's queue (earliest to reach `λ_0 + λ_i`) with `V(τ) ≥ λ_0`. Tokens go
    /// by value (seed 003: pages are served in order of crawl value): among the hosts that may
    /// serve within one token interval `1/k_0`, the one whose head page is worth most gets the
    /// token, and while only one token is left it is held for that host even if a host worth less
    /// is ready a moment earlier. `now` earlier than a previous call (or NaN) counts as the
    /// latest time seen.
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
        let slots = if self.controller.settled() { SWEEP_SLOTS_SETTLED } else { SWEEP_SLOTS_MOVING };
        self.sweep_demand(slots);
        loop {
            let token_time = self.controller.token_time(self.clock);
            self.admit_contenders(self.clock + 1.0 / self.budget.rate);
            let Some(best) = self.live_contender() else {
                let Some(entry) = self.ready.peek() else { return Decision::Idle };
                return Decision::WaitUntil(entry.key.max(token_time));
            };
            if token_time > self.clock {
                return Decision::WaitUntil(token_time);
            }
            let chosen = if best.ready_at <= self.clock {
                self.contenders.pop();
                best
            } else if self.controller.level() < 2.0 {
                // One token: held for the host worth most, ready within a token interval.
                return Decision::WaitUntil(best.ready_at);
            } else {
                match self.pop_ready_contender() {
                    Some(chosen) => chosen,
                    None => return Decision::WaitUntil(best.ready_at),
                }
            };
            self.hosts[chosen.host as usize].ready_key = f64::INFINITY;
            let Some((ready_at, head)) = self.host_ready_time(chosen.host, self.lambda0) else { continue };
            if ready_at == f64::INFINITY {
                self.park(chosen.host);
                continue;
            }
            if ready_at > self.clock {
                self.push_host(chosen.host, ready_at);
                continue;
            }
            return self.start_fetch(chosen.host, head);
        }
    }

    /// Moves the hosts of the global queue keyed at or before `horizon` to the contenders, with
    /// their exact ready time under the current `λ_0` and their head page's value then; hosts
    /// found later go back to the global queue, hosts with nothing worth a fetch are parked.
    fn admit_contenders(&mut self, horizon: f64) {
        while let Some(entry) = self.ready.peek() {
            if entry.key > horizon {
                return;
            }
            self.ready.pop();
            let Some(state) = self.hosts.get_mut(entry.host as usize) else { continue };
            state.ready_key = f64::INFINITY;
            match self.host_ready_time(entry.host, self.lambda0) {
                None => {}
                Some((f64::INFINITY, _)) => self.park(entry.host),
                Some((ready_at, _)) if ready_at > horizon => self.push_host(entry.host, ready_at),
                Some((ready_at, head)) => {
                    let value = value_now(self.objective, &head.slot, ready_at.max(self.clock));
                    self.push_contender(entry.host, ready_at, value);
                }
            }
        }
    }

    /// The live contender worth most, dropping stale ones on the way.
    fn live_contender(&mut self) -> Option<Contender> {
        while let Some(entry) = self.contenders.peek().copied() {
            if self
                .hosts
                .get(entry.host as usize)
                .is_some_and(|host| host.present && host.generation == entry.generation)
            {
                return Some(entry);
            }
            self.contenders.pop();
        }
        None
    }

    /// Pops the contender worth most among those ready now (the others stay).
    fn pop_ready_contender(&mut self) -> Option<Contender> {
        let mut later = Vec::new();
        let mut chosen = None;
        while let Some(entry) = self.live_contender() {
            self.contenders.pop();
            if entry.ready_at <= self.clock {
                chosen = Some(entry);
                break;
            }
            later.push(entry);
        }
        self.contenders.extend(later);
        chosen
    }

    /// Makes `host` a contender: it may serve at `ready_at`, a page worth `value`.
    fn push_contender(&mut self, host: u32, ready_at: f64, value: f64) {
        let Some(state) = self.hosts.get_mut(host as usize) else { return };
        state.generation = state.generation.wrapping_add(1);
        state.ready_key = ready_at;
        self.ready.remove(host);
        self.contenders.push(Contender { value, ready_at, host, generation: state.generation });
        if self.contenders.len() > 2 * self.hosts.len() + 1024 {
            self.rebuild_ready();
        }
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
        page_slot.set_in_flight(false);
        if page_slot.is_present() {
            // Queued without re-keying the host: it is re-keyed right after, once.
            self.queue_page(page.0);
        }
        self.schedule_host(slot.host);
        Ok(())
    }

    /// Moves the clock to `now` (never backwards), runs the budget controller, and rebuilds the
    /// global queue if `λ_0` fell below the margin its keys were computed with.
    pub(super) fn advance(&mut self, now: f64) {
        if now > self.clock {
            if self.started && self.clock.is_finite() {
                self.controller.advance(now - self.clock);
            }
            self.clock = now;
        }
        self.refresh_lambda0();
    }

    pub(super) fn refresh_lambda0(&mut self) {
        if !self.started {
            return;
        }
        self.lambda0 = self.controller.lambda0();
        // A rebuild costs O(hosts): at most one per `hosts` fetches, so O(1) amortised; between
        // two, keys may be late by the drift of λ_0 below its margin.
        let paid = self.stats.fetches - self.fetches_at_rebuild >= self.hosts.len() as u64;
        if self.lambda0 < self.keyed_lambda0 && paid {
            self.rebuild_ready();
        }
        self.unpark();
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

    /// Re-keys `host` in the global queue, conservatively: with `λ_0·HOST_KEY_MARGIN`, so the key
    /// is no later than the host's true ready time unless `λ_0` falls by more than the margin.
    pub(super) fn schedule_host(&mut self, host: u32) {
        let threshold = self.lambda0 * HOST_KEY_MARGIN;
        if let Some(state) = self.hosts.get_mut(host as usize) {
            state.generation = state.generation.wrapping_add(1);
            state.ready_key = f64::INFINITY;
        }
        match self.host_ready_time(host, threshold) {
            Some((f64::INFINITY, _)) => self.park(host),
            Some((ready_at, _)) => {
                // No host starts before the next budget token: keyed no earlier, a host whose
                // backlog waits for tokens does not jump ahead of one whose slot opens before
                // the token (a capped host would lose its slots to a flood of new pages).
                let ready_at = ready_at.max(self.controller.token_time(self.clock));
                self.push_host(host, ready_at);
                self.keyed_lambda0 = self.keyed_lambda0.max(threshold);
            }
            None => self.ready.remove(host),
        }
    }

    /// Parks a host none of whose pages is ever worth a fetch at the current threshold: its `λ_i`
    /// is reset (its capacity does not bind), its queue re-keyed under `λ_0`, and it waits in the
    /// parked queue until `λ_0` falls below its best page's `V(∞)`.
    fn park(&mut self, host: u32) {
        let lambda0 = self.lambda0;
        let Some(state) = self.hosts.get_mut(host as usize) else { return };
        state.lambda = 0.0;
        state.rekey(self.objective, &self.pages, lambda0);
        self.stats.host_rekeys += 1;
        let objective = self.objective;
        let best = state
            .queued()
            .filter_map(|entry| self.pages.get(entry.page as usize))
            .map(|slot| objective.marginal_at_zero(slot.page()))
            .fold(f64::NEG_INFINITY, f64::max);
        state.generation = state.generation.wrapping_add(1);
        state.ready_key = f64::INFINITY;
        self.ready.remove(host);
        if best > 0.0 {
            self.parked.push(ParkedHost { level: best, host, generation: state.generation });
        }
    }

    /// Brings back the parked hosts whose best page has become worth a fetch.
    fn unpark(&mut self) {
        while let Some(parked) = self.parked.peek().copied() {
            if parked.level <= self.lambda0 {
                return;
            }
            self.parked.pop();
            let live = self
                .hosts
                .get(parked.host as usize)
                .is_some_and(|state| state.generation == parked.generation);
            if live {
                // Its keys were computed under a threshold above every page's `V(∞)`: all `∞`.
                if let Some(state) = self.hosts.get_mut(parked.host as usize) {
                    state.rekey(self.objective, &self.pages, self.lambda0);
                    self.stats.host_rekeys += 1;
                }
                self.schedule_host(parked.host);
            }
        }
    }

    /// Puts `host` in the global queue at `key` (if finite), replacing its previous entry.
    fn push_host(&mut self, host: u32, key: f64) {
        let Some(state) = self.hosts.get_mut(host as usize) else { return };
        state.generation = state.generation.wrapping_add(1);
        state.ready_key = key;
        if key.is_finite() {
            self.ready.set(host, key);
        } else {
            self.ready.remove(host);
        }
    }

    /// When `host` may start its head page if pages are eligible from `threshold` on: the later
    /// of its slot's free time and the time the head's value reaches `threshold`. `None` if the
    /// host is absent, in flight, or has no page. Re-keys the host's queue first if its
    /// threshold drifted.
    pub(super) fn host_ready_time(&mut self, host: u32, threshold: f64) -> Option<(f64, HeadView)> {
        let (lambda0, slots) = (self.lambda0, self.host_slots);
        let state = self.hosts.get_mut(host as usize)?;
        if !state.present || u32::from(state.in_flight) >= slots {
            return None;
        }
        let host_threshold = lambda0 + state.lambda;
        if state.refresh_keys(self.objective, &self.pages, host_threshold) {
            self.stats.host_rekeys += 1;
        }
        let fresh = state.fresh_head(self.objective, &self.pages, host_threshold)?;
        if fresh.rekeyed {
            self.stats.host_rekeys += 1;
        }
        let mut head = fresh.head;
        // For a host with `λ_i = 0` asked at `λ_0` (the common case), the two thresholds are the
        // same number and so is the due time.
        let mut eligible = if threshold == host_threshold {
            fresh.due
        } else {
            due_time(self.objective, &head.slot, threshold)
        };
        if eligible > state.free_at.max(self.clock) && state.lambda > 0.0 {
            // The slot opens with nothing worth a fetch: the host's capacity does not bind now,
            // so `λ_i = 0`. Keys computed under the old threshold may hide pages worth `λ_0`
            // (a page never fetched with `λ_0 ≤ V(∞) < λ_0 + λ_i` is keyed `∞`): re-key.
            let drifted = state.lambda > REKEY_TOLERANCE * lambda0;
            state.lambda = 0.0;
            if drifted {
                state.rekey(self.objective, &self.pages, lambda0);
                self.stats.host_rekeys += 1;
            }
            if threshold < lambda0 {
                // Keyed for the global queue (under the margin: after `fetched`, a rebuild):
                // judge it again with `λ_i = 0`, as the second re-key `fetched` used to run did
                // (the queue's drift rules then see the new threshold). Once at most: `λ_i` is
                // 0 now. Doing this for every look (admission, the chosen contender) too cost
                // `resolving_lambda0_mints_no_tokens` 23 fetches of 1,000 (939, under its 950).
                return self.host_ready_time(host, threshold);
            }
            if drifted {
                head = state.head(&self.pages)?;
                eligible = due_time(self.objective, &head.slot, threshold);
            }
        }
        Some((state.free_at.max(eligible), head))
    }

    /// Starts fetching `head`, the live head of `host`'s queue, now.
    fn start_fetch(&mut self, host: u32, head: HeadView) -> Decision {
        let clock = self.clock;
        let lambda0 = self.lambda0;
        let chosen = head.page;
        let (Some(state), Some(slot)) =
            (self.hosts.get_mut(host as usize), self.pages.get_mut(chosen as usize))
        else {
            return Decision::Idle;
        };
        state.pop_head();
        slot.set_in_flight(true);
        state.record_service(value_now(self.objective, slot, clock), lambda0);
        state.in_flight += 1;
        state.last_start = clock;
        state.generation = state.generation.wrapping_add(1);
        state.ready_key = f64::INFINITY;
        state.fetches = state.fetches.saturating_add(1);
        // A host with a slot left may start again, but no sooner than its gap after this start.
        let slot_left = u32::from(state.in_flight) < self.host_slots;
        if slot_left {
            state.free_at = state.free_at.max(earliest_after(clock, state.gap));
        }
        self.ready.remove(host);
        self.controller.consume();
        self.stats.fetches += 1;
        self.refresh_lambda0();
        if slot_left {
            self.schedule_host(host);
        }
        Decision::Fetch { page: PageId(chosen), host: HostId(host) }
    }
}

/// `start + gap`, rounded up so that `result − start ≥ gap` holds in floating point too.
fn earliest_after(start: f64, gap: f64) -> f64 {
    let sum = start + gap;
    if sum - start < gap { sum + sum.abs() * f64::EPSILON } else { sum }
}
