//! Refresh objectives: what a fetch of a page is worth as a function of its refresh rate.
//!
//! Each objective is a per-page concave function `C(f)` of the refresh rate `f` (fetches per unit
//! time), given the page's weight `w` and change rate `λ`; the solvers maximise `Σ C_i(f_i)`
//! (objectives that are costs, `age` and `delay`, are maximised as `−w·cost`). Everything a solver
//! or the online scheduler needs is here: the value, the marginal value `C'(f)` (decreasing), its
//! supremum `C'(0⁺)`, and the inverse of the marginal: the rate at which `C'(f)` equals a
//! threshold `μ` (0 if `C'(0⁺) ≤ μ`).
//!
//! | name | `C(f)` | `C'(0⁺)` | source |
//! |---|---|---|---|
//! | `freshness` | `w·(f/λ)·(1 − e^(−λ/f))` | `w/λ` | seed 003_aad34b8e7abe1f9a.txt, Cho & Garcia-Molina |
//! | `freshness-poisson` | `w·f/(f + λ)` | `w/λ` | seed 001_1ae7d23b6da2937a.txt, Problem 2 |
//! | `freshness-discrete` | `w·p/(p + λ − pλ)`, `p ≤ 1` | `w/λ` | seed 001_1ae7d23b6da2937a.txt, Problem 1 |
//! | `changes` | `w·f·(1 − e^(−λ/f))` | `w` | seed 000_df0cf756c1e6fcc1.txt |
//! | `age` | `−w·(1/f)·(1/2 − 1/r + (1 − e^(−r))/r²)`, `r = λ/f` | `∞` | Cho & Garcia-Molina (fixed order) |
//! | `delay` | `−w·λ/(2f)` | `∞` | seed 004_e0cda6b04941d422.txt |

mod age;
mod changes;
mod delay;
mod discrete;
mod freshness;
mod poisson;

pub use age::Age;
pub use changes::Changes;
pub use delay::Delay;
pub use discrete::FreshnessDiscrete;
pub use freshness::Freshness;
pub use poisson::FreshnessPoisson;

use crate::{Page, PolicyError};

/// A per-page concave refresh objective `C(f)` (see the module docs for the list).
///
/// Implementations are zero-sized and `Copy`, so the solvers are monomorphised per objective and
/// the inner loops contain no dynamic dispatch.
pub trait Objective: Copy + Send + Sync + 'static {
    /// The objective's name on the command line (e.g. `"freshness"`).
    fn name(self) -> &'static str;

    /// Checks that a page lies in the objective's domain (weight > 0, change rate > 0, …).
    ///
    /// # Errors
    /// [`PolicyError::InvalidWeight`] or [`PolicyError::InvalidChangeRate`], naming `index`.
    fn check_page(self, index: usize, page: Page) -> Result<(), PolicyError> {
        check_positive(index, page)
    }

    /// `C(f)`: the value per unit time of refreshing `page` at `rate` (to be maximised).
    fn value(self, page: Page, rate: f64) -> f64;

    /// `C'(f)`: the marginal value of one more fetch per unit time; positive and decreasing.
    /// At `rate = ∞` it is 0.
    fn marginal(self, page: Page, rate: f64) -> f64;

    /// `C'(0⁺)`, the marginal of the first fetch: a page whose threshold is at or above this gets
    /// rate 0. Infinite for `age` and `delay` (every page is worth some fetches).
    fn marginal_at_zero(self, page: Page) -> f64;

    /// The largest admissible rate (1 fetch per slot for `freshness-discrete`, else `∞`).
    fn max_rate(self, _page: Page) -> f64 {
        f64::INFINITY
    }

    /// The rate `f` at which `C'(f) = threshold`, clamped to `[0, max_rate]`, and `df/dμ` there
    /// (0 at the clamps). `threshold ≤ 0` gives `max_rate`.
    fn rate_at_marginal(self, page: Page, threshold: f64) -> RateAtMarginal;
}

/// The answer of [`Objective::rate_at_marginal`]: a rate and its sensitivity to the threshold.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateAtMarginal {
    /// The rate `f = (C')⁻¹(μ)`, clamped to the admissible range.
    pub rate: f64,
    /// `df/dμ = 1/C''(f)` (≤ 0), or 0 where the rate is clamped.
    pub slope: f64,
}

impl RateAtMarginal {
    /// Rate 0: the page is not worth fetching at this threshold.
    pub const ZERO: Self = Self { rate: 0.0, slope: 0.0 };
}

/// The objectives by name, for callers that choose at run time (the CLI).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ObjectiveKind {
    /// [`Freshness`].
    Freshness,
    /// [`FreshnessPoisson`].
    FreshnessPoisson,
    /// [`FreshnessDiscrete`].
    FreshnessDiscrete,
    /// [`Changes`].
    Changes,
    /// [`Age`].
    Age,
    /// [`Delay`].
    Delay,
}

impl ObjectiveKind {
    /// Every objective, in the order of the module table.
    pub const ALL: [Self; 6] = [
        Self::Freshness,
        Self::FreshnessPoisson,
        Self::FreshnessDiscrete,
        Self::Changes,
        Self::Age,
        Self::Delay,
    ];

    /// The name used on the command line.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Freshness => Freshness.name(),
            Self::FreshnessPoisson => FreshnessPoisson.name(),
            Self::FreshnessDiscrete => FreshnessDiscrete.name(),
            Self::Changes => Changes.name(),
            Self::Age => Age.name(),
            Self::Delay => Delay.name(),
        }
    }

    /// True for objectives that are costs (reported as positive `age` or `delay`, minimised).
    #[must_use]
    pub fn is_cost(self) -> bool {
        matches!(self, Self::Age | Self::Delay)
    }
}

impl std::fmt::Display for ObjectiveKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing an unknown objective name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown objective {given:?}; expected one of: freshness, freshness-poisson, freshness-discrete, changes, age, delay"
)]
pub struct UnknownObjective {
    /// The name given.
    pub given: String,
}

impl std::str::FromStr for ObjectiveKind {
    type Err = UnknownObjective;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|kind| kind.name() == s)
            .ok_or_else(|| UnknownObjective { given: s.to_owned() })
    }
}

/// Calls `$body` with `$objective` bound to the zero-sized objective named by `$kind`, so that
/// generic code is monomorphised for each objective.
#[macro_export]
macro_rules! with_objective {
    ($kind:expr, |$objective:ident| $body:expr) => {
        match $kind {
            $crate::ObjectiveKind::Freshness => {
                let $objective = $crate::objective::Freshness;
                $body
            }
            $crate::ObjectiveKind::FreshnessPoisson => {
                let $objective = $crate::objective::FreshnessPoisson;
                $body
            }
            $crate::ObjectiveKind::FreshnessDiscrete => {
                let $objective = $crate::objective::FreshnessDiscrete;
                $body
            }
            $crate::ObjectiveKind::Changes => {
                let $objective = $crate::objective::Changes;
                $body
            }
            $crate::ObjectiveKind::Age => {
                let $objective = $crate::objective::Age;
                $body
            }
            $crate::ObjectiveKind::Delay => {
                let $objective = $crate::objective::Delay;
                $body
            }
        }
    };
}

/// The common domain check: weight and change rate positive and finite.
pub(crate) fn check_positive(index: usize, page: Page) -> Result<(), PolicyError> {
    if !(page.weight.is_finite() && page.weight > 0.0) {
        return Err(PolicyError::InvalidWeight { page: index, weight: page.weight });
    }
    if !(page.change_rate.is_finite() && page.change_rate > 0.0) {
        return Err(PolicyError::InvalidChangeRate {
            page: index,
            change_rate: page.change_rate,
            expected: "a positive finite number",
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests;
