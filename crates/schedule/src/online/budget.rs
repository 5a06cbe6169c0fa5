//! The global budget `k_0` as a token bucket, and the controller that sets `λ_0` from it.
//!
//! `λ_0` has a feed-forward part and a feedback part:
//! `ln λ_0 = ln λ_ff + c + K_P·(½ − L/B)`.
//! * `λ_ff` is where the pages' steady-state demand `Σ_i min(k_i, S_i(λ))` equals `k_0` (seed
//!   003's equation for `λ_0`, the one `freshet_policy::solve` solves), found by a Newton step per
//!   sweep over the pages (`demand.rs`). It does not wait for the fetch rate to show a mistake:
//!   after a first crawl, or a start where every copy is fresh, the rate is far from its steady
//!   state for a whole revisit period, and a controller that only watches the rate either
//!   recovers over many periods or oscillates at the period.
//! * `L ∈ [0, B]` is the bucket's level: demand above `k_0` drains it and raises `λ_0` a little
//!   (pages become due later, the most valuable first); budget left unused lowers it.
//! * `c ∈ [−¼, ¼]` integrates the same error `½ − L/B` on the clock of one demand sweep, so
//!   that a fetch rate that differs from the model's (fetches that take time, back-offs, hosts
//!   whose slot is busy) is made up. It integrates only while the feed-forward is settled (its
//!   last sweep moved it by less than 2%): an empty bucket during a first crawl is a transient,
//!   not a model error, and a correction wound up there would starve the steady state after it
//!   (what the first version, a pure integral controller, did: 48% of the budget used, `λ_0`
//!   1.8 times the solver's, in `benches/online.rs`), and it is bounded so that it cannot take
//!   `λ_0` far from the equilibrium the feed-forward computes.
//! * The demand of pages never fetched is not the model's either: the equation counts each page
//!   at its steady-state rate, but every page of a first crawl (or of a host just found) is due
//!   at once, at `V(∞)`. So an empty bucket raises `c` only in the proportion of recent tokens
//!   that went to pages fetched before ([`BudgetController::consume`]). Integrated whole, the
//!   error of a first crawl with `λ_ff` warm-started at the solver's value (settled from the
//!   first sweep) wound `c` up to +0.21, and `λ_0` came out of the first crawl 1.23 times its
//!   equilibrium (10^6 pages in `benches/online.rs`): the budget went partly unused while it
//!   unwound, and its fall rebuilt the calendar three times in the windows after. A full bucket
//!   (budget unused) lowers `c` whoever the tokens went to.

/// `K_P`: `λ_0` spans a factor `e^{K_P}` from a full bucket to an empty one. Small, so that the
/// keys computed with `λ_0` stay within the queues' 5% and 10% margins.
const PROPORTIONAL_GAIN: f64 = 0.1;
/// Integral gain per sweep duration of error.
const INTEGRAL_GAIN: f64 = 0.2;
/// A sweep that moves `ln λ_ff` by less than this leaves the feed-forward settled.
const SETTLED_STEP: f64 = 0.02;
/// The correction `c` stays within these bounds (a factor 1.28 either way).
const CORRECTION_RANGE: (f64, f64) = (-0.25, 0.25);
/// `λ_0` stays within these bounds.
const LOG_LAMBDA0_RANGE: (f64, f64) = (-690.0, 690.0);

/// Token bucket plus threshold controller; pure state, advanced by elapsed time.
#[derive(Clone, Copy, Debug)]
pub(super) struct BudgetController {
    rate: f64,
    burst: f64,
    /// `1/rate` and `1/burst`: `advance` and `log_lambda0` run about twice per fetch, and a
    /// division costs several multiplications' time.
    inverse_rate: f64,
    inverse_burst: f64,
    level: f64,
    /// `ln λ_ff`.
    log_feedforward: f64,
    /// `c`.
    log_correction: f64,
    /// The integral's time unit: the duration of the latest demand sweep (`NaN` before one).
    horizon: f64,
    /// Time advanced since the start: the integral's time unit before a sweep completes.
    age: f64,
    /// Whether the latest sweep left `λ_ff` where it was (within `SETTLED_STEP`): the correction
    /// integrates only then, else it would wind up against an error the feed-forward is still
    /// removing (a budget no page can use while `λ_ff` is above every `V(∞)`).
    settled: bool,
    /// The share of the latest tokens (a moving average over about a bucket of them) that went
    /// to pages never fetched before: an empty bucket raises the correction only in the
    /// proportion of the others (see the module docs).
    first_fetch_share: f64,
    /// Tokens lost to a full bucket since a token was last taken.
    overflow: f64,
    /// Tokens lost beyond the first bucketful of a spell without fetches, not yet handed to the
    /// demand sweep ([`take_unused_tokens`](Self::take_unused_tokens)).
    unused_tokens: f64,
}

impl BudgetController {
    /// A half-full bucket and `λ_0 = initial`.
    pub(super) fn new(rate: f64, burst: f64, initial: f64) -> Self {
        Self {
            rate,
            burst,
            inverse_rate: 1.0 / rate,
            inverse_burst: 1.0 / burst,
            level: burst / 2.0,
            log_feedforward: initial.ln(),
            log_correction: 0.0,
            horizon: f64::NAN,
            age: 0.0,
            settled: false,
            first_fetch_share: 0.0,
            overflow: 0.0,
            unused_tokens: 0.0,
        }
    }

    /// Lets `elapsed` time pass: the bucket refills and the correction integrates the mean error
    /// `½ − L/B` over the interval (computed exactly for the linear refill).
    pub(super) fn advance(&mut self, elapsed: f64) {
        if elapsed.is_nan() || elapsed <= 0.0 {
            return;
        }
        let start = self.level;
        let fill_time = (self.burst - start) * self.inverse_rate;
        let rising = elapsed.min(fill_time);
        let end_of_rise = start + self.rate * rising;
        // ∫ (½ − L(t)/B) dt over the rise, then −½ per unit time while full.
        let error_integral = rising * (0.5 - 0.5 * (start + end_of_rise) * self.inverse_burst)
            - 0.5 * (elapsed - rising).max(0.0);
        // Demand above the budget counts only for the tokens of pages fetched before.
        let error_integral = if error_integral > 0.0 {
            error_integral * (1.0 - self.first_fetch_share)
        } else {
            error_integral
        };
        self.age += elapsed;
        let horizon = if self.horizon.is_finite() { self.horizon } else { self.age };
        let horizon = horizon.max(self.burst * self.inverse_rate);
        if self.settled {
            self.log_correction = (self.log_correction + INTEGRAL_GAIN * error_integral / horizon)
                .clamp(CORRECTION_RANGE.0, CORRECTION_RANGE.1);
        }
        let overflow = self.overflow + self.rate * (elapsed - rising).max(0.0);
        self.unused_tokens += (overflow - self.burst).max(0.0) - (self.overflow - self.burst).max(0.0);
        self.overflow = overflow;
        self.level = (start + self.rate * elapsed).min(self.burst);
    }

    /// The whole tokens a full bucket let go, beyond the first bucketful of a spell without
    /// fetches, since the last call (the fraction stays for the next): the demand sweep advances
    /// by them as by fetches (`Scheduler::next`). Not the first bucketful: a crawl whose fetches
    /// come in bursts (the pages a sitemap read finds changed) lets the bucket overflow between
    /// them, which is no sign that `λ_ff` is wrong, and sweeping on those tokens too left 1% of
    /// the budget unspent in `freshet-sim`'s `budget_is_spent_with_reads_every_three_tenths_…`
    /// (197,948 fetches of 200,000; the feed-forward, moved more often, held the correction
    /// back). A whole bucketful lost is a threshold above what the pages are worth.
    pub(super) fn take_unused_tokens(&mut self) -> usize {
        let whole = self.unused_tokens.floor();
        self.unused_tokens -= whole;
        // Saturating: a bucket full for longer than `usize::MAX` tokens asks for a whole pass
        // either way.
        whole as usize
    }

    /// The current `λ_0` (the scheduler carries it by small steps instead: `lambda0_at`).
    #[cfg(test)]
    pub(super) fn lambda0(&self) -> f64 {
        self.log_lambda0().exp()
    }

    /// `ln λ_0`: a few additions, where `λ_0` costs an exponential (the scheduler compares it
    /// to skip the exponential while nothing moved, `Scheduler::refresh_lambda0`).
    #[inline]
    pub(super) fn log_lambda0(&self) -> f64 {
        let log = self.log_feedforward
            + self.log_correction
            + PROPORTIONAL_GAIN * (0.5 - self.level * self.inverse_burst);
        log.clamp(LOG_LAMBDA0_RANGE.0, LOG_LAMBDA0_RANGE.1)
    }

    /// The feed-forward threshold `λ_ff`.
    pub(super) fn feedforward(&self) -> f64 {
        self.log_feedforward.exp()
    }

    /// Sets `λ_ff` from a demand sweep that took `duration` time units.
    pub(super) fn set_feedforward(&mut self, lambda: f64, duration: f64) {
        if lambda.is_finite() && lambda > 0.0 {
            let log = lambda.ln().clamp(LOG_LAMBDA0_RANGE.0, LOG_LAMBDA0_RANGE.1);
            self.settled = (log - self.log_feedforward).abs() < SETTLED_STEP;
            self.log_feedforward = log;
        }
        if duration.is_finite() && duration > 0.0 {
            self.horizon = duration;
        }
    }

    /// Restarts the controller at `λ_0 = lambda0` (bucket half full, no correction).
    pub(super) fn reset(&mut self, lambda0: f64) {
        self.level = self.burst / 2.0;
        self.log_feedforward = lambda0.ln();
        self.log_correction = 0.0;
    }

    /// Whether the bucket is full (tokens go unused).
    pub(super) fn is_full(&self) -> bool {
        self.level >= self.burst
    }

    pub(super) fn has_token(&self) -> bool {
        self.level >= 1.0
    }

    /// When the next token will be there, from `now`.
    pub(super) fn token_time(&self, now: f64) -> f64 {
        now + ((1.0 - self.level) * self.inverse_rate).max(0.0)
    }

    /// When the bucket will be full if no token is taken before (`now` if it is).
    pub(super) fn full_time(&self, now: f64) -> f64 {
        now + ((self.burst - self.level) * self.inverse_rate).max(0.0)
    }

    /// Takes a token for a fetch, of a page never fetched before if `first_fetch` (not one whose
    /// copy was marked stale: that is a revisit).
    pub(super) fn consume(&mut self, first_fetch: bool) {
        self.level -= 1.0;
        self.overflow = 0.0;
        let first = if first_fetch { 1.0 } else { 0.0 };
        self.first_fetch_share += (first - self.first_fetch_share) * self.inverse_burst.min(1.0);
    }

    /// Puts the bucket back at `level` tokens (clamped to `[0, burst]`): a re-solve keeps the
    /// level, which is both the unused budget and the feedback that steers `λ_0` (resetting it
    /// to half at every re-solve made frequent re-solves spend 2–3% over the budget in the
    /// simulator, or 24% under it in `resolving_lambda0_mints_no_tokens`).
    pub(super) fn set_level(&mut self, level: f64) {
        self.level = level.clamp(0.0, self.burst);
    }

    /// Tokens a full bucket will let go, from now, before they count as unused
    /// ([`take_unused_tokens`](Self::take_unused_tokens)).
    pub(super) fn tokens_before_unused(&self) -> f64 {
        (self.burst - self.overflow).max(0.0)
    }

    /// Whether the latest demand sweep left `λ_ff` where it was (within `SETTLED_STEP`).
    pub(super) fn settled(&self) -> bool {
        self.settled
    }

    /// Tokens in the bucket now.
    pub(super) fn level(&self) -> f64 {
        self.level
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tokens a full bucket lets go count as unused beyond its first bucketful of a spell
    /// without fetches, whole tokens at a time; a token taken starts a new spell.
    #[test]
    fn unused_tokens_count_beyond_a_bucketful_without_fetches() {
        let mut controller = BudgetController::new(10.0, 8.0, 1.0);
        controller.advance(0.4); // 4 tokens: the bucket is full.
        assert_eq!(controller.tokens_before_unused(), 8.0);
        controller.advance(0.75); // 7.5 lost, within the first bucketful.
        assert_eq!(controller.take_unused_tokens(), 0);
        assert!((controller.tokens_before_unused() - 0.5).abs() < 1e-12);
        controller.advance(0.3); // 3 more lost: 2.5 beyond the bucketful.
        assert_eq!(controller.take_unused_tokens(), 2);
        controller.advance(0.06); // 0.6 more: 0.5 + 0.6 left over.
        assert_eq!(controller.take_unused_tokens(), 1);
        assert_eq!(controller.take_unused_tokens(), 0);
        controller.consume(false);
        controller.advance(0.5); // 1 refills, 4 lost: a new spell.
        assert_eq!(controller.take_unused_tokens(), 0);
        assert!((controller.tokens_before_unused() - 4.0).abs() < 1e-12);
    }

    #[test]
    fn empty_bucket_raises_and_full_bucket_lowers_the_threshold() {
        let mut controller = BudgetController::new(10.0, 8.0, 1.0);
        let start = controller.lambda0();
        for _ in 0..8 {
            controller.consume(false);
        }
        controller.advance(0.05);
        assert!(controller.lambda0() > start);
        let mut idle = BudgetController::new(10.0, 8.0, 1.0);
        idle.advance(100.0);
        assert!(idle.lambda0() < start);
        assert!(idle.has_token() && idle.level() <= 8.0);
    }

    #[test]
    fn the_correction_waits_for_the_feedforward_to_settle() {
        let mut controller = BudgetController::new(10.0, 8.0, 1.0);
        controller.set_feedforward(0.5, 1.0);
        controller.advance(100.0);
        let unsettled = controller.lambda0();
        assert!((unsettled / (0.5 * (-PROPORTIONAL_GAIN / 2.0).exp()) - 1.0).abs() < 1e-12);
        controller.set_feedforward(0.5, 1.0);
        controller.advance(100.0);
        assert!(controller.lambda0() < unsettled);
    }

    #[test]
    fn an_empty_bucket_raises_the_correction_only_for_pages_fetched_before() {
        // The same empty bucket, its tokens taken by first fetches or by revisits.
        let run = |first_fetch: bool| {
            let mut controller = BudgetController::new(10.0, 8.0, 1.0);
            controller.set_feedforward(1.0, 1.0);
            for _ in 0..1_000 {
                controller.advance(0.1);
                while controller.has_token() {
                    controller.consume(first_fetch);
                }
            }
            controller.log_correction
        };
        assert!(run(false) > 0.2, "{}", run(false));
        // Only while the average of the first tokens has not reached them yet.
        assert!(run(true) < 0.05, "{}", run(true));
        // A full bucket lowers it whoever took the last tokens.
        let mut controller = BudgetController::new(10.0, 8.0, 1.0);
        controller.set_feedforward(1.0, 1.0);
        for _ in 0..8 {
            controller.consume(true);
        }
        controller.advance(100.0);
        assert!(controller.log_correction < 0.0);
    }

    #[test]
    fn the_correction_is_bounded() {
        let mut controller = BudgetController::new(10.0, 8.0, 2.0);
        controller.set_feedforward(2.0, 1.0);
        assert!(controller.settled);
        for _ in 0..1_000 {
            controller.level = 0.0;
            controller.advance(0.01);
        }
        controller.level = 0.0;
        let ceiling = 2.0 * (CORRECTION_RANGE.1 + PROPORTIONAL_GAIN / 2.0).exp();
        assert!((controller.lambda0() / ceiling - 1.0).abs() < 1e-9, "{}", controller.lambda0());
        for _ in 0..1_000 {
            controller.advance(1.0);
        }
        let floor = 2.0 * (CORRECTION_RANGE.0 - PROPORTIONAL_GAIN / 2.0).exp();
        assert!((controller.lambda0() / floor - 1.0).abs() < 1e-9, "{}", controller.lambda0());
    }
}
