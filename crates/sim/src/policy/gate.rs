//! The politeness gate: holds back each fetch of a wrapped policy until its host allows it,
//! without holding back the fetches of other hosts.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::{Fetch, Observation, Policy};
use crate::politeness::HostClock;
use crate::rng::SimRng;

/// Wraps a policy so that no fetch breaks a host's minimum delay or capacity, the way a
/// crawler's per-host queues do: a fetch the inner policy wants at `t` on a host that is not
/// ready at `t` is deferred to the host's earliest polite time and the gate goes on with the
/// inner policy's next fetches; deferred fetches start when their host is ready, before newer
/// ones. Fetch starts stay at least `1/R` apart (the budget), so deferrals never add fetches.
/// A page asked for again while deferred is asked for once (its rate exceeds what its host
/// allows). An earlier gate delayed the whole queue behind a blocked fetch, and with many small
/// capped hosts rate policies then used a tenth of the budget.
pub(crate) struct Gate {
    inner: Box<dyn Policy>,
    host_of_page: Vec<u32>,
    hosts: Vec<HostClock>,
    /// `(time its host is ready, bits; page)`, earliest first (times ≥ 0 sort as their bits).
    deferred: BinaryHeap<Reverse<(u64, usize)>>,
    is_deferred: Vec<bool>,
    /// A fetch taken from the inner policy and not yet started or deferred.
    pending: Option<Fetch>,
    /// The inner policy has no more fetches.
    inner_done: bool,
    spacing: f64,
    last_start: f64,
}

impl Gate {
    pub(crate) fn new(
        inner: Box<dyn Policy>,
        host_of_page: Vec<u32>,
        hosts: Vec<HostClock>,
        budget: f64,
    ) -> Self {
        let pages = host_of_page.len();
        Self {
            inner,
            host_of_page,
            hosts,
            deferred: BinaryHeap::new(),
            is_deferred: vec![false; pages],
            pending: None,
            inner_done: false,
            spacing: 1.0 / budget,
            last_start: f64::NEG_INFINITY,
        }
    }

    fn clock(&mut self, page: usize) -> Option<&mut HostClock> {
        let host = *self.host_of_page.get(page)? as usize;
        self.hosts.get_mut(host)
    }

    /// The earliest deferred fetch whose host is ready at `time` and when, re-keying entries
    /// whose host was taken meanwhile.
    fn first_deferred(&mut self, earliest: f64) -> Option<(f64, usize)> {
        while let Some(&Reverse((bits, page))) = self.deferred.peek() {
            let wanted = f64::from_bits(bits).max(earliest);
            let ready = self.clock(page).map_or(wanted, |clock| clock.earliest(wanted));
            if ready <= wanted {
                return Some((wanted, page));
            }
            self.deferred.pop();
            self.deferred.push(Reverse((ready.to_bits(), page)));
        }
        None
    }

    fn start(&mut self, page: usize, time: f64) -> Fetch {
        if let Some(clock) = self.clock(page) {
            clock.record(time);
        }
        self.last_start = time;
        Fetch { page, time }
    }
}

impl Policy for Gate {
    fn next_fetch(&mut self, now: f64, rng: &mut SimRng) -> Option<Fetch> {
        loop {
            let earliest = now.max(self.last_start + self.spacing);
            if self.pending.is_none() && !self.inner_done {
                self.pending = self.inner.next_fetch(now, rng);
                self.inner_done = self.pending.is_none();
            }
            let deferred = self.first_deferred(earliest);
            let Some(fetch) = self.pending else {
                let (time, page) = deferred?;
                self.deferred.pop();
                self.is_deferred[page] = false;
                return Some(self.start(page, time));
            };
            let wanted = fetch.time.max(earliest);
            if let Some((time, page)) = deferred
                && time <= wanted
            {
                self.deferred.pop();
                self.is_deferred[page] = false;
                return Some(self.start(page, time));
            }
            self.pending = None;
            let ready = self.clock(fetch.page).map_or(wanted, |clock| clock.earliest(wanted));
            if ready <= wanted {
                return Some(self.start(fetch.page, wanted));
            }
            if let Some(flag) = self.is_deferred.get_mut(fetch.page)
                && !*flag
            {
                *flag = true;
                self.deferred.push(Reverse((ready.to_bits(), fetch.page)));
            }
        }
    }

    fn observe(&mut self, observation: &Observation) {
        self.inner.observe(observation);
    }

    /// The inner policy's upcoming pages (a hint: a deferred fetch may come later than
    /// announced, which changes nothing but when its record is loaded).
    fn take_upcoming(&mut self, pages: &mut Vec<usize>) {
        self.inner.take_upcoming(pages);
    }
}
