//! `greedy`: at every budget slot, fetch the page whose expected value of a fetch now,
//! `w(1 − e^(−λτ))` (τ: time since its last fetch), is highest (seed 000_df0cf756c1e6fcc1.txt,
//! the naive rule it warns against: it ignores that waiting may be worth more).
//!
//! `O(n)` per fetch: a plain scan. The pages' curves cross as time passes (a page with high
//! `w` and low `λ` overtakes one with low `w` and high `λ`), so no fixed heap key orders them
//! for all times; a kinetic heap could do better, a scan is the obvious twin.
//! Pages whose host is not ready (politeness) are skipped; if none is ready the slot moves to
//! the earliest time one is.

use freshet_policy::Page;

use super::source::RateSource;
use super::{Fetch, Observation, Policy};
use crate::politeness::HostClock;
use crate::rng::SimRng;

/// The greedy scan.
#[derive(Debug, Clone)]
pub(crate) struct GreedyPolicy {
    source: RateSource,
    pages: Vec<Page>,
    host_of_page: Vec<u32>,
    last_fetch: Vec<f64>,
    /// Host clocks, only when some host is limited.
    hosts: Option<Vec<HostClock>>,
    slot: f64,
    clock: f64,
}

impl GreedyPolicy {
    pub(crate) fn new(
        source: RateSource,
        pages: Vec<Page>,
        host_of_page: Vec<u32>,
        hosts: Option<Vec<HostClock>>,
        budget: f64,
    ) -> Self {
        let n = pages.len();
        Self { source, pages, host_of_page, last_fetch: vec![0.0; n], hosts, slot: 1.0 / budget, clock: 0.0 }
    }

    fn best_at(&self, t: f64, ready: Option<&[bool]>) -> Option<usize> {
        let mut best: Option<(usize, f64)> = None;
        for (index, page) in self.pages.iter().enumerate() {
            if let Some(ready) = ready
                && !ready.get(self.host_of_page[index] as usize).copied().unwrap_or(false)
            {
                continue;
            }
            let value = page.weight * -(-page.change_rate * (t - self.last_fetch[index])).exp_m1();
            if best.is_none_or(|(_, best_value)| value > best_value) {
                best = Some((index, value));
            }
        }
        best.map(|(index, _)| index)
    }
}

impl Policy for GreedyPolicy {
    fn next_fetch(&mut self, now: f64, _rng: &mut SimRng) -> Option<Fetch> {
        let mut t = (self.clock + self.slot).max(now);
        loop {
            let ready: Option<Vec<bool>> =
                self.hosts.as_ref().map(|hosts| hosts.iter().map(|host| host.earliest(t) <= t).collect());
            if let Some(page) = self.best_at(t, ready.as_deref()) {
                let host = self.host_of_page[page] as usize;
                if let Some(clock) = self.hosts.as_mut().and_then(|hosts| hosts.get_mut(host)) {
                    clock.record(t);
                }
                self.clock = t;
                return Some(Fetch { page, time: t });
            }
            // No page on a ready host: move to the first time a host is ready.
            let next = self.hosts.as_ref()?.iter().map(|host| host.earliest(t)).fold(f64::INFINITY, f64::min);
            if !(next.is_finite() && next > t) {
                return None;
            }
            t = next;
        }
    }

    fn observe(&mut self, observation: &Observation) {
        if let Some(last) = self.last_fetch.get_mut(observation.page) {
            *last = observation.time;
        }
        if let Some(pages) = self.source.learned_pages(observation) {
            self.pages = pages;
        }
    }
}
