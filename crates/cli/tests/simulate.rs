//! `freshet simulate` end to end: outputs, determinism, politeness, and errors.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{assert_success, freshet_in, stderr, write};

/// 40 pages on 4 hosts, Zipf-like weights, change rates 0.1..2.
fn pages_csv() -> String {
    let mut text = String::from("id,weight,change_rate,host\n");
    for index in 0..40_u32 {
        let weight = 1.0 / f64::from(index + 1);
        let rate = 0.1 + f64::from(index % 10) * 0.2;
        text.push_str(&format!("p{index},{weight},{rate},h{}\n", index % 4));
    }
    text
}

fn summary_rows(dir: &std::path::Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(dir.join("summary.csv")).unwrap();
    text.lines().skip(1).map(|line| line.split(',').map(str::to_owned).collect()).collect()
}

#[test]
fn writes_summary_series_and_plots_and_is_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    let pages = write(dir.path(), "pages.csv", &pages_csv());
    let args = |out: &str| {
        vec![
            "simulate",
            "--pages",
            &pages,
            "--budget",
            "2,8",
            "--horizon",
            "300",
            "--policy",
            "uniform,periodic-optimal,nutch-adaptive",
            "--seed",
            "7",
            "--out",
            out,
        ]
        .into_iter()
        .map(str::to_owned)
        .collect::<Vec<_>>()
    };
    let first: Vec<String> = args("first");
    let output = freshet_in(dir.path(), &first.iter().map(String::as_str).collect::<Vec<_>>(), None);
    assert_success(&output);
    let out = dir.path().join("first");
    for name in [
        "summary.csv",
        "series.csv",
        "freshness-over-time.svg",
        "freshness-over-time.png",
        "freshness-vs-bandwidth.svg",
        "freshness-vs-bandwidth.png",
    ] {
        assert!(out.join(name).is_file(), "missing {name}");
    }
    let rows = summary_rows(&out);
    assert_eq!(rows.len(), 6, "2 budgets × 3 policies");
    for row in &rows {
        let freshness: f64 = row[3].parse().unwrap();
        let optimum: f64 = row[5].parse().unwrap();
        assert!(freshness > 0.0 && freshness <= 1.0);
        assert!(optimum > 0.0 && optimum <= 1.0);
        assert_eq!(row[12], "0", "politeness violations in {row:?}");
    }
    // periodic-optimal beats uniform at each budget.
    for budget in ["2", "8"] {
        let freshness = |policy: &str| -> f64 {
            rows.iter().find(|row| row[0] == budget && row[1] == policy).unwrap()[3].parse().unwrap()
        };
        assert!(freshness("periodic-optimal") > freshness("uniform"), "budget {budget}");
    }
    // Same seed, same bytes.
    let second: Vec<String> = args("second");
    assert_success(&freshet_in(dir.path(), &second.iter().map(String::as_str).collect::<Vec<_>>(), None));
    let read = |sub: &str| std::fs::read(dir.path().join(sub).join("summary.csv")).unwrap();
    assert_eq!(read("first"), read("second"));
}

/// Runs `freshet simulate` on the 40 pages and four hosts with caps and minimum delays, with
/// `args` added, and returns the summary's rows.
fn simulate_on_limited_hosts(args: &[&str]) -> Vec<Vec<String>> {
    let dir = tempfile::tempdir().unwrap();
    let pages = write(dir.path(), "pages.csv", &pages_csv());
    let hosts =
        write(dir.path(), "hosts.csv", "host,capacity,min_delay\nh0,0.5,1\nh1,inf,0.5\nh2,1,\nh3,inf,0\n");
    let mut all = vec!["simulate", "--pages", &pages, "--hosts", &hosts, "--horizon", "400", "--out", "out"];
    all.extend_from_slice(args);
    assert_success(&freshet_in(dir.path(), &all, None));
    summary_rows(&dir.path().join("out"))
}

#[test]
fn host_caps_and_min_delays_are_respected() {
    let rows = simulate_on_limited_hosts(&[
        "--budget",
        "6",
        "--policy",
        "uniform,greedy,periodic-optimal,poisson-optimal,nutch-adaptive",
        "--changes",
        "bursty",
    ]);
    assert_eq!(rows.len(), 5);
    for row in rows {
        assert_eq!(row[12], "0", "politeness violations in {row:?}");
    }
}

/// `--explore K` with learned rates: the phase runs before `threshold` under host caps and
/// minimum delays, with no violation and the budget spent.
#[test]
fn an_exploration_phase_runs_before_learned_threshold_politely() {
    let rows = simulate_on_limited_hosts(&[
        "--budget",
        "4",
        "--warmup",
        "0.5",
        "--policy",
        "threshold",
        "--rates",
        "learned",
        "--explore",
        "10",
    ]);
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    assert_eq!((row[1].as_str(), row[2].as_str()), ("threshold", "learned"));
    assert_eq!(row[12], "0", "politeness violations in {row:?}");
    let fetch_rate: f64 = row[11].parse().unwrap();
    assert!(fetch_rate > 3.0 && fetch_rate <= 4.0 * 1.02, "fetch rate {fetch_rate} against a budget of 4");
}

/// `--notify-interval S`: `threshold` hears the reads (its row names the interval), the other
/// policies ignore them (empty), and the budget and host limits still hold.
#[test]
fn notifications_are_named_in_the_summary_for_the_policy_that_hears_them() {
    let rows = simulate_on_limited_hosts(&[
        "--budget",
        "4",
        "--policy",
        "threshold,uniform",
        "--notify-interval",
        "0.5",
    ]);
    assert_eq!(rows.len(), 2);
    for row in &rows {
        assert_eq!(row[12], "0", "politeness violations in {row:?}");
        let expected = if row[1] == "threshold" { "0.5" } else { "" };
        assert_eq!(row[13], expected, "{row:?}");
    }
    let without = simulate_on_limited_hosts(&["--budget", "4", "--policy", "threshold"]);
    assert_eq!(without[0][13], "");
}

#[test]
fn bad_arguments_name_what_is_wrong_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let pages = write(dir.path(), "pages.csv", &pages_csv());
    let cases: [(&[&str], &str); 8] = [
        (&["--policy", "best", "--budget", "1"], "unknown policy \"best\""),
        (&["--policy", "uniform", "--budget", "0"], "--budget"),
        (&["--policy", "uniform", "--budget", "1", "--rates", "psychic"], "--rates"),
        (&["--policy", "uniform", "--budget", "1", "--warmup", "2"], "invalid simulation"),
        (&["--policy", "threshold", "--budget", "1", "--explore", "20"], "needs --rates learned"),
        (
            &["--policy", "threshold,uniform", "--budget", "1", "--rates", "learned", "--explore", "20"],
            "only `threshold` has an exploration phase",
        ),
        (&["--policy", "threshold", "--budget", "1", "--notify-interval", "0"], "--notify-interval"),
        (
            &[
                "--policy",
                "threshold",
                "--budget",
                "1",
                "--rates",
                "learned",
                "--explore",
                "5",
                "--notify-interval",
                "1",
            ],
            "not simulated with an exploration phase",
        ),
    ];
    for (extra, expected) in cases {
        let mut args = vec!["simulate", "--pages", pages.as_str(), "--horizon", "10", "--out", "out"];
        args.extend_from_slice(extra);
        let output = freshet_in(dir.path(), &args, None);
        assert!(!output.status.success(), "{args:?} should fail");
        assert!(stderr(&output).contains(expected), "{args:?}: {}", stderr(&output));
        assert!(!dir.path().join("out").join("summary.csv").exists(), "{args:?} wrote a summary");
    }
}
