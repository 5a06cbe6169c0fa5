//! `freshet scenario new-host` end to end: the CSVs and plots, and a bad scenario name.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{assert_success, freshet_in, stderr};

#[test]
fn new_host_writes_series_summary_and_plots() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let output = freshet_in(
        dir.path(),
        &[
            "scenario",
            "new-host",
            "--new-pages",
            "100",
            "--established-pages",
            "100",
            "--cap",
            "2",
            "--budget",
            "10",
            "--horizon",
            "200",
            "--out",
            out.to_str().unwrap(),
        ],
        None,
    );
    assert_success(&output);
    for file in ["new-host.csv", "new-host-summary.csv", "new-host-fetches.svg", "new-host-freshness.png"] {
        assert!(out.join(file).is_file(), "{file} missing");
    }
    let summary = std::fs::read_to_string(out.join("new-host-summary.csv")).unwrap();
    let policies: Vec<&str> = summary.lines().skip(1).map(|line| line.split(',').next().unwrap()).collect();
    assert_eq!(policies, ["threshold", "solver-then-schedule", "periodic-optimal"]);
    // Every row: politeness violations (last column) are 0.
    assert!(summary.lines().skip(1).all(|line| line.ends_with(",0")), "{summary}");
}

#[test]
fn an_unknown_scenario_is_an_error_that_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let output = freshet_in(dir.path(), &["scenario", "old-host", "--out", "x"], None);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("old-host"), "{}", stderr(&output));
}
