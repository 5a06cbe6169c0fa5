//! Near-duplicates across URLs (`freshet_crawl::dedup`, "Near-duplicates"), end to end on
//! 127.0.0.1: two URLs whose bytes differ (a session token in the links, one word of the
//! text) but whose main text nearly repeats; a third with other text; two short pages that
//! say the same few words. The crawl log must name the page a near-duplicate repeats, for the
//! near pair only, also when the first of the pair was fetched before a resume.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{crawl, one_pass_config, read_log, warcio_check};

use std::path::Path;

use freshet_crawl::{CrawlConfig, LogKind, LogLine};

/// Words enough for a SimHash that means something (a few hundred), the same for `/a` and `/b`.
fn article(topic: &str) -> String {
    (0..300).map(|i| format!("{topic}{} ", (i * 37 + 11) % 211)).collect()
}

fn answer(path: &str) -> axum::response::Response {
    use axum::http::{StatusCode, header};
    use axum::response::IntoResponse as _;
    let html = |body: String| ([(header::CONTENT_TYPE, "text/html")], body).into_response();
    match path {
        "/" => html(
            "<html><body><a href=\"/a\">a</a> <a href=\"/b\">b</a> <a href=\"/c\">c</a> \
             <a href=\"/short/1\">s1</a> <a href=\"/short/2\">s2</a></body></html>"
                .into(),
        ),
        // The same article, in another edition, with a session token in its links.
        "/a" => html(format!(
            "<html><body><a href=\"/?sid=1\">home</a><p>{} Edition one.</p></body></html>",
            article("river")
        )),
        "/b" => html(format!(
            "<html><body><a href=\"/?sid=2\">home</a><p>{} Edition two.</p></body></html>",
            article("river")
        )),
        "/c" => html(format!("<html><body><a href=\"/\">home</a><p>{}</p></body></html>", article("stone"))),
        // Too short for a near-duplicate verdict, however alike.
        "/short/1" => {
            html("<html><body><a href=\"/?x=1\">h</a><p>Nothing here yet.</p></body></html>".into())
        }
        "/short/2" => {
            html("<html><body><a href=\"/?x=2\">h</a><p>Nothing here yet.</p></body></html>".into())
        }
        _ => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

async fn start() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let app = axum::Router::new().fallback(|uri: axum::http::Uri| async move { answer(uri.path()) });
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://127.0.0.1:{port}")
}

fn config(data: &Path, seeds: &[String]) -> CrawlConfig {
    one_pass_config(data, seeds)
}

/// Each page line's path (query left out) and what its detail says of a near-duplicate.
fn near_notes(lines: &[LogLine], base: &str) -> Vec<(String, Option<String>)> {
    lines
        .iter()
        .filter(|line| line.kind == LogKind::Page && line.status == Some(200))
        .map(|line| {
            let path = line.url.trim_start_matches(base).split('?').next().unwrap_or("").to_owned();
            let note = line.detail.as_deref().and_then(|detail| {
                detail.split("; ").find(|part| part.starts_with("near-duplicate of ")).map(str::to_owned)
            });
            (path, note)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_that_nearly_repeats_another_is_named_in_the_log() {
    let base = start().await;
    let data = tempfile::tempdir().unwrap();
    let summary = crawl(config(data.path(), &[format!("{base}/")])).await;
    let notes = near_notes(&read_log(data.path()), &base);
    let paths: Vec<&str> = notes.iter().map(|(path, _)| path.as_str()).collect();
    for path in ["/", "/a", "/b", "/c", "/short/1", "/short/2"] {
        assert!(paths.contains(&path), "{path} was not fetched: {notes:?}");
    }
    // Exactly one of `/a` and `/b` names the other (whichever came second), with the distance.
    let named: Vec<&(String, Option<String>)> = notes.iter().filter(|(_, note)| note.is_some()).collect();
    assert_eq!(named.len(), 1, "{notes:?}");
    let (path, note) = named[0];
    let note = note.as_deref().unwrap();
    let other = if path == "/a" { "/b" } else { "/a" };
    assert!(path == "/a" || path == "/b", "{notes:?}");
    assert!(note.starts_with(&format!("near-duplicate of {base}{other} (main text's SimHash ")), "{note}");
    assert_eq!(summary.near_duplicates, 1);
    warcio_check(data.path());

    // Turned off: nothing found.
    let off = tempfile::tempdir().unwrap();
    let mut quiet = config(off.path(), &[format!("{base}/")]);
    quiet.near_duplicate_index_entries = 0;
    let summary = crawl(quiet).await;
    assert_eq!(summary.near_duplicates, 0);
    assert!(near_notes(&read_log(off.path()), &base).iter().all(|(_, note)| note.is_none()));
}

/// Each fetched page's URL path (and query) and the fingerprint its record holds.
fn fingerprints(data: &Path, base: &str) -> Vec<(String, Vec<u8>)> {
    use freshet_frontier::FrontierStore as _;
    let store = freshet_crawl::inspect::open_store(data).unwrap();
    let pages = store.pages(None, 1_000).unwrap();
    pages
        .into_iter()
        .filter(|page| page.record.last_fetch.is_some())
        .map(|page| (page.url.trim_start_matches(base).to_owned(), page.record.fingerprint))
        .collect()
}

/// Without the main text (`main_text` off) a page's HTML is read for its links only: every
/// page is still fetched and its links followed, but no near-duplicate is found, and each
/// page's fingerprint is its body's exact hash (xxh3-128, 16 bytes) where a crawl reading the
/// main text keeps its signature (21 bytes).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_main_text_pages_are_fingerprinted_by_their_bodies() {
    let base = start().await;
    let data = tempfile::tempdir().unwrap();
    let mut links_only = config(data.path(), &[format!("{base}/")]);
    links_only.main_text = false;
    let summary = crawl(links_only).await;
    assert_eq!(summary.near_duplicates, 0);
    let notes = near_notes(&read_log(data.path()), &base);
    assert!(notes.iter().all(|(_, note)| note.is_none()), "{notes:?}");
    // Every page, and those only their links lead to (`/?x=1`…; `sid` is a session id that
    // canonical URLs leave out), fetched.
    let fetched = fingerprints(data.path(), &base);
    let mut paths: Vec<&str> = fetched.iter().map(|(path, _)| path.as_str()).collect();
    paths.sort_unstable();
    let every_page = ["/", "/?x=1", "/?x=2", "/a", "/b", "/c", "/short/1", "/short/2"];
    assert_eq!(paths, every_page, "{fetched:?}");
    assert!(fetched.iter().all(|(_, print)| print.len() == 16), "{fetched:?}");
    warcio_check(data.path());

    // The same web with the main text read: the same pages, signatures.
    let read = tempfile::tempdir().unwrap();
    crawl(config(read.path(), &[format!("{base}/")])).await;
    let signed = fingerprints(read.path(), &base);
    let mut paths: Vec<&str> = signed.iter().map(|(path, _)| path.as_str()).collect();
    paths.sort_unstable();
    assert_eq!(paths, every_page, "{signed:?}");
    assert!(
        signed.iter().all(|(_, print)| print.len() == freshet_content::Signature::ENCODED_LEN),
        "{signed:?}"
    );
}

/// The index is rebuilt from the store: `/a`, fetched alone in a first run (links not
/// followed), is found again when a resumed run fetches `/b`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resumed_crawl_finds_a_page_fetched_before_the_resume() {
    let base = start().await;
    let data = tempfile::tempdir().unwrap();
    let mut first = config(data.path(), &[format!("{base}/a")]);
    first.max_depth = Some(0);
    let summary = crawl(first).await;
    assert_eq!((summary.pages, summary.near_duplicates), (1, 0));
    let mut second = config(data.path(), &[format!("{base}/b")]);
    second.max_depth = Some(0);
    second.resume = true;
    let summary = crawl(second).await;
    assert_eq!(summary.near_duplicates, 1);
    let notes = near_notes(&read_log(data.path()), &base);
    let (_, note) = notes.iter().find(|(path, _)| path == "/b").expect("/b fetched");
    assert!(
        note.as_deref().is_some_and(|note| note.starts_with(&format!("near-duplicate of {base}/a "))),
        "{notes:?}"
    );
}
