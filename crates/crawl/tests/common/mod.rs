//! What the crawl's end-to-end tests read back from a crawl's data directory: the crawl log,
//! the WARC files, and `warcio check` of each (an independent reader's verdict).

use std::path::{Path, PathBuf};
use std::process::Command;

use freshet_crawl::LogLine;

/// The lines of `DIR/crawl.jsonl`.
pub(crate) fn read_log(data: &Path) -> Vec<LogLine> {
    let text = std::fs::read_to_string(data.join("crawl.jsonl")).unwrap();
    text.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

/// The files of `DIR/warc`, in name order.
pub(crate) fn warc_files(data: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(data.join("warc")).unwrap().map(|entry| entry.unwrap().path()).collect();
    files.sort();
    files
}

/// `warcio check` passes on every WARC file (truncated records included), with nothing on
/// standard error.
pub(crate) fn warcio_check(data: &Path) {
    let warcio = std::env::var_os("FRESHET_WARCIO").expect(
        "FRESHET_WARCIO is not set: run `bash scripts/test.sh` (it installs warcio into .venv-test/)",
    );
    for file in warc_files(data) {
        let output = Command::new(&warcio).arg("check").arg(&file).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success() && stderr.trim().is_empty(), "warcio check {file:?}: {stderr}");
    }
}
