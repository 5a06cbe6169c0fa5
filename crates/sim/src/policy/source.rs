//! Where a rate policy's rates come from: true rates once, or learned rates re-solved every
//! `n` fetches.

use freshet_policy::Page;

use super::learn::Learner;
use super::rates::{Budget, target_rates};
use super::{Observation, PolicyKind};
use crate::error::Result;

/// The rates of one rate-based policy, known or learned.
#[derive(Debug, Clone)]
pub(crate) struct RateSource {
    kind: PolicyKind,
    budget: Budget,
    learner: Option<Learner>,
}

impl RateSource {
    /// With `learner` `None` the pages' rates are taken as known.
    pub(crate) fn new(kind: PolicyKind, budget: Budget, learner: Option<Learner>) -> Self {
        Self { kind, budget, learner }
    }

    /// The rates to start with: from `known` pages, or from the learner's (uninformed) estimates.
    pub(crate) fn initial(&self, known: &[Page]) -> Result<Vec<f64>> {
        match &self.learner {
            None => target_rates(self.kind, known, &self.budget),
            Some(learner) => target_rates(self.kind, &learner.pages(), &self.budget),
        }
    }

    /// Learns from `observation`; new rates when it is time to re-solve (learned mode only).
    /// A failed re-solve keeps the old rates.
    pub(crate) fn observe(&mut self, observation: &Observation) -> Option<Vec<f64>> {
        let learner = self.learner.as_mut()?;
        if !learner.observe(observation) {
            return None;
        }
        target_rates(self.kind, &learner.pages(), &self.budget).ok()
    }

    /// The learner's uninformed page estimates (learned mode; empty in known mode).
    pub(crate) fn initial_pages(&self) -> Vec<Page> {
        self.learner.as_ref().map(Learner::pages).unwrap_or_default()
    }

    /// The learner's current page estimates (learned mode), for policies that use `λ` directly.
    pub(crate) fn learned_pages(&mut self, observation: &Observation) -> Option<Vec<Page>> {
        let learner = self.learner.as_mut()?;
        learner.observe(observation).then(|| learner.pages())
    }
}
