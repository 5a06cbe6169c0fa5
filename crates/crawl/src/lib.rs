//! The crawl loop behind `freshet crawl`: polite, robots-obeying fetching from a persistent
//! frontier into WARC, resumable after a crash.
//!
//! # Main types
//! - [`CrawlConfig`]: the data directory, seeds, scope, delay, page limit, fetcher settings,
//!   sitemaps.
//! - [`Crawler`]: [`Crawler::open`] opens or resumes the crawl in the data directory;
//!   [`Crawler::run`] crawls until nothing is left, the page limit, or a stop signal (Ctrl-C),
//!   and returns a [`CrawlSummary`].
//! - [`LogLine`]: one line of `DIR/crawl.jsonl`, the crawl log (see the `log` module docs for
//!   the fields).
//! - [`capacity::HostCapacity`]: a host's delay adapted to its answers (pure, no clock).
//! - [`Admin`]: a running crawl's status and a page's explanation; [`inspect`]: the same
//!   questions about a stopped crawl, answered from its store.
//!
//! # The loop
//! One task owns the [`Scheduler`](freshet_schedule::online::Scheduler) (seed 003's threshold
//! scheduler, sans-IO), the frontier store ([`RedbStore`](freshet_frontier::RedbStore) by
//! default, or [`RedisStore`](freshet_frontier::RedisStore): [`CrawlConfig::store`]), the WARC
//! writer and the log. It asks the scheduler `next(now)`; a `Fetch` becomes a job spawned on a `JoinSet` (at
//! most [`CrawlConfig::max_in_flight`]); `WaitUntil(t)` sleeps until `t`, a job's end or the stop
//! signal, whichever comes first. When jobs end, every one that has ended is handled, then one
//! group commit: WARC `sync`, the log's lines written out, one store transaction (completions,
//! discovered links, skips). That is the store's documented order: a page is never marked
//! fetched before its records are durable and its log line written; a crash in between
//! refetches it, archives it and logs it twice, which WARC and the log allow.
//!
//! **Time** is seconds since the Unix epoch (`f64`), for the scheduler and the store alike; change
//! rates are therefore per second (the prior, [`CrawlConfig::change_rate_prior`], is one change a
//! day).
//!
//! # Politeness
//! - The scheduler guarantees at most one fetch in flight per host (an origin,
//!   `scheme://host:port`) and a gap between fetch starts of at least the host's delay: the
//!   configured one (default 1 s), raised by robots.txt `Crawl-delay`, adapted to the host's
//!   answers.
//!   [`CrawlConfig::max_in_flight_per_host`] (default 1) raises the first bound, for
//!   benchmarks against one's own server only (`--max-in-flight-per-host`): the gap between
//!   starts, robots.txt (a host's other pages wait while its robots.txt is in flight) and
//!   back-offs still hold.
//! - Fetch jobs read their page's HTML themselves (links, main text and its signature against
//!   a snapshot of the host's boilerplate set: `job::Analysis`; the links only with
//!   [`CrawlConfig::main_text`] off) and encode their WARC records
//!   (gzip, SHA-1: `freshet_warc::CaptureEncoder`), on the runtime's worker threads, so that
//!   the control task, which is one thread, keeps to appending the records (one write each
//!   capture), checking the snapshot against the host's table, the store and the log. A record
//!   encoded for a WARC file the writer has left meanwhile (rotation), or a signature whose
//!   snapshot the table no longer agrees with on the page's blocks, is made again on the
//!   control task, so the files and the verdicts are what the control task alone would make.
//! - **Adaptive capacity** (seed 003: the host's limit is estimated continuously; see
//!   [`capacity`]): that delay is the host's floor. Every page request's answer moves the delay:
//!   429, 503 and other 5xx, timeouts, refused or reset connections double it (up to 10 min),
//!   any other answer shrinks it by 1% back toward the floor (×0.9 in ~10 answers). A rise is
//!   applied at once, a fall in steps of 10% of the rate: the scheduler gets the host's new
//!   `Politeness` (its capacity `k_i = 1/delay`, so `λ_i` emerges when it binds), the store a
//!   `SetHost` (a resumed crawl starts from the raised delay, recovering from there once
//!   robots.txt has set the floor again), and the log line of the request that caused it says
//!   so in `detail` (`host delay 50ms -> 100ms`). The end-to-end test shows a host that accepts
//!   one page per 500 ms refusing 4 requests in the first half of a 14 s crawl at 50 ms and
//!   none in the second (6 without adaptation), while the other hosts keep their delay.
//! - On top of that, a job does not send its request before the *end* of the host's previous
//!   request plus the delay (Heritrix counts its politeness delay from the end of a fetch too).
//!   So the server sees two requests at least the delay apart, whatever the connect and transfer
//!   times; the end-to-end test checks it in the server's own log.
//! - 429 and 503 close the host for `Retry-After` (else [`CrawlConfig::default_back_off`]) and
//!   the page keeps its place; after [`CrawlConfig::max_back_offs`] the page is given up. The
//!   doubled delay applies from the end of that closure on.
//! - The fetcher refuses loopback, private, link-local and unique-local addresses after DNS
//!   unless `allow_private` is set (tests and testweb set it, with `--resolve` overrides). A
//!   host whose robots.txt request is refused so is marked refused: none of its pages is tried,
//!   each gets a `skipped` line with outcome `address-refused`.
//! - At most `FetchConfig::max_in_flight_per_ip` requests (default 8) are in flight to one IP
//!   address over all the host names that resolve to it (the fetcher's per-IP gates); in a
//!   sharded crawl over all the shards, each keeping its share
//!   (`CrawlConfig::max_in_flight_per_ip_of_shard`).
//! - Across runs: the pause a 429/503 `Retry-After` asked for is stored with that answer's
//!   group commit (the host's `blocked_until`, which every `SetHost` carries while the pause
//!   lasts), so a resumed run waits it out (robots.txt included), even after `kill -9`. A run
//!   that stops cleanly (done, `max_pages`, Ctrl-C) also stores each host's next turn (its delay
//!   after the last request, or the pause, whichever is later). After `kill -9` that turn is
//!   lost, so a resumed run waits a whole delay before its first request to every host it
//!   restores.
//! - Failures that may pass (timeouts, 5xx, resets) are tried again, up to
//!   [`CrawlConfig::max_failures`] in a row: in a one-pass crawl after a pause that doubles, else
//!   at the page's next revisit. A 2xx answer of a type not in `FetchConfig::content_types` is
//!   not downloaded (`unwanted-content-type`), archived or revisited.
//!
//! # robots.txt (RFC 9309)
//! The first time the scheduler picks a page of a host, the host's robots.txt is fetched in that
//! slot instead (through the same fetcher and politeness, redirects followed up to five hops),
//! kept as a [`RobotsEntry`](freshet_robots::RobotsEntry) (2xx obeyed, 4xx allow all, 5xx or
//! unreachable: nothing fetched from the host until the retry an hour later, said on the
//! robots.txt's log line; 24 h time to live; a one-pass crawl, [`Revisit::Once`], gives the
//! host's pages up after [`CrawlConfig::max_failures`] unreachable answers in a row, each a
//! `skipped` line with outcome `robots-unreachable`, rather than wait for ever),
//! and the page is handed back unfetched. Disallowed URLs are never requested: a URL found while
//! its host's rules are known is checked on admission; pages admitted before are checked when the
//! rules arrive, and every page again when it is picked. Each skip is a `skipped` log line and
//! the URL stays in the seen set, never due. robots.txt responses are archived in WARC too.
//!
//! A check costs little for ordinary rules, but a hostile file (thousands of `*` rules) against
//! long paths makes each check scan up to [`freshet_robots::MATCH_WORK_LIMIT`] (1 MiB; past it
//! the URL is too complex to check, and not fetched), and one page can link a thousand such
//! URLs. So each host's checks share an allowance of octets scanned,
//! [`CrawlConfig::robots_scan_rate`] a second (4 MiB) saved up to 8 seconds' worth, half of it
//! kept for the checks just before fetches: a check the allowance cannot afford waits (a link
//! found is scheduled and checked when picked; a page picked hands its host's slot back until
//! the allowance holds a whole check), and [`CrawlSummary::robots_deferred`] counts those
//! waits. No URL is skipped or fetched for want of allowance.
//!
//! # Sitemaps
//! When a host's robots.txt has been fetched with rules, the sitemaps its `Sitemap:` lines name
//! (a relative one resolved against the robots.txt) are queued for the host, once per host and
//! run, unless [`CrawlConfig::sitemaps`] is off (`--no-sitemaps`). **Only those on the
//! robots.txt's own origin are requested**: robots.txt may name sitemaps anywhere, but a
//! sitemap on another origin would need that origin's robots.txt and politeness first, so it
//! is left out and one host's politeness stays one queue. A queued sitemap is requested the
//! way robots.txt is: when the scheduler next picks a page of the host, the sitemap is fetched
//! in that slot instead and the page is handed back unfetched (`BackOff` of 0 s), so a host's
//! sitemaps go before its pages, through the same politeness (one request at a time, the delay
//! from the end of the last one). A sitemap URL robots.txt disallows is not requested (a
//! `skipped` line). The file is read by [`freshet_fetch::sitemap`] (XML urlset or index, plain
//! text, gzip by its magic bytes; at most 50,000 entries and 50 MiB inflated per file, so a
//! gzip bomb stops at the cap), on a blocking thread, not on the control task; the protocol's
//! location rule is the robots.txt one (anything on the robots.txt's origin).
//! - A urlset's URLs are discovered like links: [`CrawlConfig::scope`] against the seeds, the
//!   store's seen set, robots.txt on admission, depth 1, no source page. A `<priority>` given
//!   becomes the new page's starting weight in the store (its `Discovery::weight`); the
//!   scheduler's initial weight still comes from [`CrawlConfig::importance`].
//! - An index's sitemaps on the same origin are queued in turn, as is the target of a sitemap
//!   that redirects; none is requested twice in one read of the host's sitemaps.
//! - Per host and read of its sitemaps: at most [`CrawlConfig::max_sitemap_files`] files (default 50) and
//!   [`CrawlConfig::max_sitemap_urls`] URLs (default 50,000, the protocol's limit for one file);
//!   what is over is counted in the log line, not requested.
//! - Each request is archived in WARC and logged with kind `sitemap`: what the file held (URLs,
//!   sitemaps, entry problems, whether it stopped early) in `detail`. **Errors are data**: a 404,
//!   a timeout, a body that is not a sitemap (outcome `not-a-sitemap`, an HTML soft 404 say), a
//!   file cut short, are logged and the crawl goes on.
//!
//! - **A `<lastmod>` is a change signal**: a page the crawl holds and has fetched, listed with a
//!   `lastmod` later than its last fetch, has changed since (the protocol: "the date of last
//!   modification of the page"), so once the group commit has named it, the scheduler treats
//!   its copy as stale (`Scheduler::mark_stale`: due at once, as a page never fetched, its
//!   weight and rate kept); a `changed` log line (outcome `due-now`) says so, and
//!   [`CrawlSummary::sitemap_changes`] counts it. A page in flight, never fetched, or out of the
//!   schedule is left as it is.
//!
//! - **Sitemaps are read again** [`CrawlConfig::sitemap_revisit`] (one day by default) after a
//!   host's read of them began, in the host's first slot after that once the read's files are
//!   all requested: the `Sitemap:` lines of the robots.txt then in force, afresh (the file and
//!   URL limits count per read). New URLs are discovered; known ones are told changed by
//!   their `lastmod`s as above. [`CrawlSummary::sitemap_rereads`] counts the reads after the
//!   first. A file is requested with the validators its last 2xx in the run sent, so an
//!   unchanged one answers 304 and is neither sent nor parsed again (an index's sitemaps are
//!   queued from what it listed last; [`CrawlSummary::sitemap_not_modified`]), except on a
//!   host whose `lastmod`s vouch (below), whose reads must list the unchanged pages again.
//! - **A `<lastmod>` is checked by the fetch it causes.** A host whose sitemap-triggered fetches
//!   mostly find the content unchanged (fewer than half of four or more: a generator that
//!   writes the time of generation for every URL) has its `lastmod`s ignored for the rest of
//!   the run (the page's log line says so; [`CrawlSummary::sitemap_lastmods_ignored`]), and the
//!   pages they made due that wait for their fetch get their copy's time back; its sitemaps
//!   are still read for new URLs. [`CrawlSummary::sitemap_changes_confirmed`] counts
//!   the fetches that found the change.
//! - **A proved sitemap vouches for what it lists unchanged.** Once a host's `lastmod`s have
//!   passed four or more checks (mostly right), a read that lists a known page with a
//!   `lastmod` whose period ends by its copy (a date without a time names a whole day, and
//!   says nothing of a copy of that day) says the copy is current as of the read, as a 304 would:
//!   the page's age counts from the read (`Scheduler::set_last_fetch`), and the budget goes to
//!   the pages that changed or may have ([`CrawlSummary::sitemap_vouched`]). The next fetch
//!   of such a page checks the word where the page sends Last-Modified: a change dated before
//!   the read is a miss, which counts against the host's `lastmod`s
//!   ([`CrawlSummary::sitemap_misses`]); a sitemap that misses the changes of pages without
//!   Last-Modified is not caught, and their copies age from its reads. A sitemap whose
//!   `lastmod`s never move is never proved (none of its pages is ever told changed), so it
//!   vouches for nothing.
//! - **The change-rate estimate learns from the sitemap, not from the fetch it caused**
//!   ([`revisit::observe_sitemap_change`]): a fetch made because the page changed always
//!   finds a change, and counted as an observation it would teach a rate several times the
//!   truth; the reads come at times of their own, so the observation ends at the read.
//!
//! Sitemaps are not remembered across runs: a resumed crawl fetches them again when it next
//! visits the host, and the seen set keeps their URLs from being added twice; so a resumed
//! crawl learns from their `lastmod`s which of the host's pages changed while it was away.
//!
//! # Discovery and revisits
//! Links of HTML pages (`freshet_fetch::links`: `nofollow` and robots meta respected) and
//! redirect targets are canonical already (a redirect's target is a page of its own, fetched
//! in its host's turn; the crawler remembers the chain that led to a target not yet fetched (in
//! the target's store record too, so a resumed crawl continues the chain), so
//! a redirect back into its own chain is logged as a loop, and one past
//! `fetch.max_redirects` hops in a row as too many redirects, and neither is followed); they are scope-checked against every seed
//! ([`CrawlConfig::scope`], [`CrawlConfig::max_depth`], `include`/`exclude`), seen-checked by
//! the store's `Discover` in the group commit (a URL seen before is answered by the in-memory
//! seen-URL index, `freshet_frontier::SeenFilter`, without a read of redb; the index is
//! refilled by the resume scan), and new ones added to the scheduler with the
//! `(w, λ)` the revisit policy starts them with (over [`CrawlConfig::host_quota`]: skipped).
//!
//! **Traps and hostile links.** Four bounds keep a crawl from being held for ever or stopped:
//! the depth limit ([`CrawlConfig::max_depth`], an endless URL space such as a calendar); a
//! limit of hosts per registered domain ([`CrawlConfig::max_hosts_per_domain`], 1,000 by
//! default: with wildcard DNS a page may link `a1.example.com`, `a2.example.com`, … without
//! end, each near the seed and with few pages, which neither the depth nor the per-host quota
//! holds; the hosts past it are never called on, their URLs logged as `domain-quota`, and a
//! resumed crawl keeps the same ones out, as hosts are counted in the order found; once a
//! domain is full, links to its new hosts are refused before they reach the store, so a trap
//! adds no records past the limit, and each such link gets its line); and the
//! store's limits on what it keeps (a URL over 8 KiB, an origin over 1 KiB, an `ETag` or
//! `Last-Modified` over 1 KiB or holding a control character): such a link or redirect target
//! is not followed and the page's log line counts it, such a validator is dropped (the next
//! request is unconditional), where before one of them failed the group commit and stopped
//! the crawl, again at every resume; and, in a one-pass crawl, the longest `Retry-After` it
//! waits for ([`CrawlConfig::max_retry_after`], one hour): a host asking for more is given up
//! (its pages logged as `host-given-up`), neither called on sooner than it asked nor left to
//! keep the crawl from ending.
//!
//! **Revisits** ([`CrawlConfig::revisit`], module [`revisit`]): after each fetch the page stays
//! in the scheduler with its new weight (module `importance`: OPIC by default) and change-rate
//! estimate, learned from what the fetch showed (a 304, its main-text signature against the one
//! held, Last-Modified); the estimator's state is kept in the store, so `--resume` continues it.
//! A page gone (4xx but 429, a redirect) or failing [`CrawlConfig::max_failures`] times in a
//! row leaves the schedule. With [`Revisit::Once`] every page is fetched once and the crawl
//! ends when the frontier is empty; otherwise it runs until [`CrawlConfig::duration`],
//! `max_pages` or the stop signal.
//!
//! **Identical payloads** (module [`dedup`]): a complete 2xx body the archive already holds,
//! byte for byte, is written as a WARC `revisit` record (profile identical-payload-digest,
//! headers only) naming the `response` record that holds it: the page's own last capture (a
//! revisit that found it unchanged, from a server without validators) or another URL's (found
//! in a bounded in-memory index of payload digests, [`CrawlConfig::duplicate_index_entries`],
//! rebuilt on resume from the page records). A `304` refers to the same held capture. The log
//! line's `detail` says which record; [`CrawlSummary::identical_payloads`] and
//! [`CrawlSummary::duplicates`] count them. A duplicate is otherwise a page like any other
//! (links read, revisited, its rate learned).
//!
//! **Near-duplicates** (module [`dedup`]): a page whose first fetch's main text nearly repeats
//! a page fetched before under another URL (SimHash within 3 of 64 bits, in a bounded index,
//! [`CrawlConfig::near_duplicate_index_entries`], rebuilt on resume) has that page named in
//! its log line's `detail` and counted in [`CrawlSummary::near_duplicates`]; nothing else
//! changes for it.
//!
//! # Resume
//! `DIR/frontier.redb` is the frontier (or the Redis prefix [`CrawlConfig::store`] names, which
//! a new crawl must find empty and a resumed one must not). Opening with
//! [`CrawlConfig::resume`] runs the store's
//! `recover` (pages in flight when the last run died are due again), rebuilds the scheduler from
//! it (hosts, then every page with a due time: `add` or `restore`), takes the pages of depth 0
//! as seeds for the scope, and reopens the WARC directory (a torn last record is cut away). The
//! crawler does not record `Start` in the store: a page not completed is simply still due, which
//! is what `recover` would make of it. robots.txt is fetched again in the new run. The scope
//! setting is not stored: give the same `--scope` again. A log line torn by `kill -9` is cut
//! away when `crawl.jsonl` is reopened. Tested: `crates/cli/tests/crawl.rs` kills the process
//! with SIGKILL at three random moments and checks that the resumed crawl requested every
//! allowed page, repeated at most one in-flight page per host and kill, and left every WARC
//! file readable. A full disk stops the crawl with an error that names the file (the WARC file,
//! the store, the log); nothing committed is lost, so `--resume` once there is room continues as
//! after a kill (the same test file fills the disk by `ulimit -f`). A store that could not even
//! be set up is removed, so that the first command can simply be run again.
//!
//! # Shards: one crawl, several processes
//! With [`CrawlConfig::shard`] (`--shard K/N`) and a Redis store, this process is shard `K` of
//! a crawl run by `N` processes, on one machine or on several, sharing one Redis server or
//! Redis Cluster (the distributed engine the mission names; no coordination of freshet's
//! own). The protocol is `freshet_frontier`'s `shards` module; the crawler's side
//! (`crawler::shards`):
//! - a host belongs to the shard that `ShardPlan::shard_of` its name gives, for the crawl's
//!   life: its robots.txt, politeness and pages are that one process's;
//! - each shard's frontier is a store of its own, under the prefix `PREFIX-K-of-N` (with a
//!   suffix `.J` where one is needed to spread the shards' slots evenly: on a cluster the
//!   shards spread over the nodes);
//! - [`Crawler`]'s discovery hands a URL of another shard's host (in scope by the same
//!   settings, which every shard must be given alike) to that shard's inbox instead of its own
//!   store, before the group commit of the page that found it; the receiver commits it as a
//!   discovery before it trims its inbox. A crash of either side repeats, never loses; the
//!   receiver's seen set admits a URL once;
//! - a one-pass shard with nothing left waits (reading its inbox every 100 ms) until the
//!   whole crawl is over: every shard idle with an empty inbox, or gone, in two waves that
//!   read alike. A shard that is killed is neither, so the others wait for its resume.
//!
//! Each shard's limits are its own (`max_pages`, `rate`, quotas, and the per-IP limit, so a
//! server whose hosts fall to several shards may get that many requests at once from each).
//! OPIC importance crosses shards: a page's links to other shards' pages hand their shares of
//! its cash over (after the commit of its fetch), and each shard's virtual page keeps `1/N`
//! of its cash and sends the rest to the others, so that the estimate is the whole crawl's
//! (`freshet_rank::opic`, "Across processes"); in-degree counts only links within a shard.
//! Tested: three shards on one Redis and on a Redis Cluster fetch every allowed page of a test
//! web once, and a page of one shard linked only from another's weighs more than an unlinked
//! one (`tests/shards.rs`); a shard killed three times and resumed loses no handed-over URL
//! (`crates/cli/tests/crawl.rs`).
//!
//! # Blocking calls
//! The store commit (an `fsync`) and the WARC sync run on the control task, once per group of
//! finished jobs; use a multi-thread runtime so that fetches go on meanwhile.
//!
//! # Example
//! ```no_run
//! use freshet_crawl::{CrawlConfig, Crawler};
//! # async fn example() -> Result<(), freshet_crawl::CrawlError> {
//! let mut config = CrawlConfig::new("crawl-data");
//! config.seeds.push(freshet_url::canonicalize("https://example.com/").expect("a valid URL"));
//! config.max_pages = Some(100);
//! // Any future stops the crawl when it completes: the CLI passes Ctrl-C.
//! let stop = tokio::time::sleep(std::time::Duration::from_secs(600));
//! let summary = Crawler::open(config)?.run(stop).await?;
//! println!("{} pages, {} skipped by robots.txt", summary.pages, summary.skipped);
//! # Ok(()) }
//! ```

mod admin;
pub mod capacity;
mod config;
mod crawler;
pub mod dedup;
mod error;
pub mod focus;
mod hosts;
pub mod importance;
pub mod inspect;
mod job;
mod log;
pub mod revisit;

pub use admin::{Admin, CrawlStatus, ExplainError, HostStatus, PageReport, ShardCounts, SitemapCounts};
pub use config::{
    CrawlConfig, DAY, DEFAULT_MAX_DEPTH, DEFAULT_MAX_HOSTS_PER_DOMAIN, DEFAULT_ROBOTS_SCAN_RATE,
    MAX_REDIRECTS, MIN_ROBOTS_SCAN_RATE, MIN_STORE_CACHE_BYTES, StoreEngine,
};
pub use crawler::{CrawlSummary, Crawler, StopReason};
pub use error::{CrawlError, Result};
pub use focus::Focus;
/// The Redis engine's settings, for [`StoreEngine::Redis`].
pub use freshet_frontier::{RedisOptions, ShardPlan};
pub use importance::Importance;
pub use log::{LogKind, LogLine};
pub use revisit::Revisit;
