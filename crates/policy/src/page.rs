//! A page as the policy sees it: how much it matters and how often it changes.

/// One page's parameters: its importance `weight` (w) and its Poisson `change_rate` (λ, changes
/// per unit time; for `freshness-discrete`, the probability of a change per time slot).
///
/// Rates returned by the solvers are in fetches per the same unit of time as `change_rate`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Page {
    /// Importance w > 0 (e.g. request rate, PageRank, OPIC cash).
    pub weight: f64,
    /// Change rate λ > 0 (changes per unit time), or change probability per slot in (0, 1).
    pub change_rate: f64,
}

impl Page {
    /// A page with the given weight and change rate (validated by the solvers, not here).
    #[must_use]
    pub const fn new(weight: f64, change_rate: f64) -> Self {
        Self { weight, change_rate }
    }
}
