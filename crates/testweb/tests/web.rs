//! The well-behaved web over HTTP: versions at exact change times, conditional GET, truth
//! against what is served, reachability from the roots, robots.txt, sitemaps, noise, the log.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::{BTreeSet, VecDeque};

use common::{client, get, header, hrefs, set_model_time, start};
use freshet_testweb::render::{RenderContext, page_html};
use freshet_testweb::{ServerConfig, TOPIC_WORD, Web, WebConfig};
use serde_json::Value;

fn small(seed: u64) -> ServerConfig {
    ServerConfig {
        web: WebConfig { seed, hosts: 5, pages: 300, ..WebConfig::default() },
        ..ServerConfig::default()
    }
}

#[test]
fn same_seed_same_web_other_seed_other_web() {
    let config = WebConfig { hosts: 6, pages: 500, ..WebConfig::default() };
    let a = Web::new(config.clone()).unwrap();
    let b = Web::new(config.clone()).unwrap();
    let c = Web::new(WebConfig { seed: 2, ..config }).unwrap();
    assert_eq!(a.pages(), b.pages());
    assert!((0..500).all(|id| a.links(id) == b.links(id)));
    assert!((0..500).all(|id| a.changes(id).times_until(30.0) == b.changes(id).times_until(30.0)));
    assert_ne!(a.pages(), c.pages());
}

#[tokio::test]
async fn a_restarted_server_serves_the_same_pages() {
    let (first, clock_a) = start(small(9)).await;
    let (second, clock_b) = start(small(9)).await;
    set_model_time(&first, &clock_a, 12.5);
    set_model_time(&second, &clock_b, 12.5);
    for (host, path) in [("h0.web.test", "/"), ("h1.web.test", "/"), ("h0.web.test", "/page/3")] {
        let (status_a, headers_a, body_a) = get(&client(&first), &first.url(host, path)).await;
        let (_, headers_b, body_b) = get(&client(&second), &second.url(host, path)).await;
        assert_eq!(status_a, 200);
        assert_eq!(header(&headers_a, "etag"), header(&headers_b, "etag"));
        assert_eq!(header(&headers_a, "last-modified"), header(&headers_b, "last-modified"));
        // Absolute links carry the port; nothing else differs.
        let normalise = |body: &str, port: u16| body.replace(&format!(":{port}/"), ":PORT/");
        assert_eq!(normalise(&body_a, first.port()), normalise(&body_b, second.port()));
    }
}

#[tokio::test]
async fn content_changes_exactly_at_the_change_times() {
    let (web, clock) = start(small(3)).await;
    let client = client(&web);
    let model = web.web();
    let mut checked = 0;
    for id in (0..model.page_count()).step_by(37) {
        let url = model.url(id, web.port());
        let times = model.changes(id).times_until(20.0);
        let mut previous_etag = None;
        for (k, &t) in times.iter().take(3).enumerate() {
            // One microsecond of wall time either side (scale 1: 10^-6 day).
            set_model_time(&web, &clock, t - 1e-6);
            let (_, before, body_before) = get(&client, &url).await;
            set_model_time(&web, &clock, t + 1e-6);
            let (status, after, body_after) = get(&client, &url).await;
            assert_eq!(status, 200);
            assert_eq!(header(&before, "etag"), model.etag(id, k as u64), "page {id} before change {k}");
            assert_eq!(header(&after, "etag"), model.etag(id, k as u64 + 1), "page {id} after change {k}");
            assert_ne!(body_before, body_after);
            let context = RenderContext { port: web.port(), ..RenderContext::default() };
            assert_eq!(body_after, page_html(model, id, k as u64 + 1, &context));
            // Last-Modified is the change's wall time, to the second.
            let modified = httpdate::parse_http_date(header(&after, "last-modified")).unwrap();
            let exact = web.time_map().wall_time(t);
            assert!(modified <= exact && exact.duration_since(modified).unwrap().as_secs() < 1);
            if let Some(previous) = previous_etag.replace(header(&after, "etag").to_string()) {
                assert_ne!(previous, header(&after, "etag"));
            }
            checked += 1;
        }
    }
    assert!(checked > 10, "only {checked} changes checked");
}

#[tokio::test]
async fn conditional_get_answers_304_only_for_the_current_version() {
    let (web, clock) = start(small(4)).await;
    let client = client(&web);
    let model = web.web();
    let id = model.lookup(1, "/").unwrap();
    let url = model.url(id, web.port());
    let times = model.changes(id).times_until(100.0);
    assert!(times.len() >= 2, "the root should change within 100 days");
    set_model_time(&web, &clock, (times[0] + times[1]) / 2.0);
    let (_, headers, _) = get(&client, &url).await;
    let etag = header(&headers, "etag").to_string();
    let modified = header(&headers, "last-modified").to_string();
    let status =
        |request: reqwest::RequestBuilder| async move { request.send().await.unwrap().status().as_u16() };

    assert_eq!(status(client.get(&url).header("if-none-match", &etag)).await, 304);
    assert_eq!(status(client.get(&url).header("if-none-match", format!("\"x\", W/{etag}"))).await, 304);
    assert_eq!(status(client.get(&url).header("if-none-match", "*")).await, 304);
    assert_eq!(status(client.get(&url).header("if-none-match", model.etag(id, 0))).await, 200);
    assert_eq!(
        status(client.get(&url).header("if-modified-since", &modified)).await,
        200,
        "sub-second change"
    );
    let later =
        httpdate::fmt_http_date(web.time_map().wall_time(times[1]) - std::time::Duration::from_millis(1));
    assert_eq!(status(client.get(&url).header("if-modified-since", &later)).await, 304);
    // If-None-Match wins over If-Modified-Since (RFC 9110 §13.1.3).
    let stale =
        client.get(&url).header("if-none-match", model.etag(id, 0)).header("if-modified-since", &later);
    assert_eq!(status(stale).await, 200);
    // A 304 carries the validators.
    let response = client.get(&url).header("if-none-match", &etag).send().await.unwrap();
    assert_eq!(header(response.headers(), "etag"), etag);

    // After the next change the old validators no longer match.
    set_model_time(&web, &clock, times[1] + 1e-6);
    assert_eq!(status(client.get(&url).header("if-none-match", &etag)).await, 200);
    assert_eq!(status(client.get(&url).header("if-modified-since", &later)).await, 200);
}

#[tokio::test]
async fn truth_agrees_with_what_is_served() {
    let (web, clock) = start(small(5)).await;
    let client = client(&web);
    let (_, _, listing) = get(&client, &web.url("h0.web.test", "/_truth/pages")).await;
    let listing: Value = serde_json::from_str(&listing).unwrap();
    let pages = listing["pages"].as_array().unwrap();
    assert_eq!(pages.len(), 300);
    assert_eq!(listing["time_unit"], "day");
    for t in [0.5, 3.0, 17.25] {
        set_model_time(&web, &clock, t);
        for page in pages.iter().step_by(29) {
            let url = page["url"].as_str().unwrap();
            let (status, headers, _) = get(&client, url).await;
            assert_eq!(status, 200, "{url}");
            let truth_url = web.url("h2.web.test", &format!("/_truth/page?url={url}"));
            let (_, _, truth) = get(&client, &truth_url).await;
            let truth: Value = serde_json::from_str(&truth).unwrap();
            assert_eq!(truth["etag"].as_str().unwrap(), header(&headers, "etag"), "{url} at {t}");
            let changes: Vec<f64> = serde_json::from_value(truth["changes"].clone()).unwrap();
            assert_eq!(truth["version"].as_u64().unwrap(), changes.len() as u64);
            assert!(changes.iter().all(|&c| c > 0.0 && c <= t));
            let id = page["id"].as_u64().unwrap() as u32;
            assert_eq!(changes, web.web().changes(id).times_until(t));
            let unix: Vec<f64> = serde_json::from_value(truth["changes_unix"].clone()).unwrap();
            let origin = listing["origin_unix"].as_f64().unwrap();
            assert!(changes.iter().zip(&unix).all(|(c, u)| (origin + c - u).abs() < 1e-3));
        }
    }
    // Until a given time, and every page at once.
    let some_url = pages[7]["url"].as_str().unwrap();
    let (_, _, truth) =
        get(&client, &web.url("h0.web.test", &format!("/_truth/page?url={some_url}&until=40"))).await;
    let truth: Value = serde_json::from_str(&truth).unwrap();
    assert_eq!(truth["until"], 40.0);
    let (_, headers, all) = get(&client, &web.url("h0.web.test", "/_truth/changes?until=40")).await;
    assert_eq!(header(&headers, "content-type"), "application/x-ndjson");
    let line: Value = serde_json::from_str(all.lines().nth(7).unwrap()).unwrap();
    assert_eq!(line["changes"], truth["changes"]);
    assert_eq!(all.lines().count(), 300);
    let (status, _, _) =
        get(&client, &web.url("h0.web.test", "/_truth/page?url=http://h0.web.test/nope")).await;
    assert_eq!(status, 404);
    // No topic by default.
    assert!(pages.iter().all(|page| page["topic_score"] == 0));
    assert_eq!(truth["topic_score"], 0);
}

#[tokio::test]
async fn truth_gives_the_topic_score_that_the_text_shows() {
    let mut config = small(6);
    config.web.topic_fraction = 0.3;
    let (web, clock) = start(config).await;
    set_model_time(&web, &clock, 5.0);
    let client = client(&web);
    let (_, _, listing) = get(&client, &web.url("h0.web.test", "/_truth/pages")).await;
    let listing: Value = serde_json::from_str(&listing).unwrap();
    let pages = listing["pages"].as_array().unwrap();
    for page in pages {
        let id = page["id"].as_u64().unwrap() as u32;
        assert_eq!(page["topic_score"], web.web().page(id).unwrap().topic_score, "page {id}");
    }
    let on_topic: Vec<&Value> = pages.iter().filter(|page| page["topic_score"] != 0).collect();
    assert!(on_topic.len() > 30, "only {} pages on topic", on_topic.len());
    for page in on_topic.iter().copied().step_by(7).chain(pages.iter().step_by(41)) {
        let url = page["url"].as_str().unwrap();
        let (status, _, html) = get(&client, url).await;
        assert_eq!(status, 200, "{url}");
        let article = &html[html.find("<article>").unwrap()..html.find("</article>").unwrap()];
        let said = article.matches(TOPIC_WORD).count() as u64;
        let (_, _, truth) = get(&client, &web.url("h1.web.test", &format!("/_truth/page?url={url}"))).await;
        let truth: Value = serde_json::from_str(&truth).unwrap();
        assert_eq!(truth["topic_score"].as_u64().unwrap(), said, "{url}");
        assert_eq!(page["topic_score"].as_u64().unwrap(), said, "{url}");
    }
}

#[tokio::test]
async fn every_allowed_page_is_reachable_by_links_from_the_first_root() {
    let (web, _clock) = start(small(6)).await;
    let client = client(&web);
    let model = web.web();
    let start = web.url("h0.web.test", "/");
    let mut seen = BTreeSet::from([start.clone()]);
    let mut queue = VecDeque::from([start]);
    let mut fetched = 0;
    while let Some(url) = queue.pop_front() {
        let (status, _, body) = get(&client, &url).await;
        assert_eq!(status, 200, "{url}");
        fetched += 1;
        let authority = url.split('/').take(3).collect::<Vec<_>>().join("/");
        for href in hrefs(&body) {
            let absolute = if href.starts_with('/') { format!("{authority}{href}") } else { href };
            if !absolute.contains("/private/") && seen.insert(absolute.clone()) {
                queue.push_back(absolute);
            }
        }
    }
    let allowed: BTreeSet<String> = (0..model.page_count())
        .filter(|&id| model.pages()[id as usize].allowed)
        .map(|id| model.url(id, web.port()))
        .collect();
    assert!(allowed.len() < 300, "some pages should be disallowed");
    assert_eq!(seen, allowed);
    assert_eq!(fetched, allowed.len());
    // The server logged exactly those requests.
    assert_eq!(web.log().len(), fetched);
}

#[tokio::test]
async fn robots_and_sitemaps_list_what_may_be_crawled() {
    let (web, _clock) = start(small(7)).await;
    let client = client(&web);
    let model = web.web();
    let mut listed = BTreeSet::new();
    for host in 0..model.host_count() {
        let name = Web::host_name(host);
        let (status, headers, robots) = get(&client, &web.url(&name, "/robots.txt")).await;
        assert_eq!(status, 200);
        assert!(header(&headers, "content-type").starts_with("text/plain"));
        assert!(robots.contains("User-agent: *\nDisallow: /private/\n"), "{robots}");
        let sitemap = format!("Sitemap: {}", web.url(&name, "/sitemap.xml"));
        assert!(robots.lines().any(|line| line == sitemap), "{robots}");
        let (_, _, xml) = get(&client, &web.url(&name, "/sitemap.xml")).await;
        for loc in xml.split("<loc>").skip(1).filter_map(|rest| rest.split("</loc>").next()) {
            assert!(loc.starts_with(&web.url(&name, "/")), "{loc}");
            assert!(listed.insert(loc.to_string()));
        }
    }
    let allowed = model.pages().iter().filter(|p| p.allowed).count();
    assert_eq!(listed.len(), allowed);
    assert!(listed.iter().all(|url| !url.contains("/private/")));
    // Disallowed pages exist (a crawler that ignores robots.txt finds them).
    let private = (0..model.page_count()).find(|&id| !model.pages()[id as usize].allowed).unwrap();
    let (status, _, _) = get(&client, &model.url(private, web.port())).await;
    assert_eq!(status, 200);
}

/// `<loc>` and `<lastmod>` of each entry of a urlset.
fn lastmods(xml: &str) -> Vec<(String, Option<String>)> {
    let inner = |entry: &str, tag: &str| {
        let open = format!("<{tag}>");
        entry.split(&open).nth(1).and_then(|rest| rest.split(&format!("</{tag}>")).next()).map(str::to_owned)
    };
    xml.split("<url>").skip(1).map(|entry| (inner(entry, "loc").unwrap(), inner(entry, "lastmod"))).collect()
}

#[tokio::test]
async fn sitemap_lastmods_are_none_the_latest_change_or_the_time_of_the_request() {
    use freshet_testweb::SitemapLastmod;
    for kind in [SitemapLastmod::None, SitemapLastmod::Exact, SitemapLastmod::Now] {
        let (web, clock) = start(ServerConfig { sitemap_lastmod: kind, ..small(4) }).await;
        set_model_time(&web, &clock, 7.25);
        let client = client(&web);
        let model = web.web();
        let (_, _, xml) = get(&client, &web.url("h2.web.test", "/sitemap.xml")).await;
        let entries = lastmods(&xml);
        assert!(entries.len() > 10, "{xml}");
        for (loc, lastmod) in entries {
            let id = (0..model.page_count()).find(|&id| model.url(id, web.port()) == loc).unwrap();
            let latest = model.changes(id).times_until(7.25).last().copied().unwrap_or(0.0);
            let lastmod = lastmod.map(|text| humantime::parse_rfc3339(&text).unwrap());
            match kind {
                SitemapLastmod::None => assert_eq!(lastmod, None),
                // To the millisecond, never after the change.
                SitemapLastmod::Exact => {
                    let exact = web.time_map().wall_time(latest);
                    let lastmod = lastmod.unwrap();
                    assert!(
                        lastmod <= exact && exact.duration_since(lastmod).unwrap().as_millis() < 1,
                        "{loc}"
                    );
                }
                SitemapLastmod::Now => {
                    let now = web.time_map().wall_time(7.25);
                    let lastmod = lastmod.unwrap();
                    assert!(lastmod <= now && now.duration_since(lastmod).unwrap().as_millis() < 1, "{loc}");
                }
            }
        }
    }
}

#[tokio::test]
async fn noise_changes_every_response_but_not_the_version() {
    let (web, _clock) = start(ServerConfig { noise: true, ..small(8) }).await;
    let client = client(&web);
    let url = web.url("h1.web.test", "/page/2");
    let (_, first_headers, first) = get(&client, &url).await;
    let (_, second_headers, second) = get(&client, &url).await;
    assert_ne!(first, second);
    assert_eq!(header(&first_headers, "etag"), header(&second_headers, "etag"));
    let session_links =
        |body: &str| hrefs(body).into_iter().filter(|h| h.contains("?sid=")).collect::<Vec<_>>();
    assert_eq!(session_links(&first).len(), 2);
    assert_ne!(session_links(&first), session_links(&second));
    // Without the noise lines the two are the same page, and the same as without noise.
    let strip = |body: &str| {
        body.lines()
            .filter(|l| {
                !l.starts_with("<nav>")
                    && !l.starts_with("<div class=\"ad\">")
                    && !l.starts_with("<p class=\"served\">")
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&first), strip(&second));
    let id = web.web().lookup(1, "/page/2").unwrap();
    let quiet = page_html(web.web(), id, 0, &RenderContext { port: web.port(), ..RenderContext::default() });
    assert_eq!(strip(&first), strip(&quiet));
    // A session URL is the same page.
    let (status, _, _) = get(&client, &web.url("h1.web.test", &session_links(&first)[0])).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn the_log_records_each_request_and_not_the_truth() {
    let (web, clock) = start(small(10)).await;
    let client = client(&web);
    set_model_time(&web, &clock, 2.0);
    get(&client, &web.url("h3.web.test", "/page/1?x=1")).await;
    get(&client, &web.url("nowhere.web.test", "/")).await;
    get(&client, &web.url("h3.web.test", "/_truth/clock")).await;
    let post = client.post(web.url("h0.web.test", "/")).send().await.unwrap();
    assert_eq!(post.status().as_u16(), 405);
    let (_, _, log) = get(&client, &web.url("h0.web.test", "/_log")).await;
    let log: Value = serde_json::from_str(&log).unwrap();
    let log = log.as_array().unwrap();
    assert_eq!(log.len(), 3);
    assert_eq!(log[0]["host"], "h3.web.test");
    assert_eq!(log[0]["path"], "/page/1?x=1");
    assert_eq!(log[0]["status"], 200);
    assert_eq!(log[0]["model_time"], 2.0);
    assert_eq!(log[0]["unix"], 1_700_000_002.0);
    assert_eq!(log[1]["status"], 404);
    assert_eq!(log[2]["method"], "POST");
    let (_, _, since) = get(&client, &web.url("h0.web.test", "/_log?since=2")).await;
    assert_eq!(serde_json::from_str::<Value>(&since).unwrap().as_array().unwrap().len(), 1);
    assert_eq!(web.log().entries()[1].host, "nowhere.web.test");
    web.shutdown().await.unwrap();
}
