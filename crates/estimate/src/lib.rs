//! Change-rate estimators for a crawler: how often does a page change, from what the crawler
//! saw when it fetched it.
//!
//! A page is modelled as changing by a Poisson process of unknown rate λ (changes per time
//! unit; the unit is whatever the caller's intervals are in). Each fetch after the first gives
//! an interval, whether the content changed, and perhaps the age of the last change from
//! Last-Modified. The crate is pure: no I/O, no clock, no randomness.
//!
//! Main types:
//!
//! * [`ChangeHistory`]: bounded per-page state (96 bytes) updated by
//!   [`ChangeHistory::observe`]; never a list of visits.
//! * [`RateEstimate`]: what every estimator returns: `rate`, `std_error` and an
//!   [`EstimateStatus`] saying whether the rate is a real estimate, a cap, or a fallback.
//! * [`GammaPrior`]: a Gamma prior on λ, with posterior estimates; [`HostPool`] gathers a
//!   host's page rates into a prior mean; [`HostRates`] keeps a host's pooled prior as its
//!   pages' estimates change, and [`estimate_rate`] is a page's rate under it.
//! * [`RateMixture`], [`PooledPrior`]: empirical-Bayes priors on a grid of rates fitted to
//!   many pages' likelihoods (all pages', and each host's), and a page's [`RatePosterior`].
//!
//! Which estimator to use:
//!
//! | Estimator | Formula | Bias | Use when |
//! |---|---|---|---|
//! | [`naive_rate`] | `X / T` | low (several changes per interval count once) | lower bound only |
//! | [`improved_rate_regular`] | `−ln((n−X+0.5)/(n+0.5)) / I` | small | fixed interval, plain counts |
//! | [`mle_rate`] | root of `Σ_U I/(e^{λI}−1) = Σ_S I` | up for small n; +∞ if X = n (capped) | many irregular intervals |
//! | [`bias_corrected_rate`] | (M1) plus half a mean interval on the right | small; never diverges | default without a prior |
//! | [`last_modified_rate`] | `k / E` | up to `k/(k−1)` high | server sends reliable Last-Modified |
//! | [`GammaPrior::posterior_from_intervals`] | mode of `ln λ` posterior | shrinks to the prior | new or rarely changing pages |
//! | [`GammaPrior::posterior_from_last_modified`] | `(α+k)/(β+E)` | shrinks to the prior | same, with Last-Modified |
//! | [`RateMixture::posterior`] | mean of `π_g L(λ_g)` on a grid, `π` fitted to many pages (EM) | none from censoring | pages often fetched at intervals `≫ 1/λ` |
//! | [`PooledPrior::posterior`] | the same, `π` fitted to all pages and to each host's | none from censoring | a crawler's pages, hosts differing |
//!
//! Sources: seed 000_df0cf756c1e6fcc1.txt ("Estimation of page change rate": the likelihood,
//! the MLE equation and `X/T`), seed 004_e0cda6b04941d422.txt ("Estimating the rate
//! parameter": the simple and improved estimators), and Cho & Garcia-Molina, "Estimating
//! frequency of change", ACM TOIT 2003.
//!
//! ```
//! use freshet_estimate::{ChangeHistory, EstimateStatus, GammaPrior, bias_corrected_rate,
//!     improved_rate_regular, mle_rate};
//!
//! // Ten daily fetches, six of which saw a change.
//! let mut page = ChangeHistory::new();
//! for day in 0..10 {
//!     page.observe(1.0, day % 5 < 3, None)?;
//! }
//! let corrected = bias_corrected_rate(&page);
//! let cho = improved_rate_regular(10, 6, 1.0)?;
//! assert!((corrected.rate - cho.rate).abs() < 1e-12);
//! assert!((cho.rate - 0.8473).abs() < 5e-4);
//! println!("{:.3} ± {:.3} changes/day", corrected.rate, corrected.std_error);
//!
//! // Equal intervals: the MLE is ln(1 + |U|/|S|) / I = ln(2.5).
//! assert!((mle_rate(&page).rate - 2.5f64.ln()).abs() < 1e-12);
//!
//! // A new page on a host whose pages change about every 4 days.
//! let prior = GammaPrior::from_pool(0.25, 8.0)?;
//! let fresh = prior.posterior_from_intervals(&ChangeHistory::new());
//! assert_eq!((fresh.rate, fresh.status), (0.25, EstimateStatus::NoData));
//! # Ok::<(), freshet_estimate::Error>(())
//! ```

mod codec;
mod error;
mod estimate;
mod histogram;
mod history;
mod host_prior;
mod last_modified;
mod mixture;
mod mle;
mod naive;
mod pool;
mod pooled;
mod prior;
mod regular;
mod solve;

pub use error::{Error, Result};
pub use estimate::{EstimateStatus, RateEstimate};
pub use history::ChangeHistory;
pub use host_prior::{HostRates, PRIOR_FETCHES, estimate_rate};
pub use last_modified::last_modified_rate;
pub use mixture::{RateMixture, RatePosterior};
pub use mle::{bias_corrected_rate, mle_rate};
pub use naive::naive_rate;
pub use pool::HostPool;
pub use pooled::{PoolSettings, PooledPrior};
pub use prior::GammaPrior;
pub use regular::improved_rate_regular;
