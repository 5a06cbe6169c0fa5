//! `freshet crawl` end to end, as a process: a crawl killed with SIGKILL at three random moments and
//! resumed loses nothing and fetches nothing twice but what was in flight; its WARC files are
//! all readable after the resume; refused addresses and bad flags are named.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use common::{assert_success, freshet_in, stderr, stdout, write};
use freshet_crawl::{LogKind, LogLine};
use freshet_testweb::{ServerConfig, SystemClock, TestWeb, Web, WebConfig};

const HOSTS: u32 = 4;
const DELAY: f64 = 0.02;

fn start_testweb(runtime: &tokio::runtime::Runtime) -> TestWeb {
    let config = ServerConfig {
        web: WebConfig { hosts: HOSTS, pages: 200, seed: 7, ..WebConfig::default() },
        ..ServerConfig::default()
    };
    runtime
        .block_on(TestWeb::start("127.0.0.1:0".parse().unwrap(), config, Arc::new(SystemClock::new())))
        .unwrap()
}

fn crawl_args(web: &TestWeb, data: &Path, resume: bool, slots_per_host: u32) -> Vec<String> {
    crawl_args_with(web, data, resume, slots_per_host, None)
}

/// [`crawl_args`] with the frontier in Redis at `store` (given to the first run only: the
/// resumed runs read it from crawl.toml).
fn crawl_args_with(
    web: &TestWeb,
    data: &Path,
    resume: bool,
    slots_per_host: u32,
    store: Option<&str>,
) -> Vec<String> {
    let mut args = vec!["crawl".to_owned()];
    if slots_per_host > 1 {
        args.extend(["--max-in-flight-per-host".into(), slots_per_host.to_string()]);
    }
    if resume {
        args.push("--resume".into());
    } else {
        args.push(web.url("h0.web.test", "/"));
    }
    args.extend(["--data".into(), data.display().to_string(), "--scope".into(), "domain".into()]);
    args.extend(["--delay".into(), DELAY.to_string(), "--allow-private".into()]);
    args.extend(["--revisit".into(), "once".into()]);
    // Every host of the test web by one wildcard override (the resume runs keep it from
    // crawl.toml).
    if !resume {
        args.extend(["--resolve".into(), "*.web.test=127.0.0.1".into()]);
        if let Some(store) = store {
            args.extend(["--store".into(), store.to_owned(), "--store-prefix".into(), "killed".into()]);
        }
    }
    args
}

fn page_lines(data: &Path) -> Vec<LogLine> {
    let text = std::fs::read_to_string(data.join("crawl.jsonl")).unwrap_or_default();
    // While the crawl runs, the last line may be half written: only whole lines are read.
    text.lines()
        .filter_map(|line| serde_json::from_str::<LogLine>(line).ok())
        .filter(|line| line.kind == LogKind::Page)
        .collect()
}

fn warc_files(data: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(data.join("warc")).unwrap().map(|entry| entry.unwrap().path()).collect();
    files.sort();
    files
}

/// The `WARC-Target-URI` of every response record under `data`, each file read to its end;
/// a file still named `.open` fails the test.
fn warc_responses(data: &Path) -> HashSet<String> {
    let mut responses = HashSet::new();
    for file in warc_files(data) {
        assert!(file.to_str().unwrap().ends_with(".warc.gz"), "{file:?} left open");
        for record in freshet_warc::WarcReader::open(&file).unwrap() {
            let record = record.unwrap();
            if record.header.record_type() == Some("response") {
                responses.insert(record.header.get("WARC-Target-URI").unwrap().to_owned());
            }
        }
    }
    responses
}

/// How many times the server saw each page (`host` + `path`), robots.txt and sitemaps left out.
fn requests_per_page(log: &[freshet_testweb::LogEntry]) -> HashMap<String, usize> {
    let mut requests: HashMap<String, usize> = HashMap::new();
    for entry in log.iter().filter(|entry| entry.path != "/robots.txt" && !entry.path.starts_with("/sitemap"))
    {
        *requests.entry(format!("{}{}", entry.host, entry.path)).or_default() += 1;
    }
    requests
}

/// `host` + `path` of every page robots.txt allows.
fn allowed_paths(web: &TestWeb) -> HashSet<String> {
    let model = web.web();
    (0..model.page_count())
        .filter(|&id| model.page(id).unwrap().allowed)
        .map(|id| model.path_key(id))
        .collect()
}

#[test]
fn a_crawl_killed_at_any_moment_resumes_without_losing_or_repeating_pages() {
    killed_and_resumed(1);
}

/// With several requests in flight per host, a kill repeats at most the slots' fetches: a
/// slot is free again only after the group commit that makes its fetch durable.
#[test]
fn a_crawl_with_several_slots_per_host_killed_repeats_at_most_its_slots() {
    killed_and_resumed(3);
}

/// The same with the frontier in Redis (a server of the test's own, syncing every write): a
/// killed crawler's connection closes, its prefix is taken over by the resumed one, and
/// nothing it committed is lost.
#[test]
fn a_crawl_with_its_frontier_in_redis_killed_at_any_moment_resumes_without_losing_or_repeating_pages() {
    let server = freshet_frontier::conformance::RedisServer::start();
    killed_and_resumed_with(1, Some(&server.url));
    let mut connection = server.connect().unwrap();
    let pages: u64 = redis::cmd("HLEN").arg("{killed}:pages").query(&mut connection).unwrap();
    assert!(pages > 0, "the frontier was in Redis");
}

/// A crawl sharded over two processes on one Redis (`--shard K/2`), one shard killed with
/// SIGKILL three times while the other runs on, then resumed: no URL handed between them is
/// lost (every allowed page fetched), nothing is fetched again but the killed shard's pages in
/// flight, politeness holds across the kills, and the other shard does not end while the
/// killed one is down (it is neither idle nor gone: it may still hand over URLs).
#[test]
fn a_sharded_crawl_with_a_shard_killed_and_resumed_loses_nothing() {
    let server = freshet_frontier::conformance::RedisServer::start();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let web = start_testweb(&runtime);
    let allowed = allowed_paths(&web);
    let plan = freshet_crawl::ShardPlan::new(0, 2).unwrap();
    // The killed shard owns the seed's host; the other starts with nothing of its own.
    let killed = plan.shard_of("h0.web.test");
    let other = 1 - killed;
    let killed_hosts =
        (0..HOSTS).filter(|host| plan.shard_of(&format!("h{host}.web.test")) == killed).count();
    assert!(killed_hosts < HOSTS as usize, "both shards own a host of the test web");
    let data = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let args = |shard: u32, resume: bool| {
        let mut args = crawl_args_with(&web, data[shard as usize].path(), resume, 1, Some(&server.url));
        if !resume {
            args.extend(["--shard".into(), format!("{shard}/2")]);
        }
        args
    };
    let spawn = |shard: u32, resume: bool| {
        Command::new(env!("CARGO_BIN_EXE_freshet"))
            .args(args(shard, resume))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let other_child = spawn(other, false);

    const KILLS: usize = 3;
    let killed_data = data[killed as usize].path();
    let mut seed = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().subsec_nanos() as usize;
    for round in 0..KILLS {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let kill_after = page_lines(killed_data).len() + 3 + (seed >> 33) % 10;
        let mut child = spawn(killed, round > 0);
        let deadline = Instant::now() + Duration::from_secs(30);
        while page_lines(killed_data).len() < kill_after {
            assert!(Instant::now() < deadline, "round {round}: {kill_after} pages not logged in 30 s");
            assert!(
                child.try_wait().unwrap().is_none(),
                "round {round}: the shard ended before it was killed"
            );
            std::thread::sleep(Duration::from_millis(2));
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
    }
    let resumed = args(killed, true);
    let resumed = freshet_in(killed_data, &resumed.iter().map(String::as_str).collect::<Vec<_>>(), None);
    assert_success(&resumed);
    assert!(stdout(&resumed).starts_with("nothing left to fetch"), "{}", stdout(&resumed));
    let other_output = other_child.wait_with_output().unwrap();
    assert_success(&other_output);
    assert!(stdout(&other_output).starts_with("nothing left to fetch"), "{}", stdout(&other_output));
    assert!(stdout(&other_output).contains("handed in by them"), "{}", stdout(&other_output));

    let log = web.log().entries();
    let requests = requests_per_page(&log);
    let fetched: HashSet<String> = requests.keys().cloned().collect();
    let missing: Vec<&String> = allowed.difference(&fetched).take(10).collect();
    assert!(missing.is_empty() && fetched.is_subset(&allowed), "not fetched, e.g. {missing:?}");
    let twice: usize = requests.values().map(|count| count - 1).sum();
    eprintln!("{} pages, {twice} fetched again after a kill", requests.len());
    assert!(
        twice <= KILLS * killed_hosts,
        "{twice} pages fetched twice: more than one in flight per host and kill"
    );
    let mut by_host: HashMap<&str, Vec<f64>> = HashMap::new();
    for entry in &log {
        by_host.entry(&entry.host).or_default().push(entry.unix);
    }
    for (host, mut times) in by_host {
        times.sort_by(f64::total_cmp);
        let closest = times.windows(2).map(|w| w[1] - w[0]).fold(f64::INFINITY, f64::min);
        assert!(closest >= DELAY, "{host}: two requests {closest:.4} s apart");
    }
    // Each shard logged only its own hosts' pages, and `freshet status --data` reads the
    // shard's own frontier (its prefix from crawl.toml's store-prefix and shard).
    for shard in [killed, other] {
        let dir = data[shard as usize].path();
        let pages = page_lines(dir);
        for line in &pages {
            let host = freshet_url::Url::parse(&line.url).unwrap().host_str().unwrap().to_owned();
            assert_eq!(plan.shard_of(&host), shard, "{}", line.url);
        }
        let fetched: HashSet<&str> = pages.iter().map(|line| line.url.as_str()).collect();
        let status = freshet_in(dir, &["status", "--data", dir.to_str().unwrap()], None);
        assert_success(&status);
        let expected = format!(", {} fetched, 0 in flight", fetched.len());
        assert!(stdout(&status).contains(&expected), "{expected}: {}", stdout(&status));
    }
    runtime.block_on(web.shutdown()).unwrap();
}

/// Kills a crawl of the test web three times and resumes it: every allowed page fetched, at
/// most `slots_per_host` pages per host and kill fetched again, the delay kept (one slot).
fn killed_and_resumed(slots_per_host: u32) {
    killed_and_resumed_with(slots_per_host, None);
}

/// [`killed_and_resumed`] with the frontier in Redis at `store`, if given.
fn killed_and_resumed_with(slots_per_host: u32, store: Option<&str>) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let web = start_testweb(&runtime);
    let allowed = allowed_paths(&web);
    let data = tempfile::tempdir().unwrap();

    // Killed three times, each at a moment drawn from the clock: after 5 to 34 more pages.
    const KILLS: usize = 3;
    let mut seed = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().subsec_nanos() as usize;
    for round in 0..KILLS {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let kill_after = page_lines(data.path()).len() + 5 + (seed >> 33) % 30;
        let mut child = Command::new(env!("CARGO_BIN_EXE_freshet"))
            .args(crawl_args_with(&web, data.path(), round > 0, slots_per_host, store))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        while page_lines(data.path()).len() < kill_after {
            assert!(Instant::now() < deadline, "round {round}: {kill_after} pages not logged in 30 s");
            assert!(
                child.try_wait().unwrap().is_none(),
                "round {round}: the crawl ended before it was killed"
            );
            std::thread::sleep(Duration::from_millis(2));
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        // No pause: the resumed crawler does not know when its predecessor last called on a
        // host, and must wait a delay before its first request to each (checked below from
        // the server's log, across the kills).
    }
    let before = web.log().len();

    let args = crawl_args(&web, data.path(), true, slots_per_host);
    let resumed = freshet_in(data.path(), &args.iter().map(String::as_str).collect::<Vec<_>>(), None);
    assert_success(&resumed);
    assert!(stdout(&resumed).starts_with("nothing left to fetch"), "{}", stdout(&resumed));

    // The server's log: every allowed page at least once, only in-flight ones twice, politely.
    let log = web.log().entries();
    assert!(log.len() > before);
    let requests = requests_per_page(&log);
    let mut by_host: HashMap<&str, Vec<f64>> = HashMap::new();
    for entry in &log {
        by_host.entry(&entry.host).or_default().push(entry.unix);
    }
    assert_eq!(requests.keys().cloned().collect::<HashSet<_>>(), allowed);
    let twice: usize = requests.values().map(|count| count - 1).sum();
    assert!(requests.values().all(|&count| count <= 1 + KILLS), "{requests:?}");
    eprintln!("{} pages, {twice} fetched again after a kill", requests.len());
    assert!(
        twice <= KILLS * (HOSTS * slots_per_host) as usize,
        "{twice} pages fetched twice: more than {slots_per_host} in flight per host and kill"
    );
    // Several slots overlap their requests; the delay is checked with one.
    for (host, mut times) in by_host.into_iter().filter(|_| slots_per_host == 1) {
        times.sort_by(f64::total_cmp);
        let closest = times.windows(2).map(|w| w[1] - w[0]).fold(f64::INFINITY, f64::min);
        assert!(closest >= DELAY, "{host}: two requests {closest:.4} s apart");
    }

    // The crawl log parses whole and names every page; the WARC files are all closed and read
    // to the end, the killed run's file recovered.
    let text = std::fs::read_to_string(data.path().join("crawl.jsonl")).unwrap();
    let lines: Vec<LogLine> = text.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    let logged: HashSet<&str> =
        lines.iter().filter(|line| line.kind == LogKind::Page).map(|line| line.url.as_str()).collect();
    assert_eq!(logged.len(), allowed.len());
    let responses = warc_responses(data.path());
    assert!(logged.iter().all(|url| responses.contains(*url)));
    runtime.block_on(web.shutdown()).unwrap();
}

/// A full disk stops the crawl with an error that names the file, and the same crawl resumed
/// once there is room loses nothing and repeats at most what was in flight; every WARC file
/// reads to the end. The disk fills by the OS's limit on a file's size (`ulimit -f`, with
/// SIGXFSZ ignored): a write past it fails as a write to a full disk does (`EFBIG` there,
/// `ENOSPC` here), without a file system of its own to mount.
#[test]
fn a_crawl_stopped_by_a_full_disk_names_the_file_and_resumes_losing_nothing() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let config = ServerConfig {
        web: WebConfig { hosts: HOSTS, pages: 800, seed: 11, ..WebConfig::default() },
        ..ServerConfig::default()
    };
    let web = runtime
        .block_on(TestWeb::start("127.0.0.1:0".parse().unwrap(), config, Arc::new(SystemClock::new())))
        .unwrap();
    let allowed = allowed_paths(&web);
    let data = tempfile::tempdir().unwrap();
    let under_limit = |kib: u32, resume: bool| {
        Command::new("bash")
            .args(["-c", "trap '' XFSZ; ulimit -f \"$1\"; shift; exec \"$@\"", "bash"])
            .arg(kib.to_string())
            .arg(env!("CARGO_BIN_EXE_freshet"))
            .args(crawl_args(&web, data.path(), resume, 1))
            .current_dir(data.path())
            .output()
            .unwrap()
    };

    // No room for the store (redb sets up about 1 MiB): named, and no store left behind, so
    // that the same command can be run again.
    let store = data.path().join("frontier.redb");
    let full = under_limit(600, false);
    assert!(!full.status.success());
    let message = stderr(&full);
    assert!(message.contains(&format!("frontier store {}", store.display())), "{message}");
    assert!(message.contains("File too large"), "{message}");
    assert!(!store.exists(), "{message}");

    // Room for the store, not for the WARC file: the crawl stops part way, naming the file.
    let full = under_limit(1_200, false);
    assert!(!full.status.success());
    let message = stderr(&full);
    assert!(message.contains("WARC: write ") && message.contains("freshet-00000.warc.gz"), "{message}");
    assert!(message.contains("File too large"), "{message}");
    let before = page_lines(data.path()).len();
    assert!(before > 0 && before < allowed.len(), "{before} pages before the disk was full");

    let args = crawl_args(&web, data.path(), true, 1);
    let resumed = freshet_in(data.path(), &args.iter().map(String::as_str).collect::<Vec<_>>(), None);
    assert_success(&resumed);
    assert!(stdout(&resumed).starts_with("nothing left to fetch"), "{}", stdout(&resumed));

    let requests = requests_per_page(&web.log().entries());
    assert_eq!(requests.keys().cloned().collect::<HashSet<_>>(), allowed);
    let twice: usize = requests.values().map(|count| count - 1).sum();
    eprintln!("{before} pages before the disk was full, {} in all, {twice} fetched again", allowed.len());
    assert!(twice <= HOSTS as usize, "{twice} pages fetched twice: more than were in flight");
    let logged: HashSet<String> = page_lines(data.path()).into_iter().map(|line| line.url).collect();
    assert_eq!(logged.len(), allowed.len());
    let responses = warc_responses(data.path());
    assert!(logged.iter().all(|url| responses.contains(url)));
    runtime.block_on(web.shutdown()).unwrap();
}

#[test]
fn loopback_is_refused_without_allow_private_and_bad_flags_are_named() {
    let data = tempfile::tempdir().unwrap();
    let dir = data.path().display().to_string();
    // Nothing listens: the address check comes before any connection.
    let args = ["crawl", "http://h0.web.test:9/", "--data", &dir, "--resolve", "h0.web.test=127.0.0.1"];
    let output = freshet_in(data.path(), &args, None);
    assert_success(&output);
    assert!(
        stdout(&output).contains("0 pages") && stdout(&output).contains("1 refused"),
        "{}",
        stdout(&output)
    );
    let log = std::fs::read_to_string(data.path().join("crawl.jsonl")).unwrap();
    assert!(log.contains("address-refused") && log.contains("Loopback"), "{log}");

    let again = freshet_in(data.path(), &args, None);
    assert!(!again.status.success());
    assert!(stderr(&again).contains("--resume"), "{}", stderr(&again));

    let bad = freshet_in(
        data.path(),
        &["crawl", "http://a.test/", "--data", "x", "--resolve", "a.test:1.2.3.4"],
        None,
    );
    assert!(!bad.status.success());
    assert!(stderr(&bad).contains("HOST=IP"), "{}", stderr(&bad));

    let seeds = data.path().join("seeds.txt");
    std::fs::write(&seeds, "# seeds\nhttp://a.test/\nnot a url\n").unwrap();
    let seeds_arg = seeds.display().to_string();
    let bad = freshet_in(data.path(), &["crawl", "--seeds", &seeds_arg, "--data", "y"], None);
    assert!(!bad.status.success());
    assert!(stderr(&bad).contains("seeds.txt:3"), "{}", stderr(&bad));

    let none = freshet_in(data.path(), &["crawl", "--data", "z"], None);
    assert!(stderr(&none).contains("no seed URL"), "{}", stderr(&none));

    let bad =
        freshet_in(data.path(), &["crawl", "http://a.test/", "--data", "w", "--exclude", "(unclosed"], None);
    assert!(!bad.status.success());
    assert!(stderr(&bad).contains("--exclude \"(unclosed\": not a regular expression"), "{}", stderr(&bad));
    let weights = data.path().join("weights.csv");
    std::fs::write(&weights, "url,weight\nhttp://a.test/,2\nhttp://a.test/b,-1\n").unwrap();
    let weights_arg = weights.display().to_string();
    let bad =
        freshet_in(data.path(), &["crawl", "http://a.test/", "--data", "v", "--weights", &weights_arg], None);
    assert!(!bad.status.success());
    assert!(stderr(&bad).contains("weight -1"), "{}", stderr(&bad));

    // A focused crawl scores pages by their main text: --no-main-text with --focus is refused
    // before anything is fetched (each alone is valid: `CrawlConfig`'s own test). Were the flag
    // lost on the way, this one-pass crawl would start, have its one address refused (loopback),
    // and end with success.
    let focused = [
        "crawl",
        "http://h0.web.test:9/",
        "--resolve",
        "h0.web.test=127.0.0.1",
        "--revisit",
        "once",
        "--data",
        "u",
        "--focus",
        "river",
        "--no-main-text",
    ];
    let bad = freshet_in(data.path(), &focused, None);
    assert!(!bad.status.success());
    assert!(stderr(&bad).contains("focus") && stderr(&bad).contains("main_text"), "{}", stderr(&bad));
    assert!(!data.path().join("u").join("crawl.jsonl").exists());

    let bad =
        freshet_in(data.path(), &["crawl", "http://a.test/", "--data", "t", "--worker-threads", "0"], None);
    assert!(!bad.status.success());
    assert!(stderr(&bad).contains("--worker-threads 0: expected at least 1"), "{}", stderr(&bad));
}

/// `host` + `path` of a page, as the server logs them.
trait PathKey {
    fn path_key(&self, id: u32) -> String;
}

impl PathKey for Web {
    fn path_key(&self, id: u32) -> String {
        format!("{}{}", Web::host_name(self.page(id).unwrap().host), self.path(id))
    }
}

#[test]
fn sitemaps_are_fetched_unless_no_sitemaps_is_given() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let web = start_testweb(&runtime);
    let sitemap_requests = |log: &[freshet_testweb::LogEntry]| {
        log.iter()
            .filter(|entry| entry.path.starts_with("/sitemap"))
            .map(|entry| entry.host.clone())
            .collect::<Vec<_>>()
    };
    for (no_sitemaps, expected) in [(false, HOSTS as usize), (true, 0)] {
        let data = tempfile::tempdir().unwrap();
        let before = web.log().len();
        let mut args = crawl_args(&web, data.path(), false, 1);
        if no_sitemaps {
            args.push("--no-sitemaps".into());
        }
        let output = freshet_in(data.path(), &args.iter().map(String::as_str).collect::<Vec<_>>(), None);
        assert_success(&output);
        let requested = sitemap_requests(&web.log().since(before as u64));
        assert_eq!(requested.len(), expected, "--no-sitemaps {no_sitemaps}: {requested:?}");
        assert_eq!(requested.iter().collect::<HashSet<_>>().len(), expected, "one per host");
        let log = std::fs::read_to_string(data.path().join("crawl.jsonl")).unwrap();
        assert_eq!(log.matches("\"kind\":\"sitemap\"").count(), expected);
    }
    runtime.block_on(web.shutdown()).unwrap();
}

#[test]
fn a_config_file_sets_up_the_crawl_and_a_resume_keeps_its_settings() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let web = start_testweb(&runtime);
    let allowed = allowed_paths(&web);
    let folder = tempfile::tempdir().unwrap();
    let data = folder.path().join("data");
    let resolve: Vec<String> = web.host_names().iter().map(|host| format!("\"{host}=127.0.0.1\"")).collect();
    let config = folder.path().join("crawl-settings.toml");
    std::fs::write(
        &config,
        format!(
            "seeds = [\"{}\"]\nscope = \"domain\"\ndelay = {DELAY}\nallow-private = true\n\
             revisit = \"once\"\nresolve = [{}]\nmax-in-flight-per-ip = 2\n",
            web.url("h0.web.test", "/"),
            resolve.join(", ")
        ),
    )
    .unwrap();
    let (config_arg, data_arg) = (config.display().to_string(), data.display().to_string());
    let first = freshet_in(
        folder.path(),
        &["crawl", "--config", &config_arg, "--data", &data_arg, "--max-pages", "5"],
        None,
    );
    assert_success(&first);
    assert!(stdout(&first).starts_with("--max-pages reached"), "{}", stdout(&first));
    let kept = std::fs::read_to_string(data.join("crawl.toml")).unwrap();
    assert!(kept.contains("scope = \"domain\"") && kept.contains("allow-private = true"), "{kept}");
    assert!(!kept.contains("max-pages") && !kept.contains("seeds"), "{kept}");

    // Resumed with no setting at all: the kept ones (scope, resolve, allow-private, once) hold,
    // so every host of the domain is crawled to the end.
    let resumed = freshet_in(folder.path(), &["crawl", "--resume", "--data", &data_arg], None);
    assert_success(&resumed);
    assert!(stdout(&resumed).starts_with("nothing left to fetch"), "{}", stdout(&resumed));
    let fetched: HashSet<String> = web
        .log()
        .entries()
        .iter()
        .filter(|entry| entry.path != "/robots.txt" && !entry.path.starts_with("/sitemap"))
        .map(|entry| format!("{}{}", entry.host, entry.path))
        .collect();
    assert_eq!(fetched, allowed);

    // A bad file is named with its key; nothing is crawled.
    std::fs::write(&config, "dealy = 1\n").unwrap();
    let bad = freshet_in(folder.path(), &["crawl", "--config", &config_arg, "--data", "elsewhere"], None);
    assert!(!bad.status.success());
    assert!(
        stderr(&bad).contains("crawl-settings.toml") && stderr(&bad).contains("dealy"),
        "{}",
        stderr(&bad)
    );
    assert!(!folder.path().join("elsewhere").exists());
    runtime.block_on(web.shutdown()).unwrap();
}

/// A Redis server that does not sync every write is refused, naming the setting that accepts
/// it; with `store-require-fsync = false` in a config file the crawl runs on it.
#[test]
fn a_redis_store_that_would_lose_commits_is_refused_unless_accepted() {
    let redis = freshet_frontier::conformance::RedisServer::with(&["--appendonly", "no"]);
    let data = tempfile::tempdir().unwrap();
    let crawl_dir = data.path().join("crawl").display().to_string();
    let refused = freshet_in(
        data.path(),
        &["crawl", "http://127.0.0.1:9/", "--data", &crawl_dir, "--allow-private", "--store", &redis.url],
        None,
    );
    assert!(!refused.status.success());
    let message = stderr(&refused);
    assert!(
        message.contains("appendonly \"no\"") && message.contains("store-require-fsync = false"),
        "{message}"
    );
    let config = write(data.path(), "accept.toml", "store-require-fsync = false\n");
    let accepted = freshet_in(
        data.path(),
        &[
            "crawl",
            "http://127.0.0.1:9/",
            "--data",
            &crawl_dir,
            "--allow-private",
            "--store",
            &redis.url,
            "--config",
            &config,
            "--duration",
            "1",
        ],
        None,
    );
    assert_success(&accepted);
    let mut connection = redis.connect().unwrap();
    let pages: u64 = redis::cmd("HLEN").arg("{freshet}:pages").query(&mut connection).unwrap();
    assert_eq!(pages, 1, "the seed, stored in Redis");
}
