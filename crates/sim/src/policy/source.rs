//! Where a rate policy's rates come from: true rates once, or learned rates re-solved at the
//! end of each epoch, with the epoch's probes (see `learn/probe.rs`).

use freshet_policy::Page;
use freshet_policy::objective::{Changes, Freshness, FreshnessPoisson};

use super::learn::probe::{ProbePlan, ProbeQueue, plan};
use super::learn::{Learner, Summary};
use super::rates::{Budget, target_rates};
use super::{Fetch, Observation, PolicyKind};
use crate::error::Result;

/// The rates of one rate-based policy, known or learned.
#[derive(Debug, Clone)]
pub(crate) struct RateSource {
    kind: PolicyKind,
    budget: Budget,
    learner: Option<Learner>,
    probes: ProbeQueue,
}

impl RateSource {
    /// With `learner` `None` the pages' rates are taken as known.
    pub(crate) fn new(kind: PolicyKind, budget: Budget, learner: Option<Learner>) -> Self {
        Self { kind, budget, learner, probes: ProbeQueue::default() }
    }

    /// Whether the rates are learned (with known rates there is nothing to observe and no
    /// probe).
    pub(crate) fn learns(&self) -> bool {
        self.learner.is_some()
    }

    /// The rates to start with: from `known` pages, or from the learner's (uninformed) estimates.
    pub(crate) fn initial(&self, known: &[Page]) -> Result<Vec<f64>> {
        match &self.learner {
            None => target_rates(self.kind, known, &self.budget),
            Some(learner) => target_rates(self.kind, &learner.pages(Summary::Mean), &self.budget),
        }
    }

    /// Learns from `observation`; new rates when it is time to re-solve (learned mode only).
    /// A failed re-solve keeps the old rates. The new rates leave the share of the budget
    /// that the epoch's probes take.
    pub(crate) fn observe(&mut self, observation: &Observation) -> Option<Vec<f64>> {
        let learner = self.learner.as_mut()?;
        if !learner.observe(observation) {
            return None;
        }
        learner.refit();
        let learner = self.learner.as_ref()?;
        let pages = learner.pages(Summary::Mean);
        let rates = target_rates(self.kind, &pages, &self.budget).ok()?;
        let plan = self.plan(learner, &pages, &rates);
        let rates = if plan.share > 0.0 {
            let reduced = Budget { total: self.budget.total * (1.0 - plan.share), ..self.budget.clone() };
            target_rates(self.kind, &pages, &reduced).ok()?
        } else {
            rates
        };
        self.probes.reset(plan, self.budget.total, observation.time);
        Some(rates)
    }

    /// The probes of the coming epoch, for the policies whose rates depend on `λ` through a
    /// freshness objective (the others gain nothing from knowing whether a neglected page is slow).
    fn plan(&self, learner: &Learner, pages: &[Page], rates: &[f64]) -> ProbePlan {
        let epoch = learner.until_next_estimate();
        match self.kind {
            PolicyKind::PeriodicOptimal => plan(Freshness, learner, pages, rates, epoch),
            PolicyKind::PoissonOptimal | PolicyKind::PoissonOptimalCarousel => {
                plan(FreshnessPoisson, learner, pages, rates, epoch)
            }
            PolicyKind::ChangesOptimal => plan(Changes, learner, pages, rates, epoch),
            _ => ProbePlan { probes: Vec::new(), share: 0.0 },
        }
    }

    /// The probe fetch due first, if it is due by `before` (learned mode).
    pub(crate) fn next_probe(&mut self, before: f64) -> Option<Fetch> {
        self.probes.next_before(before)
    }

    /// The learner's uninformed page estimates (learned mode; empty in known mode).
    pub(crate) fn initial_pages(&self) -> Vec<Page> {
        self.learner.as_ref().map(|learner| learner.pages(Summary::Mean)).unwrap_or_default()
    }

    /// The learner's current page estimates (learned mode), for policies that use `λ` directly.
    pub(crate) fn learned_pages(&mut self, observation: &Observation) -> Option<Vec<Page>> {
        let learner = self.learner.as_mut()?;
        if !learner.observe(observation) {
            return None;
        }
        learner.refit();
        Some(learner.pages(Summary::Mean))
    }
}
