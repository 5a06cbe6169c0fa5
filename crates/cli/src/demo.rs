//! `freshet demo`: the freshness loop against a known truth, side by side with the baselines.
//!
//! It starts three identical test webs in process (`freshet-testweb`: same seed, same hosts,
//! pages, links and change times; one server per crawler so that each server's own request
//! log is one crawler's), crawls each for the same time with the same budget and politeness
//! — freshet's policy, the uniform revisit baseline and Nutch's adaptive schedule
//! (`freshet_crawl::Revisit`) — and measures each crawl's ground-truth weighted freshness from
//! its server's log with `freshet_testweb::freshness` (exact, no sampling). The fluid optimum is
//! what `freshet-policy`'s solver gets from the true mean change rates and importances under
//! the same budget and host caps: no schedule can beat it on Poisson pages with the same
//! budget. Crawl data (frontier, WARC, crawl log) go to a temporary directory; the results
//! (`summary.json`, `freshness.csv`, `freshness.svg` and `.png`) to `--out`.
//!
//! The crawlers are told nothing of the truth: pages start with the prior `R/n` (one change
//! per uniform revisit interval, the simulator's learned-rate convention), importance is the
//! crawler's own, and rates are learned from what the fetches show.

use std::collections::HashMap;
use std::io::Write as _;
use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context as _, bail};
use freshet_crawl::{CrawlConfig, Crawler, Revisit};
use freshet_policy::objective::Freshness as FreshnessObjective;
use freshet_policy::{Objective as _, Page, Problem, solve};
use freshet_testweb::{Fetch, LogEntry, ServerConfig, SystemClock, TestWeb, Web, WebConfig, freshness};
use freshet_url::Scope;
use serde::Serialize;

use crate::plot::{Chart, Series, write_chart};
use crate::testweb::SitemapLastmodArg;

/// `freshet demo --help`, first part.
pub(crate) const LONG_ABOUT: &str = "\
Crawl a synthetic web whose every change is known, three times side by side with the same
budget and politeness: with freshet's policy (learned change rates and importance, the
threshold scheduler), with a uniform revisit baseline, and with Apache Nutch's adaptive
schedule. Then print each crawl's ground-truth weighted freshness (measured from each
server's own request log) against the fluid optimum that no schedule can beat, and write
summary.json, freshness.csv and a plot (freshness.png, freshness.svg) into --out.

Everything runs on 127.0.0.1; nothing else is contacted.";

/// Arguments of `freshet demo`.
#[derive(Debug, clap::Args)]
pub(crate) struct DemoArgs {
    /// How long each crawl runs, seconds (the three run at once).
    #[arg(long, value_name = "SECONDS", default_value_t = 150.0)]
    duration: f64,
    /// Hosts of the test web.
    #[arg(long, default_value_t = 24)]
    hosts: u32,
    /// Pages of the test web.
    #[arg(long, default_value_t = 2000)]
    pages: u32,
    /// The budget of each crawler: page requests per second.
    #[arg(long, value_name = "FETCHES_PER_SECOND", default_value_t = 40.0)]
    rate: f64,
    /// Model days per wall second (pages change 1/32 to 4 times a model day).
    #[arg(long, value_name = "X", default_value_t = 0.025)]
    time_scale: f64,
    /// Minimum seconds between two requests to one host.
    #[arg(long, value_name = "SECONDS", default_value_t = 0.05)]
    delay: f64,
    /// The fraction of the run left out of the averages, while the crawlers discover the web
    /// and learn.
    #[arg(long, value_name = "FRACTION", default_value_t = 0.4)]
    warmup: f64,
    /// Seed of the test web.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Pages carry per-request noise (a rotating ad, a timestamp, session tokens in links).
    #[arg(long)]
    noise: bool,
    /// The web sends no ETag or Last-Modified and never answers 304: changes must be told
    /// from the contents (with --noise, through the noise).
    #[arg(long)]
    no_validators: bool,
    /// What the webs' sitemaps' `<lastmod>`s say: none (the default), the time of each page's
    /// latest change, or the time of the request (a lying generator).
    #[arg(long, value_name = "KIND", value_enum, default_value_t = SitemapLastmodArg::None)]
    sitemap_lastmod: SitemapLastmodArg,
    /// Every crawler reads each host's sitemaps again this many seconds after its last read
    /// began (`sitemap-revisit`); without it, once per run (the crawler's default of a day).
    #[arg(long, value_name = "SECONDS")]
    sitemap_revisit: Option<f64>,
    /// Where the results go (created if missing; the files named above are overwritten).
    #[arg(long, value_name = "DIR", default_value = "freshet-demo")]
    out: PathBuf,
    /// Print the summary as JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// The policies the demo compares, in table order.
const POLICIES: [Revisit; 3] = [Revisit::Freshet, Revisit::Uniform, Revisit::Nutch];

/// Windows of the freshness-over-time series.
const WINDOWS: usize = 40;

/// One crawl's measured results.
#[derive(Debug, Serialize)]
struct PolicyResult {
    policy: &'static str,
    /// Ground-truth weighted freshness over the measured window.
    weighted_freshness: f64,
    /// Unweighted mean freshness over the measured window.
    unweighted_freshness: f64,
    /// Page requests the server saw (robots.txt and sitemaps not counted).
    page_requests: usize,
    /// Of those, 304 answers.
    not_modified: usize,
    /// Pairs of requests to one host closer than the delay, in the server's own log.
    politeness_violations: usize,
    /// Allowed pages fetched at least once.
    pages_fetched: u32,
}

/// What `--json` prints and `summary.json` holds.
#[derive(Debug, Serialize)]
struct Summary {
    freshet_freshness: f64,
    uniform_freshness: f64,
    nutch_freshness: f64,
    optimum: f64,
    freshet_to_optimum: f64,
    freshet_over_uniform: f64,
    freshet_over_nutch: f64,
    /// The measured window, seconds since the crawls started.
    window_seconds: (f64, f64),
    policies: Vec<PolicyResult>,
    hosts: u32,
    pages: u32,
    allowed_pages: usize,
    rate: f64,
    delay: f64,
    time_scale: f64,
    duration: f64,
    seed: u64,
    noise: bool,
    validators: bool,
    /// `none`, `exact` or `now`.
    sitemap_lastmod: &'static str,
    sitemap_revisit: Option<f64>,
}

/// Runs `freshet demo`.
pub(crate) fn run(args: &DemoArgs) -> anyhow::Result<ExitCode> {
    validate(args)?;
    std::fs::create_dir_all(&args.out).with_context(|| format!("creating --out {}", args.out.display()))?;
    let scratch = tempfile::tempdir().context("creating a temporary directory for the crawl data")?;
    let runtime =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting tokio")?;
    let (web, logs) = runtime.block_on(crawl_all(args, scratch.path()))?;
    let summary = measure(args, &web, &logs)?;
    write_results(args, &web, &logs, &summary)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        print_table(args, &summary);
    }
    Ok(ExitCode::SUCCESS)
}

fn validate(args: &DemoArgs) -> anyhow::Result<()> {
    let positive = |name: &str, value: f64| {
        if value.is_finite() && value > 0.0 {
            Ok(())
        } else {
            bail!("--{name} {value}: expected a positive number")
        }
    };
    positive("duration", args.duration)?;
    positive("rate", args.rate)?;
    positive("time-scale", args.time_scale)?;
    positive("delay", args.delay)?;
    if !(0.0..0.95).contains(&args.warmup) {
        bail!("--warmup {}: expected a fraction in [0, 0.95)", args.warmup);
    }
    if args.hosts == 0 || args.pages < args.hosts {
        bail!("--hosts {} --pages {}: need at least one host and one page per host", args.hosts, args.pages);
    }
    Ok(())
}

/// Starts one test web per policy, crawls them all at once, and returns the web's model with
/// each server's request log (in [`POLICIES`] order).
async fn crawl_all(args: &DemoArgs, scratch: &Path) -> anyhow::Result<(Web, Vec<Vec<LogEntry>>)> {
    let web_config =
        WebConfig { seed: args.seed, hosts: args.hosts, pages: args.pages, ..WebConfig::default() };
    let server_config = ServerConfig {
        web: web_config,
        time_scale: args.time_scale,
        noise: args.noise,
        validators: !args.no_validators,
        sitemap_lastmod: args.sitemap_lastmod.into(),
        ..ServerConfig::default()
    };
    let mut servers = Vec::new();
    for _ in POLICIES {
        let server = TestWeb::start(
            (Ipv4Addr::LOCALHOST, 0).into(),
            server_config.clone(),
            Arc::new(SystemClock::new()),
        )
        .await
        .context("starting a test web on 127.0.0.1")?;
        servers.push(server);
    }
    let mut crawls = Vec::new();
    for (policy, server) in POLICIES.iter().zip(&servers) {
        let config = crawl_config(args, *policy, server, &scratch.join(policy.name()))?;
        crawls.push(Crawler::open(config).with_context(|| format!("opening the {} crawl", policy.name()))?);
    }
    eprintln!(
        "crawling {} pages on {} hosts three times at once for {} s ({} requests/s each, {} s between requests to a host)…",
        args.pages, args.hosts, args.duration, args.rate, args.delay
    );
    let progress = progress(args, &servers);
    let mut runs = crawls.into_iter().map(|crawler| crawler.run(std::future::pending::<()>()));
    let (Some(first), Some(second), Some(third)) = (runs.next(), runs.next(), runs.next()) else {
        bail!("three crawls expected");
    };
    let (first, second, third, ()) = tokio::join!(first, second, third, progress);
    for (policy, result) in POLICIES.iter().zip([first, second, third]) {
        result.with_context(|| format!("the {} crawl", policy.name()))?;
    }
    let web = servers[0].web().clone();
    let logs = servers.iter().map(|server| server.log().entries()).collect();
    for server in servers {
        server.shutdown().await.context("stopping a test web")?;
    }
    Ok((web, logs))
}

/// Prints the request counts every 15 s while the crawls run.
async fn progress(args: &DemoArgs, servers: &[TestWeb]) {
    let started = tokio::time::Instant::now();
    let end = started + Duration::from_secs_f64(args.duration);
    loop {
        let next = (tokio::time::Instant::now() + Duration::from_secs(15)).min(end);
        tokio::time::sleep_until(next).await;
        let counts: Vec<String> = POLICIES
            .iter()
            .zip(servers)
            .map(|(policy, server)| format!("{} {}", policy.name(), server.log().len()))
            .collect();
        eprintln!("  {:>4.0} s: requests: {}", started.elapsed().as_secs_f64(), counts.join(", "));
        if next >= end {
            break;
        }
    }
}

fn crawl_config(
    args: &DemoArgs,
    policy: Revisit,
    server: &TestWeb,
    data: &Path,
) -> anyhow::Result<CrawlConfig> {
    let mut config = CrawlConfig::new(data);
    config.seeds.push(freshet_url::canonicalize(&server.url(&Web::host_name(0), "/"))?);
    config.scope = Scope::Domain;
    config.revisit = policy;
    config.rate = args.rate;
    config.delay = Duration::from_secs_f64(args.delay);
    config.duration = Some(Duration::from_secs_f64(args.duration));
    if let Some(seconds) = args.sitemap_revisit {
        config.sitemap_revisit =
            Some(Duration::try_from_secs_f64(seconds).context("--sitemap-revisit: not a number of seconds")?);
    }
    // One change per uniform revisit interval: the prior before anything is learned.
    config.change_rate_prior = args.rate / f64::from(args.pages);
    // Nutch's 60 s and 365 days are real time; the web runs `time_scale` days a second.
    let second_of_model = 1.0 / (86_400.0 * args.time_scale);
    config.nutch_interval_bounds = (60.0 * second_of_model, 365.0 * 86_400.0 * second_of_model);
    config.fetch.allow_private = true;
    config.fetch.user_agent = format!("freshet-demo/{}", env!("CARGO_PKG_VERSION"));
    config.fetch.resolve =
        server.host_names().into_iter().map(|host| (host, IpAddr::V4(Ipv4Addr::LOCALHOST))).collect();
    // The test web's hosts stand for separate servers (the fluid optimum caps each alone); they
    // share 127.0.0.1 only because they are served from this machine.
    config.fetch.max_in_flight_per_ip = None;
    config.validate()?;
    Ok(config)
}

/// The page fetches in a server's log that refreshed the copy (2xx and 304), in model time.
fn page_fetches(web: &Web, log: &[LogEntry]) -> Vec<Fetch> {
    log.iter()
        .filter(|entry| entry.status == 304 || (200..300).contains(&entry.status))
        .filter_map(|entry| {
            let host = web.host_index(&entry.host)?;
            let page = web.lookup(host, &entry.path)?;
            Some(Fetch { page, time: entry.model_time })
        })
        .collect()
}

/// Pairs of requests to one host that arrived closer than the delay.
fn politeness_violations(log: &[LogEntry], delay: f64) -> usize {
    let mut by_host: HashMap<&str, Vec<f64>> = HashMap::new();
    for entry in log {
        by_host.entry(&entry.host).or_default().push(entry.unix);
    }
    by_host
        .into_values()
        .map(|mut times| {
            times.sort_by(f64::total_cmp);
            times.windows(2).filter(|pair| pair[1] - pair[0] < delay).count()
        })
        .sum()
}

/// When the crawls started, in each log's model time: its first request.
fn start_model_time(log: &[LogEntry]) -> f64 {
    log.iter().map(|entry| entry.model_time).fold(f64::INFINITY, f64::min)
}

/// The fluid optimum of weighted freshness: the solver's rates for the true mean change rates
/// (per second) and importances of the allowed pages, under the budget and a cap of `1/delay`
/// requests per second per host.
fn fluid_optimum(args: &DemoArgs, web: &Web) -> anyhow::Result<f64> {
    let allowed: Vec<_> = web.pages().iter().filter(|page| page.allowed).collect();
    let pages: Vec<Page> = allowed
        .iter()
        .map(|page| Page::new(page.importance, page.process.mean_rate() * args.time_scale))
        .collect();
    let host_of_page: Vec<u32> = allowed.iter().map(|page| page.host).collect();
    let capacity = vec![1.0 / args.delay; web.host_count() as usize];
    let problem = Problem::host_capped(&pages, args.rate, &host_of_page, &capacity);
    let solution = solve(FreshnessObjective, &problem).context("solving for the fluid optimum")?;
    let total_weight: f64 = pages.iter().map(|page| page.weight).sum();
    let value: f64 =
        pages.iter().zip(&solution.rates).map(|(&page, &rate)| FreshnessObjective.value(page, rate)).sum();
    Ok(value / total_weight)
}

fn measure(args: &DemoArgs, web: &Web, logs: &[Vec<LogEntry>]) -> anyhow::Result<Summary> {
    let model_duration = args.duration * args.time_scale;
    let mut policies = Vec::new();
    for (policy, log) in POLICIES.iter().zip(logs) {
        let fetches = page_fetches(web, log);
        let start = start_model_time(log);
        let (from, to) = (start + args.warmup * model_duration, start + model_duration);
        let measured = freshness(web, &fetches, from, to);
        let page_requests = log.iter().filter(|entry| is_page(entry)).count();
        policies.push(PolicyResult {
            policy: policy.name(),
            weighted_freshness: measured.weighted,
            unweighted_freshness: measured.unweighted,
            page_requests,
            not_modified: log.iter().filter(|entry| entry.status == 304).count(),
            politeness_violations: politeness_violations(log, args.delay),
            pages_fetched: measured.pages_fetched,
        });
    }
    let optimum = fluid_optimum(args, web)?;
    let [freshet, uniform, nutch] = [0, 1, 2].map(|index| policies[index].weighted_freshness);
    let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { f64::NAN };
    Ok(Summary {
        freshet_freshness: freshet,
        uniform_freshness: uniform,
        nutch_freshness: nutch,
        optimum,
        freshet_to_optimum: ratio(freshet, optimum),
        freshet_over_uniform: ratio(freshet, uniform),
        freshet_over_nutch: ratio(freshet, nutch),
        window_seconds: (args.warmup * args.duration, args.duration),
        policies,
        hosts: args.hosts,
        pages: args.pages,
        allowed_pages: web.pages().iter().filter(|page| page.allowed).count(),
        rate: args.rate,
        delay: args.delay,
        time_scale: args.time_scale,
        duration: args.duration,
        seed: args.seed,
        noise: args.noise,
        validators: !args.no_validators,
        sitemap_lastmod: match args.sitemap_lastmod {
            SitemapLastmodArg::None => "none",
            SitemapLastmodArg::Exact => "exact",
            SitemapLastmodArg::Now => "now",
        },
        sitemap_revisit: args.sitemap_revisit,
    })
}

fn is_page(entry: &LogEntry) -> bool {
    entry.path != "/robots.txt" && !entry.path.starts_with("/sitemap")
}

/// The freshness of each crawl over consecutive windows, as `(seconds since start, freshness)`.
fn series(args: &DemoArgs, web: &Web, logs: &[Vec<LogEntry>]) -> Vec<Series> {
    let window = args.duration / WINDOWS as f64;
    POLICIES
        .iter()
        .zip(logs)
        .map(|(policy, log)| {
            let fetches = page_fetches(web, log);
            let start = start_model_time(log);
            let points = (0..WINDOWS)
                .map(|index| {
                    let from = index as f64 * window;
                    let to = from + window;
                    let model = |seconds: f64| start + seconds * args.time_scale;
                    (from + window / 2.0, freshness(web, &fetches, model(from), model(to)).weighted)
                })
                .collect();
            Series { name: policy.name().to_owned(), points }
        })
        .collect()
}

fn write_results(
    args: &DemoArgs,
    web: &Web,
    logs: &[Vec<LogEntry>],
    summary: &Summary,
) -> anyhow::Result<()> {
    let json_path = args.out.join("summary.json");
    std::fs::write(&json_path, serde_json::to_string_pretty(summary)? + "\n")
        .with_context(|| format!("writing {}", json_path.display()))?;
    let lines = series(args, web, logs);
    let csv_path = args.out.join("freshness.csv");
    let mut csv = Vec::new();
    writeln!(csv, "seconds,policy,weighted_freshness")?;
    for line in &lines {
        for (seconds, value) in &line.points {
            writeln!(csv, "{seconds},{},{value}", line.name)?;
        }
    }
    std::fs::write(&csv_path, csv).with_context(|| format!("writing {}", csv_path.display()))?;
    let chart = Chart {
        title: format!(
            "Ground-truth weighted freshness: {} pages, {} hosts, {} requests/s",
            args.pages, args.hosts, args.rate
        ),
        x_label: "seconds since the crawls started".into(),
        y_label: "weighted freshness".into(),
        series: lines,
        references: vec![("fluid optimum".into(), summary.optimum)],
    };
    write_chart(&chart, &args.out.join("freshness.svg"), &args.out.join("freshness.png"))
}

fn print_table(args: &DemoArgs, summary: &Summary) {
    println!(
        "weighted freshness from {:.0} s to {:.0} s (ground truth, from each server's request log):",
        summary.window_seconds.0, summary.window_seconds.1
    );
    println!(
        "{:<10} {:>10} {:>10} {:>10} {:>8} {:>10}",
        "policy", "freshness", "of optimum", "requests", "304s", "violations"
    );
    for result in &summary.policies {
        println!(
            "{:<10} {:>10.4} {:>10.3} {:>10} {:>8} {:>10}",
            result.policy,
            result.weighted_freshness,
            result.weighted_freshness / summary.optimum,
            result.page_requests,
            result.not_modified,
            result.politeness_violations
        );
    }
    println!(
        "{:<10} {:>10.4}   (the solver's, from the true rates; no schedule beats it)",
        "optimum", summary.optimum
    );
    println!(
        "freshet / uniform = {:.3}, freshet / nutch = {:.3}; results in {}",
        summary.freshet_over_uniform,
        summary.freshet_over_nutch,
        args.out.display()
    );
}
