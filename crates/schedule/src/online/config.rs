//! What the caller configures: the global budget and each host's politeness.

use super::{HostId, OnlineError, OnlineResult};

/// The global budget: `k_0` fetch starts per unit time (the unit of the change rates), with a
/// token bucket of `burst` fetches.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Budget {
    /// `k_0`, fetch starts per unit time.
    pub rate: f64,
    /// Size of the token bucket: the most fetches that may start at once after a quiet spell.
    /// It is also the controller's measuring stick: `λ_0` is steered by how full it is.
    pub burst: f64,
    /// The threshold `λ_0` to start from; `None` starts from half the mean `V(∞)` of the pages
    /// present at the first [`next`](super::Scheduler::next). A good guess (a previous run, the
    /// batch solver's `lambda0`) shortens the transient.
    pub initial_lambda0: Option<f64>,
}

impl Budget {
    /// The default burst, in fetches.
    pub const DEFAULT_BURST: f64 = 64.0;

    /// `rate` fetches per unit time, the default burst, no initial threshold.
    #[must_use]
    pub fn new(rate: f64) -> Self {
        Self { rate, burst: Self::DEFAULT_BURST, initial_lambda0: None }
    }

    /// Checks the numbers.
    ///
    /// # Errors
    /// [`OnlineError::InvalidBudget`] or [`OnlineError::InvalidThreshold`].
    pub fn validate(&self) -> OnlineResult<()> {
        if !(self.rate.is_finite() && self.rate > 0.0 && self.burst.is_finite() && self.burst >= 1.0) {
            return Err(OnlineError::InvalidBudget { budget: self.rate, burst: self.burst });
        }
        match self.initial_lambda0 {
            Some(lambda0) if !(lambda0.is_finite() && lambda0 > 0.0) => {
                Err(OnlineError::InvalidThreshold(lambda0))
            }
            _ => Ok(()),
        }
    }
}

/// A host's politeness: fetch starts at least `min_delay` apart and at most `max_rate` per unit
/// time, and at most one fetch in flight (always).
///
/// A rate limit without burst is a spacing, so the scheduler enforces the gap
/// `max(min_delay, 1/max_rate)` between consecutive fetch starts on the host, and never starts a
/// fetch before the previous one is reported [`fetched`](super::Scheduler::fetched).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Politeness {
    /// Minimum time between two fetch starts on the host.
    pub min_delay: f64,
    /// Maximum fetch starts per unit time (`f64::INFINITY`: no limit beyond `min_delay`).
    pub max_rate: f64,
}

impl Default for Politeness {
    /// No delay, no rate limit: only one fetch in flight.
    fn default() -> Self {
        Self { min_delay: 0.0, max_rate: f64::INFINITY }
    }
}

impl Politeness {
    /// At most `max_rate` fetch starts per unit time.
    #[must_use]
    pub fn rate(max_rate: f64) -> Self {
        Self { min_delay: 0.0, max_rate }
    }

    /// The enforced gap between fetch starts, `max(min_delay, 1/max_rate)`.
    #[must_use]
    pub fn gap(&self) -> f64 {
        self.min_delay.max(1.0 / self.max_rate)
    }

    pub(super) fn validate(&self, host: HostId) -> OnlineResult<()> {
        let delay_ok = self.min_delay.is_finite() && self.min_delay >= 0.0;
        if !(delay_ok && self.max_rate > 0.0) {
            return Err(OnlineError::InvalidPoliteness {
                host,
                min_delay: self.min_delay,
                max_rate: self.max_rate,
            });
        }
        Ok(())
    }
}
