//! `freshet solve` on bad input: a non-zero exit, a message naming the file, line and field,
//! and no output file created or changed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;

/// A bad-input case: files written into a fresh directory, the arguments after `solve`
/// (run in that directory, with `--out out.csv --summary-json summary.json` appended), and
/// what standard error must contain.
struct Case {
    name: &'static str,
    files: &'static [(&'static str, &'static str)],
    args: &'static [&'static str],
    stdin: Option<&'static str>,
    expect: &'static [&'static str],
}

const GOOD_HEADER: &str = "id,weight,change_rate,host\n";

const CASES: &[Case] = &[
    Case {
        name: "missing column",
        files: &[("pages.csv", "id,change_rate\na,1\n")],
        args: &["pages.csv", "--budget", "1"],
        stdin: None,
        expect: &["pages.csv line 1, field weight: missing column"],
    },
    Case {
        name: "non-number",
        files: &[("pages.csv", "id,weight,change_rate\na,1,1\nb,abc,1\n")],
        args: &["pages.csv", "--budget", "1"],
        stdin: None,
        expect: &["pages.csv line 3, field weight: \"abc\" is not a number"],
    },
    Case {
        name: "NaN",
        files: &[("pages.csv", "id,weight,change_rate\na,1,NaN\n")],
        args: &["pages.csv", "--budget", "1"],
        stdin: None,
        expect: &["pages.csv line 2, field change_rate: \"NaN\" is not a finite number"],
    },
    Case {
        name: "infinity",
        files: &[("pages.csv", "id,weight,change_rate\na,inf,1\n")],
        args: &["pages.csv", "--budget", "1"],
        stdin: None,
        expect: &["pages.csv line 2, field weight: \"inf\" is not a finite number"],
    },
    Case {
        name: "negative weight",
        files: &[("pages.csv", "id,weight,change_rate\na,1,1\nb,1,1\nc,-2,1\n")],
        args: &["pages.csv", "--budget", "1"],
        stdin: None,
        expect: &["pages.csv line 4, field weight: must be positive, got -2"],
    },
    Case {
        name: "zero change rate",
        files: &[("pages.csv", "id,weight,change_rate\na,1,0\n")],
        args: &["pages.csv", "--budget", "1"],
        stdin: None,
        expect: &["pages.csv line 2, field change_rate: must be positive, got 0"],
    },
    Case {
        name: "empty weight",
        files: &[("pages.csv", "id,weight,change_rate\na,,1\n")],
        args: &["pages.csv", "--budget", "1"],
        stdin: None,
        expect: &["pages.csv line 2, field weight: the value is empty"],
    },
    Case {
        name: "empty id",
        files: &[("pages.csv", "id,weight,change_rate\na,1,1\n  ,1,1\n")],
        args: &["pages.csv", "--budget", "1"],
        stdin: None,
        expect: &["pages.csv line 3, field id: the id is empty"],
    },
    Case {
        name: "duplicate id",
        files: &[("pages.csv", "id,weight,change_rate\na,1,1\nb,1,1\nc,1,1\nb,1,2\n")],
        args: &["pages.csv", "--budget", "1"],
        stdin: None,
        expect: &["pages.csv line 5, field id: duplicate id \"b\", already on line 3"],
    },
    Case {
        name: "line numbers count lines inside quoted fields",
        files: &[("pages.csv", "id,weight,change_rate\n\"two\nlines\",1,1\nb,1,1\nb,1,1\n")],
        args: &["pages.csv", "--budget", "1"],
        stdin: None,
        expect: &["pages.csv line 5, field id: duplicate id \"b\", already on line 4"],
    },
    Case {
        name: "host missing from HOSTS",
        files: &[
            ("pages.csv", "id,weight,change_rate,host\na,1,1,h1\nb,1,1,h2\n"),
            ("hosts.csv", "host,capacity\nh1,1\n"),
        ],
        args: &["pages.csv", "--hosts", "hosts.csv", "--budget", "1"],
        stdin: None,
        expect: &["pages.csv line 3, field host: host \"h2\" is not in hosts.csv"],
    },
    Case {
        name: "host column missing with --hosts",
        files: &[("pages.csv", "id,weight,change_rate\na,1,1\n"), ("hosts.csv", "host,capacity\nh1,1\n")],
        args: &["pages.csv", "--hosts", "hosts.csv", "--budget", "1"],
        stdin: None,
        expect: &["pages.csv line 1, field host: missing column (needed with --hosts)"],
    },
    Case {
        name: "bad capacity",
        files: &[("pages.csv", GOOD_HEADER), ("hosts.csv", "host,capacity\nh1,1\nh2,lots\n")],
        args: &["pages.csv", "--hosts", "hosts.csv", "--budget", "1"],
        stdin: None,
        expect: &["hosts.csv line 3, field capacity: \"lots\" is not a number"],
    },
    Case {
        name: "zero capacity",
        files: &[("pages.csv", GOOD_HEADER), ("hosts.csv", "host,capacity\nh1,0\n")],
        args: &["pages.csv", "--hosts", "hosts.csv", "--budget", "1"],
        stdin: None,
        expect: &["hosts.csv line 2, field capacity: must be positive, got 0"],
    },
    Case {
        name: "duplicate host",
        files: &[("pages.csv", GOOD_HEADER), ("hosts.csv", "host,capacity\nh1,1\nh2,1\nh1,2\n")],
        args: &["pages.csv", "--hosts", "hosts.csv", "--budget", "1"],
        stdin: None,
        expect: &["hosts.csv line 4, field host: duplicate host \"h1\", already on line 2"],
    },
    Case {
        name: "malformed CSV",
        files: &[("pages.csv", "id,weight,change_rate\na,1,1\nb,1\n")],
        args: &["pages.csv", "--budget", "1"],
        stdin: None,
        expect: &["pages.csv line 3: malformed CSV: 2 fields, but the header has 3"],
    },
    Case {
        name: "empty file",
        files: &[("pages.csv", "")],
        args: &["pages.csv", "--budget", "1"],
        stdin: None,
        expect: &["pages.csv line 1, field id: missing column"],
    },
    Case {
        name: "malformed JSON",
        files: &[(
            "pages.jsonl",
            "{\"id\": \"a\", \"weight\": 1, \"change_rate\": 1}\n\n{\"id\": \"b\", \"weight\": 1,\n",
        )],
        args: &["pages.jsonl", "--budget", "1"],
        stdin: None,
        expect: &["pages.jsonl line 3: malformed JSON: the line ends inside the object"],
    },
    Case {
        name: "malformed JSON mid-line",
        files: &[("pages.jsonl", "{\"id\": \"a\" \"weight\": 1, \"change_rate\": 1}\n")],
        args: &["pages.jsonl", "--budget", "1"],
        stdin: None,
        expect: &["pages.jsonl line 1: malformed JSON at column 12: expected `,` or `}`"],
    },
    Case {
        name: "JSON field of the wrong type",
        files: &[(
            "pages.jsonl",
            "{\"id\": \"a\", \"weight\": 1, \"change_rate\": 1}\n{\"id\": \"b\", \"weight\": true, \"change_rate\": 1}\n",
        )],
        args: &["pages.jsonl", "--budget", "1"],
        stdin: None,
        expect: &["pages.jsonl line 2, field weight: expected a number, found a boolean"],
    },
    Case {
        name: "JSON field missing",
        files: &[("pages.jsonl", "{\"id\": \"a\", \"weight\": 1}\n")],
        args: &["pages.jsonl", "--budget", "1"],
        stdin: None,
        expect: &["pages.jsonl line 1, field change_rate: missing"],
    },
    Case {
        name: "JSON non-number string",
        files: &[("pages.jsonl", "{\"id\": \"a\", \"weight\": \"heavy\", \"change_rate\": 1}\n")],
        args: &["pages.jsonl", "--budget", "1"],
        stdin: None,
        expect: &["pages.jsonl line 1, field weight: \"heavy\" is not a number"],
    },
    Case {
        name: "JSON duplicate id",
        files: &[(
            "pages.jsonl",
            "{\"id\": 7, \"weight\": 1, \"change_rate\": 1}\n{\"id\": \"7\", \"weight\": 1, \"change_rate\": 1}\n",
        )],
        args: &["pages.jsonl", "--budget", "1"],
        stdin: None,
        expect: &["pages.jsonl line 2, field id: duplicate id \"7\", already on line 1"],
    },
    Case {
        name: "bad standard input",
        files: &[],
        args: &["-", "--budget", "1"],
        stdin: Some("id,weight,change_rate\na,1,x\n"),
        expect: &["<stdin> line 2, field change_rate: \"x\" is not a number"],
    },
    Case {
        name: "change rate outside the objective's domain",
        files: &[("pages.csv", "id,weight,change_rate\na,1,0.5\nb,1,1.5\n")],
        args: &["pages.csv", "--budget", "1", "--objective", "freshness-discrete"],
        stdin: None,
        expect: &[
            "pages.csv line 3, field change_rate: objective freshness-discrete needs a change probability",
        ],
    },
    Case {
        name: "missing pages file",
        files: &[],
        args: &["nowhere.csv", "--budget", "1"],
        stdin: None,
        expect: &["nowhere.csv: cannot open"],
    },
    Case {
        name: "zero budget",
        files: &[("pages.csv", "id,weight,change_rate\na,1,1\n")],
        args: &["pages.csv", "--budget", "0"],
        stdin: None,
        expect: &["--budget", "positive"],
    },
    Case {
        name: "negative budget",
        files: &[("pages.csv", "id,weight,change_rate\na,1,1\n")],
        args: &["pages.csv", "--budget", "-3"],
        stdin: None,
        expect: &["--budget", "positive"],
    },
    Case {
        name: "non-number budget",
        files: &[("pages.csv", "id,weight,change_rate\na,1,1\n")],
        args: &["pages.csv", "--budget", "lots"],
        stdin: None,
        expect: &["--budget", "\"lots\" is not a number"],
    },
    Case {
        name: "missing budget",
        files: &[("pages.csv", "id,weight,change_rate\na,1,1\n")],
        args: &["pages.csv"],
        stdin: None,
        expect: &["--budget"],
    },
    Case {
        name: "unknown objective",
        files: &[("pages.csv", "id,weight,change_rate\na,1,1\n")],
        args: &["pages.csv", "--budget", "1", "--objective", "happiness"],
        stdin: None,
        expect: &["--objective", "happiness", "freshness-poisson"],
    },
];

/// Runs `case`, with no output file beforehand and then with existing ones.
fn check(case: &Case) {
    for existing in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        for (name, contents) in case.files {
            write(dir.path(), name, contents);
        }
        if existing {
            write(dir.path(), "out.csv", "keep me\n");
            write(dir.path(), "summary.json", "{}\n");
        }
        let mut args = vec!["solve"];
        args.extend_from_slice(case.args);
        args.extend_from_slice(&["--out", "out.csv", "--summary-json", "summary.json"]);
        let output = freshet_in(dir.path(), &args, case.stdin);
        let message = stderr(&output);
        assert!(!output.status.success(), "{}: succeeded; stderr {message}", case.name);
        for needle in case.expect {
            assert!(message.contains(needle), "{}: stderr lacks {needle:?}:\n{message}", case.name);
        }
        let out = dir.path().join("out.csv");
        let summary = dir.path().join("summary.json");
        if existing {
            assert_eq!(std::fs::read_to_string(out).unwrap(), "keep me\n", "{}: --out changed", case.name);
            assert_eq!(std::fs::read_to_string(summary).unwrap(), "{}\n", "{}: summary changed", case.name);
        } else {
            assert!(!out.exists(), "{}: --out was created", case.name);
            assert!(!summary.exists(), "{}: --summary-json was created", case.name);
        }
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert!(
            !names.iter().any(|name| name.starts_with(".freshet-")),
            "{}: temporary left: {names:?}",
            case.name
        );
    }
}

#[test]
fn every_bad_input_fails_cleanly() {
    for case in CASES {
        check(case);
    }
}

#[test]
fn error_messages_start_with_error() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "pages.csv", "id,weight,change_rate\na,abc,1\n");
    let output = freshet_in(dir.path(), &["solve", "pages.csv", "--budget", "1"], None);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stderr(&output), "error: pages.csv line 2, field weight: \"abc\" is not a number\n");
    assert!(output.stdout.is_empty(), "nothing is written to standard output on failure");
}

#[test]
fn usage_errors_exit_with_2() {
    let output = freshet(&["solve", "examples/cho-5-elements.csv"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn an_output_directory_that_does_not_exist_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("missing/rates.csv");
    let output =
        freshet(&["solve", "examples/cho-5-elements.csv", "--budget", "5", "--out", out.to_str().unwrap()]);
    assert!(!output.status.success());
    assert!(stderr(&output).contains("does not exist"), "{}", stderr(&output));
    assert!(output.stdout.is_empty());
}
