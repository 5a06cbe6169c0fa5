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
//! host has a limit, in a gate that defers a fetch until its host allows it (same arithmetic
//! as the simulator's meter) while fetches of other hosts go ahead, as a crawler's per-host
//! queues do; starts stay `1/R` apart, so the budget is never exceeded (`gate.rs`).
//! `threshold` is not gated: the online scheduler keeps politeness itself.
//!
//! # Learned rates
//! Each page keeps a `freshet_estimate::ChangeHistory`. At each re-estimate the learner fits
//! an empirical-Bayes prior to *all* pages' likelihoods ([`freshet_estimate::PooledPrior`] of
//! [`freshet_estimate::RateMixture`]s:
//! weights on a log grid of rates from `10^−3·R/n` to `10^4·R/n`, EM for the nonparametric
//! maximum-likelihood mixing distribution; then each host's own fit, shrunk toward it with 10
//! pseudo-pages), and every page's rate is its posterior mean (Last-Modified likelihood when
//! the page reports it, else the interval likelihood). Before any observation every page has
//! rate `R/n`. Policies re-estimate and re-solve at the end of epochs of `n`, `2n`, `4n`, …
//! fetches (`O(n log T)` solver work in all). Epochs grow because every re-solve restarts the
//! carousel, and a restart disturbs the phases of the pages: with a re-solve every `n`
//! fetches, learned `periodic-optimal` reached only 0.93 of known rates on the first test
//! instance of `tests/behaviour.rs`, against 0.99 with doubling epochs.
//!
//! Why a fitted mixture, not a Gamma prior centred on a pool of point estimates (the first
//! version): a page fetched at intervals `I ≫ 1/λ` sees a change every time, which says only
//! "`λ ≳ 1/I`"; point estimators turn it into `≈ ln(2n+1)/I`, so the pool measured the
//! crawler's own fetch rates. Measured on the Fig. 1 uniform set at R = 1 (horizon 40 000):
//! a page with `λ = 0.94` fetched 111 times, all changed, was estimated at 0.013; the solver
//! spread the budget over 448 pages where the optimum uses 55, and reached 0.29 of known rates.
//!
//! **Probes** (`learn/probe.rs`): no estimator can learn that a page is slow from fetches
//! `≫ 1/λ` apart, and a page given rate 0 is never observed again. So at each re-estimate,
//! under the freshness objectives (`periodic-optimal`, `poisson-optimal`,
//! `poisson-optimal-carousel`), every page whose posterior probability of being worth
//! fetching (`λ < λ* = w/ν`, `ν` the solution's marginal value) lies in `[0.1, 0.9]` and whose
//! own schedule does not revisit it within `1/λ*` gets a probe: a fetch and a second one
//! `1.5/λ*` later. Probes take a share of the budget (`2·probes/epoch`, at most 1/2; the
//! rates are re-solved for the rest) that falls as pages are classified: the ε-first
//! strategies of seed 002_987a179045e4afb6.txt. A plain floor on the rates would not do: a
//! share `ε` spread over `n` pages revisits each every `n/(εR)`, longer than the uniform pass.
//! `changes-optimal` gets no probes (its marginal at rate 0, `w`, does not depend on `λ`), nor
//! do `greedy` and the proportional policies. Measured results: `docs/reproductions.md`,
//! "Learned rates".
//!
//! **Exploration phase** (`Config::explore_fetches`, `--explore K`; `threshold` only): every
//! page is first fetched about `K` times at intervals chosen from its own history to tell its
//! rate, chains of fetches side by side under the budget and each host's politeness, then the
//! scheduler takes over with the learner's estimates (`learn/explore.rs`, `explore_first.rs`;
//! seed 002's ε-first). What the learned `threshold` reaches once every page has been fetched
//! ~20 times (issue 3, section 4): `docs/learned/README.md`.
//!
//! **`threshold`** needs no probes: each fetch updates its page at once, and exploration lives
//! in the value function. The page is handed an optimistic `(w', λ')` whose `V(∞)` is that of
//! its posterior's 5% quantile rate and whose small-`τ` value is that of its posterior mean
//! (`learn.rs`, `Summary::Optimistic`), so a page that might be slow keeps competing for fetches
//! until its own observations settle it (`threshold.rs`; `docs/learned/README.md`).
//!

mod alias;
mod build;
mod carousel;
mod explore_first;
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
pub(crate) use build::{Built, build_any};
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
    /// Appends to `pages` the pages of the fetches the policy has decided on ahead (of the
    /// one last returned or the next ones), each page once; a hint only, changing nothing.
    /// The simulator loads their state early: with many pages it is out of cache, and loads
    /// issued together overlap. The default decides nothing ahead.
    fn take_upcoming(&mut self, _pages: &mut Vec<usize>) {}
    /// Whether the policy wants [`Policy::observe`] called; asked once, before the first
    /// fetch. A policy whose fetches do not depend on what they find (a carousel over known
    /// rates) says `false`, and the simulator skips building and passing the observations.
    /// The default says `true`.
    fn observes(&self) -> bool {
        true
    }
    /// Whether the policy hears change notifications ([`crate::Config::notify_interval`]);
    /// asked once, before the first fetch. The default says `false`: the simulator then runs
    /// the policy as without notifications, draw for draw.
    fn listens(&self) -> bool {
        false
    }
    /// A read of the page's host at `now` says whether `page` changed since the policy's last
    /// fetch of it (honest, and coherent with what the next fetch finds: `notify.rs`). Called
    /// only on a policy that [`listens`](Policy::listens), between fetches. The default ignores it.
    fn notified(&mut self, _page: usize, _changed: bool, _now: f64) {}
    /// For a policy that listens: the next fetch if it comes before `until` (the next read),
    /// else [`NextFetch::Wait`], so that the simulator delivers the read at `until` and asks
    /// again. The default asks [`next_fetch`](Policy::next_fetch), which does not stop at
    /// reads: the reads up to its fetch are then delivered after the decision.
    fn next_fetch_until(&mut self, now: f64, until: f64, rng: &mut SimRng) -> NextFetch {
        let _ = until;
        match self.next_fetch(now, rng) {
            Some(fetch) => NextFetch::Fetch(fetch),
            None => NextFetch::Done,
        }
    }
}

/// What [`Policy::next_fetch_until`] answers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NextFetch {
    /// This fetch, before `until`.
    Fetch(Fetch),
    /// Nothing before `until`: deliver the read due then, and ask again.
    Wait,
    /// The policy will never fetch again.
    Done,
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

    /// Whether the policy hears change notifications ([`crate::Config::notify_interval`]):
    /// `threshold` only; the others ignore them and so measure the blind baseline.
    #[must_use]
    pub fn listens(self) -> bool {
        self == Self::Threshold
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
