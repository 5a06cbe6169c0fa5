//! `freshet status` and `freshet explain` against a running `freshet crawl --listen`, and the
//! Prometheus endpoint it serves; and the clear error when no crawl listens.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{BufRead as _, BufReader};
use std::process::{Command, Stdio};
use std::sync::Arc;

use common::{assert_success, freshet_in, stderr, stdout};
use freshet_testweb::{ServerConfig, SystemClock, TestWeb, WebConfig};

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

    let explain = freshet_in(data.path(), &["explain", &root, "--server", &server], None);
    assert_success(&explain);
    let text = stdout(&explain);
    for field in
        ["weight w", "change rate λ", "last fetch", "crawl value V(τ)", "threshold", "next fetch", "status"]
    {
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
        "freshet_host_lambda",
    ] {
        assert!(metrics.contains(name), "{name} missing from /metrics:\n{metrics}");
    }
    assert!(crawl.wait().unwrap().success());
    runtime.block_on(web.shutdown()).unwrap();
}

#[test]
fn status_without_a_crawl_says_what_to_run() {
    let dir = tempfile::tempdir().unwrap();
    // Port 9 (discard) on loopback: nothing listens there in a test environment.
    let output = freshet_in(dir.path(), &["status", "--server", "127.0.0.1:9"], None);
    assert!(!output.status.success());
    assert!(stderr(&output).contains("freshet crawl --listen"), "{}", stderr(&output));
}
