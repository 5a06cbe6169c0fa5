//! The collection at a glance, for a crawler's status page and metrics: [`Scheduler::census`]
//! (one pass over the pages) and [`Scheduler::hosts_by_lambda`].

use freshet_policy::Objective;

use super::keys::value_now;
use super::{HostId, Scheduler};

/// What [`Scheduler::census`] counts, at one time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Census {
    /// Pages in the scheduler.
    pub pages: usize,
    /// Of those, fetched at least once.
    pub fetched: usize,
    /// Of those, in flight now.
    pub in_flight: usize,
    /// Pages whose crawl value has reached their host's threshold `λ_0 + λ_i` (due now; a
    /// never-fetched page counts if `V(∞)` reaches it).
    pub due: usize,
    /// The expected weighted freshness of the copies, by the pages' own change rates:
    /// `Σ w_i e^(−λ_i τ_i) / Σ w_i` with `τ_i` the time since the page's last fetch (the
    /// probability that a Poisson page did not change since; seed 000's freshness), a page never
    /// fetched counting 0. As good as the rate estimates are.
    pub expected_freshness: f64,
    /// `λ_0` now (as of the latest call that moved the clock).
    pub lambda0: f64,
}

/// One host's numbers, for [`Scheduler::hosts_by_lambda`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HostNumbers {
    /// The host.
    pub host: HostId,
    /// Its `λ_i`: what one more fetch per unit time on it would be worth (0 when its capacity
    /// does not bind).
    pub lambda: f64,
    /// Its capacity, fetch starts per unit time (`1/gap`).
    pub capacity: f64,
    /// Fetches started on it.
    pub fetches: u64,
    /// Pages on it.
    pub pages: u32,
}

impl<O: Objective> Scheduler<O> {
    /// Counts the pages at `now`: `O(pages)`.
    #[must_use]
    pub fn census(&self, now: f64) -> Census {
        let mut census = Census {
            pages: 0,
            fetched: 0,
            in_flight: 0,
            due: 0,
            expected_freshness: 0.0,
            lambda0: self.lambda0,
        };
        let (mut fresh, mut weights) = (0.0, 0.0);
        for slot in self.pages.iter().filter(|slot| slot.is_present()) {
            census.pages += 1;
            let weight = f64::from(slot.weight);
            weights += weight;
            if slot.in_flight() {
                census.in_flight += 1;
            }
            if slot.was_fetched() {
                census.fetched += 1;
                let age = (now - slot.last).max(0.0);
                fresh += weight * (-f64::from(slot.change_rate) * age).exp();
            }
            let host_lambda = self.hosts.get(slot.host as usize).map_or(0.0, |host| host.lambda);
            if !slot.in_flight() && value_now(self.objective, slot, now) >= self.lambda0 + host_lambda {
                census.due += 1;
            }
        }
        if weights > 0.0 {
            census.expected_freshness = fresh / weights;
        }
        census
    }

    /// The `count` hosts with the highest `λ_i` (the hosts whose politeness limits cost the
    /// most freshness: seed 003's "which host should give us more capacity"), highest first.
    #[must_use]
    pub fn hosts_by_lambda(&self, count: usize) -> Vec<HostNumbers> {
        let mut hosts: Vec<HostNumbers> = self
            .hosts
            .iter()
            .enumerate()
            .filter(|(_, host)| host.present)
            .map(|(index, host)| HostNumbers {
                host: HostId(index as u32),
                lambda: host.lambda,
                capacity: 1.0 / host.gap,
                fetches: u64::from(host.fetches),
                pages: host.live_pages,
            })
            .collect();
        hosts.sort_by(|a, b| b.lambda.total_cmp(&a.lambda).then(b.fetches.cmp(&a.fetches)));
        hosts.truncate(count);
        hosts
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::super::{Budget, Decision, Outcome, PageId, Politeness};
    use super::*;

    #[test]
    fn a_census_counts_and_weighs() {
        let budget = Budget { initial_lambda0: Some(1.0), ..Budget::new(10.0) };
        let mut scheduler = Scheduler::freshness(budget).unwrap();
        scheduler.set_host(HostId(0), Politeness::default()).unwrap();
        scheduler.set_host(HostId(1), Politeness { min_delay: 2.0, max_rate: f64::INFINITY }).unwrap();
        scheduler.add(PageId(0), HostId(0), 3.0, 0.5, 0.0).unwrap();
        scheduler.add(PageId(1), HostId(1), 1.0, 0.1, 0.0).unwrap();
        let before = scheduler.census(0.0);
        assert_eq!((before.pages, before.fetched, before.due), (2, 0, 2));
        assert_eq!(before.expected_freshness, 0.0);
        // Fetch both, then look one time unit later.
        for _ in 0..2 {
            let Decision::Fetch { page, .. } = scheduler.next(0.0) else { panic!("both are due") };
            scheduler.fetched(page, Outcome::Fetched, 0.0).unwrap();
        }
        let after = scheduler.census(1.0);
        assert_eq!((after.pages, after.fetched, after.in_flight), (2, 2, 0));
        let expected = (3.0 * (-0.5f64).exp() + (-0.1f64).exp()) / 4.0;
        assert!((after.expected_freshness - expected).abs() < 1e-6, "{after:?}");
        let hosts = scheduler.hosts_by_lambda(5);
        assert_eq!(hosts.len(), 2);
        assert!((hosts.iter().find(|h| h.host == HostId(1)).unwrap().capacity - 0.5).abs() < 1e-12);
    }
}
