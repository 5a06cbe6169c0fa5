//! `<link rel=canonical>` in a revisiting crawl, end to end on 127.0.0.1: a page that names
//! another URL of its host as canonical (a tracking variant) is fetched once and not revisited,
//! while its canonical URL is; a canonical on another origin, or one robots.txt disallows, does
//! not make a page a variant; `revisit-canonical-aliases` revisits variants too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{crawl_for, one_pass_config, read_log, serve_site, warcio_check};

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use freshet_crawl::{CrawlConfig, LogKind, Revisit};

/// Requests per path and query.
#[derive(Default)]
struct Site {
    requests: Mutex<HashMap<String, u32>>,
}

fn answer(site: &Site, origin: &str, target: &str) -> axum::response::Response {
    use axum::http::{StatusCode, header};
    use axum::response::IntoResponse as _;
    let count = {
        let mut requests = site.requests.lock().unwrap();
        let count = requests.entry(target.to_owned()).or_default();
        *count += 1;
        *count
    };
    // Every answer is a new version, so that the crawl learns the pages change often.
    let page = |canonical: &str| {
        let body = format!(
            "<html><head><link rel=\"canonical\" href=\"{canonical}\"></head><body>\
             <p>Version {count} of {target}.</p></body></html>"
        );
        ([(header::CONTENT_TYPE, "text/html")], body).into_response()
    };
    match target {
        "/robots.txt" => "User-agent: *\nDisallow: /private\n".into_response(),
        "/" => page("/"),
        // A tracking variant of /a, and /a itself.
        "/a?ref=1" => page("/a"),
        "/a" => page("/a"),
        // A canonical on another origin (the same server under its address, not `localhost`).
        "/c" => page(&format!("{}/c2", origin.replace("//localhost:", "//127.0.0.1:"))),
        // A canonical robots.txt disallows: the crawl could not fetch it.
        "/d" => page("/private/d"),
        _ => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

async fn start(site: Arc<Site>) -> String {
    serve_site(site, answer).await
}

/// A revisiting crawl from the variant and the two other pages, with pages thought to change
/// five times a second and a budget that refetches each several times in the run.
fn config(data: &std::path::Path, origin: &str) -> CrawlConfig {
    let seeds = ["/", "/a?ref=1", "/c", "/d"].map(|path| format!("{origin}{path}"));
    let mut config = one_pass_config(data, &seeds);
    config.revisit = Revisit::Freshet;
    config.rate = 50.0;
    config.change_rate_prior = 5.0;
    config.delay = Duration::from_millis(20);
    config
}

fn requests(site: &Site, target: &str) -> u32 {
    site.requests.lock().unwrap().get(target).copied().unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_variant_of_another_url_of_its_host_is_fetched_once_and_its_canonical_url_revisited() {
    let site = Arc::new(Site::default());
    let origin = start(Arc::clone(&site)).await;
    let data = tempfile::tempdir().unwrap();
    let summary = crawl_for(config(data.path(), &origin), 3.0).await;
    assert_eq!(requests(&site, "/a?ref=1"), 1, "the variant is not revisited");
    for target in ["/a", "/c", "/d", "/"] {
        assert!(requests(&site, target) >= 3, "{target} revisited: {:?}", site.requests.lock().unwrap());
    }
    assert_eq!(requests(&site, "/private/d"), 0, "robots.txt obeyed");
    assert_eq!(summary.canonical_aliases, 1);
    let log = read_log(data.path());
    let variant: Vec<_> =
        log.iter().filter(|line| line.kind == LogKind::Page && line.url.ends_with("/a?ref=1")).collect();
    assert_eq!(variant.len(), 1);
    let detail = variant[0].detail.as_deref().unwrap_or_default();
    assert!(detail.contains(&format!("rel=canonical names {origin}/a: not revisited")), "{detail}");
    warcio_check(data.path());

    // Asked to, the crawl revisits variants too.
    let site = Arc::new(Site::default());
    let origin = start(Arc::clone(&site)).await;
    let data = tempfile::tempdir().unwrap();
    let mut revisiting = config(data.path(), &origin);
    revisiting.revisit_canonical_aliases = true;
    let summary = crawl_for(revisiting, 3.0).await;
    assert!(requests(&site, "/a?ref=1") >= 3, "{:?}", site.requests.lock().unwrap());
    assert_eq!(u64::from(requests(&site, "/a?ref=1")), summary.canonical_aliases, "counted at each fetch");
}
