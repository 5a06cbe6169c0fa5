//! Identical payloads stored once (`freshet_crawl::dedup`), end to end on 127.0.0.1: the same
//! body under several URLs, a page fetched again unchanged from a server without validators,
//! and a payload captured before a resume. Every check reads the WARC files back (freshet-warc's
//! reader and warcio) and the crawl log: each revisit record must name a `response` record
//! that exists, under the URL and date it gives, with the same payload digest.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{crawl, one_pass_config, read_log, warc_files, warcio_check};

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use freshet_crawl::{CrawlConfig, LogKind, LogLine, Revisit, StopReason};
use freshet_warc::WarcReader;

/// A site whose pages share bodies: `/same/1`, `/same/2` and `/same/3` serve one body (which
/// links to `/same/2`), `/static` never changes, `/changing` changes at every request; none
/// of these sends `ETag` or `Last-Modified`, so none is ever a 304. `/etag` never changes and
/// answers a conditional GET with 304.
struct Site {
    base: String,
}

fn answer(path: &str, if_none_match: Option<&str>, counter: &AtomicU64) -> axum::response::Response {
    use axum::http::{StatusCode, header};
    use axum::response::IntoResponse as _;
    let html = |body: String| ([(header::CONTENT_TYPE, "text/html")], body).into_response();
    match path {
        "/" => html(
            "<html><body><a href=\"/same/1\">1</a> <a href=\"/same/3\">3</a> <a href=\"/static\">s</a> \
             <a href=\"/changing\">c</a> <a href=\"/etag\">e</a></body></html>"
                .into(),
        ),
        "/one" => html("<html><body><a href=\"/same/1\">1</a></body></html>".into()),
        "/same/1" | "/same/2" | "/same/3" => html(
            "<html><body><p>One body under three URLs.</p><a href=\"/same/2\">2</a></body></html>".into(),
        ),
        "/static" => html("<html><body><p>This page never changes.</p></body></html>".into()),
        "/etag" if if_none_match == Some("\"v1\"") => StatusCode::NOT_MODIFIED.into_response(),
        "/etag" => (
            [(header::CONTENT_TYPE, "text/html"), (header::ETAG, "\"v1\"")],
            "<html><body><p>This page never changes either, and says so.</p></body></html>",
        )
            .into_response(),
        "/changing" => {
            let count = counter.fetch_add(1, Ordering::Relaxed);
            html(format!("<html><body><p>Version {count}.</p></body></html>"))
        }
        _ => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

impl Site {
    async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let counter = Arc::new(AtomicU64::new(0));
        let app =
            axum::Router::new().fallback(move |headers: axum::http::HeaderMap, uri: axum::http::Uri| {
                let counter = Arc::clone(&counter);
                async move {
                    let if_none_match = headers.get("if-none-match").and_then(|value| value.to_str().ok());
                    answer(uri.path(), if_none_match, &counter)
                }
            });
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Self { base: format!("http://127.0.0.1:{port}") }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn config(&self, data: &Path, seed: &str) -> CrawlConfig {
        one_pass_config(data, &[self.url(seed)])
    }
}

/// One `response` or `revisit` record, as read back.
#[derive(Clone, Debug)]
struct Answer {
    kind: String,
    target: String,
    date: String,
    payload_digest: Option<String>,
    profile: Option<String>,
    refers_to: Option<(String, String)>,
    stored_body: usize,
}

fn answers(data: &Path) -> Vec<Answer> {
    let mut answers = Vec::new();
    for file in warc_files(data) {
        for record in WarcReader::open(&file).unwrap() {
            let record = record.unwrap();
            let header = &record.header;
            let kind = header.record_type().unwrap().to_owned();
            if kind != "response" && kind != "revisit" {
                continue;
            }
            let get = |name: &str| header.get(name).map(str::to_owned);
            answers.push(Answer {
                kind,
                target: get("WARC-Target-URI").unwrap(),
                date: get("WARC-Date").unwrap(),
                payload_digest: get("WARC-Payload-Digest"),
                profile: get("WARC-Profile"),
                refers_to: get("WARC-Refers-To-Target-URI").zip(get("WARC-Refers-To-Date")),
                stored_body: record.http_payload().map_or(0, <[u8]>::len),
            });
        }
    }
    answers
}

/// Every revisit names a `response` record that exists, by URL and date: with its payload
/// digest for an identical-payload revisit (which stores no body), the page's own for a 304's.
/// Returns `(revisit's target URI, referred record's URI)` of each identical-payload revisit.
fn check_revisits(answers: &[Answer]) -> Vec<(String, String)> {
    let responses: HashMap<(&str, &str), &Answer> = answers
        .iter()
        .filter(|answer| answer.kind == "response")
        .map(|answer| ((answer.target.as_str(), answer.date.as_str()), answer))
        .collect();
    let mut pairs = Vec::new();
    for revisit in answers.iter().filter(|answer| answer.kind == "revisit") {
        let (uri, date) = revisit.refers_to.as_ref().expect("a revisit names its original");
        let original = responses
            .get(&(uri.as_str(), date.as_str()))
            .unwrap_or_else(|| panic!("{revisit:?} refers to no response record"));
        assert!(original.stored_body > 0);
        match revisit.profile.as_deref() {
            Some("http://netpreserve.org/warc/1.1/revisit/identical-payload-digest") => {
                assert_eq!(revisit.stored_body, 0, "a revisit stores no body: {revisit:?}");
                assert_eq!(original.payload_digest, revisit.payload_digest, "{revisit:?} vs {original:?}");
                pairs.push((revisit.target.clone(), uri.clone()));
            }
            Some("http://netpreserve.org/warc/1.1/revisit/server-not-modified") => {
                assert_eq!(uri, &revisit.target, "a 304 is about the page's own copy");
            }
            profile => panic!("unknown revisit profile {profile:?}"),
        }
    }
    pairs
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_body_under_three_urls_is_stored_once() {
    let site = Site::start().await;
    let data = tempfile::tempdir().unwrap();
    let summary = crawl(site.config(data.path(), "/")).await;
    assert_eq!(summary.stopped, StopReason::Done);
    let answers = answers(data.path());
    let same: Vec<&Answer> = answers.iter().filter(|answer| answer.target.contains("/same/")).collect();
    assert_eq!(same.len(), 3, "{answers:#?}");
    let originals: Vec<&&Answer> = same.iter().filter(|answer| answer.kind == "response").collect();
    assert_eq!(originals.len(), 1, "one of the three stores the body: {same:#?}");
    let pairs = check_revisits(&answers);
    assert_eq!(pairs.len(), 2);
    assert!(pairs.iter().all(|(_, original)| *original == originals[0].target));
    // Pages of their own bodies are stored whole.
    for path in ["/", "/static", "/changing", "/etag"] {
        let records: Vec<&Answer> = answers.iter().filter(|answer| answer.target == site.url(path)).collect();
        assert_eq!(records.len(), 1, "{path}");
        assert_eq!(records[0].kind, "response");
    }
    assert_eq!((summary.identical_payloads, summary.duplicates), (2, 2));
    // The store names, for every page, the record that holds its payload: `freshet explain`.
    let store = freshet_frontier::RedbStore::open(data.path().join("frontier.redb")).unwrap();
    for path in ["/same/1", "/same/2", "/same/3", "/changing"] {
        let report = freshet_crawl::inspect::stored_page_report(&store, &site.url(path)).unwrap();
        let held = report.payload_record.expect("a fetched page's payload is held");
        let original = if path == "/changing" {
            answers.iter().find(|answer| answer.target == site.url(path)).unwrap()
        } else {
            originals[0]
        };
        assert_eq!(held.target_uri, original.target, "{path}");
        assert_eq!(held.date, original.date, "{path}");
        assert_eq!(Some(held.payload_digest), original.payload_digest, "{path}");
    }
    let report = freshet_crawl::inspect::frontier_report(&store, 0.0, 1).unwrap();
    assert_eq!(report.duplicates, 2, "{report:?}");
    drop(store);
    // The log says what each duplicate refers to; a duplicate's links are followed as any
    // page's (`/same/2` is linked only from the duplicated body).
    let lines = read_log(data.path());
    let noted: Vec<&LogLine> = lines
        .iter()
        .filter(|line| line.kind == LogKind::Page)
        .filter(|line| line.detail.as_deref().is_some_and(|detail| detail.contains("identical payload to")))
        .collect();
    assert_eq!(noted.len(), 2);
    for line in noted {
        assert_eq!(line.outcome, "ok");
        let detail = line.detail.as_deref().unwrap();
        assert!(detail.contains(&originals[0].target), "{detail}");
        assert!(detail.contains("written as a WARC revisit record"), "{detail}");
    }
    warcio_check(data.path());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_index_of_zero_entries_turns_the_search_across_urls_off() {
    let site = Site::start().await;
    let data = tempfile::tempdir().unwrap();
    let mut config = site.config(data.path(), "/");
    config.duplicate_index_entries = 0;
    let summary = crawl(config).await;
    assert_eq!(summary.stopped, StopReason::Done);
    let answers = answers(data.path());
    assert!(answers.iter().all(|answer| answer.kind == "response"), "{answers:#?}");
    assert_eq!(summary.identical_payloads, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn revisits_of_unchanged_pages_store_no_body_and_changed_ones_store_each_version() {
    let site = Site::start().await;
    let data = tempfile::tempdir().unwrap();
    let mut config = site.config(data.path(), "/");
    config.revisit = Revisit::Freshet;
    config.rate = 40.0;
    config.change_rate_prior = 1.0;
    config.duration = Some(Duration::from_secs(4));
    let summary = crawl(config).await;
    assert_eq!(summary.stopped, StopReason::TimeUp);
    let answers = answers(data.path());
    let of = |path: &str| -> Vec<&Answer> { answers.iter().filter(|a| a.target == site.url(path)).collect() };
    let unchanged = of("/static");
    assert!(unchanged.len() >= 3, "/static fetched {} times", unchanged.len());
    assert_eq!(unchanged.iter().filter(|answer| answer.kind == "response").count(), 1);
    let changing = of("/changing");
    assert!(changing.len() >= 3, "/changing fetched {} times", changing.len());
    assert!(changing.iter().all(|answer| answer.kind == "response"), "{changing:#?}");
    // Every revisit points at a record with its payload; `/static`'s at its own first one.
    let pairs = check_revisits(&answers);
    let first_static = &unchanged[0];
    assert_eq!(first_static.kind, "response");
    for revisit in &unchanged[1..] {
        assert_eq!(revisit.refers_to, Some((first_static.target.clone(), first_static.date.clone())));
    }
    // The three `/same/` URLs hold one body between them, however often each was fetched.
    let same: Vec<&Answer> = answers.iter().filter(|answer| answer.target.contains("/same/")).collect();
    assert!(same.len() >= 6, "{same:#?}");
    assert_eq!(same.iter().filter(|answer| answer.kind == "response").count(), 1);
    assert_eq!(summary.identical_payloads as usize, pairs.len());
    // A 304 refers to the response record of the page's payload, not to its last fetch.
    let etag = of("/etag");
    assert!(etag.len() >= 3, "/etag fetched {} times", etag.len());
    assert_eq!(etag[0].kind, "response");
    for revisit in &etag[1..] {
        assert_eq!(
            revisit.profile.as_deref(),
            Some("http://netpreserve.org/warc/1.1/revisit/server-not-modified")
        );
        assert_eq!(revisit.refers_to, Some((etag[0].target.clone(), etag[0].date.clone())));
    }
    let lines = read_log(data.path());
    assert!(lines.iter().any(|line| {
        line.url == site.url("/static")
            && line.detail.as_deref().is_some_and(|detail| detail.starts_with("unchanged payload"))
    }));
    warcio_check(data.path());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resumed_crawl_refers_to_a_body_captured_before() {
    let site = Site::start().await;
    let data = tempfile::tempdir().unwrap();
    // The first run fetches `/one` and `/same/1`, then stops at its page limit…
    let mut config = site.config(data.path(), "/one");
    config.max_pages = Some(2);
    let first = crawl(config).await;
    assert_eq!(first.stopped, StopReason::MaxPages);
    let before = answers(data.path());
    let pages = before.iter().filter(|answer| !answer.target.ends_with("/robots.txt"));
    assert_eq!(pages.filter(|answer| answer.kind == "response").count(), 2, "{before:#?}");
    // …and the resumed one finds `/same/2`'s body among the first run's payloads.
    let mut config = site.config(data.path(), "/one");
    config.resume = true;
    let second = crawl(config).await;
    assert_eq!(second.stopped, StopReason::Done);
    assert_eq!((second.identical_payloads, second.duplicates), (1, 1));
    let answers = answers(data.path());
    let pairs = check_revisits(&answers);
    assert_eq!(pairs, vec![(site.url("/same/2"), site.url("/same/1"))]);
    warcio_check(data.path());
}
