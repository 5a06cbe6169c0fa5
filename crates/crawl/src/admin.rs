//! Questions a running crawl answers while it runs: its status (for `freshet status` and the
//! Prometheus metrics) and why one page is or is not being fetched (`freshet explain`, seed
//! 003's debuggability). An [`Admin`] handle sends the question to the crawl's control task,
//! which answers between two decisions from the state it owns: nothing is shared or locked.

use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, oneshot};

/// A question for the control task.
#[derive(Debug)]
pub(crate) enum Request {
    Status(oneshot::Sender<CrawlStatus>),
    Explain(String, oneshot::Sender<Result<PageReport, ExplainError>>),
}

/// A handle on a running crawl ([`Crawler::admin`](crate::Crawler::admin)); cheap to clone.
#[derive(Clone, Debug)]
pub struct Admin {
    pub(crate) sender: mpsc::Sender<Request>,
}

/// Why a page cannot be explained.
#[derive(Debug, Clone, PartialEq, thiserror::Error, Serialize)]
pub enum ExplainError {
    /// The URL does not parse.
    #[error("not a URL freshet can crawl: {0}")]
    BadUrl(String),
    /// The crawl has never seen the URL.
    #[error("{0} is not in this crawl's frontier")]
    Unknown(String),
    /// The crawl knows the URL but will not fetch it again (disallowed, gone, failed too often,
    /// a one-pass crawl that fetched it).
    #[error("{0} is known but not scheduled: it will not be fetched again")]
    NotScheduled(String),
    /// A focused crawl holds the page back, in its host's queue by estimate, until the host's
    /// pages estimated higher have been fetched (see [`crate::focus`]).
    #[error(
        "{url} is not fetched yet: the focused crawl holds it back behind {ahead} pages of its host estimated higher (its estimate: {estimate:.3})"
    )]
    HeldByFocus {
        /// The URL.
        url: String,
        /// Its estimate (the focus estimator's `β̃`).
        estimate: f64,
        /// Pages of its host held back and estimated higher.
        ahead: usize,
    },
    /// The crawl has stopped.
    #[error("the crawl is not running")]
    Stopped,
    /// The store could not be read.
    #[error("frontier store: {0}")]
    Store(String),
}

impl Admin {
    /// The crawl's status now; `None` once the crawl has stopped. It costs the control task one
    /// pass over the scheduled pages (the census of freshness and due pages).
    pub async fn status(&self) -> Option<CrawlStatus> {
        let (reply, answer) = oneshot::channel();
        self.sender.send(Request::Status(reply)).await.ok()?;
        answer.await.ok()
    }

    /// Why `url` is (not) being fetched.
    ///
    /// # Errors
    /// [`ExplainError`] saying why there is no answer.
    pub async fn explain(&self, url: &str) -> Result<PageReport, ExplainError> {
        let (reply, answer) = oneshot::channel();
        self.sender.send(Request::Explain(url.to_owned(), reply)).await.map_err(|_| ExplainError::Stopped)?;
        answer.await.map_err(|_| ExplainError::Stopped)?
    }
}

/// A crawl's state at one time. Rates are per second, times Unix seconds.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct CrawlStatus {
    /// When the status was taken.
    pub time: f64,
    /// Seconds since this run started.
    pub uptime: f64,
    /// The revisit policy (`freshet`, `uniform`, `nutch`, `once`).
    pub revisit: String,
    /// The global budget `k_0`, fetches per second.
    pub budget: f64,
    /// The threshold `λ_0`: what one more fetch per second would be worth.
    pub lambda0: f64,
    /// Expected weighted freshness of the collection by the crawl's own estimates:
    /// `Σ w e^(−λτ) / Σ w` (see `freshet_schedule::online::Census`).
    pub expected_freshness: f64,
    /// Pages scheduled.
    pub pages: usize,
    /// Of those, fetched at least once.
    pub fetched_pages: usize,
    /// Of those, due now (their value reached their host's threshold).
    pub due: usize,
    /// Fetches in flight.
    pub in_flight: usize,
    /// In a focused crawl, pages not fetched yet that wait in their host's queue by estimate,
    /// not yet handed to the scheduler (not counted in `pages`; see [`crate::focus`]).
    pub held_by_focus: usize,
    /// Page requests in this run.
    pub page_requests: u64,
    /// Page requests per second over the last ten seconds.
    pub fetches_per_second: f64,
    /// Answers that were not 2xx or 304, in this run.
    pub not_ok: u64,
    /// Body bytes received in this run.
    pub bytes: u64,
    /// New URLs admitted in this run.
    pub discovered: u64,
    /// URLs not requested because of robots.txt, in this run: disallowed, too costly to check,
    /// or on a host given up for an unreachable robots.txt.
    pub robots_skipped: u64,
    /// Page starts put off because their host's robots.txt checks had used up its allowance
    /// ([`crate::CrawlConfig::robots_scan_rate`]), in this run.
    pub robots_deferred: u64,
    /// New URLs not admitted in this run, over their host's page quota
    /// ([`crate::CrawlConfig::host_quota`]).
    pub over_host_quota: u64,
    /// URLs not admitted in this run, their host past the limit of hosts of its registered
    /// domain ([`crate::CrawlConfig::max_hosts_per_domain`]; see
    /// [`crate::CrawlSummary::over_domain_quota`]).
    pub over_domain_quota: u64,
    /// Links and redirect targets not followed in this run, longer than the frontier keeps.
    pub too_long: u64,
    /// URLs not requested in this run because their host was given up for a `Retry-After`
    /// longer than [`crate::CrawlConfig::max_retry_after`] (a one-pass crawl).
    pub throttled_out: u64,
    /// Hosts known to the crawl.
    pub host_count: usize,
    /// Bytes held by the hosts' boilerplate tables (`freshet_content::HostBoilerplate`: ~9 KiB
    /// a host once full for pages of up to 32 blocks, at most ~117 KiB for hosts with larger
    /// pages): what grows, beside the store's cache, as a crawl sees new text blocks on its
    /// hosts' pages.
    #[serde(default)]
    pub boilerplate_bytes: u64,
    /// Complete 2xx answers in this run whose body the archive already held, written as WARC
    /// revisit records ([`crate::CrawlSummary::identical_payloads`]).
    #[serde(default)]
    pub identical_payloads: u64,
    /// Of those, bodies first captured under another URL.
    #[serde(default)]
    pub duplicates: u64,
    /// Payloads in the index that finds another URL's identical body (see [`crate::dedup`]).
    #[serde(default)]
    pub payloads_indexed: u64,
    /// Payloads left out of that index in this run because it was full
    /// ([`crate::CrawlConfig::duplicate_index_entries`]).
    #[serde(default)]
    pub payloads_unindexed: u64,
    /// Pages in this run whose first fetch's main text nearly repeats a page fetched before
    /// ([`crate::CrawlSummary::near_duplicates`]).
    #[serde(default)]
    pub near_duplicates: u64,
    /// Pages in the index that finds near-duplicates (one of each group; see
    /// [`crate::dedup`]).
    #[serde(default)]
    pub near_duplicates_indexed: u64,
    /// Sitemaps in this run (see the crate docs, "Sitemaps"): reads of hosts' sitemaps after
    /// their first, pages a `lastmod` told changed, of their fetches those that found a change,
    /// copies a proved sitemap vouched for, changes it missed, and hosts whose `lastmod`s are
    /// ignored ([`crate::CrawlSummary`]'s `sitemap_*` counts).
    #[serde(default)]
    pub sitemaps: SitemapCounts,
    /// This process's shard of a sharded crawl and the URLs it handed over and in this run
    /// ([`crate::CrawlConfig::shard`]); `None`: the crawl is one process.
    #[serde(default)]
    pub shard: Option<ShardCounts>,
    /// The hosts with the highest `λ_i`, highest first.
    pub hosts: Vec<HostStatus>,
}

/// What the sitemaps did in a run, as [`crate::CrawlSummary`] counts it.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct SitemapCounts {
    /// [`crate::CrawlSummary::sitemap_rereads`].
    pub rereads: u64,
    /// [`crate::CrawlSummary::sitemap_not_modified`].
    #[serde(default)]
    pub not_modified: u64,
    /// [`crate::CrawlSummary::sitemap_changes`].
    pub changes: u64,
    /// [`crate::CrawlSummary::sitemap_changes_confirmed`].
    pub changes_confirmed: u64,
    /// [`crate::CrawlSummary::sitemap_vouched`].
    pub vouched: u64,
    /// [`crate::CrawlSummary::sitemap_misses`].
    pub misses: u64,
    /// [`crate::CrawlSummary::sitemap_lastmods_ignored`].
    pub lastmods_ignored: u64,
}

/// A shard's place and handovers in a run ([`crate::CrawlSummary`]'s `handed_*` counts).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct ShardCounts {
    /// This shard's index, from 0.
    pub index: u32,
    /// How many shards the crawl has.
    pub count: u32,
    /// [`crate::CrawlSummary::handed_over`].
    pub handed_over: u64,
    /// [`crate::CrawlSummary::handed_in`].
    pub handed_in: u64,
    /// This shard has nothing left of its own (a one-pass crawl) and waits until the crawl is
    /// over: every shard idle with an empty inbox, or gone. A shard never started, or killed
    /// and not yet resumed, keeps it waiting.
    #[serde(default)]
    pub waiting: bool,
}

/// One host in a [`CrawlStatus`].
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct HostStatus {
    /// Its origin (`scheme://host:port`).
    pub host: String,
    /// Its `λ_i`: what one more fetch per second on it would be worth (0 when its politeness
    /// does not bind).
    pub lambda: f64,
    /// Its capacity: fetch starts per second its politeness allows.
    pub capacity: f64,
    /// Fetches started on it (this run).
    pub fetches: u64,
    /// Its pages in the scheduler.
    pub pages: u32,
}

/// Why one page is (not) being fetched.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PageReport {
    /// The canonical URL.
    pub url: String,
    /// Its importance `w`.
    pub weight: f64,
    /// Its change-rate estimate `λ`, changes per second.
    pub change_rate: f64,
    /// The estimate's standard error (`None` before any observation, or for a policy that
    /// does not estimate).
    pub change_rate_std_error: Option<f64>,
    /// Observations (fetches after the first that returned content) and changes seen.
    pub observations: u32,
    /// Changes seen in those.
    pub changes: u32,
    /// Start of its last fetch.
    pub last_fetch: Option<f64>,
    /// Since when its copy is known current, which its age `τ` counts from: its last fetch,
    /// or a later read of a sitemap that vouched for it (see the crate docs, "Sitemaps");
    /// `None` before a fetch or once a sitemap said it changed.
    #[serde(default)]
    pub current_since: Option<f64>,
    /// Its crawl value `V(τ)` now.
    pub value: f64,
    /// `λ_0` now.
    pub lambda0: f64,
    /// Its host's `λ_i`.
    pub host_lambda: f64,
    /// `λ_0 + λ_i`: the value at which it is due.
    pub threshold: f64,
    /// When its value reaches the threshold (`None`: never, at the current threshold).
    pub due_at: Option<f64>,
    /// Where it stands (`ready`, `not-yet-eligible`, `host-busy`, …) and why.
    pub status: String,
    /// The WARC record holding its last complete payload: its own, or another URL's it
    /// duplicates (see [`crate::dedup`]); `None` before one.
    #[serde(default)]
    pub payload_record: Option<crate::dedup::PayloadRecord>,
}
