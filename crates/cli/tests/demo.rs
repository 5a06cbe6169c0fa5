//! `freshet demo` end to end, short: three crawls of a small noisy test web without
//! validators, measured against the truth; the JSON summary's numbers must hang together
//! (budget kept, no politeness violation, no 304 where the server sends no validators).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{assert_success, freshet_in, stdout};

#[test]
fn a_short_demo_measures_three_polite_crawls_within_their_budget() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results");
    let out_arg = out.display().to_string();
    let args = [
        "demo",
        "--duration",
        "8",
        "--pages",
        "150",
        "--hosts",
        "4",
        "--rate",
        "20",
        "--time-scale",
        "0.2",
        "--noise",
        "--no-validators",
        "--json",
        "--out",
        &out_arg,
    ];
    let output = freshet_in(dir.path(), &args, None);
    assert_success(&output);
    let summary: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    for key in ["freshet_freshness", "uniform_freshness", "nutch_freshness", "optimum"] {
        let value = summary[key].as_f64().unwrap_or_else(|| panic!("{key} missing: {summary}"));
        assert!(value > 0.0 && value <= 1.0, "{key} = {value}");
    }
    let policies = summary["policies"].as_array().unwrap();
    assert_eq!(policies.len(), 3);
    for policy in policies {
        let name = policy["policy"].as_str().unwrap();
        assert_eq!(policy["politeness_violations"], 0, "{name}");
        assert_eq!(policy["not_modified"], 0, "{name}: a 304 from a server without validators");
        let requests = policy["page_requests"].as_u64().unwrap();
        // The budget: 20 requests a second for 8 s (plus the token bucket's burst of 64).
        assert!(requests > 20 && requests <= 20 * 8 + 64, "{name}: {requests} requests");
    }
    for file in ["summary.json", "freshness.csv", "freshness.png", "freshness.svg"] {
        assert!(out.join(file).metadata().unwrap().len() > 0, "{file}");
    }
    let csv = std::fs::read_to_string(out.join("freshness.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 3 * 40);
}

#[test]
fn bad_demo_flags_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let output = freshet_in(dir.path(), &["demo", "--duration", "0"], None);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("--duration"));
    let output = freshet_in(dir.path(), &["demo", "--warmup", "1.5"], None);
    assert!(String::from_utf8_lossy(&output.stderr).contains("--warmup"));
}
