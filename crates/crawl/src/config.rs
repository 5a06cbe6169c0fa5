//! What a crawl is told: where to keep its data, where to start, how far to go, how politely.

use std::path::PathBuf;
use std::time::Duration;

use freshet_fetch::FetchConfig;
use freshet_robots::CachePolicy;
use freshet_url::{Scope, Url};

use crate::error::{CrawlError, Result};
use crate::focus::Focus;
use crate::importance::Importance;
use crate::revisit::Revisit;

/// One day in seconds, the scheduler's unit of time being the second.
pub const DAY: f64 = 86_400.0;

/// The default [`CrawlConfig::max_depth`]: links more than 20 hops from a seed are not followed.
pub const DEFAULT_MAX_DEPTH: u32 = 20;

/// The default [`CrawlConfig::robots_scan_rate`]: 4 MiB a second. One check at
/// [`freshet_robots::MATCH_WORK_LIMIT`] (1 MiB) costs 2.2 to 7.9 ms of CPU (BENCHMARKS.md,
/// "robots.txt checks"), so a host whose every check reaches it takes at most ~32 ms a second of
/// the control task, which every host shares. Ordinary files cost nothing here (rules without a
/// wildcard are never charged) or a few KB a check (tens of `/*…` rules against a 100-octet
/// path): hundreds of checks a second.
pub const DEFAULT_ROBOTS_SCAN_RATE: u64 = 4 << 20;

/// The least [`CrawlConfig::robots_scan_rate`]: a quarter of
/// [`freshet_robots::MATCH_WORK_LIMIT`], so that the allowance (8 seconds' worth) holds a whole
/// check beside the reserve (half of it).
pub const MIN_ROBOTS_SCAN_RATE: u64 = freshet_robots::MATCH_WORK_LIMIT as u64 / 4;

/// The frontier store's file in a crawl's data directory.
pub(crate) const STORE_FILE: &str = "frontier.redb";

/// The default [`CrawlConfig::max_hosts_per_domain`]: 1,000 hosts of one registered domain.
/// A site with wildcard DNS answers every name under its domain, and a page there may link
/// `a1.example.com`, `a2.example.com`, … without end, a host each: neither the depth limit
/// (each is near the seed) nor the per-host quota holds such a trap. A thousand is beyond
/// ordinary sites' own hosts (language and country subdomains, a few hundred at most) and
/// a hosting domain's users are usually their own registered domains (public suffix list's
/// private part: `*.github.io`, `*.blogspot.com`).
pub const DEFAULT_MAX_HOSTS_PER_DOMAIN: u32 = 1_000;

/// The most `fetch.max_redirects` may be: a chain's URLs wait in the frontier store with its
/// next hop, which keeps [`freshet_frontier::limits::REDIRECT_TRAIL`] of them (browsers follow
/// 20).
pub const MAX_REDIRECTS: usize = freshet_frontier::limits::REDIRECT_TRAIL;

/// The smallest [`CrawlConfig::store_cache_bytes`]: 1 MiB. The store works with less (its
/// conformance suite runs with none), but its reads then go to the file (the OS's page cache)
/// each time; a crawl gains nothing worth that.
pub const MIN_STORE_CACHE_BYTES: usize = 1 << 20;

/// Where a crawl's frontier lives.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum StoreEngine {
    /// `DIR/frontier.redb`, embedded (the default).
    #[default]
    Redb,
    /// A Redis server ([`freshet_frontier::RedisStore`]): the server must sync its append-only
    /// file at every write (`appendonly yes`, `appendfsync always`), and one crawl holds a key
    /// prefix at a time. The WARC files and the crawl log stay in `DIR`.
    Redis(freshet_frontier::RedisOptions),
}

/// A crawl's settings. [`CrawlConfig::new`] gives the defaults.
#[derive(Clone, Debug)]
pub struct CrawlConfig {
    /// The data directory: `frontier.redb`, `warc/*.warc.gz`, `crawl.jsonl`.
    pub data_dir: PathBuf,
    /// Seed URLs (canonical). A new crawl needs at least one; a resumed one may add more.
    pub seeds: Vec<Url>,
    /// Continue the crawl held in `data_dir` rather than start one.
    pub resume: bool,
    /// Stop after this many page fetches (robots.txt fetches not counted) in this run.
    pub max_pages: Option<u64>,
    /// Stop after this long (a crawl that revisits never runs out of pages).
    pub duration: Option<Duration>,
    /// Minimum time between two requests to one host, counted from the end of one to the start
    /// of the next (see the crate docs); robots.txt `Crawl-delay` raises it. It is the floor of
    /// the host's adaptive delay: pushbacks (429, 5xx, timeouts) raise the delay above it, and
    /// successes bring it back (see [`crate::capacity`]). Default 1 s.
    pub delay: Duration,
    /// Which discovered links are followed, relative to the seeds.
    pub scope: Scope,
    /// Links further than this many hops from a seed are not followed (seeds are depth 0,
    /// sitemap entries depth 1). `None`: no limit. Default [`DEFAULT_MAX_DEPTH`] (20, as
    /// Heritrix's `TooManyHopsDecideRule`): the crawl's defence against URL spaces without an
    /// end (a calendar whose every month links the next), which would otherwise keep a host's
    /// slots busy for ever; a page at the limit says in its log line that its links were not
    /// followed.
    pub max_depth: Option<u32>,
    /// If any is given, only URLs matching one of these (anywhere in the canonical URL) are
    /// followed. Seeds are always taken.
    pub include: Vec<regex::Regex>,
    /// URLs matching any of these are not followed (after `include`). Seeds are always taken.
    pub exclude: Vec<regex::Regex>,
    /// At most this many pages of one host enter the frontier (seeds included); the others
    /// are logged as skipped (`host-quota`) and never fetched. `None`: no limit.
    pub host_quota: Option<u64>,
    /// At most this many hosts (origins) of one registered domain are crawled
    /// ([`freshet_url::registered_domain`]; a host without one, an IP address, counts as its
    /// own), in the order the crawl first found them; the URLs of the others are logged as
    /// skipped (`domain-quota`) and never requested, robots.txt included (once the domain is
    /// full, links to its new hosts are not stored, so each link found gets its line). A host
    /// a seed names is always crawled (and counted). 0: no limit. Default
    /// [`DEFAULT_MAX_HOSTS_PER_DOMAIN`]: the defence against wildcard-DNS traps, under every
    /// scope but `host`.
    pub max_hosts_per_domain: u32,
    /// The HTTP client's settings (user agent, timeouts, body cap, `allow_private`, `--resolve`).
    pub fetch: FetchConfig,
    /// The global budget `k_0` of the scheduler, fetch starts per second. Default 1,000: high
    /// enough that politeness, not the budget, sets the pace of a crawl of a few hosts.
    pub rate: f64,
    /// At most this many fetches in flight at once (over all hosts). Default 64.
    pub max_in_flight: usize,
    /// At most this many fetches in flight at once on one host. Default 1, the polite setting;
    /// more turns that part of politeness off (the delay still spaces the starts, robots.txt
    /// is still obeyed): for benchmarks against one's own server, never a default.
    pub max_in_flight_per_host: u32,
    /// The change rate every new page starts with (changes per second): the prior until the
    /// estimators of the freshness loop learn it. Default one change a day.
    pub change_rate_prior: f64,
    /// How long robots.txt answers are obeyed (RFC 9309 §2.4: 24 h).
    pub robots_cache: CachePolicy,
    /// The octets of paths per second that one host's robots.txt rules may scan over all its
    /// checks (the rules with a wildcard scan the path; see `hosts::ScanAllowance`); a check
    /// that cannot be afforded waits, it is never skipped or guessed. Default 4 MiB a second
    /// ([`DEFAULT_ROBOTS_SCAN_RATE`]); at least a quarter of
    /// [`freshet_robots::MATCH_WORK_LIMIT`] (so that the allowance, 8 seconds' worth, holds a
    /// whole check beside the reserve kept for checks before fetches).
    pub robots_scan_rate: u64,
    /// How long a host is left alone after a 429 or 503 without a usable `Retry-After`.
    pub default_back_off: Duration,
    /// How many times a page may be answered 429/503 before the crawl gives up on it.
    pub max_back_offs: u32,
    /// The longest `Retry-After` a one-pass crawl ([`Revisit::Once`]) waits for: a host that
    /// asks to be left alone for longer is given up for the crawl (its pages are logged as
    /// skipped, `host-given-up`, and it is not called on again), rather than come back sooner
    /// than it asked or keep the crawl from ending (`Retry-After: 99999999999` held a crawl
    /// for ever). A revisiting crawl honours any `Retry-After`. Default 1 hour.
    pub max_retry_after: Duration,
    /// The most memory the frontier store keeps of its file's pages (bytes; redb's cache,
    /// `freshet_frontier::RedbOptions::cache_bytes`). Default redb's own,
    /// [`DEFAULT_CACHE_BYTES`](freshet_frontier::DEFAULT_CACHE_BYTES), 1 GiB: a ceiling, reached
    /// only as the store grows that large. A smaller one bounds the crawl's memory; the store's
    /// pages are then read from the file (the OS's page cache) more often.
    pub store_cache_bytes: usize,
    /// Where the frontier lives: `DIR/frontier.redb` (the default) or a Redis server (see
    /// [`StoreEngine`]).
    pub store: StoreEngine,
    /// This process's shard of a crawl shared among several (needs a Redis store; `None`: the
    /// crawl is this one process). Shard `K` of `N` crawls the hosts that
    /// [`ShardPlan::shard_of`](freshet_frontier::ShardPlan::shard_of) gives it, keeps its
    /// frontier under the prefix `PREFIX-K-of-N` (or `PREFIX-K-of-N.J`, its slot spread; see
    /// [`ShardPlan::prefix`](freshet_frontier::ShardPlan::prefix)), and hands every URL of another shard's hosts
    /// to that shard through Redis. Start every shard with the same settings and seeds; the
    /// limits `max_pages`, `rate` and `host_quota` (a host is one shard's) are each shard's
    /// own, and the per-IP limit and `max_hosts_per_domain` are shared out among the shards
    /// ([`CrawlConfig::max_in_flight_per_ip_of_shard`],
    /// [`CrawlConfig::max_hosts_per_domain_of_shard`]).
    pub shard: Option<freshet_frontier::ShardPlan>,
    /// WARC files are rotated before they pass this size (bytes, compressed).
    pub warc_max_file_bytes: u64,
    /// The gzip level of the WARC records, 0 (store) to 9; default 6. Level 1 compresses about
    /// 2.4 times as fast for files about 37% larger (BENCHMARKS.md, "WARC writing").
    pub warc_gzip_level: u32,
    /// At most this many payloads in the index that finds a page whose body is another
    /// URL's, byte for byte, to write it as a WARC revisit record (see [`crate::dedup`]; 32
    /// bytes a payload, at most one a page). 0 turns the search across URLs off; a page's own
    /// unchanged body is still found. Default
    /// [`DEFAULT_INDEX_ENTRIES`](crate::dedup::DEFAULT_INDEX_ENTRIES), 2^22.
    pub duplicate_index_entries: usize,
    /// At most this many pages in the index that finds, at a page's first fetch, a page
    /// fetched before under another URL whose main text it nearly repeats (SimHash within 3
    /// of 64 bits; see [`crate::dedup`]; about 28 bytes a page, one page of each group of
    /// near-duplicates). 0 turns it off. Default
    /// [`DEFAULT_NEAR_DUPLICATE_ENTRIES`](crate::dedup::DEFAULT_NEAR_DUPLICATE_ENTRIES), 2^22.
    pub near_duplicate_index_entries: usize,
    /// Whether each whole 2xx HTML page's main text is read (`freshet_content`, in the page's
    /// one HTML pass with its links): its content signature, so that a page whose words did not
    /// change (a rotating ad, a timestamp) is not counted as changed; near-duplicate detection;
    /// and the scores of a focused crawl, which needs it. Off, the pass reads the links only
    /// (about a quarter of a page's CPU on the static-site bench, BENCHMARKS.md "What each
    /// required feature costs a page"), a page's fingerprint is its body's exact hash, and no
    /// near-duplicates are found. Default on.
    pub main_text: bool,
    /// How fetched pages are revisited (see [`crate::revisit`]). Default: freshet's policy.
    pub revisit: Revisit,
    /// How many of a page's own fetch intervals its host's pooled change-rate prior is worth
    /// (see [`crate::revisit`]). Default [`PRIOR_FETCHES`](crate::revisit::PRIOR_FETCHES).
    pub prior_fetches: f64,
    /// Where page weights come from (see [`crate::importance`]). Default: OPIC.
    pub importance: Importance,
    /// A focused crawl's topic and estimator (see [`crate::focus`]): pages estimated to be
    /// about the topic are fetched first, and its pages weigh their score. Default: none.
    pub focus: Option<Focus>,
    /// Nutch's interval bounds for [`Revisit::Nutch`], seconds: `db.fetch.schedule.adaptive`'s
    /// `min_interval` (60 s) and `max_interval` (365 days) by default.
    pub nutch_interval_bounds: (f64, f64),
    /// A page that fails this many times in a row is given up; a 4xx other than 429 gives it
    /// up at once (gone). A failure that may pass (a timeout, a 5xx, a reset) is tried again:
    /// in a one-pass crawl after a pause that doubles each time (the host's delay, at least
    /// 0.1 s, times 2, 4…, at most `default_back_off`), else at the page's next revisit; one
    /// that will not (a body over the cap) is not retried in a one-pass crawl. Default 3.
    pub max_failures: u32,
    /// Read the sitemaps robots.txt lists (on the robots.txt's own origin), and the sitemaps
    /// their indexes list, for URLs to discover (see the crate docs, "Sitemaps"). Default on.
    pub sitemaps: bool,
    /// Revisit a page whose `<link rel=canonical>` names another URL of its host that the crawl
    /// follows and robots.txt allows (a tracking or session variant of that URL, which the
    /// crawl fetches as a link): off by default, so the budget keeps the canonical URL fresh
    /// and not its copies. Such a page is fetched once (its completion has no next due time,
    /// as in a one-pass crawl, across resumes too) and its log line names its canonical URL.
    /// Cross-host canonicals, and those the crawl would not fetch, do not count.
    pub revisit_canonical_aliases: bool,
    /// At most this many sitemap files requested per host and read of its sitemaps (indexes,
    /// parts, redirect hops). Default 50.
    pub max_sitemap_files: u32,
    /// At most this many sitemap URLs handed to discovery per host and read of its sitemaps.
    /// Default 50,000, the protocol's limit for one file.
    pub max_sitemap_urls: u64,
    /// How long after a read of a host's sitemaps began they are read again, in the host's
    /// next slot after that: new URLs are discovered and `<lastmod>`s tell which known pages
    /// changed (see the crate docs, "Sitemaps"). `None`: once per run. Default one day, as
    /// robots.txt's cache.
    pub sitemap_revisit: Option<Duration>,
}

impl CrawlConfig {
    /// The defaults, keeping everything under `data_dir`.
    #[must_use]
    pub fn new(data_dir: impl Into<PathBuf>) -> Self {
        Self {
            data_dir: data_dir.into(),
            seeds: Vec::new(),
            resume: false,
            max_pages: None,
            duration: None,
            delay: Duration::from_secs(1),
            scope: Scope::Host,
            max_depth: Some(DEFAULT_MAX_DEPTH),
            include: Vec::new(),
            exclude: Vec::new(),
            host_quota: None,
            max_hosts_per_domain: DEFAULT_MAX_HOSTS_PER_DOMAIN,
            fetch: FetchConfig::default(),
            rate: 1_000.0,
            max_in_flight: 64,
            max_in_flight_per_host: 1,
            change_rate_prior: 1.0 / DAY,
            robots_cache: CachePolicy::default(),
            robots_scan_rate: DEFAULT_ROBOTS_SCAN_RATE,
            default_back_off: Duration::from_secs(60),
            max_back_offs: 5,
            max_retry_after: Duration::from_secs(3_600),
            store_cache_bytes: freshet_frontier::DEFAULT_CACHE_BYTES,
            store: StoreEngine::Redb,
            shard: None,
            warc_max_file_bytes: freshet_warc::DEFAULT_MAX_FILE_BYTES,
            warc_gzip_level: freshet_warc::WriterOptions::default().gzip_level,
            duplicate_index_entries: crate::dedup::DEFAULT_INDEX_ENTRIES,
            near_duplicate_index_entries: crate::dedup::DEFAULT_NEAR_DUPLICATE_ENTRIES,
            main_text: true,
            revisit: Revisit::Freshet,
            importance: Importance::Opic,
            focus: None,
            prior_fetches: crate::revisit::PRIOR_FETCHES,
            nutch_interval_bounds: (60.0, 365.0 * DAY),
            max_failures: 3,
            sitemaps: true,
            revisit_canonical_aliases: false,
            max_sitemap_files: 50,
            max_sitemap_urls: 50_000,
            sitemap_revisit: Some(Duration::from_secs(86_400)),
        }
    }

    /// The robots.txt product token of the configured user agent (`freshet/0.1` gives `freshet`).
    #[must_use]
    pub fn robots_agent(&self) -> String {
        freshet_robots::product_token(&self.fetch.user_agent).to_ascii_lowercase()
    }

    /// The per-IP limit this process keeps: `fetch.max_in_flight_per_ip`, shared out among the
    /// shards of a sharded crawl (`⌊limit / N⌋` each, at least 1, which [`Self::validate`]
    /// requires): one IP address may serve host names of every shard, and the shards do not
    /// talk per request, so each keeping the whole limit would let an address see `N` times
    /// it.
    #[must_use]
    pub fn max_in_flight_per_ip_of_shard(&self) -> Option<usize> {
        self.fetch
            .max_in_flight_per_ip
            .map(|limit| usize::try_from(self.share_of_shard(limit as u64)).unwrap_or(limit))
    }

    /// The hosts of one registered domain this process crawls: `max_hosts_per_domain`, shared
    /// out among the shards of a sharded crawl (`⌊limit / N⌋` each, at least 1, which
    /// [`Self::validate`] requires; 0 stays 0, no limit): a domain's host names hash to every
    /// shard, and each shard counts its own, so each keeping the whole limit would let a
    /// wildcard-DNS trap have `N` times it.
    #[must_use]
    pub fn max_hosts_per_domain_of_shard(&self) -> u32 {
        match self.max_hosts_per_domain {
            0 => 0,
            limit => u32::try_from(self.share_of_shard(u64::from(limit))).unwrap_or(limit),
        }
    }

    /// This process's share of a limit over the whole crawl: `⌊limit / N⌋` for shard `K/N`, at
    /// least 1; the whole limit for a crawl of one process.
    fn share_of_shard(&self, limit: u64) -> u64 {
        let shards = self.shard.map_or(1, |plan| u64::from(plan.count())).max(1);
        (limit / shards).max(1)
    }

    /// Checks the numbers.
    ///
    /// # Errors
    /// [`CrawlError::InvalidConfig`] naming the setting.
    pub fn validate(&self) -> Result<()> {
        let bad = |field, value: String, expected| Err(CrawlError::InvalidConfig { field, value, expected });
        if !(self.rate.is_finite() && self.rate > 0.0) {
            return bad("rate", self.rate.to_string(), "a positive number of fetches per second");
        }
        if self.focus.is_some() && !self.main_text {
            return bad(
                "focus",
                "with main_text off".into(),
                "main_text on (a focused crawl scores a page by the topic's words in its main text)",
            );
        }
        if self.focus.is_some() && self.revisit == Revisit::Nutch {
            return bad(
                "focus",
                "with revisit = nutch".into(),
                "revisit freshet, uniform or once (Nutch's weights are its intervals)",
            );
        }
        if self.max_in_flight == 0 {
            return bad("max_in_flight", "0".into(), "at least 1");
        }
        if self.max_in_flight_per_host == 0 {
            return bad("max_in_flight_per_host", "0".into(), "at least 1");
        }
        if !(self.change_rate_prior.is_finite() && self.change_rate_prior > 0.0) {
            return bad("change_rate_prior", self.change_rate_prior.to_string(), "a positive rate");
        }
        let (nutch_min, nutch_max) = self.nutch_interval_bounds;
        if !(nutch_min.is_finite() && nutch_min > 0.0 && nutch_max.is_finite() && nutch_max >= nutch_min) {
            return bad(
                "nutch_interval_bounds",
                format!("{nutch_min}..{nutch_max}"),
                "finite, positive bounds, min ≤ max (seconds)",
            );
        }
        if !(self.prior_fetches.is_finite() && self.prior_fetches > 0.0) {
            return bad(
                "prior_fetches",
                self.prior_fetches.to_string(),
                "a positive number of fetch intervals",
            );
        }
        if self.max_failures == 0 {
            return bad("max_failures", "0".into(), "at least 1");
        }
        if self.sitemap_revisit.is_some_and(|interval| interval.is_zero()) {
            return bad("sitemap_revisit", "0 s".into(), "a positive duration (none: once per run)");
        }
        // A chain's URLs wait in the store with its next hop (see `crawler::complete`).
        if self.fetch.max_redirects > MAX_REDIRECTS {
            return bad(
                "max_redirects",
                self.fetch.max_redirects.to_string(),
                "at most 32, what the frontier store keeps of a chain (browsers follow 20)",
            );
        }
        if let Some(seed) = self.seeds.iter().find(|seed| !crate::crawler::storable_url(seed)) {
            let start: String = seed.as_str().chars().take(100).collect();
            return bad(
                "seeds",
                format!("{start}… ({} bytes)", seed.as_str().len()),
                "URLs of at most 8192 bytes, their origin at most 1024 (what the frontier store keeps)",
            );
        }
        if self.host_quota == Some(0) {
            return bad("host_quota", "0".into(), "at least 1 (or no limit)");
        }
        if self.max_pages == Some(0) {
            return bad("max_pages", "0".into(), "at least 1 (or no limit)");
        }
        // A limit shared out among the shards (`share_of_shard`) must be at least their number,
        // or some would keep more than their share.
        let shared: [(&'static str, Option<u64>, &'static str); 2] = [
            (
                "max_hosts_per_domain",
                Some(u64::from(self.max_hosts_per_domain)).filter(|&limit| limit > 0),
                "at least the number of shards (or 0, no limit): the shards share the limit out, \
                 each keeping at least one host of a domain",
            ),
            (
                "max_in_flight_per_ip",
                self.fetch.max_in_flight_per_ip.map(|limit| limit as u64),
                "at least the number of shards (or no limit): the shards share the limit out, each \
                 keeping at least one request per IP address",
            ),
        ];
        for (field, limit, expected) in shared {
            if let (Some(plan), Some(limit)) = (self.shard, limit)
                && u64::from(plan.count()) > limit
            {
                return bad(field, format!("{limit} with {} shards", plan.count()), expected);
            }
        }
        if self.robots_agent().is_empty() {
            return bad(
                "user_agent",
                self.fetch.user_agent.clone(),
                "a user agent starting with a product token ([a-zA-Z_-]+)",
            );
        }
        if self.robots_scan_rate < MIN_ROBOTS_SCAN_RATE {
            return bad(
                "robots_scan_rate",
                self.robots_scan_rate.to_string(),
                "at least 262144, a quarter of MATCH_WORK_LIMIT (octets a second)",
            );
        }
        if let Some(plan) = self.shard
            && self.store == StoreEngine::Redb
        {
            return bad(
                "shard",
                format!("{}/{} with the redb store", plan.index(), plan.count()),
                "a Redis store (store = redis://…), through which the shards hand URLs over",
            );
        }
        if self.store_cache_bytes < MIN_STORE_CACHE_BYTES {
            return bad("store_cache_bytes", self.store_cache_bytes.to_string(), "at least 1048576 (1 MiB)");
        }
        self.robots_cache.validate().or_else(|_| {
            bad("robots_cache", format!("{:?}", self.robots_cache), "finite, positive durations")
        })
    }

    /// `DIR/frontier.redb`.
    #[must_use]
    pub fn store_path(&self) -> PathBuf {
        self.data_dir.join(STORE_FILE)
    }

    /// `DIR/warc`.
    #[must_use]
    pub fn warc_dir(&self) -> PathBuf {
        self.data_dir.join("warc")
    }

    /// `DIR/crawl.jsonl`.
    #[must_use]
    pub fn log_path(&self) -> PathBuf {
        self.data_dir.join("crawl.jsonl")
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// A seed the frontier store could not keep is refused up front, named.
    #[test]
    fn a_seed_longer_than_the_store_keeps_is_named() {
        let mut config = CrawlConfig::new("/tmp/x");
        let long = |length: usize| Url::parse(&format!("http://a.test/{}", "x".repeat(length - 14))).unwrap();
        config.seeds = vec![long(freshet_frontier::limits::URL_BYTES)];
        config.validate().unwrap();
        config.seeds.push(long(freshet_frontier::limits::URL_BYTES + 1));
        let error = config.validate().unwrap_err().to_string();
        assert!(error.contains("seeds") && error.contains("8193 bytes"), "{error}");
    }

    /// A chain's trail waits in the store: no more redirects than it keeps.
    #[test]
    fn more_redirects_than_the_store_keeps_of_a_chain_are_refused() {
        let mut config = CrawlConfig::new("/tmp/x");
        config.fetch.max_redirects = MAX_REDIRECTS;
        config.validate().unwrap();
        config.fetch.max_redirects += 1;
        let error = config.validate().unwrap_err().to_string();
        assert!(error.contains("max_redirects") && error.contains("33"), "{error}");
    }

    /// A focused crawl scores pages by their main text: not without it.
    #[test]
    fn a_focused_crawl_needs_the_main_text() {
        let mut config = CrawlConfig::new("/nonexistent");
        config.focus = Some(Focus::new(&["river".to_owned()], freshet_focus::Estimator::FirstEdges).unwrap());
        config.validate().unwrap();
        config.main_text = false;
        let error = config.validate().unwrap_err().to_string();
        assert!(error.contains("focus") && error.contains("main_text"), "{error}");
        config.focus = None;
        config.validate().unwrap();
    }

    #[test]
    fn a_robots_scan_rate_too_low_for_one_check_is_named() {
        let mut config = CrawlConfig::new("/nonexistent");
        assert!(config.validate().is_ok());
        config.robots_scan_rate = MIN_ROBOTS_SCAN_RATE;
        assert!(config.validate().is_ok());
        config.robots_scan_rate = MIN_ROBOTS_SCAN_RATE - 1;
        let error = config.validate().map(|()| String::new()).unwrap_or_else(|error| error.to_string());
        assert!(error.contains("robots_scan_rate") && error.contains("262143"), "{error}");
    }
}
