//! Per-host politeness arithmetic, shared by the simulator's violation meter and by the
//! policies' gate, so that a gated policy is polite by exactly the rule the meter checks.

use crate::metrics::Violations;
use crate::model::{Config, Host};

/// Relative slack for rounding when comparing token counts and times.
const SLACK: f64 = 1e-9;

/// Outcome of recording a fetch start on a host.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Breach {
    pub(crate) min_delay: bool,
    pub(crate) capacity: bool,
}

/// The simulator's meter of every host's politeness over one run: it counts the fetches that
/// break a host's rule and prevents none (see [`Host`]). Off when no host has a limit.
#[derive(Debug, Clone)]
pub(crate) struct Meters {
    clocks: Vec<HostClock>,
    on: bool,
    violations: Violations,
}

impl Meters {
    pub(crate) fn new(config: &Config) -> Self {
        Self {
            clocks: config.hosts.iter().map(|host| HostClock::new(host, config.capacity_window)).collect(),
            on: config.has_host_limits(),
            violations: Violations::default(),
        }
    }

    /// Records a fetch of page `page` of `config` started at `now`.
    #[inline]
    pub(crate) fn record(&mut self, config: &Config, page: usize, now: f64) {
        if self.on
            && let Some(host) = config.pages.get(page).map(|spec| spec.host as usize)
            && let Some(clock) = self.clocks.get_mut(host)
        {
            let breach = clock.record(now);
            self.violations.min_delay += u64::from(breach.min_delay);
            self.violations.capacity += u64::from(breach.capacity);
        }
    }

    /// The violations counted.
    pub(crate) fn violations(&self) -> Violations {
        self.violations
    }
}

/// A host's minimum-delay clock and token bucket (see [`Host`] for the rule).
#[derive(Debug, Clone)]
pub(crate) struct HostClock {
    capacity: f64,
    depth: f64,
    min_delay: f64,
    tokens: f64,
    refilled_at: f64,
    last_start: f64,
}

impl HostClock {
    /// A clock for `host` with a full bucket of `max(1, capacity·window)` tokens.
    pub(crate) fn new(host: &Host, window: f64) -> Self {
        let depth = if host.capacity.is_finite() { (host.capacity * window).max(1.0) } else { f64::INFINITY };
        Self {
            capacity: host.capacity,
            depth,
            min_delay: host.min_delay,
            tokens: depth,
            refilled_at: 0.0,
            last_start: f64::NEG_INFINITY,
        }
    }

    fn tokens_at(&self, t: f64) -> f64 {
        if self.capacity.is_infinite() {
            return f64::INFINITY;
        }
        (self.tokens + self.capacity * (t - self.refilled_at).max(0.0)).min(self.depth)
    }

    /// The earliest time `≥ now` at which a fetch on this host is polite.
    pub(crate) fn earliest(&self, now: f64) -> f64 {
        let after_delay = self.last_start + self.min_delay;
        let tokens = self.tokens_at(now);
        let refilled = if tokens >= 1.0 { now } else { now + (1.0 - tokens) / self.capacity };
        now.max(after_delay).max(refilled)
    }

    /// Records a fetch start at `t` (not before the previous one) and says which rule it broke.
    pub(crate) fn record(&mut self, t: f64) -> Breach {
        let scale = t.abs().max(1.0);
        let min_delay = t < self.last_start + self.min_delay - SLACK * scale;
        let tokens = self.tokens_at(t);
        let capacity = tokens < 1.0 - SLACK;
        if self.capacity.is_finite() {
            self.tokens = (tokens - 1.0).max(0.0);
            self.refilled_at = t;
        }
        self.last_start = t;
        Breach { min_delay, capacity }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gate_times_never_breach() {
        let host = Host { capacity: 3.0, min_delay: 0.1 };
        let mut clock = HostClock::new(&host, 2.0);
        let mut now: f64 = 0.0;
        for step in 0..10_000 {
            let wanted = now + f64::from(step % 7) * 0.01;
            let t = clock.earliest(wanted);
            assert!(t >= wanted);
            assert_eq!(clock.record(t), Breach::default(), "step {step} at {t}");
            now = t;
        }
        // Long-run rate at most the capacity (plus the initial bucket of 6 tokens).
        assert!(10_000.0 <= 3.0 * now + 6.0 + 1e-6);
    }

    #[test]
    fn bursts_beyond_the_bucket_breach() {
        let mut clock = HostClock::new(&Host { capacity: 1.0, min_delay: 0.0 }, 3.0);
        let breaches: Vec<bool> = (0..4).map(|_| clock.record(0.5).capacity).collect();
        assert_eq!(breaches, [false, false, false, true]);
        let mut clock = HostClock::new(&Host { capacity: f64::INFINITY, min_delay: 1.0 }, 1.0);
        assert!(!clock.record(0.0).min_delay);
        assert!(clock.record(0.5).min_delay);
        assert!(!clock.record(1.5).min_delay);
    }
}
