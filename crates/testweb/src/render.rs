//! What the web serves, as pure functions: a page's HTML at a version, robots.txt, sitemaps.
//!
//! A page's HTML is a function of `(seed, page, version)` and the port (which appears in
//! absolute links to other hosts): its text is drawn from the keyed stream of that version,
//! its links are the model's (the same at every version). Noise ([`Noise`]), when asked for,
//! is added around that content and is not part of the version.

use std::fmt::Write as _;

use crate::keyed::{self, Stream};
use crate::web::Web;

/// Pages per sitemap file; a host with more allowed pages gets a sitemap index
/// (sitemaps.org allows 50,000; a smaller chunk exercises indexes at test sizes).
pub const SITEMAP_CHUNK: u32 = 10_000;

const WORDS: [&str; 64] = [
    "river",
    "flood",
    "spring",
    "water",
    "current",
    "bank",
    "delta",
    "stream",
    "rain",
    "snow",
    "melt",
    "valley",
    "bridge",
    "stone",
    "mill",
    "harbour",
    "market",
    "news",
    "report",
    "weather",
    "season",
    "price",
    "crop",
    "field",
    "road",
    "town",
    "council",
    "school",
    "library",
    "garden",
    "festival",
    "music",
    "theatre",
    "match",
    "league",
    "score",
    "season",
    "train",
    "station",
    "ticket",
    "museum",
    "history",
    "science",
    "energy",
    "solar",
    "wind",
    "forest",
    "mountain",
    "lake",
    "island",
    "coast",
    "ship",
    "cargo",
    "trade",
    "bank",
    "loan",
    "rate",
    "index",
    "update",
    "today",
    "yesterday",
    "morning",
    "evening",
    "night",
];

/// Per-request noise: changes on every request, never a content change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Noise {
    /// A session token put into the navigation links (`?sid=…`).
    pub session: String,
    /// Which ad of the rotation to show.
    pub ad: u64,
    /// When it was served, as an HTTP date.
    pub served_at: String,
}

/// Everything besides `(page, version)` that a page's HTML shows.
#[derive(Debug, Clone, Default)]
pub struct RenderContext<'a> {
    /// The port the web is served on (absolute links carry it).
    pub port: u16,
    /// Absolute URLs listed on the web's first root only (the misbehaving hosts).
    pub extra_root_links: &'a [String],
    /// Noise to add, if any.
    pub noise: Option<Noise>,
}

/// The HTML of version `version` of page `id`.
#[must_use]
pub fn page_html(web: &Web, id: u32, version: u64, context: &RenderContext<'_>) -> String {
    let Some(page) = web.page(id) else { return String::new() };
    let host_name = Web::host_name(page.host);
    let mut html = String::with_capacity(page.words as usize * 8 + 2048);
    let title = if page.local == 0 {
        format!("{host_name} home")
    } else {
        format!("{host_name} page {}", page.local)
    };
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{title}</title>\n</head>\n<body>\n<h1>{title}</h1>\n"
    );
    if let Some(noise) = &context.noise {
        let _ = write!(
            html,
            "<nav><a href=\"/?sid={0}\">home</a> <a href=\"/login?sid={0}\">log in</a></nav>\n\
             <div class=\"ad\">Advertisement {1}: {2} {3} offer</div>\n<p class=\"served\">Served {4}</p>\n",
            noise.session,
            noise.ad % 17,
            WORDS[(noise.ad % 64) as usize],
            WORDS[(noise.ad / 64 % 64) as usize],
            noise.served_at,
        );
    }
    html.push_str("<article>\n");
    write_text(&mut html, web.config().seed, id, version, page.words);
    html.push_str("</article>\n<ul class=\"links\">\n");
    for &to in web.links(id) {
        let Some(target) = web.page(to) else { continue };
        let href = if target.host == page.host { web.path(to) } else { web.url(to, context.port) };
        let _ = writeln!(
            html,
            "<li><a href=\"{href}\">{} {}</a></li>",
            Web::host_name(target.host),
            target.local
        );
    }
    if id == 0 {
        for url in context.extra_root_links {
            let _ = writeln!(html, "<li><a href=\"{url}\">{url}</a></li>");
        }
    }
    html.push_str("</ul>\n</body>\n</html>\n");
    html
}

/// `words` words of text for version `version` of page `id`, in paragraphs of up to 60.
fn write_text(html: &mut String, seed: u64, id: u32, version: u64, words: u32) {
    let mut state = keyed::bits(seed, Stream::Content, u64::from(id), version);
    for i in 0..words {
        if i % 60 == 0 {
            html.push_str(if i == 0 { "<p>" } else { "</p>\n<p>" });
        } else {
            html.push(' ');
        }
        state = keyed::mix(state);
        html.push_str(WORDS[(state >> 58) as usize]);
    }
    html.push_str("</p>\n");
}

/// robots.txt of host `host`: everyone may crawl but `/private/` and the reserved paths; one
/// named bot may crawl nothing; the sitemap's absolute URL.
#[must_use]
pub fn robots_txt(host: u32, port: u16) -> String {
    format!(
        "# robots.txt of {0} (freshet testweb)\n\
         User-agent: BadBot\nDisallow: /\n\n\
         User-agent: *\nDisallow: /private/\nDisallow: /_truth\nDisallow: /_log\n\n\
         Sitemap: http://{0}:{1}/sitemap.xml\n",
        Web::host_name(host),
        port
    )
}

/// Number of sitemap files of host `host` (1 means `/sitemap.xml` is itself the urlset).
#[must_use]
pub fn sitemap_parts(web: &Web, host: u32) -> u32 {
    let size = web.host_pages(host).len() as u32;
    size.div_ceil(SITEMAP_CHUNK).max(1)
}

/// `/sitemap.xml` of host `host`: the urlset of its allowed pages, or, beyond
/// [`SITEMAP_CHUNK`] pages, an index of `/sitemap-{k}.xml`. Priorities are importance
/// relative to the host's most important page, in tenths.
#[must_use]
pub fn sitemap_xml(web: &Web, host: u32, port: u16) -> String {
    let parts = sitemap_parts(web, host);
    if parts == 1 {
        return sitemap_part_xml(web, host, 0, port).unwrap_or_default();
    }
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for part in 0..parts {
        let _ = writeln!(
            xml,
            "<sitemap><loc>http://{}:{port}/sitemap-{part}.xml</loc></sitemap>",
            Web::host_name(host)
        );
    }
    xml.push_str("</sitemapindex>\n");
    xml
}

/// Part `part` of host `host`'s sitemap: its allowed pages with local index in
/// `[part·CHUNK, (part+1)·CHUNK)`; `None` past the last part.
#[must_use]
pub fn sitemap_part_xml(web: &Web, host: u32, part: u32, port: u16) -> Option<String> {
    if part >= sitemap_parts(web, host) {
        return None;
    }
    let range = web.host_pages(host);
    let top = range.clone().filter_map(|id| web.page(id)).map(|p| p.importance).fold(0.0, f64::max);
    let start = range.start + part * SITEMAP_CHUNK;
    let end = range.end.min(start.saturating_add(SITEMAP_CHUNK));
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for id in start..end {
        let Some(page) = web.page(id).filter(|p| p.allowed) else { continue };
        let priority = (page.importance / top * 10.0).ceil().clamp(1.0, 10.0) / 10.0;
        let _ =
            writeln!(xml, "<url><loc>{}</loc><priority>{priority:.1}</priority></url>", web.url(id, port));
    }
    xml.push_str("</urlset>\n");
    Some(xml)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::web::WebConfig;

    #[test]
    fn html_is_a_function_of_the_version() {
        let web = Web::new(WebConfig::default()).unwrap();
        let context = RenderContext { port: 8080, ..RenderContext::default() };
        let v3 = page_html(&web, 5, 3, &context);
        assert_eq!(v3, page_html(&web, 5, 3, &context));
        assert_ne!(v3, page_html(&web, 5, 4, &context));
        // Links do not depend on the version.
        let links =
            |html: &str| html.lines().filter(|l| l.starts_with("<li>")).map(String::from).collect::<Vec<_>>();
        assert_eq!(links(&v3), links(&page_html(&web, 5, 4, &context)));
        assert_eq!(links(&v3).len(), web.links(5).len());
    }

    #[test]
    fn big_hosts_get_a_sitemap_index() {
        let web = Web::new(WebConfig { hosts: 1, pages: 25_000, ..WebConfig::default() }).unwrap();
        let index = sitemap_xml(&web, 0, 80);
        assert!(index.contains("<sitemapindex"));
        assert_eq!(index.matches("<loc>").count(), 3);
        let urls: usize =
            (0..3).map(|k| sitemap_part_xml(&web, 0, k, 80).unwrap().matches("<loc>").count()).sum();
        assert_eq!(urls, web.pages().iter().filter(|p| p.allowed).count());
        assert!(sitemap_part_xml(&web, 0, 3, 80).is_none());
    }
}
