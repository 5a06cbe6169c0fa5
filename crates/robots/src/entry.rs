//! One host's robots.txt, cached with a time to live: a small sans-IO state machine that takes
//! `now` (RFC 9309 §2.3.1, §2.4).
//!
//! Times are `f64` seconds since any fixed epoch the caller likes (the crawler's clock, a
//! simulation's); durations are seconds. The entry never reads a clock.
//!
//! # States and transitions
//!
//! | fetch outcome | what is obeyed | next fetch after |
//! |---|---|---|
//! | 2xx | the parsed file | `ttl` (24 h) |
//! | 4xx (but 429) | allow all (§2.3.1.3) | `ttl` |
//! | 304 with a cached copy | the cached copy | `ttl` |
//! | 5xx, 429, network error | disallow all (§2.3.1.4: "MUST assume complete disallow") | `retry` (1 h) |
//! | still unreachable after `outage` (30 days) | the last copy (2xx or 4xx); without one, disallow all | `retry` |
//!
//! The RFC lets a crawler, after 30 days unreachable, "use a cached copy indefinitely, or if no
//! cached copy is available, […] assume that there are no crawl restrictions". We take the first
//! half (the copy is what the site last said) and, by default, refuse the second: a server that
//! has failed every robots.txt request for a month is not one to start crawling blind.
//! [`CachePolicy::allow_after_outage_without_copy`] opts in. Before the 30 days are up an
//! outage disallows everything, even with a fresh copy in hand: §2.3.1.4's MUST is stronger
//! than §2.4's permission to use a cached copy past 24 hours while unreachable.
//!
//! "Crawlers SHOULD NOT use the cached version for more than 24 hours, unless the robots.txt
//! file is unreachable" (§2.4): hence the 24 h default `ttl`; [`RobotsEntry::needs_fetch`] says
//! when it is up. A longer `ttl` is the caller's choice, not the RFC's.

use crate::error::RobotsError;
use crate::robots::{Check, MATCH_WORK_LIMIT, RobotsTxt};
use crate::status::FetchOutcome;
use std::time::Duration;

/// Seconds in an hour.
const HOUR: f64 = 3600.0;

/// How long the answers of a robots.txt fetch last.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CachePolicy {
    /// Seconds a fetched (2xx) or unavailable (4xx) answer is obeyed before a refetch is due.
    /// Default 24 h (RFC 9309 §2.4).
    pub ttl: f64,
    /// Seconds an "unreachable, disallow all" answer holds before the next attempt. Default 1 h.
    pub retry: f64,
    /// Seconds of continuous unreachability after which the last copy is obeyed again.
    /// Default 30 days (RFC 9309 §2.3.1.4).
    pub outage: f64,
    /// After `outage` with no copy at all: allow everything (`true`, which the RFC permits) or
    /// keep disallowing (`false`, the default).
    pub allow_after_outage_without_copy: bool,
}

impl Default for CachePolicy {
    fn default() -> Self {
        Self {
            ttl: 24.0 * HOUR,
            retry: HOUR,
            outage: 30.0 * 24.0 * HOUR,
            allow_after_outage_without_copy: false,
        }
    }
}

impl CachePolicy {
    /// Checks that every duration is finite and positive.
    pub fn validate(&self) -> Result<(), RobotsError> {
        for (field, value) in [("ttl", self.ttl), ("retry", self.retry), ("outage", self.outage)] {
            if !(value.is_finite() && value > 0.0) {
                return Err(RobotsError::InvalidDuration { field, value });
            }
        }
        Ok(())
    }
}

/// The last robots.txt answer that was not an error.
#[derive(Clone, Debug)]
enum CachedCopy {
    /// A 2xx body, parsed.
    Parsed(RobotsTxt),
    /// A 4xx: no file, no restrictions.
    Unavailable,
}

/// What an outage lets the crawler do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OutageAccess {
    DisallowAll,
    LastCopy,
    AllowAll,
}

/// A run of unreachable fetches.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Outage {
    since: f64,
    access: OutageAccess,
}

/// What the crawler must obey now for a host.
#[derive(Clone, Copy, Debug)]
pub enum Access<'a> {
    /// The rules of this file.
    Rules(&'a RobotsTxt),
    /// Everything may be fetched.
    AllowAll,
    /// Nothing may be fetched.
    DisallowAll,
}

impl Access<'_> {
    /// Whether the crawler `agent` may fetch `path_and_query`.
    pub fn is_allowed(&self, agent: &str, path_and_query: &str) -> bool {
        self.check(agent, path_and_query) == Check::Allowed
    }

    /// [`Access::is_allowed`], telling a disallowing rule from a check too costly to finish
    /// ([`Check::TooComplex`]).
    pub fn check(&self, agent: &str, path_and_query: &str) -> Check {
        let mut allowance = MATCH_WORK_LIMIT;
        self.check_within(agent, path_and_query, &mut allowance)
    }

    /// [`Access::check`] within the caller's bound on the octets the rules scan, reduced by
    /// what they scanned (see [`crate::Group::check_within`]).
    pub fn check_within(&self, agent: &str, path_and_query: &str, allowance: &mut usize) -> Check {
        match self {
            Self::Rules(robots) => robots.check_within(agent, path_and_query, allowance),
            Self::AllowAll => Check::Allowed,
            Self::DisallowAll => Check::Disallowed,
        }
    }

    /// The `Crawl-delay` for `agent`, when the rules give one.
    pub fn crawl_delay(&self, agent: &str) -> Option<Duration> {
        match self {
            Self::Rules(robots) => robots.crawl_delay(agent),
            Self::AllowAll | Self::DisallowAll => None,
        }
    }
}

/// One host's robots.txt state. Create it from the first fetch with [`RobotsEntry::new`], ask
/// [`RobotsEntry::access`] before every fetch of the host, and when
/// [`RobotsEntry::needs_fetch`] says so, refetch and [`RobotsEntry::record`] the outcome.
///
/// ```
/// use freshet_robots::{CachePolicy, FetchOutcome, RobotsEntry};
/// let policy = CachePolicy::default();
/// let mut entry = RobotsEntry::new(FetchOutcome::Unreachable, 0.0, &policy);
/// assert!(!entry.access().is_allowed("freshet", "/")); // 5xx: disallow all, retry in an hour
/// assert!(entry.needs_fetch(3600.0));
/// entry.record(FetchOutcome::Fetched(b"User-agent: *\nDisallow: /x\n"), 3600.0, &policy);
/// assert!(entry.access().is_allowed("freshet", "/"));
/// assert!(!entry.access().is_allowed("freshet", "/x"));
/// assert!(!entry.needs_fetch(3600.0 + 86_399.0));
/// ```
#[derive(Clone, Debug)]
pub struct RobotsEntry {
    copy: Option<CachedCopy>,
    copied_at: f64,
    outage: Option<Outage>,
    expires_at: f64,
}

impl RobotsEntry {
    /// The entry after the first fetch, which ended with `outcome` at time `now`.
    pub fn new(outcome: FetchOutcome<'_>, now: f64, policy: &CachePolicy) -> Self {
        let mut entry = Self { copy: None, copied_at: now, outage: None, expires_at: now };
        entry.record(outcome, now, policy);
        entry
    }

    /// Records the outcome of a (re)fetch at time `now`.
    pub fn record(&mut self, outcome: FetchOutcome<'_>, now: f64, policy: &CachePolicy) {
        match outcome {
            FetchOutcome::Fetched(body) => self.keep(CachedCopy::Parsed(RobotsTxt::parse(body)), now, policy),
            FetchOutcome::Unavailable => self.keep(CachedCopy::Unavailable, now, policy),
            FetchOutcome::NotModified if self.copy.is_some() => {
                self.outage = None;
                self.copied_at = now;
                self.expires_at = now + policy.ttl;
            }
            // A 304 with nothing cached answers a question we did not ask: the server is
            // confused, which is no licence to crawl.
            FetchOutcome::NotModified | FetchOutcome::Unreachable => {
                let since = self.outage.map_or(now, |outage| outage.since);
                let access = if now - since < policy.outage {
                    OutageAccess::DisallowAll
                } else if self.copy.is_some() {
                    OutageAccess::LastCopy
                } else if policy.allow_after_outage_without_copy {
                    OutageAccess::AllowAll
                } else {
                    OutageAccess::DisallowAll
                };
                self.outage = Some(Outage { since, access });
                self.expires_at = now + policy.retry;
            }
        }
    }

    fn keep(&mut self, copy: CachedCopy, now: f64, policy: &CachePolicy) {
        self.copy = Some(copy);
        self.copied_at = now;
        self.outage = None;
        self.expires_at = now + policy.ttl;
    }

    /// What the crawler must obey now.
    pub fn access(&self) -> Access<'_> {
        let copy_access = || match &self.copy {
            Some(CachedCopy::Parsed(robots)) => Access::Rules(robots),
            Some(CachedCopy::Unavailable) => Access::AllowAll,
            None => Access::DisallowAll,
        };
        match self.outage.map(|outage| outage.access) {
            None | Some(OutageAccess::LastCopy) => copy_access(),
            Some(OutageAccess::DisallowAll) => Access::DisallowAll,
            Some(OutageAccess::AllowAll) => Access::AllowAll,
        }
    }

    /// Whether a refetch is due at `now` (also when `now` is not a number: better a refetch
    /// than a copy kept forever).
    pub fn needs_fetch(&self, now: f64) -> bool {
        now >= self.expires_at || now.is_nan()
    }

    /// When the next fetch is due.
    pub fn expires_at(&self) -> f64 {
        self.expires_at
    }

    /// When the current outage began (the first of the unreachable fetches in a row), if the
    /// last fetch was unreachable.
    pub fn unreachable_since(&self) -> Option<f64> {
        self.outage.map(|outage| outage.since)
    }

    /// When the last good copy (2xx, 4xx, or a 304 confirming it) was fetched, if any.
    pub fn copied_at(&self) -> Option<f64> {
        self.copy.as_ref().map(|_| self.copied_at)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    const DAY: f64 = 24.0 * HOUR;
    const BODY: &[u8] = b"User-agent: *\nDisallow: /x\nCrawl-delay: 2\n";

    fn policy() -> CachePolicy {
        CachePolicy::default()
    }

    fn allows(entry: &RobotsEntry, path: &str) -> bool {
        entry.access().is_allowed("bot", path)
    }

    #[test]
    fn a_fetched_file_is_obeyed_for_a_day() {
        let entry = RobotsEntry::new(FetchOutcome::Fetched(BODY), 100.0, &policy());
        assert!(allows(&entry, "/y"));
        assert!(!allows(&entry, "/x"));
        assert_eq!(entry.access().crawl_delay("bot"), Some(Duration::from_secs(2)));
        assert!(!entry.needs_fetch(100.0 + DAY - 1.0));
        assert!(entry.needs_fetch(100.0 + DAY));
        assert_eq!(entry.copied_at(), Some(100.0));
    }

    #[test]
    fn unavailable_allows_all_for_a_day() {
        let entry = RobotsEntry::new(FetchOutcome::Unavailable, 0.0, &policy());
        assert!(allows(&entry, "/x"));
        assert_eq!(entry.expires_at(), DAY);
    }

    #[test]
    fn unreachable_disallows_all_and_retries_in_an_hour() {
        let entry = RobotsEntry::new(FetchOutcome::Unreachable, 0.0, &policy());
        assert!(!allows(&entry, "/"));
        assert_eq!(entry.expires_at(), HOUR);
        assert_eq!(entry.unreachable_since(), Some(0.0));
    }

    #[test]
    fn an_outage_disallows_even_with_a_copy_until_thirty_days() {
        let mut entry = RobotsEntry::new(FetchOutcome::Fetched(BODY), 0.0, &policy());
        entry.record(FetchOutcome::Unreachable, DAY, &policy());
        assert!(!allows(&entry, "/y"));
        entry.record(FetchOutcome::Unreachable, DAY + 29.0 * DAY, &policy());
        assert!(!allows(&entry, "/y"));
        assert_eq!(entry.unreachable_since(), Some(DAY));
        entry.record(FetchOutcome::Unreachable, DAY + 30.0 * DAY, &policy());
        assert!(allows(&entry, "/y"), "after 30 days unreachable, the last copy is obeyed");
        assert!(!allows(&entry, "/x"));
        assert_eq!(entry.expires_at(), 31.0 * DAY + HOUR);
    }

    #[test]
    fn a_long_outage_after_a_404_allows_all() {
        let mut entry = RobotsEntry::new(FetchOutcome::Unavailable, 0.0, &policy());
        entry.record(FetchOutcome::Unreachable, DAY, &policy());
        assert!(!allows(&entry, "/"));
        entry.record(FetchOutcome::Unreachable, 31.0 * DAY, &policy());
        assert!(allows(&entry, "/"));
    }

    #[test]
    fn a_long_outage_without_a_copy_disallows_unless_opted_in() {
        let mut entry = RobotsEntry::new(FetchOutcome::Unreachable, 0.0, &policy());
        entry.record(FetchOutcome::Unreachable, 30.0 * DAY, &policy());
        assert!(!allows(&entry, "/"));
        let lenient = CachePolicy { allow_after_outage_without_copy: true, ..policy() };
        entry.record(FetchOutcome::Unreachable, 30.0 * DAY + HOUR, &lenient);
        assert!(allows(&entry, "/"));
    }

    #[test]
    fn recovery_ends_the_outage() {
        let mut entry = RobotsEntry::new(FetchOutcome::Unreachable, 0.0, &policy());
        entry.record(FetchOutcome::Fetched(BODY), HOUR, &policy());
        assert_eq!(entry.unreachable_since(), None);
        assert!(allows(&entry, "/y"));
        // A new outage counts from its own start.
        entry.record(FetchOutcome::Unreachable, 40.0 * DAY, &policy());
        assert_eq!(entry.unreachable_since(), Some(40.0 * DAY));
        assert!(!allows(&entry, "/y"));
    }

    #[test]
    fn not_modified_renews_the_copy() {
        let mut entry = RobotsEntry::new(FetchOutcome::Fetched(BODY), 0.0, &policy());
        entry.record(FetchOutcome::NotModified, DAY, &policy());
        assert!(!entry.needs_fetch(2.0 * DAY - 1.0));
        assert!(!allows(&entry, "/x"));
        assert!(allows(&entry, "/y"));
    }

    #[test]
    fn not_modified_without_a_copy_is_unreachable() {
        let entry = RobotsEntry::new(FetchOutcome::NotModified, 0.0, &policy());
        assert!(!allows(&entry, "/"));
        assert_eq!(entry.unreachable_since(), Some(0.0));
    }

    #[test]
    fn a_nan_clock_asks_for_a_refetch() {
        let entry = RobotsEntry::new(FetchOutcome::Unavailable, 0.0, &policy());
        assert!(entry.needs_fetch(f64::NAN));
    }

    #[test]
    fn policies_are_validated() {
        assert!(policy().validate().is_ok());
        let bad = CachePolicy { retry: 0.0, ..policy() };
        assert_eq!(bad.validate(), Err(RobotsError::InvalidDuration { field: "retry", value: 0.0 }));
        let bad = CachePolicy { ttl: f64::INFINITY, ..policy() };
        assert!(bad.validate().is_err());
    }
}
