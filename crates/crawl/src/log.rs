//! The crawl log `DIR/crawl.jsonl`: one JSON object per line for every request made (a page, a
//! robots.txt or a sitemap) and every URL skipped because robots.txt disallows it.
//!
//! Fields: `time` (when the request began, RFC 3339 UTC), `kind` (`page`, `robots`,
//! `sitemap`, `skipped`, `deferred`), `url`, `status` (HTTP status, `null` without an answer), `bytes`
//! (body bytes as received), `duration_ms`, `fingerprint` (xxh3-128 of the decoded body, 32 hex
//! digits, `null` unless the body is complete), `outcome` (the fetcher's outcome name: `ok`,
//! `not-modified`, `redirect`, `throttled`, `client-error`, `timeout`…; for a skip,
//! `robots-disallowed`, `robots-unreachable`, `host-quota`, `domain-quota`, `host-given-up`
//! (a one-pass crawl's host whose `Retry-After` was longer than `max_retry_after`) or
//! `address-refused`; for a
//! `deferred` line, `robots-deferred` (a host's first robots.txt check put off because its
//! checks used up their allowance of work; the URL is checked later);
//! `not-a-sitemap` for a sitemap request answered with something else, an HTML page say), and
//! when they apply `detail` (an error message, a redirect target) and `links` (links found).
//!
//! A page whose body the archive already held says so in `detail` (see [`crate::dedup`]):
//! `unchanged payload: written as a WARC revisit record of its capture of DATE`, or
//! `identical payload to URL captured DATE: written as a WARC revisit record`.
//!
//! `detail` says in words what happened to a misbehaving host (the end-to-end tests in
//! `tests/misbehave.rs` check each against testweb's misbehaving hosts): which time limit
//! passed (`first-byte timeout: …`, `total timeout: … cut after N bytes`), a body over the cap
//! (`body cap: …`, a compression bomb named as such; the WARC record carries `WARC-Truncated`),
//! a redirect not followed (`…: redirect loop …`, `…: too many redirects …`), links not
//! followed past the max depth, links and redirect targets not followed because longer than the
//! frontier store keeps (a URL over 8 KiB, an origin over 1 KiB), a back-off (`back-off 1 of 5: 1s`), the host's delay changed
//! (`host delay 50ms -> 100ms`), and on a robots.txt line that the host is disallowed until
//! robots.txt is tried again, or given up (RFC 9309 §2.3.1.4); a `robots-disallowed` skip
//! whose robots.txt was too costly to check against the URL says so
//! (`freshet_robots::Check::TooComplex`).
//!
//! A `sitemap` line's `detail` says what the file held: its format (`urlset`, `index`, `text`,
//! `, gzip`), the URLs (`120 URLs` handed to discovery, before the scope and seen checks) or
//! sitemaps (`3 sitemaps: 2 queued, 1 on another origin`) it listed, the entries left out (over
//! the file's or the host's limit), the number of entry problems and the first of them, and
//! `stopped early: …` when the file was not read to its end (size cap, corrupt gzip, broken
//! XML); for `not-a-sitemap`, what the body was (`not a sitemap: an HTML page`). A sitemap URL
//! that robots.txt disallows is not requested: a `skipped` line, `detail` `sitemap`.
//! The file is appended to, also on `--resume`; its lines are handed to the OS before every
//! store commit of a group commit (not synced: a process killed keeps them, a power cut may
//! not). A line torn by `kill -9` is cut away when the file is reopened, so every line parses.
//! A line may precede the store commit of its page: after a crash such a page is requested,
//! and logged, again (the log tells what was requested, so both requests are in it); a page is
//! never marked fetched in the store before its line is written.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Read as _, Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{CrawlError, Result};

/// What a log line is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogKind {
    /// A page request.
    Page,
    /// A robots.txt request.
    Robots,
    /// A URL not requested because robots.txt disallows it.
    Skipped,
    /// A sitemap request (see the crate docs, "Sitemaps").
    Sitemap,
    /// A URL whose robots.txt check was put off, not requested now: its host's checks used up
    /// their allowance of work (`robots-scan-rate`); it is checked, and requested if allowed,
    /// later. Only a host's first put-off in a run is logged.
    Deferred,
    /// A known URL a sitemap says changed after its last fetch (its `<lastmod>` is later): not
    /// a request, the note that it is due at once.
    Changed,
}

/// One line of `crawl.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogLine {
    /// When the request began (RFC 3339, UTC).
    pub time: String,
    /// What the line is about.
    pub kind: LogKind,
    /// The URL.
    pub url: String,
    /// The HTTP status, if an answer came.
    pub status: Option<u16>,
    /// Body bytes as received.
    pub bytes: u64,
    /// How long the request took, in milliseconds.
    pub duration_ms: f64,
    /// xxh3-128 of the decoded body, 32 hex digits.
    pub fingerprint: Option<String>,
    /// The outcome's name.
    pub outcome: String,
    /// A detail: an error message, a redirect target, a back-off.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub detail: Option<String>,
    /// Links found on the page (before the scope and seen checks).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub links: Option<usize>,
    /// In a focused crawl, the page's topic score: how many times the topic's words occur in
    /// its main text (see [`crate::focus`]).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub topic_score: Option<u32>,
}

impl LogLine {
    /// Adds `note` to the line's detail, after what it says already (`; ` between).
    pub(crate) fn add_detail(&mut self, note: impl std::fmt::Display) {
        self.detail = Some(match self.detail.take() {
            Some(detail) => format!("{detail}; {note}"),
            None => note.to_string(),
        });
    }

    /// A [`LogKind::Changed`] line for `url`: outcome `due-now`, `detail` what said so.
    pub(crate) fn changed(url: &str, detail: String) -> Self {
        Self { kind: LogKind::Changed, ..Self::skipped(url, "due-now", Some(detail)) }
    }

    /// The line of a URL not requested, now: `outcome` says why (`robots-disallowed`,
    /// `address-refused`), `detail` what more is known.
    pub(crate) fn skipped(url: &str, outcome: &str, detail: Option<String>) -> Self {
        Self {
            time: crate::crawler::log_time(std::time::SystemTime::now()),
            kind: LogKind::Skipped,
            url: url.to_owned(),
            status: None,
            bytes: 0,
            duration_ms: 0.0,
            fingerprint: None,
            outcome: outcome.to_owned(),
            detail,
            links: None,
            topic_score: None,
        }
    }

    /// The line, now, of a job of `kind` for `url` that made no request it could record:
    /// `outcome` says why (`unsupported-url`, `internal-error`), `detail` in words.
    pub(crate) fn no_request(kind: LogKind, url: &str, outcome: &str, detail: String) -> Self {
        Self { kind, ..Self::skipped(url, outcome, Some(detail)) }
    }

    /// The line of a URL whose robots.txt check was put off, now; `detail` says until when
    /// and why.
    pub(crate) fn deferred(url: &str, detail: String) -> Self {
        Self {
            kind: LogKind::Deferred,
            outcome: "robots-deferred".to_owned(),
            ..Self::skipped(url, "", Some(detail))
        }
    }
}

/// The open log file.
pub(crate) struct CrawlLog {
    path: PathBuf,
    out: BufWriter<File>,
}

impl CrawlLog {
    /// Opens `path` for appending, after cutting a torn last line; returns the bytes cut.
    pub(crate) fn open(path: &Path) -> Result<(Self, u64)> {
        let mut file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(path)
            .map_err(CrawlError::io(path))?;
        let cut = cut_torn_line(&mut file).map_err(CrawlError::io(path))?;
        Ok((Self { path: path.to_owned(), out: BufWriter::new(file) }, cut))
    }

    pub(crate) fn write(&mut self, line: &LogLine) -> Result<()> {
        let mut text = serde_json::to_vec(line).map_err(|error| CrawlError::Io {
            path: self.path.clone(),
            source: std::io::Error::other(error),
        })?;
        text.push(b'\n');
        self.out.write_all(&text).map_err(CrawlError::io(&self.path))
    }

    pub(crate) fn flush(&mut self) -> Result<()> {
        self.out.flush().map_err(CrawlError::io(&self.path))
    }
}

/// Truncates `file` after its last newline (to nothing if it has none); returns the bytes cut.
fn cut_torn_line(file: &mut File) -> std::io::Result<u64> {
    const BLOCK: u64 = 4096;
    let len = file.metadata()?.len();
    let mut end = len;
    let mut block = vec![0; BLOCK as usize];
    while end > 0 {
        let start = end.saturating_sub(BLOCK);
        let chunk = &mut block[..(end - start) as usize];
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(chunk)?;
        if let Some(at) = chunk.iter().rposition(|&byte| byte == b'\n') {
            end = start + at as u64 + 1;
            break;
        }
        end = start;
    }
    if end < len {
        file.set_len(end)?;
    }
    Ok(len - end)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_torn_last_line_is_cut_and_whole_lines_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("crawl.jsonl");
        let whole = format!("{{\"a\":1}}\n{}\n", "x".repeat(5000));
        std::fs::write(&path, format!("{whole}{{\"torn\":")).unwrap();
        let (log, cut) = CrawlLog::open(&path).unwrap();
        drop(log);
        assert_eq!(cut, "{\"torn\":".len() as u64);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), whole);

        std::fs::write(&path, "no newline at all").unwrap();
        assert_eq!(CrawlLog::open(&path).unwrap().1, 17);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "");
        assert_eq!(CrawlLog::open(&path).unwrap().1, 0);
    }
}
