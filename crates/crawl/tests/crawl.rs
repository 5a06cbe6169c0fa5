//! End to end against testweb on 127.0.0.1: a whole crawl, and a crawl interrupted then
//! resumed. Every check reads an independent witness: testweb's model (the truth), the server's
//! own request log, the WARC files (freshet-warc's reader and warcio) and `crawl.jsonl`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{read_log, warc_files, warcio_check};

use std::collections::{HashMap, HashSet};
use std::net::{IpAddr, Ipv4Addr};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use freshet_crawl::{CrawlConfig, CrawlSummary, Crawler, LogKind, LogLine, Revisit, StopReason};
use freshet_frontier::FrontierStore as _;
use freshet_testweb::{
    LogEntry, Misbehaviour, MisbehaviourSettings, ServerConfig, SystemClock, TestWeb, Web, WebConfig,
};
use freshet_warc::WarcReader;

const DELAY: Duration = Duration::from_millis(50);

async fn testweb(hosts: u32, pages: u32) -> TestWeb {
    let config =
        ServerConfig { web: WebConfig { hosts, pages, ..WebConfig::default() }, ..ServerConfig::default() };
    TestWeb::start("127.0.0.1:0".parse().unwrap(), config, Arc::new(SystemClock::new())).await.unwrap()
}

fn config(web: &TestWeb, data: &Path) -> CrawlConfig {
    common::testweb_config(web, data, DELAY)
}

/// The pages robots.txt allows, as `(host, path)`: the truth a full crawl must match.
fn allowed_pages(web: &TestWeb) -> HashSet<(String, String)> {
    let model = web.web();
    (0..model.page_count())
        .filter(|&id| model.page(id).unwrap().allowed)
        .map(|id| (freshet_testweb::Web::host_name(model.page(id).unwrap().host), model.path(id)))
        .collect()
}

fn page_requests(log: &[LogEntry]) -> Vec<(String, String)> {
    log.iter()
        .filter(|e| e.path != "/robots.txt" && !is_sitemap(&e.path))
        .map(|e| (e.host.clone(), e.path.clone()))
        .collect()
}

/// testweb's sitemap paths: `/sitemap.xml` and the parts of an index, `/sitemap-{k}.xml`.
fn is_sitemap(path: &str) -> bool {
    path == "/sitemap.xml" || path.strip_prefix("/sitemap-").is_some_and(|rest| rest.ends_with(".xml"))
}

/// No two requests to one host closer than the delay, in the server's own clock.
fn assert_polite(log: &[LogEntry]) {
    let mut by_host: HashMap<&str, Vec<f64>> = HashMap::new();
    for entry in log {
        by_host.entry(&entry.host).or_default().push(entry.unix);
    }
    for (host, mut times) in by_host {
        times.sort_by(f64::total_cmp);
        let closest = times.windows(2).map(|w| w[1] - w[0]).fold(f64::INFINITY, f64::min);
        assert!(closest >= DELAY.as_secs_f64(), "{host}: two requests {closest:.4} s apart");
    }
}

/// `(record type, target URI)` of every record, read back with freshet-warc's reader; a
/// revisit's type carries its profile's last segment (`revisit/server-not-modified`).
fn warc_records(data: &Path) -> Vec<(String, String)> {
    let mut records = Vec::new();
    for file in warc_files(data) {
        assert!(file.to_str().unwrap().ends_with(".warc.gz"), "{file:?} left open");
        for record in WarcReader::open(&file).unwrap() {
            let record = record.unwrap();
            let mut kind = record.header.record_type().unwrap().to_owned();
            if let Some(profile) = record.header.get("WARC-Profile") {
                // `revisit/server-not-modified`, `revisit/identical-payload-digest`.
                kind = format!("{kind}/{}", profile.rsplit('/').next().unwrap_or_default());
            }
            let target = record.header.get("WARC-Target-URI").unwrap_or_default().to_owned();
            records.push((kind, target));
        }
    }
    records
}

async fn crawl(config: CrawlConfig, stop: impl std::future::Future<Output = ()>) -> CrawlSummary {
    Crawler::open(config).unwrap().run(stop).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_crawl_fetches_every_allowed_page_once_politely_into_warc() {
    let web = testweb(5, 300).await;
    let data = tempfile::tempdir().unwrap();
    let summary = crawl(config(&web, data.path()), std::future::pending()).await;
    let log = web.log().entries();
    let allowed = allowed_pages(&web);

    // Every allowed page exactly once, nothing else but robots.txt, once per host.
    let requests = page_requests(&log);
    let unique: HashSet<_> = requests.iter().cloned().collect();
    assert_eq!(requests.len(), unique.len(), "a page was fetched twice");
    assert_eq!(unique, allowed);
    assert!(requests.iter().all(|(_, path)| !path.starts_with("/private/")));
    assert_eq!(log.iter().filter(|e| e.path == "/robots.txt").count(), 5);
    // Each host's robots.txt names its /sitemap.xml (a urlset at this size): requested once
    // each, after robots.txt, in the host's politeness slots (assert_polite counts them).
    let sitemaps: Vec<&LogEntry> = log.iter().filter(|e| is_sitemap(&e.path)).collect();
    assert_eq!(sitemaps.len(), 5);
    assert!(sitemaps.iter().all(|e| e.path == "/sitemap.xml" && e.status == 200));
    assert_eq!(sitemaps.iter().map(|e| &e.host).collect::<HashSet<_>>().len(), 5);
    for sitemap in &sitemaps {
        let robots = log.iter().find(|e| e.host == sitemap.host && e.path == "/robots.txt").unwrap();
        assert!(robots.seq < sitemap.seq, "{}: sitemap before robots.txt", sitemap.host);
    }
    assert_polite(&log);

    assert_eq!(summary.stopped, StopReason::Done);
    assert_eq!(summary.pages, allowed.len() as u64);
    assert_eq!(summary.robots, 5);
    assert_eq!(summary.not_ok, 0);
    assert!(summary.skipped > 0, "testweb links to /private/ pages: some must be skipped");

    // The log: one line per request, one per skip.
    let lines = read_log(data.path());
    let page_lines: Vec<&LogLine> = lines.iter().filter(|l| l.kind == LogKind::Page).collect();
    assert_eq!(page_lines.len(), requests.len());
    assert!(page_lines.iter().all(|l| l.status == Some(200) && l.outcome == "ok" && l.fingerprint.is_some()));
    assert_eq!(lines.iter().filter(|l| l.kind == LogKind::Robots).count(), 5);
    let skipped: Vec<&LogLine> = lines.iter().filter(|l| l.kind == LogKind::Skipped).collect();
    assert_eq!(skipped.len() as u64, summary.skipped);
    assert!(skipped.iter().all(|l| l.url.contains("/private/")));
    // One sitemap line per host, saying how many URLs it listed: the host's allowed pages.
    let sitemap_lines: Vec<&LogLine> = lines.iter().filter(|l| l.kind == LogKind::Sitemap).collect();
    assert_eq!(sitemap_lines.len(), 5);
    for line in &sitemap_lines {
        let host = freshet_url::canonicalize(&line.url).unwrap().host_str().unwrap().to_owned();
        let listed = allowed.iter().filter(|(page_host, _)| *page_host == host).count();
        assert_eq!(line.outcome, "ok");
        assert_eq!(line.detail.as_deref(), Some(format!("urlset: {listed} URLs, 0 problems").as_str()));
    }

    // WARC: a request and a response per request made, readable by both readers.
    let records = warc_records(data.path());
    let responses: HashSet<&str> =
        records.iter().filter(|(kind, _)| kind == "response").map(|(_, target)| target.as_str()).collect();
    assert_eq!(responses.len(), requests.len() + 5 + 5);
    assert_eq!(records.iter().filter(|(kind, _)| kind == "request").count(), requests.len() + 5 + 5);
    assert!(page_lines.iter().all(|l| responses.contains(l.url.as_str())));
    assert!(sitemap_lines.iter().all(|l| responses.contains(l.url.as_str())));
    warcio_check(data.path());

    // A second run without --resume refuses the directory.
    let error = Crawler::open(config(&web, data.path())).err().unwrap();
    assert!(error.to_string().contains("--resume"), "{error}");
}

/// Politeness explicitly off (no delay, 4 fetches in flight per host, as the benchmarks run):
/// still every allowed page once, nothing disallowed, and each host's robots.txt requested once,
/// before any other request to the host (its other pages wait for it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn several_fetches_per_host_still_obey_robots_txt_and_fetch_each_page_once() {
    let web = testweb(3, 300).await;
    let data = tempfile::tempdir().unwrap();
    let mut config = config(&web, data.path());
    config.delay = Duration::ZERO;
    config.max_in_flight_per_host = 4;
    let summary = crawl(config, std::future::pending()).await;
    let log = web.log().entries();
    let requests = page_requests(&log);
    let unique: HashSet<_> = requests.iter().cloned().collect();
    assert_eq!(requests.len(), unique.len(), "a page was fetched twice");
    assert_eq!(unique, allowed_pages(&web));
    assert!(requests.iter().all(|(_, path)| !path.starts_with("/private/")));
    let robots: Vec<&LogEntry> = log.iter().filter(|e| e.path == "/robots.txt").collect();
    assert_eq!(robots.len(), 3, "robots.txt requested more than once per host");
    for entry in log.iter().filter(|e| e.path != "/robots.txt") {
        let first = robots.iter().find(|r| r.host == entry.host).unwrap();
        assert!(first.seq < entry.seq, "{}{} requested before robots.txt", entry.host, entry.path);
    }
    assert_eq!(summary.stopped, StopReason::Done);
    assert_eq!(summary.pages, unique.len() as u64);
    assert!(summary.skipped > 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupted_crawl_resumes_and_a_page_limit_stops_one() {
    let web = testweb(4, 120).await;
    let data = tempfile::tempdir().unwrap();
    let allowed = allowed_pages(&web);

    // 1. A page limit.
    let mut limited = config(&web, data.path());
    limited.max_pages = Some(20);
    let first = crawl(limited, std::future::pending()).await;
    assert_eq!(first.stopped, StopReason::MaxPages);
    assert_eq!(first.pages, 20);
    assert_eq!(page_requests(&web.log().entries()).len(), 20);

    // 2. Resumed, then interrupted (as Ctrl-C does) while fetches are in flight.
    let mut resumed = config(&web, data.path());
    resumed.seeds.clear();
    resumed.resume = true;
    // Interrupted once it has fetched something (a fixed time is too short on a loaded
    // machine: a resumed crawl first waits a delay per host), with more in flight.
    let crawler = Crawler::open(resumed.clone()).unwrap();
    let admin = crawler.admin();
    let interrupt = async move {
        // Page requests started, less every job in flight: pages done, at least.
        while admin.status().await.is_some_and(|status| status.page_requests <= status.in_flight as u64) {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let second = crawler.run(interrupt).await.unwrap();
    assert_eq!(second.stopped, StopReason::Interrupted);
    assert!(second.pages > 0);

    // 3. Resumed to the end, at once: the stored turns of the hosts keep the delay.
    let third = crawl(resumed, std::future::pending()).await;
    assert_eq!(third.stopped, StopReason::Done);

    let log = web.log().entries();
    let requests = page_requests(&log);
    let unique: HashSet<_> = requests.iter().cloned().collect();
    assert_eq!(unique, allowed);
    // Only a fetch abandoned at the interruption may be made twice: at most one per host.
    let twice = requests.len() - unique.len();
    assert!(twice <= 4, "{twice} pages fetched twice");
    let recorded = first.pages + second.pages + third.pages;
    assert_eq!(recorded as usize, unique.len(), "every page recorded exactly once");
    assert_polite(&log);

    let lines = read_log(data.path());
    assert_eq!(lines.iter().filter(|l| l.kind == LogKind::Page).count() as u64, recorded);
    let records = warc_records(data.path());
    let responses = records.iter().filter(|(kind, _)| kind == "response").count() as u64;
    let sitemaps = lines.iter().filter(|l| l.kind == LogKind::Sitemap).count() as u64;
    assert_eq!(responses, recorded + first.robots + second.robots + third.robots + sitemaps);
    warcio_check(data.path());
}

/// Spearman's rank correlation (ties broken by order; the rates here are continuous).
fn spearman(pairs: &[(f64, f64)]) -> f64 {
    let ranks = |values: Vec<f64>| {
        let mut order: Vec<usize> = (0..values.len()).collect();
        order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
        let mut ranks = vec![0.0; values.len()];
        for (rank, index) in order.into_iter().enumerate() {
            ranks[index] = rank as f64;
        }
        ranks
    };
    let x = ranks(pairs.iter().map(|pair| pair.0).collect());
    let y = ranks(pairs.iter().map(|pair| pair.1).collect());
    let n = x.len() as f64;
    let d2: f64 = x.iter().zip(&y).map(|(a, b)| (a - b) * (a - b)).sum();
    1.0 - 6.0 * d2 / (n * (n * n - 1.0))
}

/// Reads the change rates learned in `data`'s store and compares them with the test web's
/// true mean rates (a 40-page web on 2 hosts, `time_scale` model days a second), over the pages
/// with at least three observations: Spearman's correlation and the median factor between
/// estimate and truth.
fn learned_against_truth(data: &Path, time_scale: f64) -> (f64, f64) {
    let store = freshet_frontier::RedbStore::open(data.join("frontier.redb")).unwrap();
    let model = Web::new(WebConfig { hosts: 2, pages: 40, ..WebConfig::default() }).unwrap();
    let mut pairs = Vec::new();
    for stored in store.pages(None, 1000).unwrap() {
        let memory = freshet_crawl::revisit::PageMemory::from_bytes(&stored.record.estimator).unwrap();
        if memory.history.intervals() < 3 {
            continue;
        }
        let url = freshet_url::canonicalize(&stored.url).unwrap();
        let host = model.host_index(url.host_str().unwrap()).unwrap();
        let page = model.lookup(host, url.path()).unwrap();
        let truth = model.page(page).unwrap().process.mean_rate() * time_scale;
        pairs.push((stored.record.change_rate, truth));
    }
    assert!(pairs.len() >= 30, "only {} pages with three observations", pairs.len());
    let correlation = spearman(&pairs);
    let mut log_errors: Vec<f64> =
        pairs.iter().map(|(estimate, truth)| (estimate / truth).ln().abs()).collect();
    log_errors.sort_by(f64::total_cmp);
    let median_factor = log_errors[log_errors.len() / 2].exp();
    eprintln!("{} pages: Spearman {correlation:.3}, median error ×{median_factor:.2}", pairs.len());
    (correlation, median_factor)
}

/// A crawl of 16 s with freshet's policy on a 40-page, 2-host web changing a model day a second.
async fn crawl_fast_web(noise: bool, validators: bool, data: &Path) -> (TestWeb, CrawlSummary) {
    let server = ServerConfig {
        web: WebConfig { hosts: 2, pages: 40, ..WebConfig::default() },
        time_scale: 1.0,
        noise,
        validators,
        ..ServerConfig::default()
    };
    let web =
        TestWeb::start("127.0.0.1:0".parse().unwrap(), server, Arc::new(SystemClock::new())).await.unwrap();
    let mut config = config(&web, data);
    config.revisit = Revisit::Freshet;
    config.rate = 30.0;
    config.change_rate_prior = config.rate / 40.0;
    config.duration = Some(Duration::from_secs(16));
    let summary = crawl(config, std::future::pending()).await;
    (web, summary)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn noise_is_not_a_change_on_pages_without_validators() {
    // Every page carries a rotating ad, a timestamp and session tokens, and the server sends
    // no ETag or Last-Modified: only the contents tell a change.
    let data = tempfile::tempdir().unwrap();
    let (web, summary) = crawl_fast_web(true, false, data.path()).await;
    assert_eq!(summary.stopped, StopReason::TimeUp);
    let log = web.log().entries();
    assert_eq!(log.iter().filter(|entry| entry.status == 304).count(), 0);
    assert_polite(&log);
    web.shutdown().await.unwrap();
    // The bodies differ on every fetch (the log's xxh3 of each body is new each time)…
    let lines = read_log(data.path());
    let bodies: Vec<&str> = lines
        .iter()
        .filter(|line| line.kind == LogKind::Page)
        .filter_map(|line| line.fingerprint.as_deref())
        .collect();
    let distinct: HashSet<&str> = bodies.iter().copied().collect();
    assert!(bodies.len() > 300, "{} complete bodies", bodies.len());
    // (The one 404 page, `/login`, has no noise.)
    assert!(
        distinct.len() + 5 >= bodies.len(),
        "noise makes every page new: {} of {}",
        distinct.len(),
        bodies.len()
    );
    // …yet the learned rates follow the real changes: counting every fetch as a change would
    // give every page about one change per fetch interval.
    // Measured: Spearman 0.76–0.81, median ×1.56 (prior worth 2 fetches) to ×2.9 (the
    // default 20). Noise counted as change would put every page near one change per fetch
    // interval (~0.75 a second): ×10 and more for most pages, and ranks at random.
    let (correlation, median_factor) = learned_against_truth(data.path(), 1.0);
    assert!(correlation >= 0.6, "Spearman {correlation:.3} between learned and true rates");
    assert!(median_factor <= 4.0, "median learned/true rate off by ×{median_factor:.2}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_freshness_loop_revisits_politely_and_learns_the_change_rates() {
    // A model day a second: pages change between 1/32 and 4 times a second (the 40 pages of
    // this web between 0.03 and 0.7), so 16 s show most pages changing a few times.
    let time_scale = 1.0;
    let data = tempfile::tempdir().unwrap();
    let (web, summary) = crawl_fast_web(false, true, data.path()).await;
    assert_eq!(summary.stopped, StopReason::TimeUp);

    // Revisits: every allowed page many times, politely, never a disallowed one, conditional
    // GETs answered 304 and archived as WARC revisit records.
    let log = web.log().entries();
    let requests = page_requests(&log);
    let mut per_page: HashMap<(String, String), usize> = HashMap::new();
    for request in &requests {
        *per_page.entry(request.clone()).or_default() += 1;
    }
    let allowed = allowed_pages(&web);
    assert_eq!(per_page.keys().cloned().collect::<HashSet<_>>(), allowed);
    let fewest = per_page.values().copied().min().unwrap();
    assert!(fewest >= 3, "a page was fetched only {fewest} times in 16 s");
    assert_polite(&log);
    let not_modified = log.iter().filter(|entry| entry.status == 304).count();
    assert!(not_modified > 0, "no conditional GET was answered 304");
    // Every 304 is archived, but those of the fetches in flight when the duration ran out
    // (abandoned, as a stop does; one at most per host, and the web has two).
    let records = warc_records(data.path());
    let revisits = records.iter().filter(|(kind, _)| kind == "revisit/server-not-modified").count();
    assert!(
        revisits <= not_modified && not_modified - revisits <= 2,
        "{revisits} revisit records, {not_modified} 304s"
    );
    warcio_check(data.path());
    web.shutdown().await.unwrap();

    // What was learned, read back from the store: the estimates follow the true mean rates.
    // Measured: Spearman 0.77–0.79, median ×2.95 (16 s is a few changes per page, and the
    // default host prior, worth 20 fetches, shrinks rates toward the host's mean: the ranks the
    // schedule needs come first). Rates stuck at the prior would rank at random.
    let (correlation, median_factor) = learned_against_truth(data.path(), time_scale);
    assert!(correlation >= 0.6, "Spearman {correlation:.3} between learned and true rates");
    assert!(median_factor <= 4.0, "median learned/true rate off by ×{median_factor:.2}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_crawl_reports_its_status_and_explains_a_page() {
    let web = testweb(2, 30).await;
    let data = tempfile::tempdir().unwrap();
    let mut config = config(&web, data.path());
    config.revisit = Revisit::Freshet;
    config.rate = 20.0;
    config.duration = Some(Duration::from_secs(4));
    let crawler = Crawler::open(config).unwrap();
    let admin = crawler.admin();
    let root = web.url("h0.web.test", "/");
    let questions = async {
        tokio::time::sleep(Duration::from_secs(3)).await;
        let status = admin.status().await.expect("the crawl is running");
        let root_report = admin.explain(&root).await;
        let unknown = admin.explain(&web.url("h0.web.test", "/no-such-page")).await;
        let bad = admin.explain("not a url").await;
        (status, root_report, unknown, bad)
    };
    let (summary, (status, root_report, unknown, bad)) =
        tokio::join!(crawler.run(std::future::pending()), questions);
    let summary = summary.unwrap();
    assert_eq!(summary.stopped, StopReason::TimeUp);

    assert_eq!(status.revisit, "freshet");
    assert!(status.pages >= 20 && status.fetched_pages > 0, "{status:?}");
    assert!(status.fetched_pages <= status.pages && status.due <= status.pages);
    assert!(status.page_requests > 0 && status.page_requests <= summary.pages);
    assert!((0.0..=1.0).contains(&status.expected_freshness));
    assert!(!status.hosts.is_empty() && status.hosts.iter().all(|host| host.host.contains("web.test")));

    let report = root_report.unwrap();
    assert_eq!(report.url, freshet_url::canonicalize(&root).unwrap().as_str());
    assert!(report.last_fetch.is_some(), "the root is fetched first");
    assert!(report.weight > 0.0 && report.change_rate > 0.0);
    assert!(
        (report.threshold - (report.lambda0 + report.host_lambda)).abs() <= 1e-12 * report.threshold.max(1.0)
    );
    assert!(!report.status.is_empty());
    assert!(matches!(unknown, Err(freshet_crawl::ExplainError::Unknown(_))), "{unknown:?}");
    assert!(matches!(bad, Err(freshet_crawl::ExplainError::BadUrl(_))), "{bad:?}");

    // After the crawl, the handle says so.
    assert!(admin.status().await.is_none());
    web.shutdown().await.unwrap();
}

/// Requests of `log` to `host` (robots.txt left out) at or after `from` and before `to`.
fn requests_between<'a>(log: &'a [LogEntry], host: &'a str, from: f64, to: f64) -> Vec<&'a LogEntry> {
    log.iter()
        .filter(|entry| entry.host == host && entry.path != "/robots.txt")
        .filter(|entry| entry.unix >= from && entry.unix < to)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rate_limited_host_is_slowed_to_what_it_accepts_and_the_others_are_not() {
    // The rate-limited host accepts one page per 500 ms and answers 429 (Retry-After ≥ 1 s)
    // to faster requests; the crawl's delay is 50 ms. Every page wants a revisit about every
    // 1.5 s (uniform policy, 30 fetches a second over ~46 pages), so that host's 6 pages ask
    // for ~4 a second: without adaptation every other request would be refused.
    let interval = Duration::from_millis(500);
    let server = ServerConfig {
        web: WebConfig { hosts: 2, pages: 40, ..WebConfig::default() },
        misbehave: vec![Misbehaviour::RateLimit],
        settings: MisbehaviourSettings { rate_limit_interval: interval, ..MisbehaviourSettings::default() },
        ..ServerConfig::default()
    };
    let web =
        TestWeb::start("127.0.0.1:0".parse().unwrap(), server, Arc::new(SystemClock::new())).await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let mut config = config(&web, data.path());
    config.revisit = Revisit::Uniform;
    config.rate = 30.0;
    config.change_rate_prior = 1.0;
    config.duration = Some(Duration::from_secs(14));
    let summary = crawl(config, std::future::pending()).await;
    assert_eq!(summary.stopped, StopReason::TimeUp);
    let log = web.log().entries();
    web.shutdown().await.unwrap();
    assert_polite(&log);

    // The server's own log, cut in two halves from the first request to the limited host.
    let limited = Misbehaviour::RateLimit.host_name();
    let all = requests_between(&log, &limited, 0.0, f64::INFINITY);
    let start = all.first().unwrap().unix;
    let end = log.iter().map(|entry| entry.unix).fold(start, f64::max);
    let middle = (start + end) / 2.0;
    let refused = |entries: &[&LogEntry]| entries.iter().filter(|entry| entry.status == 429).count();
    let (first, second) =
        (requests_between(&log, &limited, start, middle), requests_between(&log, &limited, middle, end));
    eprintln!(
        "rate-limited host: first half {} requests, {} refused; second half {} requests, {} refused",
        first.len(),
        refused(&first),
        second.len(),
        refused(&second)
    );
    assert!(refused(&first) >= 2, "the crawl must first have met the limit: {} 429s", refused(&first));
    assert!(refused(&second) <= 1 && 4 * refused(&second) <= refused(&first), "still refused");
    // …yet the host is still used: at least 40% of what it accepts.
    let accepted = second.iter().filter(|entry| entry.status == 200).count() as f64;
    let possible = (end - middle) / interval.as_secs_f64();
    assert!(accepted >= 0.4 * possible, "{accepted} pages accepted of {possible:.0} possible");

    // The other hosts kept their pace: as many requests in the second half as in the first (the
    // first half includes discovery), and no delay of theirs changed.
    for host in ["h0.web.test", "h1.web.test"] {
        let first = requests_between(&log, host, start, middle).len();
        let second = requests_between(&log, host, middle, end).len();
        assert!(second * 10 >= first * 7, "{host}: {first} requests, then {second}");
    }
    let lines = read_log(data.path());
    let changes: Vec<&LogLine> = lines
        .iter()
        .filter(|line| line.detail.as_deref().is_some_and(|detail| detail.contains("host delay")))
        .collect();
    assert!(changes.iter().all(|line| line.url.contains(&limited)), "another host's delay changed");
    let first_change = changes.first().unwrap();
    assert_eq!(first_change.status, Some(429));
    assert!(
        first_change.detail.as_deref().unwrap().ends_with("host delay 50ms -> 100ms"),
        "{:?}",
        first_change.detail
    );

    // The store keeps the raised delay for a resumed crawl.
    let store = freshet_frontier::RedbStore::open(data.path().join("frontier.redb")).unwrap();
    let hosts = store.hosts(None, 100).unwrap();
    let stored = hosts.iter().find(|host| host.key.contains(&limited)).unwrap();
    assert!(stored.politeness.min_delay >= 0.4, "stored delay {}", stored.politeness.min_delay);
    let other = hosts.iter().find(|host| host.key.contains("h0.web.test")).unwrap();
    assert!(other.politeness.min_delay <= DELAY.as_secs_f64() + 1e-9, "h0: {}", other.politeness.min_delay);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_sitemaps_none_is_requested_and_links_still_find_every_page() {
    let web = testweb(3, 60).await;
    let data = tempfile::tempdir().unwrap();
    let mut config = config(&web, data.path());
    config.sitemaps = false;
    let summary = crawl(config, std::future::pending()).await;
    assert_eq!(summary.stopped, StopReason::Done);
    let log = web.log().entries();
    assert!(log.iter().all(|e| !e.path.contains("sitemap")), "a sitemap was requested");
    let requests = page_requests(&log);
    assert_eq!(requests.len(), allowed_pages(&web).len());
    assert_eq!(requests.into_iter().collect::<HashSet<_>>(), allowed_pages(&web));
    assert_polite(&log);
    assert!(read_log(data.path()).iter().all(|l| l.kind != LogKind::Sitemap));
}

/// A site on 127.0.0.1 whose pages are mostly reachable through its sitemaps only, which are
/// all the ways a sitemap goes wrong: its robots.txt names an index (a plain part, a gzip part,
/// a part listed twice, a part on another origin), a 404, an HTML soft 404, a gzip bomb, a
/// sitemap robots.txt disallows, one on another origin, and a redirect to a text sitemap.
struct Site {
    base: String,
    port: u16,
    /// `(Host header without port, path, arrival in Unix seconds)` of every request.
    requests: Arc<std::sync::Mutex<Vec<(String, String, f64)>>>,
}

impl Site {
    async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = Arc::clone(&requests);
        let app =
            axum::Router::new().fallback(move |headers: axum::http::HeaderMap, uri: axum::http::Uri| {
                let log = Arc::clone(&log);
                async move {
                    let host = headers.get("host").and_then(|h| h.to_str().ok()).unwrap_or_default();
                    let host = host.split(':').next().unwrap_or_default().to_owned();
                    let unix = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap();
                    log.lock().unwrap().push((host, uri.path().to_owned(), unix.as_secs_f64()));
                    site_answer(uri.path(), port)
                }
            });
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Self { base: format!("http://127.0.0.1:{port}"), port, requests }
    }

    fn requests(&self) -> Vec<(String, String, f64)> {
        self.requests.lock().unwrap().clone()
    }

    fn config(&self, data: &Path) -> CrawlConfig {
        let mut config = CrawlConfig::new(data);
        config.seeds = vec![freshet_url::canonicalize(&format!("{}/", self.base)).unwrap()];
        config.delay = DELAY;
        config.revisit = Revisit::Once;
        config.fetch.allow_private = true;
        config.fetch.user_agent = "freshet-test/0.1".into();
        config.fetch.resolve = vec![("other.test".into(), IpAddr::V4(Ipv4Addr::LOCALHOST))];
        config
    }
}

/// A gzip bomb that is a sitemap: a urlset's first entry, then 60 MiB of spaces (past the
/// parser's 50 MiB cap), about 60 KB compressed.
fn xml_bomb(base: &str) -> Vec<u8> {
    use std::io::Write as _;
    let head = format!(
        "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><url><loc>{base}/orphan/5</loc></url>"
    );
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(head.as_bytes()).unwrap();
    let spaces = vec![b' '; 1 << 20];
    for _ in 0..60 {
        encoder.write_all(&spaces).unwrap();
    }
    encoder.finish().unwrap()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write as _;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

fn site_answer(path: &str, port: u16) -> axum::response::Response {
    use axum::http::{StatusCode, header};
    use axum::response::IntoResponse as _;
    let base = format!("http://127.0.0.1:{port}");
    let xml = |body: String| ([(header::CONTENT_TYPE, "application/xml")], body).into_response();
    let html = |body: &str| ([(header::CONTENT_TYPE, "text/html")], body.to_owned()).into_response();
    let urlset = |entries: &str| {
        format!(
            "<?xml version=\"1.0\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">{entries}</urlset>"
        )
    };
    match path {
        "/robots.txt" => format!(
            "User-agent: *\nDisallow: /private/\n\n\
             Sitemap: {base}/sitemap_index.xml\nSitemap: /missing.xml\nSitemap: {base}/soft404.xml\n\
             Sitemap: {base}/bomb.xml.gz\nSitemap: {base}/xml-bomb.xml.gz\nSitemap: {base}/private/sitemap.xml\n\
             Sitemap: http://other.test:{port}/sitemap.xml\nSitemap: {base}/moved.xml\n"
        )
        .into_response(),
        "/sitemap_index.xml" => xml(format!(
            "<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
             <sitemap><loc>{base}/sitemaps/a.xml</loc></sitemap>\
             <sitemap><loc>{base}/sitemaps/b.xml.gz</loc></sitemap>\
             <sitemap><loc>{base}/sitemaps/a.xml</loc></sitemap>\
             <sitemap><loc>http://other.test:{port}/sitemaps/x.xml</loc></sitemap></sitemapindex>"
        )),
        "/sitemaps/a.xml" => xml(urlset(&format!(
            "<url><loc>{base}/orphan/1</loc><priority>0.9</priority></url>\
             <url><loc>{base}/orphan/2</loc></url>\
             <url><loc>{base}/private/secret</loc></url>\
             <url><loc>{base}/</loc></url>\
             <url><loc>not a url</loc></url>"
        ))),
        "/sitemaps/b.xml.gz" => (
            [(header::CONTENT_TYPE, "application/x-gzip")],
            gzip(urlset(&format!("<url><loc>{base}/orphan/3</loc></url>")).as_bytes()),
        )
            .into_response(),
        "/moved.xml" => {
            (StatusCode::MOVED_PERMANENTLY, [(header::LOCATION, "/sitemaps/c.txt")]).into_response()
        }
        "/sitemaps/c.txt" => format!("{base}/orphan/4\n").into_response(),
        "/soft404.xml" => html("<!DOCTYPE html><html><body>Page not found</body></html>"),
        "/xml-bomb.xml.gz" => ([(header::CONTENT_TYPE, "application/x-gzip")], xml_bomb(&base)).into_response(),
        "/bomb.xml.gz" => {
            ([(header::CONTENT_TYPE, "application/x-gzip")], freshet_testweb::gzip_bomb(200 << 20))
                .into_response()
        }
        "/" => html("<html><body><a href=\"/linked\">linked</a></body></html>"),
        "/linked" | "/orphan/1" | "/orphan/2" | "/orphan/3" | "/orphan/4" | "/orphan/5" => {
            html("<html><body>a page</body></html>")
        }
        _ => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

/// Asserts that no two requests of `requests` to one host came closer than the delay.
fn assert_site_polite(requests: &[(String, String, f64)]) {
    let entries: Vec<LogEntry> = requests
        .iter()
        .enumerate()
        .map(|(seq, (host, path, unix))| LogEntry {
            seq: seq as u64,
            unix: *unix,
            model_time: 0.0,
            method: "GET".into(),
            host: host.clone(),
            path: path.clone(),
            status: 200,
        })
        .collect();
    assert_polite(&entries);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sitemaps_find_unlinked_pages_and_broken_ones_are_logged_while_the_crawl_goes_on() {
    let site = Site::start().await;
    let data = tempfile::tempdir().unwrap();
    let summary = crawl(site.config(data.path()), std::future::pending()).await;
    assert_eq!(summary.stopped, StopReason::Done);
    let requests = site.requests();
    let paths: Vec<&str> = requests.iter().map(|(_, path, _)| path.as_str()).collect();
    let count = |path: &str| paths.iter().filter(|&&p| p == path).count();

    // The pages: the linked ones and those only the sitemaps name, once each; never a
    // disallowed URL nor another origin.
    let pages = ["/", "/linked", "/orphan/1", "/orphan/2", "/orphan/3", "/orphan/4", "/orphan/5"];
    for page in pages {
        assert_eq!(count(page), 1, "{page}: {paths:?}");
    }
    assert!(paths.iter().all(|path| !path.starts_with("/private/")), "{paths:?}");
    assert!(requests.iter().all(|(host, _, _)| host == "127.0.0.1"), "{requests:?}");
    // The sitemaps: each of the host's once (a.xml is listed twice), robots.txt first.
    let sitemap_paths = [
        "/sitemap_index.xml",
        "/missing.xml",
        "/soft404.xml",
        "/bomb.xml.gz",
        "/xml-bomb.xml.gz",
        "/moved.xml",
        "/sitemaps/a.xml",
        "/sitemaps/b.xml.gz",
        "/sitemaps/c.txt",
    ];
    for path in sitemap_paths {
        assert_eq!(count(path), 1, "{path}: {paths:?}");
    }
    assert_eq!(paths[0], "/robots.txt");
    assert_eq!(paths.len(), 1 + pages.len() + sitemap_paths.len(), "{paths:?}");
    assert_site_polite(&requests);
    assert_eq!(summary.pages, pages.len() as u64);

    // The log: one sitemap line per sitemap request, each saying what it held.
    let lines = read_log(data.path());
    let line = |path: &str| {
        let url = format!("{}{path}", site.base);
        lines.iter().find(|l| l.url == url).unwrap_or_else(|| panic!("no line for {url}"))
    };
    assert_eq!(lines.iter().filter(|l| l.kind == LogKind::Sitemap).count(), sitemap_paths.len());
    assert!(sitemap_paths.iter().all(|path| line(path).kind == LogKind::Sitemap));
    let detail = |path: &str| line(path).detail.clone().unwrap_or_default();
    assert_eq!(
        detail("/sitemap_index.xml"),
        format!(
            "index: 3 sitemaps (2 queued, 1 already queued), 1 problems (first: loc outside the \
             sitemap's location at entry 4: http://other.test:{}/sitemaps/x.xml)",
            site.port
        )
    );
    assert!(
        detail("/sitemaps/a.xml").starts_with("urlset: 4 URLs, 1 problems (first: invalid loc at entry 5")
    );
    assert_eq!(detail("/sitemaps/b.xml.gz"), "urlset, gzip: 1 URLs, 0 problems");
    assert_eq!(detail("/sitemaps/c.txt"), "text: 1 URLs, 0 problems");
    assert_eq!(
        (line("/missing.xml").status, line("/missing.xml").outcome.as_str()),
        (Some(404), "client-error")
    );
    assert_eq!(line("/soft404.xml").outcome, "not-a-sitemap");
    assert_eq!(detail("/soft404.xml"), "not a sitemap: an HTML page");
    // Two gzip bombs: zeros are no sitemap; a urlset padded with 60 MiB of spaces is read up
    // to the parser's cap, and its one URL kept (and fetched, above).
    assert_eq!(line("/bomb.xml.gz").outcome, "not-a-sitemap");
    assert_eq!(detail("/bomb.xml.gz"), "not a sitemap: binary data");
    assert_eq!(line("/xml-bomb.xml.gz").outcome, "ok");
    assert_eq!(
        detail("/xml-bomb.xml.gz"),
        "urlset, gzip: 1 URLs, 0 problems, stopped early: stopped at the size cap of 52428800 \
         uncompressed bytes"
    );
    assert_eq!(line("/moved.xml").outcome, "redirect");
    assert_eq!(detail("/moved.xml"), format!("{}/sitemaps/c.txt (queued)", site.base));
    let private_sitemap = line("/private/sitemap.xml");
    assert_eq!(
        (private_sitemap.kind, private_sitemap.detail.as_deref()),
        (LogKind::Skipped, Some("sitemap"))
    );
    assert_eq!(line("/private/secret").kind, LogKind::Skipped);

    // WARC: every sitemap answer archived.
    let records = warc_records(data.path());
    for path in sitemap_paths {
        let url = format!("{}{path}", site.base);
        assert!(records.iter().any(|(kind, target)| kind == "response" && *target == url), "{url}");
    }
    warcio_check(data.path());

    // The store: sitemap URLs are depth 1, and a given priority is their starting weight.
    let store = freshet_frontier::RedbStore::open(data.path().join("frontier.redb")).unwrap();
    let pages = store.pages(None, 100).unwrap();
    let record = |path: &str| {
        let url = format!("{}{path}", site.base);
        pages.iter().find(|page| page.url == url).unwrap().record.clone()
    };
    assert_eq!((record("/orphan/1").depth, record("/orphan/1").weight), (1, 0.9));
    assert_eq!((record("/orphan/2").depth, record("/orphan/2").weight), (1, 1.0));
    assert_eq!(record("/linked").depth, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sitemap_file_and_url_limits_hold_per_host() {
    let site = Site::start().await;
    // One file: the index only, none of its parts.
    let data = tempfile::tempdir().unwrap();
    let mut config = site.config(data.path());
    config.max_sitemap_files = 1;
    crawl(config, std::future::pending()).await;
    let paths: Vec<String> = site.requests().into_iter().map(|(_, path, _)| path).collect();
    assert_eq!(paths, ["/robots.txt", "/sitemap_index.xml", "/", "/linked"]);
    let lines = read_log(data.path());
    let index = lines.iter().find(|l| l.kind == LogKind::Sitemap).unwrap();
    assert!(index.detail.as_deref().unwrap().contains("3 over the host's sitemap file limit"), "{index:?}");

    // One URL: the first the sitemaps list, none after.
    let before = site.requests().len();
    let data = tempfile::tempdir().unwrap();
    let mut config = site.config(data.path());
    config.max_sitemap_urls = 1;
    crawl(config, std::future::pending()).await;
    let pages: HashSet<String> = site.requests()[before..]
        .iter()
        .map(|(_, path, _)| path.clone())
        .filter(|path| path == "/" || path == "/linked" || path.starts_with("/orphan/"))
        .collect();
    assert_eq!(pages, ["/", "/linked", "/orphan/5"].map(String::from).into_iter().collect());
    let lines = read_log(data.path());
    let part = lines.iter().find(|l| l.url.ends_with("/sitemaps/a.xml")).unwrap();
    assert!(
        part.detail.as_deref().unwrap().starts_with("urlset: 0 URLs, 4 more over the host's limit of 1 URLs"),
        "{part:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn depth_patterns_and_host_quota_bound_what_is_followed() {
    let web = testweb(3, 120).await;
    let data = tempfile::tempdir().unwrap();
    let mut config = config(&web, data.path());
    config.sitemaps = false;
    config.max_depth = Some(2);
    config.exclude = vec![regex::Regex::new(r"/page/1[0-9]$").unwrap()];
    config.host_quota = Some(12);
    let summary = crawl(config, std::future::pending()).await;
    assert_eq!(summary.stopped, StopReason::Done);
    let log = web.log().entries();
    let requests = page_requests(&log);
    assert_polite(&log);
    // No excluded URL requested.
    assert!(requests.iter().all(|(_, path)| !regex::Regex::new(r"^/page/1[0-9]$").unwrap().is_match(path)));
    // At most 12 pages a host entered the frontier, so at most 12 requests a host.
    let mut per_host: HashMap<&str, usize> = HashMap::new();
    for (host, _) in &requests {
        *per_host.entry(host.as_str()).or_default() += 1;
    }
    assert!(per_host.values().all(|&count| count <= 12), "{per_host:?}");
    assert!(summary.over_quota > 0, "the quota must have bitten on a 120-page web");
    let quota_lines = read_log(data.path()).into_iter().filter(|line| line.outcome == "host-quota").count();
    assert_eq!(quota_lines as u64, summary.over_quota);
    // Every page fetched is at most two links from the seed.
    let store = freshet_frontier::RedbStore::open(data.path().join("frontier.redb")).unwrap();
    let lines = read_log(data.path());
    for line in lines.iter().filter(|line| line.kind == LogKind::Page) {
        let page = store.lookup(&line.url).unwrap().unwrap();
        let depth = store.page(page).unwrap().unwrap().record.depth;
        assert!(depth <= 2, "{} at depth {depth}", line.url);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_of_unwanted_content_types_are_logged_not_archived_and_not_followed() {
    let web = testweb(2, 40).await;
    let data = tempfile::tempdir().unwrap();
    let mut config = config(&web, data.path());
    // Only images wanted: the HTML seed is not; robots.txt (text/plain) is read all the same.
    config.fetch.content_types = freshet_fetch::ContentTypes::parse(["image/*"]).unwrap();
    config.sitemaps = false;
    let summary = crawl(config, std::future::pending()).await;
    assert_eq!(summary.pages, 1, "only the seed is requested: its links are never read");
    let log = read_log(data.path());
    let seed = web.url("h0.web.test", "/");
    let page = log.iter().find(|line| line.kind == LogKind::Page).unwrap();
    assert_eq!((page.url.as_str(), page.outcome.as_str()), (seed.as_str(), "unwanted-content-type"));
    assert!(page.detail.as_deref().unwrap().contains("text/html"), "{page:?}");
    assert_eq!(page.bytes, 0);
    assert!(log.iter().any(|line| line.kind == LogKind::Robots && line.outcome == "ok"));
    let records = warc_records(data.path());
    assert!(!records.iter().any(|(kind, target)| kind == "response" && *target == seed), "{records:?}");
    assert!(records.iter().any(|(kind, target)| kind == "response" && target.ends_with("/robots.txt")));
    web.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_one_pass_crawl_retries_what_may_pass_and_gives_up_after_max_failures() {
    use axum::http::{StatusCode, Uri, header};
    use axum::response::IntoResponse as _;
    // `/` links to `/flaky` (500 twice, then the page), `/broken` (502 always) and `/big` (over
    // the body cap: it will not pass, so it is not retried).
    let counts: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
    let app = axum::Router::new().fallback({
        let counts = Arc::clone(&counts);
        move |uri: Uri| async move {
            let path = uri.path().to_owned();
            let count = {
                let mut counts = counts.lock().unwrap();
                let count = counts.entry(path.clone()).or_default();
                *count += 1;
                *count
            };
            let html = |body: &str| ([(header::CONTENT_TYPE, "text/html")], body.to_owned()).into_response();
            match path.as_str() {
                "/" => html("<a href=/flaky>f</a> <a href=/broken>b</a> <a href=/big>g</a>"),
                "/flaky" if count <= 2 => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
                "/flaky" => html("<p>at last</p>"),
                "/broken" => StatusCode::BAD_GATEWAY.into_response(),
                "/big" => html(&"x".repeat(20_000)),
                _ => StatusCode::NOT_FOUND.into_response(),
            }
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let data = tempfile::tempdir().unwrap();
    let mut config = CrawlConfig::new(data.path());
    config.seeds = vec![freshet_url::canonicalize(&format!("http://127.0.0.1:{port}/")).unwrap()];
    config.delay = Duration::from_millis(10);
    config.revisit = Revisit::Once;
    config.sitemaps = false;
    config.fetch.allow_private = true;
    config.fetch.max_body_bytes = 10_000;
    assert_eq!(config.max_failures, 3);
    let summary = crawl(config, tokio::time::sleep(Duration::from_secs(60))).await;
    assert_eq!(summary.stopped, StopReason::Done);

    let requested = |path: &str| counts.lock().unwrap().get(path).copied().unwrap_or(0);
    assert_eq!(requested("/flaky"), 3, "two failures, then the page");
    assert_eq!(requested("/broken"), 3, "given up after max_failures attempts");
    assert_eq!(requested("/big"), 1, "a page over the cap is not retried");
    let lines = read_log(data.path());
    let outcomes = |path: &str| -> Vec<String> {
        let url = format!("http://127.0.0.1:{port}{path}");
        lines.iter().filter(|line| line.url == url).map(|line| line.outcome.clone()).collect()
    };
    assert_eq!(outcomes("/flaky"), ["server-error", "server-error", "ok"]);
    assert_eq!(outcomes("/broken"), ["server-error"; 3]);
    assert_eq!(outcomes("/big"), ["too-large"]);
}
