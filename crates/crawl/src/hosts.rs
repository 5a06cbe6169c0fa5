//! What the control task knows about each host beyond the scheduler: its origin, its robots.txt
//! entry, its current delay and when its next request may start.

use std::sync::Arc;
use std::time::Duration;

use freshet_content::{BoilerplateSet, HostBoilerplate};
use freshet_frontier::HostPoliteness;
use freshet_robots::{Access, Check, MATCH_WORK_LIMIT, RobotsEntry};
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
    /// Set when a one-pass crawl gave the host up because it asked to be left alone for longer
    /// than `max_retry_after`: none of its pages is tried any more.
    pub(crate) throttled_out: bool,
    /// The Unix time before which the host asked (429/503 `Retry-After`) not to be called on.
    /// The scheduler holds the host's slot closed until then in this run; the time is also
    /// stored with the answer's group commit (see [`HostState::stored_politeness`]), and a
    /// resumed run's checks answer [`Verdict::WaitUntil`] before it, so a resume, even after
    /// `kill -9`, does not call on the host sooner than it asked.
    pub(crate) retry_after_until: Option<f64>,
    /// Its pages in the frontier (for `host_quota`).
    pub(crate) pages: u64,
    /// Found after `max_hosts_per_domain` other hosts of its registered domain: its URLs are
    /// not admitted, unless a seed names the host (`seeded`).
    pub(crate) beyond_domain_limit: bool,
    /// A seed (of this run or an earlier one) is on the host.
    pub(crate) seeded: bool,
    /// Its sitemaps: queued, requested, URLs taken (see `crawler::sitemaps`).
    pub(crate) sitemaps: HostSitemaps,
    /// What its robots.txt checks may still scan (see [`ScanAllowance`]).
    pub(crate) robots_scan: ScanAllowance,
    /// Whether a check of its was put off in this run and the crawl log said so (one `deferred`
    /// line a host: later put-offs are counted in the summary only).
    pub(crate) deferral_logged: bool,
}

/// A host's allowance of octets that its robots.txt checks may scan: a token bucket that fills
/// at `rate` ([`crate::CrawlConfig::robots_scan_rate`]) up to 8 seconds' worth, and is charged
/// what each check scanned ([`freshet_robots::Access::check_within`]). Half of it is kept for
/// the checks made just before fetches: checks of newly found links
/// ([`HostState::early_verdict`]) are an early sorting out (a link robots.txt disallows is
/// never scheduled), not needed for correctness, and must not starve the others.
///
/// One check is bounded by [`MATCH_WORK_LIMIT`], but a hostile host can serve a page of a
/// thousand links with long paths and a robots.txt of wildcard rules that makes each check of
/// them reach that bound: seconds of the control task's CPU for one page. The allowance bounds
/// what one host's checks take over time; a check it cannot afford is put off
/// ([`Verdict::Deferred`]), never answered by a guess, so no URL is lost or fetched unchecked.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ScanAllowance {
    /// Octets a second.
    rate: usize,
    /// Octets held at `at`.
    octets: f64,
    /// Unix time of `octets`.
    at: f64,
}

impl ScanAllowance {
    /// Full, filling at `rate` octets a second.
    pub(crate) fn new(rate: usize) -> Self {
        let mut allowance = Self { rate, octets: 0.0, at: f64::NEG_INFINITY };
        allowance.octets = allowance.burst() as f64;
        allowance
    }

    /// The most it holds: 8 seconds' worth.
    fn burst(&self) -> usize {
        self.rate.saturating_mul(8)
    }

    /// What only the checks before fetches may use: half.
    fn reserve(&self) -> usize {
        self.burst() / 2
    }

    /// Octets held at Unix time `now` (a clock that went back adds nothing).
    fn available(&self, now: f64) -> usize {
        let elapsed = (now - self.at).max(0.0);
        (self.octets + elapsed * self.rate as f64).min(self.burst() as f64) as usize
    }

    /// Takes `octets` at `now`, from the `available` octets of then.
    fn charge(&mut self, available: usize, octets: usize, now: f64) {
        self.octets = available.saturating_sub(octets) as f64;
        self.at = now.max(self.at);
    }

    /// When it holds `octets`, from `available` (fewer) at `now`; an octet late, so that the
    /// rounding of [`ScanAllowance::available`] leaves it no short then.
    fn time_of(&self, available: usize, octets: usize, now: f64) -> f64 {
        now + (octets.saturating_sub(available) + 1) as f64 / self.rate as f64
    }
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
    /// A one-pass crawl gave the host up, its robots.txt unreachable (see
    /// [`HostState::robots_given_up`]) or its `Retry-After` too long (see
    /// [`HostState::throttled_out`]): never fetch it.
    GivenUp,
    /// robots.txt must be fetched (first time, or its time to live is up).
    Unknown,
    /// Nothing on the host until this Unix time: robots.txt is unreachable (5xx, network) and
    /// is fetched again then (RFC 9309 §2.3.1.4), or the host asked to be left alone until then
    /// (`Retry-After`; see [`HostState::retry_after_until`]).
    WaitUntil(f64),
    /// The host's checks used up their allowance ([`ScanAllowance`]): not checked now; a full
    /// check can be afforded at this Unix time.
    Deferred(f64),
}

impl HostState {
    /// A host not yet called on; its robots.txt checks may scan `robots_scan_rate` octets a
    /// second ([`ScanAllowance`]).
    pub(crate) fn new(robots_url: Url, delay: Duration, robots_scan_rate: usize) -> Self {
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
            throttled_out: false,
            retry_after_until: None,
            boilerplate: HostBoilerplate::default(),
            boilerplate_set: Arc::default(),
            pages: 0,
            beyond_domain_limit: false,
            seeded: false,
            sitemaps: HostSitemaps::default(),
            robots_scan: ScanAllowance::new(robots_scan_rate),
            deferral_logged: false,
        }
    }

    /// The verdict for `path_and_query` at Unix time `now`, for the crawler `agent`, as the
    /// host's page (or sitemap) is about to be fetched: the check may use all of the host's
    /// allowance.
    pub(crate) fn verdict(&mut self, agent: &str, path_and_query: &str, now: f64) -> Verdict {
        self.verdict_keeping(agent, path_and_query, now, 0)
    }

    /// What the store keeps of the host's politeness at Unix time `now`: the delay in force
    /// and, while one is owed, the end of the pause its `Retry-After` asked for. Every
    /// `SetHost` the crawl writes carries both, so that one written for a new delay does not
    /// erase a pause, and a run resumed after `kill -9` (which saves nothing at its end) still
    /// waits the pause out.
    pub(crate) fn stored_politeness(&self, now: f64) -> HostPoliteness {
        HostPoliteness {
            min_delay: self.delay.as_secs_f64(),
            max_rate: f64::INFINITY,
            blocked_until: self.retry_after_until.filter(|&until| until > now),
        }
    }

    /// The verdict for a link just found (or a page waiting for its host's robots.txt): as
    /// [`HostState::verdict`], but the check leaves the allowance's reserve to the checks
    /// before fetches; [`Verdict::Deferred`] when it cannot.
    pub(crate) fn early_verdict(&mut self, agent: &str, path_and_query: &str, now: f64) -> Verdict {
        self.verdict_keeping(agent, path_and_query, now, self.robots_scan.reserve())
    }

    /// The verdict, with the check leaving `reserve` octets of the allowance.
    fn verdict_keeping(&mut self, agent: &str, path_and_query: &str, now: f64, reserve: usize) -> Verdict {
        if self.refused.is_some() {
            return Verdict::Refused;
        }
        if self.robots_given_up || self.throttled_out {
            return Verdict::GivenUp;
        }
        if let Some(until) = self.retry_after_until.filter(|&until| until > now) {
            return Verdict::WaitUntil(until);
        }
        let Some(entry) = &self.robots else { return Verdict::Unknown };
        if entry.needs_fetch(now) {
            return Verdict::Unknown;
        }
        match entry.access() {
            Access::DisallowAll if entry.unreachable_since().is_some() => {
                Verdict::WaitUntil(entry.expires_at())
            }
            access => {
                // A check starts only when the allowance holds a full one beyond `reserve`, so
                // that its answer is the check's own (`TooComplex` means too costly for this
                // path, never that the allowance ran low) and no check is cut short: partial
                // checks would spend the allowance and answer nothing.
                let available = self.robots_scan.available(now);
                let needed = reserve + MATCH_WORK_LIMIT;
                if available < needed {
                    return Verdict::Deferred(self.robots_scan.time_of(available, needed, now));
                }
                let mut left = MATCH_WORK_LIMIT;
                let check = access.check_within(agent, path_and_query, &mut left);
                self.robots_scan.charge(available, MATCH_WORK_LIMIT - left, now);
                match check {
                    Check::Allowed => Verdict::Allowed,
                    Check::Disallowed => Verdict::Disallowed,
                    Check::TooComplex => Verdict::TooComplex,
                }
            }
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
        let mut state = host_with_robots(&body);
        let long_path = format!("/{}", "a".repeat(8_000));
        assert_eq!(state.verdict("freshet", &long_path, 1.0), Verdict::TooComplex);
        assert_eq!(state.verdict("freshet", "/aaaa", 1.0), Verdict::Allowed);
        assert_eq!(state.verdict("freshet", "/private/a", 1.0), Verdict::Disallowed);
        assert!(crate::crawler::too_complex_detail().contains(&freshet_robots::MATCH_WORK_LIMIT.to_string()));
    }

    /// A host whose robots.txt is `body`, fetched at time 0.
    fn host_with_robots(body: &str) -> HostState {
        let mut state = HostState::new(
            freshet_url::canonicalize("http://h.test/robots.txt").unwrap(),
            Duration::from_secs(1),
            ROBOTS_SCAN_RATE,
        );
        state.robots =
            Some(RobotsEntry::new(FetchOutcome::Fetched(body.as_bytes()), 0.0, &CachePolicy::default()));
        state
    }

    /// The default allowance's rate, burst and reserve.
    const ROBOTS_SCAN_RATE: usize = crate::DEFAULT_ROBOTS_SCAN_RATE as usize;
    const ROBOTS_SCAN_BURST: usize = 8 * ROBOTS_SCAN_RATE;
    const ROBOTS_SCAN_RESERVE: usize = ROBOTS_SCAN_BURST / 2;

    /// The octets a host's checks scanned between two allowances, with `elapsed` seconds of
    /// refill between them.
    fn scanned(before: usize, after: usize, elapsed: f64) -> f64 {
        before as f64 + elapsed * ROBOTS_SCAN_RATE as f64 - after as f64
    }

    /// The checks of a host whose robots.txt makes every check of a long path cost
    /// `MATCH_WORK_LIMIT`: the links found early take the allowance down to the reserve and
    /// are then put off, the checks before fetches take the rest and are then put off too, and
    /// the work over time never exceeds what was held plus the refill. Nothing is answered by
    /// a guess: every verdict is the check's own or `Deferred`.
    #[test]
    fn a_host_s_checks_are_bounded_over_time_and_put_off_not_guessed() {
        let mut body = String::from("User-agent: *\nDisallow: /private\n");
        for rule in 0..10_000 {
            body.push_str(&format!("Disallow: /*{}b{rule}\n", "a".repeat(30)));
        }
        let mut state = host_with_robots(&body);
        let long_path = format!("/{}", "a".repeat(8_000));
        let now = 10.0;
        let full_checks = ROBOTS_SCAN_BURST / MATCH_WORK_LIMIT;
        let early_checks = (ROBOTS_SCAN_BURST - ROBOTS_SCAN_RESERVE) / MATCH_WORK_LIMIT;
        let mut verdicts = Vec::new();
        for _ in 0..2 * full_checks {
            verdicts.push(state.early_verdict("freshet", &long_path, now));
        }
        // A check that reaches the limit scans a little under it (whole rules), hence the one
        // more check that may fit.
        let early = verdicts.iter().take_while(|verdict| **verdict == Verdict::TooComplex).count();
        assert!((early_checks..=early_checks + 1).contains(&early), "{verdicts:?}");
        assert!(verdicts[early..].iter().all(|verdict| matches!(verdict, Verdict::Deferred(_))));
        // Before a fetch the reserve is there: the same number of full checks again.
        let mut verdicts = Vec::new();
        for _ in 0..2 * full_checks {
            verdicts.push(state.verdict("freshet", &long_path, now));
        }
        let before_fetch = verdicts.iter().take_while(|verdict| **verdict == Verdict::TooComplex).count();
        assert!((full_checks - 1..=full_checks + 1).contains(&(early + before_fetch)), "{verdicts:?}");
        assert!(verdicts[before_fetch..].iter().all(|verdict| matches!(verdict, Verdict::Deferred(_))));
        assert!(matches!(verdicts.last(), Some(Verdict::Deferred(_))), "{verdicts:?}");
        // The allowance is nearly spent: a short path that the wildcard rules must scan (10,000
        // rules × 10 octets) is put off too, not allowed.
        let Verdict::Deferred(at) = state.verdict("freshet", "/aaaaaaaaa", now) else { panic!() };
        assert!(state.robots_scan.available(now) < MATCH_WORK_LIMIT);
        // At the time the verdict gave, a full check can be made, and gives the real answer;
        // then the allowance is spent again until the next such time.
        assert!(at > now && at <= now + (MATCH_WORK_LIMIT as f64 / ROBOTS_SCAN_RATE as f64) + 1e-9);
        assert_eq!(state.verdict("freshet", &long_path, at), Verdict::TooComplex);
        let Verdict::Deferred(next) = state.verdict("freshet", "/private/x", at) else { panic!() };
        assert_eq!(state.verdict("freshet", "/private/x", next), Verdict::Disallowed);
        let at = next;
        // Over 5 seconds of checks as fast as they come (every 10 ms), the work is what was
        // left plus the refill, in full checks: 4 a second.
        let start = state.robots_scan.available(at);
        let (mut time, mut made) = (at, 0);
        while time < at + 5.0 {
            if let Verdict::TooComplex = state.verdict("freshet", &long_path, time) {
                made += 1;
            }
            time += 0.01;
        }
        let work = scanned(start, state.robots_scan.available(time), time - at);
        assert!(work <= (start + 5 * ROBOTS_SCAN_RATE + ROBOTS_SCAN_RATE / 10) as f64, "{work}");
        assert!(made >= 5 * ROBOTS_SCAN_RATE / MATCH_WORK_LIMIT - 1, "{made}");
        assert!(made <= 6 * ROBOTS_SCAN_RATE / MATCH_WORK_LIMIT, "{made}");
    }

    /// Rules without a wildcard cost no allowance: a host of ordinary rules is never put off.
    #[test]
    fn ordinary_rules_cost_no_allowance() {
        let prefixes: String = (0..1_000).map(|rule| format!("Disallow: /p{rule}/\n")).collect();
        let mut state = host_with_robots(&format!("User-agent: *\n{prefixes}"));
        let long_path = format!("/{}", "a".repeat(8_000));
        for _ in 0..10_000 {
            assert_eq!(state.early_verdict("freshet", &long_path, 1.0), Verdict::Allowed);
            assert_eq!(state.verdict("freshet", "/p7/x", 1.0), Verdict::Disallowed);
        }
        assert_eq!(state.robots_scan.available(1.0), ROBOTS_SCAN_BURST);
    }
}
