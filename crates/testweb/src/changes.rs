//! A page's change times: a pure function of `(seed, page, process)`.
//!
//! The processes are `freshet-sim`'s [`ChangeProcess`] definitions (Poisson, periodic with
//! jitter, bursty on/off), but the simulator draws from one sequential generator, which a
//! stateless server cannot replay per request. Here the `k`-th random draw of page `p` is
//! [`keyed`] by `(seed, p, k)`, so the time of every change is fixed forever and
//! a restart serves the same web:
//!
//! ```text
//! Poisson:   T_k = T_(k−1) − ln(U_k)/λ                                   (T_(−1) = 0)
//! Periodic:  T_k = P·(φ + k + jitter·U_k),  P = 1/λ,  φ = U_phase        (k = 0, 1, …)
//! Bursty:    on/off periods ~ Exp(mean_on), Exp(mean_off), starting in the stationary state;
//!            while on, Poisson changes at λ·(mean_on + mean_off)/mean_on
//! ```
//!
//! A page's *version* at model time `t` is the number of changes in `(0, t]`. Periodic pages
//! answer it in O(1); Poisson and bursty pages walk their changes from 0, O(λt) (18.6 µs a
//! page on average at model day 1000, BENCHMARKS.md). The server therefore keeps a
//! [`VersionCursor`] per requested page: requests at ever later times cost amortised O(1)
//! (5 ns), with the same answers.

use freshet_sim::ChangeProcess;

use crate::keyed::{self, Stream};

/// The change times of one page: `process` keyed by `(seed, page)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PageChanges {
    seed: u64,
    page: u64,
    process: ChangeProcess,
}

impl PageChanges {
    /// The changes of page `page` of the web with seed `seed`. The process's parameters must
    /// be positive and finite (jitter in `[0, 1]`); the web model checks them.
    #[must_use]
    pub fn new(seed: u64, page: u64, process: ChangeProcess) -> Self {
        Self { seed, page, process }
    }

    /// The change times, increasing, without end.
    #[must_use]
    pub fn iter(&self) -> ChangeIter {
        let (seed, page) = (self.seed, self.page);
        let state = match self.process {
            ChangeProcess::Poisson { rate } => State::Poisson { rate, last: 0.0 },
            ChangeProcess::Periodic { rate, jitter } => State::Periodic {
                period: 1.0 / rate,
                jitter,
                phase: keyed::uniform(seed, Stream::Phase, page, 0),
            },
            ChangeProcess::Bursty { rate, mean_on, mean_off } => {
                let on = keyed::uniform(seed, Stream::Phase, page, 0) < mean_on / (mean_on + mean_off);
                let mean = if on { mean_on } else { mean_off };
                let phase_end = -keyed::uniform_open0(seed, Stream::Phase, page, 1).ln() * mean;
                State::Bursty {
                    on_rate: rate * (mean_on + mean_off) / mean_on,
                    mean_on,
                    mean_off,
                    on,
                    phase_end,
                    now: 0.0,
                }
            }
        };
        ChangeIter { seed, page, draw: 0, index: 0, state }
    }

    /// The time of the `k`-th change (`k = 0` is the first).
    #[must_use]
    pub fn nth_change(&self, k: u64) -> f64 {
        match self.process {
            ChangeProcess::Periodic { rate, jitter } => self.periodic_time(1.0 / rate, jitter, k),
            _ => self.iter().nth(usize::try_from(k).unwrap_or(usize::MAX)).unwrap_or(f64::INFINITY),
        }
    }

    /// The page's version at `t`: the number of changes in `(0, t]` (0 for `t ≤ 0` or NaN).
    #[must_use]
    pub fn version_at(&self, t: f64) -> u64 {
        self.version_and_last_change(t).0
    }

    /// The version at `t` and the time of its change (`None` for version 0).
    #[must_use]
    pub fn version_and_last_change(&self, t: f64) -> (u64, Option<f64>) {
        if t.is_nan() || t <= 0.0 {
            return (0, None);
        }
        if let ChangeProcess::Periodic { rate, jitter } = self.process {
            let count = self.periodic_count(1.0 / rate, jitter, t);
            let last = count.checked_sub(1).map(|k| self.periodic_time(1.0 / rate, jitter, k));
            return (count, last);
        }
        let mut count = 0;
        let mut last = None;
        for change in self.iter() {
            if change > t {
                break;
            }
            count += 1;
            last = Some(change);
        }
        (count, last)
    }

    /// Every change time in `(0, t]`, increasing.
    #[must_use]
    pub fn times_until(&self, t: f64) -> Vec<f64> {
        if t.is_nan() || t <= 0.0 {
            return Vec::new();
        }
        self.iter().take_while(|&change| change <= t).collect()
    }

    fn periodic_time(&self, period: f64, jitter: f64, k: u64) -> f64 {
        let phase = keyed::uniform(self.seed, Stream::Phase, self.page, 0);
        let u = keyed::uniform(self.seed, Stream::Change, self.page, k);
        period * (phase + k as f64 + jitter * u)
    }

    /// Number of `k` with `T_k ≤ t`, for `t > 0`. `T_k ∈ [P(φ+k), P(φ+k+1))` and increases, so
    /// an estimate from `t/P − φ` is off by at most one either way; the exact answer is found
    /// by evaluating `T_k` itself, so it agrees with [`Self::nth_change`] to the last bit.
    fn periodic_count(&self, period: f64, jitter: f64, t: f64) -> u64 {
        let phase = keyed::uniform(self.seed, Stream::Phase, self.page, 0);
        let estimate = (t / period - phase).floor() + 1.0;
        // Saturating float → integer conversion; negatives become 0.
        let mut count = estimate.max(0.0) as u64;
        while count > 0 && self.periodic_time(period, jitter, count - 1) > t {
            count -= 1;
        }
        while self.periodic_time(period, jitter, count) <= t {
            count += 1;
        }
        count
    }
}

/// A page's version at times that mostly increase, in amortised O(1): it remembers where the
/// walk through the change times stopped. The answers are exactly
/// [`PageChanges::version_and_last_change`]'s; asking for an earlier time than the last
/// change seen restarts the walk from 0.
#[derive(Debug, Clone)]
pub struct VersionCursor {
    changes: PageChanges,
    iter: ChangeIter,
    /// Changes at or before the last time asked.
    version: u64,
    /// The time of the `version`-th change (`None` for version 0).
    last: Option<f64>,
    /// The time of the next change.
    next: f64,
}

impl VersionCursor {
    /// A cursor at time 0.
    #[must_use]
    pub fn new(changes: PageChanges) -> Self {
        let mut iter = changes.iter();
        let next = iter.next().unwrap_or(f64::INFINITY);
        Self { changes, iter, version: 0, last: None, next }
    }

    /// The version at `t` and the time of its change, as [`PageChanges::version_and_last_change`].
    pub fn version_at(&mut self, t: f64) -> (u64, Option<f64>) {
        if t.is_nan() || t <= 0.0 {
            return (0, None);
        }
        if self.last.is_some_and(|last| t < last) {
            *self = Self::new(self.changes);
        }
        while self.next <= t {
            self.version += 1;
            self.last = Some(self.next);
            self.next = self.iter.next().unwrap_or(f64::INFINITY);
        }
        (self.version, self.last)
    }
}

/// The change times of a page, increasing, without end ([`PageChanges::iter`]).
#[derive(Debug, Clone)]
pub struct ChangeIter {
    seed: u64,
    page: u64,
    /// Keyed draws used so far (Poisson, bursty).
    draw: u64,
    /// Changes produced so far.
    index: u64,
    state: State,
}

#[derive(Debug, Clone)]
enum State {
    Poisson { rate: f64, last: f64 },
    Periodic { period: f64, jitter: f64, phase: f64 },
    Bursty { on_rate: f64, mean_on: f64, mean_off: f64, on: bool, phase_end: f64, now: f64 },
}

impl ChangeIter {
    fn exponential(&mut self, mean: f64) -> f64 {
        let u = keyed::uniform_open0(self.seed, Stream::Change, self.page, self.draw);
        self.draw += 1;
        -u.ln() * mean
    }
}

impl Iterator for ChangeIter {
    type Item = f64;

    fn next(&mut self) -> Option<f64> {
        let k = self.index;
        self.index += 1;
        match self.state {
            State::Poisson { rate, last } => {
                let next = last + self.exponential(1.0 / rate);
                self.state = State::Poisson { rate, last: next };
                Some(next)
            }
            State::Periodic { period, jitter, phase } => {
                let u = keyed::uniform(self.seed, Stream::Change, self.page, k);
                Some(period * (phase + k as f64 + jitter * u))
            }
            State::Bursty { on_rate, mean_on, mean_off, mut on, mut phase_end, mut now } => loop {
                if on {
                    let candidate = now + self.exponential(1.0 / on_rate);
                    if candidate < phase_end {
                        self.state =
                            State::Bursty { on_rate, mean_on, mean_off, on, phase_end, now: candidate };
                        return Some(candidate);
                    }
                    now = phase_end;
                    on = false;
                    phase_end = now + self.exponential(mean_off);
                } else {
                    now = phase_end;
                    on = true;
                    phase_end = now + self.exponential(mean_on);
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROCESSES: [ChangeProcess; 4] = [
        ChangeProcess::Poisson { rate: 2.0 },
        ChangeProcess::Periodic { rate: 0.5, jitter: 0.3 },
        ChangeProcess::Periodic { rate: 3.0, jitter: 1.0 },
        ChangeProcess::Bursty { rate: 1.0, mean_on: 1.0, mean_off: 4.0 },
    ];

    #[test]
    fn times_increase_and_versions_count_them() {
        for (page, process) in PROCESSES.into_iter().enumerate() {
            let changes = PageChanges::new(11, page as u64, process);
            let times = changes.times_until(200.0);
            assert!(times.windows(2).all(|w| w[0] < w[1]), "{process:?}");
            assert!(times.first().is_some_and(|&t| t > 0.0));
            for (k, &time) in times.iter().enumerate() {
                assert_eq!(changes.nth_change(k as u64), time, "{process:?} change {k}");
                assert_eq!(changes.version_at(time), k as u64 + 1, "{process:?} at change {k}");
                let before = time - 1e-9 * time.max(1.0);
                assert_eq!(changes.version_at(before), k as u64, "{process:?} before change {k}");
                assert_eq!(changes.version_and_last_change(time).1, Some(time));
            }
            assert_eq!(changes.version_at(200.0), times.len() as u64);
            assert_eq!(changes.version_at(0.0), 0);
            assert_eq!(changes.version_at(-5.0), 0);
            assert_eq!(changes.version_at(f64::NAN), 0);
        }
    }

    #[test]
    fn mean_rates_are_as_configured() {
        for (page, process) in PROCESSES.into_iter().enumerate() {
            let horizon = 20_000.0;
            // Average over pages: bursty counts are overdispersed.
            let total: u64 = (0..20)
                .map(|i| PageChanges::new(3, (page * 100 + i) as u64, process).version_at(horizon))
                .sum();
            let rate = total as f64 / (20.0 * horizon);
            let expected = process.mean_rate();
            assert!((rate / expected - 1.0).abs() < 0.03, "{process:?}: measured {rate}");
        }
    }

    #[test]
    fn the_cursor_agrees_with_the_walk_from_zero_forwards_and_backwards() {
        for (page, process) in PROCESSES.into_iter().enumerate() {
            let changes = PageChanges::new(17, page as u64, process);
            let mut cursor = VersionCursor::new(changes);
            let mut state = 99u64;
            let mut t = 0.0;
            for step in 0..2000 {
                state = crate::keyed::mix(state);
                // Mostly forward in small steps, sometimes back.
                let u = (state >> 11) as f64 / (1u64 << 53) as f64;
                t = if step % 50 == 49 { t * u } else { t + u * 0.3 };
                assert_eq!(cursor.version_at(t), changes.version_and_last_change(t), "{process:?} at {t}");
            }
            assert_eq!(cursor.version_at(-1.0), (0, None));
        }
    }

    #[test]
    fn periodic_changes_once_per_period() {
        let changes = PageChanges::new(5, 9, ChangeProcess::Periodic { rate: 0.25, jitter: 0.0 });
        let times = changes.times_until(100.0);
        assert_eq!(times.len(), 25);
        assert!(times.windows(2).all(|w| (w[1] - w[0] - 4.0).abs() < 1e-9));
    }

    #[test]
    fn same_key_same_times_other_key_other_times() {
        let process = ChangeProcess::Poisson { rate: 1.0 };
        assert_eq!(
            PageChanges::new(1, 2, process).times_until(50.0),
            PageChanges::new(1, 2, process).times_until(50.0)
        );
        assert_ne!(
            PageChanges::new(1, 2, process).times_until(50.0),
            PageChanges::new(1, 3, process).times_until(50.0)
        );
        assert_ne!(
            PageChanges::new(1, 2, process).times_until(50.0),
            PageChanges::new(2, 2, process).times_until(50.0)
        );
    }
}
