//! Wall time for the server, and its mapping to model time.
//!
//! The model knows only model time (days). The server reads a [`Clock`] (wall time) and maps
//! it through a [`TimeMap`]: model time `t = (wall − origin)·scale`, `scale` model days per
//! wall second (`--time-scale`). [`SystemClock`] is monotonic real time; [`ManualClock`] is
//! moved by tests, so they check content at exact change times without sleeping.

use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

/// A source of wall time.
pub trait Clock: Send + Sync + 'static {
    /// Now.
    fn now(&self) -> SystemTime;
}

/// Real time, monotonic: the system time at creation plus a monotonic [`Instant`]'s elapsed
/// time (so a system clock step does not move the web backwards).
#[derive(Debug, Clone, Copy)]
pub struct SystemClock {
    wall: SystemTime,
    instant: Instant,
}

impl SystemClock {
    /// Starts now.
    #[must_use]
    pub fn new() -> Self {
        Self { wall: SystemTime::now(), instant: Instant::now() }
    }
}

impl Default for SystemClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for SystemClock {
    fn now(&self) -> SystemTime {
        self.wall + self.instant.elapsed()
    }
}

/// A clock that moves only when told to.
#[derive(Debug)]
pub struct ManualClock {
    now: Mutex<SystemTime>,
}

impl ManualClock {
    /// Stopped at `start`.
    #[must_use]
    pub fn new(start: SystemTime) -> Self {
        Self { now: Mutex::new(start) }
    }

    /// Sets the time (backwards too).
    pub fn set(&self, now: SystemTime) {
        *self.now.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = now;
    }

    /// Moves the time forward by `by`.
    pub fn advance(&self, by: Duration) {
        let mut now = self.now.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        *now += by;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> SystemTime {
        *self.now.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Maps wall time to model time (days) and back: `t = (wall − origin)·scale`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeMap {
    /// The wall time of model time 0.
    pub origin: SystemTime,
    /// Model days per wall second; finite, `> 0`.
    pub scale: f64,
}

impl TimeMap {
    /// Model time at `wall` (negative before the origin).
    #[must_use]
    pub fn model_time(&self, wall: SystemTime) -> f64 {
        match wall.duration_since(self.origin) {
            Ok(after) => after.as_secs_f64() * self.scale,
            Err(before) => -before.duration().as_secs_f64() * self.scale,
        }
    }

    /// Wall time of model time `t` (clamped to what a `SystemTime` can hold).
    #[must_use]
    pub fn wall_time(&self, t: f64) -> SystemTime {
        let seconds = t / self.scale;
        let offset = Duration::try_from_secs_f64(seconds.abs()).unwrap_or(Duration::MAX);
        let shifted =
            if seconds >= 0.0 { self.origin.checked_add(offset) } else { self.origin.checked_sub(offset) };
        shifted.unwrap_or(self.origin)
    }

    /// Seconds since the Unix epoch of model time `t`.
    #[must_use]
    pub fn unix_seconds(&self, t: f64) -> f64 {
        unix_seconds(self.origin) + t / self.scale
    }
}

/// Seconds since the Unix epoch (negative before it).
#[must_use]
pub fn unix_seconds(wall: SystemTime) -> f64 {
    match wall.duration_since(SystemTime::UNIX_EPOCH) {
        Ok(after) => after.as_secs_f64(),
        Err(before) => -before.duration().as_secs_f64(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_and_wall_time_round_trip() {
        let origin = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let map = TimeMap { origin, scale: 2.0 };
        assert_eq!(map.model_time(origin + Duration::from_secs(3)), 6.0);
        assert_eq!(map.model_time(origin - Duration::from_secs(1)), -2.0);
        assert_eq!(map.wall_time(6.0), origin + Duration::from_secs(3));
        assert_eq!(map.unix_seconds(4.0), 1_700_000_002.0);
        let clock = ManualClock::new(origin);
        clock.advance(Duration::from_millis(500));
        assert_eq!(map.model_time(clock.now()), 1.0);
    }
}
