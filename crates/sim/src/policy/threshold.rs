//! `threshold`: seed 003's online scheduler (`freshet_schedule::online::Scheduler`), unchanged,
//! driven by the simulator's clock.
//!
//! The simulator asks for the next fetch at `now`; the adapter asks the scheduler, and while it
//! answers "wait until `t`" moves its own clock to `t` and asks again, so the fetch it returns is
//! the scheduler's first `Fetch` at or after `now`. Fetches take no time in the simulation: the
//! observation is reported back as `fetched` at the fetch's own time, which releases the host's
//! slot. Every page is `restore`d as fetched at time 0 (the simulator starts with every copy
//! fresh), every host gets the politeness `min_delay` and `max_rate = capacity` (the scheduler
//! spaces starts by `max(min_delay, 1/capacity)`, stricter than the simulator's token bucket,
//! so it needs no gate). The global budget is the scheduler's `Budget`: `λ_0` is found online,
//! nothing is solved in advance.
//!
//! Learned rates: the shared [`Learner`] (see the module docs of [`crate::policy`]); at the end
//! of each of its epochs every page's estimated rate is handed to the scheduler with `update`,
//! and `λ_0` is re-solved for the new estimates (`Scheduler::resolve_lambda0`).

use freshet_policy::Page;
use freshet_policy::objective::Freshness;
use freshet_schedule::online::{Budget, Decision, HostId, Outcome, PageId, Politeness, Scheduler};

use super::learn::Learner;
use super::{Fetch, Observation, Policy};
use crate::error::{Result, SimError};
use crate::model::Config;
use crate::rng::SimRng;

/// The scheduler and what feeds it.
pub(crate) struct ThresholdPolicy {
    scheduler: Scheduler<Freshness>,
    learner: Option<Learner>,
    /// The scheduler's notion of now (never behind the simulator's).
    clock: f64,
    /// No fetch is asked for at or after this time.
    horizon: f64,
    /// How long to let the budget refill when the scheduler has nothing queued (every host
    /// parked because `λ_0` is above every page's `V(∞)`): `burst / rate`.
    refill_time: f64,
}

impl ThresholdPolicy {
    /// The scheduler for `config`'s hosts and budget, holding `pages` (true or initial
    /// estimated rates), all fetched at time 0.
    pub(crate) fn new(config: &Config, pages: &[Page], learner: Option<Learner>) -> Result<Self> {
        let budget = Budget::new(config.budget);
        let refill_time = budget.burst / budget.rate;
        let mut scheduler = Scheduler::freshness(budget).map_err(SimError::Scheduler)?;
        for (index, host) in config.hosts.iter().enumerate() {
            let politeness = Politeness { min_delay: host.min_delay, max_rate: host.capacity };
            scheduler.set_host(HostId(index as u32), politeness).map_err(SimError::Scheduler)?;
        }
        for (index, (page, sim_page)) in pages.iter().zip(&config.pages).enumerate() {
            scheduler
                .restore(PageId(index as u32), HostId(sim_page.host), page.weight, page.change_rate, 0.0, 0.0)
                .map_err(SimError::Scheduler)?;
        }
        Ok(Self { scheduler, learner, clock: 0.0, horizon: config.horizon, refill_time })
    }
}

impl Policy for ThresholdPolicy {
    fn next_fetch(&mut self, now: f64, _rng: &mut SimRng) -> Option<Fetch> {
        self.clock = self.clock.max(now);
        while self.clock < self.horizon {
            match self.scheduler.next(self.clock) {
                Decision::Fetch { page, .. } => {
                    return Some(Fetch { page: page.0 as usize, time: self.clock });
                }
                // The scheduler never answers a time before its clock; a wait that does not move
                // time forward would loop, so it counts as the smallest step possible.
                Decision::WaitUntil(time) => self.clock = time.max(self.clock.next_up()),
                Decision::Idle if self.scheduler.is_empty() => return None,
                // Nothing queued though pages exist: every page is worth less than `λ_0` at any
                // age. The controller lowers `λ_0` while the unused budget accumulates.
                Decision::Idle => self.clock += self.refill_time,
            }
        }
        None
    }

    fn observe(&mut self, observation: &Observation) {
        let page = PageId(observation.page as u32);
        // The fetch was the scheduler's own (next_fetch returned it), so this cannot fail; if it
        // did, the page would only lose this one report.
        let _ = self.scheduler.fetched(page, Outcome::Fetched, observation.time);
        let Some(learner) = self.learner.as_mut() else { return };
        if learner.observe(observation) {
            for (index, estimate) in learner.pages().iter().enumerate() {
                // Estimates are finite and positive by the learner's contract (floored, with a
                // fallback); a rejected update keeps the page's previous rate.
                let _ = self.scheduler.update(PageId(index as u32), estimate.weight, estimate.change_rate);
            }
            // Every rate moved at once: find `λ_0` for the new estimates now.
            self.scheduler.resolve_lambda0();
        }
    }
}
