//! Exploration for learned rates: probes, pairs of fetches a chosen interval apart that test
//! whether a page the current schedule neglects is worth fetching (see the module docs of
//! [`crate::policy`], "Learned rates").
//!
//! Why pairs: what a fetch tells about `λ` depends on the interval since the page's previous
//! fetch. A page last fetched `I ≫ 1/λ` ago has changed whatever `λ` is, so a schedule that
//! only revisits a page at long intervals (or never) cannot learn that it is slow. A floor on
//! the rates does not help: with `n` pages and budget `R`, a floor of a share `ε` revisits each
//! page every `n/(εR)`, longer still than the uniform pass. A pair, one fetch and a second `τ`
//! later, samples `P(changed in τ) = 1 − e^{−λτ}` at the `τ` the decision needs, for two
//! fetches of the budget.
//!
//! Which pages and which `τ`: for the freshness objectives page `i` gets a positive rate iff
//! its marginal value at rate 0, `w_i/λ_i` (`Objective::marginal_at_zero`), exceeds the
//! solution's multiplier `ν` (the marginal value of the pages it fetches), i.e. iff
//! `λ_i < λ*_i = w_i/ν`. A page is a candidate when its posterior gives this at least
//! [`WORTH_PROBABILITY`] and its own schedule does not already revisit it within `1/λ*_i`
//! (`f_i < λ*_i`); it is probed at `τ_i = c/λ*_i` ([`PROBE_INTERVAL_FACTOR`] `c`), where
//! `P(no change) = e^{−c λ_i/λ*_i}` is high for a page worth fetching and near 0 for one much
//! faster. Seed
//! 002_987a179045e4afb6.txt ("Multi-armed bandits": balance exploration and exploitation,
//! `mab_ε-first`, `mab_var` "succession of ε-first strategies with a reset") is the model: at
//! every re-estimate, a share of the coming epoch's budget goes to exploring the candidates,
//! the rest to exploiting the posterior means, and the share falls to 0 once no candidate is
//! left.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use freshet_policy::{Objective, Page};

use super::Learner;
use crate::policy::Fetch;

/// Smallest posterior probability of being worth fetching that earns a page a probe. A
/// probe that sees a change multiplies the odds of a page much faster than `λ*` by at most
/// `1 − e^{−1}`, so a page starting near 1/2 stops being probed after a few changed probes.
pub(crate) const WORTH_PROBABILITY: f64 = 0.1;

/// Largest share of the budget given to probes in an epoch (the `ε` of seed 002's ε-first).
pub(crate) const MAX_PROBE_SHARE: f64 = 0.5;

/// The probe interval in units of `1/λ*`: a page at the boundary `λ*` stays unchanged
/// through it with probability `e^{−1.5} ≈ 0.22`, one at `λ*/4` with 0.69, one at `4λ*` with
/// 0.002. Chosen among 0.5, 1 and 1.5 on the Fig. 1 uniform set (R = 1, 5, 10, seeds 1 to 3):
/// 1.5 kept learned `periodic-optimal` at 0.86 to 0.94 of known rates, 1 at 0.76 to 0.94,
/// 0.5 at 0.5 to 0.9 (a shorter probe sees a fast page unchanged too often, and keeps probing it).
pub(crate) const PROBE_INTERVAL_FACTOR: f64 = 1.5;

/// One page to probe: fetch it, then again `interval` later.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Probe {
    pub(crate) page: usize,
    pub(crate) interval: f64,
}

/// The probes of the coming epoch and the budget share they take.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ProbePlan {
    pub(crate) probes: Vec<Probe>,
    /// Share of the budget `R` spent on them, `2·probes/epoch` capped at [`MAX_PROBE_SHARE`].
    pub(crate) share: f64,
}

/// The candidates (module docs) under `objective`, for the solution `rates` of the estimated
/// `pages` (the learner's posterior means), when the next `epoch` fetches are the ones to share: the most probable first,
/// as many as fit in [`MAX_PROBE_SHARE`] of them.
pub(crate) fn plan<O: Objective>(
    objective: O,
    learner: &Learner,
    pages: &[Page],
    rates: &[f64],
    epoch: usize,
) -> ProbePlan {
    // ν: the smallest marginal among fetched pages (they are equal without host caps; with
    // caps a capped host's pages have a larger one).
    let multiplier = pages
        .iter()
        .zip(rates)
        .filter(|&(_, &rate)| rate > 0.0)
        .map(|(&page, &rate)| objective.marginal(page, rate))
        .fold(f64::INFINITY, f64::min);
    if !(multiplier.is_finite() && multiplier > 0.0) {
        return ProbePlan { probes: Vec::new(), share: 0.0 };
    }
    let mut candidates: Vec<(f64, Probe)> = Vec::new();
    for (index, (page, &rate)) in pages.iter().zip(rates).enumerate() {
        let Some((posterior, grid)) = learner.posterior(index) else {
            continue;
        };
        let mut worth = 0.0;
        let mut boundary: Option<f64> = None;
        let mut everywhere = true;
        for (&probability, &grid_rate) in posterior.probabilities.iter().zip(grid) {
            if objective.marginal_at_zero(Page::new(page.weight, grid_rate)) > multiplier {
                worth += probability;
                boundary = Some(boundary.map_or(grid_rate, |b: f64| b.max(grid_rate)));
            } else {
                everywhere = false;
            }
        }
        // A page worth fetching at every rate (or at none) learns nothing from a probe.
        let Some(boundary) = boundary.filter(|_| !everywhere) else {
            continue;
        };
        if (WORTH_PROBABILITY..=1.0 - WORTH_PROBABILITY).contains(&worth) && rate < boundary {
            candidates.push((
                worth * page.weight,
                Probe { page: index, interval: PROBE_INTERVAL_FACTOR / boundary },
            ));
        }
    }
    if candidates.is_empty() || epoch == 0 {
        return ProbePlan { probes: Vec::new(), share: 0.0 };
    }
    candidates.sort_by(|a, b| b.0.total_cmp(&a.0));
    let fit = ((MAX_PROBE_SHARE * epoch as f64) / 2.0).floor().max(1.0) as usize;
    candidates.truncate(fit);
    let share = (2.0 * candidates.len() as f64 / epoch as f64).min(MAX_PROBE_SHARE);
    ProbePlan { probes: candidates.into_iter().map(|(_, probe)| probe).collect(), share }
}

/// Probes waiting to start and second fetches due, paced at a share of the budget.
#[derive(Debug, Clone, Default)]
pub(crate) struct ProbeQueue {
    waiting: VecDeque<Probe>,
    /// Second fetches: (time as ordered bits of a non-negative f64, page).
    due: BinaryHeap<Reverse<(u64, usize)>>,
    /// Time between two probe starts: `2/(share·R)`.
    spacing: f64,
    next_start: f64,
}

impl ProbeQueue {
    /// Replaces the waiting probes by `plan`'s, started from `now` on at `plan.share` of
    /// `budget`; second fetches already due are kept.
    pub(crate) fn reset(&mut self, plan: ProbePlan, budget: f64, now: f64) {
        self.waiting = plan.probes.into();
        self.spacing = if plan.share > 0.0 { 2.0 / (plan.share * budget) } else { f64::INFINITY };
        self.next_start = now + self.spacing;
    }

    /// The probe fetch due first if it is due by `before` (then it is taken off the queue).
    pub(crate) fn next_before(&mut self, before: f64) -> Option<Fetch> {
        let second = self.due.peek().map(|Reverse((bits, page))| (f64::from_bits(*bits), *page));
        let start = self.waiting.front().map(|probe| (self.next_start, *probe));
        match (second, start) {
            (Some((time, page)), start) if time <= before && start.is_none_or(|(s, _)| time <= s) => {
                self.due.pop();
                Some(Fetch { page, time })
            }
            (_, Some((time, probe))) if time <= before => {
                self.waiting.pop_front();
                self.next_start = time + self.spacing;
                let second = time + probe.interval;
                if second.is_finite() && second >= 0.0 {
                    self.due.push(Reverse((second.to_bits(), probe.page)));
                }
                Some(Fetch { page: probe.page, time })
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_are_spaced_and_interleaved_in_time_order() {
        let mut queue = ProbeQueue::default();
        let probes = vec![Probe { page: 3, interval: 5.0 }, Probe { page: 7, interval: 1.0 }];
        queue.reset(ProbePlan { probes, share: 0.5 }, 2.0, 10.0);
        // Starts every 2/(0.5·2) = 2 time units from 12.
        assert_eq!(queue.next_before(11.0), None);
        let mut fetches = Vec::new();
        while let Some(fetch) = queue.next_before(100.0) {
            fetches.push((fetch.page, fetch.time));
        }
        assert_eq!(fetches, vec![(3, 12.0), (7, 14.0), (7, 15.0), (3, 17.0)]);
    }
}
