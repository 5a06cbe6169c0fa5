//! Sitemaps read again during a revisiting crawl, end to end on 127.0.0.1: a host's sitemap is
//! re-read every `sitemap_revisit`, its new URLs are discovered and a known page whose
//! `<lastmod>` moves past its last fetch is fetched again at once; and a host whose `<lastmod>`s
//! are wrong (the time of the sitemap's generation for every URL) has them ignored once the
//! fetches they caused found nothing changed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{crawl_for, one_pass_config, read_log, serve_site, warcio_check};

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use freshet_crawl::{LogKind, Revisit};

/// How often the site adds a page to its sitemap: new pages are due at once, so the host gets
/// slots (a sitemap read takes a page's slot) while the budget brings no revisits.
const NEW_PAGE_EVERY: f64 = 0.2;

/// The site: requests per path, `/a`'s version and the `lastmod` its sitemap gives it, and
/// whether every entry's `lastmod` is the time of the request (a lying generator).
struct Site {
    started: Instant,
    requests: Mutex<HashMap<String, u32>>,
    a_version: Mutex<(u32, String)>,
    lastmod_is_now: bool,
    /// Pages `/c0`, `/c1`, … that change with `/a` (and are listed with its `lastmod`).
    c_pages: u32,
}

impl Site {
    /// A site starting now, `/a` at version 1 with an old `lastmod`.
    fn new(lastmod_is_now: bool, c_pages: u32) -> Arc<Self> {
        Arc::new(Self {
            started: Instant::now(),
            requests: Mutex::default(),
            a_version: Mutex::new((1, "2001-01-01".into())),
            lastmod_is_now,
            c_pages,
        })
    }
}

/// Moves `/a` (and the `/c` pages) to version 2 after `delay`, its `lastmod` the time of that.
fn change_a_after(site: &Arc<Site>, delay: Duration) {
    let site = Arc::clone(site);
    tokio::spawn(async move {
        tokio::time::sleep(delay).await;
        *site.a_version.lock().unwrap() = (2, w3c(unix_now()));
    });
}

/// W3C datetime of the Unix time `seconds`, to the millisecond (RFC 3339 is a profile of it).
fn w3c(seconds: f64) -> String {
    humantime::format_rfc3339_millis(UNIX_EPOCH + Duration::from_secs_f64(seconds)).to_string()
}

fn unix_now() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs_f64()
}

fn answer(site: &Site, origin: &str, path: &str) -> axum::response::Response {
    use axum::http::{StatusCode, header};
    use axum::response::IntoResponse as _;
    *site.requests.lock().unwrap().entry(path.to_owned()).or_default() += 1;
    let html = |body: &str| ([(header::CONTENT_TYPE, "text/html")], body.to_owned()).into_response();
    let new_pages = (site.started.elapsed().as_secs_f64() / NEW_PAGE_EVERY) as u32 + 1;
    match path {
        "/robots.txt" => format!("User-agent: *\nAllow: /\nSitemap: {origin}/sitemap.xml\n").into_response(),
        "/sitemap.xml" => {
            let now = w3c(unix_now());
            let lastmod = |fixed: &str| if site.lastmod_is_now { now.clone() } else { fixed.to_owned() };
            let a_lastmod = lastmod(&site.a_version.lock().unwrap().1);
            let mut xml = String::from(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
                 <urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
            );
            let _ = writeln!(xml, "<url><loc>{origin}/a</loc><lastmod>{a_lastmod}</lastmod></url>");
            for page in 0..site.c_pages {
                let _ = writeln!(xml, "<url><loc>{origin}/c{page}</loc><lastmod>{a_lastmod}</lastmod></url>");
            }
            let _ =
                writeln!(xml, "<url><loc>{origin}/b</loc><lastmod>{}</lastmod></url>", lastmod("2001-01-01"));
            for page in 0..new_pages {
                let _ = writeln!(
                    xml,
                    "<url><loc>{origin}/n{page}</loc><lastmod>{}</lastmod></url>",
                    lastmod("2001-01-01")
                );
            }
            xml.push_str("</urlset>\n");
            ([(header::CONTENT_TYPE, "application/xml")], xml).into_response()
        }
        "/" => html("<html><body><a href=\"/a\">a</a> <a href=\"/b\">b</a></body></html>"),
        _ if path == "/a" || path.starts_with("/c") => {
            // Each version's text is another one (a new word is not a change to the main text's
            // signature, `freshet-content`).
            let text = match site.a_version.lock().unwrap().0 {
                1 => "The first story: a river rose over its banks in the night and the town woke to water.",
                _ => "A second story replaced it: the council voted to build a new bridge before winter.",
            };
            html(&format!("<html><body><h1>{path}</h1><p>{text}</p></body></html>"))
        }
        "/b" => html("<html><body><p>The b page, which never changes.</p></body></html>"),
        _ if path.starts_with("/n") => html(&format!("<html><body><p>A new page, {path}.</p></body></html>")),
        _ => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

async fn start(site: Arc<Site>) -> String {
    serve_site(site, answer).await
}

fn requests(site: &Site, path: &str) -> u32 {
    site.requests.lock().unwrap().get(path).copied().unwrap_or(0)
}

/// Revisits on at a budget that brings none within these seconds; sitemaps re-read every
/// 0.3 s.
fn config(data: &std::path::Path, origin: &str) -> freshet_crawl::CrawlConfig {
    let mut config = one_pass_config(data, &[format!("{origin}/")]);
    config.revisit = Revisit::Freshet;
    config.rate = 0.01;
    config.sitemap_revisit = Some(Duration::from_millis(300));
    config
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sitemaps_read_again_find_new_pages_and_a_known_page_that_changed() {
    let site = Site::new(false, 0);
    let origin = start(Arc::clone(&site)).await;
    let data = tempfile::tempdir().unwrap();
    change_a_after(&site, Duration::from_millis(1_500));

    let summary = crawl_for(config(data.path(), &origin), 4.0).await;
    let sitemap_reads = requests(&site, "/sitemap.xml");
    assert!(sitemap_reads >= 4, "the sitemap read {sitemap_reads} times");
    assert_eq!(u64::from(sitemap_reads), summary.sitemap_rereads + 1);
    // Pages the sitemap added while the crawl ran were found by reading it again.
    let new_fetched = (0..40).filter(|page| requests(&site, &format!("/n{page}")) > 0).count();
    assert!(new_fetched >= 8, "{new_fetched} new pages fetched");
    // The reads took the turns of pages fetched before (no page of the host was due at this
    // budget), and gave them back: no page was fetched again for them.
    for page in ["/".to_owned(), "/b".to_owned()].into_iter().chain((0..40).map(|page| format!("/n{page}"))) {
        assert!(requests(&site, &page) <= 1, "{page} fetched {} times", requests(&site, &page));
    }
    // /a changed once, and the sitemap said so: fetched again, once, and found changed.
    assert_eq!(requests(&site, "/a"), 2);
    assert_eq!(requests(&site, "/b"), 1, "/b's lastmod never moved");
    assert_eq!((summary.sitemap_changes, summary.sitemap_changes_confirmed), (1, 1));
    assert_eq!(summary.sitemap_lastmods_ignored, 0);
    // One check does not prove the host's lastmods: no read vouched for an unchanged page.
    assert_eq!(summary.sitemap_vouched, 0);
    let log = read_log(data.path());
    let changed: Vec<_> = log.iter().filter(|line| line.kind == LogKind::Changed).collect();
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert!(changed[0].url.ends_with("/a"), "{changed:?}");
    warcio_check(data.path());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lastmods_that_the_fetches_find_wrong_are_ignored_for_the_rest_of_the_run() {
    let site = Site::new(true, 0);
    let origin = start(Arc::clone(&site)).await;
    let data = tempfile::tempdir().unwrap();

    let summary = crawl_for(config(data.path(), &origin), 4.0).await;
    assert!(summary.sitemap_rereads >= 4, "{} re-reads", summary.sitemap_rereads);
    assert_eq!(summary.sitemap_lastmods_ignored, 1);
    assert_eq!(summary.sitemap_changes_confirmed, 0, "nothing ever changed");
    // The reads after the verdict tell no page changed: the pages told are those of the reads
    // before it (a read tells at most every page fetched by then, the verdict comes within
    // the first read's fetches plus those already told), far fewer than every page at every read.
    let log = read_log(data.path());
    let told = log.iter().filter(|line| line.kind == LogKind::Changed).count() as u64;
    assert_eq!(told, summary.sitemap_changes);
    let pages_fetched = log.iter().filter(|line| line.kind == LogKind::Page).count() as u64;
    assert!(told < pages_fetched, "{told} told of {pages_fetched} pages fetched");
    let verdict = log.iter().position(|line| {
        line.detail.as_deref().is_some_and(|detail| detail.contains("ignored for the rest of the run"))
    });
    let verdict = verdict.expect("a page's line says the lastmods are ignored");
    assert!(
        !log[verdict..].iter().any(|line| line.kind == LogKind::Changed),
        "no page told changed after the verdict"
    );
    // The pages told before the verdict and not fetched by then wait for their turn again (at
    // this budget, none comes within the run): only one in flight at the verdict may follow.
    let mut waiting = std::collections::HashSet::new();
    for line in &log[..verdict] {
        match line.kind {
            LogKind::Changed => waiting.insert(line.url.clone()),
            LogKind::Page => waiting.remove(&line.url),
            _ => false,
        };
    }
    let fetched_after = log[verdict + 1..]
        .iter()
        .filter(|line| line.kind == LogKind::Page && waiting.contains(&line.url))
        .count();
    assert!(fetched_after <= 1, "{fetched_after} of {} told pages fetched after the verdict", waiting.len());
    let ignored_reads = log[verdict..]
        .iter()
        .filter(|line| line.kind == LogKind::Sitemap)
        .filter(|line| line.detail.as_deref().is_some_and(|detail| detail.contains("lastmods ignored")))
        .count();
    assert!(ignored_reads >= 2, "{ignored_reads} sitemap reads after the verdict say so");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_whose_lastmods_proved_right_vouches_for_the_pages_it_lists_unchanged() {
    let site = Site::new(false, 5);
    let origin = start(Arc::clone(&site)).await;
    let data = tempfile::tempdir().unwrap();
    change_a_after(&site, Duration::from_millis(1_200));

    let mut config = config(data.path(), &origin);
    config.duration = Some(Duration::from_secs(5));
    let crawler = freshet_crawl::Crawler::open(config).unwrap();
    let admin = crawler.admin();
    let question = async {
        tokio::time::sleep(Duration::from_millis(4_500)).await;
        let status = admin.status().await.unwrap();
        (admin.explain(&format!("{origin}/b")).await.unwrap(), status)
    };
    let (summary, (b, status)) = tokio::join!(crawler.run(std::future::pending()), question);
    let summary = summary.unwrap();
    // The running crawl's status counts what the summary counts (the /metrics counters).
    assert_eq!((status.sitemaps.changes, status.sitemaps.changes_confirmed), (6, 6));
    assert!(status.sitemaps.vouched > 0 && status.sitemaps.vouched <= summary.sitemap_vouched);
    assert!(status.sitemaps.rereads > 0 && status.sitemaps.rereads <= summary.sitemap_rereads);
    // /b, fetched once at the start, is current as of a later read, which its age counts from.
    let (last_fetch, current_since) = (b.last_fetch.unwrap(), b.current_since.unwrap());
    assert!(current_since > last_fetch + 1.0, "fetched at {last_fetch}, current since {current_since}");
    // Six pages changed at once, each told and found changed: four checks prove the host.
    assert_eq!((summary.sitemap_changes, summary.sitemap_changes_confirmed), (6, 6));
    for page in ["/a", "/c0", "/c4"] {
        assert_eq!(requests(&site, page), 2, "{page}");
    }
    // The reads after that vouch for what they list unchanged since its copy (/b and the new
    // pages, whose date-only lastmods name a day long past): each such copy's age counts from
    // the read. Not the six: each was fetched again within the second its lastmod names, so
    // that lastmod cannot say whether the copy came before or after the change.
    assert!(summary.sitemap_vouched >= 4, "{} vouched", summary.sitemap_vouched);
    assert_eq!((summary.sitemap_misses, summary.sitemap_lastmods_ignored), (0, 0));
}

/// A site whose sitemap index (listing one sitemap) and sitemap send an `ETag` and answer 304
/// to a request that sends it back; `/child.xml` gains `/p3` (and a new `ETag`) after `change`.
/// Records, per sitemap path, each request's `If-None-Match` (empty: none) and status.
struct Conditional {
    started: Instant,
    change: Duration,
    seen: Mutex<Vec<(String, String, u16)>>,
}

async fn serve_conditional(site: Arc<Conditional>) -> String {
    use axum::http::{HeaderMap, StatusCode, Uri, header};
    use axum::response::IntoResponse as _;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://localhost:{}", listener.local_addr().unwrap().port());
    let app_origin = origin.clone();
    let app = axum::Router::new().fallback(move |uri: Uri, headers: HeaderMap| {
        let (site, origin) = (Arc::clone(&site), app_origin.clone());
        async move {
            let path = uri.path().to_owned();
            let changed = site.started.elapsed() >= site.change;
            let (etag, body) = match path.as_str() {
                "/robots.txt" => {
                    return format!("User-agent: *\nAllow: /\nSitemap: {origin}/index.xml\n").into_response();
                }
                "/index.xml" => (
                    "\"index-1\"".to_owned(),
                    format!(
                        "<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
                         <sitemap><loc>{origin}/child.xml</loc></sitemap></sitemapindex>"
                    ),
                ),
                "/child.xml" => {
                    let pages: &[&str] = if changed { &["p1", "p2", "p3"] } else { &["p1", "p2"] };
                    let urls: String =
                        pages.iter().map(|page| format!("<url><loc>{origin}/{page}</loc></url>")).collect();
                    (
                        format!("\"child-{}\"", if changed { 2 } else { 1 }),
                        format!(
                            "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">{urls}</urlset>"
                        ),
                    )
                }
                _ => {
                    let html =
                        format!("<html><body><p>The page {path}.</p><a href=\"/p1\">p1</a></body></html>");
                    return ([(header::CONTENT_TYPE, "text/html")], html).into_response();
                }
            };
            let sent = headers.get(header::IF_NONE_MATCH).and_then(|value| value.to_str().ok()).unwrap_or("");
            let status = if sent == etag { StatusCode::NOT_MODIFIED } else { StatusCode::OK };
            site.seen.lock().unwrap().push((path, sent.to_owned(), status.as_u16()));
            if status == StatusCode::NOT_MODIFIED {
                return (status, [(header::ETAG, etag)]).into_response();
            }
            ([(header::CONTENT_TYPE, "application/xml".to_owned()), (header::ETAG, etag)], body)
                .into_response()
        }
    });
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    origin
}

/// Sitemaps are read again with the validators their last 2xx sent: an unchanged file answers
/// 304 and is neither sent nor parsed again (an index's sitemaps are still queued, from what it
/// listed last), and a file that changed answers 200 and is read (here a new URL, fetched).
/// The first request of each file is unconditional.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unchanged_sitemaps_are_not_sent_again() {
    let site = Arc::new(Conditional {
        started: Instant::now(),
        change: Duration::from_millis(1_500),
        seen: Mutex::default(),
    });
    let origin = serve_conditional(Arc::clone(&site)).await;
    let data = tempfile::tempdir().unwrap();
    let mut config = config(data.path(), &origin);
    config.duration = Some(Duration::from_secs(3));
    let summary = freshet_crawl::Crawler::open(config).unwrap().run(std::future::pending()).await.unwrap();
    let seen = site.seen.lock().unwrap().clone();
    for path in ["/index.xml", "/child.xml"] {
        let of_path: Vec<&(String, String, u16)> = seen.iter().filter(|(seen, ..)| seen == path).collect();
        assert!(of_path.len() >= 4, "{path} read {} times: {seen:?}", of_path.len());
        assert_eq!((of_path[0].1.as_str(), of_path[0].2), ("", 200), "{path}: {seen:?}");
        assert!(
            of_path[1..].iter().all(|(_, sent, _)| !sent.is_empty()),
            "{path}: conditional after the first: {seen:?}"
        );
    }
    let index_304 = seen.iter().filter(|(path, _, status)| path == "/index.xml" && *status == 304).count();
    let child_304 = seen.iter().filter(|(path, _, status)| path == "/child.xml" && *status == 304).count();
    let child_200 = seen.iter().filter(|(path, _, status)| path == "/child.xml" && *status == 200).count();
    assert!(index_304 >= 3 && child_304 >= 2, "{seen:?}");
    assert_eq!(child_200, 2, "the first read and the one after the change: {seen:?}");
    assert_eq!(summary.sitemap_not_modified as usize, index_304 + child_304);
    let lines = read_log(data.path());
    let not_modified: Vec<_> =
        lines.iter().filter(|line| line.kind == LogKind::Sitemap && line.outcome == "not-modified").collect();
    assert_eq!(not_modified.len(), index_304 + child_304);
    assert!(
        not_modified.iter().any(|line| line
            .detail
            .as_deref()
            .is_some_and(|detail| detail.contains("1 sitemaps it lists, 1 queued again"))),
        "{not_modified:?}"
    );
    // The URL the changed sitemap added was discovered and fetched.
    assert!(lines.iter().any(|line| line.kind == LogKind::Page
        && line.url == format!("{origin}/p3")
        && line.outcome == "ok"));
    warcio_check(data.path());
}
