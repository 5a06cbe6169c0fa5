//! The feed-forward threshold `λ_ff`: where the pages' steady-state demand meets the budget.
//!
//! Seed 003 (003_aad34b8e7abe1f9a.txt) fixes `λ_0` by `Σ_i min(k_i, S_i(λ_0)) = k_0`, with
//! `S_i(λ) = Σ_{j ∈ i} f_j(λ)` the rates host `i`'s pages take at threshold `λ`
//! (`Objective::rate_at_marginal`) and `k_i = 1/gap` its politeness capacity: the equation the
//! batch solver `freshet_policy::solve` solves. The scheduler evaluates its left side and slope
//! at one `λ` per sweep over its page slots, a few slots per fetch started, per `Idle` and per
//! token a full bucket lets go beyond its first bucketful (`Scheduler::next`; sequential reads;
//! the sums of hosts with a finite capacity live in a vector indexed by host, those of the
//! uncapped hosts, whose `min(∞, S_i)` is `S_i`, in one sum), and takes a damped Newton step on
//! `ln λ` when a sweep completes. A sweep costs `O(pages + hosts)`, spread over `pages/4` to `pages/2`
//! fetches. At the first `next` without a configured `initial_lambda0`, whole sweeps run at once,
//! with a bracket, until the step is below `1e-6`: the scheduler starts at the equilibrium, not
//! a decade off it.

use freshet_policy::Objective;

use super::Scheduler;

/// Page slots a sweep visits per fetch `next` starts while the feed-forward is settled (its last
/// sweep moved it by less than 2%). Each slot costs a Lambert W and a random access to the
/// per-host sums: at 4 per call (the first version) the sweep took about a fifth of the time of
/// a `next`/`fetched` pair in `benches/online.rs`. In a steady state `λ_ff` barely moves, so
/// half the speed loses nothing (BENCHMARKS.md, "Online scheduler").
pub(super) const SWEEP_SLOTS_SETTLED: usize = 2;
/// Page slots per fetch while the feed-forward moves (after a first crawl, a bulk change): the
/// first version's speed, so that a transient is followed as fast as before. In the bench's
/// window after a first crawl of 10^7 pages it made no measurable difference (fetch rate 0.772
/// of the budget against 0.776 at 2 slots throughout; BENCHMARKS.md).
pub(super) const SWEEP_SLOTS_MOVING: usize = 4;
/// The largest change of `ln λ_ff` after one incremental sweep (a factor 1.25): near a cutoff
/// the demand bends sharply, and a larger step overshoots into a flood of pages.
const SWEEP_MAX_STEP: f64 = 0.223_143_551_314_209_76;
/// The largest change of `ln λ` per iteration of the initial solve (a factor 16).
const SOLVE_MAX_STEP: f64 = 4.0 * std::f64::consts::LN_2;
/// Iterations of the initial solve at most.
const SOLVE_ITERATIONS: u32 = 80;

/// A sweep in progress: the next slot, the threshold it evaluates, and `(S_i, S_i')` per host
/// whose capacity is finite, summed over the others.
#[derive(Clone, Debug, Default)]
pub(super) struct DemandSweep {
    cursor: usize,
    lambda: f64,
    started_at: f64,
    /// `(S_i, S_i')` of the hosts with a finite capacity (0 for the others).
    host_sums: Vec<(f64, f64)>,
    /// `Σ (S_i, S_i')` over the hosts without a capacity (`gap = 0`): `min(∞, S_i) = S_i`, so
    /// their sums need not be kept apart. A page of such a host adds here, not to a random
    /// place in `host_sums` (at 10^5 hosts a cache miss: 91% of `accumulate`'s time in a
    /// profile of `benches/online.rs`, where nine hosts in ten are uncapped).
    uncapped: (f64, f64),
    /// The largest `V(∞)` at or below `lambda`: where the demand starts again below a cutoff.
    cutoff_below: f64,
    /// The previous sweep's `(ln λ, demand − k_0)`: with the latest one it may bracket the root.
    previous: Option<(f64, f64)>,
}

impl DemandSweep {
    /// Drops a sweep in progress: its partial sums were taken at a `λ` (and over page
    /// parameters) that a restart of the controller has just replaced, and finishing it would
    /// move `λ_ff` away from the new start by a Newton step on stale sums.
    pub(super) fn restart(&mut self) {
        self.cursor = 0;
        self.previous = None;
    }

    /// The next page slot the sweep visits (0: a pass starts at the next call).
    pub(super) fn cursor(&self) -> usize {
        self.cursor
    }

    pub(super) fn allocated_bytes(&self) -> usize {
        self.host_sums.capacity() * size_of::<(f64, f64)>()
    }
}

/// The hosts with a finite capacity (`gap > 0`), one bit each: 12.5 KB at 10^5 hosts, so the
/// sweep's look-up stays in the cache where the host records or sums would not.
#[derive(Clone, Debug, Default)]
pub(super) struct CappedHosts(Vec<u64>);

impl CappedHosts {
    pub(super) fn contains(&self, host: usize) -> bool {
        self.0.get(host / 64).is_some_and(|word| word & (1 << (host % 64)) != 0)
    }

    pub(super) fn set(&mut self, host: usize, capped: bool) {
        let word = host / 64;
        if self.0.len() <= word {
            self.0.resize(word + 1, 0);
        }
        if capped {
            self.0[word] |= 1 << (host % 64);
        } else {
            self.0[word] &= !(1 << (host % 64));
        }
    }

    pub(super) fn allocated_bytes(&self) -> usize {
        self.0.capacity() * size_of::<u64>()
    }
}

impl<O: Objective> Scheduler<O> {
    /// Advances the sweep by `slots` page slots; at the end of a pass, moves `λ_ff` by a damped
    /// Newton step.
    pub(super) fn sweep_demand(&mut self, slots: usize) {
        let mut sweep = std::mem::take(&mut self.sweep);
        if sweep.cursor == 0 {
            sweep.lambda = self.controller.feedforward();
            sweep.started_at = self.clock;
            sweep.host_sums.clear();
            sweep.host_sums.resize(self.hosts.len(), (0.0, 0.0));
            sweep.uncapped = (0.0, 0.0);
            sweep.cutoff_below = 0.0;
        }
        let end = sweep.cursor.saturating_add(slots).min(self.pages.len());
        self.accumulate(&mut sweep, end);
        if sweep.cursor >= self.pages.len() {
            let (demand, slope, saturated) = self.total_demand(&sweep);
            let log_lambda = sweep.lambda.ln();
            let mut next =
                log_lambda + newton_step(sweep.lambda, demand, slope, self.budget.rate, SWEEP_MAX_STEP);
            let excess = demand - self.budget.rate;
            if excess < 0.0 && saturated && sweep.cutoff_below == 0.0 {
                // Every host with pages is at its capacity and no page is cut off: a lower λ
                // buys no fetch, so λ holds (see `total_demand`).
                next = next.max(log_lambda);
            }
            if excess < 0.0 && slope == 0.0 && sweep.cutoff_below > 0.0 {
                // Above every uncapped page's `V(∞)`: no slope to follow; step just below the
                // next cutoff rather than past it into a flood of pages.
                next = next.max((sweep.cutoff_below * (1.0 - 1e-3)).ln());
            }
            // Near a cutoff (`V(∞)` of many pages just above λ) the demand bends sharply and
            // Newton steps alternate around the root: bisect when the last two sweeps bracket it
            // and the step leaves the bracket.
            if let Some((previous, previous_excess)) = sweep.previous
                && (previous_excess > 0.0) != (excess > 0.0)
            {
                let (low, high) = (previous.min(log_lambda), previous.max(log_lambda));
                if next <= low || next >= high {
                    next = 0.5 * (low + high);
                }
            }
            sweep.previous = Some((log_lambda, excess));
            self.controller.set_feedforward(next.exp(), self.clock - sweep.started_at);
            sweep.cursor = 0;
            self.sweep = sweep;
            self.refresh_lambda0();
        } else {
            self.sweep = sweep;
        }
    }

    /// Solves `Σ_i min(k_i, S_i(λ)) = k_0` from `guess` by whole sweeps (Newton steps on `ln λ`
    /// inside a bracket, bisection where a step leaves it). `O(iterations·(pages + hosts))`.
    pub(super) fn solve_feedforward(&mut self, guess: f64) -> f64 {
        let mut sweep = std::mem::take(&mut self.sweep);
        let mut log_lambda = guess.ln();
        let (mut low, mut high) = (f64::NEG_INFINITY, f64::INFINITY);
        for _ in 0..SOLVE_ITERATIONS {
            sweep.cursor = 0;
            sweep.lambda = log_lambda.exp();
            sweep.host_sums.clear();
            sweep.host_sums.resize(self.hosts.len(), (0.0, 0.0));
            sweep.uncapped = (0.0, 0.0);
            sweep.cutoff_below = 0.0;
            self.accumulate(&mut sweep, self.pages.len());
            let (demand, slope, saturated) = self.total_demand(&sweep);
            if demand < self.budget.rate && saturated && sweep.cutoff_below == 0.0 {
                // No root: the hosts' capacities sum to less than the budget. Any λ at which
                // they are all full is as good as a lower one, and this one recovers at once
                // when pages arrive (a crawl's first `next` sees one seed page).
                break;
            }
            if demand > self.budget.rate {
                low = log_lambda;
            } else {
                high = log_lambda;
            }
            let mut next =
                log_lambda + newton_step(sweep.lambda, demand, slope, self.budget.rate, SOLVE_MAX_STEP);
            if (next <= low || next >= high) && low.is_finite() && high.is_finite() {
                next = 0.5 * (low + high);
            }
            let done = (next - log_lambda).abs() < 1e-6;
            log_lambda = next.clamp(-690.0, 690.0);
            if done {
                break;
            }
        }
        sweep.cursor = 0;
        self.sweep = sweep;
        log_lambda.exp()
    }

    /// Adds the rates and slopes at `sweep.lambda` of the present pages in slots
    /// `sweep.cursor..end` to their hosts' sums (the uncapped hosts' to one sum).
    fn accumulate(&self, sweep: &mut DemandSweep, end: usize) {
        let Some(slots) = self.pages.get(sweep.cursor..end) else { return };
        for slot in slots {
            if !slot.is_present() {
                continue;
            }
            let host = slot.host as usize;
            let page = slot.page();
            let at = self.objective.rate_at_marginal(page, sweep.lambda);
            if at.rate == 0.0 {
                let ceiling = self.objective.marginal_at_zero(page);
                if ceiling <= sweep.lambda {
                    sweep.cutoff_below = sweep.cutoff_below.max(ceiling);
                }
            }
            let sums = if self.capped_hosts.contains(host) {
                if sweep.host_sums.len() <= host {
                    sweep.host_sums.resize(host + 1, (0.0, 0.0));
                }
                &mut sweep.host_sums[host]
            } else {
                &mut sweep.uncapped
            };
            sums.0 += at.rate;
            sums.1 += at.slope;
        }
        sweep.cursor = end;
    }

    /// `Σ_i min(k_i, S_i)` and its slope (0 for a capped host), `k_i` the inverse of host `i`'s
    /// gap.
    /// Total demand `Σ_i min(k_i, S_i(λ))` and its slope, and whether it is *saturated*: every
    /// host with demand is at its capacity, so lowering `λ` cannot raise it. A saturated demand
    /// below the budget has no root; without this the solvers drove `λ_0` toward 0 (e^−221 in a
    /// crawl whose first `next` saw one seed page on one host, capacity 20 against a budget of
    /// 40), from which the sweep (a bounded step per pass over the pages) took thousands of
    /// passes to climb back, while the hosts' `λ_i` carried the whole threshold.
    fn total_demand(&self, sweep: &DemandSweep) -> (f64, f64, bool) {
        // The uncapped hosts' demand counts whole; if any, the demand is not saturated (as when
        // each such host counted apart: it has demand and is below its infinite capacity).
        let (mut demand, mut slope) = sweep.uncapped;
        let (mut with_demand, mut capped) = (usize::from(sweep.uncapped.0 > 0.0), 0_usize);
        for (state, &(rate, rate_slope)) in self.hosts.iter().zip(&sweep.host_sums) {
            let capacity = 1.0 / state.gap;
            if rate > 0.0 {
                with_demand += 1;
            }
            if rate >= capacity {
                demand += capacity;
                capped += 1;
            } else {
                demand += rate;
                slope += rate_slope;
            }
        }
        (demand, slope, with_demand > 0 && capped == with_demand)
    }
}

/// The Newton step on `ln λ` towards `demand = budget`, clamped to `±max_step`: with
/// `g(x) = ln D(e^x) − ln k_0`, `−g/g'` where `g' = λ·D'/D`. Without a usable slope (no demand,
/// infinite demand, every host capped) it moves the whole `max_step` the right way.
fn newton_step(lambda: f64, demand: f64, slope: f64, budget: f64, max_step: f64) -> f64 {
    let toward = if demand > budget { max_step } else { -max_step };
    if !(demand.is_finite() && demand > 0.0) {
        return toward;
    }
    let elasticity = lambda * slope / demand;
    if !(elasticity.is_finite() && elasticity < 0.0) {
        return toward;
    }
    (-(demand / budget).ln() / elasticity).clamp(-max_step, max_step)
}

#[cfg(test)]
mod tests {
    use super::newton_step;

    #[test]
    fn newton_step_is_exact_for_a_power_law_and_clamped() {
        // D(λ) = λ^{-1/2}: from λ = 4 (D = 0.5) to D = 1 needs λ = 1, ln step −ln 4.
        let (lambda, demand) = (4.0_f64, 0.5_f64);
        let slope = -0.5 * demand / lambda;
        let step = newton_step(lambda, demand, slope, 1.0, 10.0);
        assert!((step + 4.0_f64.ln()).abs() < 1e-12, "{step}");
        assert_eq!(newton_step(lambda, demand, slope, 1.0, 0.5), -0.5);
        assert_eq!(newton_step(lambda, 0.0, 0.0, 1.0, 0.5), -0.5);
        assert_eq!(newton_step(lambda, f64::INFINITY, 0.0, 1.0, 0.5), 0.5);
    }
}

#[cfg(test)]
mod saturation {
    #![allow(clippy::unwrap_used)]

    use super::super::{Budget, Decision, HostId, PageId, Politeness, Scheduler};

    /// Regression: a crawl's first `next` saw one seed page on one host whose capacity (20 a
    /// second) is half the budget (40): the feed-forward solve had no root and drove `λ_0` to
    /// e^−221 (1e-94 in the crawler's status), and the pages discovered next could not bring it
    /// back for thousands of sweeps.
    #[test]
    fn a_budget_above_every_capacity_does_not_drive_lambda0_to_zero() {
        let mut scheduler = Scheduler::freshness(Budget::new(40.0)).unwrap();
        let politeness = Politeness { min_delay: 0.05, max_rate: f64::INFINITY };
        scheduler.set_host(HostId(0), politeness).unwrap();
        scheduler.add(PageId(0), HostId(0), 1.0, 1.0 / 30.0, 0.0).unwrap();
        assert!(matches!(scheduler.next(0.0), Decision::Fetch { .. }));
        // Any λ_0 at which the one host is full will do: its page's demand reaches 20 a second
        // near V(0.05 s) ≈ 4e-5. It stops there, not at e^−221.
        assert!(scheduler.lambda0() > 1e-6, "λ_0 = {:e}", scheduler.lambda0());
        // Pages on 23 more hosts: the budget binds again, and a re-solve finds λ_0 at once.
        for host in 1..24 {
            scheduler.set_host(HostId(host), politeness).unwrap();
        }
        for page in 1..1200 {
            scheduler.add(PageId(page), HostId(page % 24), 1.0, 1.0 / 30.0, 0.1).unwrap();
        }
        scheduler.resolve_lambda0();
        // 1,200 alike pages at 40 fetches a second: each every 30 s, where V = 30·G(1) ≈ 7.9.
        let lambda0 = scheduler.lambda0();
        assert!((4.0..12.0).contains(&lambda0), "λ_0 = {lambda0}");
    }
}

#[cfg(test)]
mod split_sums {
    #![allow(clippy::unwrap_used)]

    use freshet_policy::objective::Freshness;
    use freshet_policy::{Objective, Page};
    use proptest::prelude::*;

    use super::super::{Budget, HostId, PageId, Politeness, Scheduler};
    use super::DemandSweep;

    proptest! {
        /// With the uncapped hosts' demand summed in one place, the sweep's total demand
        /// `Σ_i min(k_i, S_i(λ))`, its slope and its saturation are those of a plain per-host
        /// sum, whatever mix of capped and uncapped hosts (also after a host changes sides).
        #[test]
        fn the_total_demand_is_the_per_host_sum(
            caps in proptest::collection::vec(prop_oneof![Just(0.0), 0.05..20.0_f64], 1..12),
            pages in proptest::collection::vec((0..12_u32, 0.01..10.0_f64, 0.001..2.0_f64), 1..80),
            lambda in 0.001..50.0_f64,
            flip in any::<prop::sample::Index>(),
        ) {
            let mut scheduler = Scheduler::freshness(Budget::new(5.0)).unwrap();
            let politeness = |cap: f64| if cap > 0.0 { Politeness::rate(cap) } else { Politeness::default() };
            for (host, &cap) in caps.iter().enumerate() {
                scheduler.set_host(HostId(host as u32), politeness(cap)).unwrap();
            }
            // One host changes sides after it was declared: the bitmap follows.
            let flipped = flip.index(caps.len());
            let mut caps = caps;
            caps[flipped] = if caps[flipped] > 0.0 { 0.0 } else { 1.5 };
            scheduler.set_host(HostId(flipped as u32), politeness(caps[flipped])).unwrap();
            for (page, &(host, weight, rate)) in pages.iter().enumerate() {
                let host = host % caps.len() as u32;
                scheduler.add(PageId(page as u32), HostId(host), weight, rate, 0.0).unwrap();
            }
            let mut sweep = DemandSweep { lambda, ..DemandSweep::default() };
            sweep.host_sums.resize(caps.len(), (0.0, 0.0));
            scheduler.accumulate(&mut sweep, scheduler.pages.len());
            let (demand, slope, saturated) = scheduler.total_demand(&sweep);

            let mut per_host = vec![(0.0_f64, 0.0_f64); caps.len()];
            for slot in &scheduler.pages {
                let page = Page::new(f64::from(slot.weight), f64::from(slot.change_rate));
                let at = Freshness.rate_at_marginal(page, lambda);
                per_host[slot.host as usize].0 += at.rate;
                per_host[slot.host as usize].1 += at.slope;
            }
            let (mut expected, mut expected_slope, mut with_demand, mut capped) = (0.0, 0.0, 0, 0);
            for (&cap, &(rate, rate_slope)) in caps.iter().zip(&per_host) {
                let capacity = if cap > 0.0 { cap } else { f64::INFINITY };
                with_demand += usize::from(rate > 0.0);
                if rate >= capacity {
                    expected += capacity;
                    capped += 1;
                } else {
                    expected += rate;
                    expected_slope += rate_slope;
                }
            }
            prop_assert!((demand - expected).abs() <= 1e-9 * expected.abs().max(1e-300), "{demand} vs {expected}");
            prop_assert!((slope - expected_slope).abs() <= 1e-9 * expected_slope.abs().max(1e-300));
            prop_assert_eq!(saturated, with_demand > 0 && capped == with_demand);
        }
    }
}
