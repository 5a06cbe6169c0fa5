//! `freshet status` and `freshet explain` against a running `freshet crawl --listen`, and the
//! Prometheus endpoint it serves; the same two commands on the stopped crawl's `--data`
//! directory (its frontier in redb or in Redis); and the clear errors when no crawl listens or
//! none is stored.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{BufRead as _, BufReader};
use std::process::{Command, Stdio};
use std::sync::Arc;

use common::{assert_success, freshet_in, stderr, stdout};
use freshet_testweb::{ServerConfig, SystemClock, TestWeb, WebConfig};

/// The URLs of the crawl log's page lines in `crawl_dir`.
fn fetched_urls(crawl_dir: &std::path::Path) -> std::collections::HashSet<String> {
    let log = std::fs::read_to_string(crawl_dir.join("crawl.jsonl")).unwrap();
    log.lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .filter(|line| line["kind"] == "page")
        .map(|line| line["url"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn status_and_explain_read_a_running_crawl() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let config = ServerConfig {
        web: WebConfig { hosts: 2, pages: 40, ..WebConfig::default() },
        ..ServerConfig::default()
    };
    let web = runtime
        .block_on(TestWeb::start("127.0.0.1:0".parse().unwrap(), config, Arc::new(SystemClock::new())))
        .unwrap();
    let data = tempfile::tempdir().unwrap();
    let root = web.url("h0.web.test", "/");
    let mut args = vec![
        "crawl".to_owned(),
        root.clone(),
        "--data".into(),
        data.path().join("crawl").display().to_string(),
        "--scope".into(),
        "domain".into(),
        "--delay".into(),
        "0.05".into(),
        "--rate".into(),
        "20".into(),
        "--duration".into(),
        "8".into(),
        "--allow-private".into(),
        "--listen".into(),
        "127.0.0.1:0".into(),
    ];
    for host in web.host_names() {
        args.extend(["--resolve".into(), format!("{host}=127.0.0.1")]);
    }
    let mut crawl = Command::new(env!("CARGO_BIN_EXE_freshet"))
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The crawl says where it listens on its first line of standard error.
    let mut lines = BufReader::new(crawl.stderr.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let server = first.rsplit("http://").next().unwrap().trim().to_owned();
    std::thread::sleep(std::time::Duration::from_secs(3));

    let status = freshet_in(data.path(), &["status", "--server", &server], None);
    assert_success(&status);
    let text = stdout(&status);
    assert!(text.contains("revisit policy      freshet") && text.contains("hosts by λ_i"), "{text}");
    assert!(text.contains("not followed        0 URLs over --host-quota"), "{text}");
    let json = freshet_in(data.path(), &["status", "--server", &server, "--json"], None);
    let json: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert!(json["page_requests"].as_u64().unwrap() > 0, "{json}");
    assert_eq!(json["over_domain_quota"].as_u64(), Some(0), "{json}");
    // Pages were read, so their hosts' boilerplate tables hold something.
    assert!(json["boilerplate_bytes"].as_u64().unwrap() > 0, "{json}");

    let explain = freshet_in(data.path(), &["explain", &root, "--server", &server], None);
    assert_success(&explain);
    let text = stdout(&explain);
    for field in [
        "weight w",
        "change rate λ",
        "last fetch",
        "archived            its own response record of ",
        "crawl value V(τ)",
        "threshold",
        "next fetch",
        "status",
    ] {
        assert!(text.contains(field), "{field} missing: {text}");
    }
    let unknown =
        freshet_in(data.path(), &["explain", &web.url("h0.web.test", "/nowhere"), "--server", &server], None);
    assert!(!unknown.status.success());
    assert!(stderr(&unknown).contains("not in this crawl's frontier"), "{}", stderr(&unknown));

    let metrics = runtime.block_on(async {
        reqwest::get(format!("http://{server}/metrics")).await.unwrap().text().await.unwrap()
    });
    for name in [
        "freshet_expected_freshness",
        "freshet_lambda0",
        "freshet_page_requests_total",
        "freshet_robots_skipped_total",
        "freshet_robots_deferred_total",
        "freshet_over_host_quota_total",
        "freshet_over_domain_quota_total",
        "freshet_too_long_total",
        "freshet_throttled_out_total",
        "freshet_boilerplate_bytes",
        "freshet_identical_payloads_total",
        "freshet_duplicates_total",
        "freshet_payloads_indexed",
        "freshet_sitemap_rereads_total",
        "freshet_sitemap_not_modified_total",
        "freshet_sitemap_changes_total",
        "freshet_sitemap_vouched_total",
        "freshet_sitemap_lastmods_ignored_total",
        "freshet_host_lambda",
    ] {
        assert!(metrics.contains(name), "{name} missing from /metrics:\n{metrics}");
    }
    // While the crawl runs, its store is locked: `--data` says to ask the crawl instead.
    let crawl_dir = data.path().join("crawl").display().to_string();
    let locked = freshet_in(data.path(), &["status", "--data", &crawl_dir], None);
    assert!(!locked.status.success());
    assert!(stderr(&locked).contains("a crawl running on it holds its store"), "{}", stderr(&locked));
    assert!(crawl.wait().unwrap().success());
    runtime.block_on(web.shutdown()).unwrap();

    // Stopped: `--data` reads the frontier, which agrees with the crawl log.
    let fetched = fetched_urls(&data.path().join("crawl"));
    let status = freshet_in(data.path(), &["status", "--data", &crawl_dir, "--json"], None);
    assert_success(&status);
    let report: serde_json::Value = serde_json::from_str(&stdout(&status)).unwrap();
    let count = |field: &str| report[field].as_u64().unwrap();
    assert_eq!(count("fetched"), fetched.len() as u64, "{report}");
    assert_eq!(count("in_flight"), 0, "a clean stop: {report}");
    assert_eq!(count("pages"), count("discovered") + count("fetched"), "{report}");
    assert_eq!(count("pages"), count("due_now") + count("due_later") + count("not_due"), "{report}");
    assert_eq!(count("hosts"), 2, "{report}");
    let hosts = report["top_hosts"].as_array().unwrap();
    let listed: u64 = hosts.iter().map(|host| host["pages"].as_u64().unwrap()).sum();
    assert_eq!(listed, count("pages"), "{report}");
    let text = stdout(&freshet_in(data.path(), &["status", "--data", &crawl_dir, "--hosts", "1"], None));
    assert!(text.contains(&format!("pages     {} seen", count("pages"))), "{text}");
    assert_eq!(text.lines().filter(|line| line.starts_with("  http://")).count(), 1, "{text}");

    let seed = freshet_in(data.path(), &["explain", &root, "--data", &crawl_dir, "--json"], None);
    assert_success(&seed);
    let seed: serde_json::Value = serde_json::from_str(&stdout(&seed)).unwrap();
    assert_eq!((seed["state"].as_str(), seed["depth"].as_u64()), (Some("fetched"), Some(0)), "{seed}");
    assert!(seed["discovered_from"].is_null() && seed["last_fetch"].as_f64().is_some(), "{seed}");
    assert_eq!(seed["payload_record"]["target_uri"].as_str(), Some(root.as_str()), "{seed}");
    assert!(seed["payload_record"]["payload_digest"].as_str().unwrap().starts_with("sha1:"), "{seed}");
    // A page found by a link names the page it was found on, itself fetched. A host's sitemap
    // may name its pages first (no page as their source), but h1's first page can only have
    // been found by a link from h0 (its sitemap comes after its robots.txt, after that link).
    let mut found_by_links = 0;
    for url in fetched.iter().filter(|url| **url != root) {
        let child = freshet_in(data.path(), &["explain", url, "--data", &crawl_dir, "--json"], None);
        let child: serde_json::Value = serde_json::from_str(&stdout(&child)).unwrap();
        assert!(child["depth"].as_u64().unwrap() >= 1, "{child}");
        if let Some(from) = child["discovered_from"].as_str() {
            assert!(fetched.contains(from), "{child}");
            found_by_links += 1;
        }
    }
    assert!(found_by_links > 0, "no page found by a link among {fetched:?}");
    let text = stdout(&freshet_in(data.path(), &["explain", &root, "--data", &crawl_dir], None));
    for field in [
        "state               fetched",
        "found               a seed",
        "change rate λ",
        "ETag",
        "archived            its own response record of ",
    ] {
        assert!(text.contains(field), "{field} missing: {text}");
    }
    let nowhere = format!("{}nowhere", root);
    let unknown = freshet_in(data.path(), &["explain", &nowhere, "--data", &crawl_dir], None);
    assert!(!unknown.status.success());
    assert!(stderr(&unknown).contains("is not in the frontier"), "{}", stderr(&unknown));
}

#[test]
fn status_of_a_directory_without_a_crawl_says_so_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let output = freshet_in(dir.path(), &["status", "--data", &dir.path().display().to_string()], None);
    assert!(!output.status.success());
    assert!(stderr(&output).contains("holds no crawl (no frontier store)"), "{}", stderr(&output));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "nothing created");
}

#[test]
fn status_without_a_crawl_says_what_to_run() {
    let dir = tempfile::tempdir().unwrap();
    // Port 9 (discard) on loopback: nothing listens there in a test environment.
    let output = freshet_in(dir.path(), &["status", "--server", "127.0.0.1:9"], None);
    assert!(!output.status.success());
    assert!(stderr(&output).contains("freshet crawl --listen"), "{}", stderr(&output));
}

/// A stopped crawl whose frontier is in Redis: `--data` finds the server and prefix in the
/// crawl's `crawl.toml` and reads the frontier there, as it reads `frontier.redb`.
#[test]
fn status_and_explain_read_a_stopped_crawl_from_redis() {
    let redis = freshet_frontier::conformance::RedisServer::start();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let config = ServerConfig {
        web: WebConfig { hosts: 2, pages: 30, ..WebConfig::default() },
        ..ServerConfig::default()
    };
    let web = runtime
        .block_on(TestWeb::start("127.0.0.1:0".parse().unwrap(), config, Arc::new(SystemClock::new())))
        .unwrap();
    let data = tempfile::tempdir().unwrap();
    let crawl_dir = data.path().join("crawl").display().to_string();
    let root = web.url("h0.web.test", "/");
    let mut args = vec![
        "crawl",
        &root,
        "--data",
        &crawl_dir,
        "--scope",
        "domain",
        "--delay",
        "0.01",
        "--revisit",
        "once",
        "--allow-private",
        "--store",
        &redis.url,
        "--store-prefix",
        "stopped",
    ];
    let resolves: Vec<String> = web.host_names().iter().map(|host| format!("{host}=127.0.0.1")).collect();
    for resolve in &resolves {
        args.extend(["--resolve", resolve]);
    }
    assert_success(&freshet_in(data.path(), &args, None));
    runtime.block_on(web.shutdown()).unwrap();
    assert!(!data.path().join("crawl").join("frontier.redb").exists());

    let fetched = fetched_urls(&data.path().join("crawl"));
    let status = freshet_in(data.path(), &["status", "--data", &crawl_dir, "--json"], None);
    assert_success(&status);
    let report: serde_json::Value = serde_json::from_str(&stdout(&status)).unwrap();
    assert_eq!(report["fetched"].as_u64().unwrap(), fetched.len() as u64, "{report}");
    assert_eq!(report["hosts"].as_u64().unwrap(), 2, "{report}");
    let explain = freshet_in(data.path(), &["explain", &root, "--data", &crawl_dir, "--json"], None);
    assert_success(&explain);
    let page: serde_json::Value = serde_json::from_str(&stdout(&explain)).unwrap();
    assert_eq!(page["url"], root.as_str(), "{page}");
}
