//! An exploration phase for learned rates: every page fetched about `K` times at intervals
//! that tell, before the exploiting policy takes over (the ε-first strategy of seed
//! 002_987a179045e4afb6.txt, "Multi-armed bandits": explore first, then exploit).
//!
//! Why: a fetch tells about a page's rate `λ` only through the interval `I` since the page's
//! previous fetch, and most of what it tells is at `λI` near 1. A schedule that revisits a
//! page only at `I ≫ 1/λ` sees a change every time and learns only "`λ ≳ 1/I`" (seed
//! 004_e0cda6b04941d422.txt); a page given rate 0 is never seen again. So the learned
//! `threshold` without this phase loses its share of freshness to exploration
//! (`docs/learned/README.md`). Here each page runs a *chain* of fetches whose next interval
//! is chosen from its own history:
//!
//! * after a change at every fetch so far: a quarter of the last interval (`λ` is above
//!   about `1/I`, look closer);
//! * after no change at all: four times the last interval (look further);
//! * once both were seen: `x/λ̂` with `λ̂` the interval MLE (seed 000_df0cf756c1e6fcc1.txt,
//!   (M1); `freshet_estimate::mle_rate`) and `x` = [`INFORMATIVE_LAMBDA_TAU`], where one
//!   observation's Fisher information about `ln λ`, `x²/(eˣ − 1)`, is largest (its
//!   derivative vanishes where `2(1 − e^{−x}) = x`, `x ≈ 1.594`), moved at most 4× per step;
//!
//! clamped to `[gap, n/R]`: not under the host's politeness gap nor the budget's spacing, and
//! not over the interval at which the uniform pass would revisit every page (a page unchanged
//! over `n/R` is slow enough for any decision the budget can pay for, and the exploiting
//! policy goes on learning it at its own intervals).
//!
//! Chains run side by side: a slow page's chain asks for a fetch every few hundred time units,
//! a fast page's every few. To keep every chain's intervals what it chose, a new page is
//! admitted only while the chains' demand `Σ 1/τ` (`τ` each chain's next interval) is under
//! [`ADMIT_BELOW`] of the budget, or when no chain is due in the next slot (which would go
//! idle: the phase has `K·n/R`, exactly the budget's worth of its fetches; when no page can be
//! admitted, such a slot goes to the chain due first, early, once half its interval passed);
//! due fetches go earliest first, starts `1/R` apart and each
//! host's politeness kept ([`HostClock`], the rule the simulator's meter checks). Pages are
//! admitted by weight, highest first (what is learned about them is worth most).
//!
//! The phase ends when every page has had `K` fetches or when the budget has paid for `K`
//! fetches per page (`K·n/R`), whichever is first; a page whose chain is cut short hands over
//! what it has (a slow page's few long unchanged intervals say "slow", which is what the
//! exploiting policy needs to fetch it, at intervals that go on telling).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use freshet_estimate::{EstimateStatus, mle_rate};

use super::Learner;
use crate::policy::{Fetch, Observation};
use crate::politeness::HostClock;

/// `x = λτ` at which one fetch's observation tells most about `ln λ` (see the module docs).
pub(crate) const INFORMATIVE_LAMBDA_TAU: f64 = 1.594;

/// Factor by which a chain's interval moves at most per fetch.
const STEP: f64 = 4.0;

/// A chain due later may be fetched into an idle slot once this share of its interval passed.
const EARLY_SHARE: f64 = 0.5;

/// Waiting pages looked at for one admission (see [`Explorer::admission`]).
const ADMISSION_LOOKS: usize = 64;

/// New chains start while the running chains ask for less than this share of the budget.
pub(crate) const ADMIT_BELOW: f64 = 0.8;

/// One page's chain.
#[derive(Debug, Clone, Copy, Default)]
struct Chain {
    /// Fetches made in the phase.
    fetches: u32,
    /// The next interval the chain asks for (0 until admitted). A chain is running from its
    /// admission until it has its fetches.
    interval: f64,
    /// Handed out by `next_fetch`, not yet observed.
    in_flight: bool,
}

/// The exploration phase (see the module docs). It owns the learner until the phase ends.
#[derive(Debug)]
pub(crate) struct Explorer {
    learner: Learner,
    fetches_per_page: u32,
    host_of_page: Vec<u32>,
    chains: Vec<Chain>,
    /// Last fetch time of every page (0: every copy is fresh at time 0).
    last_fetch: Vec<f64>,
    /// `(due time bits, page)` of active chains not in flight, earliest first (times ≥ 0).
    due: BinaryHeap<Reverse<(u64, usize)>>,
    /// Pages not yet admitted, the next one last.
    waiting: Vec<usize>,
    /// `Σ 1/interval` over active chains.
    demand: f64,
    budget: f64,
    spacing: f64,
    last_start: f64,
    /// `n/R`: the longest interval a chain asks for.
    longest: f64,
    /// The phase ends here at the latest: `K·n/R`.
    end: f64,
    /// The geometric mean of finished chains' estimates starts new chains: the sum of their
    /// `ln λ̂` and their count.
    log_rate_sum: f64,
    log_rate_count: u32,
    done: bool,
}

impl Explorer {
    /// The phase for `learner`'s pages, `fetches_per_page` (`K ≥ 1`) fetches each, under
    /// `budget` fetches per unit time.
    pub(crate) fn new(learner: Learner, host_of_page: Vec<u32>, budget: f64, fetches_per_page: u32) -> Self {
        let n = host_of_page.len();
        let weights = learner.weights();
        let mut waiting: Vec<usize> = (0..n).collect();
        // Highest weight admitted first: `waiting` is popped from the back.
        waiting.sort_by(|&a, &b| weights[a].total_cmp(&weights[b]).then(b.cmp(&a)));
        let longest = n as f64 / budget;
        Self {
            learner,
            fetches_per_page: fetches_per_page.max(1),
            host_of_page,
            chains: vec![Chain::default(); n],
            last_fetch: vec![0.0; n],
            due: BinaryHeap::new(),
            waiting,
            demand: 0.0,
            budget,
            spacing: 1.0 / budget,
            last_start: f64::NEG_INFINITY,
            longest,
            end: f64::from(fetches_per_page.max(1)) * longest,
            log_rate_sum: 0.0,
            log_rate_count: 0,
            done: n == 0,
        }
    }

    /// Whether the phase is over: no more fetches from it.
    #[cfg(test)]
    pub(crate) fn is_done(&self) -> bool {
        self.done
    }

    /// Ends the phase: the learner, and every page's last fetch time.
    pub(crate) fn finish(self) -> (Learner, Vec<f64>) {
        (self.learner, self.last_fetch)
    }

    /// The first interval of a new chain: `x/λ̄`, `λ̄` the geometric mean of the estimates of
    /// the chains done so far (the set's typical rate), or `n/(16R)` before any.
    fn first_interval(&self) -> f64 {
        if self.log_rate_count == 0 {
            return self.longest / 16.0;
        }
        let typical_rate = (self.log_rate_sum / f64::from(self.log_rate_count)).exp();
        INFORMATIVE_LAMBDA_TAU / typical_rate
    }

    /// The earliest polite start `≥ time` for `page`.
    fn polite(hosts: &[HostClock], host_of_page: &[u32], page: usize, time: f64) -> f64 {
        host_of_page
            .get(page)
            .and_then(|&host| hosts.get(host as usize))
            .map_or(time, |clock| clock.earliest(time))
    }

    /// The page to admit next and when: the first of the next [`ADMISSION_LOOKS`] waiting
    /// pages (by weight) whose host allows a fetch at `earliest`, else the one whose host
    /// allows it soonest (a capped host busy with its chains does not hold up the others).
    fn admission(&self, hosts: &[HostClock], earliest: f64) -> Option<(f64, usize)> {
        let mut best: Option<(f64, usize)> = None;
        for &page in self.waiting.iter().rev().take(ADMISSION_LOOKS) {
            let time = Self::polite(hosts, &self.host_of_page, page, earliest);
            if time <= earliest {
                return Some((time, page));
            }
            if best.is_none_or(|(best_time, _)| time < best_time) {
                best = Some((time, page));
            }
        }
        best
    }

    /// The next fetch of the phase at or after `now`, or `None` when the phase is over (and
    /// stays over). `hosts` are the hosts' politeness clocks, shared with the phase
    /// after this one; the start is recorded on its host's clock.
    pub(crate) fn next_fetch(&mut self, now: f64, hosts: &mut [HostClock]) -> Option<Fetch> {
        if self.done {
            return None;
        }
        let earliest = now.max(self.last_start + self.spacing);
        // The earliest due chain whose host allows it then (re-keying those it does not).
        let due = loop {
            let Some(&Reverse((bits, page))) = self.due.peek() else { break None };
            let wanted = f64::from_bits(bits).max(earliest);
            let ready = Self::polite(hosts, &self.host_of_page, page, wanted);
            if ready <= wanted {
                break Some((wanted, page));
            }
            self.due.pop();
            self.due.push(Reverse((ready.to_bits(), page)));
        };
        // Admit while the chains leave budget over, or when the slot would otherwise go idle.
        let idle = due.is_none_or(|(time, _)| time > earliest + self.spacing);
        let admit = if idle || self.demand < ADMIT_BELOW * self.budget {
            self.admission(hosts, earliest)
        } else {
            None
        };
        // A slot that would go idle (nothing due, nobody to admit) goes to the chain due first,
        // early, if half its interval has passed: any interval informs the estimate, and the
        // phase has no slot to waste.
        let due = due.map(|(time, page)| {
            let admissible = admit.is_some_and(|(admit_time, _)| admit_time <= earliest + self.spacing);
            if time <= earliest + self.spacing || admissible {
                return (time, page);
            }
            let (Some(chain), Some(&last)) = (self.chains.get(page), self.last_fetch.get(page)) else {
                return (time, page);
            };
            let early = Self::polite(
                hosts,
                &self.host_of_page,
                page,
                earliest.max(last + EARLY_SHARE * chain.interval),
            );
            (early.min(time), page)
        });
        let (time, page, admitted) = match (due, admit) {
            (Some((due_time, due_page)), Some((admit_time, admit_page))) => {
                if admit_time < due_time {
                    (admit_time, admit_page, true)
                } else {
                    (due_time, due_page, false)
                }
            }
            (Some((time, page)), None) => (time, page, false),
            (None, Some((time, page))) => (time, page, true),
            (None, None) => {
                // Nothing due and nothing to admit: every chain is done (the simulator reports
                // each fetch before asking for the next, so none is in flight).
                self.done = true;
                return None;
            }
        };
        if time >= self.end {
            self.done = true;
            return None;
        }
        if admitted {
            if let Some(position) = self.waiting.iter().rposition(|&waiting| waiting == page) {
                self.waiting.remove(position);
            }
            let interval = self.first_interval().clamp(self.spacing, self.longest);
            if let Some(chain) = self.chains.get_mut(page) {
                *chain = Chain { fetches: 0, interval, in_flight: false };
                self.demand += 1.0 / interval;
            }
        } else {
            self.due.pop();
        }
        if let Some(chain) = self.chains.get_mut(page) {
            chain.in_flight = true;
        }
        if let Some(clock) = self.host_of_page.get(page).and_then(|&host| hosts.get_mut(host as usize)) {
            clock.record(time);
        }
        self.last_start = time;
        Some(Fetch { page, time })
    }

    /// Learns from the phase's fetch of `observation.page` and sets its chain's next interval.
    pub(crate) fn observe(&mut self, observation: &Observation) {
        // Epoch ends are the exploiting policy's business: the priors are fitted at hand-over.
        let _ = self.learner.observe(observation);
        let page = observation.page;
        if let Some(last) = self.last_fetch.get_mut(page) {
            *last = observation.time;
        }
        let Some(chain) = self.chains.get_mut(page) else { return };
        if !chain.in_flight {
            return;
        }
        chain.in_flight = false;
        chain.fetches += 1;
        let old_interval = chain.interval;
        let history = self.learner.history(page);
        let next = match history.map(|history| (history.intervals(), history.changes())) {
            // The chain's first fetch came after an interval the chain did not choose (since
            // the page's last fetch before the phase): its second comes after the first
            // interval set at admission.
            _ if chain.fetches == 1 => old_interval,
            None | Some((0, _)) => old_interval,
            Some((_, 0)) => observation.interval * STEP,
            Some((intervals, changes)) if changes == intervals => observation.interval / STEP,
            Some(_) => {
                let estimate = history.map(mle_rate);
                match estimate {
                    Some(estimate) if estimate.status == EstimateStatus::Estimated && estimate.rate > 0.0 => {
                        let wanted = INFORMATIVE_LAMBDA_TAU / estimate.rate;
                        wanted.clamp(observation.interval / STEP, observation.interval * STEP)
                    }
                    _ => old_interval,
                }
            }
        };
        let next = next.clamp(self.spacing, self.longest);
        if chain.fetches >= self.fetches_per_page {
            self.demand -= 1.0 / old_interval;
            if let Some(estimate) = history.map(mle_rate)
                && estimate.status == EstimateStatus::Estimated
                && estimate.rate > 0.0
            {
                self.log_rate_sum += estimate.rate.ln();
                self.log_rate_count += 1;
            }
            return;
        }
        chain.interval = next;
        self.demand += 1.0 / next - 1.0 / old_interval;
        let due = observation.time + next;
        self.due.push(Reverse((due.to_bits(), page)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Host;
    use crate::rng::SimRng;

    /// Drives the phase alone on pages of known rates on `hosts` (page `i` on host
    /// `i % hosts.len()`), each fetch's change drawn from the exact probability `1 − e^{−λI}`
    /// with the simulator's generator; counts politeness breaches with the simulator meter's rule.
    fn run(
        rates: &[f64],
        hosts: &[Host],
        budget: f64,
        fetches_per_page: u32,
        seed: u64,
    ) -> (Explorer, Vec<f64>, u32, u64) {
        let n = rates.len();
        let host_of_page: Vec<u32> = (0..n).map(|page| (page % hosts.len()) as u32).collect();
        let learner = Learner::new(vec![1.0; n], host_of_page.clone(), budget);
        let mut explorer = Explorer::new(learner, host_of_page.clone(), budget, fetches_per_page);
        let mut clocks: Vec<HostClock> = hosts.iter().map(|host| HostClock::new(host, 1.0)).collect();
        let mut meters = clocks.clone();
        let mut breaches = 0;
        let mut last = vec![0.0; n];
        let mut times = Vec::new();
        let mut rng = SimRng::new(seed);
        let mut fetches = 0;
        let mut now: f64 = 0.0;
        while let Some(fetch) = explorer.next_fetch(now, &mut clocks) {
            assert!(fetch.time >= now, "{} < {now}", fetch.time);
            now = fetch.time;
            times.push(now);
            let breach = meters[host_of_page[fetch.page] as usize].record(now);
            breaches += u64::from(breach.min_delay) + u64::from(breach.capacity);
            let uniform = rng.uniform();
            let interval = now - last[fetch.page];
            let changed = uniform < 1.0 - (-rates[fetch.page] * interval).exp();
            last[fetch.page] = now;
            explorer.observe(&Observation {
                page: fetch.page,
                time: now,
                interval,
                changed,
                last_modified_age: None,
            });
            fetches += 1;
        }
        (explorer, times, fetches, breaches)
    }

    #[test]
    fn every_page_gets_its_fetches_within_the_budget_and_learns_its_rate() {
        // Rates over a decade and a half, all above 1/(n/R) = 0.25: every chain can finish.
        // Eight seeds of the change draws; the bounds sit under what each gave (in
        // parentheses, the worst of the eight).
        let rates: Vec<f64> = (0..40).map(|index| 0.5 * 10f64.powf(1.5 * f64::from(index) / 39.0)).collect();
        for seed in 1..=8 {
            let (explorer, times, fetches, _) = run(&rates, &[Host::UNLIMITED], 10.0, 20, seed);
            assert!(explorer.is_done());
            for pair in times.windows(2) {
                assert!(pair[1] - pair[0] >= 0.1 - 1e-9, "seed {seed}: starts closer than 1/R: {pair:?}");
            }
            // The phase has exactly the budget's worth of time (K·n/R = 80, 800 fetches): it
            // spends nearly all of it (771), and a slot left idle while every chain waited
            // shortens the last admitted chains (33 of 40 finish; the shortest has 7 fetches).
            let counts: Vec<u32> = explorer.chains.iter().map(|chain| chain.fetches).collect();
            assert_eq!(fetches, counts.iter().sum::<u32>());
            assert!(fetches >= 760, "seed {seed}: {fetches} fetches of the budget's 800");
            assert!(counts.iter().filter(|&&count| count == 20).count() >= 32, "seed {seed}: {counts:?}");
            assert!(counts.iter().all(|&count| count >= 5), "seed {seed}: {counts:?}");
            // Each chain's own estimate, from its chosen intervals (the interval MLE, no prior):
            // within 2x for most pages (31 of 40); the fastest, above what spacing 1/R can
            // resolve, are seen changed at every fetch.
            let (learner, _) = explorer.finish();
            let good = rates
                .iter()
                .enumerate()
                .filter(|&(page, &rate)| {
                    let estimate = learner.history(page).map(mle_rate);
                    estimate.is_some_and(|estimate| estimate.rate > rate / 2.0 && estimate.rate < rate * 2.0)
                })
                .count();
            assert!(good >= 30, "seed {seed}: only {good} of 40 estimates within 2x");
        }
    }

    #[test]
    fn the_phase_ends_when_the_budget_paid_for_it() {
        // Slow pages cannot finish chains of intervals up to n/R = 100 in K·n/R = 500: the
        // phase stops there, each page with some of its fetches.
        let rates = vec![0.001; 100];
        let (explorer, times, _, _) = run(&rates, &[Host::UNLIMITED], 1.0, 5, 7);
        assert!(explorer.is_done());
        assert!(times.last().is_some_and(|&last| last < 500.0), "{:?}", times.last());
        assert!(explorer.chains.iter().all(|chain| chain.fetches >= 2), "a page was left out");
    }

    #[test]
    fn hosts_are_never_fetched_faster_than_they_allow() {
        let hosts =
            [Host { capacity: 0.5, min_delay: 1.0 }, Host { capacity: 2.0, min_delay: 0.2 }, Host::UNLIMITED];
        let rates: Vec<f64> = (0..30).map(|index| 0.05 + f64::from(index % 5)).collect();
        let (_, _, fetches, breaches) = run(&rates, &hosts, 5.0, 10, 7);
        // Host 0 (a third of the pages) allows one fetch per 2 time units: the phase, 60 time
        // units long, ends with its chains short.
        assert!(fetches > 60, "{fetches}");
        assert_eq!(breaches, 0);
    }
}
