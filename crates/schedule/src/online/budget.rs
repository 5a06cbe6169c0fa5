//! The global budget `k_0` as a token bucket, and the controller that steers `λ_0` from it.
//!
//! The bucket's level `L ∈ [0, B]` is the integral of `k_0 − (fetch rate)`, so a threshold that
//! is a decreasing function of `L` is already an integral controller on the rate error:
//! `ln λ_0 = ln λ_ref + K_P·(½ − L/B)`. Too much demand drains the bucket and raises `λ_0`
//! (pages become due later); too little fills it and lowers `λ_0`. A slow integral term moves
//! `λ_ref` so that the bucket settles half full, i.e. the fetch rate meets `k_0` while `λ_0`
//! sits at the value where the pages' demand `Σ 1/τ*_j(λ_0)` (capped hosts counting their
//! capacity) equals `k_0`: the batch solver's `λ_0`. While the bucket is empty or full the
//! integral runs faster. The integral's clock is the pages' own: the moving average of the
//! intervals between a page's fetches (its revisit period), since the demand answers a change
//! of `λ_0` within about one period.

/// `K_P`: `λ_0` spans a factor `e^{K_P}` from a full bucket to an empty one. Small, so that the
/// keys computed with `λ_0` stay within the queues' 5% and 10% margins.
const PROPORTIONAL_GAIN: f64 = 0.1;
/// Integral gain per revisit period of error, while the bucket is neither full nor empty.
const INTEGRAL_GAIN: f64 = 0.05;
/// Integral gain per revisit period while the bucket is empty (demand waits) or full (budget
/// unused).
const SATURATED_INTEGRAL_GAIN: f64 = 0.2;
/// Weight of one observed revisit interval in the period's moving average.
const PERIOD_SMOOTHING: f64 = 1.0 / 1024.0;
/// `λ_0` stays within these bounds.
const LOG_LAMBDA0_RANGE: (f64, f64) = (-690.0, 690.0);

/// Token bucket plus threshold controller; pure state, advanced by elapsed time.
#[derive(Clone, Copy, Debug)]
pub(super) struct BudgetController {
    rate: f64,
    burst: f64,
    level: f64,
    log_reference: f64,
    /// Moving average of revisit intervals: the integral's time unit.
    period: f64,
    /// Time advanced since the start: the integral's time unit until a page is revisited.
    age: f64,
}

impl BudgetController {
    /// A half-full bucket and `λ_0 = initial`.
    pub(super) fn new(rate: f64, burst: f64, initial: f64) -> Self {
        Self { rate, burst, level: burst / 2.0, log_reference: initial.ln(), period: f64::NAN, age: 0.0 }
    }

    /// Lets `elapsed` time pass: the bucket refills and the reference threshold integrates the
    /// mean error `½ − L/B` over the interval (computed exactly for the linear refill).
    pub(super) fn advance(&mut self, elapsed: f64) {
        if elapsed.is_nan() || elapsed <= 0.0 {
            return;
        }
        let start = self.level;
        let fill_time = (self.burst - start) / self.rate;
        let rising = elapsed.min(fill_time);
        let end_of_rise = start + self.rate * rising;
        // ∫ (½ − L(t)/B) dt over the rise, then −½ per unit time while full.
        let error_integral =
            rising * (0.5 - (start + end_of_rise) / (2.0 * self.burst)) - 0.5 * (elapsed - rising).max(0.0);
        let saturated = start < 1.0 || start >= self.burst;
        let gain = if saturated { SATURATED_INTEGRAL_GAIN } else { INTEGRAL_GAIN };
        // Before any revisit (a first crawl), the time elapsed so far: a first crawl that leaves
        // the bucket full for a while must not drive λ_0 down by decades before any page is due.
        self.age += elapsed;
        let period = if self.period.is_finite() { self.period } else { self.age.max(self.burst / self.rate) };
        self.log_reference += gain * error_integral / period;
        self.log_reference = self.log_reference.clamp(LOG_LAMBDA0_RANGE.0, LOG_LAMBDA0_RANGE.1);
        self.level = (start + self.rate * elapsed).min(self.burst);
    }

    /// The current `λ_0`.
    pub(super) fn lambda0(&self) -> f64 {
        (self.log_reference + PROPORTIONAL_GAIN * (0.5 - self.level / self.burst)).exp()
    }

    /// Restarts the controller at `λ_0 = lambda0` (bucket half full).
    pub(super) fn reset(&mut self, lambda0: f64) {
        self.level = self.burst / 2.0;
        self.log_reference = lambda0.ln();
    }

    pub(super) fn has_token(&self) -> bool {
        self.level >= 1.0
    }

    /// When the next token will be there, from `now`.
    pub(super) fn token_time(&self, now: f64) -> f64 {
        now + ((1.0 - self.level) / self.rate).max(0.0)
    }

    pub(super) fn consume(&mut self) {
        self.level -= 1.0;
    }

    /// Folds the interval between two fetches of a page into the revisit period.
    pub(super) fn observe_interval(&mut self, interval: f64) {
        if interval.is_finite() && interval > 0.0 {
            if self.period.is_finite() {
                self.period += PERIOD_SMOOTHING * (interval - self.period);
            } else {
                self.period = interval;
            }
        }
    }

    #[cfg(test)]
    fn level(&self) -> f64 {
        self.level
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_bucket_raises_and_full_bucket_lowers_the_threshold() {
        let mut controller = BudgetController::new(10.0, 8.0, 1.0);
        let start = controller.lambda0();
        for _ in 0..8 {
            controller.consume();
        }
        controller.advance(0.05);
        assert!(controller.lambda0() > start);
        let mut idle = BudgetController::new(10.0, 8.0, 1.0);
        idle.advance(100.0);
        assert!(idle.lambda0() < start);
        assert!(idle.has_token() && idle.level() <= 8.0);
    }
}
