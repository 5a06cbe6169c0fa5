//! `freshet solve` end to end: published optima, every input form, host caps, the summary.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;

/// Solves the Cho example with `objective` and checks the rates against the vectors file.
fn check_cho(objective: &str) -> Vec<Row> {
    let vectors = cho_vectors();
    let budget = vectors["budget_fetches_per_unit"].as_f64().unwrap().to_string();
    let output =
        freshet(&["solve", "examples/cho-5-elements.csv", "--budget", &budget, "--objective", objective]);
    assert_success(&output);
    let rows = parse_rates(&stdout(&output));
    let expected = &vectors["optimal"][objective];
    let tolerance = expected["tolerance"].as_f64().unwrap();
    let rates = numbers(&expected["rates"]);
    assert_eq!(rows.len(), rates.len());
    for (index, (row, want)) in rows.iter().zip(&rates).enumerate() {
        assert_eq!(row.id, format!("element-{}", index + 1));
        assert!((row.rate - want).abs() <= tolerance, "{objective} page {index}: {} vs {want}", row.rate);
    }
    rows
}

#[test]
fn cho_freshness_matches_published_rates() {
    let rows = check_cho("freshness");
    assert_eq!(rows[4].rate, 0.0, "the fastest-changing element is not fetched");
}

#[test]
fn cho_age_matches_published_rates() {
    check_cho("age");
}

#[test]
fn cho_mean_values_match_published_means() {
    let vectors = cho_vectors();
    let dir = tempfile::tempdir().unwrap();
    for (objective, key) in [("freshness", "mean_freshness"), ("age", "mean_age_days")] {
        let summary = dir.path().join(format!("{objective}.json"));
        let output = freshet(&[
            "solve",
            "examples/cho-5-elements.csv",
            "--budget",
            "5",
            "--objective",
            objective,
            "--summary-json",
            summary.to_str().unwrap(),
        ]);
        assert_success(&output);
        let summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
        let mean = summary["value"].as_f64().unwrap() / summary["weight_total"].as_f64().unwrap();
        let published = vectors["optimal"][objective][key].as_f64().unwrap();
        assert!((mean - published).abs() < 1e-4, "{objective}: mean {mean} vs published {published}");
    }
}

#[test]
fn interval_is_the_reciprocal_and_empty_for_unfetched_pages() {
    let output = freshet(&["solve", "examples/cho-5-elements.csv", "--budget", "5"]);
    assert_success(&output);
    let text = stdout(&output);
    assert!(text.lines().last().unwrap().ends_with(",0,"), "rate 0 has an empty interval: {text}");
    for row in parse_rates(&text) {
        match row.interval {
            Some(interval) => assert!((interval * row.rate - 1.0).abs() < 1e-15, "{row:?}"),
            None => assert_eq!(row.rate, 0.0),
        }
    }
}

#[test]
fn jsonl_stdin_and_reordered_csv_give_the_same_output() {
    let dir = tempfile::tempdir().unwrap();
    let csv_text = std::fs::read_to_string(repo_root().join("examples/cho-5-elements.csv")).unwrap();
    let expected = stdout(&freshet(&["solve", "examples/cho-5-elements.csv", "--budget", "5"]));

    let from_stdin = freshet_in(dir.path(), &["solve", "-", "--budget", "5"], Some(&csv_text));
    assert_success(&from_stdin);
    assert_eq!(stdout(&from_stdin), expected);

    let jsonl: String = (1..=5)
        .map(|lambda| {
            format!(
                "{{\"change_rate\": {lambda}, \"note\": [1], \"id\": \"element-{lambda}\", \"weight\": 1}}\n"
            )
        })
        .collect();
    let path = write(dir.path(), "pages.jsonl", &format!("{jsonl}\n"));
    let from_jsonl = freshet(&["solve", &path, "--budget", "5"]);
    assert_success(&from_jsonl);
    assert_eq!(stdout(&from_jsonl), expected);

    let reordered: String = std::iter::once("extra,change_rate,id,weight,host\n".to_owned())
        .chain((1..=5).map(|lambda| format!("x,{lambda}, element-{lambda} ,1.0,h\n")))
        .collect();
    let path = write(dir.path(), "reordered.csv", &reordered);
    let from_reordered = freshet(&["solve", &path, "--budget", "5"]);
    assert_success(&from_reordered);
    assert_eq!(stdout(&from_reordered), expected, "columns in any order, extra and host columns ignored");
}

#[test]
fn jsonl_ids_may_be_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "pages.jsonl",
        "{\"id\": 17, \"weight\": 1, \"change_rate\": 1}\n{\"id\": \"b\", \"weight\": \"2.5\", \"change_rate\": 0.5}\n",
    );
    let output = freshet(&["solve", &path, "--budget", "1"]);
    assert_success(&output);
    let ids: Vec<String> = parse_rates(&stdout(&output)).into_iter().map(|row| row.id).collect();
    assert_eq!(ids, ["17", "b"]);
}

#[test]
fn ids_that_need_quoting_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "pages.csv", "id,weight,change_rate\n\"a,b\",1,1\n\"say \"\"hi\"\"\",1,2\n");
    let output = freshet(&["solve", &path, "--budget", "1"]);
    assert_success(&output);
    let ids: Vec<String> = parse_rates(&stdout(&output)).into_iter().map(|row| row.id).collect();
    assert_eq!(ids, ["a,b", "say \"hi\""]);
}

/// `n` pages with scrambled ids, on hosts `h0..h3`.
fn scrambled_pages(n: usize) -> (Vec<String>, String) {
    let ids: Vec<String> = (0..n).map(|index| format!("page-{}", (index * 7919 + 13) % n)).collect();
    let mut csv = String::from("id,weight,change_rate,host\n");
    for (index, id) in ids.iter().enumerate() {
        let weight = 1.0 + (index % 7) as f64;
        let change_rate = 0.01 * (1 + (index * 31) % 97) as f64;
        csv.push_str(&format!("{id},{weight},{change_rate},h{}\n", index % 4));
    }
    (ids, csv)
}

#[test]
fn output_order_is_input_order_and_rates_do_not_depend_on_it() {
    let dir = tempfile::tempdir().unwrap();
    let (ids, csv) = scrambled_pages(500);
    let forward = write(dir.path(), "forward.csv", &csv);
    let mut lines: Vec<&str> = csv.lines().collect();
    lines[1..].reverse();
    let backward = write(dir.path(), "backward.csv", &(lines.join("\n") + "\n"));

    let rows = parse_rates(&stdout(&freshet(&["solve", &forward, "--budget", "20"])));
    assert_eq!(rows.iter().map(|row| row.id.clone()).collect::<Vec<_>>(), ids);
    let reversed = parse_rates(&stdout(&freshet(&["solve", &backward, "--budget", "20"])));
    let reversed_ids: Vec<String> = reversed.iter().map(|row| row.id.clone()).collect();
    assert_eq!(reversed_ids, ids.iter().rev().cloned().collect::<Vec<_>>());
    for (row, other) in rows.iter().zip(reversed.iter().rev()) {
        assert!((row.rate - other.rate).abs() <= 1e-9 * row.rate.max(1e-9), "{row:?} vs {other:?}");
    }
}

#[test]
fn a_host_cap_binds_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let (_, csv) = scrambled_pages(400);
    let pages = write(dir.path(), "pages.csv", &csv);
    let budget = "20";
    let host_of = |row_index: usize| format!("h{}", row_index % 4);
    // Unconstrained, host h1 demands some rate; cap it at a third of that.
    let free = parse_rates(&stdout(&freshet(&["solve", &pages, "--budget", budget])));
    let free_h1: f64 =
        free.iter().enumerate().filter(|(i, _)| host_of(*i) == "h1").map(|(_, row)| row.rate).sum();
    let cap = free_h1 / 3.0;
    let hosts = write(
        dir.path(),
        "hosts.csv",
        &format!("capacity,host\n{cap},h1\ninf,h0\n1e9,h2\n100,h3\n5,unused\n"),
    );
    let summary = dir.path().join("summary.json");
    let output = freshet(&[
        "solve",
        &pages,
        "--hosts",
        &hosts,
        "--budget",
        budget,
        "--summary-json",
        summary.to_str().unwrap(),
    ]);
    assert_success(&output);
    let capped = parse_rates(&stdout(&output));
    let capped_h1: f64 =
        capped.iter().enumerate().filter(|(i, _)| host_of(*i) == "h1").map(|(_, row)| row.rate).sum();
    assert!((capped_h1 - cap).abs() <= 1e-9 * cap, "host h1 uses {capped_h1}, cap {cap}");
    let total: f64 = capped.iter().map(|row| row.rate).sum();
    assert!((total - 20.0).abs() < 1e-9, "the rest of the budget goes to the other hosts: {total}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
    // `hosts_capped` counts the hosts whose multiplier λ_i is positive.
    assert!(summary["hosts_capped"].as_u64().unwrap() >= 1, "{summary}");
    assert_eq!(summary["hosts"].as_u64(), Some(5));
    assert!(summary["kkt_residual"].as_f64().unwrap() < 1e-9);
}

#[test]
fn summary_json_has_every_field() {
    let dir = tempfile::tempdir().unwrap();
    let summary_path = dir.path().join("summary.json");
    let out_path = dir.path().join("rates.csv");
    let output = freshet(&[
        "solve",
        "examples/cho-5-elements.csv",
        "--budget",
        "5",
        "--out",
        out_path.to_str().unwrap(),
        "--summary-json",
        summary_path.to_str().unwrap(),
    ]);
    assert_success(&output);
    assert!(output.stdout.is_empty(), "with --out nothing goes to standard output");
    assert!(stderr(&output).contains("freshness"), "a human summary on stderr: {}", stderr(&output));
    assert_eq!(parse_rates(&std::fs::read_to_string(&out_path).unwrap()).len(), 5);
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&summary_path).unwrap()).unwrap();
    for field in [
        "objective",
        "value",
        "value_kind",
        "weight_total",
        "budget",
        "budget_used",
        "lambda0",
        "hosts_capped",
        "pages_not_fetched",
        "kkt_residual",
        "duality_gap",
        "duality_gap_absolute",
        "passes",
        "seconds",
        "seconds_total",
        "pages",
        "hosts",
        "id_bytes",
        "peak_rss_bytes",
    ] {
        assert!(summary.get(field).is_some(), "summary lacks {field}: {summary}");
    }
    assert_eq!(summary["objective"], "freshness");
    assert_eq!(summary["pages"], 5);
    assert_eq!(summary["hosts"], 0);
    assert_eq!(summary["hosts_capped"], 0);
    assert_eq!(summary["pages_not_fetched"], 1);
    assert!(summary["kkt_residual"].as_f64().unwrap() < 1e-9);
    assert!(summary["duality_gap"].as_f64().unwrap() < 1e-9);
    assert!((summary["budget_used"].as_f64().unwrap() - 5.0).abs() < 1e-9);
    assert!(summary["lambda0"].as_f64().unwrap() > 0.0);
    assert!(summary["seconds"].as_f64().unwrap() <= summary["seconds_total"].as_f64().unwrap());
    if cfg!(target_os = "linux") {
        assert!(summary["peak_rss_bytes"].as_u64().unwrap() > 0);
    }
}

#[test]
fn cost_objectives_report_a_positive_cost() {
    let dir = tempfile::tempdir().unwrap();
    for objective in ["age", "delay"] {
        let path = dir.path().join("summary.json");
        let output = freshet(&[
            "solve",
            "examples/cho-5-elements.csv",
            "--budget",
            "5",
            "--objective",
            objective,
            "--summary-json",
            path.to_str().unwrap(),
        ]);
        assert_success(&output);
        let summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert!(summary["value"].as_f64().unwrap() > 0.0, "{summary}");
        assert!(summary["value_kind"].as_str().unwrap().contains("minimised cost"), "{summary}");
    }
}

#[test]
fn every_objective_solves_and_certifies() {
    let dir = tempfile::tempdir().unwrap();
    let pages = write(dir.path(), "pages.csv", "id,weight,change_rate\na,1,0.1\nb,2,0.5\nc,3,0.9\n");
    for objective in ["freshness", "freshness-poisson", "freshness-discrete", "changes", "age", "delay"] {
        let path = dir.path().join("summary.json");
        let output = freshet(&[
            "solve",
            &pages,
            "--budget",
            "1.5",
            "--objective",
            objective,
            "--summary-json",
            path.to_str().unwrap(),
        ]);
        assert_success(&output);
        let summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(summary["objective"], objective);
        assert!(summary["kkt_residual"].as_f64().unwrap() < 1e-9, "{objective}: {summary}");
    }
}

#[test]
fn an_existing_out_file_is_replaced_on_success() {
    let dir = tempfile::tempdir().unwrap();
    let out = write(dir.path(), "rates.csv", "old contents\n");
    assert_success(&freshet(&["solve", "examples/cho-5-elements.csv", "--budget", "5", "--out", &out]));
    assert_eq!(parse_rates(&std::fs::read_to_string(&out).unwrap()).len(), 5);
    let leftovers: Vec<_> =
        std::fs::read_dir(dir.path()).unwrap().map(|entry| entry.unwrap().file_name()).collect();
    assert_eq!(leftovers.len(), 1, "no temporary file is left behind: {leftovers:?}");
}

#[test]
fn help_explains_formats_and_units() {
    let output = freshet(&["solve", "--help"]);
    assert_success(&output);
    let help = stdout(&output);
    for needle in
        ["change_rate", "unit of change_rate", "--hosts", "capacity", "interval", "freshness-poisson", "age"]
    {
        assert!(help.contains(needle), "--help lacks {needle:?}:\n{help}");
    }
    let top = stdout(&freshet(&["--help"]));
    assert!(top.contains("solve"), "{top}");
}
