//! A host's capacity, estimated from how it answers: a pure state machine (no clock, no I/O)
//! that the crawl loop feeds with the outcome of every page request and that tells it when to
//! change the host's delay.
//!
//! Seed 003_aad34b8e7abe1f9a.txt: "each host imposes an implicit or explicit limit on the rate of
//! crawls […]. Google continuously estimates this maximum crawl rate for each host". The
//! scheduler takes a host's capacity `k_i = 1/delay` as given
//! ([`Politeness`](freshet_schedule::online::Politeness)); this module is the estimate. It lives
//! in the crawler, not in freshet-schedule, because its input is HTTP (which answers mean "slow
//! down"), which the scheduler knows nothing of; it is pure all the same, so it is tested alone.
//!
//! # The rule
//! The delay `d` between two requests (so the rate `1/d`) never goes below the **floor**: the
//! configured delay raised by robots.txt `Crawl-delay`. Two signals move it:
//! - a **pushback** ([`Signal::PushBack`]: 429, 503 and other 5xx, a timeout, a refused or reset
//!   connection) doubles it, `d ← min(2d, MAX_DELAY)`, at least [`MIN_BACKED_OFF_DELAY`]:
//!   the rate is halved, TCP's multiplicative decrease (β = ½, RFC 5681 §3.1; Chiu & Jain 1989,
//!   "Analysis of the increase and decrease algorithms for congestion avoidance"). Which answers
//!   count follows Google's crawler, which slows down on 500, 503 and 429
//!   (developers.google.com/search/docs/crawling-indexing/reduce-crawl-rate).
//! - an **acceptance** ([`Signal::Accepted`]: any answer the server gave without complaint,
//!   404 included) shrinks it a little, `d ← max(floor, RECOVERY_PER_SUCCESS · d)` — ×0.99, so
//!   ×0.9 per ~10 successes and half the excess in 69 — snapping to the floor within
//!   [`SNAP_TO_FLOOR`] of it.
//!
//! A decrease by halves and a slow increase is TCP's AIMD shape; the increase is geometric
//! rather than additive because a crawler's floor can be far faster than what a host accepts
//! (50 ms against one page a second): an additive step sized on the floor rate would
//! overshoot the host's limit on the first success after every halving, while a step in
//! proportion to the current rate is small at every scale. Recovery counts successes, not
//! seconds, so the machine needs no clock: a host crawled rarely recovers only as it shows it
//! copes. `Retry-After` is not this module's business: the crawl loop closes the host for that
//! long as before; the doubled delay then applies after it. robots.txt requests are not
//! reported (they set the floor instead).
//!
//! # Applying it
//! The estimate moves on every answer; handing it to the scheduler and the store on every answer
//! would churn both. [`HostCapacity::delay`] is the delay **in force**: a rise is applied at once
//! (politeness first), a fall only once it is worth [`APPLY_THRESHOLD`] (10%) of the rate, or
//! reaches the floor. [`HostCapacity::report`] says when the delay in force changed.

use std::time::Duration;

/// The most the delay grows to by pushbacks: 10 minutes (a `Crawl-delay` above it still holds).
pub const MAX_DELAY: Duration = Duration::from_secs(600);

/// The least delay after a pushback, so that a host with a zero floor still backs off.
pub const MIN_BACKED_OFF_DELAY: Duration = Duration::from_millis(100);

/// The delay's factor on a pushback (the rate halves).
pub const PUSHBACK_FACTOR: f64 = 2.0;

/// The delay's factor on an acceptance: ×0.99, that is ×0.904 per 10 successes.
pub const RECOVERY_PER_SUCCESS: f64 = 0.99;

/// A delay this close to the floor is the floor (a geometric decay never reaches it otherwise).
pub const SNAP_TO_FLOOR: Duration = Duration::from_millis(1);

/// A fall of the estimate is applied once the rate it gives is this much (relative) above the
/// rate in force.
pub const APPLY_THRESHOLD: f64 = 0.1;

/// What one request tells about the host's capacity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// The server answered without complaint (2xx, 3xx, 304, 4xx but 429…).
    Accepted,
    /// The server pushed back: 429, 5xx, a timeout, a refused or reset connection.
    PushBack,
}

/// A change of the delay in force.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DelayChange {
    /// The delay in force before.
    pub from: Duration,
    /// The delay in force now.
    pub to: Duration,
}

impl std::fmt::Display for DelayChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "host delay {:?} -> {:?}", self.from, self.to)
    }
}

/// One host's delay between requests, adapted to its answers (see the module docs).
///
/// ```
/// use std::time::Duration;
/// use freshet_crawl::capacity::{HostCapacity, Signal};
///
/// let mut host = HostCapacity::new(Duration::from_secs(1));
/// let change = host.report(Signal::PushBack).expect("a pushback raises the delay");
/// assert_eq!((change.from, change.to), (Duration::from_secs(1), Duration::from_secs(2)));
/// // Ten successes bring the estimate down by about 10%: the delay in force follows.
/// let changes: Vec<_> = (0..11).filter_map(|_| host.report(Signal::Accepted)).collect();
/// assert_eq!(changes.len(), 1);
/// assert!(host.delay() < Duration::from_millis(1820) && host.delay() > host.floor());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct HostCapacity {
    /// The configured delay raised by `Crawl-delay`: never gone below.
    floor: Duration,
    /// The estimate, moved by every signal.
    estimate: Duration,
    /// The delay in force (the scheduler's and the store's).
    in_force: Duration,
}

impl HostCapacity {
    /// A host at its floor.
    #[must_use]
    pub fn new(floor: Duration) -> Self {
        Self { floor, estimate: floor, in_force: floor }
    }

    /// A host resumed at `delay` (a delay stored by an earlier run), kept within the bounds.
    #[must_use]
    pub fn resumed(floor: Duration, delay: Duration) -> Self {
        let mut capacity = Self::new(floor);
        capacity.estimate = capacity.clamp(delay.as_secs_f64());
        capacity.in_force = capacity.estimate;
        capacity
    }

    /// The delay in force: what the scheduler and the job's wait should use.
    #[must_use]
    pub fn delay(&self) -> Duration {
        self.in_force
    }

    /// The current estimate (moves on every signal; [`delay`](Self::delay) follows it in steps).
    #[must_use]
    pub fn estimate(&self) -> Duration {
        self.estimate
    }

    /// The floor: the configured delay raised by `Crawl-delay`.
    #[must_use]
    pub fn floor(&self) -> Duration {
        self.floor
    }

    /// The most the delay may be: [`MAX_DELAY`], or the floor if that is higher.
    #[must_use]
    pub fn ceiling(&self) -> Duration {
        MAX_DELAY.max(self.floor)
    }

    /// Sets a new floor (robots.txt arrived with or without `Crawl-delay`) and returns the delay
    /// in force: raised to the floor if below it; an estimate above a lowered floor stays, to
    /// recover as usual.
    pub fn set_floor(&mut self, floor: Duration) -> Duration {
        self.floor = floor;
        self.estimate = self.clamp(self.estimate.as_secs_f64());
        self.in_force = self.clamp(self.in_force.as_secs_f64());
        self.in_force
    }

    /// Learns from one answer; returns the change of the delay in force, if any.
    pub fn report(&mut self, signal: Signal) -> Option<DelayChange> {
        let from = self.in_force;
        match signal {
            Signal::PushBack => {
                let doubled =
                    (self.estimate.as_secs_f64() * PUSHBACK_FACTOR).max(MIN_BACKED_OFF_DELAY.as_secs_f64());
                self.estimate = self.clamp(doubled).max(self.estimate);
                self.in_force = self.in_force.max(self.estimate);
            }
            Signal::Accepted => {
                let recovered = self.clamp(self.estimate.as_secs_f64() * RECOVERY_PER_SUCCESS);
                self.estimate =
                    if recovered.saturating_sub(self.floor) < SNAP_TO_FLOOR { self.floor } else { recovered };
                let worth_it =
                    self.in_force.as_secs_f64() >= self.estimate.as_secs_f64() * (1.0 + APPLY_THRESHOLD);
                if worth_it || self.estimate == self.floor {
                    self.in_force = self.in_force.min(self.estimate);
                }
            }
        }
        (self.in_force != from).then_some(DelayChange { from, to: self.in_force })
    }

    /// `seconds` within `[floor, ceiling]` (a NaN or an overflow gives the ceiling).
    fn clamp(&self, seconds: f64) -> Duration {
        let ceiling = self.ceiling();
        if seconds.is_nan() || seconds >= ceiling.as_secs_f64() {
            return ceiling;
        }
        Duration::try_from_secs_f64(seconds).unwrap_or(ceiling).clamp(self.floor, ceiling)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use proptest::prelude::*;

    use super::*;

    fn signal() -> impl Strategy<Value = Signal> {
        prop_oneof![Just(Signal::Accepted), Just(Signal::PushBack)]
    }

    /// Floors from 0 to 20 minutes (some above the 10-minute cap), in milliseconds.
    fn floor() -> impl Strategy<Value = Duration> {
        prop_oneof![Just(0u64), 0u64..5_000, 0u64..1_200_000].prop_map(Duration::from_millis)
    }

    /// Enough successes to bring any estimate within the bounds back to the floor.
    fn successes_to_floor(capacity: &HostCapacity) -> usize {
        let from = capacity.ceiling().as_secs_f64();
        let to = SNAP_TO_FLOOR.as_secs_f64();
        ((from / to).ln() / -RECOVERY_PER_SUCCESS.ln()).ceil() as usize + 1
    }

    #[test]
    fn pushbacks_double_up_to_the_cap_and_successes_come_back_slowly() {
        let mut host = HostCapacity::new(Duration::from_secs(1));
        let mut delays = Vec::new();
        for _ in 0..12 {
            delays.push(host.report(Signal::PushBack).map(|change| change.to));
        }
        let secs = |s: u64| Some(Duration::from_secs(s));
        assert_eq!(delays[..4], [secs(2), secs(4), secs(8), secs(16)]);
        assert_eq!(host.delay(), MAX_DELAY);
        assert_eq!(delays.iter().filter(|delay| delay.is_some()).count(), 10, "512 s, then 600 s, then none");
        // 9 successes: ×0.914, under the 10% threshold; the 10th (×0.904) passes it.
        for _ in 0..9 {
            assert_eq!(host.report(Signal::Accepted), None);
        }
        let change = host.report(Signal::Accepted).unwrap();
        assert_eq!(change.from, MAX_DELAY);
        assert!((change.to.as_secs_f64() - 600.0 * 0.99f64.powi(10)).abs() < 1e-6, "{change:?}");
        assert_eq!(change.to_string(), format!("host delay 600s -> {:?}", change.to));
    }

    #[test]
    fn a_zero_floor_backs_off_and_comes_back_to_zero() {
        let mut host = HostCapacity::new(Duration::ZERO);
        assert_eq!(host.report(Signal::PushBack).unwrap().to, MIN_BACKED_OFF_DELAY);
        assert_eq!(host.report(Signal::PushBack).unwrap().to, 2 * MIN_BACKED_OFF_DELAY);
        for _ in 0..successes_to_floor(&host) {
            host.report(Signal::Accepted);
        }
        assert_eq!(host.delay(), Duration::ZERO);
    }

    #[test]
    fn a_crawl_delay_above_the_cap_holds_and_a_new_floor_keeps_a_raised_delay() {
        let mut host = HostCapacity::new(Duration::from_secs(900));
        assert_eq!(host.report(Signal::PushBack), None);
        assert_eq!(host.delay(), Duration::from_secs(900));
        let mut host = HostCapacity::new(Duration::from_secs(1));
        host.report(Signal::PushBack);
        assert_eq!(host.set_floor(Duration::from_millis(500)), Duration::from_secs(2));
        assert_eq!(host.set_floor(Duration::from_secs(5)), Duration::from_secs(5));
        let resumed = HostCapacity::resumed(Duration::from_secs(1), Duration::from_secs(4000));
        assert_eq!(resumed.delay(), MAX_DELAY);
    }

    proptest! {
        #[test]
        fn the_delay_stays_within_floor_and_cap(floor in floor(), signals in prop::collection::vec(signal(), 0..300)) {
            let mut host = HostCapacity::new(floor);
            for signal in signals {
                let before = host.delay();
                let change = host.report(signal);
                prop_assert_eq!(change.map(|c| c.from), change.map(|_| before));
                prop_assert_eq!(change.map(|c| c.to), change.map(|_| host.delay()));
                for delay in [host.delay(), host.estimate()] {
                    prop_assert!(delay >= floor, "{delay:?} below the floor {floor:?}");
                    prop_assert!(delay <= MAX_DELAY.max(floor), "{delay:?} above the cap");
                }
            }
        }

        #[test]
        fn a_pushback_never_lowers_the_delay(floor in floor(), signals in prop::collection::vec(signal(), 0..300)) {
            let mut host = HostCapacity::new(floor);
            for signal in signals {
                host.report(signal);
                let (delay, estimate) = (host.delay(), host.estimate());
                host.report(Signal::PushBack);
                prop_assert!(host.delay() >= delay && host.estimate() >= estimate);
                if delay < host.ceiling() {
                    prop_assert!(host.delay() > delay, "a pushback below the cap raises the delay");
                }
            }
        }

        #[test]
        fn a_run_of_successes_returns_to_the_floor(floor in floor(), signals in prop::collection::vec(signal(), 0..100)) {
            let mut host = HostCapacity::new(floor);
            for signal in signals {
                host.report(signal);
            }
            let mut last = host.delay();
            for _ in 0..successes_to_floor(&host) {
                host.report(Signal::Accepted);
                prop_assert!(host.delay() <= last, "a success raised the delay");
                last = host.delay();
            }
            prop_assert_eq!(host.delay(), floor);
            prop_assert_eq!(host.estimate(), floor);
        }

        #[test]
        fn a_success_lowers_the_delay_in_force_by_at_least_the_threshold_or_to_the_floor(
            floor in floor(), pushbacks in 1usize..20, successes in 0usize..2000,
        ) {
            let mut host = HostCapacity::new(floor);
            for _ in 0..pushbacks {
                host.report(Signal::PushBack);
            }
            for _ in 0..successes {
                if let Some(change) = host.report(Signal::Accepted) {
                    let ratio = change.from.as_secs_f64() / change.to.as_secs_f64();
                    prop_assert!(change.to == floor || ratio >= 1.0 + APPLY_THRESHOLD - 1e-9, "{change:?}");
                }
            }
        }
    }
}
