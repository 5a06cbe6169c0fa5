//! The misbehaving hosts' answers (see [`crate::misbehave`] for the table of kinds).

use std::fmt::Write as _;
use std::sync::PoisonError;
use std::sync::atomic::Ordering;
use std::time::{Duration, SystemTime};

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures_util::stream;

use super::{AppState, Reply, not_found};
use crate::misbehave::Misbehaviour;

const HTML: &str = "text/html; charset=utf-8";
const SLOW_CHUNK: usize = 512;
const HUGE_CHUNK: usize = 64 * 1024;

/// Answers a request to `host`, a host of `kind`.
pub(super) fn respond(state: &AppState, kind: Misbehaviour, host: &str, uri: &Uri, now: SystemTime) -> Reply {
    let path = uri.path();
    if kind == Misbehaviour::WildcardDns {
        // Every name under the host resolves, but only `n{k}` names are hosts of the trap.
        let Some(number) = Misbehaviour::wildcard_host_number(host) else {
            return Reply::new(not_found(&format!("testweb serves no host {host:?}")));
        };
        if path == "/robots.txt" {
            return robots(state, kind);
        }
        let children =
            [number.saturating_mul(2).saturating_add(1), number.saturating_mul(2).saturating_add(2)];
        let roots = children
            .map(|child| format!("http://{}:{}/", Misbehaviour::wildcard_host_name(child), state.port))
            .to_vec();
        return ordinary_linking(kind, path, &roots);
    }
    if path == "/robots.txt" {
        return robots(state, kind);
    }
    match kind {
        Misbehaviour::Slow => Reply { delay: Some(state.settings.slow_delay), ..ordinary(kind, path) },
        Misbehaviour::SlowBody => slow_body(state, ordinary(kind, path)),
        Misbehaviour::RateLimit => rate_limit(state, kind, path, now),
        Misbehaviour::ServerErrors => server_errors(state, kind, path, now),
        Misbehaviour::Reset if path != "/" => {
            Reply { reset: true, ..Reply::new(StatusCode::OK.into_response()) }
        }
        Misbehaviour::RedirectLoop => redirect(kind, path),
        Misbehaviour::Calendar => calendar(kind, path),
        Misbehaviour::Huge if path == "/big" => huge(state.settings.huge_bytes),
        Misbehaviour::GzipBomb if path == "/bomb" => Reply::new(
            (
                [
                    (header::CONTENT_TYPE, HeaderValue::from_static(HTML)),
                    (header::CONTENT_ENCODING, HeaderValue::from_static("gzip")),
                ],
                state.bomb.clone(),
            )
                .into_response(),
        ),
        Misbehaviour::BadEncoding => bad_encoding(kind, path),
        Misbehaviour::LongFields => long_fields(state, kind, path),
        Misbehaviour::RobotsCostly => {
            let long_paths = &state.costly_paths;
            if !path.starts_with("/long/") {
                ordinary_linking(kind, path, long_paths)
            } else if long_paths.iter().any(|long| long == path) {
                let page = "<!DOCTYPE html>\n<p>A long path.</p>\n";
                Reply::new(([(header::CONTENT_TYPE, HTML)], page).into_response())
            } else {
                Reply::new(not_found("no such page"))
            }
        }
        _ => ordinary(kind, path),
    }
}

/// robots.txt: allow everything, except on the three robots kinds.
fn robots(state: &AppState, kind: Misbehaviour) -> Reply {
    let allow_all = || ([(header::CONTENT_TYPE, "text/plain")], "User-agent: *\nDisallow:\n").into_response();
    match kind {
        Misbehaviour::RobotsTimeout => {
            Reply { delay: Some(state.settings.robots_hang), ..Reply::new(allow_all()) }
        }
        Misbehaviour::Robots500 => {
            Reply::new((StatusCode::INTERNAL_SERVER_ERROR, "robots.txt broke\n").into_response())
        }
        Misbehaviour::RobotsCostly => Reply::new(
            ([(header::CONTENT_TYPE, "text/plain")], crate::misbehave::costly_robots_txt()).into_response(),
        ),
        _ => Reply::new(allow_all()),
    }
}

/// The special paths each kind links from its root (robots-costly's: [`respond`]).
fn special_paths(kind: Misbehaviour) -> &'static [&'static str] {
    match kind {
        Misbehaviour::RedirectLoop => &["/loop/a", "/self", "/chain/0"],
        Misbehaviour::Calendar => &["/cal/2026/1"],
        Misbehaviour::Huge => &["/big"],
        Misbehaviour::GzipBomb => &["/bomb"],
        Misbehaviour::BadEncoding => {
            &["/invalid-utf8", "/latin1", "/latin1-meta", "/html-as-png", "/binary-as-html", "/no-type"]
        }
        _ => &[],
    }
}

/// `/` and `/page/1…5` of a misbehaving host: static HTML linking each other; else 404.
fn ordinary(kind: Misbehaviour, path: &str) -> Reply {
    ordinary_linking(kind, path, special_paths(kind))
}

/// [`ordinary`], with `special` the special paths linked.
fn ordinary_linking(kind: Misbehaviour, path: &str, special: &[impl AsRef<str>]) -> Reply {
    let number = match path {
        "/" => 0,
        _ => match path.strip_prefix("/page/").and_then(|n| n.parse::<u32>().ok()) {
            Some(n @ 1..=5) if path == format!("/page/{n}") => n,
            _ => return Reply::new(not_found("no such page")),
        },
    };
    let mut html = format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{0} {number}</title></head>\n<body>\n\
         <h1>{0}, page {number}</h1>\n<p>A host that misbehaves: {1}.</p>\n<ul>\n",
        kind.host_name(),
        kind.name()
    );
    for href in
        special.iter().map(|href| href.as_ref().to_owned()).chain((1..=5).map(|n| format!("/page/{n}")))
    {
        let _ = writeln!(html, "<li><a href=\"{href}\">{href}</a></li>");
    }
    html.push_str("<li><a href=\"/\">home</a></li>\n</ul>\n</body>\n</html>\n");
    Reply::new(([(header::CONTENT_TYPE, HTML)], html).into_response())
}

/// Sends `reply`'s body in 512-byte chunks, one per `slow_body_interval`.
fn slow_body(state: &AppState, reply: Reply) -> Reply {
    let (parts, _) = reply.response.into_parts();
    if parts.status != StatusCode::OK {
        return Reply::new(Response::from_parts(parts, Body::empty()));
    }
    let chunks = state.settings.slow_body_chunks;
    let interval = state.settings.slow_body_interval;
    let shutdown = state.shutdown.clone();
    let filler = Bytes::from(format!("{:<width$}\n", "<!-- slow -->", width = SLOW_CHUNK - 1));
    let body = stream::unfold((0u32, shutdown), move |(sent, mut shutdown)| {
        let filler = filler.clone();
        async move {
            if sent >= chunks {
                return None;
            }
            if sent > 0 {
                tokio::select! {
                    () = tokio::time::sleep(interval) => {}
                    _ = shutdown.wait_for(|&stop| stop) => return None,
                }
            }
            Some((Ok::<_, std::io::Error>(filler), (sent + 1, shutdown)))
        }
    });
    let mut response = Response::from_parts(parts, Body::from_stream(body));
    let length = u64::from(chunks) * SLOW_CHUNK as u64;
    response.headers_mut().insert(header::CONTENT_LENGTH, HeaderValue::from(length));
    Reply::new(response)
}

/// At most one page per `rate_limit_interval`; 429 with `Retry-After` (whole seconds, ≥ 1).
fn rate_limit(state: &AppState, kind: Misbehaviour, path: &str, now: SystemTime) -> Reply {
    let interval = state.settings.rate_limit_interval;
    let mut last = state.rate_limit_last.lock().unwrap_or_else(PoisonError::into_inner);
    let waited = last.map(|last| now.duration_since(last).unwrap_or(Duration::ZERO));
    match waited {
        Some(waited) if waited < interval => {
            let retry = (interval - waited).as_secs_f64().ceil().max(1.0) as u64;
            Reply::new(
                (
                    StatusCode::TOO_MANY_REQUESTS,
                    [(header::RETRY_AFTER, HeaderValue::from(retry))],
                    "slow down\n",
                )
                    .into_response(),
            )
        }
        _ => {
            *last = Some(now);
            ordinary(kind, path)
        }
    }
}

/// 500, 502, 503 in turn during the first `error_burst` of every `error_period` since start.
fn server_errors(state: &AppState, kind: Misbehaviour, path: &str, now: SystemTime) -> Reply {
    let period = state.settings.error_period.as_secs_f64();
    let since_start = now.duration_since(state.time.origin).unwrap_or(Duration::ZERO).as_secs_f64();
    let in_burst = period > 0.0 && since_start % period < state.settings.error_burst.as_secs_f64();
    if !in_burst {
        return ordinary(kind, path);
    }
    let statuses =
        [StatusCode::INTERNAL_SERVER_ERROR, StatusCode::BAD_GATEWAY, StatusCode::SERVICE_UNAVAILABLE];
    let status = statuses[(state.requests.fetch_add(1, Ordering::Relaxed) % 3) as usize];
    let mut response = (status, "having a bad moment\n").into_response();
    if status == StatusCode::SERVICE_UNAVAILABLE {
        let retry = state.settings.error_burst.as_secs().max(1);
        response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(retry));
    }
    Reply::new(response)
}

fn redirect_to(status: StatusCode, location: &str) -> Reply {
    match HeaderValue::from_str(location) {
        Ok(location) => Reply::new((status, [(header::LOCATION, location)]).into_response()),
        Err(_) => Reply::new(not_found("bad location")),
    }
}

/// `/loop/a` ↔ `/loop/b` (302), `/self` → `/self` (301), `/chain/{n}` → `/chain/{n+1}` (302).
fn redirect(kind: Misbehaviour, path: &str) -> Reply {
    match path {
        "/loop/a" => redirect_to(StatusCode::FOUND, "/loop/b"),
        "/loop/b" => redirect_to(StatusCode::FOUND, "/loop/a"),
        "/self" => redirect_to(StatusCode::MOVED_PERMANENTLY, "/self"),
        _ => match path.strip_prefix("/chain/").and_then(|n| n.parse::<u64>().ok()) {
            Some(n) => redirect_to(StatusCode::FOUND, &format!("/chain/{}", n.saturating_add(1))),
            None => ordinary(kind, path),
        },
    }
}

/// `long-fields`: links, a redirect and validators longer than a crawler keeps.
fn long_fields(state: &AppState, kind: Misbehaviour, path: &str) -> Reply {
    let long = "e".repeat(crate::misbehave::LONG_VALIDATOR_OCTETS);
    let with_header = |name, value: &str| {
        let mut reply = ordinary(kind, path);
        if let Ok(value) = HeaderValue::from_str(value) {
            reply.response.headers_mut().insert(name, value);
        }
        reply
    };
    match path {
        "/" => {
            let links = [
                crate::misbehave::long_path(),
                format!("http://{}:{}/", crate::misbehave::long_host(), state.port),
                "/long-redirect".to_owned(),
            ];
            ordinary_linking(kind, path, &links)
        }
        "/long-redirect" => redirect_to(StatusCode::FOUND, &crate::misbehave::long_path()),
        "/page/1" => with_header(header::ETAG, &format!("\"{long}\"")),
        "/page/2" => with_header(header::ETAG, "\"a\tb\""),
        "/page/3" => with_header(header::LAST_MODIFIED, &long),
        _ if path.starts_with("/long/") && path == crate::misbehave::long_path() => Reply::new(
            ([(header::CONTENT_TYPE, HTML)], "<!DOCTYPE html>\n<p>A long path.</p>\n").into_response(),
        ),
        _ => ordinary(kind, path),
    }
}

fn days_in_month(year: i64, month: u32) -> u32 {
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `/cal/{year}/{month}` links the months around it and its days; `/cal/{y}/{m}/{d}` links
/// its month and the next day. Every year exists: the URL space has no end.
fn calendar(kind: Misbehaviour, path: &str) -> Reply {
    let Some(rest) = path.strip_prefix("/cal/") else { return ordinary(kind, path) };
    let parts: Vec<&str> = rest.split('/').collect();
    let year = parts.first().and_then(|y| y.parse::<i64>().ok());
    let month = parts.get(1).and_then(|m| m.parse::<u32>().ok()).filter(|m| (1..=12).contains(m));
    let (Some(year), Some(month)) = (year, month) else { return Reply::new(not_found("no such month")) };
    let mut links = Vec::new();
    let title = match parts.get(2) {
        None => {
            let (py, pm) = if month == 1 { (year - 1, 12) } else { (year, month - 1) };
            let (ny, nm) = if month == 12 { (year + 1, 1) } else { (year, month + 1) };
            links.push(format!("/cal/{py}/{pm}"));
            links.push(format!("/cal/{ny}/{nm}"));
            links.extend((1..=days_in_month(year, month)).map(|d| format!("/cal/{year}/{month}/{d}")));
            format!("{year}-{month:02}")
        }
        Some(day) => {
            let days = days_in_month(year, month);
            let Some(day) = day.parse::<u32>().ok().filter(|d| (1..=days).contains(d)) else {
                return Reply::new(not_found("no such day"));
            };
            links.push(format!("/cal/{year}/{month}"));
            if day < days {
                links.push(format!("/cal/{year}/{month}/{}", day + 1));
            }
            format!("{year}-{month:02}-{day:02}")
        }
    };
    let mut html =
        format!("<!DOCTYPE html>\n<html><head><title>{title}</title></head><body>\n<h1>{title}</h1>\n<ul>\n");
    for href in links {
        let _ = writeln!(html, "<li><a href=\"{href}\">{href}</a></li>");
    }
    html.push_str("</ul>\n</body></html>\n");
    Reply::new(([(header::CONTENT_TYPE, HTML)], html).into_response())
}

/// `/big`: `size` bytes of HTML, streamed from one shared 64 KiB chunk (never held whole).
fn huge(size: u64) -> Reply {
    let mut chunk = String::with_capacity(HUGE_CHUNK);
    while chunk.len() + 64 <= HUGE_CHUNK {
        chunk.push_str("<p>this page goes on and on and on and on and on and on.</p>\n");
    }
    while chunk.len() < HUGE_CHUNK {
        chunk.push(' ');
    }
    let chunk = Bytes::from(chunk);
    let body = stream::unfold(0u64, move |sent| {
        let chunk = chunk.clone();
        async move {
            if sent >= size {
                return None;
            }
            let take = (size - sent).min(HUGE_CHUNK as u64) as usize;
            Some((Ok::<_, std::io::Error>(chunk.slice(..take)), sent + take as u64))
        }
    });
    let mut response = ([(header::CONTENT_TYPE, HTML)], Body::from_stream(body)).into_response();
    response.headers_mut().insert(header::CONTENT_LENGTH, HeaderValue::from(size));
    Reply::new(response)
}

/// Invalid UTF-8 and wrong or missing content types.
fn bad_encoding(kind: Misbehaviour, path: &str) -> Reply {
    let page = |body: &[u8]| {
        let mut html = b"<!DOCTYPE html>\n<html><head><title>encoding</title></head><body><p>".to_vec();
        html.extend_from_slice(body);
        html.extend_from_slice(b"</p><a href=\"/\">home</a></body></html>\n");
        html
    };
    let typed = |content_type: &'static str, body: Vec<u8>| {
        Reply::new(([(header::CONTENT_TYPE, HeaderValue::from_static(content_type))], body).into_response())
    };
    match path {
        // 0xC3 0x28 is an invalid two-byte sequence, 0xFF never occurs in UTF-8.
        "/invalid-utf8" => typed(HTML, page(b"caf\xc3\x28 na\xefve \xff\xfe end")),
        // "café naïve" in ISO-8859-1, declared by the header.
        "/latin1" => typed("text/html; charset=iso-8859-1", page(b"caf\xe9 na\xefve")),
        // The same, declared only by <meta charset>.
        "/latin1-meta" => typed(
            "text/html",
            b"<!DOCTYPE html>\n<html><head><meta charset=\"iso-8859-1\"><title>latin1</title></head>\
              <body><p>caf\xe9 na\xefve</p></body></html>\n"
                .to_vec(),
        ),
        "/html-as-png" => typed("image/png", page(b"HTML labelled as an image")),
        "/binary-as-html" => {
            let mut state = 0x5EED_u64;
            let bytes: Vec<u8> = (0..4096)
                .map(|_| {
                    state = crate::keyed::mix(state);
                    (state >> 56) as u8
                })
                .collect();
            typed(HTML, bytes)
        }
        "/no-type" => Reply::new(page(b"no content type").into_response()).without_content_type(),
        _ => ordinary(kind, path),
    }
}

impl Reply {
    fn without_content_type(mut self) -> Self {
        self.response.headers_mut().remove(header::CONTENT_TYPE);
        self
    }
}
