//! Every misbehaving host does what it promises, and the web beside it behaves.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::Read as _;
use std::time::{Duration, Instant};

use common::{client, get, header, hrefs, start};
use freshet_testweb::{Misbehaviour, MisbehaviourSettings, ServerConfig, TestWeb, WebConfig};

fn settings() -> MisbehaviourSettings {
    MisbehaviourSettings {
        slow_delay: Duration::from_millis(300),
        slow_body_chunks: 3,
        slow_body_interval: Duration::from_millis(200),
        rate_limit_interval: Duration::from_secs(10),
        error_period: Duration::from_secs(20),
        error_burst: Duration::from_secs(5),
        huge_bytes: 100 << 20,
        bomb_bytes: 64 << 20,
        robots_hang: Duration::from_millis(500),
        costly_paths: 20,
    }
}

async fn start_all() -> (TestWeb, std::sync::Arc<freshet_testweb::ManualClock>, reqwest::Client) {
    let config = ServerConfig {
        web: WebConfig { hosts: 3, pages: 60, ..WebConfig::default() },
        misbehave: Misbehaviour::ALL.to_vec(),
        settings: settings(),
        ..ServerConfig::default()
    };
    let (web, clock) = start(config).await;
    let client = client(&web);
    (web, clock, client)
}

fn url(web: &TestWeb, kind: Misbehaviour, path: &str) -> String {
    web.url(&kind.host_name(), path)
}

#[tokio::test]
async fn the_first_root_links_every_misbehaving_host_and_each_host_has_pages() {
    let (web, _clock, client) = start_all().await;
    let (_, _, root) = get(&client, &web.url("h0.web.test", "/")).await;
    for kind in Misbehaviour::ALL {
        assert!(hrefs(&root).contains(&url(&web, kind, "/")), "{kind:?}");
    }
    for kind in [Misbehaviour::Calendar, Misbehaviour::Huge, Misbehaviour::BadEncoding] {
        let (status, _, body) = get(&client, &url(&web, kind, "/")).await;
        assert_eq!(status, 200);
        assert!(hrefs(&body).contains(&"/page/5".to_string()));
        assert_eq!(get(&client, &url(&web, kind, "/page/3")).await.0, 200);
        assert_eq!(get(&client, &url(&web, kind, "/page/6")).await.0, 404);
    }
    // Only the kinds asked for exist.
    let (plain, _) = start(ServerConfig::default()).await;
    let (status, _, _) = get(&common::client(&plain), &url(&plain, Misbehaviour::Slow, "/")).await;
    assert_eq!(status, 404);
}

/// The delays here are seconds, so that the bounds "at once" (under a delay) leave a loaded
/// test machine seconds of margin, not milliseconds.
#[tokio::test]
async fn slow_hosts_answer_late_and_slow_bodies_trickle() {
    let slow = Duration::from_secs(2);
    let interval = Duration::from_secs(1);
    let config = ServerConfig {
        misbehave: vec![Misbehaviour::Slow, Misbehaviour::SlowBody],
        settings: MisbehaviourSettings { slow_delay: slow, slow_body_interval: interval, ..settings() },
        ..ServerConfig::default()
    };
    let (web, _clock) = start(config).await;
    let client = client(&web);
    let started = Instant::now();
    assert_eq!(get(&client, &url(&web, Misbehaviour::Slow, "/robots.txt")).await.0, 200);
    assert!(started.elapsed() < slow, "robots.txt is not slow, but took {:?}", started.elapsed());
    let started = Instant::now();
    assert_eq!(get(&client, &url(&web, Misbehaviour::Slow, "/page/1")).await.0, 200);
    assert!(started.elapsed() >= slow, "a page took {:?}", started.elapsed());

    let started = Instant::now();
    let response = client.get(url(&web, Misbehaviour::SlowBody, "/page/1")).send().await.unwrap();
    let head = started.elapsed();
    assert_eq!(header(response.headers(), "content-length"), "1536");
    let body = response.bytes().await.unwrap();
    assert!(head < interval, "head after {head:?}");
    assert!(started.elapsed() >= 2 * interval, "body after {:?}", started.elapsed());
    assert_eq!(body.len(), 1536);
}

#[tokio::test]
async fn rate_limited_host_sends_429_with_retry_after() {
    let (web, clock, client) = start_all().await;
    let page = url(&web, Misbehaviour::RateLimit, "/page/1");
    assert_eq!(get(&client, &page).await.0, 200);
    clock.advance(Duration::from_millis(2500));
    let (status, headers, _) = get(&client, &page).await;
    assert_eq!(status, 429);
    assert_eq!(header(&headers, "retry-after"), "8");
    assert_eq!(get(&client, &url(&web, Misbehaviour::RateLimit, "/robots.txt")).await.0, 200);
    clock.advance(Duration::from_millis(7500));
    assert_eq!(get(&client, &page).await.0, 200);
    assert_eq!(get(&client, &page).await.0, 429);
}

#[tokio::test]
async fn server_errors_come_in_bursts() {
    let (web, clock, client) = start_all().await;
    let page = url(&web, Misbehaviour::ServerErrors, "/page/2");
    let mut statuses = Vec::new();
    for _ in 0..3 {
        let (status, headers, _) = get(&client, &page).await;
        if status == 503 {
            assert_eq!(header(&headers, "retry-after"), "5");
        }
        statuses.push(status);
    }
    statuses.sort_unstable();
    assert_eq!(statuses, [500, 502, 503]);
    clock.advance(Duration::from_secs(6));
    assert_eq!(get(&client, &page).await.0, 200);
    clock.advance(Duration::from_secs(14));
    assert!(get(&client, &page).await.0 >= 500, "the next burst");
}

#[tokio::test]
async fn reset_host_resets_connections() {
    let (web, _clock, client) = start_all().await;
    assert_eq!(get(&client, &url(&web, Misbehaviour::Reset, "/")).await.0, 200);
    let error = client.get(url(&web, Misbehaviour::Reset, "/page/1")).send().await.unwrap_err();
    // A TCP RST: the client's I/O error is ECONNRESET, not an HTTP status or a clean close.
    let mut source: Option<&dyn std::error::Error> = Some(&error);
    let mut reset = false;
    while let Some(cause) = source {
        reset |= cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::ConnectionReset);
        source = cause.source();
    }
    assert!(reset, "{error:?}");
    let logged = web.log().entries().into_iter().find(|e| e.path == "/page/1").unwrap();
    assert_eq!(logged.status, 0);
    // The server goes on.
    assert_eq!(get(&client, &url(&web, Misbehaviour::Reset, "/")).await.0, 200);
}

#[tokio::test]
async fn redirects_loop_and_chain_forever() {
    let (web, _clock, client) = start_all().await;
    let location = |path: &'static str| {
        let client = client.clone();
        let target = url(&web, Misbehaviour::RedirectLoop, path);
        async move {
            let response = client.get(target).send().await.unwrap();
            (response.status().as_u16(), header(response.headers(), "location").to_string())
        }
    };
    assert_eq!(location("/loop/a").await, (302, "/loop/b".to_string()));
    assert_eq!(location("/loop/b").await, (302, "/loop/a".to_string()));
    assert_eq!(location("/self").await, (301, "/self".to_string()));
    assert_eq!(location("/chain/41").await, (302, "/chain/42".to_string()));
    // A client that follows redirects gives up.
    let following = reqwest::Client::builder()
        .resolve(&Misbehaviour::RedirectLoop.host_name(), web.address())
        .no_proxy()
        .build()
        .unwrap();
    let error = following.get(url(&web, Misbehaviour::RedirectLoop, "/loop/a")).send().await.unwrap_err();
    assert!(error.is_redirect(), "{error:?}");
}

#[tokio::test]
async fn the_calendar_never_ends() {
    let (web, _clock, client) = start_all().await;
    let mut path = "/cal/2026/1".to_string();
    for step in 0..30 {
        let (status, _, body) = get(&client, &url(&web, Misbehaviour::Calendar, &path)).await;
        assert_eq!(status, 200, "{path}");
        let links = hrefs(&body);
        let leap_february = step == 25; // February 2028
        assert_eq!(
            links.len(),
            2 + [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][step % 12] + usize::from(leap_february)
        );
        path = links[1].clone(); // the next month
    }
    assert_eq!(path, "/cal/2028/7");
    assert_eq!(get(&client, &url(&web, Misbehaviour::Calendar, "/cal/99999/2/29")).await.0, 404);
    assert_eq!(get(&client, &url(&web, Misbehaviour::Calendar, "/cal/2024/2/29")).await.0, 200);
    assert_eq!(get(&client, &url(&web, Misbehaviour::Calendar, "/cal/-40000/12")).await.0, 200);
}

/// Wildcard DNS: every `n{k}` name under the host is a host whose root links two new ones, and
/// robots.txt allows everything there; other names under it answer 404.
#[tokio::test]
async fn the_wildcard_dns_host_links_new_hosts_without_end() {
    let (web, _clock, _) = start_all().await;
    let names = ["wildcard-dns.web.test", "n1.wildcard-dns.web.test", "n5.wildcard-dns.web.test"];
    let mut builder = reqwest::Client::builder().no_proxy().timeout(Duration::from_secs(5));
    for name in names.iter().chain(&["a.wildcard-dns.web.test", "n5.n1.wildcard-dns.web.test"]) {
        builder = builder.resolve(name, web.address());
    }
    let client = builder.build().unwrap();
    for (name, children) in names.into_iter().zip([[1, 2], [3, 4], [11, 12]]) {
        let (status, _, body) = get(&client, &web.url(name, "/")).await;
        assert_eq!(status, 200, "{name}");
        let links = hrefs(&body);
        for child in children {
            let root = format!("http://n{child}.wildcard-dns.web.test:{}/", web.port());
            assert!(links.contains(&root), "{name}: {links:?}");
        }
        assert_eq!(get(&client, &web.url(name, "/page/5")).await.0, 200, "{name}");
        let (status, _, robots) = get(&client, &web.url(name, "/robots.txt")).await;
        assert_eq!((status, robots.as_str()), (200, "User-agent: *\nDisallow:\n"), "{name}");
    }
    for name in ["a.wildcard-dns.web.test", "n5.n1.wildcard-dns.web.test"] {
        assert_eq!(get(&client, &web.url(name, "/")).await.0, 404, "{name}");
    }
}

/// `long-fields`: links and a redirect to URLs over 8 KiB, validators over 1 KiB or with a tab.
#[tokio::test]
async fn the_long_fields_host_links_and_sends_what_is_too_long_to_keep() {
    let (web, _clock, client) = start_all().await;
    let kind = Misbehaviour::LongFields;
    let (_, _, root) = get(&client, &url(&web, kind, "/")).await;
    let links = hrefs(&root);
    let long_path = freshet_testweb::long_path();
    assert_eq!(long_path.len(), freshet_testweb::LONG_URL_OCTETS);
    assert!(links.contains(&long_path), "{links:?}");
    let long_host = freshet_testweb::long_host();
    assert!(
        long_host.len() >= freshet_testweb::LONG_HOST_OCTETS && long_host.ends_with(".long-fields.web.test")
    );
    assert!(links.contains(&format!("http://{long_host}:{}/", web.port())), "{links:?}");
    let (status, headers, _) = get(&client, &url(&web, kind, "/long-redirect")).await;
    assert_eq!((status, header(&headers, "location")), (302, long_path.as_str()));
    assert_eq!(get(&client, &url(&web, kind, &long_path)).await.0, 200);
    let (_, headers, _) = get(&client, &url(&web, kind, "/page/1")).await;
    assert_eq!(header(&headers, "etag").len(), freshet_testweb::LONG_VALIDATOR_OCTETS + 2);
    let (_, headers, _) = get(&client, &url(&web, kind, "/page/2")).await;
    assert_eq!(header(&headers, "etag"), "\"a\tb\"");
    let (_, headers, _) = get(&client, &url(&web, kind, "/page/3")).await;
    assert_eq!(header(&headers, "last-modified").len(), freshet_testweb::LONG_VALIDATOR_OCTETS);
}

#[tokio::test]
async fn the_huge_page_is_100_mib_streamed() {
    let (web, _clock, client) = start_all().await;
    let mut response = client.get(url(&web, Misbehaviour::Huge, "/big")).send().await.unwrap();
    assert_eq!(header(response.headers(), "content-length"), (100u64 << 20).to_string());
    let mut total = 0u64;
    let mut largest = 0;
    while let Some(chunk) = response.chunk().await.unwrap() {
        total += chunk.len() as u64;
        largest = largest.max(chunk.len());
    }
    assert_eq!(total, 100 << 20);
    assert!(largest <= 1 << 20, "chunks of {largest} bytes");
}

#[tokio::test]
async fn the_gzip_bomb_inflates_a_thousandfold() {
    let (web, _clock, client) = start_all().await;
    let response = client.get(url(&web, Misbehaviour::GzipBomb, "/bomb")).send().await.unwrap();
    assert_eq!(header(response.headers(), "content-encoding"), "gzip");
    assert!(header(response.headers(), "content-type").starts_with("text/html"));
    let compressed = response.bytes().await.unwrap();
    assert!(compressed.len() < (64 << 20) / 500, "{} bytes", compressed.len());
    let mut inflated = 0u64;
    let mut decoder = flate2::read::GzDecoder::new(&compressed[..]);
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        let n = decoder.read(&mut buffer).unwrap();
        if n == 0 {
            break;
        }
        inflated += n as u64;
    }
    assert_eq!(inflated, 64 << 20);
}

#[tokio::test]
async fn bad_encodings_and_wrong_types() {
    let (web, _clock, client) = start_all().await;
    let fetch = |path: &'static str| {
        let client = client.clone();
        let target = url(&web, Misbehaviour::BadEncoding, path);
        async move {
            let response = client.get(target).send().await.unwrap();
            let content_type =
                response.headers().get("content-type").map(|v| v.to_str().unwrap().to_string());
            (content_type, response.bytes().await.unwrap().to_vec())
        }
    };
    let (content_type, body) = fetch("/invalid-utf8").await;
    assert_eq!(content_type.as_deref(), Some("text/html; charset=utf-8"));
    assert!(std::str::from_utf8(&body).is_err());
    let (content_type, body) = fetch("/latin1").await;
    assert_eq!(content_type.as_deref(), Some("text/html; charset=iso-8859-1"));
    assert!(body.windows(4).any(|w| w == b"caf\xe9"));
    let (content_type, body) = fetch("/latin1-meta").await;
    assert_eq!(content_type.as_deref(), Some("text/html"));
    assert!(std::str::from_utf8(&body).is_err());
    let (content_type, body) = fetch("/html-as-png").await;
    assert_eq!(content_type.as_deref(), Some("image/png"));
    assert!(body.starts_with(b"<!DOCTYPE html>"));
    let (content_type, body) = fetch("/binary-as-html").await;
    assert_eq!(content_type.as_deref(), Some("text/html; charset=utf-8"));
    assert!(std::str::from_utf8(&body).is_err() && body.len() == 4096);
    let (content_type, _) = fetch("/no-type").await;
    assert_eq!(content_type, None);
}

#[tokio::test]
async fn broken_robots_txt() {
    let (web, _clock, client) = start_all().await;
    let impatient = |_: ()| {
        reqwest::Client::builder()
            .resolve(&Misbehaviour::RobotsTimeout.host_name(), web.address())
            .timeout(Duration::from_millis(100))
            .no_proxy()
            .build()
            .unwrap()
    };
    let error =
        impatient(()).get(url(&web, Misbehaviour::RobotsTimeout, "/robots.txt")).send().await.unwrap_err();
    assert!(error.is_timeout(), "{error:?}");
    assert_eq!(get(&client, &url(&web, Misbehaviour::RobotsTimeout, "/page/1")).await.0, 200);
    // It does answer, eventually.
    let started = Instant::now();
    assert_eq!(get(&client, &url(&web, Misbehaviour::RobotsTimeout, "/robots.txt")).await.0, 200);
    assert!(started.elapsed() >= Duration::from_millis(500));

    assert_eq!(get(&client, &url(&web, Misbehaviour::Robots500, "/robots.txt")).await.0, 500);
    assert_eq!(get(&client, &url(&web, Misbehaviour::Robots500, "/page/1")).await.0, 200);

    // robots-costly: its rules, under RFC 9309's 500 KiB, and the long paths its pages link.
    let costly = Misbehaviour::RobotsCostly;
    let (status, _, robots) = get(&client, &url(&web, costly, "/robots.txt")).await;
    assert_eq!(status, 200);
    assert_eq!(robots, freshet_testweb::costly_robots_txt());
    assert!(robots.len() < 500 << 10 && robots.lines().count() == freshet_testweb::COSTLY_RULES + 2);
    let (status, _, root) = get(&client, &url(&web, costly, "/")).await;
    assert_eq!(status, 200);
    let paths = freshet_testweb::costly_paths(settings().costly_paths);
    assert_eq!(paths.len(), 20);
    for path in &paths {
        assert_eq!(path.len(), freshet_testweb::COSTLY_PATH_OCTETS);
        assert!(root.contains(&format!("href=\"{path}\"")), "{path}");
    }
    assert_eq!(get(&client, &url(&web, costly, &paths[7])).await.0, 200);
    assert_eq!(get(&client, &url(&web, costly, "/long/7/a")).await.0, 404);
}

#[tokio::test]
async fn shutdown_ends_hanging_responses() {
    let config = ServerConfig {
        misbehave: vec![Misbehaviour::RobotsTimeout],
        settings: MisbehaviourSettings { robots_hang: Duration::from_secs(3600), ..settings() },
        ..ServerConfig::default()
    };
    let (web, _clock) = start(config).await;
    let client = client(&web);
    let hanging = tokio::spawn(client.get(url(&web, Misbehaviour::RobotsTimeout, "/robots.txt")).send());
    tokio::time::sleep(Duration::from_millis(100)).await;
    let started = Instant::now();
    web.shutdown().await.unwrap();
    // Against the hour the response would hang: a bound with a loaded machine's margin.
    assert!(started.elapsed() < Duration::from_secs(20), "shutdown took {:?}", started.elapsed());
    let _ = hanging.await.unwrap();
}
