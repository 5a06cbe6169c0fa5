//! Helpers shared by the CLI's integration tests: run the built `freshet`, parse its output.
#![allow(dead_code, unreachable_pub)]

use std::io::{BufRead as _, BufReader, Lines, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Output, Stdio};

/// The repository root (for `examples/`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `tests/data/NAME`.
pub fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

/// Runs `freshet ARGS` in `dir`, feeding `stdin` if given.
pub fn freshet_in(dir: &Path, args: &[&str], stdin: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_freshet"));
    command.args(args).current_dir(dir).stdout(Stdio::piped()).stderr(Stdio::piped());
    command.stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() });
    let mut child = command.spawn().expect("spawn freshet");
    if let Some(text) = stdin {
        let mut pipe = child.stdin.take().expect("stdin pipe");
        pipe.write_all(text.as_bytes()).expect("write stdin");
    }
    child.wait_with_output().expect("wait for freshet")
}

/// Starts `freshet ARGS`, a server that prints `listening on ADDR` first: the child, the
/// address (on 127.0.0.1), and the rest of its standard output, which the caller must keep
/// open or read to the end (a server's next line to a closed pipe fails it).
pub fn spawn_listening(args: &[&str]) -> (Child, String, Lines<BufReader<ChildStdout>>) {
    spawn_listening_with(args, &[])
}

/// [`spawn_listening`] with environment variables set for the server.
pub fn spawn_listening_with(
    args: &[&str],
    env: &[(&str, &str)],
) -> (Child, String, Lines<BufReader<ChildStdout>>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_freshet"))
        .args(args)
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn freshet");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout pipe")).lines();
    let first = lines.next().expect("a first line").expect("readable");
    let address = first.strip_prefix("listening on ").expect(&first).to_string();
    assert!(address.starts_with("127.0.0.1:"), "{address}");
    (child, address, lines)
}

/// Stops a server with SIGINT (Ctrl-C), waits for it, and checks that it exited cleanly.
pub fn interrupt(child: Child) -> Output {
    let status = Command::new("kill").args(["-INT", &child.id().to_string()]).status().expect("kill");
    assert!(status.success());
    let output = child.wait_with_output().expect("wait for freshet");
    assert!(output.status.success(), "{}", stderr(&output));
    output
}

/// Runs `freshet ARGS` in the repository root.
pub fn freshet(args: &[&str]) -> Output {
    freshet_in(&repo_root(), args, None)
}

/// Standard output as text.
pub fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("utf-8 stdout")
}

/// Standard error as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Panics with both streams unless the run succeeded.
pub fn assert_success(output: &Output) {
    assert!(output.status.success(), "freshet failed: {}\nstdout: {}", stderr(output), stdout(output));
}

/// One output row: id, rate, interval (`None` when empty).
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub id: String,
    pub rate: f64,
    pub interval: Option<f64>,
}

/// Parses `id,rate,interval` CSV, checking the header.
pub fn parse_rates(text: &str) -> Vec<Row> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let headers = reader.headers().expect("header").clone();
    assert_eq!(headers.iter().collect::<Vec<_>>(), ["id", "rate", "interval"]);
    reader
        .records()
        .map(|record| {
            let record = record.expect("record");
            Row {
                id: record[0].to_owned(),
                rate: record[1].parse().expect("rate"),
                interval: if record[2].is_empty() {
                    None
                } else {
                    Some(record[2].parse().expect("interval"))
                },
            }
        })
        .collect()
}

/// Writes `contents` to `dir/name` and returns the path as a string.
pub fn write(dir: &Path, name: &str, contents: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, contents).expect("write test file");
    path.to_str().expect("utf-8 path").to_owned()
}

/// The Cho & Garcia-Molina vectors (`tests/data/cho-5-elements.json`).
pub fn cho_vectors() -> serde_json::Value {
    let text = std::fs::read_to_string(data("cho-5-elements.json")).expect("vectors");
    serde_json::from_str(&text).expect("vectors json")
}

/// `values` of a JSON array of numbers.
pub fn numbers(value: &serde_json::Value) -> Vec<f64> {
    value.as_array().expect("array").iter().map(|number| number.as_f64().expect("number")).collect()
}
