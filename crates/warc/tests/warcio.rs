//! Validation by an independent reader: `warcio` (PyPI), the web-archiving community's Python
//! library. A file holding every record type this crate writes must pass `warcio check` (every
//! block and payload digest recomputed) and `warcio index` (every record parsed, offsets and
//! lengths as the writer reported them), with nothing printed on standard error.
//!
//! `scripts/test.sh` installs warcio into `.venv-test/` and passes its path in `FRESHET_WARCIO`.
//! Without it this test fails (it does not skip): run `bash scripts/test.sh`, or
//! `bash scripts/install-test-deps.sh` and set `FRESHET_WARCIO=$PWD/.venv-test/bin/warcio`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use freshet_warc::{RecordIds, WarcWriter, WriterOptions};

fn warcio() -> PathBuf {
    let Some(path) = std::env::var_os("FRESHET_WARCIO") else {
        panic!(
            "FRESHET_WARCIO is not set: run `bash scripts/test.sh` (it installs warcio into .venv-test/), or \
             `bash scripts/install-test-deps.sh` then FRESHET_WARCIO=$PWD/.venv-test/bin/warcio cargo test"
        );
    };
    let path = PathBuf::from(path);
    assert!(
        path.is_file(),
        "FRESHET_WARCIO={} is not a file: run `bash scripts/install-test-deps.sh`",
        path.display()
    );
    path
}

/// Runs warcio with `args`; asserts it succeeded with an empty standard error; returns stdout.
fn run_warcio(warcio: &Path, args: &[&str]) -> String {
    let output = Command::new(warcio).args(args).output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(output.status.success(), "warcio {args:?} failed ({}):\n{stdout}\n{stderr}", output.status);
    assert!(stderr.trim().is_empty(), "warcio {args:?} warned:\n{stderr}");
    stdout
}

#[test]
fn warcio_checks_and_indexes_every_record_type_without_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    // A small size limit, so that the second file also starts with its own warcinfo.
    let options =
        WriterOptions { max_file_bytes: 3000, record_ids: RecordIds::Seeded(1), ..WriterOptions::default() };
    let (mut writer, _) = WarcWriter::open(dir.path(), options).unwrap();
    let written = common::write_every_kind(&mut writer);
    writer.finish().unwrap();
    check_with_warcio(dir.path(), &written);
}

#[test]
fn warcio_checks_and_indexes_captures_encoded_off_the_writer() {
    let dir = tempfile::tempdir().unwrap();
    // Random ids, as the crawler writes: the encodings are appended; the small size limit makes
    // some of them meant for a file the writer has left, which it then encodes again.
    let options =
        WriterOptions { max_file_bytes: 3400, record_ids: RecordIds::Random, ..WriterOptions::default() };
    let (mut writer, _) = WarcWriter::open(dir.path(), options).unwrap();
    let mut appended = 0;
    let written = common::write_every_kind_with(&mut writer, |writer, capture| {
        let (written, was_appended) = common::write_encoded_or_capture(writer, capture);
        appended += usize::from(was_appended);
        written
    });
    writer.finish().unwrap();
    assert!(appended >= 2, "{appended} of 4 encodings appended");
    check_with_warcio(dir.path(), &written);
}

fn check_with_warcio(dir: &Path, written: &[freshet_warc::CaptureWritten]) {
    let warcio = warcio();
    let files = common::warc_files(dir);
    assert!(files.len() >= 2, "{files:?}");

    for file in &files {
        let file_text = file.to_str().unwrap();
        // `check -v` prints one verdict per record; every one must be a pass (revisits are not
        // checked by warcio: their block is not the payload their digest describes).
        let check = run_warcio(&warcio, &["check", "-v", file_text]);
        let records = common::read_all(file);
        let verdicts: Vec<&str> =
            check.lines().filter(|line| line.starts_with("    ")).map(str::trim).collect();
        assert_eq!(verdicts.len(), records.len(), "{check}");
        for (verdict, record) in verdicts.iter().zip(&records) {
            let expected = if common::record_type(record) == "revisit" {
                "digest present but not checked (revisit)"
            } else {
                "digest pass"
            };
            assert_eq!(*verdict, expected, "{check}");
        }

        // `index` parses every record; its offsets and lengths must be the writer's.
        let index = run_warcio(
            &warcio,
            &["index", "-f", "offset,length,warc-type,warc-record-id,http:status", file_text],
        );
        let lines: Vec<&str> = index.lines().collect();
        assert_eq!(lines.len(), records.len(), "{index}");
        for (line, record) in lines.iter().zip(&records) {
            let expected = format!(
                "{{\"offset\": \"{}\", \"length\": \"{}\", \"warc-type\": \"{}\", \"warc-record-id\": \"{}\"",
                record.offset,
                record.member_len,
                common::record_type(record),
                common::record_id(record)
            );
            assert!(line.starts_with(&expected), "{line}\nexpected to start with\n{expected}");
        }
    }

    // The writer's own account of where each record went agrees with warcio's index.
    let mut indexed = String::new();
    for file in &files {
        indexed +=
            &run_warcio(&warcio, &["index", "-f", "offset,length,warc-record-id", file.to_str().unwrap()]);
    }
    for capture in written {
        for record in [&capture.response, &capture.request] {
            let expected = format!(
                "{{\"offset\": \"{}\", \"length\": \"{}\", \"warc-record-id\": \"{}\"}}",
                record.offset, record.member_len, record.record_id
            );
            assert!(indexed.lines().any(|line| line == expected), "{expected} not in\n{indexed}");
        }
    }
    let statuses = run_warcio(
        &warcio,
        &["index", "-f", "warc-type,http:status,warc-profile", files[files.len() - 1].to_str().unwrap()],
    );
    assert!(statuses.contains("\"http:status\": \"304\", \"warc-profile\": \"http://netpreserve.org/warc/1.1/revisit/server-not-modified\""), "{statuses}");
}
