//! The crawl loop: one task owns the scheduler, the store, the WARC writer and the log; fetches
//! run as spawned tasks in a `JoinSet`. See the crate docs for the order of things.

use std::collections::{HashMap, HashSet, VecDeque};
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use freshet_fetch::links::LinkOptions;
use freshet_fetch::{FetchConfig, Fetcher, Validators};
use freshet_frontier::{
    CommitReport, Discovery, FrontierStore, HostPoliteness, Op, RedbOptions, RedbStore, RedisStore,
    SeenFilter, StoredPage, limits,
};
use freshet_schedule::online::{
    Budget, Decision, HostId, OnlineError, Outcome as Done, PageId, Politeness, Scheduler,
};
use freshet_url::{SeedScope, Url};
use freshet_warc::{WarcWriter, WriterOptions};
use tokio::sync::mpsc;
use tokio::task::{Id, JoinSet};
use tokio::time::Instant;

use freshet_content::{NearDuplicateIndex, Signature};

use crate::admin::{Admin, Request};
use crate::config::{CrawlConfig, StoreEngine};
use crate::dedup::{PayloadIndex, Reference};
use crate::error::{CrawlError, Result};
use crate::focus::FocusGate;
use crate::hosts::{HostState, Verdict};
use crate::importance::Weights;
use crate::job::{Job, JobKind, JobResult};
use crate::log::{CrawlLog, LogLine};
use crate::revisit::{HostRates, PageMemory, Revisit};

mod adapt;
mod complete;
mod shards;
pub(crate) use complete::{capture_refers_to, is_archived, log_time, with_capture};
pub(crate) mod sitemaps;
mod status;

/// Why a crawl ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// Nothing left to fetch: every page in scope was fetched, skipped or given up.
    Done,
    /// `max_pages` page requests were made.
    MaxPages,
    /// The stop signal came (Ctrl-C): fetches in flight were abandoned, and stay due in the
    /// store for `--resume`.
    Interrupted,
    /// The configured duration passed; fetches in flight were abandoned as for `Interrupted`.
    TimeUp,
}

/// What a crawl did, counted in this run.
#[derive(Clone, Debug, PartialEq)]
pub struct CrawlSummary {
    /// Why it ended.
    pub stopped: StopReason,
    /// Page requests made and recorded (any outcome).
    pub pages: u64,
    /// Of those, answers that were not 2xx or 304 (errors, redirects, throttling, failures).
    pub not_ok: u64,
    /// Jobs whose task panicked (a bug; each logged `internal-error` with its URL).
    pub internal_errors: u64,
    /// robots.txt requests made (redirect hops included).
    pub robots: u64,
    /// URLs not requested because robots.txt disallows them.
    pub skipped: u64,
    /// URLs not requested because their host's addresses are refused (loopback, private…
    /// without `allow_private`).
    pub refused: u64,
    /// New URLs not admitted because their host had `host_quota` pages already.
    pub over_quota: u64,
    /// URLs not admitted because their host came after `max_hosts_per_domain` others of its
    /// registered domain (a wildcard-DNS trap, say): each new one, and each link found to a
    /// host the domain's full count kept out of the store (such links are not remembered, so
    /// one linked twice counts twice).
    pub over_domain_quota: u64,
    /// Links and redirect targets not followed because they are longer than the frontier
    /// store keeps (a URL over 8 KiB; see `storable_url`).
    pub too_long: u64,
    /// URLs not requested because a one-pass crawl gave their host up: it asked (429/503
    /// `Retry-After`) to be left alone for longer than `max_retry_after`.
    pub throttled_out: u64,
    /// Page starts put off because their host's robots.txt checks had used up the host's
    /// allowance of octets scanned (a robots.txt of wildcard rules against long paths; see
    /// `hosts::ScanAllowance`): the page is checked, and fetched if allowed, once the allowance
    /// has refilled (a page may wait more than once).
    pub robots_deferred: u64,
    /// New URLs admitted to the frontier (seeds included).
    pub discovered: u64,
    /// Body bytes received.
    pub bytes: u64,
    /// Pages given back by the store's recovery (in flight when the last run died).
    pub recovered_in_flight: u64,
    /// Bytes of torn WARC records cut away when the writer reopened its files.
    pub warc_bytes_cut: u64,
    /// Bytes of a torn last line cut from `crawl.jsonl` when it was reopened.
    pub log_bytes_cut: u64,
    /// Complete 2xx answers whose body the archive already held, written as WARC revisit
    /// records (profile identical-payload-digest; see [`crate::dedup`]): an unchanged page
    /// fetched again, or the same body under another URL.
    pub identical_payloads: u64,
    /// Of those, bodies first captured under another URL (duplicates across URLs).
    pub duplicates: u64,
    /// URLs handed to other shards of a sharded crawl (see [`CrawlConfig::shard`]): each sent
    /// once while this shard remembers it.
    pub handed_over: u64,
    /// URLs other shards handed to this one, read from its inbox (repeats included: the store
    /// admits each URL once, and `discovered` counts it then).
    pub handed_in: u64,
    /// OPIC cash handovers sent to other shards: each second's shares for each of their
    /// pages that links from pages fetched here lead to, summed, and the virtual page's cash
    /// kept for their pages (see `crawler::shards`).
    pub cash_handed_over: u64,
    /// OPIC cash handovers read from this shard's inbox.
    pub cash_handed_in: u64,
    /// Pages whose first fetch's main text nearly repeats (SimHash within 3 of 64 bits) a
    /// page fetched before under another URL (see [`crate::dedup`]); the log line names it.
    pub near_duplicates: u64,
    /// Known pages a sitemap said changed after their last fetch (a `<lastmod>` later than
    /// it): each made due at once, as a page never fetched (see `crawler::sitemaps`).
    pub sitemap_changes: u64,
    /// Of the fetches those made, the ones that found the content changed (a comparison was
    /// possible and the sitemap was right).
    pub sitemap_changes_confirmed: u64,
    /// Reads of a host's sitemaps begun after its first in this run
    /// ([`CrawlConfig::sitemap_revisit`]).
    pub sitemap_rereads: u64,
    /// Sitemap files that answered a conditional request with 304: unchanged since their last
    /// read, so neither sent nor parsed again (see `crawler::sitemaps::SitemapFile`).
    pub sitemap_not_modified: u64,
    /// Hosts whose `<lastmod>`s were found mostly wrong and are ignored for the rest of the
    /// run (see `crawler::sitemaps::LastmodTrust`).
    pub sitemap_lastmods_ignored: u64,
    /// Known pages a read of a host whose `<lastmod>`s have proved right listed as unchanged
    /// since their copy: each copy's age counted from the read, as after a 304.
    pub sitemap_vouched: u64,
    /// Fetches of vouched pages whose Last-Modified showed a change the sitemap missed.
    pub sitemap_misses: u64,
    /// A focused crawl's bandit: each arm (estimator) and the pages it chose whose fetch
    /// rewarded it (empty without a bandit).
    pub focus_arm_pulls: Vec<(String, u64)>,
    /// Fetches of pages whose `<link rel=canonical>` named another URL of their host (see
    /// [`CrawlConfig::revisit_canonical_aliases`]): such a page is not revisited unless that
    /// is set, so each counts once then.
    pub canonical_aliases: u64,
}

/// A crawl, opened on its data directory and ready to [`run`](Crawler::run).
pub struct Crawler {
    config: CrawlConfig,
    /// The robots.txt user agent. Shared (`Arc`), not a `String`: it is cloned out of the
    /// crawler for every admitted link's robots verdict (the borrow of its host's state is
    /// mutable), which was an allocation and a copy a link.
    agent: Arc<str>,
    fetcher: Fetcher,
    /// How page jobs extract links (the robots meta named after `agent` counts).
    link_options: Arc<LinkOptions>,
    /// The store behind the seen-URL index: a link to a URL seen before is answered in memory
    /// (one hash probe, ~23 bytes a URL), only new URLs reach redb. The index is rebuilt by
    /// `rebuild`'s scan of the store, so a resume reads the store once.
    store: SeenFilter<Box<dyn FrontierStore>>,
    scheduler: Scheduler,
    warc: WarcWriter,
    warc_dirty: bool,
    /// The payloads written as `response` records, to find another URL's identical body (see
    /// [`crate::dedup`]); rebuilt from the page memories by `rebuild`.
    payloads: PayloadIndex,
    /// The main texts' SimHashes, one page of each group of near-duplicates, to find the page
    /// a new one nearly repeats (see [`crate::dedup`]); rebuilt from the page records by
    /// `rebuild`.
    near_duplicates: NearDuplicateIndex,
    log: CrawlLog,
    hosts: Vec<Option<HostState>>,
    /// What the seeds (this run's and earlier runs') put in scope: a link is checked against
    /// all of them by hash lookups, not a pass over them.
    seeds: SeedScope,
    /// Hosts declared so far by registered domain (a host without one under its own name),
    /// for `max_hosts_per_domain`.
    domain_hosts: HashMap<Box<str>, u32>,
    /// The origins (`origin_key`) of this run's seeds, whose hosts are crawled whatever
    /// `max_hosts_per_domain` says (an earlier run's are marked `seeded` by `rebuild`).
    seed_origins: HashSet<String>,
    /// Some registered domain has `max_hosts_per_domain` hosts: `discover` checks links'
    /// domains from then on (see [`Crawler::refused_by_domain_limit`]).
    some_domain_full: bool,
    /// The full domains whose refused links `discover` has logged in this run (once each).
    refusals_logged: HashSet<Box<str>>,
    /// The origin (scheme, host, port) of the last link `refused_by_domain_limit` let through.
    last_passed: Option<(String, String, u16)>,
    /// `config.include` and `config.exclude`, each matched in one pass (see [`Patterns`]).
    include: Patterns,
    exclude: Patterns,
    jobs: JoinSet<JobResult>,
    in_flight: HashMap<Id, Job>,
    pending: Vec<Op>,
    pending_urls: Vec<Url>,
    back_offs: HashMap<PageId, u32>,
    /// Redirect targets not yet fetched, with the URLs of the chain that led to them (at most
    /// `fetch.max_redirects`): a target that redirects again extends its chain, so a loop or an
    /// endless chain is seen and stopped (see `complete`). Only targets new to the frontier and
    /// scheduled keep an entry (one seen before cannot extend a chain without end), until
    /// fetched. The store keeps each target's trail in its record until its first fetch, and
    /// `rebuild` reads them back, so a resumed crawl continues its chains.
    redirect_trails: HashMap<String, Vec<String>>,
    /// Each host's pooled change-rate prior (indexed by host id).
    host_rates: Vec<HostRates>,
    /// Page importance (OPIC by default).
    weights: Weights,
    /// A focused crawl's estimates and held pages (see [`crate::focus`]).
    focus: Option<FocusGate>,
    /// Pages whose fetch just named another URL of their host as canonical (set by the page's
    /// completion, read by `finish_page`).
    canonical_aliases: HashSet<PageId>,
    /// This shard's part in a sharded crawl (`None`: the crawl is one process).
    shards: Option<shards::Shards>,
    /// In a focused crawl, the anchor score of each URL of `pending_urls` found as a page's
    /// link (by index; shorter when the last URLs are not links: those score 0).
    link_scores: Vec<f64>,
    /// Pages fetched since the last commit whose links go to the importance estimator once the
    /// commit has given them ids: the page and the range of its links in `pending_urls`.
    link_sources: Vec<(PageId, std::ops::Range<usize>)>,
    /// Sitemap entries with a `<lastmod>` since the last commit: the index of the entry's URL
    /// in `pending_urls`, the instant (Unix seconds) and when the sitemap was read, checked
    /// once the commit has given the URL its id.
    sitemap_lastmods: Vec<(usize, crate::revisit::SitemapTold)>,
    /// Known pages a sitemap said changed, made due at once and not fetched since (set by
    /// `sitemap_changes`, taken by `finish_page`). In memory only: a crash loses at most the
    /// sitemap's word, and the page's next fetch is observed as any other.
    sitemap_told: HashMap<PageId, sitemaps::Told>,
    /// When each host's sitemaps are due to be read again (Unix seconds as bits, with the
    /// host's id; see `Crawler::wake_sitemap_reads`), earliest first.
    sitemap_timers: std::collections::BinaryHeap<std::cmp::Reverse<(u64, u32)>>,
    /// Pages whose copy a trusted sitemap read vouched for since their last fetch (a bit per
    /// page id, grown on demand; see `Crawler::vouch`), checked by that fetch. A bit, not a
    /// set of ids: a proved sitemap may vouch for every page of a large crawl, and 10^7 pages
    /// take 1.25 MB this way. In memory only.
    vouched: fixedbitset::FixedBitSet,
    /// Each page's kept out-links at its last fetch with content (indexed by page id), passed
    /// again when it answers 304 (no body, same links). In memory only: 4 bytes a link.
    link_cache: Vec<Box<[u32]>>,
    /// Questions from [`Admin`] handles, and the sender they are cloned from.
    admin_sender: mpsc::Sender<Request>,
    admin_requests: mpsc::Receiver<Request>,
    /// Pages in the scheduler when `λ_0` was last re-solved over all of them.
    pages_at_solve: usize,
    /// When this run started, and the page fetch starts of the last ten seconds.
    started: Instant,
    recent_starts: VecDeque<Instant>,
    page_requests: u64,
    summary: CrawlSummary,
}

/// How long a page picked while its host's robots.txt is in flight waits before it is offered
/// again (only with more than one slot per host).
const ROBOTS_WAIT: Duration = Duration::from_millis(5);

/// Seconds since the Unix epoch: the scheduler's and the store's time (see the crate docs).
pub(crate) fn unix_now() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |since| since.as_secs_f64())
}

impl Crawler {
    /// `DIR/frontier.redb`, after the checks that a new crawl finds none and a resumed one
    /// finds one; its in-flight pages given back.
    fn open_redb(config: &CrawlConfig) -> Result<(Box<dyn FrontierStore>, u64)> {
        let store_path = config.store_path();
        match (config.resume, store_path.exists()) {
            (false, true) => return Err(CrawlError::AlreadyStarted { path: store_path }),
            (true, false) => return Err(CrawlError::NothingToResume { path: store_path }),
            (false, false) if config.seeds.is_empty() => return Err(CrawlError::NoSeeds),
            _ => {}
        }
        std::fs::create_dir_all(config.warc_dir()).map_err(CrawlError::io(config.warc_dir()))?;
        let created = !store_path.exists();
        let store_options = RedbOptions { cache_bytes: config.store_cache_bytes, ..RedbOptions::default() };
        let mut store = match RedbStore::open_with(&store_path, store_options) {
            Ok(store) => store,
            Err(source) => {
                // A store this run created but could not set up (a full disk) holds nothing
                // yet: it goes, so that the same command can be run again once there is room
                // (left, it would read as a crawl already started, without the seeds).
                if created {
                    let _ = std::fs::remove_file(&store_path);
                }
                return Err(CrawlError::StoreOpen { path: store_path, source });
            }
        };
        let recovered = store.recover()?;
        Ok((Box::new(store), recovered))
    }

    /// The Redis frontier of `options`, with the same checks as [`Self::open_redb`] (a prefix
    /// that holds a host or a page holds a crawl).
    fn open_redis(
        config: &CrawlConfig,
        options: &freshet_frontier::RedisOptions,
    ) -> Result<(Box<dyn FrontierStore>, u64)> {
        // A shard's frontier has a prefix of its own (see `freshet_frontier::ShardPlan::prefix`).
        let options = match config.shard {
            Some(plan) => {
                &freshet_frontier::RedisOptions { prefix: plan.prefix(&options.prefix), ..options.clone() }
            }
            None => options,
        };
        let (url, prefix) = (options.url.clone(), options.prefix.clone());
        let mut store = RedisStore::open(options.clone()).map_err(|source| CrawlError::RedisStoreOpen {
            url: url.clone(),
            prefix: prefix.clone(),
            source,
        })?;
        let counts = store.counts()?;
        let started = counts.hosts + counts.discovered + counts.in_flight + counts.fetched > 0;
        match (config.resume, started) {
            (false, true) => return Err(CrawlError::RedisAlreadyStarted { url, prefix }),
            (true, false) => return Err(CrawlError::RedisNothingToResume { url, prefix }),
            (false, false) if config.seeds.is_empty() => return Err(CrawlError::NoSeeds),
            _ => {}
        }
        let recovered = store.recover()?;
        Ok((Box::new(store), recovered))
    }

    /// Opens (or, with `resume`, reopens) the crawl in `config.data_dir`: the store (recovering
    /// in-flight pages), the WARC writer (cutting a torn tail), the log; rebuilds the scheduler
    /// from the store and admits the seeds.
    ///
    /// # Errors
    /// [`CrawlError::InvalidConfig`], [`CrawlError::NoSeeds`], [`CrawlError::AlreadyStarted`],
    /// [`CrawlError::NothingToResume`] (and their Redis twins, with
    /// [`CrawlError::RedisStoreOpen`]), and any I/O, store or WARC error.
    pub fn open(config: CrawlConfig) -> Result<Self> {
        config.validate()?;
        let (store, recovered_in_flight) = match &config.store {
            StoreEngine::Redb => Self::open_redb(&config)?,
            StoreEngine::Redis(options) => Self::open_redis(&config, options)?,
        };
        let shards = match (&config.store, config.shard) {
            (StoreEngine::Redis(options), Some(plan)) => Some(shards::Shards::new(
                freshet_frontier::ShardExchange::new(&options.url, &options.prefix, plan),
                matches!(config.importance, crate::Importance::Opic),
            )),
            _ => None,
        };
        let mut store = SeenFilter::new(store);
        store.reserve_for_store()?;
        std::fs::create_dir_all(config.warc_dir()).map_err(CrawlError::io(config.warc_dir()))?;
        let options = WriterOptions {
            max_file_bytes: config.warc_max_file_bytes,
            gzip_level: config.warc_gzip_level,
            warcinfo_fields: vec![("robots".into(), "obey".into())],
            ..WriterOptions::default()
        };
        let (warc, recovery) = WarcWriter::open(&config.warc_dir(), options)?;
        let (log, log_bytes_cut) = CrawlLog::open(&config.log_path())?;
        let scheduler =
            Scheduler::freshness(Budget::new(config.rate))?.with_host_slots(config.max_in_flight_per_host);
        let (admin_sender, admin_requests) = mpsc::channel(16);
        let mut crawler = Self {
            agent: Arc::from(config.robots_agent()),
            link_options: Arc::new(LinkOptions {
                robots_agent: Some(config.robots_agent()),
                // A focused crawl scores links by their anchors' words.
                anchor_text: config.focus.is_some(),
                ..LinkOptions::default()
            }),
            // As many connections kept per host as requests may be in flight to it.
            fetcher: Fetcher::new(FetchConfig {
                max_idle_per_host: usize::try_from(config.max_in_flight_per_host).unwrap_or(usize::MAX),
                max_in_flight_per_ip: config.max_in_flight_per_ip_of_shard(),
                ..config.fetch.clone()
            })?,
            store,
            scheduler,
            warc,
            warc_dirty: false,
            payloads: PayloadIndex::new(config.duplicate_index_entries),
            near_duplicates: NearDuplicateIndex::new(config.near_duplicate_index_entries),
            log,
            hosts: Vec::new(),
            seeds: SeedScope::new(config.scope),
            domain_hosts: HashMap::new(),
            seed_origins: config.seeds.iter().map(freshet_url::origin_key).collect(),
            some_domain_full: false,
            refusals_logged: HashSet::new(),
            last_passed: None,
            include: Patterns::new(&config.include),
            exclude: Patterns::new(&config.exclude),
            jobs: JoinSet::new(),
            in_flight: HashMap::new(),
            pending: Vec::new(),
            pending_urls: Vec::new(),
            back_offs: HashMap::new(),
            redirect_trails: HashMap::new(),
            host_rates: Vec::new(),
            weights: {
                let mut weights = Weights::new(&config.importance);
                weights.set_shards(config.shard.map_or(1, |plan| plan.count()));
                weights
            },
            focus: config
                .focus
                .as_ref()
                .map(|focus| FocusGate::new(focus, config.max_in_flight_per_host))
                .transpose()?,
            link_scores: Vec::new(),
            canonical_aliases: HashSet::new(),
            shards,
            sitemap_told: HashMap::new(),
            sitemap_timers: std::collections::BinaryHeap::new(),
            vouched: fixedbitset::FixedBitSet::new(),
            link_sources: Vec::new(),
            sitemap_lastmods: Vec::new(),
            link_cache: Vec::new(),
            admin_sender,
            admin_requests,
            pages_at_solve: 0,
            started: Instant::now(),
            recent_starts: VecDeque::new(),
            page_requests: 0,
            summary: CrawlSummary {
                stopped: StopReason::Done,
                pages: 0,
                not_ok: 0,
                internal_errors: 0,
                robots: 0,
                skipped: 0,
                refused: 0,
                over_quota: 0,
                over_domain_quota: 0,
                too_long: 0,
                throttled_out: 0,
                robots_deferred: 0,
                discovered: 0,
                bytes: 0,
                recovered_in_flight,
                warc_bytes_cut: recovery.bytes_cut(),
                log_bytes_cut,
                identical_payloads: 0,
                near_duplicates: 0,
                sitemap_changes: 0,
                sitemap_changes_confirmed: 0,
                sitemap_rereads: 0,
                sitemap_not_modified: 0,
                sitemap_lastmods_ignored: 0,
                sitemap_vouched: 0,
                sitemap_misses: 0,
                duplicates: 0,
                focus_arm_pulls: Vec::new(),
                canonical_aliases: 0,
                handed_over: 0,
                handed_in: 0,
                cash_handed_over: 0,
                cash_handed_in: 0,
            },
            config,
        };
        crawler.rebuild()?;
        let seeds = crawler.config.seeds.clone();
        for seed in &seeds {
            crawler.seeds.add(seed);
        }
        for seed in seeds {
            crawler.discover(seed, 0, None)?;
        }
        crawler.settle()?;
        Ok(crawler)
    }

    /// Rebuilds the scheduler from the store (its documented resume recipe): hosts first, then
    /// every page with a due time. The seeds of earlier runs (depth 0) join the scope. The same
    /// scan refills the seen-URL index.
    fn rebuild(&mut self) -> Result<()> {
        let now = unix_now();
        let mut after = None;
        while let Some(last) = {
            let hosts = self.store.hosts(after, 1024)?;
            for host in &hosts {
                self.declare_host(host.id, &host.key, host.politeness, true)?;
            }
            hosts.last().map(|host| host.id)
        } {
            after = Some(last);
        }
        let mut after = None;
        loop {
            let pages = self.store.pages(after, 1024)?;
            let Some(last) = pages.last().map(|page| page.id) else { break };
            self.store.remember(&pages);
            for page in pages {
                if page.record.depth == 0 {
                    self.seeds.add(&parse_stored(&page)?);
                }
                let record = &page.record;
                let state = self.host_mut(record.host)?;
                state.pages += 1;
                state.seeded |= record.depth == 0;
                let memory = PageMemory::from_bytes(&record.estimator)
                    .map_err(|source| CrawlError::StoredMemory { page: page.id.0, source })?;
                self.weights.restore(page.id.0, memory.opic_history);
                if let Some(capture) = memory.capture.filter(|capture| capture.page == page.id) {
                    self.payloads.insert(capture);
                }
                // A fetched page's signature (an HTML page's fingerprint), unless it nearly
                // repeats one indexed already, as at its fetch.
                if record.last_fetch.is_some()
                    && let Ok(signature) = Signature::from_bytes(&record.fingerprint)
                    && self.near_duplicates.find(&signature).is_none()
                {
                    self.near_duplicates.insert(&signature, page.id.0);
                }
                if record.next_due.is_none() {
                    continue;
                }
                if record.last_fetch.is_none() && !record.redirect_trail.is_empty() {
                    self.redirect_trails.insert(page.url.clone(), record.redirect_trail.clone());
                }
                if memory.history.intervals() > 0 {
                    self.host_rates_mut(record.host).add(record.change_rate);
                }
                match record.last_fetch {
                    None if self.focus.is_some() => {
                        let released = match &mut self.focus {
                            Some(gate) => {
                                gate.add_page(page.id, record.depth);
                                gate.offer(page.id, record.host)
                            }
                            None => Vec::new(),
                        };
                        self.focus_release(&released, record.host, now)?;
                    }
                    None => {
                        let (weight, change_rate) = self.initial_parameters(page.id, record.host, &page.url);
                        self.scheduler.add(page.id, record.host, weight, change_rate, now)?
                    }
                    Some(last) => self.scheduler.restore(
                        page.id,
                        record.host,
                        record.weight,
                        record.change_rate,
                        last,
                        now,
                    )?,
                }
                self.host_mut(record.host)?.unchecked.push(page.id);
            }
            after = Some(last);
        }
        Ok(())
    }

    /// Declares a host to the scheduler with the larger of the configured delay and the stored
    /// one (a `Crawl-delay` seen before); `restored`: the host comes from the store (a resumed
    /// crawl), and its first request waits (see the body).
    fn declare_host(
        &mut self,
        host: HostId,
        key: &str,
        stored: HostPoliteness,
        restored: bool,
    ) -> Result<()> {
        let origin = freshet_url::canonicalize(key).map_err(|source| CrawlError::StoredUrl {
            page: host.0,
            url: key.to_owned(),
            source,
        })?;
        let robots_url = freshet_url::resolve(&origin, "/robots.txt")
            .map_err(|source| CrawlError::StoredUrl { page: host.0, url: key.to_owned(), source })?;
        let delay = self.config.delay.max(Duration::try_from_secs_f64(stored.min_delay).unwrap_or_default());
        self.scheduler
            .set_host(host, Politeness { min_delay: delay.as_secs_f64(), max_rate: f64::INFINITY })?;
        let index = host.0 as usize;
        if self.hosts.len() <= index {
            self.hosts.resize_with(index + 1, || None);
        }
        let scan_rate = usize::try_from(self.config.robots_scan_rate).unwrap_or(usize::MAX);
        let mut state = HostState::new(robots_url, delay, scan_rate);
        // A delay raised by pushbacks in an earlier run resumes, above the configured floor.
        state.capacity = crate::capacity::HostCapacity::resumed(self.config.delay, delay);
        // A host of an earlier run: the previous run's last request plus its delay, saved when
        // it stopped cleanly; else (a run killed with -9 saves nothing, and may have called on
        // the host just before it died) a whole delay from now. A host new in this run has
        // had no request from us.
        if restored {
            let now = unix_now();
            let wait = stored
                .blocked_until
                .and_then(|until| Duration::try_from_secs_f64(until - now).ok())
                .map_or(delay, |wait| wait.min(delay));
            state.not_before = Some(Instant::now() + wait);
            // A pause longer than the delay is what the host asked for (`Retry-After`): its
            // checks wait for it (a one-pass crawl gives up a host that asked for more than
            // `max_retry_after`, as it did before the stop).
            if let Some(until) = stored.blocked_until.filter(|&until| until > now + delay.as_secs_f64()) {
                state.retry_after_until = Some(until);
                let once = self.config.revisit == Revisit::Once;
                state.throttled_out = once && until - now > self.config.max_retry_after.as_secs_f64();
            }
        }
        // Hosts are declared in the order they were found (a resumed crawl declares the
        // stored ones in id order, that order), so the same hosts are beyond the limit in
        // every run.
        let name = origin.host_str().unwrap_or(key);
        let domain = freshet_url::registered_domain(name).unwrap_or(name);
        let found = self.domain_hosts.entry(domain.into()).or_insert(0);
        *found = found.saturating_add(1);
        let limit = self.config.max_hosts_per_domain_of_shard();
        state.beyond_domain_limit = limit > 0 && *found > limit;
        self.some_domain_full |= limit > 0 && *found >= limit;
        self.hosts[index] = Some(state);
        Ok(())
    }

    /// The pooled change-rate prior of `host` (grown on demand: hosts are dense ids).
    pub(crate) fn host_rates_mut(&mut self, host: HostId) -> &mut HostRates {
        let index = host.0 as usize;
        if self.host_rates.len() <= index {
            self.host_rates.resize(index + 1, HostRates::default());
        }
        &mut self.host_rates[index]
    }

    pub(crate) fn host_mut(&mut self, host: HostId) -> Result<&mut HostState> {
        self.hosts
            .get_mut(host.0 as usize)
            .and_then(Option::as_mut)
            .ok_or(CrawlError::Missing { what: "host", id: host.0 })
    }

    /// A handle to ask the running crawl for its status and to explain a page.
    #[must_use]
    pub fn admin(&self) -> Admin {
        Admin { sender: self.admin_sender.clone() }
    }

    /// Runs the crawl until nothing is left, `max_pages` is reached, or `stop` completes
    /// (Ctrl-C); then syncs the WARC, writes out the log, commits the store and closes the files.
    ///
    /// # Errors
    /// A store, WARC, log or scheduler failure: the crawl stops at once (what was committed
    /// stays, and `--resume` continues from it).
    pub async fn run(mut self, stop: impl Future<Output = ()>) -> Result<CrawlSummary> {
        tokio::pin!(stop);
        let deadline = self.config.duration.map(|duration| Instant::now() + duration);
        let mut stopping = false;
        self.say_busy()?;
        loop {
            let mut wait = None;
            let mut idle = false;
            if !stopping {
                self.read_inbox(unix_now())?;
            }
            // A focused crawl: hosts whose new pages' fetches ended take their next pages once
            // the links those fetches found are committed and learned (the commit's `admit`
            // tops them up; with nothing to commit, here).
            if self.focus.as_ref().is_some_and(FocusGate::has_deferred) {
                if !self.pending.is_empty() {
                    self.settle()?;
                }
                self.focus_top_up(unix_now())?;
            }
            let sitemap_due = if stopping { None } else { self.wake_sitemap_reads(unix_now())? };
            while !stopping && !self.page_limit_reached() && self.jobs.len() < self.config.max_in_flight {
                let now = unix_now();
                match self.scheduler.next(now) {
                    Decision::Fetch { page, host } => self.start(page, host, now)?,
                    Decision::WaitUntil(at) => {
                        wait = Some(at);
                        break;
                    }
                    Decision::Idle => {
                        idle = true;
                        break;
                    }
                }
            }
            if !self.pending.is_empty() {
                self.settle()?;
            }
            if self.jobs.is_empty() {
                // In a focused crawl the scheduler holds a host's new pages only while the gate
                // releases them; with nothing in the scheduler or in flight, none is out.
                if idle
                    && self.scheduler.is_empty()
                    && !stopping
                    && !self.page_limit_reached()
                    && self.release_stranded(unix_now())?
                {
                    continue;
                }
                if stopping || self.page_limit_reached() {
                    break;
                }
                if idle && self.scheduler.is_empty() {
                    // Over, unless other shards may still hand this one URLs: then wait for
                    // the inbox's next read.
                    if self.crawl_is_over()? {
                        break;
                    }
                    wait = self.next_inbox_poll();
                }
                // Idle with pages left: every page is worth less than λ_0 at any age until λ_0
                // falls (the budget controller lowers it while the budget goes unused). Look
                // again shortly.
                if wait.is_none() {
                    wait = Some(unix_now() + 0.05);
                }
            }
            // A host's sitemap read falling due wakes the loop, to lend it a page's turn; so
            // does the inbox's next read in a sharded crawl.
            let wake = |wait: Option<f64>, other: Option<f64>| match (wait, other) {
                (Some(at), Some(due)) => Some(at.min(due)),
                (at, due) => at.or(due),
            };
            let wait = wake(wake(wait, sitemap_due), if stopping { None } else { self.next_inbox_poll() });
            let sleep = wait.map(|at| Duration::try_from_secs_f64(at - unix_now()).unwrap_or_default());
            tokio::select! {
                biased;
                () = &mut stop, if !stopping => {
                    stopping = true;
                    self.abandon(StopReason::Interrupted)?;
                }
                () = tokio::time::sleep_until(deadline.unwrap_or_else(Instant::now)), if deadline.is_some() && !stopping => {
                    stopping = true;
                    self.abandon(StopReason::TimeUp)?;
                }
                Some(joined) = self.jobs.join_next_with_id() => {
                    self.joined(joined)?;
                    while let Some(joined) = self.jobs.try_join_next_with_id() {
                        self.joined(joined)?;
                    }
                    self.settle()?;
                }
                Some(request) = self.admin_requests.recv() => self.answer(request),
                () = tokio::time::sleep(sleep.unwrap_or_default()), if sleep.is_some() => {}
            }
        }
        while let Some(joined) = self.jobs.join_next_with_id().await {
            self.joined(joined)?;
        }
        self.save_host_turns();
        self.settle()?;
        if self.summary.stopped == StopReason::Done && self.page_limit_reached() {
            self.summary.stopped = StopReason::MaxPages;
        }
        // Over or stopped, this shard takes nothing more until it is resumed.
        self.say_left()?;
        self.warc.finish()?;
        self.log.flush()?;
        if let Some(gate) = &self.focus {
            self.summary.focus_arm_pulls =
                gate.arm_pulls().into_iter().map(|(arm, pulls)| (arm.name().to_owned(), pulls)).collect();
        }
        Ok(self.summary)
    }

    /// Stops for `reason`: the fetches in flight are abandoned (they stay due in the store).
    fn abandon(&mut self, reason: StopReason) -> Result<()> {
        self.summary.stopped = reason;
        self.jobs.abort_all();
        // An abandoned request may have reached its server just now.
        let hosts: Vec<HostId> = self.in_flight.values().map(|job| job.host).collect();
        for host in hosts {
            let state = self.host_mut(host)?;
            state.not_before = Some(Instant::now() + state.delay);
        }
        Ok(())
    }

    /// Stores, for every host still owed a pause, when its next request may start
    /// (`blocked_until`): its delay after the last request, or the end of the pause its
    /// `Retry-After` asked for, whichever is later; so that a run resumed at once keeps both.
    fn save_host_turns(&mut self) {
        let (now, clock) = (unix_now(), Instant::now());
        for (index, state) in self.hosts.iter().enumerate() {
            let Some(state) = state else { continue };
            let turn = state
                .not_before
                .and_then(|at| at.checked_duration_since(clock))
                .map(|wait| now + wait.as_secs_f64());
            let asked = state.retry_after_until.filter(|&until| until > now);
            let blocked_until = match (turn, asked) {
                (Some(turn), Some(asked)) => Some(turn.max(asked)),
                (turn, asked) => turn.or(asked),
            };
            let Some(blocked_until) = blocked_until else { continue };
            let politeness = HostPoliteness {
                min_delay: state.delay.as_secs_f64(),
                max_rate: f64::INFINITY,
                blocked_until: Some(blocked_until),
            };
            self.pending.push(Op::SetHost { host: HostId(index as u32), politeness });
        }
    }

    fn page_limit_reached(&self) -> bool {
        self.config.max_pages.is_some_and(|max| self.page_requests >= max)
    }

    /// Acts on the scheduler's decision to fetch `page` now: robots.txt first if the host's is
    /// not known, a skip if it disallows the page, else the page.
    fn start(&mut self, page: PageId, host: HostId, now: f64) -> Result<()> {
        let stored = self.store.page(page)?.ok_or(CrawlError::Missing { what: "page", id: page.0 })?;
        let url = parse_stored(&stored)?;
        let agent = self.agent.clone();
        let state = self.host_mut(host)?;
        let (not_before, delay) = (state.not_before, state.delay);
        let verdict = state.verdict(&agent, freshet_url::path_and_query(&url), now);
        state.sitemaps.last_page = Some(page);
        // The host's queued sitemaps go first, each in a page's slot (see `sitemaps`).
        if matches!(verdict, Verdict::Allowed | Verdict::Disallowed | Verdict::TooComplex)
            && self.start_sitemap(page, host, now)?
        {
            return Ok(());
        }
        let kind = match verdict {
            Verdict::Allowed => {
                self.page_requests += 1;
                self.note_start(Instant::now());
                let record = stored.record;
                let boilerplate = Arc::clone(&self.host_mut(host)?.boilerplate_set);
                let memory = PageMemory::from_bytes(&record.estimator)
                    .map_err(|source| CrawlError::StoredMemory { page: page.0, source })?;
                let held = match memory.capture {
                    Some(capture) if capture.page == page => Some(Reference { capture, other_url: None }),
                    // Another page's record: its URL, read now (a page gone from the store is
                    // no record to refer to).
                    Some(capture) => {
                        self.page_url(capture.page)?.map(|url| Reference { capture, other_url: Some(url) })
                    }
                    None => None,
                };
                JobKind::Page {
                    depth: record.depth,
                    last_fetch: record.last_fetch,
                    validators: Validators { etag: record.etag, last_modified: record.last_modified },
                    memory: Box::new(memory),
                    fingerprint: record.fingerprint,
                    weight: record.weight,
                    change_rate: record.change_rate,
                    boilerplate,
                    main_text: self.config.main_text,
                    held,
                }
            }
            // With more than one slot per host, another page of the host may be picked while
            // its robots.txt is on the way: handed back for a moment, never fetched unchecked.
            Verdict::Unknown if self.host_mut(host)?.robots_in_flight => {
                let retry_after = ROBOTS_WAIT.as_secs_f64();
                self.scheduler.fetched(page, Done::BackOff { retry_after }, now)?;
                return Ok(());
            }
            Verdict::Unknown => {
                self.host_mut(host)?.robots_in_flight = true;
                JobKind::Robots
            }
            Verdict::WaitUntil(at) => {
                self.scheduler.fetched(page, Done::BackOff { retry_after: (at - now).max(0.0) }, now)?;
                return Ok(());
            }
            // The host's robots.txt checks used up their allowance: the host waits until a full
            // check can be afforded, and the page is checked then. The host's first put-off in
            // this run is logged, so that the log says what happened to it; the others are
            // only counted.
            Verdict::Deferred(at) => {
                self.summary.robots_deferred += 1;
                let retry_after = (at - now).max(0.0);
                let state = self.host_mut(host)?;
                if !std::mem::replace(&mut state.deferral_logged, true) {
                    let detail = deferral_detail(retry_after, self.config.robots_scan_rate);
                    self.log.write(&LogLine::deferred(url.as_str(), detail))?;
                }
                self.scheduler.fetched(page, Done::BackOff { retry_after }, now)?;
                return Ok(());
            }
            Verdict::Disallowed | Verdict::TooComplex | Verdict::Refused | Verdict::GivenUp => {
                self.skip(page, host, &url, verdict)?;
                return self.scheduler.fetched(page, Done::Failed, now).map_err(Into::into);
            }
        };
        let url = match kind {
            JobKind::Robots => self.host_mut(host)?.robots_url.clone(),
            JobKind::Page { .. } | JobKind::Sitemap(..) => url,
        };
        let warc = matches!(kind, JobKind::Page { .. }).then(|| self.warc.encoder());
        let job = Job { page, host, url, not_before, delay, warc, kind };
        let handle = self.jobs.spawn(job.clone().run(self.fetcher.clone(), Arc::clone(&self.link_options)));
        self.in_flight.insert(handle.id(), job);
        Ok(())
    }

    /// After how many unreachable robots.txt answers in a row a host's pages are given up:
    /// `max_failures` in a one-pass crawl (which would otherwise wait for the host's robots.txt
    /// for ever, retrying every `robots_cache.retry`); never in a revisiting crawl, which keeps
    /// retrying as RFC 9309 §2.3.1.4 describes.
    pub(crate) fn robots_attempts_before_giving_up(&self) -> Option<u32> {
        (self.config.revisit == Revisit::Once).then_some(self.config.max_failures)
    }

    /// Records that `page` will not be requested (robots.txt disallows it, or its host's
    /// addresses are refused): a `skipped` log line, never due again (the URL stays seen), out
    /// of the scheduler.
    pub(crate) fn skip(&mut self, page: PageId, host: HostId, url: &Url, verdict: Verdict) -> Result<()> {
        let (outcome, detail) = match verdict {
            Verdict::Refused => {
                self.summary.refused += 1;
                let detail = self.store.page(page)?.and_then(|stored| {
                    self.hosts.get(stored.record.host.0 as usize)?.as_ref()?.refused.clone()
                });
                ("address-refused", detail)
            }
            Verdict::GivenUp => {
                let host = self.store.page(page)?.map(|stored| stored.record.host);
                let throttled = host
                    .and_then(|host| self.hosts.get(host.0 as usize)?.as_ref())
                    .is_some_and(|state| state.throttled_out);
                if throttled {
                    self.summary.throttled_out += 1;
                    let detail = format!(
                        "the host asked to be left alone for longer than max-retry-after ({:?}): given up for this crawl",
                        self.config.max_retry_after
                    );
                    ("host-given-up", Some(detail))
                } else {
                    self.summary.skipped += 1;
                    ("robots-unreachable", Some("robots.txt unreachable, the host given up".to_owned()))
                }
            }
            Verdict::TooComplex => {
                self.summary.skipped += 1;
                ("robots-disallowed", Some(too_complex_detail()))
            }
            _ => {
                self.summary.skipped += 1;
                ("robots-disallowed", None)
            }
        };
        self.pending.push(Op::Release { page, next_due: None });
        match self.scheduler.remove(page) {
            // Not in the scheduler (yet, or any more): nothing to take out.
            Ok(()) | Err(OnlineError::UnknownPage(_)) => {}
            Err(error) => return Err(error.into()),
        }
        self.focus_settled(page, host)?;
        self.log.write(&LogLine::skipped(url.as_str(), outcome, detail))
    }

    /// Queues a discovered URL for the next commit, if it is in scope (checked against every
    /// seed), the store can keep it ([`storable_url`]; counted in `summary.too_long` if not)
    /// and it is not on a new host of a registered domain that already has
    /// `max_hosts_per_domain` hosts (see [`Crawler::refused_by_domain_limit`]).
    ///
    /// # Errors
    /// The store's lookup of the URL's host, or the crawl log's write of a refusal.
    pub(crate) fn discover(&mut self, url: Url, depth: u32, from: Option<PageId>) -> Result<()> {
        let is_seed = depth == 0 && from.is_none();
        if !is_seed && !self.follows(&url, depth) {
            return Ok(());
        }
        if !storable_url(&url) {
            self.summary.too_long += 1;
            return Ok(());
        }
        if self.hand_over(&url, depth, from) {
            return Ok(());
        }
        if !is_seed
            && self.some_domain_full
            && let Some(domain) = self.refused_by_domain_limit(&url)?
        {
            self.summary.over_domain_quota += 1;
            // One line a domain and run: such links are not remembered, and a trap repeats them.
            if self.refusals_logged.insert(domain) {
                let detail = format!(
                    "{}; links to the domain's other new hosts are not followed either, and are counted (over_domain_quota) without lines of their own in this run",
                    self.domain_limit_detail(&url)
                );
                self.log.write(&LogLine::skipped(url.as_str(), "domain-quota", Some(detail)))?;
            }
            return Ok(());
        }
        self.pending.push(Op::Discover(Discovery {
            url: url.as_str().to_owned(),
            host: freshet_url::origin_key(&url),
            weight: 1.0,
            change_rate: self.config.change_rate_prior,
            depth,
            discovered_from: from,
            due: unix_now(),
            redirect_trail: Vec::new(),
            metadata: Vec::new(),
        }));
        self.pending_urls.push(url);
        Ok(())
    }

    /// The registered domain of `url` when `url` is on a host the crawl does not know yet, of
    /// a domain that already has `max_hosts_per_domain` hosts: such a URL is refused before it
    /// reaches the store, so that a wildcard-DNS domain whose pages link new names without end
    /// adds neither host nor page records past the limit (the hosts declared beyond it in the
    /// commits that filled the domain are still marked by `declare_host`, and their URLs
    /// skipped in `admit`). Free until some domain is full: one flag read per link.
    ///
    /// The last origin that passed is remembered: a page's links are mostly to its own host,
    /// which then costs a comparison, not a public-suffix lookup and a store read per link.
    /// (Were that host new and its domain to fill later, the link would still be caught on
    /// admission, as the limit's first check does.)
    fn refused_by_domain_limit(&mut self, url: &Url) -> Result<Option<Box<str>>> {
        let name = url.host_str().unwrap_or_default();
        let port = url.port_or_known_default().unwrap_or(0);
        if self.last_passed.as_ref().is_some_and(|(scheme, host, last_port)| {
            scheme == url.scheme() && host == name && *last_port == port
        }) {
            return Ok(None);
        }
        let domain = freshet_url::registered_domain(name).unwrap_or(name);
        let limit = self.config.max_hosts_per_domain_of_shard();
        if self.domain_hosts.get(domain).is_none_or(|&found| found < limit) {
            self.last_passed = Some((url.scheme().to_owned(), name.to_owned(), port));
            return Ok(None);
        }
        let origin = freshet_url::origin_key(url);
        if self.seed_origins.contains(&origin) || self.store.host_by_key(&origin)?.is_some() {
            self.last_passed = Some((url.scheme().to_owned(), name.to_owned(), port));
            return Ok(None);
        }
        Ok(Some(domain.into()))
    }

    /// Whether a link at `depth` hops from a seed is followed: in scope of a seed, within
    /// `max_depth`, matching `include` (if any) and no `exclude`.
    fn follows(&self, url: &Url, depth: u32) -> bool {
        let text = url.as_str();
        self.config.max_depth.is_none_or(|max| depth <= max)
            && (self.include.is_empty() || self.include.any_match(text))
            && !self.exclude.any_match(text)
            && self.seeds.contains(url)
    }

    /// A finished (or aborted, or panicked) job.
    fn joined(&mut self, joined: std::result::Result<(Id, JobResult), tokio::task::JoinError>) -> Result<()> {
        let (id, result) = match joined {
            Ok((id, result)) => (id, Ok(result)),
            Err(error) => (error.id(), Err(error)),
        };
        let Some(job) = self.in_flight.remove(&id) else { return Ok(()) };
        match result {
            Ok(result) => self.complete(job, result),
            Err(error) if error.is_panic() => self.job_panicked(job, error),
            // Aborted at shutdown: the page was never marked started in the store, so it is due
            // again on resume. The scheduler is dropped with the crawler.
            Err(_) => Ok(()),
        }
    }

    /// A job whose task panicked (a bug, which some page's bytes reach: the link extractor once
    /// sliced through a character of a `<meta http-equiv=refresh>`): its URL gets an
    /// `internal-error` line with the panic's message, and the job completes as one whose
    /// request brought nothing (the host's slot is given back, the page counts a failure and
    /// is tried again up to `max_failures`), where the host's slot stayed taken for the rest
    /// of the run and none of its pages was fetched again, without a word. Nothing of the job
    /// was written: its records and log line are the control task's, after it.
    fn job_panicked(&mut self, job: Job, error: tokio::task::JoinError) -> Result<()> {
        let panic = error.into_panic();
        let message = panic
            .downcast_ref::<&str>()
            .map(|message| (*message).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_owned());
        let detail =
            format!("the fetch task panicked: {message} (a bug in freshet; please report it with this URL)");
        self.log.write(&LogLine::no_request(
            job.kind.log_kind(),
            job.url.as_str(),
            "internal-error",
            detail,
        ))?;
        self.summary.internal_errors += 1;
        self.complete(job, JobResult::nothing(Instant::now()))
    }

    /// The group commit: WARC synced first, then the log's lines handed to the OS, then one
    /// store transaction for every completion and discovery since the last one (the
    /// documented order: a page is never marked fetched before its records are durable, nor
    /// before its log line is written). A `kill -9` between the log and the store leaves lines
    /// whose pages are still due: they are fetched, and logged, again on resume; the other
    /// order lost the lines of pages already marked fetched, which were never fetched again.
    fn settle(&mut self) -> Result<()> {
        if self.warc_dirty {
            self.warc.sync()?;
            self.warc_dirty = false;
        }
        self.log.flush()?;
        // Before the commit of the completions whose links they are (see `shards`).
        self.send_handovers()?;
        if self.pending.is_empty() {
            return Ok(());
        }
        let ops = std::mem::take(&mut self.pending);
        let urls = std::mem::take(&mut self.pending_urls);
        let link_sources = std::mem::take(&mut self.link_sources);
        let link_scores = std::mem::take(&mut self.link_scores);
        let lastmods = std::mem::take(&mut self.sitemap_lastmods);
        let report = self.store.commit(&ops)?;
        self.sitemap_changes(&report, &urls, &lastmods)?;
        self.admit(&report, urls, link_sources, &link_scores)?;
        self.focus_top_up(unix_now())?;
        // `admit` logs the links it releases unfetched (robots.txt): those lines go out first too.
        self.log.flush()?;
        if !self.pending.is_empty() {
            let releases = std::mem::take(&mut self.pending);
            self.store.commit(&releases)?;
        }
        Ok(())
    }

    /// Declares the new hosts and hands the new pages to the scheduler, except those robots.txt
    /// already disallows (released at once: seen, never fetched).
    fn admit(
        &mut self,
        report: &CommitReport,
        urls: Vec<Url>,
        link_sources: Vec<(PageId, std::ops::Range<usize>)>,
        link_scores: &[f64],
    ) -> Result<()> {
        for (host, key) in &report.new_hosts {
            self.declare_host(*host, key, HostPoliteness::default(), false)?;
        }
        let now = unix_now();
        // Whether each admitted URL is a link the importance estimator should follow: not
        // disallowed by robots.txt (as far as known), not on a refused host.
        let mut followed = Vec::with_capacity(urls.len());
        let mut offers = Vec::new();
        for (admission, url) in report.admissions.iter().zip(&urls) {
            // A redirect target's chain is kept only while the target waits in the schedule.
            let trail = if self.redirect_trails.is_empty() {
                None
            } else {
                self.redirect_trails.remove(url.as_str())
            };
            let beyond_domain_limit = self.beyond_domain_limit(admission.host, url)?;
            let agent = self.agent.clone();
            let verdict =
                self.host_mut(admission.host)?.early_verdict(&agent, freshet_url::path_and_query(url), now);
            followed.push(
                !beyond_domain_limit
                    && !matches!(
                        verdict,
                        Verdict::Disallowed | Verdict::TooComplex | Verdict::Refused | Verdict::GivenUp
                    ),
            );
            if !admission.is_new {
                continue;
            }
            self.summary.discovered += 1;
            self.weights.add(admission.page.0);
            if beyond_domain_limit {
                self.summary.over_domain_quota += 1;
                self.pending.push(Op::Release { page: admission.page, next_due: None });
                let detail = self.domain_limit_detail(url);
                self.log.write(&LogLine::skipped(url.as_str(), "domain-quota", Some(detail)))?;
                continue;
            }
            let quota = self.config.host_quota;
            let state = self.host_mut(admission.host)?;
            state.pages += 1;
            if quota.is_some_and(|quota| state.pages > quota) {
                self.summary.over_quota += 1;
                self.pending.push(Op::Release { page: admission.page, next_due: None });
                self.log.write(&LogLine::skipped(url.as_str(), "host-quota", None))?;
                continue;
            }
            match verdict {
                Verdict::Disallowed | Verdict::TooComplex | Verdict::Refused | Verdict::GivenUp => {
                    self.skip(admission.page, admission.host, url, verdict)?;
                    continue;
                }
                Verdict::Unknown => self.host_mut(admission.host)?.unchecked.push(admission.page),
                Verdict::Allowed | Verdict::WaitUntil(_) | Verdict::Deferred(_) => {}
            }
            if self.focus.is_some() {
                // Offered once the estimates have learned this commit's links (below).
                offers.push((admission.page, admission.host));
            } else {
                let (weight, change_rate) =
                    self.initial_parameters(admission.page, admission.host, url.as_str());
                self.scheduler.add(admission.page, admission.host, weight, change_rate, now)?;
            }
            if let Some(trail) = trail {
                self.redirect_trails.insert(url.to_string(), trail);
            }
        }
        // Many new pages at once (a crawl's discovery): λ_0 is re-solved over all pages rather
        // than left to the sweep's bounded steps, which need a pass over the pages each.
        let pages = self.scheduler.len();
        if pages >= 16 + self.pages_at_solve + self.pages_at_solve / 4 {
            self.scheduler.resolve_lambda0();
            self.pages_at_solve = pages;
        }
        for (page, range) in link_sources {
            let kept: Vec<(u32, f64)> = range
                .filter(|&index| followed.get(index).copied().unwrap_or(false))
                .filter_map(|index| {
                    let admission = report.admissions.get(index)?;
                    Some((admission.page.0, link_scores.get(index).copied().unwrap_or(0.0)))
                })
                .collect();
            if self.focus.is_some() {
                self.focus_learn(page, &kept)?;
            }
            let links: Vec<u32> = kept.into_iter().map(|(link, _)| link).collect();
            self.follow_links(page, links.into_boxed_slice(), false);
        }
        let released = match &mut self.focus {
            Some(gate) => gate.offer_batch(&offers),
            None => Vec::new(),
        };
        for (host, pages) in released {
            self.focus_release(&pages, host, now)?;
        }
        Ok(())
    }

    /// A focused crawl learns `page`'s fetch (its score, noted at its completion, and its kept
    /// links with their anchor scores); the pages whose weight moved and that the scheduler
    /// has get their new weight there. A redirect passes its links on to its target instead.
    fn focus_learn(&mut self, page: PageId, links: &[(u32, f64)]) -> Result<()> {
        let Some(gate) = self.focus.as_mut() else { return Ok(()) };
        let moved = if gate.is_redirect(page) {
            match links.first() {
                Some(&(target, _)) => gate.redirected(page, PageId(target)),
                None => Vec::new(),
            }
        } else {
            gate.learn(page, links)
        };
        for page in moved {
            let Some(host) = self.focus.as_ref().and_then(|gate| gate.host_of(page)) else { continue };
            let (weight, change_rate) = self.focus_parameters(page, host);
            match self.scheduler.update(page, weight, change_rate) {
                // Fetched or removed meanwhile: nothing to update.
                Ok(()) | Err(OnlineError::UnknownPage(_)) => {}
                Err(error) => return Err(error.into()),
            }
        }
        Ok(())
    }

    /// Hands the scheduler new pages of `host` that the focus gate released.
    pub(crate) fn focus_release(&mut self, pages: &[PageId], host: HostId, now: f64) -> Result<()> {
        for &page in pages {
            let (weight, change_rate) = self.focus_parameters(page, host);
            self.scheduler.add(page, host, weight, change_rate, now)?;
        }
        Ok(())
    }

    /// With the scheduler empty and nothing in flight, a focused crawl's held pages would wait
    /// for a release that cannot come (a released page left without
    /// [`focus_settled`](Self::focus_settled), which should not happen): the gate's counts are
    /// reset and every host's best held pages go to the scheduler. Returns whether any did.
    fn release_stranded(&mut self, now: f64) -> Result<bool> {
        let released = match &mut self.focus {
            Some(gate) if gate.held_pages() > 0 => gate.release_stranded(),
            _ => return Ok(false),
        };
        let any = !released.is_empty();
        for (host, pages) in released {
            self.focus_release(&pages, host, now)?;
        }
        Ok(any)
    }

    /// `page`'s first fetch is over or it was skipped: in a focused crawl its host may take its
    /// next best held page.
    ///
    /// The host takes it after the next commit (`focus_top_up`), once the links this fetch
    /// found have moved the estimates.
    pub(crate) fn focus_settled(&mut self, page: PageId, host: HostId) -> Result<()> {
        if let Some(gate) = &mut self.focus {
            gate.settled_later(page, host);
        }
        Ok(())
    }

    /// The hosts whose new pages' fetches ended take their next best pages (see
    /// [`focus_settled`](Self::focus_settled)).
    fn focus_top_up(&mut self, now: f64) -> Result<()> {
        let released = match &mut self.focus {
            Some(gate) if gate.has_deferred() => gate.top_up_deferred(),
            _ => return Ok(()),
        };
        for (host, pages) in released {
            self.focus_release(&pages, host, now)?;
        }
        Ok(())
    }

    /// The `(w, λ)` of a page in a focused crawl: its focus weight, and the change rate
    /// [`initial_parameters`](Self::initial_parameters) would give it.
    fn focus_parameters(&mut self, page: PageId, host: HostId) -> (f64, f64) {
        let weight = self.focus.as_ref().map_or(1.0, |gate| gate.weight(page));
        let prior = self.config.change_rate_prior;
        let change_rate = match self.config.revisit {
            Revisit::Freshet => self.host_rates_mut(host).mean(prior),
            Revisit::Uniform | Revisit::Once | Revisit::Nutch => prior,
        };
        (weight, change_rate)
    }

    /// Whether `url`'s host came after `max_hosts_per_domain` others of its registered domain
    /// and no seed names it: its URLs are not admitted. A host of this run's seeds is marked
    /// `seeded` here, the first time one of its URLs is asked about.
    fn beyond_domain_limit(&mut self, host: HostId, url: &Url) -> Result<bool> {
        let state = self.host_mut(host)?;
        if !state.beyond_domain_limit || state.seeded {
            return Ok(false);
        }
        let seeded = self.seed_origins.contains(&freshet_url::origin_key(url));
        self.host_mut(host)?.seeded = seeded;
        Ok(!seeded)
    }

    /// The `detail` of a URL skipped as `domain-quota`.
    fn domain_limit_detail(&self, url: &Url) -> String {
        let name = url.host_str().unwrap_or_default();
        let domain = freshet_url::registered_domain(name).unwrap_or(name);
        format!(
            "{domain} had {} hosts in this crawl before this one (max-hosts-per-domain{}): the host is not crawled",
            self.config.max_hosts_per_domain_of_shard(),
            if self.config.shard.is_some_and(|plan| plan.count() > 1) { ", this shard's share" } else { "" }
        )
    }

    /// `page` was fetched with content and links to `links`: the importance estimator learns
    /// it, and the links are kept for the page's next 304.
    pub(crate) fn follow_links(&mut self, page: PageId, links: Box<[u32]>, cached: bool) {
        // In a sharded crawl, the page's links to other shards' pages take their shares too.
        let foreign = self.take_foreign_links(page, cached);
        let share = self.weights.fetched(page.0, &links, foreign.count());
        self.pay_foreign_links(foreign, share);
        let index = page.0 as usize;
        if self.link_cache.len() <= index {
            self.link_cache.resize_with(index + 1, Box::default);
        }
        self.link_cache[index] = links;
    }

    /// The links `page` had at its last fetch with content (empty if none is known).
    pub(crate) fn cached_links(&self, page: PageId) -> Box<[u32]> {
        self.link_cache.get(page.0 as usize).cloned().unwrap_or_default()
    }

    /// The `(w, λ)` a page never fetched starts with, by the revisit policy: its importance
    /// and its host's prior mean (freshet), equal numbers (uniform), or Nutch's first interval
    /// (`w = λ = 1/I`, see [`crate::revisit`]).
    pub(crate) fn initial_parameters(&mut self, page: PageId, host: HostId, url: &str) -> (f64, f64) {
        let prior = self.config.change_rate_prior;
        match self.config.revisit {
            Revisit::Freshet => {
                let weight = self.weights.weight(page.0, url);
                (weight, self.host_rates_mut(host).mean(prior))
            }
            Revisit::Uniform | Revisit::Once => (1.0, prior),
            Revisit::Nutch => {
                let (min, max) = self.config.nutch_interval_bounds;
                let rate = 1.0 / (1.0 / prior).clamp(min, max);
                (rate, rate)
            }
        }
    }
}

/// Whether the frontier store keeps `url`: at most [`limits::URL_BYTES`] (8 KiB), its origin
/// at most [`limits::HOST_BYTES`]. A page may link a longer URL (a hostile one, or a session
/// blob in a query); it is not followed, rather than failing the commit that would hold it,
/// which stopped the crawl, and again at every resume, as the page was fetched again.
pub(crate) fn storable_url(url: &Url) -> bool {
    let text = url.as_str();
    text.len() <= limits::URL_BYTES
        && (text.len() <= limits::HOST_BYTES || freshet_url::origin_key(url).len() <= limits::HOST_BYTES)
}

/// A validator (`ETag`, `Last-Modified`) as the frontier store keeps it: at most
/// [`limits::VALIDATOR_BYTES`], no control character (a tab is one, and HTTP allows it in a
/// header value). Another is not kept, and the page's next request is not conditional on it.
pub(crate) fn storable_validator(value: String) -> Option<String> {
    (value.len() <= limits::VALIDATOR_BYTES && !value.chars().any(char::is_control)).then_some(value)
}

/// The `detail` of a URL skipped because robots.txt was too costly to check against it.
pub(crate) fn too_complex_detail() -> String {
    format!(
        "robots.txt too complex to check: its rules would scan more than {} bytes of the path",
        freshet_robots::MATCH_WORK_LIMIT
    )
}

/// The `detail` of a host's first `deferred` line: its robots.txt checks used up their
/// allowance of `scan_rate` octets a second (`hosts::ScanAllowance`), and the URL is checked
/// after `retry_after` seconds.
pub(crate) fn deferral_detail(retry_after: f64, scan_rate: u64) -> String {
    format!(
        "robots.txt checks put off for {retry_after:.2}s: this host's checks used up their allowance \
         (robots-scan-rate {scan_rate} octets a second); the URL is checked then, and later \
         put-offs of this host are only counted (robots_deferred)"
    )
}

/// URL patterns (`include`, `exclude`) matched against every link: in one pass of a
/// `regex::RegexSet` rather than one regex after another, which took 3× the time with 3
/// patterns, 10× with 10 and 37× with 100 (`benches/patterns.rs`; BENCHMARKS.md, "Scope from
/// many seeds"). A set too large for the
/// regex crate's limits (patterns that each fit may not fit together) keeps the list.
struct Patterns {
    list: Vec<regex::Regex>,
    set: Option<regex::RegexSet>,
}

impl Patterns {
    fn new(list: &[regex::Regex]) -> Self {
        let set = (list.len() > 1).then(|| regex::RegexSet::new(list.iter().map(regex::Regex::as_str)).ok());
        Self { list: list.to_vec(), set: set.flatten() }
    }

    fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Whether some pattern matches `text`.
    fn any_match(&self, text: &str) -> bool {
        match &self.set {
            Some(set) => set.is_match(text),
            None => self.list.iter().any(|pattern| pattern.is_match(text)),
        }
    }
}

/// A stored page's URL, parsed (a failure means a corrupt store).
pub(crate) fn parse_stored(page: &StoredPage) -> Result<Url> {
    freshet_url::canonicalize(&page.url).map_err(|source| CrawlError::StoredUrl {
        page: page.id.0,
        url: page.url.clone(),
        source,
    })
}

#[cfg(test)]
mod pattern_tests {
    #![allow(clippy::unwrap_used)]

    use super::Patterns;

    const POOL: [&str; 8] =
        [r"/trap/", r"\?(print|share)=", r"^https://", r"\.pdf$", r"a{3}", r"/b/", r"(", r"x|y"];

    proptest::proptest! {
        /// The set answers what the list answers: some pattern matches.
        #[test]
        fn patterns_match_as_the_list_does(
            chosen in proptest::collection::vec(0..POOL.len(), 0..6),
            text in "(https?://)?[aby/.?=xprintsha]{0,30}(\\.pdf)?",
        ) {
            let list: Vec<regex::Regex> =
                chosen.iter().filter_map(|&index| regex::Regex::new(POOL[index]).ok()).collect();
            let patterns = Patterns::new(&list);
            proptest::prop_assert_eq!(patterns.is_empty(), list.is_empty());
            proptest::prop_assert_eq!(patterns.any_match(&text), list.iter().any(|pattern| pattern.is_match(&text)));
        }
    }
}

#[cfg(test)]
mod panic_tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::net::{IpAddr, Ipv4Addr};
    use std::time::Duration;

    use crate::{CrawlConfig, Crawler, LogLine, Revisit, StopReason};

    /// A fetch task that panics (here the stand-in in `Job::run`, for the URL `/panic-here`)
    /// gets an `internal-error` line naming the URL and the panic, its host's slot back, and
    /// its page `max_failures` tries; the host's other pages are all fetched and the crawl
    /// ends, where the host's slot stayed taken and the crawl never ended.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_panicking_fetch_is_logged_and_its_host_goes_on() {
        let app = axum::Router::new().fallback(|uri: axum::http::Uri| async move {
            let body = match uri.path() {
                "/" => "<a href=\"/a\">a</a><a href=\"/panic-here\">p</a><a href=\"/b\">b</a><a href=\"/c\">c</a>",
                _ => "<p>a page</p>",
            };
            ([(axum::http::header::CONTENT_TYPE, "text/html")], body)
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        let data = tempfile::tempdir().unwrap();
        let mut config = CrawlConfig::new(data.path());
        config.seeds = vec![freshet_url::canonicalize(&format!("http://p.test:{port}/")).unwrap()];
        config.delay = Duration::from_millis(1);
        config.revisit = Revisit::Once;
        config.fetch.allow_private = true;
        config.fetch.resolve = vec![("p.test".into(), IpAddr::V4(Ipv4Addr::LOCALHOST))];
        config.max_failures = 2;
        let crawl = Crawler::open(config).unwrap().run(std::future::pending());
        let summary =
            tokio::time::timeout(Duration::from_secs(30), crawl).await.expect("the crawl ends").unwrap();
        assert_eq!(summary.stopped, StopReason::Done);
        assert_eq!(summary.internal_errors, 2, "{summary:?}");
        let text = std::fs::read_to_string(data.path().join("crawl.jsonl")).unwrap();
        let lines: Vec<LogLine> = text.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
        let panicked: Vec<&LogLine> = lines.iter().filter(|line| line.outcome == "internal-error").collect();
        assert_eq!(panicked.len(), 2, "{panicked:?}");
        let detail = panicked[0].detail.as_deref().unwrap();
        assert!(panicked[0].url.ends_with("/panic-here"), "{panicked:?}");
        assert!(
            detail.contains("a test's stand-in for a bug") && detail.contains("please report it"),
            "{detail}"
        );
        for path in ["/", "/a", "/b", "/c"] {
            assert!(
                lines.iter().any(|line| line.outcome == "ok" && line.url.ends_with(&format!("{port}{path}"))),
                "{path} fetched: {lines:?}"
            );
        }
    }
}
