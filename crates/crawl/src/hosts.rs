//! What the control task knows about each host beyond the scheduler: its origin, its robots.txt
//! entry, its current delay and when its next request may start.

use std::sync::Arc;
use std::time::Duration;

use freshet_content::{BoilerplateSet, HostBoilerplate};
use freshet_robots::{Access, Check, RobotsEntry};
use freshet_schedule::online::PageId;
use freshet_url::Url;
use tokio::time::Instant;

use crate::capacity::HostCapacity;
use crate::crawler::sitemaps::HostSitemaps;

/// One host (the politeness unit: an origin, `scheme://host:port`).
#[derive(Debug)]
pub(crate) struct HostState {
    /// `scheme://host:port/robots.txt`.
    pub(crate) robots_url: Url,
    /// Its robots.txt as last fetched (`None`: not fetched in this run).
    pub(crate) robots: Option<RobotsEntry>,
    /// A robots.txt request is on the way (another page of the host waits for it).
    pub(crate) robots_in_flight: bool,
    /// The delay between two requests: the configured one, raised by `Crawl-delay`, adapted by
    /// `capacity` (the delay in force there).
    pub(crate) delay: Duration,
    /// The host's capacity, learned from its answers (see [`crate::capacity`]).
    pub(crate) capacity: HostCapacity,
    /// The end of its last request plus `delay`.
    pub(crate) not_before: Option<Instant>,
    /// Pages admitted before its robots.txt was known: checked when it arrives.
    pub(crate) unchecked: Vec<PageId>,
    /// Set when the fetcher refused the host's addresses (loopback, private… without
    /// `allow_private`): no page of it can be fetched, so none is tried.
    pub(crate) refused: Option<String>,
    /// Text blocks repeated across the host's pages (template, not content), left out of the
    /// main-text signatures.
    pub(crate) boilerplate: HostBoilerplate,
    /// The boilerplate blocks of `boilerplate` at some recent moment, handed to page jobs so
    /// that they compute their signatures off the control task (see
    /// `Crawler::content_fingerprint`, which checks it against the table); taken again when it
    /// was found out of date.
    pub(crate) boilerplate_set: Arc<BoilerplateSet>,
    /// robots.txt answers in a row that were unreachable (5xx, network failure).
    pub(crate) robots_failures: u32,
    /// Set when a one-pass crawl gave the host up after `max_failures` of them: none of its
    /// pages is tried any more.
    pub(crate) robots_given_up: bool,
    /// Its pages in the frontier (for `host_quota`).
    pub(crate) pages: u64,
    /// Its sitemaps: queued, requested, URLs taken (see `crawler::sitemaps`).
    pub(crate) sitemaps: HostSitemaps,
}

/// What robots.txt says about one URL now.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Verdict {
    /// Fetch it.
    Allowed,
    /// Never fetch it.
    Disallowed,
    /// robots.txt's rules were too costly to try against its path
    /// ([`freshet_robots::Check::TooComplex`]): never fetch it.
    TooComplex,
    /// The host's addresses are refused (see [`HostState::refused`]): never fetch it.
    Refused,
    /// The host's robots.txt stayed unreachable and the crawl gave the host up (see
    /// [`HostState::robots_given_up`]): never fetch it.
    GivenUp,
    /// robots.txt must be fetched (first time, or its time to live is up).
    Unknown,
    /// robots.txt is unreachable (5xx, network): nothing on the host until this Unix time, when
    /// it is fetched again (RFC 9309 §2.3.1.4).
    WaitUntil(f64),
}

impl HostState {
    pub(crate) fn new(robots_url: Url, delay: Duration) -> Self {
        Self {
            robots_url,
            robots: None,
            robots_in_flight: false,
            delay,
            capacity: HostCapacity::new(delay),
            not_before: None,
            unchecked: Vec::new(),
            refused: None,
            robots_failures: 0,
            robots_given_up: false,
            boilerplate: HostBoilerplate::default(),
            boilerplate_set: Arc::default(),
            pages: 0,
            sitemaps: HostSitemaps::default(),
        }
    }

    /// The verdict for `path_and_query` at Unix time `now`, for the crawler `agent`.
    pub(crate) fn verdict(&self, agent: &str, path_and_query: &str, now: f64) -> Verdict {
        if self.refused.is_some() {
            return Verdict::Refused;
        }
        if self.robots_given_up {
            return Verdict::GivenUp;
        }
        let Some(entry) = &self.robots else { return Verdict::Unknown };
        if entry.needs_fetch(now) {
            return Verdict::Unknown;
        }
        match entry.access() {
            Access::DisallowAll if entry.unreachable_since().is_some() => {
                Verdict::WaitUntil(entry.expires_at())
            }
            access => match access.check(agent, path_and_query) {
                Check::Allowed => Verdict::Allowed,
                Check::Disallowed => Verdict::Disallowed,
                Check::TooComplex => Verdict::TooComplex,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use freshet_robots::{CachePolicy, FetchOutcome};

    use super::*;

    /// A robots.txt whose wildcard rules would scan more of a long path than a check may: the
    /// URL is not fetched, and the verdict says why (the crawl log's `detail`), while short
    /// paths of the same host get their answer.
    #[test]
    fn rules_too_costly_to_check_keep_the_url_unfetched() {
        let mut body = String::from("User-agent: *\nDisallow: /private\n");
        for rule in 0..10_000 {
            body.push_str(&format!("Disallow: /*{}b{rule}\n", "a".repeat(30)));
        }
        let mut state = HostState::new(
            freshet_url::canonicalize("http://h.test/robots.txt").unwrap(),
            Duration::from_secs(1),
        );
        state.robots =
            Some(RobotsEntry::new(FetchOutcome::Fetched(body.as_bytes()), 0.0, &CachePolicy::default()));
        let long_path = format!("/{}", "a".repeat(8_000));
        assert_eq!(state.verdict("freshet", &long_path, 1.0), Verdict::TooComplex);
        assert_eq!(state.verdict("freshet", "/aaaa", 1.0), Verdict::Allowed);
        assert_eq!(state.verdict("freshet", "/private/a", 1.0), Verdict::Disallowed);
        assert!(crate::crawler::too_complex_detail().contains(&freshet_robots::MATCH_WORK_LIMIT.to_string()));
    }
}
