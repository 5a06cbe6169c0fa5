//! `freshet crawl`: crawl from seed URLs into `DIR` (WARC, crawl log, frontier store) with the
//! crawl loop of `freshet-crawl`, until nothing is left, `--max-pages`, or Ctrl-C.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context as _, bail};
use std::collections::HashMap;
use std::sync::Arc;

use freshet_crawl::{CrawlConfig, Crawler, Importance, Revisit, StopReason};
use freshet_url::{Scope, Url};

/// `freshet crawl --help`, first part.
pub(crate) const LONG_ABOUT: &str = "\
Crawl from seed URLs, politely, into DIR.

DIR holds everything: warc/*.warc.gz (request and response records, one gzip member each),
crawl.jsonl (one JSON line per request of a page, a robots.txt or a sitemap: time, kind, url,
status, bytes, duration_ms, fingerprint, outcome; and one per URL skipped because robots.txt
disallows it) and frontier.redb (every URL seen, for --resume).

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
A revisiting crawl runs until --duration, --max-pages or Ctrl-C. Ctrl-C stops cleanly:
fetches in flight are abandoned, everything else is flushed, and --resume continues.

Addresses that are loopback, private, link-local or unique-local are refused after DNS
unless --allow-private is given.";

/// `freshet crawl --help`, last part.
pub(crate) const AFTER_LONG_HELP: &str = "\
Example, against `freshet testweb --port 8080`:
  freshet crawl http://h0.web.test:8080/ --data crawl-data --scope domain --delay 0.1 \\
      --allow-private --resolve h0.web.test=127.0.0.1 --resolve h1.web.test=127.0.0.1 …";

/// How far links are followed.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum ScopeArg {
    /// The seed's host only.
    Host,
    /// The seed's registered domain (public suffix list).
    Domain,
    /// Anywhere.
    Any,
}

/// How fetched pages are revisited (`freshet_crawl::Revisit`).
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum RevisitArg {
    /// Learned change rates and importance, the threshold scheduler (seed 003).
    Freshet,
    /// The same interval for every page (round robin).
    Uniform,
    /// Apache Nutch's adaptive intervals (×0.8 on change, ×1.2 without).
    Nutch,
    /// No revisits: one pass.
    Once,
}

/// Where page weights come from (`freshet_crawl::Importance`).
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum ImportanceArg {
    /// OPIC, learned online from the links followed (Abiteboul et al.; seed 002).
    Opic,
    /// Distinct in-links from fetched pages.
    InDegree,
}

/// Arguments of `freshet crawl`.
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
    /// Continue the crawl in DIR (seeds given now are added to it).
    #[arg(long)]
    resume: bool,
    /// Stop after N page requests (robots.txt not counted).
    #[arg(long, value_name = "N")]
    max_pages: Option<u64>,
    /// Stop after this many seconds.
    #[arg(long, value_name = "SECONDS")]
    duration: Option<f64>,
    /// How fetched pages are revisited.
    #[arg(long, value_enum, default_value_t = RevisitArg::Freshet)]
    revisit: RevisitArg,
    /// The global budget: page requests per second over all hosts.
    #[arg(long, value_name = "FETCHES_PER_SECOND", default_value_t = 1000.0)]
    rate: f64,
    /// Where page importance (the weight w of freshet's policy) comes from; --weights overrides.
    #[arg(long, value_enum, default_value_t = ImportanceArg::Opic)]
    importance: ImportanceArg,
    /// Page weights from a CSV file with a header holding `url` and `weight` (URLs are
    /// canonicalised; pages not listed weigh 1).
    #[arg(long, value_name = "FILE")]
    weights: Option<PathBuf>,
    /// The mean time between changes a page is assumed to have before anything is learned
    /// about it (the prior).
    #[arg(long, value_name = "SECONDS", default_value_t = freshet_crawl::DAY)]
    change_interval: f64,
    /// Minimum seconds between two requests to one host.
    #[arg(long, value_name = "SECONDS", default_value_t = 1.0)]
    delay: f64,
    /// At most N requests in flight at once to one host. More than 1 turns that part of
    /// politeness off (robots.txt and --delay between starts still hold): for benchmarks
    /// against your own server.
    #[arg(long, value_name = "N", default_value_t = 1)]
    max_in_flight_per_host: u32,
    /// The gzip level of the WARC records: 0 (store) to 9 (smallest); 1 is about 2.4 times as
    /// fast as 6 for files about 37% larger.
    #[arg(long, value_name = "LEVEL", default_value_t = 6, value_parser = clap::value_parser!(u32).range(0..=9))]
    warc_gzip_level: u32,
    /// Which links to follow, relative to the seeds.
    #[arg(long, value_enum, default_value_t = ScopeArg::Host)]
    scope: ScopeArg,
    /// Follow links at most this many hops from a seed (sitemap entries count one).
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
    /// Allow loopback, private, link-local and unique-local addresses (testweb, intranets).
    #[arg(long)]
    allow_private: bool,
    /// Resolve HOST to IP instead of asking DNS (as curl's --resolve; repeatable).
    #[arg(long, value_name = "HOST=IP")]
    resolve: Vec<String>,
    /// Serve Prometheus metrics (/metrics), the status (/status, read by `freshet status`) and
    /// page explanations (/explain?url=, read by `freshet explain`) on this address.
    #[arg(long, value_name = "ADDR")]
    listen: Option<std::net::SocketAddr>,
    /// The User-Agent sent; its product token is the name robots.txt rules are matched with.
    #[arg(long, value_name = "UA")]
    user_agent: Option<String>,
    /// Do not fetch the sitemaps robots.txt names: URLs come from links only.
    #[arg(long)]
    no_sitemaps: bool,
}

/// Runs `freshet crawl`.
pub(crate) fn run(args: &CrawlArgs) -> anyhow::Result<ExitCode> {
    let config = build_config(args)?;
    let runtime =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting tokio")?;
    let data = config.data_dir.clone();
    let summary = runtime.block_on(async {
        let crawler = Crawler::open(config)?;
        if let Some(address) = args.listen {
            let bound = crate::admin::serve(address, crawler.admin()).await?;
            eprintln!("serving /metrics, /status and /explain on http://{bound}");
        }
        let progress = tokio::spawn(show_progress(crawler.admin()));
        let summary = crawler.run(interrupted()).await;
        // The crawl is over and its status channel closed: the line clears itself.
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
         {} new URLs ({} over --host-quota), {} bytes; in {}",
        summary.pages,
        summary.not_ok,
        summary.robots,
        summary.skipped,
        summary.refused,
        summary.discovered,
        summary.over_quota,
        summary.bytes,
        data.display()
    );
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
/// own status every second.
async fn show_progress(admin: freshet_crawl::Admin) {
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
        tokio::time::sleep(Duration::from_secs(1)).await;
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

fn build_config(args: &CrawlArgs) -> anyhow::Result<CrawlConfig> {
    let mut config = CrawlConfig::new(&args.data);
    for seed in &args.seeds {
        config.seeds.push(parse_seed(seed).with_context(|| format!("seed {seed:?}"))?);
    }
    if let Some(file) = &args.seeds_file {
        config.seeds.extend(read_seeds(file)?);
    }
    config.resume = args.resume;
    config.max_pages = args.max_pages;
    if !(args.delay.is_finite() && args.delay >= 0.0) {
        bail!("--delay {}: expected a number of seconds, 0 or more", args.delay);
    }
    config.delay = Duration::from_secs_f64(args.delay);
    config.max_in_flight_per_host = args.max_in_flight_per_host;
    config.warc_gzip_level = args.warc_gzip_level;
    if let Some(seconds) = args.duration {
        if !(seconds.is_finite() && seconds > 0.0) {
            bail!("--duration {seconds}: expected a positive number of seconds");
        }
        config.duration = Some(Duration::from_secs_f64(seconds));
    }
    config.revisit = match args.revisit {
        RevisitArg::Freshet => Revisit::Freshet,
        RevisitArg::Uniform => Revisit::Uniform,
        RevisitArg::Nutch => Revisit::Nutch,
        RevisitArg::Once => Revisit::Once,
    };
    config.rate = args.rate;
    if !(args.change_interval.is_finite() && args.change_interval > 0.0) {
        bail!("--change-interval {}: expected a positive number of seconds", args.change_interval);
    }
    config.change_rate_prior = 1.0 / args.change_interval;
    config.importance = match (&args.weights, args.importance) {
        (Some(file), _) => Importance::Given(Arc::new(read_weights(file)?)),
        (None, ImportanceArg::Opic) => Importance::Opic,
        (None, ImportanceArg::InDegree) => Importance::InDegree,
    };
    config.scope = match args.scope {
        ScopeArg::Host => Scope::Host,
        ScopeArg::Domain => Scope::Domain,
        ScopeArg::Any => Scope::Any,
    };
    config.max_depth = args.max_depth;
    config.host_quota = args.host_quota;
    let compile = |flag: &str, pattern: &String| {
        regex::Regex::new(pattern).with_context(|| format!("{flag} {pattern:?}: not a regular expression"))
    };
    config.include =
        args.include.iter().map(|pattern| compile("--include", pattern)).collect::<anyhow::Result<_>>()?;
    config.exclude =
        args.exclude.iter().map(|pattern| compile("--exclude", pattern)).collect::<anyhow::Result<_>>()?;
    config.fetch.allow_private = args.allow_private;
    config.sitemaps = !args.no_sitemaps;
    for given in &args.resolve {
        config.fetch.resolve.push(freshet_fetch::parse_resolve(given)?);
    }
    if let Some(user_agent) = &args.user_agent {
        config.fetch.user_agent.clone_from(user_agent);
    }
    config.validate()?;
    Ok(config)
}

fn parse_seed(text: &str) -> anyhow::Result<Url> {
    Ok(freshet_url::canonicalize(text.trim())?)
}

/// Seeds from `file`, one URL per line; a bad one is named by file and line.
fn read_seeds(file: &Path) -> anyhow::Result<Vec<Url>> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("reading --seeds {}", file.display()))?;
    let mut seeds = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        seeds.push(parse_seed(line).with_context(|| format!("{}:{}", file.display(), index + 1))?);
    }
    Ok(seeds)
}

/// One row of `--weights`.
#[derive(Debug, serde::Deserialize)]
struct WeightRow {
    url: String,
    weight: f64,
}

/// `--weights FILE`: canonical URL → weight; a bad row is named by file and line.
fn read_weights(file: &Path) -> anyhow::Result<HashMap<String, f64>> {
    let mut reader =
        csv::Reader::from_path(file).with_context(|| format!("reading --weights {}", file.display()))?;
    let mut weights = HashMap::new();
    for row in reader.deserialize::<WeightRow>() {
        let row = row.with_context(|| format!("--weights {}", file.display()))?;
        let url = parse_seed(&row.url)
            .with_context(|| format!("--weights {}: url {:?}", file.display(), row.url))?;
        if !(row.weight.is_finite() && row.weight > 0.0) {
            bail!(
                "--weights {}: weight {} of {}: expected a positive number",
                file.display(),
                row.weight,
                row.url
            );
        }
        weights.insert(url.to_string(), row.weight);
    }
    Ok(weights)
}
