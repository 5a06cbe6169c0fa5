//! Per-host accumulator of page rates, the source of a host's prior mean.

use crate::error::{Error, Result};
use crate::prior::GammaPrior;

/// Running sums of per-page rate estimates over one host's pages (24 bytes).
///
/// Feed it each page's best current estimate (e.g. [`crate::bias_corrected_rate`] or
/// [`crate::last_modified_rate`]); its mean becomes the prior mean of new pages on the host
/// through [`HostPool::prior`]. Pages that never changed contribute 0 and pull the mean down,
/// as they should.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct HostPool {
    pages: u64,
    sum_rate: f64,
    sum_rate_squared: f64,
}

impl HostPool {
    /// An empty pool.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one page's rate estimate.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless `rate` is finite and `≥ 0`; nothing is added then.
    pub fn add(&mut self, rate: f64) -> Result<()> {
        if !(rate.is_finite() && rate >= 0.0) {
            return Err(Error::InvalidParameter { name: "rate", value: rate });
        }
        self.pages += 1;
        self.sum_rate += rate;
        self.sum_rate_squared += rate * rate;
        Ok(())
    }

    /// Number of pages added.
    pub fn pages(&self) -> u64 {
        self.pages
    }

    /// Mean of the page rates, or `None` for an empty pool.
    pub fn mean_rate(&self) -> Option<f64> {
        (self.pages > 0).then(|| self.sum_rate / self.pages as f64)
    }

    /// Sample variance of the page rates (between-page spread plus estimation noise), or
    /// `None` with fewer than two pages.
    pub fn rate_variance(&self) -> Option<f64> {
        if self.pages < 2 {
            return None;
        }
        let n = self.pages as f64;
        let mean = self.sum_rate / n;
        Some(((self.sum_rate_squared - n * mean * mean) / (n - 1.0)).max(0.0))
    }

    /// Prior for a new page on this host: [`GammaPrior::from_pool`] with the pool's mean.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] if the pool is empty or its mean is 0 (`mean_rate` reported
    /// as 0), or `strength` is not finite and positive.
    pub fn prior(&self, strength: f64) -> Result<GammaPrior> {
        GammaPrior::from_pool(self.mean_rate().unwrap_or(0.0), strength)
    }
}

#[cfg(test)]
#[allow(clippy::expect_used)] // a failing fixture should panic the test
mod tests {
    use super::*;

    #[test]
    fn pool_mean_and_variance_feed_the_prior() {
        let mut pool = HostPool::new();
        assert!(pool.prior(10.0).is_err(), "an empty pool has no prior");
        for rate in [0.1, 0.2, 0.6] {
            pool.add(rate).expect("valid rate");
        }
        assert!(pool.add(f64::NAN).is_err());
        assert!(pool.add(-1.0).is_err());
        assert_eq!(pool.pages(), 3);
        assert!((pool.mean_rate().unwrap_or(0.0) - 0.3).abs() < 1e-15);
        assert!((pool.rate_variance().unwrap_or(0.0) - 0.07).abs() < 1e-15);
        let prior = pool.prior(10.0).expect("valid prior");
        assert!((prior.shape() - 3.0).abs() < 1e-12 && prior.rate() == 10.0);
    }
}
