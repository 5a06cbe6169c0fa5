//! The event loop: one event per fetch, nothing per tick.

use crate::error::{Result, SimError};
use crate::metrics::{Accumulator, RunSummary};
use crate::model::Config;
use crate::notify;
use crate::policy::{Built, Policy, PolicyKind, RatesMode, build_any};
use crate::politeness::Meters;
use crate::process::{PageChanges, Window};
use crate::rng::SimRng;

/// Random stream of the change processes.
pub(crate) const CHANGES_STREAM: u64 = 0;
/// Random stream handed to the policy.
pub(crate) const POLICY_STREAM: u64 = 1;

/// Runs the named policy on `config` with known or learned rates; same seed, same summary.
///
/// ```
/// use freshet_sim::{Config, PolicyKind, RatesMode, simulate};
///
/// // Cho & Garcia-Molina's five pages (λ = 1..5 per day), 5 fetches per day, 2,000 days.
/// let config = Config::poisson(&[(1.0, 1.0), (1.0, 2.0), (1.0, 3.0), (1.0, 4.0), (1.0, 5.0)], 5.0, 2000.0);
/// let optimal = simulate(&config, PolicyKind::PeriodicOptimal, RatesMode::Known, 7)?;
/// let uniform = simulate(&config, PolicyKind::Uniform, RatesMode::Known, 7)?;
/// assert!((optimal.weighted_freshness - 0.3739).abs() < 0.01);
/// assert!(optimal.weighted_freshness > uniform.weighted_freshness);
/// assert_eq!(optimal.violations.total(), 0);
/// # Ok::<(), freshet_sim::SimError>(())
/// ```
///
/// # Errors
/// An invalid configuration ([`Config::validate`]) or a problem the solver rejects;
/// [`SimError::NotifyExplore`] for notifications with an exploration phase.
pub fn simulate(config: &Config, policy: PolicyKind, rates: RatesMode, seed: u64) -> Result<RunSummary> {
    config.validate()?;
    if config.notify_interval.is_some() && rates == RatesMode::Learned && config.explore_fetches > 0 {
        return Err(SimError::NotifyExplore);
    }
    match build_any(config, policy, rates)? {
        // The loop compiled for the carousel: its calls inline, and with known rates observing
        // and probing cost nothing (`BENCHMARKS.md`, "The simulator").
        Built::Carousel(mut carousel) => run(config, carousel.as_mut(), policy.name(), rates.name(), seed),
        Built::Other(mut built) => dispatch(config, built.as_mut(), policy.name(), rates.name(), seed),
    }
}

/// The loop with reads (`notify.rs`) for a policy that listens when the configuration has
/// notifications, else the plain loop.
fn dispatch(
    config: &Config,
    policy: &mut dyn Policy,
    name: &str,
    rates: &str,
    seed: u64,
) -> Result<RunSummary> {
    match config.notify_interval {
        Some(interval) if policy.listens() => notify::run(config, policy, interval, name, rates, seed),
        _ => run(config, policy, name, rates, seed),
    }
}

/// Runs any [`Policy`] (e.g. an adapter around an external scheduler) on `config`; `name` and
/// `rates` only label the summary.
///
/// # Errors
/// An invalid configuration, or a fetch in the past or of an unknown page
/// ([`SimError::InvalidFetch`]).
pub fn simulate_policy(
    config: &Config,
    policy: &mut dyn Policy,
    name: &str,
    rates: &str,
    seed: u64,
) -> Result<RunSummary> {
    config.validate()?;
    dispatch(config, policy, name, rates, seed)
}

/// What the event loop reads and writes of one page at each of its fetches, in one place
/// (32 bytes, aligned so that no record straddles two cache lines): fetches visit the pages
/// in an order that jumps over all of them, and at 10^5 pages these records are most of the
/// simulator's misses (`BENCHMARKS.md`, "The simulator").
#[repr(align(32))]
struct Tracked {
    /// Time of the page's last fetch (0: every copy is fresh at time 0).
    last_fetch: f64,
    weight: f64,
    changes: PageChanges,
}

/// Loads the records of `pages` (the next fetches a policy announced) one after another
/// without waiting for each: with many pages they are out of cache, and misses issued
/// together overlap instead of stalling the loop one fetch at a time.
#[inline]
fn touch(tracked: &[Tracked], pages: &[usize]) {
    let mut sum = 0.0;
    for &page in pages {
        if let Some(record) = tracked.get(page) {
            sum += record.last_fetch;
        }
    }
    std::hint::black_box(sum);
}

/// What both event loops (this file's and `notify.rs`'s) start from: the measured window, the
/// random streams of the changes and of the policy, the hosts' politeness meters, and the
/// integrals with every page fresh at time 0.
pub(crate) struct Run {
    pub(crate) window: Window,
    pub(crate) changes_rng: SimRng,
    pub(crate) policy_rng: SimRng,
    pub(crate) meters: Meters,
    pub(crate) metrics: Accumulator,
}

impl Run {
    pub(crate) fn new(config: &Config, seed: u64) -> Self {
        let window = Window { start: config.warmup_end(), end: config.horizon };
        let total_weight: f64 = config.pages.iter().map(|page| page.weight).sum();
        Self {
            window,
            changes_rng: SimRng::stream(seed, CHANGES_STREAM),
            policy_rng: SimRng::stream(seed, POLICY_STREAM),
            meters: Meters::new(config),
            metrics: Accumulator::new(window, config.horizon, config.buckets, total_weight),
        }
    }
}

fn run<P: Policy + ?Sized>(
    config: &Config,
    policy: &mut P,
    name: &str,
    rates: &str,
    seed: u64,
) -> Result<RunSummary> {
    let horizon = config.horizon;
    let Run { window, mut changes_rng, mut policy_rng, mut meters, mut metrics } = Run::new(config, seed);
    let mut tracked: Vec<Tracked> = config
        .pages
        .iter()
        .map(|page| Tracked {
            last_fetch: 0.0,
            weight: page.weight,
            changes: PageChanges::new(&page.process, page.last_modified, &mut changes_rng),
        })
        .collect();
    let mut now = 0.0;

    let observes = policy.observes();
    let mut upcoming: Vec<usize> = Vec::new();
    while let Some(fetch) = policy.next_fetch(now, &mut policy_rng) {
        policy.take_upcoming(&mut upcoming);
        if !upcoming.is_empty() {
            touch(&tracked, &upcoming);
            upcoming.clear();
        }
        let Some(page) = tracked.get_mut(fetch.page) else {
            return Err(SimError::InvalidFetch { page: fetch.page, time: fetch.time, now });
        };
        if fetch.time.is_nan() || fetch.time < now {
            return Err(SimError::InvalidFetch { page: fetch.page, time: fetch.time, now });
        }
        if fetch.time >= horizon {
            break;
        }
        now = fetch.time;
        let t0 = page.last_fetch;
        let changes = page.changes.interval(t0, now, &window, &mut changes_rng);
        let changed = changes.first <= now;
        metrics.add_fetch(page.weight, t0, now, changes.first, changes.pending);
        page.last_fetch = now;
        meters.record(config, fetch.page, now);
        if observes {
            policy.observe(&page.changes.observation(fetch.page, t0, now, changed));
        }
    }
    // Close every page's last interval at the horizon (no fetch, nothing observed).
    for page in &mut tracked {
        let t0 = page.last_fetch;
        let changes = page.changes.interval(t0, horizon, &window, &mut changes_rng);
        metrics.close(page.weight, t0, horizon, changes.first, changes.pending);
    }
    Ok(metrics.finish(name.to_owned(), rates.to_owned(), seed, meters.violations()))
}
