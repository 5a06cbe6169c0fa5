//! What the crawl's end-to-end tests share: a one-pass crawl of a local site, and what they
//! read back from a crawl's data directory: the crawl log,
//! the WARC files, and `warcio check` of each (an independent reader's verdict).

use std::path::{Path, PathBuf};
use std::process::Command;

use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use freshet_crawl::{CrawlConfig, CrawlSummary, Crawler, LogLine, Revisit};

/// The lines of `DIR/crawl.jsonl`.
pub(crate) fn read_log(data: &Path) -> Vec<LogLine> {
    let text = std::fs::read_to_string(data.join("crawl.jsonl")).unwrap();
    text.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

/// The files of `DIR/warc`, in name order.
pub(crate) fn warc_files(data: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(data.join("warc")).unwrap().map(|entry| entry.unwrap().path()).collect();
    files.sort();
    files
}

/// `warcio check` passes on every WARC file (truncated records included), with nothing on
/// standard error.
pub(crate) fn warcio_check(data: &Path) {
    let warcio = std::env::var_os("FRESHET_WARCIO").expect(
        "FRESHET_WARCIO is not set: run `bash scripts/test.sh` (it installs warcio into .venv-test/)",
    );
    for file in warc_files(data) {
        let output = Command::new(&warcio).arg("check").arg(&file).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success() && stderr.trim().is_empty(), "warcio check {file:?}: {stderr}");
    }
}

/// A one-pass crawl of a site on 127.0.0.1 from `seeds` (20 ms between a host's requests):
/// the setup of the tests that serve a small site of their own. (Not every test file that
/// includes this module uses it.)
#[allow(dead_code)]
pub(crate) fn one_pass_config(data: &Path, seeds: &[String]) -> CrawlConfig {
    let mut config = CrawlConfig::new(data);
    config.seeds = seeds.iter().map(|seed| freshet_url::canonicalize(seed).unwrap()).collect();
    config.delay = Duration::from_millis(20);
    config.revisit = Revisit::Once;
    config.fetch.allow_private = true;
    config.fetch.user_agent = "freshet-test/0.1".into();
    config.fetch.resolve = vec![("localhost".into(), IpAddr::V4(Ipv4Addr::LOCALHOST))];
    config
}

/// A one-pass crawl of the test web `web` from `h0.web.test/` over its domain (every name sent
/// to 127.0.0.1), `delay` between a host's requests: the setup of the tests against testweb.
#[allow(dead_code)]
pub(crate) fn testweb_config(web: &freshet_testweb::TestWeb, data: &Path, delay: Duration) -> CrawlConfig {
    let mut config = CrawlConfig::new(data);
    config.seeds = vec![freshet_url::canonicalize(&web.url("h0.web.test", "/")).unwrap()];
    config.scope = freshet_url::Scope::Domain;
    config.delay = delay;
    config.revisit = Revisit::Once;
    config.fetch.allow_private = true;
    config.fetch.user_agent = "freshet-test/0.1".into();
    config.fetch.resolve =
        web.host_names().into_iter().map(|host| (host, IpAddr::V4(Ipv4Addr::LOCALHOST))).collect();
    config
}

/// Runs a crawl for `seconds` and stops it: a revisiting crawl does not end by itself.
#[allow(dead_code)]
pub(crate) async fn crawl_for(config: CrawlConfig, seconds: f64) -> CrawlSummary {
    let stop = tokio::time::sleep(Duration::from_secs_f64(seconds));
    Crawler::open(config).unwrap().run(stop).await.unwrap()
}

/// Opens a crawl and runs it to its end.
#[allow(dead_code)]
pub(crate) async fn crawl(config: CrawlConfig) -> CrawlSummary {
    Crawler::open(config).unwrap().run(std::future::pending()).await.unwrap()
}

/// Serves `answer(site, origin, target)` for every request (`target`: its path and query), on
/// 127.0.0.1 under the name `localhost` and a free port, and returns the origin
/// (`http://localhost:PORT`).
#[allow(dead_code)]
pub(crate) async fn serve_site<S: Send + Sync + 'static>(
    site: std::sync::Arc<S>,
    answer: fn(&S, &str, &str) -> axum::response::Response,
) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://localhost:{}", listener.local_addr().unwrap().port());
    let app_origin = origin.clone();
    let app = axum::Router::new().fallback(move |uri: axum::http::Uri| {
        let (site, origin) = (std::sync::Arc::clone(&site), app_origin.clone());
        async move { answer(&site, &origin, uri.path_and_query().map_or("/", |target| target.as_str())) }
    });
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    origin
}
