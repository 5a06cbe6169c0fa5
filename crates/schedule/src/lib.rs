//! Turns refresh rates into fetch sequences.
//!
//! The solver says how often to fetch each page: rates `f_i ≥ 0` (fetches per unit time) with
//! total `R = Σ f_i > 0`. This crate cuts time into slots of length `1/R`, fetches one page
//! per slot, and decides which, so that page `i` takes about a share `p_i = f_i / R` of every
//! prefix of the sequence (seed 001_1ae7d23b6da2937a.txt, "Derandomizing the Optimal Random
//! Policy"). It is pure: no clock, no I/O, no randomness; slot `k` starts at time `k/R` after
//! whatever instant the caller calls time 0.
//!
//! # Main types
//! - [`Shares`]: validated rates, normalised to shares `p_i`; maps slots to times.
//!   Bad rates (empty, NaN, negative, infinite, all zero) are a [`ScheduleError`].
//! - [`Carousel`]: the deterministic carousel, earliest deadline first over per-occurrence
//!   windows ([`Windows`]); an endless [`Iterator`] of page indices that never idles, or
//!   [`Fetch`]es (slot, page, time) from [`Carousel::next_fetch`]. `O(1)` amortised per slot
//!   when deadlines are spread over slots (calendar queues), `O(log n)` at worst; `O(n)` memory.
//! - [`CreditCarousel`]: the paper's Algorithm 3 as printed (largest credit first), `O(n)` per
//!   slot, kept for comparison.
//! - [`DiscrepancyMeter`]: measures `max |N_i(T) − T·p_i|` of any sequence over all prefixes.
//!
//! The [`online`] module holds the online threshold scheduler driven by the crawl value function
//! of seed 003_aad34b8e7abe1f9a.txt: sans-IO, politeness-safe, with `λ_0` steered by the budget.
//!
//! # The bound
//! Let `N_i(T)` be the number of fetches of page `i` in the first `T` slots and
//! `lag_i(T) = T·p_i − N_i(T)`. Assume first exact arithmetic, with shares summing to 1.
//!
//! **[`Windows::Full`]** (the default: occurrence `j` released at `(j − 1)/p_i`, due at
//! `j/p_i`). For every page `i` and every `T`:
//!
//! ```text
//! −(1 − p_i) ≤ lag_i(T) < 1,  so  |N_i(T) − T·p_i| < 1  and  N_i(T) ∈ {⌊T·p_i⌋, ⌈T·p_i⌉}.   (1)
//! ```
//!
//! Why: occurrence `j` may use slots `⌈(j−1)/p_i⌉ ≤ t < ⌈j/p_i⌉`. Any run of slots
//! `[a, b)` wholly contains fewer than `(b − a + 1)·p_i` windows of page `i`, so fewer than
//! `b − a + 1` windows in all, i.e. at most `b − a`: the windows can all be met on one machine,
//! and earliest-deadline-first then meets them all (it never idles either). A met deadline
//! gives `lag < 1`; the release gives `lag ≥ p_i − 1` just after a fetch.
//! Both ends are approached: the worst seen was 0.99999997 (a page of share ≈ 1 beside tiny
//! ones), so these windows do not reach Tijdeman's bound below.
//!
//! **[`Windows::Tijdeman`]** (windows narrowed by `σ = 1/(2n − 2)`, `n ≥ 2` pages of positive
//! share). Tijdeman's chairman assignment theorem (the paper's ref. 16, thm. 3) gives
//!
//! ```text
//! |N_i(T) − T·p_i| ≤ 1 − 1/(2n − 2)   for every page i and every T.                    (2)
//! ```
//!
//! We rely on the theorem here (we have not re-proved it), and measured it, see below.
//!
//! **Algorithm 3** ([`CreditCarousel`]): no bound is claimed. It exceeds 1: the worst seen was
//! 1.3514, and rates (1, 1, 1, 11, 11) already give 26/25 (a regression test pins it).
//!
//! **Floating point.** The shares are rounded, so they sum to 1 only within about `n·2^-53`.
//! Releases and deadlines are compared exactly from integer occurrence counters (no time is
//! accumulated by repeated addition), so the rounded shares are the only inexact input, and
//! the bounds hold up to a slack that grows like `T·2^-53` (about `1e-11` at `10^6` slots in
//! the tests). If rounding leaves no occurrence released in a slot, the earliest-released one is
//! served early, so no slot idles. Counters are exact while `j·(2n − 2) < 2^53` (and slot
//! indices below `2^53`); shares below about `1e-290` may lose exactness in comparisons.
//!
//! **How it was measured.** `examples/measure_bound.rs` runs 20,000 (seed 1) and 50,000
//! (seed 2) random instances: `n` from 1 to 300, uniform, log-uniform over 8 orders of
//! magnitude, Zipf-like, a few dominant pages, small integer rates, dyadic and equal rates, half
//! of them with 30% zeros; every prefix `T ≤ 4n + 64` is checked, then twelve runs of `10^6`
//! slots with `n` up to `10^4`. Worst `|N_i(T) − T·p_i|` seen: full windows 0.99999997 (never
//! ≥ 1); Tijdeman's windows 0.99995 with `n = 10^4`, never above `1 − 1/(2n − 2)`;
//! Algorithm 3 1.3514, and ≥ 1 in 2,375 of the 70,000 instances. The property tests in `tests/bound.rs` assert (1) and (2), with slack
//! `1e-9`, over every page and every prefix `T ≤ 4n + 16`, against a brute-force count.
//!
//! # Example
//! ```
//! use freshet_schedule::{Carousel, Shares, Windows};
//!
//! // Rates in fetches per hour: R = 4, so one fetch every quarter hour.
//! let mut carousel = Carousel::new(&[2.0, 1.0, 0.0, 1.0])?;
//! let fetches: Vec<(usize, f64)> = (0..4)
//!     .map(|_| carousel.next_fetch())
//!     .map(|fetch| (fetch.page, fetch.time))
//!     .collect();
//! assert_eq!(fetches, [(0, 0.0), (1, 0.25), (0, 0.5), (3, 0.75)]);
//!
//! // Tijdeman's windows: every page within 1 − 1/(2n − 2) of its share at every prefix.
//! let shares = Shares::new(&[5.0, 3.0, 1.0, 1.0])?;
//! let pages: Vec<usize> = Carousel::with_windows(shares, Windows::Tijdeman).take(10).collect();
//! assert_eq!(pages.iter().filter(|&&page| page == 0).count(), 5);
//! # Ok::<(), freshet_schedule::ScheduleError>(())
//! ```

mod carousel;
mod credit;
mod discrepancy;
mod error;
pub mod online;
mod point;
mod shares;
mod wheel;
mod windows;

pub use carousel::{Carousel, Fetch};
pub use credit::CreditCarousel;
pub use discrepancy::{Discrepancy, DiscrepancyMeter};
pub use error::{Result, ScheduleError};
pub use shares::Shares;
pub use windows::Windows;
