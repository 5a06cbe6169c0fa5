//! `freshet focus`: a focused crawl of a graph from tab-separated files, its CSV, and clear
//! errors that name the file and the line.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;

/// 0 → 1, 2; 1 → 3; 2 → 4. Page 1 is relevant (5) and links to 3 (4); the link 0 → 2 says
/// "relevant" (1) but 2 and 4 are not (the crate docs' example).
const LINKS: &str = "0\t1\n0\t2\n1\t3\n\n2\t4\n";
const SCORES: &str = "1\t5\n3\t4\n";
const LINK_SCORES: &str = "0\t2\t1\n";

#[test]
fn each_estimator_fetches_by_what_it_reads() {
    let dir = tempfile::tempdir().unwrap();
    let links = write(dir.path(), "links.tsv", LINKS);
    let scores = write(dir.path(), "scores.tsv", SCORES);
    let link_scores = write(dir.path(), "anchors.tsv", LINK_SCORES);
    let run = |estimator: &str| {
        freshet(&[
            "focus",
            "--links",
            &links,
            "--scores",
            &scores,
            "--link-scores",
            &link_scores,
            "--seeds",
            "0",
            "--budget",
            "2",
            "--estimator",
            estimator,
        ])
    };
    // By the parents' scores: 1 (ties with 2 at 0, the smaller id), then 3 (its parent scores 5).
    let by_parents = run("fl_n");
    assert_success(&by_parents);
    assert_eq!(stdout(&by_parents), "step,page,score,total\n1,1,5,5\n2,3,4,9\n");
    assert!(
        stderr(&by_parents).contains("2 pages fetched after 1 seeds; total score 9 (100.0% of 9"),
        "{}",
        stderr(&by_parents)
    );
    // By the anchors: 2 first (its link scores 1), which brings nothing.
    let by_anchors = run("fl_e");
    assert_success(&by_anchors);
    assert_eq!(stdout(&by_anchors), "step,page,score,total\n1,2,0,0\n2,1,5,5\n");
}

#[test]
fn a_bandit_writes_its_csv_to_a_file_and_says_what_it_chose() {
    let dir = tempfile::tempdir().unwrap();
    let links = write(dir.path(), "links.tsv", LINKS);
    let scores = write(dir.path(), "scores.tsv", SCORES);
    let out = dir.path().join("crawl.csv");
    let output = freshet(&[
        "focus",
        "--links",
        &links,
        "--scores",
        &scores,
        "--seeds",
        "0",
        "--budget",
        "10",
        "--bandit",
        "var",
        "--arms",
        "bfs,fl_n",
        "--reset",
        "2",
        "--epsilon",
        "0.5",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_success(&output);
    assert_eq!(stdout(&output), "");
    let csv = std::fs::read_to_string(&out).unwrap();
    // Every reachable page once (4 beyond the seed), whatever the arms chose.
    let mut pages: Vec<&str> = csv.lines().skip(1).map(|line| line.split(',').nth(1).unwrap()).collect();
    pages.sort_unstable();
    assert_eq!(pages, ["1", "2", "3", "4"]);
    assert!(csv.lines().last().unwrap().ends_with(",9"), "{csv}");
    assert!(stderr(&output).contains("refreshes by arm: bfs "), "{}", stderr(&output));
}

#[test]
fn bad_input_is_named_by_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let links = write(dir.path(), "links.tsv", LINKS);
    let scores = write(dir.path(), "scores.tsv", SCORES);
    let fails = |extra: &[&str], expected: &str| {
        let mut args = vec!["focus", "--seeds", "0", "--budget", "2"];
        args.extend_from_slice(extra);
        let output = freshet(&args);
        assert!(!output.status.success(), "{args:?} succeeded");
        assert!(stderr(&output).contains(expected), "{args:?}: {}", stderr(&output));
    };
    let bad_links = write(dir.path(), "bad-links.tsv", "0\t1\n0\tx\n");
    fails(&["--links", &bad_links, "--scores", &scores], "bad-links.tsv line 2: \"x\" is not a page id");
    let huge = write(dir.path(), "huge.tsv", "0\t1\n4294967295\t1\n");
    fails(
        &["--links", &huge, "--scores", &scores],
        "huge.tsv line 2: page id 4294967295 is past the 134217728 pages",
    );
    let one_field = write(dir.path(), "one-field.tsv", "0 1\n");
    fails(
        &["--links", &one_field, "--scores", &scores],
        "one-field.tsv line 1: 1 tab-separated fields, expected 2",
    );
    let negative = write(dir.path(), "negative.tsv", "1\t5\n3\t-4\n");
    fails(&["--links", &links, "--scores", &negative], "negative.tsv line 2: \"-4\" is not a score");
    let twice = write(dir.path(), "twice.tsv", "1\t5\n\n1\t2\n");
    fails(&["--links", &links, "--scores", &twice], "twice.tsv line 3: page 1 has a score already (line 1)");
    let no_link = write(dir.path(), "no-link.tsv", "0\t2\t1\n3\t0\t1\n");
    fails(
        &["--links", &links, "--scores", &scores, "--link-scores", &no_link],
        "no-link.tsv line 2: no link 3 → 0",
    );
    fails(
        &["--links", &links, "--scores", &scores, "--estimator", "nr"],
        "unknown estimator \"nr\" (known: bfs, opic,",
    );
    fails(&["--links", &links, "--scores", &scores, "--refresh", "0"], "refresh = 0 is outside ≥ 1");
    fails(&["--links", &links, "--scores", &scores, "--bandit", "ucb"], "unknown bandit \"ucb\"");
    fails(
        &["--links", &dir.path().join("missing.tsv").to_string_lossy(), "--scores", &scores],
        "cannot read",
    );
}
