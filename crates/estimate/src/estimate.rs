//! The value every estimator returns: a rate, its uncertainty, and how far to trust it.

/// How an estimate came about; tells the caller whether `rate` is a real estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EstimateStatus {
    /// The estimator's equation had a finite solution; `rate` is it.
    Estimated,
    /// Data were seen but no change: the maximum-likelihood rate is 0. Use a prior
    /// ([`crate::GammaPrior`]) to keep the page schedulable.
    NoChangeSeen,
    /// Every observation saw a change (or a change with zero exposure): the maximum-likelihood
    /// rate is +∞. `rate` is a finite cap, documented by the estimator that returned it.
    Capped,
    /// No observation at all (or none of the kind this estimator needs): `rate` is 0, or the
    /// prior mean for the posterior estimators.
    NoData,
}

/// A change-rate estimate in changes per time unit (the unit of the intervals observed).
///
/// `std_error` is an approximate standard error (from the Fisher information, or the posterior
/// standard deviation for [`crate::GammaPrior`] estimates). It is `f64::INFINITY` where the data
/// cannot bound the rate (no change seen, or a capped estimate). Print it as "rate ± std_error".
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateEstimate {
    /// Estimated changes per time unit; always finite and ≥ 0.
    pub rate: f64,
    /// Approximate standard error of `rate`; ≥ 0, possibly `f64::INFINITY`.
    pub std_error: f64,
    /// How the estimate came about.
    pub status: EstimateStatus,
}

impl RateEstimate {
    pub(crate) fn no_data() -> Self {
        Self { rate: 0.0, std_error: f64::INFINITY, status: EstimateStatus::NoData }
    }

    pub(crate) fn no_change_seen() -> Self {
        Self { rate: 0.0, std_error: f64::INFINITY, status: EstimateStatus::NoChangeSeen }
    }
}
