//! The fetcher against servers on 127.0.0.1: testweb's misbehaving hosts, and small axum
//! fixtures for what testweb does not do (conditional GET by hand, gzip pages, redirects
//! without Location, bodies without Content-Length).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use axum::body::Body;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use freshet_fetch::links::{CharsetSource, LinkOptions, extract_links};
use freshet_fetch::{
    FetchConfig, FetchError, Fetcher, Outcome, RedirectStop, SizeStage, TimeoutPhase, Truncated, Validators,
};
use freshet_testweb::{ManualClock, Misbehaviour, MisbehaviourSettings, ServerConfig, TestWeb, WebConfig};
use freshet_url::{AddressClass, Url};

const LOCALHOST: IpAddr = IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);

fn settings() -> MisbehaviourSettings {
    MisbehaviourSettings {
        // Seconds, so that a timeout's bound below leaves a loaded machine a margin.
        slow_delay: Duration::from_secs(5),
        slow_body_chunks: 4,
        slow_body_interval: Duration::from_millis(250),
        rate_limit_interval: Duration::from_secs(10),
        error_period: Duration::from_secs(20),
        error_burst: Duration::from_secs(5),
        huge_bytes: 100 << 20,
        bomb_bytes: 64 << 20,
        robots_hang: Duration::from_millis(500),
        costly_paths: 20,
    }
}

async fn testweb() -> TestWeb {
    let config = ServerConfig {
        web: WebConfig { hosts: 2, pages: 20, ..WebConfig::default() },
        misbehave: Misbehaviour::ALL.to_vec(),
        settings: settings(),
        ..ServerConfig::default()
    };
    let clock = Arc::new(ManualClock::new(SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000)));
    TestWeb::start("127.0.0.1:0".parse().unwrap(), config, clock).await.unwrap()
}

/// A fetcher that sends every host of `web` to 127.0.0.1, private addresses allowed.
fn fetcher(web: &TestWeb, tune: impl FnOnce(&mut FetchConfig)) -> Fetcher {
    let mut config = FetchConfig {
        allow_private: true,
        resolve: web.host_names().into_iter().map(|host| (host, LOCALHOST)).collect(),
        max_body_bytes: 1 << 20,
        first_byte_timeout: Duration::from_secs(5),
        total_timeout: Duration::from_secs(10),
        ..FetchConfig::default()
    };
    tune(&mut config);
    Fetcher::new(config).unwrap()
}

fn url(web: &TestWeb, kind: Misbehaviour, path: &str) -> Url {
    freshet_url::canonicalize(&web.url(&kind.host_name(), path)).unwrap()
}

#[tokio::test]
async fn an_ordinary_page_is_fetched_whole_with_fingerprint_address_and_links() {
    let web = testweb().await;
    let fetcher = fetcher(&web, |_| {});
    let page = freshet_url::canonicalize(&web.url("h0.web.test", "/")).unwrap();
    let fetch = fetcher.fetch(&page, &Validators::default()).await.unwrap();
    assert_eq!(fetch.outcome, Outcome::Ok { status: 200 });
    assert_eq!(fetch.remote, Some(SocketAddr::new(LOCALHOST, web.port())));
    let content = fetch.content.clone().unwrap();
    assert_eq!(content, fetch.transfer_body);
    assert_eq!(fetch.fingerprint, Some(xxhash_rust::xxh3::xxh3_128(&content)));
    assert!(fetch.timings.first_byte.unwrap() <= fetch.timings.total);
    let head = fetch.response.as_ref().unwrap();
    let found = extract_links(&page, head.header("content-type"), &content, &LinkOptions::default());
    assert!(found.links.iter().any(|link| link.url == url(&web, Misbehaviour::Huge, "/")), "{found:?}");
    // Same page again, same fingerprint; the user agent reached the server.
    let again = fetcher.fetch(&page, &Validators::default()).await.unwrap();
    assert_eq!(again.fingerprint, fetch.fingerprint);
}

#[tokio::test]
async fn loopback_is_refused_by_default_before_any_connection() {
    let web = testweb().await;
    let strict = fetcher(&web, |config| config.allow_private = false);
    let fetch = strict.fetch(&url(&web, Misbehaviour::Huge, "/"), &Validators::default()).await.unwrap();
    match &fetch.outcome {
        Outcome::AddressRefused { host, addresses } => {
            assert_eq!(host, "huge.web.test");
            assert_eq!(addresses, &[(LOCALHOST, AddressClass::Loopback)]);
        }
        other => panic!("{other:?}"),
    }
    assert!(fetch.response.is_none() && fetch.remote.is_none());
    // An IP literal is checked too (reqwest never asks a resolver about one).
    let literal = freshet_url::canonicalize(&format!("http://127.0.0.1:{}/", web.port())).unwrap();
    let fetch = strict.fetch(&literal, &Validators::default()).await.unwrap();
    assert!(matches!(fetch.outcome, Outcome::AddressRefused { .. }), "{:?}", fetch.outcome);
    // And `localhost` through the system resolver.
    let name = freshet_url::canonicalize(&format!("http://localhost:{}/", web.port())).unwrap();
    let fetch = strict.fetch(&name, &Validators::default()).await.unwrap();
    assert!(matches!(fetch.outcome, Outcome::AddressRefused { .. }), "{:?}", fetch.outcome);
    assert!(web.log().entries().is_empty(), "the server saw a request");
    // allow_private opts in.
    let open = fetcher(&web, |_| {});
    let fetch = open.fetch(&literal, &Validators::default()).await.unwrap();
    // The request reached the server, which serves no host named `127.0.0.1`.
    assert_eq!(fetch.outcome, Outcome::ClientError { status: 404 });
    assert_eq!(web.log().entries().len(), 1);
}

#[tokio::test]
async fn a_slow_host_times_out_waiting_for_the_head() {
    let web = testweb().await;
    let fetcher = fetcher(&web, |config| config.first_byte_timeout = Duration::from_millis(150));
    let fetch =
        fetcher.fetch(&url(&web, Misbehaviour::Slow, "/page/1"), &Validators::default()).await.unwrap();
    assert_eq!(fetch.outcome, Outcome::Timeout { phase: TimeoutPhase::FirstByte });
    assert!(fetch.timings.total < Duration::from_secs(3), "{:?}", fetch.timings);
}

#[tokio::test]
async fn a_slow_body_hits_the_total_limit_and_keeps_what_came() {
    let web = testweb().await;
    let fetcher = fetcher(&web, |config| config.total_timeout = Duration::from_millis(400));
    let fetch =
        fetcher.fetch(&url(&web, Misbehaviour::SlowBody, "/page/1"), &Validators::default()).await.unwrap();
    assert_eq!(fetch.outcome, Outcome::Timeout { phase: TimeoutPhase::Body });
    assert_eq!(fetch.truncated, Some(Truncated::Time));
    assert!(
        !fetch.transfer_body.is_empty() && fetch.transfer_body.len() < 2048,
        "{}",
        fetch.transfer_body.len()
    );
    assert_eq!(fetch.fingerprint, None);
}

#[tokio::test]
async fn rate_limits_and_server_errors_parse_retry_after() {
    let web = testweb().await;
    let fetcher = fetcher(&web, |_| {});
    let page = url(&web, Misbehaviour::RateLimit, "/page/1");
    assert_eq!(
        fetcher.fetch(&page, &Validators::default()).await.unwrap().outcome,
        Outcome::Ok { status: 200 }
    );
    let fetch = fetcher.fetch(&page, &Validators::default()).await.unwrap();
    assert_eq!(fetch.outcome, Outcome::Throttled { status: 429, retry_after: Some(Duration::from_secs(10)) });

    let page = url(&web, Misbehaviour::ServerErrors, "/page/2");
    let mut outcomes = Vec::new();
    for _ in 0..3 {
        outcomes.push(fetcher.fetch(&page, &Validators::default()).await.unwrap().outcome);
    }
    assert!(outcomes.contains(&Outcome::ServerError { status: 500 }), "{outcomes:?}");
    assert!(outcomes.contains(&Outcome::ServerError { status: 502 }), "{outcomes:?}");
    assert!(
        outcomes.contains(&Outcome::Throttled { status: 503, retry_after: Some(Duration::from_secs(5)) }),
        "{outcomes:?}"
    );
}

#[tokio::test]
async fn a_reset_connection_is_an_outcome() {
    let web = testweb().await;
    let fetcher = fetcher(&web, |_| {});
    let fetch =
        fetcher.fetch(&url(&web, Misbehaviour::Reset, "/page/1"), &Validators::default()).await.unwrap();
    assert_eq!(fetch.outcome, Outcome::ConnectionReset);
    let fetch = fetcher.fetch(&url(&web, Misbehaviour::Reset, "/"), &Validators::default()).await.unwrap();
    assert_eq!(fetch.outcome, Outcome::Ok { status: 200 });
}

#[tokio::test]
async fn redirect_loops_self_redirects_and_endless_chains_stop() {
    let web = testweb().await;
    let fetcher = fetcher(&web, |config| config.max_redirects = 4);
    let at = |path| url(&web, Misbehaviour::RedirectLoop, path);

    let followed = fetcher.fetch_following(&at("/loop/a"), &Validators::default(), |_| true).await.unwrap();
    assert_eq!(followed.hops.len(), 2);
    assert_eq!(followed.hops[0].outcome, Outcome::Redirect { status: 302, location: at("/loop/b") });
    assert_eq!(followed.stopped, Some(RedirectStop::Loop { url: at("/loop/a") }));

    let followed = fetcher.fetch_following(&at("/self"), &Validators::default(), |_| true).await.unwrap();
    assert_eq!(followed.hops.len(), 1);
    assert_eq!(followed.stopped, Some(RedirectStop::Loop { url: at("/self") }));

    let followed = fetcher.fetch_following(&at("/chain/0"), &Validators::default(), |_| true).await.unwrap();
    assert_eq!(followed.hops.len(), 5);
    assert_eq!(followed.stopped, Some(RedirectStop::TooManyHops { max_hops: 4 }));

    let followed = fetcher.fetch_following(&at("/chain/0"), &Validators::default(), |_| false).await.unwrap();
    assert_eq!(followed.hops.len(), 1);
    assert_eq!(followed.stopped, Some(RedirectStop::Refused { url: at("/chain/1") }));
}

#[tokio::test]
async fn a_huge_page_is_refused_by_its_declared_length() {
    let web = testweb().await;
    let fetcher = fetcher(&web, |_| {});
    let fetch = fetcher.fetch(&url(&web, Misbehaviour::Huge, "/big"), &Validators::default()).await.unwrap();
    assert_eq!(fetch.outcome, Outcome::TooLarge { limit: 1 << 20, stage: SizeStage::Declared });
    assert_eq!(fetch.truncated, Some(Truncated::Length));
    assert!(fetch.transfer_body.is_empty());
}

#[tokio::test]
async fn the_gzip_bomb_stops_at_the_cap_of_decoded_bytes() {
    let web = testweb().await;
    let fetcher = fetcher(&web, |_| {});
    let fetch =
        fetcher.fetch(&url(&web, Misbehaviour::GzipBomb, "/bomb"), &Validators::default()).await.unwrap();
    assert_eq!(fetch.outcome, Outcome::TooLarge { limit: 1 << 20, stage: SizeStage::Decoded });
    assert_eq!(fetch.content.as_ref().unwrap().len(), 1 << 20);
    // Only the first few KiB of the ~64 KiB coded stream were needed to pass the cap.
    assert!(fetch.transfer_body.len() < 64 << 10, "{}", fetch.transfer_body.len());
    assert_eq!(&fetch.transfer_body[..2], b"\x1f\x8b");
}

#[tokio::test]
async fn bad_encodings_are_fetched_verbatim_and_decoded_by_their_charset() {
    let web = testweb().await;
    let fetcher = fetcher(&web, |_| {});
    let read = |path: &'static str| {
        let fetcher = fetcher.clone();
        let page = url(&web, Misbehaviour::BadEncoding, path);
        async move {
            let fetch = fetcher.fetch(&page, &Validators::default()).await.unwrap();
            assert_eq!(fetch.outcome, Outcome::Ok { status: 200 }, "{path}");
            let head = fetch.response.as_ref().unwrap();
            extract_links(
                &page,
                head.header("content-type"),
                fetch.content.as_ref().unwrap(),
                &LinkOptions::default(),
            )
        }
    };
    let home = url(&web, Misbehaviour::BadEncoding, "/");
    let latin1 = read("/latin1").await;
    assert_eq!((latin1.encoding.name(), latin1.encoding_source), ("windows-1252", CharsetSource::HttpHeader));
    assert!(latin1.links.iter().any(|link| link.url == home));
    let meta = read("/latin1-meta").await;
    assert_eq!((meta.encoding.name(), meta.encoding_source), ("windows-1252", CharsetSource::MetaTag));
    let invalid = read("/invalid-utf8").await;
    assert_eq!(invalid.encoding_source, CharsetSource::HttpHeader);
    assert!(invalid.links.iter().any(|link| link.url == home));
    let binary = read("/binary-as-html").await;
    assert_eq!(binary.parse_error, None);
}

/// An axum app on 127.0.0.1:0; returns its base URL.
async fn serve(app: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{address}")
}

fn local_fetcher(tune: impl FnOnce(&mut FetchConfig)) -> Fetcher {
    let mut config = FetchConfig { allow_private: true, max_body_bytes: 64 << 10, ..FetchConfig::default() };
    tune(&mut config);
    Fetcher::new(config).unwrap()
}

const ETAG: &str = "\"v1\"";
const LAST_MODIFIED: &str = "Tue, 14 Nov 2023 22:13:20 GMT";

async fn conditional(headers: HeaderMap) -> Response {
    let matches = headers.get(header::IF_NONE_MATCH).is_some_and(|v| v == ETAG)
        || headers.get(header::IF_MODIFIED_SINCE).is_some_and(|v| v == LAST_MODIFIED);
    let validators = [(header::ETAG, ETAG), (header::LAST_MODIFIED, LAST_MODIFIED)];
    if matches {
        (StatusCode::NOT_MODIFIED, validators).into_response()
    } else {
        (validators, "<p>the page</p>").into_response()
    }
}

#[tokio::test]
async fn conditional_get_with_stored_validators_is_not_modified_and_the_user_agent_is_sent() {
    let user_agent = |headers: HeaderMap| async move { headers[header::USER_AGENT].as_bytes().to_vec() };
    let app = axum::Router::new().route("/", get(conditional)).route("/ua", get(user_agent));
    let base = serve(app).await;
    let fetcher = local_fetcher(|config| config.user_agent = "freshet-test/1.0 (+http://a.test/bot)".into());
    let echo_url = freshet_url::canonicalize(&format!("{base}/ua")).unwrap();
    let echo = fetcher.fetch(&echo_url, &Validators::default()).await.unwrap();
    assert_eq!(echo.content.as_deref(), Some(&b"freshet-test/1.0 (+http://a.test/bot)"[..]));
    let page = freshet_url::canonicalize(&base).unwrap();
    let first = fetcher.fetch(&page, &Validators::default()).await.unwrap();
    assert_eq!(first.outcome, Outcome::Ok { status: 200 });
    let stored = Validators::from_headers(&first.response.as_ref().unwrap().headers);
    assert_eq!(stored, Validators { etag: Some(ETAG.into()), last_modified: Some(LAST_MODIFIED.into()) });
    let again = fetcher.fetch(&page, &stored).await.unwrap();
    assert_eq!(again.outcome, Outcome::NotModified);
    assert!(again.transfer_body.is_empty());
    assert!(again.request_headers.contains(&("if-none-match".into(), ETAG.into())));
    // Either validator alone does it.
    let by_date = Validators { etag: None, last_modified: Some(LAST_MODIFIED.into()) };
    assert_eq!(fetcher.fetch(&page, &by_date).await.unwrap().outcome, Outcome::NotModified);
}

fn gzip(data: &[u8]) -> Vec<u8> {
    use std::io::Write as _;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(data).unwrap();
    encoder.finish().unwrap()
}

#[tokio::test]
async fn a_gzip_page_is_stored_coded_and_read_decoded() {
    let html = "<a href=/next>next</a>".repeat(100);
    let coded = gzip(html.as_bytes());
    let app = axum::Router::new().route(
        "/",
        get(move || {
            let coded = coded.clone();
            async move { ([(header::CONTENT_ENCODING, "gzip"), (header::CONTENT_TYPE, "text/html")], coded) }
        }),
    );
    let base = serve(app).await;
    let fetch =
        local_fetcher(|_| {}).fetch(&freshet_url::canonicalize(&base).unwrap(), &Validators::default()).await;
    let fetch = fetch.unwrap();
    assert_eq!(fetch.outcome, Outcome::Ok { status: 200 });
    assert_eq!(fetch.content.as_deref(), Some(html.as_bytes()));
    assert_eq!(fetch.transfer_body, gzip(html.as_bytes()));
    assert_eq!(fetch.fingerprint, Some(xxhash_rust::xxh3::xxh3_128(html.as_bytes())));
    let message = fetch.response_message().unwrap();
    let text = String::from_utf8_lossy(&message);
    assert!(text.starts_with("HTTP/1.1 200 OK\r\n"), "{text}");
    assert!(text.contains("content-encoding: gzip\r\n"), "{text}");
    assert!(message.ends_with(&fetch.transfer_body));
    let request = String::from_utf8(fetch.request_message()).unwrap();
    assert!(request.starts_with("GET / HTTP/1.1\r\nhost: 127.0.0.1:"), "{request}");
    assert!(request.contains("accept-encoding: gzip, deflate, br\r\n"), "{request}");
}

#[tokio::test]
async fn a_body_without_length_is_cut_at_the_cap() {
    let app = axum::Router::new().route(
        "/stream",
        get(|| async {
            let chunks = (0..100).map(|_| Ok::<_, std::io::Error>(vec![b'x'; 8192]));
            Body::from_stream(futures_util::stream::iter(chunks))
        }),
    );
    let base = serve(app).await;
    let page = freshet_url::canonicalize(&format!("{base}/stream")).unwrap();
    let fetch = local_fetcher(|_| {}).fetch(&page, &Validators::default()).await.unwrap();
    assert_eq!(fetch.outcome, Outcome::TooLarge { limit: 64 << 10, stage: SizeStage::Transfer });
    assert_eq!(fetch.transfer_body.len(), 64 << 10);
    assert_eq!(fetch.truncated, Some(Truncated::Length));
}

#[tokio::test]
async fn redirects_resolve_relative_locations_and_flag_missing_ones() {
    let app = axum::Router::new()
        .route(
            "/old",
            get(|| async { (StatusCode::MOVED_PERMANENTLY, [(header::LOCATION, "new/../new?#x")]) }),
        )
        .route("/nowhere", get(|| async { StatusCode::FOUND }))
        .route("/mail", get(|| async { (StatusCode::FOUND, [(header::LOCATION, "mailto:a@b.test")]) }));
    let base = serve(app).await;
    let fetcher = local_fetcher(|_| {});
    let at = |path: &str| freshet_url::canonicalize(&format!("{base}{path}")).unwrap();
    let fetch = fetcher.fetch(&at("/old"), &Validators::default()).await.unwrap();
    assert_eq!(fetch.outcome, Outcome::Redirect { status: 301, location: at("/new") });
    let fetch = fetcher.fetch(&at("/nowhere"), &Validators::default()).await.unwrap();
    assert_eq!(fetch.outcome, Outcome::BadRedirect { status: 302, location: None });
    let fetch = fetcher.fetch(&at("/mail"), &Validators::default()).await.unwrap();
    assert_eq!(fetch.outcome, Outcome::BadRedirect { status: 302, location: Some("mailto:a@b.test".into()) });
}

#[tokio::test]
async fn a_closed_port_is_connection_refused_and_misuse_is_an_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let fetcher = local_fetcher(|_| {});
    let page = freshet_url::canonicalize(&format!("http://127.0.0.1:{port}/")).unwrap();
    assert_eq!(
        fetcher.fetch(&page, &Validators::default()).await.unwrap().outcome,
        Outcome::ConnectionRefused
    );
    let ftp = Url::parse("ftp://a.test/").unwrap();
    assert!(matches!(
        fetcher.fetch(&ftp, &Validators::default()).await,
        Err(FetchError::UnsupportedUrl { .. })
    ));
}

#[tokio::test]
async fn an_unwanted_content_type_is_not_downloaded_but_robots_and_sitemaps_are_not_filtered() {
    let pdf = || async { ([(header::CONTENT_TYPE, "application/pdf")], vec![b'%'; 512 << 10]) };
    let html = || async { ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], "<p>a page</p>") };
    let missing = || async { Response::new(Body::from("<p>no type</p>")) };
    let gone = || async { (StatusCode::NOT_FOUND, [(header::CONTENT_TYPE, "application/pdf")], "gone") };
    let app = axum::Router::new()
        .route("/file.pdf", get(pdf))
        .route("/page", get(html))
        .route("/untyped", get(missing))
        .route("/gone.pdf", get(gone));
    let base = serve(app).await;
    let fetcher = local_fetcher(|config| {
        config.max_body_bytes = 1 << 20;
        config.content_types = freshet_fetch::ContentTypes::parse(["text/html"]).unwrap();
    });
    let at = |path: &str| freshet_url::canonicalize(&format!("{base}{path}")).unwrap();
    let file = fetcher.fetch_page(&at("/file.pdf"), &Validators::default()).await.unwrap();
    assert_eq!(
        file.outcome,
        Outcome::UnwantedContentType { status: 200, content_type: "application/pdf".into() }
    );
    assert_eq!(file.outcome.name(), "unwanted-content-type");
    assert!(file.transfer_body.is_empty() && file.content.is_none() && file.fingerprint.is_none());
    assert_eq!(file.response.as_ref().unwrap().status, 200);
    // The filter is for pages: the same URL through `fetch` (robots.txt, sitemaps) is read.
    let whole = fetcher.fetch(&at("/file.pdf"), &Validators::default()).await.unwrap();
    assert_eq!((whole.outcome, whole.transfer_body.len()), (Outcome::Ok { status: 200 }, 512 << 10));
    // Wanted, untyped (sniffed as HTML), and not 2xx (the status says what happened) all pass.
    for (path, outcome) in [
        ("/page", Outcome::Ok { status: 200 }),
        ("/untyped", Outcome::Ok { status: 200 }),
        ("/gone.pdf", Outcome::ClientError { status: 404 }),
    ] {
        assert_eq!(
            fetcher.fetch_page(&at(path), &Validators::default()).await.unwrap().outcome,
            outcome,
            "{path}"
        );
    }
}

/// The most requests a server saw at once, over `hosts` names that all resolve to 127.0.0.1,
/// when 12 are sent together.
async fn most_at_once(limit: Option<usize>) -> usize {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let now = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let app = axum::Router::new().route(
        "/slow",
        get({
            let (now, most) = (Arc::clone(&now), Arc::clone(&most));
            move || async move {
                let current = now.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(current, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(150)).await;
                now.fetch_sub(1, Ordering::SeqCst);
                "slow"
            }
        }),
    );
    let base = serve(app).await;
    let port = base.rsplit(':').next().unwrap().to_owned();
    let hosts: Vec<String> = (0..6).map(|index| format!("site{index}.test")).collect();
    let fetcher = local_fetcher(|config| {
        config.max_in_flight_per_ip = limit;
        config.resolve = hosts.iter().map(|host| (host.clone(), LOCALHOST)).collect();
    });
    let mut requests = tokio::task::JoinSet::new();
    for index in 0..12 {
        let fetcher = fetcher.clone();
        let url = freshet_url::canonicalize(&format!("http://{}:{port}/slow", hosts[index % 6])).unwrap();
        requests.spawn(async move { fetcher.fetch(&url, &Validators::default()).await.unwrap().outcome });
    }
    while let Some(outcome) = requests.join_next().await {
        assert_eq!(outcome.unwrap(), Outcome::Ok { status: 200 });
    }
    most.load(Ordering::SeqCst)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_to_one_address_are_limited_over_all_its_host_names() {
    assert_eq!(most_at_once(Some(2)).await, 2);
    // Without the limit the same requests overlap more (so the check above could fail).
    assert!(most_at_once(None).await > 2);
}

/// The client ports of the requests a server saw, in order (one port per connection), and
/// the server's base URL.
async fn serve_recording_peers() -> (String, Arc<std::sync::Mutex<Vec<u16>>>) {
    use axum::extract::ConnectInfo;
    let peers = Arc::new(std::sync::Mutex::new(Vec::new()));
    let app = axum::Router::new().route(
        "/",
        get({
            let peers = Arc::clone(&peers);
            move |ConnectInfo(peer): ConnectInfo<SocketAddr>| async move {
                peers.lock().unwrap().push(peer.port());
                "<p>the page</p>"
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, app.into_make_service_with_connect_info::<SocketAddr>()).await.unwrap();
    });
    (format!("http://{address}/"), peers)
}

/// A connection is kept for the host's next request only for `idle_timeout`: reused within
/// it, closed after it (a crawl of many hosts would otherwise hold a socket per host), and
/// never kept with a zero timeout.
#[tokio::test]
async fn connections_are_kept_for_the_idle_timeout_and_no_longer() {
    let (base, peers) = serve_recording_peers().await;
    let page = freshet_url::canonicalize(&base).unwrap();
    let fetcher = local_fetcher(|config| config.idle_timeout = Duration::from_millis(400));
    let fetch = || async { fetcher.fetch(&page, &Validators::default()).await.unwrap().outcome };
    assert_eq!(fetch().await, Outcome::Ok { status: 200 });
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(fetch().await, Outcome::Ok { status: 200 });
    tokio::time::sleep(Duration::from_millis(1_200)).await;
    assert_eq!(fetch().await, Outcome::Ok { status: 200 });
    let seen = peers.lock().unwrap().clone();
    assert_eq!(seen.len(), 3);
    assert_eq!(seen[0], seen[1], "reused within the timeout: {seen:?}");
    assert_ne!(seen[1], seen[2], "closed after it: {seen:?}");

    let (base, peers) = serve_recording_peers().await;
    let page = freshet_url::canonicalize(&base).unwrap();
    let fetcher = local_fetcher(|config| config.idle_timeout = Duration::ZERO);
    for _ in 0..2 {
        let fetch = fetcher.fetch(&page, &Validators::default()).await.unwrap();
        assert_eq!(fetch.outcome, Outcome::Ok { status: 200 });
    }
    let seen = peers.lock().unwrap().clone();
    assert_ne!(seen[0], seen[1], "a zero timeout keeps nothing: {seen:?}");
}
