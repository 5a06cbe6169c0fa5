//! The crawl with its frontier in Redis (`StoreEngine::Redis`), end to end on 127.0.0.1: a
//! crawl stopped after two pages and resumed from the server fetches every page once in all,
//! keeps nothing in `DIR/frontier.redb`, and the checks a redb crawl makes hold for a prefix (a
//! new crawl refuses a prefix that holds one, a resume refuses an empty one).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{crawl, one_pass_config, read_log, warcio_check};

use std::collections::HashMap;
use std::path::Path;

use freshet_crawl::{CrawlConfig, CrawlError, Crawler, LogKind, RedisOptions, StoreEngine};
use freshet_frontier::conformance::RedisServer;

/// `/` links `/1` … `/6`.
async fn site() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let app = axum::Router::new().fallback(|uri: axum::http::Uri| async move {
        use axum::http::header;
        use axum::response::IntoResponse as _;
        let body = match uri.path() {
            "/" => (1..=6).map(|i| format!("<a href=\"/{i}\">{i}</a> ")).collect::<String>(),
            path => format!("<p>page {path}</p>"),
        };
        ([(header::CONTENT_TYPE, "text/html")], format!("<html><body>{body}</body></html>")).into_response()
    });
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://127.0.0.1:{port}")
}

fn config(data: &Path, base: &str, redis: &RedisServer, prefix: &str) -> CrawlConfig {
    let mut config = one_pass_config(data, &[format!("{base}/")]);
    config.store =
        StoreEngine::Redis(RedisOptions { prefix: prefix.into(), ..RedisOptions::new(redis.url.clone()) });
    config
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crawl_resumes_from_its_frontier_in_redis() {
    let redis = RedisServer::start();
    let base = site().await;
    let data = tempfile::tempdir().unwrap();
    let mut first = config(data.path(), &base, &redis, "crawl-a");
    first.max_pages = Some(2);
    let summary = crawl(first).await;
    assert_eq!(summary.pages, 2);
    assert!(!data.path().join("frontier.redb").exists(), "the frontier is in Redis");

    // A new crawl on the same prefix is refused; so is a resume of an empty prefix.
    let again = Crawler::open(config(data.path(), &base, &redis, "crawl-a")).err().expect("refused");
    assert!(matches!(again, CrawlError::RedisAlreadyStarted { .. }), "{again}");
    let mut empty = config(data.path(), &base, &redis, "crawl-b");
    empty.resume = true;
    let nothing = Crawler::open(empty).err().expect("refused");
    assert!(matches!(nothing, CrawlError::RedisNothingToResume { .. }), "{nothing}");

    let mut resumed = config(data.path(), &base, &redis, "crawl-a");
    resumed.resume = true;
    resumed.seeds.clear();
    let summary = crawl(resumed).await;
    assert_eq!(summary.pages, 5, "the 7 pages less the 2 fetched before");
    let mut fetched: HashMap<String, usize> = HashMap::new();
    for line in read_log(data.path()).iter().filter(|line| line.kind == LogKind::Page) {
        *fetched.entry(line.url.clone()).or_default() += 1;
    }
    assert_eq!(fetched.len(), 7, "{fetched:?}");
    assert!(fetched.values().all(|&count| count == 1), "{fetched:?}");
    warcio_check(data.path());
}
