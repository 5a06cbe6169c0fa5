//! The well-behaved hosts `h{i}.web.test`: pages at the current version, robots.txt, sitemaps,
//! and conditional GET (RFC 9110 §13).
//!
//! * `ETag` is strong and names the version; `Last-Modified` is the wall time of the version's
//!   change (model time 0, the server's start, for version 0), truncated to the second as
//!   HTTP dates are.
//! * `If-None-Match` takes precedence: a match (weak comparison, or `*`) gives 304, and
//!   `If-Modified-Since` is then ignored (RFC 9110 §13.1.3, §13.2.2).
//! * `If-Modified-Since` gives 304 only if the exact (sub-second) time of the version's change
//!   is at or before the given date. Stricter than comparing truncated dates: a page that
//!   changed twice within one wall second is never reported unmodified by mistake, at the cost
//!   of an occasional 200 with unchanged content.

use std::sync::atomic::Ordering;
use std::time::SystemTime;

use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};

use super::{AppState, Reply, SitemapLastmod, not_found};
use crate::keyed::{self, Stream};
use crate::render::{self, Noise, RenderContext};

const HTML: &str = "text/html; charset=utf-8";

/// Answers a request to host `host` of the web.
pub(super) fn respond(
    state: &AppState,
    host: u32,
    uri: &Uri,
    headers: &HeaderMap,
    now: SystemTime,
    model_time: f64,
) -> Reply {
    let path = uri.path();
    let web = &state.web;
    if path == "/robots.txt" {
        return Reply::new(typed("text/plain; charset=utf-8", render::robots_txt(host, state.port)));
    }
    let lastmod = |id: u32| match state.sitemap_lastmod {
        SitemapLastmod::None => None,
        SitemapLastmod::Exact => {
            let (_, last_change) = state.version_at(id, model_time);
            Some(
                humantime::format_rfc3339_millis(state.time.wall_time(last_change.unwrap_or(0.0)))
                    .to_string(),
            )
        }
        SitemapLastmod::Now => Some(humantime::format_rfc3339_millis(now).to_string()),
    };
    if path == "/sitemap.xml" {
        return Reply::new(typed(
            "application/xml",
            render::sitemap_xml_with(web, host, state.port, lastmod),
        ));
    }
    if let Some(part) = path.strip_prefix("/sitemap-").and_then(|rest| rest.strip_suffix(".xml")) {
        let xml = part
            .parse()
            .ok()
            .and_then(|part| render::sitemap_part_xml_with(web, host, part, state.port, lastmod));
        return Reply::new(
            xml.map_or_else(|| not_found("no such sitemap"), |xml| typed("application/xml", xml)),
        );
    }
    let Some(id) = web.lookup(host, path) else {
        return Reply::new(not_found(&format!("no page {path} on this host")));
    };
    let (version, last_change) = state.version_at(id, model_time);
    let etag = web.etag(id, version);
    let modified = state.time.wall_time(last_change.unwrap_or(0.0));
    let validators = [
        (header::ETAG, HeaderValue::from_str(&etag).ok()),
        (header::LAST_MODIFIED, HeaderValue::from_str(&httpdate::fmt_http_date(modified)).ok()),
    ];
    let mut response = if state.validators && not_modified(headers, &etag, modified) {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let noise = state.noise.then(|| {
            let request = state.requests.fetch_add(1, Ordering::Relaxed);
            Noise {
                session: format!("{:016x}", keyed::bits(web.config().seed, Stream::Etag, u64::MAX, request)),
                ad: request,
                served_at: httpdate::fmt_http_date(now),
            }
        });
        let context = RenderContext { port: state.port, extra_root_links: &state.root_links, noise };
        typed(HTML, render::page_html(web, id, version, &context))
    };
    for (name, value) in validators.into_iter().filter(|_| state.validators) {
        if let Some(value) = value {
            response.headers_mut().insert(name, value);
        }
    }
    Reply::new(response)
}

/// A 200 response with a content type.
fn typed(content_type: &'static str, body: String) -> Response {
    ([(header::CONTENT_TYPE, HeaderValue::from_static(content_type))], body).into_response()
}

/// Whether the conditional headers of a GET say the client's copy is current.
fn not_modified(headers: &HeaderMap, etag: &str, modified: SystemTime) -> bool {
    let mut if_none_match = headers.get_all(header::IF_NONE_MATCH).iter().peekable();
    if if_none_match.peek().is_some() {
        let bare = etag.trim_start_matches("W/");
        return if_none_match
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','))
            .map(str::trim)
            .any(|tag| tag == "*" || tag.trim_start_matches("W/") == bare);
    }
    headers
        .get(header::IF_MODIFIED_SINCE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| httpdate::parse_http_date(value).ok())
        .is_some_and(|since| modified <= since)
}
