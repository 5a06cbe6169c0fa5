//! `threshold` with learned rates after an exploration phase (`--explore K`): every page is
//! first fetched about `K` times at intervals chosen to tell its rate (`learn/explore.rs`, the
//! ε-first strategy of seed 002_987a179045e4afb6.txt), then seed 003's online scheduler takes
//! over with the learner's estimates and every page's last fetch time, and goes on learning.
//!
//! The phase keeps each host's politeness with [`HostClock`]s (the simulator meter's rule); the
//! scheduler, which knows nothing of the phase's last start on each host, takes over once every
//! host allows a start (an idle gap of at most the longest host gap), and from then on keeps
//! politeness itself, as plain `threshold` does.

use freshet_policy::Page;

use super::learn::explore::Explorer;
use super::learn::{Learner, Summary};
use super::threshold::ThresholdPolicy;
use super::{Fetch, Observation, Policy};
use crate::error::Result;
use crate::model::Config;
use crate::politeness::HostClock;
use crate::rng::SimRng;

/// Which phase runs.
enum Phase {
    Exploring(Box<Explorer>),
    Exploiting(Box<ThresholdPolicy>),
    /// Only while changing phase (never seen outside `next_fetch`).
    Switching,
}

/// Exploration, then `threshold` (see the module docs).
pub(crate) struct ExploreFirst {
    phase: Phase,
    config: Config,
    hosts: Vec<HostClock>,
}

impl ExploreFirst {
    /// `learner`'s pages explored `fetches_per_page` times each, then handed to `threshold`.
    pub(crate) fn new(config: &Config, learner: Learner, fetches_per_page: u32) -> Self {
        let host_of_page: Vec<u32> = config.pages.iter().map(|page| page.host).collect();
        let hosts = config.hosts.iter().map(|host| HostClock::new(host, config.capacity_window)).collect();
        let explorer = Explorer::new(learner, host_of_page, config.budget, fetches_per_page);
        Self { phase: Phase::Exploring(Box::new(explorer)), config: config.clone(), hosts }
    }

    /// Ends the exploration at `now`: the priors fitted to what it saw, every page handed to
    /// the scheduler with its estimate and last fetch time.
    fn hand_over(&mut self, now: f64) -> Result<()> {
        let Phase::Exploring(explorer) = std::mem::replace(&mut self.phase, Phase::Switching) else {
            return Ok(());
        };
        let (mut learner, last_fetch) = (*explorer).finish();
        learner.refit();
        let pages: Vec<Page> = learner.pages(Summary::Optimistic);
        // The scheduler knows nothing of the phase's last start on each host: it starts once
        // every host allows one.
        let start = self.hosts.iter().map(|clock| clock.earliest(now)).fold(now, f64::max);
        let threshold = ThresholdPolicy::resumed(&self.config, &pages, Some(learner), &last_fetch, start)?;
        self.phase = Phase::Exploiting(Box::new(threshold));
        Ok(())
    }
}

impl Policy for ExploreFirst {
    fn next_fetch(&mut self, now: f64, rng: &mut SimRng) -> Option<Fetch> {
        if let Phase::Exploring(explorer) = &mut self.phase {
            if let Some(fetch) = explorer.next_fetch(now, &mut self.hosts) {
                return Some(fetch);
            }
            // `build` made a scheduler of this configuration once already (its hosts and
            // budget are accepted), so hand-over fails only on a page's estimate, which the
            // learner keeps finite and positive; on failure there is nothing left to do.
            self.hand_over(now).ok()?;
        }
        let Phase::Exploiting(threshold) = &mut self.phase else { return None };
        threshold.next_fetch(now, rng)
    }

    fn observe(&mut self, observation: &Observation) {
        match &mut self.phase {
            Phase::Exploring(explorer) => explorer.observe(observation),
            Phase::Exploiting(threshold) => threshold.observe(observation),
            Phase::Switching => {}
        }
    }
}
