//! Gamma prior on a page's change rate, and the posterior estimates it gives.

use crate::error::{Error, Result};
use crate::estimate::{EstimateStatus, RateEstimate};
use crate::history::ChangeHistory;
use crate::solve::solve;

/// A Gamma(shape α, rate β) prior on λ: density `∝ λ^{α−1} e^{−βλ}`, mean `α/β`, standard
/// deviation `√α/β`.
///
/// It gives a brand-new page a usable rate (the prior mean) and keeps pages that never
/// changed schedulable. `β` acts as an amount of pseudo-exposure (time units) and `α` as a
/// pseudo-count of changes seen in it: see [`GammaPrior::from_pool`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GammaPrior {
    shape: f64,
    rate: f64,
}

fn positive(name: &'static str, value: f64) -> Result<f64> {
    if value.is_finite() && value > 0.0 { Ok(value) } else { Err(Error::InvalidParameter { name, value }) }
}

impl GammaPrior {
    /// Prior with shape `α` and rate `β`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless both are finite and positive.
    pub fn new(shape: f64, rate: f64) -> Result<Self> {
        Ok(Self { shape: positive("shape", shape)?, rate: positive("rate", rate)? })
    }

    /// Prior centred on a host's pooled `mean_rate` (see [`crate::HostPool`]), worth
    /// `strength` time units of observation: `β = strength`, `α = mean_rate · β`.
    ///
    /// A page's own data outweigh the prior once its observed time exceeds `strength`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless both are finite and positive.
    pub fn from_pool(mean_rate: f64, strength: f64) -> Result<Self> {
        let mean_rate = positive("mean_rate", mean_rate)?;
        let strength = positive("strength", strength)?;
        Self::new(mean_rate * strength, strength)
    }

    /// Shape `α`.
    pub fn shape(&self) -> f64 {
        self.shape
    }

    /// Rate `β` (inverse time units).
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// Prior mean `α/β`: the estimate for a page with no observation.
    pub fn mean(&self) -> f64 {
        self.shape / self.rate
    }

    /// Prior standard deviation `√α/β`.
    pub fn std_dev(&self) -> f64 {
        self.shape.sqrt() / self.rate
    }

    fn prior_only(&self) -> RateEstimate {
        RateEstimate { rate: self.mean(), std_error: self.std_dev(), status: EstimateStatus::NoData }
    }

    /// Posterior mean from the Last-Modified statistics (conjugate update of (L1) in
    /// [`crate::last_modified_rate`]): the posterior is Gamma(α + k, β + E), so
    ///
    /// `λ = (α + k) / (β + E)`,  standard deviation `√(α + k) / (β + E)`.      (P1)
    ///
    /// Never diverges and shrinks small-`k` estimates toward the prior. With no Last-Modified
    /// observation it is the prior mean, status `NoData`.
    pub fn posterior_from_last_modified(&self, history: &ChangeHistory) -> RateEstimate {
        if history.last_modified_intervals() == 0 {
            return self.prior_only();
        }
        let shape = self.shape + f64::from(history.last_modified_changes());
        let rate = self.rate + history.last_modified_exposure();
        RateEstimate { rate: shape / rate, std_error: shape.sqrt() / rate, status: EstimateStatus::Estimated }
    }

    /// Posterior mode of `ln λ` from the changed/unchanged intervals (likelihood of
    /// [`crate::mle_rate`]). It solves
    ///
    /// `α/λ − β + Σ_U I_i/(e^{λ I_i} − 1) − Σ_S I_i = 0`            (P2)
    ///
    /// Choice: this is the mode of the posterior density of `ln λ` (the λ-density times λ),
    /// i.e. the λ-mode equation `(α − 1)/λ − …` with `α` in place of `α − 1`. It exists and is
    /// unique for every `α > 0` (the λ-mode needs `α ≥ 1`, and pooled priors often have
    /// `α < 1`); with no data it is the prior mean `α/β`, and with exposure data it coincides
    /// with the conjugate posterior mean (P1), so the two posterior estimates agree in form.
    /// (P2) is strictly decreasing in λ, from +∞ to `−β − Σ_S I`, so it always has one root.
    ///
    /// Standard error `1/√J`, `J = α/λ² + Σ_U I_i² e^{λI_i}/(e^{λI_i} − 1)²` (Laplace
    /// approximation; with no data it is the prior standard deviation). Binning error as for
    /// [`crate::mle_rate`]. With no observation: the prior mean, status `NoData`.
    pub fn posterior_from_intervals(&self, history: &ChangeHistory) -> RateEstimate {
        if history.intervals() == 0 {
            return self.prior_only();
        }
        let root = solve(self.shape, history.changed_intervals(), self.rate + history.unchanged_time());
        RateEstimate { rate: root.rate, std_error: root.std_error(), status: EstimateStatus::Estimated }
    }
}
