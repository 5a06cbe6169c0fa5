//! A sitemap's `<lastmod>` as a change signal, end to end on 127.0.0.1: a resumed crawl re-reads
//! a host's sitemap when it next visits the host (here for a new seed), and a known page it
//! lists with a `lastmod` later than the page's last fetch is fetched again at once (logged as
//! `changed`), while one listed with an older `lastmod` waits for its turn.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{crawl_for, one_pass_config, read_log, serve_site, warc_files, warcio_check};

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use freshet_crawl::{LogKind, Revisit};

/// The site's state: requests per path, and the `lastmod` its sitemap gives `/a`.
#[derive(Default)]
struct Site {
    requests: Mutex<HashMap<String, u32>>,
    lastmod_a: Mutex<String>,
}

fn answer(site: &Site, origin: &str, path: &str) -> axum::response::Response {
    use axum::http::{StatusCode, header};
    use axum::response::IntoResponse as _;
    *site.requests.lock().unwrap().entry(path.to_owned()).or_default() += 1;
    let html = |body: &str| ([(header::CONTENT_TYPE, "text/html")], body.to_owned()).into_response();
    match path {
        "/robots.txt" => format!("User-agent: *\nAllow: /\nSitemap: {origin}/sitemap.xml\n").into_response(),
        "/sitemap.xml" => {
            let lastmod_a = site.lastmod_a.lock().unwrap().clone();
            let xml = format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
                 <urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n\
                 <url><loc>{origin}/a</loc><lastmod>{lastmod_a}</lastmod></url>\n\
                 <url><loc>{origin}/b</loc><lastmod>2001-01-01</lastmod></url>\n\
                 </urlset>\n"
            );
            ([(header::CONTENT_TYPE, "application/xml")], xml).into_response()
        }
        "/" => html("<html><body><a href=\"/a\">a</a> <a href=\"/b\">b</a></body></html>"),
        "/a" => html("<html><body><p>The a page.</p></body></html>"),
        "/b" => html("<html><body><p>The b page.</p></body></html>"),
        "/new" => html("<html><body><p>A page added since.</p></body></html>"),
        _ => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

async fn start(site: Arc<Site>) -> String {
    serve_site(site, answer).await
}

fn requests(site: &Site, path: &str) -> u32 {
    site.requests.lock().unwrap().get(path).copied().unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sitemap_lastmod_after_the_last_fetch_makes_a_known_page_due_at_once() {
    let site = Arc::new(Site::default());
    *site.lastmod_a.lock().unwrap() = "2001-01-01".into();
    let origin = start(Arc::clone(&site)).await;
    let data = tempfile::tempdir().unwrap();
    let mut config = one_pass_config(data.path(), &[format!("{origin}/")]);
    // Revisits on, at a budget that brings none within these seconds (a change a day, a fetch
    // every 100 s over the crawl).
    config.revisit = Revisit::Freshet;
    config.rate = 0.01;

    let first = crawl_for(config.clone(), 2.0).await;
    assert_eq!((requests(&site, "/a"), requests(&site, "/b")), (1, 1), "each fetched once");
    assert_eq!(first.sitemap_changes, 0, "no lastmod after a fetch");

    // The site says /a changed (a lastmod after its fetch); /b's stays old. The resumed run
    // has a new seed on the host: its visit reads robots.txt, then the sitemap.
    *site.lastmod_a.lock().unwrap() = "2099-01-01T00:00:00Z".into();
    let mut resumed = config.clone();
    resumed.seeds = vec![freshet_url::canonicalize(&format!("{origin}/new")).unwrap()];
    resumed.resume = true;
    let second = crawl_for(resumed, 2.0).await;
    assert_eq!(requests(&site, "/new"), 1);
    assert_eq!(requests(&site, "/sitemap.xml"), 2, "the resumed run re-read the sitemap");
    assert_eq!(second.sitemap_changes, 1);
    assert_eq!(requests(&site, "/a"), 2, "/a fetched again at once");
    assert_eq!(requests(&site, "/b"), 1, "/b waits for its turn");
    let log = read_log(data.path());
    let changed: Vec<_> = log.iter().filter(|line| line.kind == LogKind::Changed).collect();
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert!(changed[0].url.ends_with("/a") && changed[0].outcome == "due-now", "{changed:?}");
    assert!(changed[0].detail.as_deref().is_some_and(|detail| detail.contains("sitemap lastmod")));
    // Both runs' captures are whole WARC files.
    assert!(!warc_files(data.path()).is_empty());
    warcio_check(data.path());
}
