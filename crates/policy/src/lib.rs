//! The refresh math of freshet: which page to refetch how often, solved exactly and fast.
//!
//! A pure library: no I/O, no async, no clock, no randomness. Time is always a parameter; the
//! crawler, the simulator and the CLI call the same code.
//!
//! * [`Objective`]s — what refreshing a page at rate `f` is worth: [`objective::Freshness`]
//!   (fixed-order binary freshness), [`objective::FreshnessPoisson`] and
//!   [`objective::FreshnessDiscrete`] (seed 001's Problems 2 and 1), [`objective::Changes`]
//!   (seed 000), [`objective::Age`] and [`objective::Delay`] (seed 004). Each has its value, its
//!   marginal, and the closed-form inverse of its marginal.
//! * [`solve()`] — the exact optimum of `max Σ C_j(f_j)` under a global budget and optional per-host
//!   caps (seed 003_aad34b8e7abe1f9a.txt), with the multipliers `λ_0` and `λ_i`;
//!   [`certify`] checks any solution (KKT violation, duality gap).
//! * [`azar_poisson`] and [`azar_discrete`] — seed 001_1ae7d23b6da2937a.txt's O(n log n) closed
//!   forms, used to cross-check [`solve()`].
//! * [`crawl_value`] and [`time_to_reach`] — seed 003's crawl value function `V(τ)`, the
//!   streaming form of the same optimum that the online scheduler runs.
//! * [`reference::solve_by_bisection`] — the slow, obvious twin for tests and benchmarks.
//!
//! ```
//! use freshet_policy::{certify, solve, objective::Freshness, Page, Problem};
//!
//! // Cho & Garcia-Molina's five pages: λ = 1..5 changes/day, 5 fetches/day.
//! let pages: Vec<Page> = (1..=5).map(|lambda| Page::new(1.0, f64::from(lambda))).collect();
//! let problem = Problem::budgeted(&pages, 5.0);
//! let solution = solve(Freshness, &problem)?;
//! assert!((solution.rates[1] - 1.358).abs() < 0.002); // the λ = 2 page
//! assert_eq!(solution.rates[4], 0.0); // the fastest-changing page is not worth fetching
//! let certificate = certify(Freshness, &problem, &solution);
//! assert!(certificate.max_kkt_violation < 1e-9);
//! # Ok::<(), freshet_policy::PolicyError>(())
//! ```

mod azar;
mod certificate;
mod error;
pub mod objective;
mod page;
mod problem;
pub mod reference;
mod root;
mod solve;
pub mod special;
mod sum;
mod value;

pub use azar::{azar_discrete, azar_poisson};
pub use certificate::{Certificate, certify};
pub use error::{PolicyError, Result};
pub use objective::{Objective, ObjectiveKind, RateAtMarginal};
pub use page::Page;
pub use problem::{HostCaps, Problem};
pub use solve::{Solution, solve};
pub use value::{crawl_value, time_to_reach};
