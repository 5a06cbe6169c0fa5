//! The server: one port on 127.0.0.1, virtual hosts by the Host header, the model's pages at
//! the clock's model time, ground truth, the request log and the misbehaving hosts.
//!
//! Thin by design: every answer about the web comes from the pure model ([`Web`],
//! [`crate::render`]); this module only reads the clock, maps it to model time and writes HTTP.

mod listener;
mod misbehaving;
mod pages;
mod truth;

use std::net::SocketAddr;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use axum::Router;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use bytes::Bytes;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::changes::VersionCursor;
use crate::clock::{Clock, TimeMap, unix_seconds};
use crate::error::{Result, TestwebError};
use crate::log::{LogEntry, RequestLog};
use crate::misbehave::{Misbehaviour, MisbehaviourSettings};
use crate::web::{Web, WebConfig};
use listener::{ConnectionHandle, ResettableListener};

/// What to serve.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerConfig {
    /// The web.
    pub web: WebConfig,
    /// Model days per wall second; finite, `> 0`.
    pub time_scale: f64,
    /// The misbehaving hosts to add.
    pub misbehave: Vec<Misbehaviour>,
    /// Their sizes and durations.
    pub settings: MisbehaviourSettings,
    /// Whether pages carry per-request noise (ad, timestamp, session links).
    pub noise: bool,
    /// Whether pages carry `ETag` and `Last-Modified` and answer conditional GETs with 304
    /// (default). Without them a crawler must compare contents to tell a change, as on many
    /// dynamic sites.
    pub validators: bool,
    /// What the sitemaps' `<lastmod>`s say (default: none).
    pub sitemap_lastmod: SitemapLastmod,
}

/// The `<lastmod>` of each page in the sitemaps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SitemapLastmod {
    /// None (as many sites).
    #[default]
    None,
    /// The wall time of the page's latest change (model time 0, the server's start, for a page
    /// not changed since), to the millisecond: a sitemap kept as it should be.
    Exact,
    /// The time of the request for every page: a generator that stamps its own run, whose
    /// `lastmod`s say nothing.
    Now,
}

impl SitemapLastmod {
    /// The names the command line takes.
    pub const NAMES: [&'static str; 3] = ["none", "exact", "now"];

    /// The kind named `name` (one of [`NAMES`](Self::NAMES)).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "none" => Some(Self::None),
            "exact" => Some(Self::Exact),
            "now" => Some(Self::Now),
            _ => None,
        }
    }
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            web: WebConfig::default(),
            time_scale: 1.0,
            misbehave: Vec::new(),
            settings: MisbehaviourSettings::default(),
            noise: false,
            validators: true,
            sitemap_lastmod: SitemapLastmod::None,
        }
    }
}

/// Shared by every handler.
pub(crate) struct AppState {
    pub(crate) web: Web,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) time: TimeMap,
    pub(crate) port: u16,
    pub(crate) noise: bool,
    pub(crate) validators: bool,
    pub(crate) sitemap_lastmod: SitemapLastmod,
    pub(crate) misbehave: Vec<Misbehaviour>,
    pub(crate) settings: MisbehaviourSettings,
    pub(crate) log: RequestLog,
    /// Requests served so far (noise rotates with it; 5xx cycles through codes with it).
    pub(crate) requests: AtomicU64,
    /// `rate-limit`: when the last page was let through.
    pub(crate) rate_limit_last: Mutex<Option<SystemTime>>,
    /// `gzip-bomb`: the compressed body.
    pub(crate) bomb: Bytes,
    /// Absolute URLs of the misbehaving hosts' roots, listed on `h0.web.test/`.
    pub(crate) root_links: Vec<String>,
    /// `robots-costly`: its long paths (made once: a thousand of 2,000 octets each by default;
    /// empty without that kind).
    pub(crate) costly_paths: Vec<String>,
    pub(crate) shutdown: watch::Receiver<bool>,
    /// Per page, where the walk through its change times stopped (filled on first request), so
    /// that answering at an ever later time costs O(1) per request rather than O(λt).
    pub(crate) cursors: Vec<Mutex<Option<Box<VersionCursor>>>>,
}

impl AppState {
    /// Page `id`'s version at model time `t` and the time of its change, through its cursor.
    pub(crate) fn version_at(&self, id: u32, t: f64) -> (u64, Option<f64>) {
        let Some(slot) = self.cursors.get(id as usize) else { return (0, None) };
        let mut cursor = slot.lock().unwrap_or_else(PoisonError::into_inner);
        cursor.get_or_insert_with(|| Box::new(VersionCursor::new(self.web.changes(id)))).version_at(t)
    }

    /// Sleeps for `duration`, or less if the server is shutting down.
    pub(crate) async fn sleep(&self, duration: Duration) {
        let mut shutdown = self.shutdown.clone();
        tokio::select! {
            () = tokio::time::sleep(duration) => {}
            _ = shutdown.wait_for(|&stop| stop) => {}
        }
    }
}

/// A handler's answer: the response, and what to do before sending it.
pub(crate) struct Reply {
    pub(crate) response: Response,
    /// Wait this long before sending the head.
    pub(crate) delay: Option<Duration>,
    /// Reset the connection instead of answering.
    pub(crate) reset: bool,
}

impl Reply {
    pub(crate) fn new(response: Response) -> Self {
        Self { response, delay: None, reset: false }
    }
}

/// A running test web.
pub struct TestWeb {
    address: SocketAddr,
    state: Arc<AppState>,
    shutdown: watch::Sender<bool>,
    task: JoinHandle<std::io::Result<()>>,
}

impl std::fmt::Debug for TestWeb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestWeb").field("address", &self.address).finish_non_exhaustive()
    }
}

impl TestWeb {
    /// Builds the web of `config` and serves it on `bind` (port 0: any free port). Model time 0
    /// is `clock.now()` at start.
    ///
    /// # Errors
    /// An invalid config, or a socket that cannot be bound.
    pub async fn start(bind: SocketAddr, config: ServerConfig, clock: Arc<dyn Clock>) -> Result<Self> {
        if !(config.time_scale.is_finite() && config.time_scale > 0.0) {
            return Err(TestwebError::InvalidConfig {
                field: "time_scale",
                value: config.time_scale.to_string(),
            });
        }
        let web = Web::new(config.web)?;
        let io_error = |source| TestwebError::Io { address: bind.to_string(), source };
        let inner = tokio::net::TcpListener::bind(bind).await.map_err(io_error)?;
        let listener = ResettableListener { inner };
        let address = listener::bound_address(&listener).map_err(io_error)?;
        let bomb = if config.misbehave.contains(&Misbehaviour::GzipBomb) {
            let size = config.settings.bomb_bytes;
            Bytes::from(
                tokio::task::spawn_blocking(move || crate::bomb::gzip_bomb(size)).await.unwrap_or_default(),
            )
        } else {
            Bytes::new()
        };
        let root_links = config
            .misbehave
            .iter()
            .map(|kind| format!("http://{}:{}/", kind.host_name(), address.port()))
            .collect();
        let costly_paths = if config.misbehave.contains(&Misbehaviour::RobotsCostly) {
            crate::misbehave::costly_paths(config.settings.costly_paths)
        } else {
            Vec::new()
        };
        let (shutdown, shutdown_rx) = watch::channel(false);
        let cursors = (0..web.page_count()).map(|_| Mutex::new(None)).collect();
        let state = Arc::new(AppState {
            web,
            time: TimeMap { origin: clock.now(), scale: config.time_scale },
            clock,
            port: address.port(),
            noise: config.noise,
            validators: config.validators,
            sitemap_lastmod: config.sitemap_lastmod,
            misbehave: config.misbehave,
            settings: config.settings,
            log: RequestLog::default(),
            requests: AtomicU64::new(0),
            rate_limit_last: Mutex::new(None),
            bomb,
            root_links,
            costly_paths,
            shutdown: shutdown_rx.clone(),
            cursors,
        });
        let app = router(Arc::clone(&state)).into_make_service_with_connect_info::<ConnectionHandle>();
        let mut stop = shutdown_rx;
        let task = tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(async move {
                    let _ = stop.wait_for(|&stop| stop).await;
                })
                .await
        });
        Ok(Self { address, state, shutdown, task })
    }

    /// The bound address.
    #[must_use]
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// The bound port (it appears in every absolute URL of the web).
    #[must_use]
    pub fn port(&self) -> u16 {
        self.address.port()
    }

    /// The model being served.
    #[must_use]
    pub fn web(&self) -> &Web {
        &self.state.web
    }

    /// The wall ↔ model time map.
    #[must_use]
    pub fn time_map(&self) -> TimeMap {
        self.state.time
    }

    /// Model time now, by the server's clock.
    #[must_use]
    pub fn model_now(&self) -> f64 {
        self.state.time.model_time(self.state.clock.now())
    }

    /// The server's request log.
    #[must_use]
    pub fn log(&self) -> &RequestLog {
        &self.state.log
    }

    /// `http://{host}:{port}{path}`.
    #[must_use]
    pub fn url(&self, host: &str, path: &str) -> String {
        format!("http://{host}:{}{path}", self.port())
    }

    /// Every host name served: the web's, then the misbehaving ones.
    #[must_use]
    pub fn host_names(&self) -> Vec<String> {
        (0..self.state.web.host_count())
            .map(Web::host_name)
            .chain(self.state.misbehave.iter().map(|kind| kind.host_name()))
            .collect()
    }

    /// Stops accepting, ends deliberate delays and slow bodies, and waits (at most two
    /// seconds) for open responses to finish.
    ///
    /// # Errors
    /// The server's socket error, if serving failed.
    pub async fn shutdown(self) -> Result<()> {
        let _ = self.shutdown.send(true);
        let abort = self.task.abort_handle();
        let address = self.address.to_string();
        match tokio::time::timeout(Duration::from_secs(2), self.task).await {
            Ok(Ok(Err(source))) => Err(TestwebError::Io { address, source }),
            Ok(_) => Ok(()),
            Err(_) => {
                abort.abort();
                Ok(())
            }
        }
    }
}

fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/_truth/clock", get(truth::clock))
        .route("/_truth/pages", get(truth::pages))
        .route("/_truth/page", get(truth::page))
        .route("/_truth/changes", get(truth::changes))
        .route("/_log", get(truth::log))
        .fallback(handle)
        .with_state(state)
}

/// The Host (or HTTP/2 authority) without port or trailing dot, lower-case.
fn request_host(headers: &HeaderMap, uri: &Uri) -> String {
    let raw = headers
        .get(header::HOST)
        .and_then(|value| value.to_str().ok())
        .or_else(|| uri.authority().map(axum::http::uri::Authority::as_str))
        .unwrap_or("");
    let without_port = match raw.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
        _ => raw,
    };
    without_port.trim_end_matches('.').to_ascii_lowercase()
}

/// Every request to a host of the web.
async fn handle(
    State(state): State<Arc<AppState>>,
    ConnectInfo(connection): ConnectInfo<ConnectionHandle>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    let now = state.clock.now();
    let model_time = state.time.model_time(now);
    let host = request_host(&headers, &uri);
    let reply = if method != Method::GET && method != Method::HEAD {
        Reply::new((StatusCode::METHOD_NOT_ALLOWED, [(header::ALLOW, "GET, HEAD")]).into_response())
    } else if let Some(index) = state.web.host_index(&host) {
        pages::respond(&state, index, &uri, &headers, now, model_time)
    } else if let Some(kind) = Misbehaviour::from_host(&host).filter(|kind| state.misbehave.contains(kind)) {
        misbehaving::respond(&state, kind, &host, &uri, now)
    } else {
        Reply::new(not_found(&format!("testweb serves no host {host:?}")))
    };
    state.log.push(LogEntry {
        seq: 0,
        unix: unix_seconds(now),
        model_time,
        method: method.to_string(),
        host,
        path: uri.path_and_query().map_or_else(|| uri.path().to_string(), ToString::to_string),
        status: if reply.reset { 0 } else { reply.response.status().as_u16() },
    });
    if reply.reset {
        connection.reset();
    }
    if let Some(delay) = reply.delay {
        state.sleep(delay).await;
    }
    reply.response
}

/// A small 404 page.
pub(crate) fn not_found(message: &str) -> Response {
    (
        StatusCode::NOT_FOUND,
        [(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"))],
        format!("{message}\n"),
    )
        .into_response()
}
