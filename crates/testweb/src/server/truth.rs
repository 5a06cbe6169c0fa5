//! Ground truth and the request log, on reserved paths answered for any Host.
//!
//! * `GET /_truth/clock`: `{now, now_unix, origin_unix, time_scale, time_unit}`; model time is
//!   in days, `unix = origin_unix + t / time_scale`.
//! * `GET /_truth/pages`: the clock fields plus `pages`: one object per page (`id`, `url`,
//!   `host`, `path`, `allowed`, `importance`, `process` with its `kind` and parameters,
//!   `mean_rate`, `out_links`, `topic_score`: how many times the page's text says the topic
//!   word, 0 off topic) and `misbehaving` (`host`, `kind`).
//! * `GET /_truth/page?url=URL[&until=T]`: that page's change times in `(0, until]` (default:
//!   now) in model time (`changes`) and Unix seconds (`changes_unix`), its `version` at `until`
//!   and that version's `etag`. A crawl log entry (URL, fetch time) is fresh at time `s` iff
//!   no change falls in `(fetch, s]`: exact freshness needs nothing more.
//! * `GET /_truth/changes[?until=T]`: JSON lines, `{id, url, changes}` for every page.
//! * `GET /_log[?since=N]`: the request log from entry `N` on, as a JSON array.
//!
//! Times are written as the shortest decimal that reads back to the same `f64`; a correctly
//! rounding parser (serde_json with its `float_roundtrip` feature, Python's `json`) gets the
//! model's change times bit for bit, so versions computed from them agree with the server's.

use std::fmt::Write as _;
use std::sync::Arc;

use axum::extract::{Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use freshet_sim::ChangeProcess;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::AppState;
use crate::clock::unix_seconds;
use crate::web::Web;

/// A change process as JSON: `{"kind": "poisson", "rate": …}` and so on.
#[derive(Debug, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum ProcessJson {
    Poisson { rate: f64 },
    Periodic { rate: f64, jitter: f64 },
    Bursty { rate: f64, mean_on: f64, mean_off: f64 },
}

impl From<ChangeProcess> for ProcessJson {
    fn from(process: ChangeProcess) -> Self {
        match process {
            ChangeProcess::Poisson { rate } => Self::Poisson { rate },
            ChangeProcess::Periodic { rate, jitter } => Self::Periodic { rate, jitter },
            ChangeProcess::Bursty { rate, mean_on, mean_off } => Self::Bursty { rate, mean_on, mean_off },
        }
    }
}

#[derive(Debug, Serialize)]
struct PageJson {
    id: u32,
    url: String,
    host: String,
    path: String,
    allowed: bool,
    importance: f64,
    process: ProcessJson,
    mean_rate: f64,
    out_links: usize,
    topic_score: u32,
}

fn page_json(state: &AppState, id: u32) -> Option<PageJson> {
    let page = state.web.page(id)?;
    Some(PageJson {
        id,
        url: state.web.url(id, state.port),
        host: Web::host_name(page.host),
        path: state.web.path(id),
        allowed: page.allowed,
        importance: page.importance,
        process: page.process.into(),
        mean_rate: page.process.mean_rate(),
        out_links: state.web.links(id).len(),
        topic_score: page.topic_score,
    })
}

fn json_response(value: &impl Serialize) -> Response {
    match serde_json::to_string(value) {
        Ok(body) => {
            ([(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], body).into_response()
        }
        Err(error) => (StatusCode::INTERNAL_SERVER_ERROR, error.to_string()).into_response(),
    }
}

fn clock_json(state: &AppState) -> serde_json::Value {
    let now = state.clock.now();
    json!({
        "now": state.time.model_time(now),
        "now_unix": unix_seconds(now),
        "origin_unix": unix_seconds(state.time.origin),
        "time_scale": state.time.scale,
        "time_unit": "day",
    })
}

/// `/_truth/clock`.
pub(super) async fn clock(State(state): State<Arc<AppState>>) -> Response {
    json_response(&clock_json(&state))
}

/// `/_truth/pages`.
pub(super) async fn pages(State(state): State<Arc<AppState>>) -> Response {
    let mut body = clock_json(&state);
    let pages: Vec<PageJson> = (0..state.web.page_count()).filter_map(|id| page_json(&state, id)).collect();
    let misbehaving: Vec<_> =
        state.misbehave.iter().map(|kind| json!({"host": kind.host_name(), "kind": kind.name()})).collect();
    body["seed"] = json!(state.web.config().seed);
    body["hosts"] = json!(state.web.host_count());
    body["pages"] = json!(pages);
    body["misbehaving"] = json!(misbehaving);
    json_response(&body)
}

/// Query of `/_truth/page`.
#[derive(Debug, Deserialize)]
pub(super) struct PageQuery {
    url: Option<String>,
    until: Option<f64>,
}

/// The page a URL names: `http://HOST[:PORT]/PATH`, query and fragment ignored.
fn page_of_url(web: &Web, url: &str) -> Option<u32> {
    let rest = url.strip_prefix("http://").or_else(|| url.strip_prefix("https://"))?;
    let (authority, path) = rest.find('/').map_or((rest, "/"), |slash| rest.split_at(slash));
    let path = path.split(['?', '#']).next().unwrap_or("/");
    let host = authority.rsplit_once(':').map_or(authority, |(host, _)| host);
    web.lookup(web.host_index(host)?, path)
}

/// `/_truth/page?url=…&until=…`.
pub(super) async fn page(State(state): State<Arc<AppState>>, Query(query): Query<PageQuery>) -> Response {
    let Some(url) = query.url else {
        return (StatusCode::BAD_REQUEST, "missing ?url=\n").into_response();
    };
    let Some(id) = page_of_url(&state.web, &url) else {
        return (StatusCode::NOT_FOUND, format!("no page at {url:?}\n")).into_response();
    };
    let until = query.until.unwrap_or_else(|| state.time.model_time(state.clock.now()));
    let changes = state.web.changes(id).times_until(until);
    let changes_unix: Vec<f64> = changes.iter().map(|&t| state.time.unix_seconds(t)).collect();
    let version = changes.len() as u64;
    let mut body = json!(page_json(&state, id));
    body["until"] = json!(until);
    body["version"] = json!(version);
    body["etag"] = json!(state.web.etag(id, version));
    body["changes"] = json!(changes);
    body["changes_unix"] = json!(changes_unix);
    json_response(&body)
}

/// Query of `/_truth/changes`.
#[derive(Debug, Deserialize)]
pub(super) struct ChangesQuery {
    until: Option<f64>,
}

/// `/_truth/changes?until=…`.
pub(super) async fn changes(
    State(state): State<Arc<AppState>>,
    Query(query): Query<ChangesQuery>,
) -> Response {
    let until = query.until.unwrap_or_else(|| state.time.model_time(state.clock.now()));
    let mut body = String::new();
    for id in 0..state.web.page_count() {
        let line = json!({
            "id": id,
            "url": state.web.url(id, state.port),
            "changes": state.web.changes(id).times_until(until),
        });
        let _ = writeln!(body, "{line}");
    }
    ([(header::CONTENT_TYPE, HeaderValue::from_static("application/x-ndjson"))], body).into_response()
}

/// Query of `/_log`.
#[derive(Debug, Deserialize)]
pub(super) struct LogQuery {
    since: Option<u64>,
}

/// `/_log?since=…`.
pub(super) async fn log(State(state): State<Arc<AppState>>, Query(query): Query<LogQuery>) -> Response {
    json_response(&state.log.since(query.since.unwrap_or(0)))
}
