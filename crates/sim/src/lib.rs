//! The freshet simulator: pages that change over time, fetched by a revisit policy under a
//! global budget and per-host politeness, so that every freshness claim is a measurement.
//!
//! Pure and deterministic: no clock, no I/O, no global randomness. Every random number comes
//! from a [`SimRng`] seeded by the caller, so the same seed gives the same numbers on every
//! machine (nothing iterates a hash map) for the same build: the platform's default target and
//! math library (a build with the `fma` target feature moves last bits in the `lambert_w`
//! crate, and through them can move decisions: `BENCHMARKS.md`, "The simulator").
//!
//! * [`Config`]: pages ([`SimPage`]: host, weight, [`ChangeProcess`] — Poisson,
//!   periodic-with-jitter or bursty on/off), hosts ([`Host`]: capacity, minimum delay), the
//!   budget `R`, the horizon, the warm-up (default 20%) and the time-series buckets.
//! * [`simulate()`]: runs a named policy ([`PolicyKind`], e.g. `periodic-optimal`) with
//!   [`RatesMode::Known`] or [`RatesMode::Learned`] rates and returns a [`RunSummary`]:
//!   weighted freshness, mean age, delay, changes found per fetch, fetches, politeness
//!   [`Violations`], and a time series. [`simulate_policy`] runs any [`Policy`].
//! * [`Policy`]: two verbs, `next_fetch(now)` and `observe(outcome)`; see [`policy`] for the
//!   named policies, politeness and rate learning.
//! * **Change notifications** ([`Config::notify_interval`], `notify.rs`): every host's pages
//!   are read every `S` (an honest sitemap's `<lastmod>`s), and a policy that
//!   [`listens`](Policy::listens) (`threshold`: changed → `mark_stale`, unchanged → a vouch,
//!   `set_last_fetch` at the read) is told which changed since its last fetch, coherently with
//!   what its next fetch finds; the others run as without them. With learned rates
//!   `threshold` learns from the reads, not from the fetches they cause. `threshold`'s budget
//!   bucket holds one read interval's budget then, so that a read's burst of stale pages
//!   spends what went unused since the previous read (`policy/threshold.rs`).
//!
//! **Event-driven and exact.** The loop has one event per fetch. Poisson pages are not
//! simulated change by change: at a fetch the first change since the previous fetch is drawn
//! (memorylessness), which gives freshness, age and delay over the interval in closed form
//! (see `process.rs`); periodic and bursty pages have their few changes generated explicitly.
//! Metrics are time integrals computed exactly per interval, clipped to the measured window,
//! never sampled at ticks.
//!
//! **The simulator enforces nothing.** It counts politeness violations; the policies stay
//! polite themselves (host-capped rates, and a gate that delays a fetch until its host allows
//! it).
//!
//! ```
//! use freshet_sim::{Config, PolicyKind, RatesMode, simulate};
//!
//! // One Poisson page (λ = 1) fetched once per time unit: freshness (1 − e^(−1)) ≈ 0.632.
//! let config = Config::poisson(&[(1.0, 1.0)], 1.0, 100_000.0);
//! let summary = simulate(&config, PolicyKind::Uniform, RatesMode::Known, 1)?;
//! assert!((summary.weighted_freshness - (1.0 - (-1.0f64).exp())).abs() < 0.01);
//! # Ok::<(), freshet_sim::SimError>(())
//! ```

mod error;
mod metrics;
mod model;
mod notify;
pub mod policy;
mod politeness;
mod process;
mod rng;
pub mod scenario;
mod simulate;

pub use error::{Result, SimError};
pub use metrics::{RunSummary, SeriesPoint, Violations};
pub use model::{ChangeProcess, Config, Host, SimPage};
pub use policy::{Fetch, NextFetch, Observation, Policy, PolicyKind, RatesMode};
pub use rng::SimRng;
pub use simulate::{simulate, simulate_policy};
