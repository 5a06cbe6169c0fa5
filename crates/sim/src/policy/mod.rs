//! Revisit policies: the [`Policy`] trait, the named policies, and how they are built.
//!
//! A policy has two verbs: [`Policy::next_fetch`] (which page, when) and [`Policy::observe`]
//! (what that fetch found). It sees nothing else of the simulation: under
//! [`RatesMode::Known`] it is built with the pages' true mean rates, under
//! [`RatesMode::Learned`] only with the weights, hosts and budget, and learns rates from its
//! observations (see [`learn`](self#learned-rates)).
//!
//! | name | what |
//! |---|---|
//! | `uniform` | every page at the same rate `R/n` (round robin, by the carousel) |
//! | `change-proportional` | rates `∝ λ`, carousel |
//! | `weight-proportional` | rates `∝ w`, carousel |
//! | `greedy` | at each budget slot the page with the highest `w(1 − e^(−λτ))` (seed 000's naive rule), `O(n)` per fetch |
//! | `periodic-optimal` | the solver's `freshness` rates, carousel |
//! | `poisson-optimal` | Azar's Problem 2 rates (`freshness-poisson`), at random Poisson times |
//! | `poisson-optimal-carousel` | the same rates, carousel |
//! | `nutch-adaptive` | Apache Nutch's AdaptiveFetchSchedule (see `nutch.rs`) |
//! | `changes-optimal` | the solver's `changes` rates (seed 000), carousel |
//! | `threshold` | seed 003's online scheduler: fetch when `V(τ)` reaches `λ_i + λ_0`, `λ_0` found online (`threshold.rs`) |
//!
//! **Politeness.** Rate policies respect host caps in the long run through the host-capped
//! solver (or capped proportional shares); in the short run every policy is wrapped, when any
//! host has a limit, in a gate that delays a fetch until its host allows it (same arithmetic
//! as the simulator's meter). A delayed fetch delays the ones after it: the budget is never
//! exceeded, but it may go partly unused (see `fetch_rate` in the summary).
//!
//! # Learned rates
//! Each page keeps a `freshet_estimate::ChangeHistory`. Its rate is the posterior of a Gamma
//! prior centred on its host's pooled rate ([`freshet_estimate::HostPool`] of per-page
//! `bias_corrected_rate`s or, with Last-Modified, `last_modified_rate`s; falling back on all
//! pages' pool, then on `R/n`, one change per uniform revisit interval) with strength `n/R`
//! time units: `posterior_from_last_modified` when the page reports Last-Modified, else
//! `posterior_from_intervals`. Starting from nothing, every page has the same rate, so the
//! first pass is uniform. Policies re-estimate and re-solve at the end of epochs of `n`, `2n`,
//! `4n`, … fetches (`O(n log T)` solver work in all). Epochs grow because every re-solve
//! restarts the carousel, and a restart disturbs the phases of the pages: with a re-solve
//! every `n` fetches, learned `periodic-optimal` reached only 0.93 of known rates on the test
//! instance of `tests/behaviour.rs`, against 0.99 with doubling epochs. (A page whose rate
//! is overestimated may get rate 0 and is then never observed again: there is no
//! exploration floor.)
//!

mod alias;
mod build;
mod carousel;
mod fixed;
mod gate;
mod greedy;
mod learn;
mod nutch;
mod poisson;
mod rates;
mod source;
mod threshold;

pub use build::build;
pub use fixed::FixedIntervals;
pub use nutch::{
    NUTCH_DEC_RATE, NUTCH_INC_RATE, NUTCH_MAX_INTERVAL, NUTCH_MIN_INTERVAL, nutch_next_interval,
};

use std::fmt;
use std::str::FromStr;

use crate::error::SimError;
use crate::rng::SimRng;

/// A fetch a policy asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fetch {
    /// Index of the page.
    pub page: usize,
    /// When to start it; not before the `now` passed to [`Policy::next_fetch`].
    pub time: f64,
}

/// What a fetch found: exactly what a crawler would see.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Observation {
    /// Index of the page.
    pub page: usize,
    /// Time of the fetch.
    pub time: f64,
    /// Time since the page's previous fetch (or since time 0, when every copy was fresh).
    pub interval: f64,
    /// Whether the content changed since the previous fetch.
    pub changed: bool,
    /// Time since the last change (from Last-Modified), if the page reports it.
    pub last_modified_age: Option<f64>,
}

/// A revisit policy: which page to fetch next and when, and what it learns from fetches.
///
/// The simulator calls `next_fetch`, then `observe` with that fetch's outcome (if the fetch
/// falls before the horizon), and so on. Randomness only comes through `rng`.
pub trait Policy {
    /// The next fetch, at a time `≥ now`; `None` when the policy will never fetch again.
    fn next_fetch(&mut self, now: f64, rng: &mut SimRng) -> Option<Fetch>;
    /// The outcome of the fetch last returned by `next_fetch`.
    fn observe(&mut self, observation: &Observation);
}

/// Where a policy's change rates come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RatesMode {
    /// The true mean rates of the change processes.
    Known,
    /// Only the policy's own observations (see the module docs).
    Learned,
}

impl RatesMode {
    /// `"known"` or `"learned"`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Known => "known",
            Self::Learned => "learned",
        }
    }
}

impl FromStr for RatesMode {
    type Err = SimError;
    fn from_str(s: &str) -> Result<Self, SimError> {
        match s {
            "known" => Ok(Self::Known),
            "learned" => Ok(Self::Learned),
            other => Err(SimError::UnknownRatesMode(other.to_owned())),
        }
    }
}

/// The named policies (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PolicyKind {
    /// `uniform`.
    Uniform,
    /// `change-proportional`.
    ChangeProportional,
    /// `weight-proportional`.
    WeightProportional,
    /// `greedy`.
    Greedy,
    /// `periodic-optimal`.
    PeriodicOptimal,
    /// `poisson-optimal`.
    PoissonOptimal,
    /// `poisson-optimal-carousel`.
    PoissonOptimalCarousel,
    /// `nutch-adaptive`.
    NutchAdaptive,
    /// `changes-optimal`.
    ChangesOptimal,
    /// `threshold`.
    Threshold,
}

impl PolicyKind {
    /// Every named policy, in a fixed order.
    pub const ALL: [Self; 10] = [
        Self::Uniform,
        Self::ChangeProportional,
        Self::WeightProportional,
        Self::Greedy,
        Self::PeriodicOptimal,
        Self::PoissonOptimal,
        Self::PoissonOptimalCarousel,
        Self::NutchAdaptive,
        Self::ChangesOptimal,
        Self::Threshold,
    ];

    /// The policy's name on the command line.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Uniform => "uniform",
            Self::ChangeProportional => "change-proportional",
            Self::WeightProportional => "weight-proportional",
            Self::Greedy => "greedy",
            Self::PeriodicOptimal => "periodic-optimal",
            Self::PoissonOptimal => "poisson-optimal",
            Self::PoissonOptimalCarousel => "poisson-optimal-carousel",
            Self::NutchAdaptive => "nutch-adaptive",
            Self::ChangesOptimal => "changes-optimal",
            Self::Threshold => "threshold",
        }
    }

    /// All names, in [`PolicyKind::ALL`] order.
    #[must_use]
    pub fn names() -> Vec<&'static str> {
        Self::ALL.iter().map(|kind| kind.name()).collect()
    }
}

impl fmt::Display for PolicyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for PolicyKind {
    type Err = SimError;
    fn from_str(s: &str) -> Result<Self, SimError> {
        Self::ALL
            .into_iter()
            .find(|kind| kind.name() == s)
            .ok_or_else(|| SimError::UnknownPolicy(s.to_owned()))
    }
}
