//! Builds a named policy for a configuration.

use freshet_policy::Page;

use super::carousel::CarouselPolicy;
use super::explore_first::ExploreFirst;
use super::gate::Gate;
use super::greedy::GreedyPolicy;
use super::learn::{Learner, Summary};
use super::nutch::NutchPolicy;
use super::poisson::PoissonPolicy;
use super::rates::Budget;
use super::source::RateSource;
use super::threshold::ThresholdPolicy;
use super::{Policy, PolicyKind, RatesMode};
use crate::error::{Result, SimError};
use crate::model::{Config, Host};
use crate::politeness::HostClock;

/// The policy `kind` for `config`, with true rates or learning them (`rates`), wrapped in the
/// politeness gate when any host is limited. `config` should be valid ([`Config::validate`]).
/// With learned rates and [`Config::explore_fetches`] `> 0`, `threshold` runs after an
/// exploration phase (`explore_first.rs`).
///
/// # Errors
/// [`crate::SimError::Solver`] if the solver rejects the initial problem;
/// [`crate::SimError::Scheduler`] if the scheduler rejects the hosts, budget or pages;
/// [`crate::SimError::ExploreUnsupported`] for an exploration phase before another policy.
pub fn build(config: &Config, kind: PolicyKind, rates: RatesMode) -> Result<Box<dyn Policy>> {
    Ok(match build_any(config, kind, rates)? {
        Built::Carousel(carousel) => carousel,
        Built::Other(policy) => policy,
    })
}

/// A built policy: the ungated carousel by its type, so that the simulator's loop can be
/// compiled for it (its calls inlined, the no-op ones gone: `BENCHMARKS.md`, "The
/// simulator"), or any other behind `dyn`.
pub(crate) enum Built {
    Carousel(Box<CarouselPolicy>),
    Other(Box<dyn Policy>),
}

/// [`build`], with the ungated carousel policies by their type.
pub(crate) fn build_any(config: &Config, kind: PolicyKind, rates: RatesMode) -> Result<Built> {
    let known: Vec<Page> =
        config.pages.iter().map(|page| Page::new(page.weight, page.process.mean_rate())).collect();
    let host_of_page: Vec<u32> = config.pages.iter().map(|page| page.host).collect();
    let limited = config.has_host_limits();
    let budget = Budget {
        total: config.budget,
        host_of_page: host_of_page.clone(),
        caps: limited.then(|| config.hosts.iter().map(Host::effective_capacity).collect()),
    };
    let learner = match rates {
        RatesMode::Known => None,
        RatesMode::Learned => Some(Learner::new(
            known.iter().map(|page| page.weight).collect(),
            host_of_page.clone(),
            config.budget,
        )),
    };
    if config.explore_fetches > 0 && rates == RatesMode::Learned {
        if kind != PolicyKind::Threshold {
            return Err(SimError::ExploreUnsupported(kind.name()));
        }
        // Checks the hosts and the budget as the scheduler will see them at hand-over.
        ThresholdPolicy::new(config, &known, None)?;
        let learner = learner.ok_or(SimError::ExploreUnsupported(kind.name()))?;
        return Ok(Built::Other(Box::new(ExploreFirst::new(config, learner, config.explore_fetches))));
    }
    if kind == PolicyKind::Threshold {
        // The online scheduler keeps politeness itself: no gate (the simulator's meter checks it).
        let pages = learner.as_ref().map_or(known, |learner| learner.pages(Summary::Optimistic));
        return Ok(Built::Other(Box::new(ThresholdPolicy::new(config, &pages, learner)?)));
    }
    let clocks = || config.hosts.iter().map(|host| HostClock::new(host, config.capacity_window)).collect();
    let source = RateSource::new(kind, budget, learner);
    let policy: Box<dyn Policy> = match kind {
        PolicyKind::NutchAdaptive => Box::new(NutchPolicy::new(config.pages.len(), config.budget)),
        PolicyKind::Greedy => {
            let pages = match rates {
                RatesMode::Known => known,
                RatesMode::Learned => source.initial_pages(),
            };
            let hosts = limited.then(clocks);
            Box::new(GreedyPolicy::new(source, pages, host_of_page.clone(), hosts, config.budget))
        }
        PolicyKind::PoissonOptimal => {
            let initial = source.initial(&known)?;
            Box::new(PoissonPolicy::new(source, &initial))
        }
        PolicyKind::Uniform
        | PolicyKind::Threshold
        | PolicyKind::ChangeProportional
        | PolicyKind::WeightProportional
        | PolicyKind::PeriodicOptimal
        | PolicyKind::PoissonOptimalCarousel
        | PolicyKind::ChangesOptimal => {
            let initial = source.initial(&known)?;
            let carousel = CarouselPolicy::new(source, &initial);
            if !limited {
                return Ok(Built::Carousel(Box::new(carousel)));
            }
            Box::new(carousel)
        }
    };
    Ok(Built::Other(if limited {
        Box::new(Gate::new(policy, host_of_page, clocks(), config.budget))
    } else {
        policy
    }))
}
