//! `freshet crawl`: crawl from seed URLs into `DIR` (WARC, crawl log, frontier store) with the
//! crawl loop of `freshet-crawl`, until nothing is left, `--max-pages`, or Ctrl-C.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;

use freshet_crawl::{Crawler, StopReason};

use crate::crawl_settings::{CrawlSettings, ImportanceArg, Origin, RevisitArg, ScopeArg};

/// `freshet crawl --help`, first part.
pub(crate) const LONG_ABOUT: &str = "\
Crawl from seed URLs, politely, into DIR.

DIR holds everything: warc/*.warc.gz (request and response records, one gzip member each;
a 304, or a body the archive already holds byte for byte, the page's own or another URL's, is
a revisit record naming the response record that holds it), crawl.jsonl (one JSON line per
request of a page, a robots.txt or a sitemap: time, kind, url, status, bytes, duration_ms,
fingerprint, outcome; and one per URL skipped because robots.txt disallows it), frontier.redb
(every URL seen, for --resume) and crawl.toml (the settings).

Each host (origin) gets at most one request at a time (--max-in-flight-per-host raises this,
for benchmarks against your own server), and two requests at least --delay apart (from the
end of one to the start of the next), raised by robots.txt Crawl-delay;
robots.txt is fetched first and obeyed (RFC 9309); 429 and 503 back off for Retry-After.
Links are followed within --scope of the seeds.

Sitemaps: the sitemaps a host's robots.txt names (its Sitemap: lines) on the host's own origin
are fetched, in the host's politeness slots, with the sitemaps their indexes list (at most 50
files and 50,000 URLs per host); XML, plain text and gzip are read, and the URLs they list are
discovered like links (the same scope, seen and robots.txt checks). Each sitemap request is a
`sitemap` line in crawl.jsonl and is archived in WARC; a missing or broken sitemap is logged
and the crawl goes on. --no-sitemaps turns them off.

Fetched pages are revisited (--revisit): by default with freshet's policy, which learns each
page's change rate from what it sees (304s, Last-Modified, content fingerprints) and spends
the --rate budget where it buys the most freshness, within each host's politeness; `uniform`
and `nutch` are the baselines, `once` makes a one-pass crawl that ends when nothing is left.
A page's content fingerprint is its main text's signature (ads, timestamps and page furniture
left out), which also finds near-duplicates; --no-main-text reads only the links of a page
(faster) and fingerprints its body as received.
A revisiting crawl runs until --duration, --max-pages or Ctrl-C. Ctrl-C stops cleanly:
fetches in flight are abandoned, everything else is flushed, and --resume continues.

Addresses that are loopback, private, link-local or unique-local are refused after DNS
unless --allow-private is given.

Settings: every flag is also a key of a TOML file (--config FILE; keys and an example in
docs/crawl-config.md); flags win over the file. The crawl writes the settings it was given to
DIR/crawl.toml, and --resume starts from them.";

/// `freshet crawl --help`, last part.
pub(crate) const AFTER_LONG_HELP: &str = "\
Example, against `freshet testweb --port 8080`:
  freshet crawl http://h0.web.test:8080/ --data crawl-data --scope domain --delay 0.1 \\
      --allow-private --resolve '*.web.test=127.0.0.1'";

/// Arguments of `freshet crawl`. Every setting is also a key of `--config FILE` (the same
/// name; docs/crawl-config.md); a flag given here wins over the file.
#[derive(Debug, clap::Args)]
pub(crate) struct CrawlArgs {
    /// Seed URLs.
    #[arg(value_name = "SEED_URL")]
    seeds: Vec<String>,
    /// A file of seed URLs, one per line (blank lines and lines starting with `#` skipped).
    #[arg(long = "seeds", value_name = "FILE")]
    seeds_file: Option<PathBuf>,
    /// The data directory (created if missing).
    #[arg(long, value_name = "DIR")]
    data: PathBuf,
    /// Continue the crawl in DIR with the settings it was started with (DIR/crawl.toml), which
    /// --config and flags override; seeds given now are added to it.
    #[arg(long)]
    resume: bool,
    /// A TOML file of settings (keys: docs/crawl-config.md); flags override it.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Stop after N page requests (robots.txt not counted).
    #[arg(long, value_name = "N")]
    max_pages: Option<u64>,
    /// Stop after this many seconds.
    #[arg(long, value_name = "SECONDS")]
    duration: Option<f64>,
    /// How fetched pages are revisited [default: freshet].
    #[arg(long, value_enum)]
    revisit: Option<RevisitArg>,
    /// The global budget: page requests per second over all hosts [default: 1000].
    #[arg(long, value_name = "FETCHES_PER_SECOND")]
    rate: Option<f64>,
    /// Where page importance (the weight w of freshet's policy) comes from; --weights overrides
    /// [default: opic].
    #[arg(long, value_enum)]
    importance: Option<ImportanceArg>,
    /// Page weights from a CSV file with a header holding `url` and `weight` (URLs are
    /// canonicalised; pages not listed weigh 1).
    #[arg(long, value_name = "FILE")]
    weights: Option<PathBuf>,
    /// A focused crawl: fetch first the pages estimated to be most about these words
    /// (repeatable, or comma-separated; seed 002's scores: the words' count in a page's main
    /// text and in its links' anchors). Replaces --importance as the source of page weights.
    #[arg(long, value_name = "WORD", value_delimiter = ',')]
    focus: Vec<String>,
    /// How a focused crawl estimates the pages it has not fetched: bfs, fl_deg, fl_n (parents'
    /// scores), fl_e (anchors' scores), fl_ne, or lr_fl (a regression on those, refitted as
    /// pages are fetched) [default: fl_e]; with --focus-bandit, the bandit's arms,
    /// comma-separated.
    #[arg(long, value_name = "NAME[,NAME…]")]
    focus_estimator: Option<String>,
    /// A bandit over the --focus-estimator arms chooses which estimator picks each host's next
    /// new page, rewarded by the page's score: epsilon-greedy, epsilon-first (explores the first
    /// share of --max-pages, or of 10,000 pages) or var (epsilon-first again every 100 pages).
    #[arg(long, value_name = "POLICY")]
    focus_bandit: Option<String>,
    /// The bandit's exploration rate [default: 0.1].
    #[arg(long, value_name = "EPSILON")]
    focus_epsilon: Option<f64>,
    /// The mean time between changes a page is assumed to have before anything is learned
    /// about it (the prior) [default: 86400].
    #[arg(long, value_name = "SECONDS")]
    change_interval: Option<f64>,
    /// Minimum seconds between two requests to one host [default: 1].
    #[arg(long, value_name = "SECONDS")]
    delay: Option<f64>,
    /// At most N requests in flight at once over all hosts [default: 64].
    #[arg(long, value_name = "N")]
    max_in_flight: Option<usize>,
    /// At most N requests in flight at once to one IP address, over all the host names that
    /// resolve to it (and over all the shards of a sharded crawl); 0: no limit [default: 8].
    #[arg(long, value_name = "N")]
    max_in_flight_per_ip: Option<usize>,
    /// At most N requests in flight at once to one host. More than 1 turns that part of
    /// politeness off (robots.txt and --delay between starts still hold): for benchmarks
    /// against your own server [default: 1].
    #[arg(long, value_name = "N")]
    max_in_flight_per_host: Option<u32>,
    /// The gzip level of the WARC records: 0 (store) to 9 (smallest); 1 is about 2.4 times as
    /// fast as 6 for files about 37% larger [default: 6].
    #[arg(long, value_name = "LEVEL")]
    warc_gzip_level: Option<u32>,
    /// Which links to follow, relative to the seeds [default: host].
    #[arg(long, value_enum)]
    scope: Option<ScopeArg>,
    /// Follow links at most this many hops from a seed (sitemap entries count one); the
    /// defence against endless URL spaces (calendars) [default: 20].
    #[arg(long, value_name = "N")]
    max_depth: Option<u32>,
    /// Follow only URLs matching this regular expression (repeatable: any of them); seeds are
    /// always taken.
    #[arg(long, value_name = "REGEX")]
    include: Vec<String>,
    /// Do not follow URLs matching this regular expression (repeatable).
    #[arg(long, value_name = "REGEX")]
    exclude: Vec<String>,
    /// At most N pages of one host enter the frontier; the others are logged as skipped.
    #[arg(long, value_name = "N")]
    host_quota: Option<u64>,
    /// At most N hosts of one registered domain are crawled, in the order found (a host a seed
    /// names always is); the others' URLs are logged as skipped (domain-quota): the defence
    /// against wildcard-DNS traps; 0: no limit [default: 1000].
    #[arg(long, value_name = "N")]
    max_hosts_per_domain: Option<u32>,
    /// Download pages of this media type only (repeatable: `text/html`, `image/*`); others stop
    /// after their head and are logged as unwanted-content-type [default: all].
    #[arg(long = "content-type", value_name = "TYPE")]
    content_types: Vec<String>,
    /// Give up on a request after this many seconds in all [default: 120].
    #[arg(long, value_name = "SECONDS")]
    timeout: Option<f64>,
    /// Give up on connecting after this many seconds [default: 10].
    #[arg(long, value_name = "SECONDS")]
    connect_timeout: Option<f64>,
    /// Cut bodies at this many bytes (declared, transferred and decoded) [default: 10485760].
    #[arg(long, value_name = "BYTES")]
    max_body_bytes: Option<u64>,
    /// Follow at most N (≤ 32) redirects of one chain [default: 10].
    #[arg(long, value_name = "N")]
    max_redirects: Option<usize>,
    /// Allow loopback, private, link-local and unique-local addresses (testweb, intranets).
    #[arg(long)]
    allow_private: bool,
    /// Resolve HOST to IP instead of asking DNS (as curl's --resolve; repeatable); `*.NAME=IP`
    /// resolves every name under NAME.
    #[arg(long, value_name = "HOST=IP")]
    resolve: Vec<String>,
    /// Serve Prometheus metrics (/metrics), the status (/status, read by `freshet status`) and
    /// page explanations (/explain?url=, read by `freshet explain`) on this address.
    #[arg(long, value_name = "ADDR")]
    listen: Option<std::net::SocketAddr>,
    /// The User-Agent sent; its product token is the name robots.txt rules are matched with.
    #[arg(long, value_name = "UA")]
    user_agent: Option<String>,
    /// Where the frontier lives: redb (DIR/frontier.redb, the default) or a Redis server,
    /// redis://HOST:PORT/DB, which must sync every write (appendonly yes, appendfsync always).
    #[arg(long, value_name = "redb|URL")]
    store: Option<String>,
    /// The key prefix of this crawl's frontier in Redis (one crawl per prefix; default freshet).
    #[arg(long, value_name = "NAME")]
    store_prefix: Option<String>,
    /// This process's shard of a crawl shared by N processes on one Redis (or Redis Cluster):
    /// K/N, K from 0. Each shard crawls its share of the hosts and hands the others' URLs over
    /// through Redis; start all N with the same settings and seeds. Needs --store redis://….
    #[arg(long, value_name = "K/N")]
    shard: Option<String>,
    /// Do not fetch the sitemaps robots.txt names: URLs come from links only.
    #[arg(long)]
    no_sitemaps: bool,
    /// Do not read pages' main text: links only from each page's HTML, pages compared by their
    /// body's exact hash, no near-duplicate detection (faster; not with --focus).
    #[arg(long)]
    no_main_text: bool,
    /// Threads that run the fetches and read their pages, besides the crawl loop's
    /// [default: the number of CPU cores].
    #[arg(long, value_name = "N")]
    worker_threads: Option<usize>,
}

impl CrawlArgs {
    /// The settings the command line gives (flags not given are `None`); relative paths are
    /// made absolute, so that DIR/crawl.toml holds paths that work from anywhere.
    fn settings(&self) -> CrawlSettings {
        let absolute = |path: &PathBuf| std::path::absolute(path).unwrap_or_else(|_| path.clone());
        let listed = |values: &Vec<String>| (!values.is_empty()).then(|| values.clone());
        CrawlSettings {
            seeds: listed(&self.seeds),
            seeds_file: self.seeds_file.as_ref().map(absolute),
            scope: self.scope,
            max_depth: self.max_depth,
            include: listed(&self.include),
            exclude: listed(&self.exclude),
            host_quota: self.host_quota,
            max_hosts_per_domain: self.max_hosts_per_domain,
            content_types: listed(&self.content_types),
            sitemaps: self.no_sitemaps.then_some(false),
            main_text: self.no_main_text.then_some(false),
            worker_threads: self.worker_threads,
            max_pages: self.max_pages,
            duration: self.duration,
            revisit: self.revisit,
            rate: self.rate,
            importance: self.importance,
            weights: self.weights.as_ref().map(absolute),
            focus: listed(&self.focus),
            focus_estimator: self.focus_estimator.clone(),
            focus_bandit: self.focus_bandit.clone(),
            focus_epsilon: self.focus_epsilon,
            change_interval: self.change_interval,
            delay: self.delay,
            max_in_flight: self.max_in_flight,
            max_in_flight_per_ip: self.max_in_flight_per_ip,
            max_in_flight_per_host: self.max_in_flight_per_host,
            warc_gzip_level: self.warc_gzip_level,
            user_agent: self.user_agent.clone(),
            store: self.store.clone(),
            store_prefix: self.store_prefix.clone(),
            shard: self.shard.clone(),
            connect_timeout: self.connect_timeout,
            timeout: self.timeout,
            max_body_bytes: self.max_body_bytes,
            max_redirects: self.max_redirects,
            allow_private: self.allow_private.then_some(true),
            resolve: listed(&self.resolve),
            listen: self.listen,
            ..CrawlSettings::default()
        }
    }
}

/// The runtime a crawl runs on: the crawl loop on the calling thread (`block_on`), the fetch
/// tasks on `worker_threads` workers (tokio's default, one per core, when `None`).
fn crawl_runtime(worker_threads: Option<usize>) -> anyhow::Result<tokio::runtime::Runtime> {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if let Some(threads) = worker_threads {
        builder.worker_threads(threads);
    }
    builder.enable_all().build().context("starting tokio")
}

/// Runs `freshet crawl`.
pub(crate) fn run(args: &CrawlArgs) -> anyhow::Result<ExitCode> {
    let settings = settings(args)?;
    let config = settings.to_config(&args.data, args.resume)?;
    let listen = settings.listen;
    let runtime = crawl_runtime(settings.worker_threads)?;
    let data = config.data_dir.clone();
    let summary = runtime.block_on(async {
        let crawler = Crawler::open(config)?;
        settings.kept_for_resume().write(&args.data.join(SETTINGS_FILE))?;
        if let Some(address) = listen {
            let bound = crate::admin::serve(address, crawler.admin()).await?;
            eprintln!("serving /metrics, /status and /explain on http://{bound}");
        }
        let (crawl_over, over) = tokio::sync::oneshot::channel();
        let progress = tokio::spawn(show_progress(crawler.admin(), over));
        let summary = crawler.run(interrupted()).await;
        // The crawl is over: the line clears itself at once (not at its next second's tick).
        let _ = crawl_over.send(());
        let _ = progress.await;
        anyhow::Ok(summary?)
    })?;
    let stopped = match summary.stopped {
        StopReason::Done => "nothing left to fetch",
        StopReason::MaxPages => "--max-pages reached",
        StopReason::Interrupted => "interrupted (resume with --resume)",
        StopReason::TimeUp => "--duration reached (resume with --resume)",
    };
    println!(
        "{stopped}: {} pages ({} not ok), {} robots.txt, {} skipped by robots.txt, {} refused addresses, \
         {} new URLs ({} over --host-quota), {} links to hosts past --max-hosts-per-domain, {} bytes; in {}",
        summary.pages,
        summary.not_ok,
        summary.robots,
        summary.skipped,
        summary.refused,
        summary.discovered,
        summary.over_quota,
        summary.over_domain_quota,
        summary.bytes,
        data.display()
    );
    if summary.internal_errors > 0 {
        println!(
            "{} fetch tasks failed on a bug in freshet (outcome internal-error in the crawl log, with \
             the URL and the message): please report them",
            summary.internal_errors
        );
    }
    if summary.throttled_out > 0 {
        println!(
            "{} URLs not requested: their host asked to be left alone for longer than max-retry-after \
             and was given up (outcome host-given-up)",
            summary.throttled_out
        );
    }
    if summary.too_long > 0 {
        println!(
            "{} links or redirect targets not followed: longer than the 8 KiB a URL may have \
             (each page's log line says how many)",
            summary.too_long
        );
    }
    if summary.robots_deferred > 0 {
        println!(
            "{} page fetches waited because their host's robots.txt rules were too costly to check \
             at once (wildcard rules against long paths; each was checked later)",
            summary.robots_deferred
        );
    }
    if summary.identical_payloads > 0 {
        println!(
            "{} bodies the archive already held written as WARC revisit records, not stored again \
             ({} first captured under another URL)",
            summary.identical_payloads, summary.duplicates
        );
    }
    if summary.near_duplicates > 0 {
        println!(
            "{} pages whose main text nearly repeats a page fetched before under another URL \
             (the crawl log's detail names it)",
            summary.near_duplicates
        );
    }
    if summary.canonical_aliases > 0 {
        println!(
            "{} fetches of pages whose rel=canonical names another URL of their host (fetched once \
             unless revisit-canonical-aliases; the log line names the canonical URL)",
            summary.canonical_aliases
        );
    }
    if !summary.focus_arm_pulls.is_empty() {
        let pulls: Vec<String> =
            summary.focus_arm_pulls.iter().map(|(arm, pulls)| format!("{arm} {pulls}")).collect();
        println!("focused crawl's bandit: pages fetched by each estimator's choice: {}", pulls.join(", "));
    }
    if summary.handed_over + summary.handed_in > 0 {
        println!(
            "{} URLs handed to other shards, {} handed in by them; {} shares of importance (OPIC cash) sent along links to their pages, {} received",
            summary.handed_over, summary.handed_in, summary.cash_handed_over, summary.cash_handed_in
        );
    }
    if summary.sitemap_rereads > 0 {
        println!(
            "{} reads of hosts' sitemaps after their first in this run ({} files unchanged, answered 304 to \
             a conditional request)",
            summary.sitemap_rereads, summary.sitemap_not_modified
        );
    }
    if summary.sitemap_changes > 0 {
        println!(
            "{} known pages a sitemap's lastmod said changed since their last fetch, made due at once \
             ({} fetched since and found changed)",
            summary.sitemap_changes, summary.sitemap_changes_confirmed
        );
    }
    if summary.sitemap_vouched > 0 {
        println!(
            "{} copies a proved sitemap listed as unchanged, their ages counted from its read \
             ({} changes it missed found by Last-Modified)",
            summary.sitemap_vouched, summary.sitemap_misses
        );
    }
    if summary.sitemap_lastmods_ignored > 0 {
        println!(
            "{} hosts' sitemap lastmods ignored for the rest of the run: the fetches they caused \
             mostly found nothing changed (the log line of the page that decided it says so)",
            summary.sitemap_lastmods_ignored
        );
    }
    if summary.recovered_in_flight > 0 || summary.warc_bytes_cut > 0 {
        println!(
            "resumed after a crash: {} fetches were in flight, {} bytes of a torn WARC record cut",
            summary.recovered_in_flight, summary.warc_bytes_cut
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// A live line on standard error while the crawl runs (drawn only on a terminal): pages and
/// their rate, bytes, answers not ok, new URLs, pages due, hosts and `λ_0`, from the crawl's
/// own status every second, until `over` completes (or the crawl's status channel closes).
async fn show_progress(admin: freshet_crawl::Admin, mut over: tokio::sync::oneshot::Receiver<()>) {
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    while let Some(status) = admin.status().await {
        bar.set_message(format!(
            "{} pages ({:.1}/s), {:.1} MB, {} not ok, {} new URLs, {} due, {} hosts, λ_0 {:.2e}, expected freshness {:.3}",
            status.page_requests,
            status.fetches_per_second,
            status.bytes as f64 / 1e6,
            status.not_ok,
            status.discovered,
            status.due,
            status.host_count,
            status.lambda0,
            status.expected_freshness,
        ));
        bar.tick();
        tokio::select! {
            () = tokio::time::sleep(Duration::from_secs(1)) => {}
            _ = &mut over => break,
        }
    }
    bar.finish_and_clear();
}

/// Completes on Ctrl-C; never, if the signal cannot be watched.
async fn interrupted() {
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await;
    }
    eprintln!("interrupted: finishing the log and the WARC file");
}

/// The crawl's own record of its settings, in DIR.
const SETTINGS_FILE: &str = "crawl.toml";

/// The settings of this run: the crawl's own `crawl.toml` when resuming, then `--config`, then
/// the flags (see [`crate::crawl_settings`]).
fn settings(args: &CrawlArgs) -> anyhow::Result<CrawlSettings> {
    let mut settings = CrawlSettings::default();
    let kept = args.data.join(SETTINGS_FILE);
    if args.resume && kept.exists() {
        settings = CrawlSettings::read(&kept)?;
    }
    if let Some(file) = &args.config {
        settings = settings.overlay(CrawlSettings::read(file)?);
    }
    let flags = args.settings();
    flags.check(&Origin::CommandLine)?;
    Ok(settings.overlay(flags))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn worker_threads_sets_the_runtime_s_workers() {
        assert_eq!(crawl_runtime(Some(1)).unwrap().metrics().num_workers(), 1);
        assert_eq!(crawl_runtime(Some(3)).unwrap().metrics().num_workers(), 3);
        // None leaves tokio's own default (one a core, or TOKIO_WORKER_THREADS).
        let default = tokio::runtime::Builder::new_multi_thread().build().unwrap().metrics().num_workers();
        assert_eq!(crawl_runtime(None).unwrap().metrics().num_workers(), default);
    }
}
