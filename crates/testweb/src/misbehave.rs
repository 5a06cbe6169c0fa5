//! Misbehaving hosts: each kind of bad behaviour lives on a host of its own
//! (`{kind}.web.test`), so the rest of the web behaves.
//!
//! | kind | host does |
//! |---|---|
//! | `slow` | every page waits [`MisbehaviourSettings::slow_delay`] before answering |
//! | `slow-body` | headers at once, then the body in 512-byte chunks, one per `slow_body_interval` |
//! | `rate-limit` | one page per `rate_limit_interval`; faster requests get 429 with `Retry-After` |
//! | `5xx` | bursts of 500/502/503: the first `error_burst` of every `error_period` (wall time) |
//! | `reset` | `/` answers; every other page resets the TCP connection (RST, no response) |
//! | `redirect-loop` | `/loop/a` ↔ `/loop/b`, `/self` → itself, `/chain/{n}` → `/chain/{n+1}` forever |
//! | `calendar` | `/cal/{year}/{month}` links the previous and next month: an infinite URL space |
//! | `huge` | `/big`: a [`MisbehaviourSettings::huge_bytes`] (100 MiB) page, streamed |
//! | `gzip-bomb` | `/bomb`: `Content-Encoding: gzip`, ~1,000× expansion to `bomb_bytes` (1 GiB) of zeros |
//! | `bad-encoding` | invalid UTF-8 labelled UTF-8, Latin-1 by header and by `<meta>`, HTML labelled `image/png`, binary labelled `text/html`, no `Content-Type` |
//! | `robots-timeout` | robots.txt answers only after `robots_hang` (1 hour) |
//! | `robots-500` | robots.txt answers 500 |
//! | `robots-costly` | robots.txt of [`COSTLY_RULES`] wildcard rules `Disallow: /*aaa…ab<n>` ([`costly_robots_txt`]), which every path must be scanned against, and each of its pages links [`costly_paths`] (`MisbehaviourSettings::costly_paths` of them, 1,000 by default): paths of [`COSTLY_PATH_OCTETS`] that make each check scan megabytes |
//! | `wildcard-dns` | every name under `wildcard-dns.web.test` answers (a wildcard DNS record: crawl with `--resolve '*.wildcard-dns.web.test=127.0.0.1'`): host `n{k}.wildcard-dns.web.test` (the bare name is `k = 0`) links the roots of `n{2k+1}` and `n{2k+2}`, new hosts without end |
//! | `long-fields` | `/` links a path of [`LONG_URL_OCTETS`] and a host name of [`LONG_HOST_OCTETS`] under its own; `/long-redirect` redirects to a path of [`LONG_URL_OCTETS`]; `/page/1` has an `ETag` of [`LONG_VALIDATOR_OCTETS`], `/page/2` an `ETag` holding a tab, `/page/3` a `Last-Modified` of [`LONG_VALIDATOR_OCTETS`] |
//!
//! robots.txt of every other kind allows everything. Each host's `/` links its special paths
//! and five ordinary pages `/page/1…5`, which never change.

use std::fmt::Write as _;
use std::time::Duration;

use crate::error::{Result, TestwebError};
use crate::web::DOMAIN;

/// A kind of misbehaving host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Misbehaviour {
    /// Slow responses.
    Slow,
    /// Slow bodies.
    SlowBody,
    /// 429 with Retry-After.
    RateLimit,
    /// Bursts of 5xx.
    ServerErrors,
    /// Connection resets.
    Reset,
    /// Redirect loops and endless chains.
    RedirectLoop,
    /// An infinite URL space.
    Calendar,
    /// A 100 MiB page.
    Huge,
    /// A gzip bomb.
    GzipBomb,
    /// Invalid UTF-8 and wrong content types.
    BadEncoding,
    /// robots.txt that does not answer.
    RobotsTimeout,
    /// robots.txt that answers 500.
    Robots500,
    /// robots.txt whose rules are costly to check against the long paths the host links.
    RobotsCostly,
    /// Wildcard DNS: every name under the host answers, and each links two new ones.
    WildcardDns,
    /// URLs and validators longer than a crawler keeps.
    LongFields,
}

impl Misbehaviour {
    /// Every kind, in the order of the table above.
    pub const ALL: [Self; 15] = [
        Self::Slow,
        Self::SlowBody,
        Self::RateLimit,
        Self::ServerErrors,
        Self::Reset,
        Self::RedirectLoop,
        Self::Calendar,
        Self::Huge,
        Self::GzipBomb,
        Self::BadEncoding,
        Self::RobotsTimeout,
        Self::Robots500,
        Self::RobotsCostly,
        Self::WildcardDns,
        Self::LongFields,
    ];

    /// The kind's name, as `--misbehave` takes it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Slow => "slow",
            Self::SlowBody => "slow-body",
            Self::RateLimit => "rate-limit",
            Self::ServerErrors => "5xx",
            Self::Reset => "reset",
            Self::RedirectLoop => "redirect-loop",
            Self::Calendar => "calendar",
            Self::Huge => "huge",
            Self::GzipBomb => "gzip-bomb",
            Self::BadEncoding => "bad-encoding",
            Self::RobotsTimeout => "robots-timeout",
            Self::Robots500 => "robots-500",
            Self::RobotsCostly => "robots-costly",
            Self::WildcardDns => "wildcard-dns",
            Self::LongFields => "long-fields",
        }
    }

    /// The kind's host: `{name}.web.test`.
    #[must_use]
    pub fn host_name(self) -> String {
        format!("{}.{DOMAIN}", self.name())
    }

    /// The kind whose host is `host` (lower-case, no port): a name under `wildcard-dns`'s
    /// host is that kind's too.
    #[must_use]
    pub fn from_host(host: &str) -> Option<Self> {
        let name = host.strip_suffix(DOMAIN)?.strip_suffix('.')?;
        let wildcard = Self::WildcardDns.name();
        if name.strip_suffix(wildcard).is_some_and(|above| above.ends_with('.')) {
            return Some(Self::WildcardDns);
        }
        Self::ALL.into_iter().find(|kind| kind.name() == name)
    }

    /// `wildcard-dns`: the number `k` of a host under it, `n{k}.wildcard-dns.web.test` (its
    /// bare name is 0); `None` for any other name.
    #[must_use]
    pub fn wildcard_host_number(host: &str) -> Option<u64> {
        let bare = Self::WildcardDns.host_name();
        if host == bare {
            return Some(0);
        }
        let digits = host.strip_suffix(&bare)?.strip_suffix('.')?.strip_prefix('n')?;
        let number: u64 = digits.parse().ok()?;
        (number > 0 && digits == number.to_string()).then_some(number)
    }

    /// `wildcard-dns`: the name of its host number `k` (see [`Self::wildcard_host_number`]).
    #[must_use]
    pub fn wildcard_host_name(number: u64) -> String {
        match number {
            0 => Self::WildcardDns.host_name(),
            _ => format!("n{number}.{}", Self::WildcardDns.host_name()),
        }
    }

    /// Parses a comma-separated list of names; `all` means every kind. Sorted, no duplicates.
    ///
    /// # Errors
    /// [`TestwebError::UnknownMisbehaviour`] naming the first unknown name.
    pub fn parse_list(list: &str) -> Result<Vec<Self>> {
        let mut kinds = Vec::new();
        for name in list.split(',').map(str::trim).filter(|name| !name.is_empty()) {
            if name.eq_ignore_ascii_case("all") {
                kinds.extend(Self::ALL);
                continue;
            }
            match Self::ALL.into_iter().find(|kind| kind.name().eq_ignore_ascii_case(name)) {
                Some(kind) => kinds.push(kind),
                None => {
                    let known = Self::ALL.map(Self::name).join(", ");
                    return Err(TestwebError::UnknownMisbehaviour { name: name.to_string(), known });
                }
            }
        }
        kinds.sort_unstable();
        kinds.dedup();
        Ok(kinds)
    }
}

/// `long-fields`: the octets of its long paths (more than the 8 KiB a URL may have in
/// freshet's frontier store).
pub const LONG_URL_OCTETS: usize = 9_000;

/// `long-fields`: the octets of the long host name it links (labels of 60 octets under its own
/// name; more than the 1 KiB an origin may have in freshet's frontier store).
pub const LONG_HOST_OCTETS: usize = 1_100;

/// `long-fields`: the octets of its long `ETag` and `Last-Modified` values (more than the
/// 1 KiB freshet's frontier store keeps).
pub const LONG_VALIDATOR_OCTETS: usize = 2_000;

/// `long-fields`: its long path, `/long/` then `x`s, [`LONG_URL_OCTETS`] in all.
#[must_use]
pub fn long_path() -> String {
    format!("/long/{}", "x".repeat(LONG_URL_OCTETS - "/long/".len()))
}

/// `long-fields`: its long host name, labels of 60 `a`s under `long-fields.web.test`, at least
/// [`LONG_HOST_OCTETS`] in all.
#[must_use]
pub fn long_host() -> String {
    let mut host = Misbehaviour::LongFields.host_name();
    while host.len() < LONG_HOST_OCTETS {
        host = format!("{}.{host}", "a".repeat(60));
    }
    host
}

/// `robots-costly`: the wildcard rules of its robots.txt.
pub const COSTLY_RULES: usize = 10_000;

/// `robots-costly`: the length of each long path, in octets.
pub const COSTLY_PATH_OCTETS: usize = 2_000;

/// `robots-costly`'s robots.txt: `Disallow: /private`, then [`COSTLY_RULES`] rules
/// `Disallow: /*` + 30 `a`s + `b<n>` (420 KB, under RFC 9309's 500 KiB). None matches a path of
/// `a`s, but each must scan it: [`COSTLY_PATH_OCTETS`] octets × [`COSTLY_RULES`] rules is 20 MB
/// a check, the shape of a hostile file (freshet-robots' `MATCH_WORK_LIMIT`).
#[must_use]
pub fn costly_robots_txt() -> String {
    let mut body = String::from("User-agent: *\nDisallow: /private\n");
    let stem = "a".repeat(30);
    for rule in 0..COSTLY_RULES {
        let _ = writeln!(body, "Disallow: /*{stem}b{rule}");
    }
    body
}

/// `robots-costly`'s long paths: `/long/{k}/` then `a`s, [`COSTLY_PATH_OCTETS`] octets in all,
/// for `k` in `0..count` ([`MisbehaviourSettings::costly_paths`]).
#[must_use]
pub fn costly_paths(count: usize) -> Vec<String> {
    (0..count)
        .map(|k| {
            let head = format!("/long/{k}/");
            let tail = "a".repeat(COSTLY_PATH_OCTETS.saturating_sub(head.len()));
            head + &tail
        })
        .collect()
}

/// Sizes and durations of the misbehaviours. The defaults suit a crawler in real time; tests
/// shrink them.
#[derive(Debug, Clone, PartialEq)]
pub struct MisbehaviourSettings {
    /// `slow`: wait before the response head.
    pub slow_delay: Duration,
    /// `slow-body`: chunks of 512 bytes in the body.
    pub slow_body_chunks: u32,
    /// `slow-body`: wait between two chunks.
    pub slow_body_interval: Duration,
    /// `rate-limit`: at most one page per this interval.
    pub rate_limit_interval: Duration,
    /// `5xx`: length of the cycle.
    pub error_period: Duration,
    /// `5xx`: errors during the first `error_burst` of each cycle.
    pub error_burst: Duration,
    /// `huge`: bytes of `/big`.
    pub huge_bytes: u64,
    /// `gzip-bomb`: bytes of `/bomb` once decompressed.
    pub bomb_bytes: u64,
    /// `robots-timeout`: how long robots.txt takes.
    pub robots_hang: Duration,
    /// `robots-costly`: how many long paths each of its pages links.
    pub costly_paths: usize,
}

impl Default for MisbehaviourSettings {
    fn default() -> Self {
        Self {
            slow_delay: Duration::from_secs(10),
            slow_body_chunks: 60,
            slow_body_interval: Duration::from_secs(1),
            rate_limit_interval: Duration::from_secs(5),
            error_period: Duration::from_secs(20),
            error_burst: Duration::from_secs(5),
            huge_bytes: 100 << 20,
            bomb_bytes: 1 << 30,
            robots_hang: Duration::from_secs(3600),
            costly_paths: 1_000,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn names_round_trip() {
        for kind in Misbehaviour::ALL {
            assert_eq!(Misbehaviour::from_host(&kind.host_name()), Some(kind));
            assert_eq!(Misbehaviour::parse_list(kind.name()).unwrap(), vec![kind]);
        }
        assert_eq!(Misbehaviour::parse_list("all").unwrap().len(), 15);
        for number in [0, 1, 2, 17, u64::MAX] {
            let name = Misbehaviour::wildcard_host_name(number);
            assert_eq!(Misbehaviour::wildcard_host_number(&name), Some(number), "{name}");
            assert_eq!(Misbehaviour::from_host(&name), Some(Misbehaviour::WildcardDns), "{name}");
        }
        for name in ["n0.wildcard-dns.web.test", "n01.wildcard-dns.web.test", "a.wildcard-dns.web.test"] {
            assert_eq!(Misbehaviour::wildcard_host_number(name), None, "{name}");
        }
        assert_eq!(Misbehaviour::from_host("xwildcard-dns.web.test"), None);
        assert_eq!(
            Misbehaviour::parse_list("huge, slow,huge").unwrap(),
            vec![Misbehaviour::Slow, Misbehaviour::Huge]
        );
        let err = Misbehaviour::parse_list("slow,nope").unwrap_err().to_string();
        assert!(err.contains("\"nope\"") && err.contains("gzip-bomb"), "{err}");
        assert_eq!(Misbehaviour::from_host("h1.web.test"), None);
    }
}
