//! End to end against testweb's misbehaving hosts (issue 4, §3: "every misbehaviour: the crawl
//! goes on, memory stays bounded, and the crawl log says what happened to that host"). Each
//! crawl runs a small web beside misbehaving hosts, time-scaled so that a whole crawl takes
//! seconds, and checks against independent witnesses: the server's own request log, testweb's
//! model (which pages are allowed), `crawl.jsonl`, the WARC records and the process's peak
//! resident memory (`VmHWM`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{read_log, warcio_check};

use std::collections::{HashMap, HashSet};
use std::net::{IpAddr, Ipv4Addr};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use freshet_crawl::{CrawlConfig, CrawlSummary, Crawler, LogKind, LogLine, Revisit, StopReason};
use freshet_frontier::FrontierStore as _;
use freshet_testweb::{
    LogEntry, Misbehaviour, MisbehaviourSettings, ServerConfig, SystemClock, TestWeb, Web, WebConfig,
};
use freshet_warc::WarcReader;

/// The tests of this file run one at a time: the memory check reads the process's peak
/// resident set, which a crawl running beside it would raise.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

// Short enough for a test, long enough for a loaded 2-core machine to inflate 10 MiB of a
// gzip bomb in a debug build before the total timeout.
const FIRST_BYTE_TIMEOUT: Duration = Duration::from_secs(1);
const TOTAL_TIMEOUT: Duration = Duration::from_secs(3);

async fn start_web(pages: u32, misbehave: Vec<Misbehaviour>, settings: MisbehaviourSettings) -> TestWeb {
    let config = ServerConfig {
        web: WebConfig { hosts: 2, pages, ..WebConfig::default() },
        misbehave,
        settings,
        ..ServerConfig::default()
    };
    TestWeb::start("127.0.0.1:0".parse().unwrap(), config, Arc::new(SystemClock::new())).await.unwrap()
}

/// A one-pass crawl from `h0.web.test/` (whose root links every misbehaving host) over the
/// test domain, with short timeouts and a short robots.txt retry.
fn config(web: &TestWeb, data: &Path, delay: Duration) -> CrawlConfig {
    let mut config = common::testweb_config(web, data, delay);
    config.fetch.first_byte_timeout = FIRST_BYTE_TIMEOUT;
    config.fetch.total_timeout = TOTAL_TIMEOUT;
    config.robots_cache.retry = 0.3;
    config
}

async fn crawl(config: CrawlConfig) -> CrawlSummary {
    // A safety net only: every crawl here ends by itself in seconds.
    let stop = tokio::time::sleep(Duration::from_secs(120));
    Crawler::open(config).unwrap().run(stop).await.unwrap()
}

/// The pages of the well-behaved hosts that robots.txt allows, as `(host, path)`.
fn allowed_pages(web: &TestWeb) -> HashSet<(String, String)> {
    let model = web.web();
    (0..model.page_count())
        .filter(|&id| model.page(id).unwrap().allowed)
        .map(|id| (Web::host_name(model.page(id).unwrap().host), model.path(id)))
        .collect()
}

/// `(host, path)` of every request the server saw to a host, robots.txt and sitemaps left out.
fn page_requests(log: &[LogEntry], host: impl Fn(&str) -> bool) -> Vec<(String, String)> {
    log.iter()
        .filter(|e| host(&e.host) && e.path != "/robots.txt" && !e.path.starts_with("/sitemap"))
        .map(|e| (e.host.clone(), e.path.clone()))
        .collect()
}

/// The server's log entries for `kind`'s host.
fn requests_to(log: &[LogEntry], kind: Misbehaviour) -> Vec<&LogEntry> {
    let host = kind.host_name();
    log.iter().filter(|e| e.host == host).collect()
}

/// The crawl log's lines about `kind`'s host.
fn lines_of(lines: &[LogLine], kind: Misbehaviour) -> Vec<&LogLine> {
    let host = format!("//{}:", kind.host_name());
    lines.iter().filter(|line| line.url.contains(&host)).collect()
}

/// The line of `path` on `kind`'s host (the only one: every page is requested once; a
/// `deferred` line, a check put off, is not a request).
fn line<'a>(lines: &'a [LogLine], web: &TestWeb, kind: Misbehaviour, path: &str) -> &'a LogLine {
    let url = web.url(&kind.host_name(), path);
    let found: Vec<&LogLine> =
        lines.iter().filter(|line| line.url == url && line.kind != LogKind::Deferred).collect();
    assert_eq!(found.len(), 1, "{url}: {found:?}");
    found[0]
}

/// Every line of a page that failed each time it was tried: `max_failures` attempts (a
/// one-pass crawl retries what may pass), all with the same outcome; the first is returned.
fn failed_each_time<'a>(
    lines: &'a [LogLine],
    web: &TestWeb,
    kind: Misbehaviour,
    path: &str,
    max_failures: usize,
) -> &'a LogLine {
    let url = web.url(&kind.host_name(), path);
    let found: Vec<&LogLine> = lines.iter().filter(|line| line.url == url).collect();
    assert_eq!(found.len(), max_failures, "{url}: tried {} times: {found:?}", found.len());
    assert!(found.iter().all(|line| line.outcome == found[0].outcome), "{found:?}");
    found[0]
}

fn detail(line: &LogLine) -> &str {
    line.detail.as_deref().unwrap_or_default()
}

/// `WARC-Truncated` of every `response` record, by target URI (`None`: the body is whole).
fn warc_truncation(data: &Path) -> HashMap<String, Option<String>> {
    let mut truncated = HashMap::new();
    let mut files: Vec<_> =
        std::fs::read_dir(data.join("warc")).unwrap().map(|entry| entry.unwrap().path()).collect();
    files.sort();
    for file in files {
        for record in WarcReader::open(&file).unwrap() {
            let record = record.unwrap();
            if record.header.record_type() != Some("response") {
                continue;
            }
            let target = record.header.get("WARC-Target-URI").unwrap_or_default().to_owned();
            truncated.insert(target, record.header.get("WARC-Truncated").map(str::to_owned));
        }
    }
    truncated
}

/// A field of `/proc/self/status` (`VmRSS`, `VmHWM`) in bytes.
fn proc_status_bytes(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|line| line.starts_with(&format!("{field}:"))).unwrap();
    let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib * 1024
}

/// Resets the peak resident set to the current one (`clear_refs` 5, Linux ≥ 4.0); false if
/// the kernel refuses.
fn reset_peak_memory() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// Misbehaviours that are fast to show, time-scaled: a slow host that answers after the
/// first-byte timeout, a slow body longer than the total timeout, a rate limit of one page per
/// 300 ms, 5xx during the first 2 s of every 3 s (so the crawl, started with the server, meets
/// the first burst, and a 503's `Retry-After` of 2 s brings it past it), and the defaults for the rest (a
/// 100 MiB page, a gzip bomb of 1 GiB, a robots.txt that hangs an hour).
fn settings() -> MisbehaviourSettings {
    MisbehaviourSettings {
        slow_delay: FIRST_BYTE_TIMEOUT * 3,
        slow_body_chunks: 80,
        slow_body_interval: Duration::from_millis(100),
        rate_limit_interval: Duration::from_millis(300),
        error_period: Duration::from_secs(3),
        error_burst: Duration::from_secs(2),
        costly_paths: 20,
        ..MisbehaviourSettings::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn misbehaving_hosts_are_contained_and_logged_while_the_rest_of_the_web_is_crawled() {
    let _serial = SERIAL.lock().await;
    use Misbehaviour::*;
    // Every kind but the calendar and wildcard DNS (their own tests, below).
    let kinds: Vec<Misbehaviour> =
        Misbehaviour::ALL.into_iter().filter(|&kind| !matches!(kind, Calendar | WildcardDns)).collect();
    let web = start_web(40, kinds.clone(), settings()).await;
    let data = tempfile::tempdir().unwrap();
    let mut config = config(&web, data.path(), Duration::from_millis(20));
    // Two attempts at what may pass (the default is 3): each failure doubles the host's delay,
    // and a host that resets every page would otherwise keep this crawl for minutes. Retries
    // that succeed are `crawl.rs`'s `a_one_pass_crawl_retries_what_may_pass…`.
    config.max_failures = 2;
    // robots-costly: an allowance of 8 MiB and 1 MiB a second for its checks, each of which
    // reaches the 1 MiB bound: its 20 long links are checked within seconds, some of them only
    // after waiting (the other hosts' rules cost nothing).
    config.robots_scan_rate = 1 << 20;
    let cap = config.fetch.max_body_bytes;
    let max_redirects = config.fetch.max_redirects;
    let max_failures = config.max_failures as usize;
    assert!(cap < settings().huge_bytes && cap < settings().bomb_bytes);

    let peak_was_reset = reset_peak_memory();
    let resident_before = proc_status_bytes("VmRSS");
    let started = std::time::Instant::now();
    let summary = crawl(config).await;
    let peak = proc_status_bytes("VmHWM");
    let log = web.log().entries();
    eprintln!(
        "{:.1} s, {} page requests, {} not ok; peak resident {} MiB over {} MiB before",
        started.elapsed().as_secs_f64(),
        summary.pages,
        summary.not_ok,
        (peak.saturating_sub(resident_before)) >> 20,
        resident_before >> 20
    );

    // (a) The crawl goes on, and ends: every allowed page of the well-behaved hosts, once.
    assert_eq!(summary.stopped, StopReason::Done);
    let good = page_requests(&log, |host| Misbehaviour::from_host(host).is_none());
    let unique: HashSet<_> = good.iter().cloned().collect();
    assert_eq!(good.len(), unique.len(), "a page was fetched twice");
    let allowed = allowed_pages(&web);
    assert_eq!(unique, allowed);
    let lines = read_log(data.path());
    for (host, path) in &allowed {
        let url = web.url(host, path);
        let page = lines.iter().find(|l| l.url == url && l.kind == LogKind::Page).unwrap();
        assert_eq!((page.status, page.outcome.as_str()), (Some(200), "ok"), "{url}");
    }
    // Every misbehaving host was reached (its robots.txt at least).
    for kind in &kinds {
        assert!(requests_to(&log, *kind).iter().any(|e| e.path == "/robots.txt"), "{kind:?} never reached");
    }

    // (c) Memory stays bounded: nothing near the 100 MiB page or the 1 GiB bomb was held.
    if peak_was_reset {
        let growth = peak.saturating_sub(resident_before);
        assert!(growth < 64 << 20, "peak resident set grew by {} MiB during the crawl", growth >> 20);
    } else {
        eprintln!("the kernel refused to reset the peak resident set: memory not checked");
    }
    let truncation = warc_truncation(data.path());
    warcio_check(data.path());
    let truncated = |kind: Misbehaviour, path: &str| {
        truncation.get(&web.url(&kind.host_name(), path)).cloned().flatten().unwrap_or_default()
    };

    // (b) Each host, and what the log says of it.
    // slow: the root answers after the first-byte timeout (so nothing more of the host is
    // known).
    let slow = failed_each_time(&lines, &web, Slow, "/", max_failures);
    assert_eq!((slow.outcome.as_str(), slow.status), ("timeout", None), "{slow:?}");
    assert!(detail(slow).starts_with("first-byte timeout"), "{slow:?}");
    assert!(detail(slow).contains("host delay 20ms -> "), "the host's delay rose: {slow:?}");

    // slow-body: the head comes, the body does not finish in time: cut, and marked so.
    let slow_body = failed_each_time(&lines, &web, SlowBody, "/", max_failures);
    assert_eq!((slow_body.outcome.as_str(), slow_body.status), ("timeout", Some(200)), "{slow_body:?}");
    assert!(detail(slow_body).starts_with("total timeout"), "{slow_body:?}");
    assert!(
        slow_body.bytes > 0
            && slow_body.bytes < u64::from(settings().slow_body_chunks) * 512
            && slow_body.fingerprint.is_none()
    );
    assert_eq!(truncated(SlowBody, "/"), "time");

    // rate-limit: 429s back off, and every page is had in the end.
    let limited = lines_of(&lines, RateLimit);
    let throttled: Vec<&&LogLine> = limited.iter().filter(|l| l.outcome == "throttled").collect();
    assert!(!throttled.is_empty(), "the rate limit never bit: {limited:?}");
    assert!(throttled.iter().all(|l| l.status == Some(429) && detail(l).starts_with("back-off ")));
    let limited_ok: HashSet<&str> = limited
        .iter()
        .filter(|l| l.kind == LogKind::Page && l.outcome == "ok")
        .map(|l| l.url.as_str())
        .collect();
    assert_eq!(limited_ok.len(), 6, "the root and its five pages: {limited:?}");

    // 5xx: every error the server sent is a line naming it, and the host was slowed.
    let errors: Vec<&LogEntry> =
        requests_to(&log, ServerErrors).into_iter().filter(|e| e.status >= 500).collect();
    assert!(!errors.is_empty(), "no 5xx burst met");
    let error_lines: Vec<&LogLine> =
        lines_of(&lines, ServerErrors).into_iter().filter(|l| l.status.is_some_and(|s| s >= 500)).collect();
    assert_eq!(error_lines.len(), errors.len());
    for line in &error_lines {
        let expected = if line.status == Some(503) { "throttled" } else { "server-error" };
        assert_eq!(line.outcome, expected, "{line:?}");
    }
    assert!(error_lines.iter().any(|l| detail(l).contains("host delay")), "{error_lines:?}");

    // reset: the root answers, every other page is a reset connection, said so.
    assert_eq!(line(&lines, &web, Reset, "/").outcome, "ok");
    for n in 1..=5 {
        let reset = failed_each_time(&lines, &web, Reset, &format!("/page/{n}"), max_failures);
        assert_eq!((reset.outcome.as_str(), reset.status), ("connection-reset", None), "{reset:?}");
    }

    // Redirects: a self-redirect and a two-step loop are seen as loops; an endless chain stops
    // after `max_redirects` redirects in a row.
    let self_loop = line(&lines, &web, RedirectLoop, "/self");
    assert_eq!(self_loop.outcome, "redirect");
    assert!(detail(self_loop).contains("redirect loop"), "{self_loop:?}");
    assert_eq!(line(&lines, &web, RedirectLoop, "/loop/a").outcome, "redirect");
    let back = line(&lines, &web, RedirectLoop, "/loop/b");
    assert!(detail(back).contains("redirect loop"), "{back:?}");
    let chain: Vec<&str> = requests_to(&log, RedirectLoop)
        .into_iter()
        .filter(|e| e.path.starts_with("/chain/"))
        .map(|e| e.path.as_str())
        .collect();
    let expected: Vec<String> = (0..=max_redirects).map(|n| format!("/chain/{n}")).collect();
    assert_eq!(chain, expected);
    let last = line(&lines, &web, RedirectLoop, &format!("/chain/{max_redirects}"));
    assert!(detail(last).contains("too many redirects"), "{last:?}");
    assert_eq!(requests_to(&log, RedirectLoop).iter().filter(|e| e.path == "/loop/a").count(), 1);

    // huge: 100 MiB declared, not read past the cap; archived as truncated.
    let huge = line(&lines, &web, Huge, "/big");
    assert_eq!((huge.outcome.as_str(), huge.status), ("too-large", Some(200)), "{huge:?}");
    assert!(huge.bytes <= cap && detail(huge).starts_with("body cap"), "{huge:?}");
    assert_eq!(truncated(Huge, "/big"), "length");
    // gzip bomb: inflated only up to the cap.
    let bomb = line(&lines, &web, GzipBomb, "/bomb");
    assert_eq!((bomb.outcome.as_str(), bomb.status), ("too-large", Some(200)), "{bomb:?}");
    assert!(bomb.bytes <= cap && detail(bomb).contains("decoded content over the cap"), "{bomb:?}");
    assert_eq!(truncated(GzipBomb, "/bomb"), "length");
    // Both hosts' ordinary pages were crawled.
    for kind in [Huge, GzipBomb] {
        for n in 1..=5 {
            assert_eq!(line(&lines, &web, kind, &format!("/page/{n}")).outcome, "ok");
        }
    }

    // bad-encoding: every page read, none breaks the crawl; links of HTML however labelled.
    for path in ["/invalid-utf8", "/latin1", "/latin1-meta", "/binary-as-html", "/no-type", "/html-as-png"] {
        let page = line(&lines, &web, BadEncoding, path);
        assert_eq!((page.outcome.as_str(), page.status), ("ok", Some(200)), "{page:?}");
    }
    for path in ["/invalid-utf8", "/latin1", "/no-type"] {
        assert_eq!(line(&lines, &web, BadEncoding, path).links, Some(1), "{path}");
    }
    assert_eq!(line(&lines, &web, BadEncoding, "/html-as-png").links, None, "an image is not parsed");

    // robots.txt that hangs or fails: no page of the host is requested (RFC 9309 §2.3.1.4:
    // unreachable means disallow all), the log says so, and the one-pass crawl gives the
    // host up after `max_failures` attempts rather than wait for ever.
    for (kind, outcome) in [(RobotsTimeout, "timeout"), (Robots500, "server-error")] {
        let requests = requests_to(&log, kind);
        assert!(requests.iter().all(|e| e.path == "/robots.txt"), "{kind:?}: {requests:?}");
        let host_lines = lines_of(&lines, kind);
        let robots: Vec<&&LogLine> = host_lines.iter().filter(|l| l.kind == LogKind::Robots).collect();
        assert_eq!(robots.len(), max_failures, "{kind:?}: {robots:?}");
        assert!(robots.iter().all(|l| l.outcome == outcome), "{kind:?}: {robots:?}");
        assert!(detail(robots[0]).contains("robots.txt unreachable: the host is disallowed"), "{robots:?}");
        assert!(detail(robots[max_failures - 1]).contains("the host's pages are given up"), "{robots:?}");
        let root = line(&lines, &web, kind, "/");
        assert_eq!((root.kind, root.outcome.as_str()), (LogKind::Skipped, "robots-unreachable"));
    }

    // robots.txt too costly to check against the host's long paths: none of them is requested
    // (a URL that could not be checked is not fetched), each is logged once as disallowed, with
    // why; the host's ordinary pages are fetched; and the checks that the host's allowance
    // could not afford at once waited instead of taking the crawl's CPU.
    let requests = requests_to(&log, RobotsCostly);
    assert!(requests.iter().all(|e| !e.path.starts_with("/long/")), "{requests:?}");
    for path in freshet_testweb::costly_paths(settings().costly_paths) {
        let skipped = line(&lines, &web, RobotsCostly, &path);
        assert_eq!((skipped.kind, skipped.outcome.as_str()), (LogKind::Skipped, "robots-disallowed"));
        assert!(detail(skipped).starts_with("robots.txt too complex to check"), "{skipped:?}");
    }
    for path in ["/", "/page/1", "/page/5"] {
        let page = line(&lines, &web, RobotsCostly, path);
        assert_eq!((page.outcome.as_str(), page.status), ("ok", Some(200)), "{page:?}");
    }
    // long-fields: a URL or an origin longer than the store keeps is not followed (the commit
    // that would hold it failed, and the crawl stopped, at every resume too), the page that
    // links it says so; validators the store cannot keep are dropped, the pages fetched.
    let requests = requests_to(&log, LongFields);
    assert!(requests.iter().all(|e| !e.path.starts_with("/long/")), "{requests:?}");
    let limit = freshet_frontier::limits::URL_BYTES;
    let root = line(&lines, &web, LongFields, "/");
    assert_eq!(detail(root), format!("2 links not followed: longer than {limit} bytes"), "{root:?}");
    let redirect = line(&lines, &web, LongFields, "/long-redirect");
    let expected = format!("a redirect target longer than {limit} bytes, not followed");
    assert!(detail(redirect).ends_with(&expected), "{redirect:?}");
    assert_eq!(summary.too_long, 3, "{summary:?}");
    let store = freshet_frontier::RedbStore::open(data.path().join("frontier.redb")).unwrap();
    for path in ["/page/1", "/page/2", "/page/3"] {
        let page = line(&lines, &web, LongFields, path);
        assert_eq!((page.outcome.as_str(), page.status), ("ok", Some(200)), "{page:?}");
        let id = store.lookup(&page.url).unwrap().unwrap();
        let record = store.page(id).unwrap().unwrap().record;
        assert_eq!((record.etag, record.last_modified), (None, None), "{path}");
    }
    drop(store);
    assert!(summary.robots_deferred > 0, "{summary:?}");
    // The log says so once for the host, on a URL that was checked later (no other host's
    // checks were put off).
    let deferred: Vec<&LogLine> = lines.iter().filter(|l| l.kind == LogKind::Deferred).collect();
    assert_eq!(deferred.len(), 1, "{deferred:?}");
    assert!(lines_of(&lines, RobotsCostly).contains(&deferred[0]), "{deferred:?}");
    assert_eq!(deferred[0].outcome, "robots-deferred");
    assert!(detail(deferred[0]).contains("robots-scan-rate 1048576"), "{deferred:?}");
    assert!(lines.iter().any(|l| l.url == deferred[0].url && l.kind != LogKind::Deferred), "{deferred:?}");
    web.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_calendar_trap_ends_at_the_max_depth_which_is_on_by_default() {
    let _serial = SERIAL.lock().await;
    // The default: a depth limit, the crawl's defence against URL spaces without an end.
    // Measured at the default of 20 on this web: 1,108 calendar requests in about 34 s on a
    // 2-core machine, too slow for every run of the suite; a limit of 5 shows the same
    // defence in a few seconds.
    let data = tempfile::tempdir().unwrap();
    assert_eq!(CrawlConfig::new(data.path()).max_depth, Some(freshet_crawl::DEFAULT_MAX_DEPTH));
    let web = start_web(20, vec![Misbehaviour::Calendar], MisbehaviourSettings::default()).await;
    let mut config = config(&web, data.path(), Duration::from_millis(1));
    let max_depth = 5;
    config.max_depth = Some(max_depth);
    let started = std::time::Instant::now();
    let summary = crawl(config).await;
    let log = web.log().entries();
    let calendar = requests_to(&log, Misbehaviour::Calendar);
    eprintln!(
        "{:.1} s, {} page requests, {} to the calendar",
        started.elapsed().as_secs_f64(),
        summary.pages,
        calendar.len()
    );
    assert_eq!(summary.stopped, StopReason::Done, "the trap must end");
    let good = page_requests(&log, |host| Misbehaviour::from_host(host).is_none());
    assert_eq!(good.iter().cloned().collect::<HashSet<_>>(), allowed_pages(&web));
    assert_eq!(good.len(), allowed_pages(&web).len());
    let lines = read_log(data.path());
    use Misbehaviour::Calendar;

    // Bounded by the depth limit. The calendar's root is one link from the seed, `/cal/2026/1`
    // two, a month `k` months away `2 + |k|` and its days one more: at most
    // `2 (max_depth - 2) + 1` months and their days.
    let store = freshet_frontier::RedbStore::open(data.path().join("frontier.redb")).unwrap();
    let mut deepest = 0;
    for line in lines_of(&lines, Calendar).into_iter().filter(|l| l.kind == LogKind::Page) {
        let page = store.lookup(&line.url).unwrap().unwrap();
        let depth = store.page(page).unwrap().unwrap().record.depth;
        assert!(depth <= max_depth, "{} at depth {depth}", line.url);
        deepest = deepest.max(depth);
    }
    assert_eq!(deepest, max_depth);
    let months = 2 * (max_depth - 2) + 1;
    assert!(calendar.len() as u32 <= 1 + 6 + months * 32, "{} calendar requests", calendar.len());
    let cut = lines_of(&lines, Calendar)
        .into_iter()
        .filter(|l| detail(l) == format!("links not followed: past the max depth of {max_depth}"))
        .count();
    assert!(cut > 0, "no calendar page says its links were not followed");
    web.shutdown().await.unwrap();
}

/// The hosts the server saw any request to (robots.txt included).
fn hosts_requested(log: &[LogEntry]) -> HashSet<String> {
    log.iter().map(|entry| entry.host.clone()).collect()
}

/// A one-pass crawl of the test domain beside `wildcard-dns`, every name under which resolves.
fn wildcard_config(web: &TestWeb, data: &Path, max_hosts_per_domain: u32) -> CrawlConfig {
    let mut config = config(web, data, Duration::from_millis(1));
    config.fetch.resolve.push(("*.wildcard-dns.web.test".into(), IpAddr::V4(Ipv4Addr::LOCALHOST)));
    config.max_hosts_per_domain = max_hosts_per_domain;
    config
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wildcard_dns_trap_ends_at_the_hosts_per_domain_limit_also_across_a_resume() {
    let _serial = SERIAL.lock().await;
    use Misbehaviour::WildcardDns;
    // On by default. Here 12 hosts of `web.test`: h0 and h1 (the seed's and the web's other),
    // `wildcard-dns.web.test` and 9 of the endless hosts under it.
    let data = tempfile::tempdir().unwrap();
    assert_eq!(
        CrawlConfig::new(data.path()).max_hosts_per_domain,
        freshet_crawl::DEFAULT_MAX_HOSTS_PER_DOMAIN
    );
    let web = start_web(20, vec![WildcardDns], MisbehaviourSettings::default()).await;
    let limit = 12;
    let mut config = wildcard_config(&web, data.path(), limit);
    // One request at a time, so that each commit holds one page's links (at most two new
    // hosts of the trap): what the store may hold past the limit is then exact.
    config.max_in_flight = 1;
    // The first run stops after a few pages; the resumed one must keep the same hosts out.
    config.max_pages = Some(12);
    let first = crawl(config.clone()).await;
    assert_eq!(first.stopped, StopReason::MaxPages);
    let mut resumed = config;
    resumed.seeds.clear();
    resumed.resume = true;
    resumed.max_pages = None;
    let second = crawl(resumed).await;
    assert_eq!(second.stopped, StopReason::Done, "the trap must end");

    // The web's own pages, every one, once; exactly `limit` hosts called on over both runs,
    // however many the trap offered.
    let log = web.log().entries();
    let good = page_requests(&log, |host| Misbehaviour::from_host(host).is_none());
    assert_eq!(good.iter().cloned().collect::<HashSet<_>>(), allowed_pages(&web));
    assert_eq!(good.len(), allowed_pages(&web).len());
    let hosts = hosts_requested(&log);
    assert_eq!(hosts.len(), limit as usize, "{hosts:?}");
    assert!(hosts.contains(&WildcardDns.host_name()), "{hosts:?}");

    // A URL of a host beyond the limit is logged as skipped, with why, and its host had no
    // request at all: each such URL that reached the store once; those refused before it
    // (links found once the domain was full) by one line a run, which says so.
    let lines = read_log(data.path());
    let skipped: Vec<&LogLine> = lines.iter().filter(|l| l.outcome == "domain-quota").collect();
    let why =
        "web.test had 12 hosts in this crawl before this one (max-hosts-per-domain): the host is not crawled";
    let (stored, refused): (Vec<&LogLine>, Vec<&LogLine>) = skipped.iter().partition(|l| detail(l) == why);
    // (Whether the commit that filled the domain brought a host past it, whose URL then
    // has a line of the first kind, depends on the order the trap's hosts were found in.)
    assert!((1..=2).contains(&refused.len()), "{refused:?}");
    let mut urls = HashSet::new();
    for line in &skipped {
        assert_eq!(line.kind, LogKind::Skipped, "{line:?}");
        let host = freshet_url::Url::parse(&line.url).unwrap().host_str().unwrap().to_owned();
        assert_eq!(Misbehaviour::from_host(&host), Some(WildcardDns), "{line:?}");
        assert!(!hosts.contains(&host), "{line:?}");
    }
    for line in &stored {
        assert!(urls.insert(line.url.clone()), "logged twice: {line:?}");
    }
    for line in &refused {
        let expected = format!("{why}; links to the domain's other new hosts are not followed either");
        assert!(detail(line).starts_with(&expected), "{line:?}");
    }
    // Every link refused is counted; refused links repeat (each host's six pages link its two
    // children), so there are more of them than lines.
    let counted = first.over_domain_quota + second.over_domain_quota;
    assert!(counted > skipped.len() as u64, "{counted} counted, {} lines", skipped.len());
    // The store holds the hosts called on and at most one more, from the commit that filled
    // the domain (its page linked two new hosts), not one for every name the trap went on
    // offering (23 hosts when links were refused only after the commit).
    let store = freshet_frontier::RedbStore::open(data.path().join("frontier.redb")).unwrap();
    let stored_hosts = freshet_frontier::FrontierStore::counts(&store).unwrap().hosts;
    assert!(stored_hosts <= u64::from(limit) + 1, "{stored_hosts} hosts stored");
    web.shutdown().await.unwrap();
}

/// A host a seed names is crawled even beyond the limit; the links out of it are not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seeded_host_is_crawled_beyond_the_hosts_per_domain_limit() {
    let _serial = SERIAL.lock().await;
    use Misbehaviour::WildcardDns;
    let data = tempfile::tempdir().unwrap();
    let web = start_web(20, vec![WildcardDns], MisbehaviourSettings::default()).await;
    let mut config = wildcard_config(&web, data.path(), 1);
    let seeded = Misbehaviour::wildcard_host_name(999);
    config.seeds.push(freshet_url::canonicalize(&web.url(&seeded, "/")).unwrap());
    let summary = crawl(config).await;
    assert_eq!(summary.stopped, StopReason::Done);
    let hosts = hosts_requested(&web.log().entries());
    let expected: HashSet<String> = ["h0.web.test".to_owned(), seeded.clone()].into();
    assert_eq!(hosts, expected);
    // Both hosts' pages: the seed's root and its five, with the robots.txt of each.
    let seeded_pages = page_requests(&web.log().entries(), |host| host == seeded);
    assert_eq!(seeded_pages.len(), 6, "{seeded_pages:?}");
    // The domain is full from the start (two seeded hosts, a limit of 1): the links to its
    // other hosts (the seeded host's children, the trap's bare name and h1, which h0 links)
    // are refused before the store, with one line for the run, on whichever came first (which
    // one depends on the order the two hosts' pages were fetched in).
    let lines = read_log(data.path());
    let children: Vec<String> =
        [1999, 2000].iter().map(|&child| web.url(&Misbehaviour::wildcard_host_name(child), "/")).collect();
    let refused: Vec<&LogLine> = lines.iter().filter(|l| l.outcome == "domain-quota").collect();
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_eq!(refused[0].kind, LogKind::Skipped);
    let host = freshet_url::Url::parse(&refused[0].url).unwrap().host_str().unwrap().to_owned();
    assert!(host == "h1.web.test" || Misbehaviour::from_host(&host) == Some(WildcardDns), "{refused:?}");
    assert!(!hosts.contains(&host), "{refused:?}");
    assert!(summary.over_domain_quota >= 2, "{summary:?}");
    let store = freshet_frontier::RedbStore::open(data.path().join("frontier.redb")).unwrap();
    for child in &children {
        let key = freshet_url::origin_key(&freshet_url::Url::parse(child).unwrap());
        assert_eq!(freshet_frontier::FrontierStore::host_by_key(&store, &key).unwrap(), None, "{child}");
    }
    web.shutdown().await.unwrap();
}

/// A host whose `Retry-After` is longer than a one-pass crawl waits for is given up: never
/// called on again, its other pages logged as skipped, and the crawl ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_after_past_the_limit_gives_the_host_up_in_a_one_pass_crawl() {
    let _serial = SERIAL.lock().await;
    use Misbehaviour::RateLimit;
    // One page let through every two hours: the second request gets `Retry-After: 7200`.
    let settings = MisbehaviourSettings {
        rate_limit_interval: Duration::from_secs(7_200),
        ..MisbehaviourSettings::default()
    };
    let web = start_web(20, vec![RateLimit], settings).await;
    let data = tempfile::tempdir().unwrap();
    let mut config = config(&web, data.path(), Duration::from_millis(20));
    assert_eq!(config.max_retry_after, Duration::from_secs(3_600));
    config.max_retry_after = Duration::from_secs(60);
    let summary = crawl(config).await;
    assert_eq!(summary.stopped, StopReason::Done, "the crawl must end");
    let log = web.log().entries();
    let good = page_requests(&log, |host| Misbehaviour::from_host(host).is_none());
    assert_eq!(good.iter().cloned().collect::<HashSet<_>>(), allowed_pages(&web));

    // The host: robots.txt, the page let through, the one answered 429; nothing after it.
    let requests = requests_to(&log, RateLimit);
    let statuses: Vec<u16> = requests.iter().map(|e| e.status).collect();
    assert_eq!(statuses, [200, 200, 429], "{requests:?}");
    let lines = read_log(data.path());
    let throttled = lines_of(&lines, RateLimit).into_iter().find(|l| l.status == Some(429)).unwrap();
    assert!(
        detail(throttled)
            .starts_with("retry-after 7200s is longer than max-retry-after (60s): the host is given up"),
        "{throttled:?}"
    );
    // Its other pages (`/` links five, one of them the page answered 429) are skipped, each
    // once, and counted.
    let given_up: Vec<&LogLine> =
        lines_of(&lines, RateLimit).into_iter().filter(|l| l.outcome == "host-given-up").collect();
    assert_eq!(given_up.len(), 5, "{given_up:?}");
    assert!(given_up.iter().all(|l| l.kind == LogKind::Skipped), "{given_up:?}");
    assert_eq!(summary.throttled_out, 5, "{summary:?}");
    web.shutdown().await.unwrap();
}

/// A clean stop keeps the pause a host's `Retry-After` asked for: the resumed crawl does not
/// call on the host sooner.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resumed_crawl_waits_out_the_retry_after_the_host_asked_for() {
    resumed_crawl_waits_out_a_retry_after(false).await;
}

/// A crash (the run dropped where it stood, nothing saved at its end, as `kill -9` leaves
/// it) keeps the pause too: it was stored with the 429's own group commit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crawl_resumed_after_a_crash_waits_out_the_retry_after_the_host_asked_for() {
    resumed_crawl_waits_out_a_retry_after(true).await;
}

/// A run stops (cleanly, or by a crash when `crash`) as soon as it has handled a 429 asking
/// for 3 s; a run resumed at once must not call on the host before those 3 s are over.
async fn resumed_crawl_waits_out_a_retry_after(crash: bool) {
    let _serial = SERIAL.lock().await;
    use Misbehaviour::RateLimit;
    // One page every 3 s: the page after the root is answered 429, `Retry-After: 3`.
    let settings = MisbehaviourSettings {
        rate_limit_interval: Duration::from_secs(3),
        ..MisbehaviourSettings::default()
    };
    let web = start_web(10, vec![RateLimit], settings).await;
    let data = tempfile::tempdir().unwrap();
    let config = config(&web, data.path(), Duration::from_millis(20));
    // The first run stops as soon as the crawl has handled (logged) the 429.
    let log_path = data.path().join("crawl.jsonl");
    let handled = async {
        while !std::fs::read_to_string(&log_path).unwrap_or_default().contains("\"outcome\":\"throttled\"") {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    let first = Crawler::open(config.clone()).unwrap();
    if crash {
        // The log line is flushed in the same group commit as the store's batch, with no
        // await between: once it is seen, that batch is stored, and nothing after it is.
        tokio::select! {
            ended = first.run(std::future::pending()) => panic!("the crawl ended before its 429: {ended:?}"),
            () = handled => {}
        }
    } else {
        let first = first.run(handled).await.unwrap();
        assert_eq!(first.stopped, StopReason::Interrupted);
    }
    let throttled = read_log(data.path()).into_iter().find(|l| l.outcome == "throttled").unwrap();
    let wait: f64 = detail(&throttled)
        .strip_prefix("back-off 1 of 5: ")
        .and_then(|rest| rest.split('s').next())
        .and_then(|seconds| seconds.parse().ok())
        .unwrap_or_else(|| panic!("{throttled:?}"));
    let answered =
        requests_to(&web.log().entries(), RateLimit).into_iter().find(|e| e.status == 429).unwrap().unix;
    let before = requests_to(&web.log().entries(), RateLimit).len();

    // Resumed at once; stopped at its first request to the host (or after 10 s).
    let mut resumed = config;
    resumed.seeds.clear();
    resumed.resume = true;
    let next_request = async {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while requests_to(&web.log().entries(), RateLimit).len() == before
            && tokio::time::Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    let started = unix_now();
    Crawler::open(resumed).unwrap().run(next_request).await.unwrap();
    let log = web.log().entries();
    let next = requests_to(&log, RateLimit)
        .get(before)
        .map(|e| e.unix)
        .expect("the resumed crawl called on the host");
    assert!(started < answered + wait - 0.5, "the resume came too late to show anything");
    assert!(
        next >= answered + wait - 0.01,
        "called on {:.3} s after a 429 that asked for {wait} s",
        next - answered
    );
    web.shutdown().await.unwrap();
}

/// Unix time now, in seconds.
fn unix_now() -> f64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs_f64()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revisiting_crawl_keeps_retrying_an_unreachable_robots_txt_and_never_fetches_its_pages() {
    let _serial = SERIAL.lock().await;
    let web = start_web(10, vec![Misbehaviour::Robots500], MisbehaviourSettings::default()).await;
    let data = tempfile::tempdir().unwrap();
    let mut config = config(&web, data.path(), Duration::from_millis(20));
    config.revisit = Revisit::Uniform;
    config.rate = 20.0;
    config.duration = Some(Duration::from_secs(3));
    let max_failures = config.max_failures as usize;
    let summary = crawl(config).await;
    assert_eq!(summary.stopped, StopReason::TimeUp);
    let log = web.log().entries();
    let requests = requests_to(&log, Misbehaviour::Robots500);
    // Retried every 0.3 s (plus the delay), past the one-pass crawl's give-up point.
    assert!(requests.len() > max_failures, "{} robots.txt requests", requests.len());
    assert!(requests.iter().all(|e| e.path == "/robots.txt" && e.status == 500), "{requests:?}");
    let lines = read_log(data.path());
    let host_lines = lines_of(&lines, Misbehaviour::Robots500);
    assert!(host_lines.iter().all(|l| l.kind == LogKind::Robots), "{host_lines:?}");
    assert!(host_lines.iter().all(|l| detail(l).contains("the host is disallowed")), "{host_lines:?}");
    web.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_chain_cut_by_a_stop_continues_its_count_when_resumed() {
    let _serial = SERIAL.lock().await;
    use Misbehaviour::RedirectLoop;
    let web = start_web(4, vec![RedirectLoop], MisbehaviourSettings::default()).await;
    let data = tempfile::tempdir().unwrap();
    let config = config(&web, data.path(), Duration::from_millis(20));
    let max_redirects = config.fetch.max_redirects;
    assert!(max_redirects >= 3, "the chain must be long enough to be cut in its middle");
    let chain_requests = |web: &TestWeb| -> Vec<String> {
        let log = web.log().entries();
        requests_to(&log, RedirectLoop)
            .into_iter()
            .filter(|e| e.path.starts_with("/chain/"))
            .map(|e| e.path.clone())
            .collect()
    };
    // The first run stops as soon as the chain's third hop is requested.
    let cut = async {
        while !chain_requests(&web).iter().any(|path| path == "/chain/2") {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    let first = Crawler::open(config.clone()).unwrap().run(cut).await.unwrap();
    assert_eq!(first.stopped, StopReason::Interrupted);
    let before = chain_requests(&web).len();
    assert!(before < max_redirects, "the first run was not cut mid-chain: {:?}", chain_requests(&web));

    let mut resumed = config;
    resumed.seeds.clear();
    resumed.resume = true;
    let second = crawl(resumed).await;
    assert_eq!(second.stopped, StopReason::Done);
    // Over both runs, the chain ends where one uninterrupted run ends it (`max_redirects`
    // redirects in a row); a hop in flight at the stop may be requested again, no more.
    let requested: std::collections::BTreeSet<String> = chain_requests(&web).into_iter().collect();
    let expected: std::collections::BTreeSet<String> =
        (0..=max_redirects).map(|n| format!("/chain/{n}")).collect();
    assert_eq!(requested, expected);
    let lines = read_log(data.path());
    let url = web.url(&RedirectLoop.host_name(), &format!("/chain/{max_redirects}"));
    let last: Vec<&LogLine> = lines.iter().filter(|line| line.url == url).collect();
    assert!(last.iter().any(|line| detail(line).contains("too many redirects")), "{last:?}");
}
