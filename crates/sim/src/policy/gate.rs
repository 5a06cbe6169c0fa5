//! The politeness gate: delays each fetch of a wrapped policy until its host allows it.

use super::{Fetch, Observation, Policy};
use crate::politeness::HostClock;
use crate::rng::SimRng;

/// Wraps a policy so that no fetch breaks a host's minimum delay or capacity: a fetch the
/// inner policy wants at `t` starts at the host's earliest polite time `≥ t`. Fetches after
/// it are never earlier (time only moves forward), so a delay pushes back the queue behind it.
pub(crate) struct Gate {
    inner: Box<dyn Policy>,
    host_of_page: Vec<u32>,
    hosts: Vec<HostClock>,
}

impl Gate {
    pub(crate) fn new(inner: Box<dyn Policy>, host_of_page: Vec<u32>, hosts: Vec<HostClock>) -> Self {
        Self { inner, host_of_page, hosts }
    }
}

impl Policy for Gate {
    fn next_fetch(&mut self, now: f64, rng: &mut SimRng) -> Option<Fetch> {
        let fetch = self.inner.next_fetch(now, rng)?;
        let host = self.host_of_page.get(fetch.page).map(|&host| host as usize);
        let Some(clock) = host.and_then(|host| self.hosts.get_mut(host)) else {
            return Some(fetch);
        };
        let time = clock.earliest(fetch.time.max(now));
        clock.record(time);
        Some(Fetch { page: fetch.page, time })
    }

    fn observe(&mut self, observation: &Observation) {
        self.inner.observe(observation);
    }
}
