//! What the web serves, as pure functions: a page's HTML at a version, robots.txt, sitemaps.
//!
//! A page's HTML is a function of `(seed, page, version)` and the port (which appears in
//! absolute links to other hosts): its text is drawn from the keyed stream of that version,
//! its links are the model's (the same at every version). An on-topic page's text says
//! [`TOPIC_WORD`] exactly its [`topic_score`](crate::PageInfo::topic_score) times, at places
//! drawn per version (in place of vocabulary words); the anchor text of a link to an on-topic page
//! (`h3.web.test 17 glacier`) carries the word with probability
//! [`TOPIC_ANCHOR_PROBABILITY`](crate::TOPIC_ANCHOR_PROBABILITY), the same in every version.
//! Noise ([`Noise`]), when asked for, is added around that content and is not part of the
//! version.

use std::fmt::Write as _;

use crate::keyed::{self, Stream};
use crate::topic::{TOPIC_WORD, anchor_mentions_topic, topic_positions};
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
    let seed = web.config().seed;
    let topic_at = topic_positions(seed, id, version, page.words, page.topic_score);
    write_text(&mut html, seed, id, version, page.words, &topic_at);
    html.push_str("</article>\n<ul class=\"links\">\n");
    for &to in web.links(id) {
        let Some(target) = web.page(to) else { continue };
        let href = if target.host == page.host { web.path(to) } else { web.url(to, context.port) };
        let mention =
            if target.topic_score > 0 && anchor_mentions_topic(seed, id, to) { TOPIC_WORD } else { "" };
        let _ = writeln!(
            html,
            "<li><a href=\"{href}\">{} {}{}{mention}</a></li>",
            Web::host_name(target.host),
            target.local,
            if mention.is_empty() { "" } else { " " },
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

/// `words` words of text for version `version` of page `id`, in paragraphs of up to 60; the
/// topic word replaces the vocabulary's at positions `topic_at` (sorted), so the other words
/// are those of the same version without a topic.
fn write_text(html: &mut String, seed: u64, id: u32, version: u64, words: u32, topic_at: &[u32]) {
    let mut state = keyed::bits(seed, Stream::Content, u64::from(id), version);
    let mut topic_at = topic_at.iter().peekable();
    for i in 0..words {
        if i % 60 == 0 {
            html.push_str(if i == 0 { "<p>" } else { "</p>\n<p>" });
        } else {
            html.push(' ');
        }
        state = keyed::mix(state);
        if topic_at.next_if_eq(&&i).is_some() {
            html.push_str(TOPIC_WORD);
        } else {
            html.push_str(WORDS[(state >> 58) as usize]);
        }
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
    sitemap_xml_with(web, host, port, |_| None)
}

/// [`sitemap_xml`] with each page's `<lastmod>` from `lastmod` (by page id; `None`: none).
#[must_use]
pub fn sitemap_xml_with(web: &Web, host: u32, port: u16, lastmod: impl Fn(u32) -> Option<String>) -> String {
    let parts = sitemap_parts(web, host);
    if parts == 1 {
        return sitemap_part_xml_with(web, host, 0, port, lastmod).unwrap_or_default();
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
    sitemap_part_xml_with(web, host, part, port, |_| None)
}

/// [`sitemap_part_xml`] with each page's `<lastmod>` from `lastmod` (by page id; `None`: none).
#[must_use]
pub fn sitemap_part_xml_with(
    web: &Web,
    host: u32,
    part: u32,
    port: u16,
    lastmod: impl Fn(u32) -> Option<String>,
) -> Option<String> {
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
        let lastmod = lastmod(id).map(|lastmod| format!("<lastmod>{lastmod}</lastmod>")).unwrap_or_default();
        let _ = writeln!(
            xml,
            "<url><loc>{}</loc>{lastmod}<priority>{priority:.1}</priority></url>",
            web.url(id, port)
        );
    }
    xml.push_str("</urlset>\n");
    Some(xml)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::topic::TOPIC_ANCHOR_PROBABILITY;
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

    /// FNV-1a, 64 bits: a digest that does not depend on the toolchain.
    fn fnv1a(hash: u64, bytes: &[u8]) -> u64 {
        bytes.iter().fold(hash, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
    }

    /// A digest of everything a web is and renders: pages (process, words, importance), links
    /// and the HTML of three versions of every page.
    fn web_digest(web: &Web) -> u64 {
        let context = RenderContext { port: 8080, ..RenderContext::default() };
        let mut hash = 0xcbf2_9ce4_8422_2325;
        for id in 0..web.page_count() {
            let page = web.page(id).unwrap();
            let model = format!(
                "{:?} {} {} {:?}",
                page.process,
                page.words,
                page.importance.to_bits(),
                web.links(id)
            );
            hash = fnv1a(hash, model.as_bytes());
            for version in 0..3 {
                hash = fnv1a(hash, page_html(web, id, version, &context).as_bytes());
            }
        }
        hash
    }

    /// Pinned before topics existed: without a topic (the default), every byte is the same.
    #[test]
    fn the_web_renders_as_pinned() {
        let web = Web::new(WebConfig { hosts: 5, pages: 300, ..WebConfig::default() }).unwrap();
        assert_eq!(web_digest(&web), 1_502_088_421_592_964_937);
    }

    /// The words between `<article>` and `</article>`.
    fn article_words(html: &str) -> Vec<&str> {
        let start = html.find("<article>").unwrap() + "<article>".len();
        let end = html.find("</article>").unwrap();
        html[start..end]
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty() && *w != "p")
            .collect()
    }

    /// `(target, anchor text)` of a page's link list, in order.
    fn anchors(html: &str) -> Vec<&str> {
        html.lines()
            .filter_map(|line| line.strip_prefix("<li><a href=\""))
            .filter_map(|rest| rest.split_once("\">").and_then(|(_, text)| text.strip_suffix("</a></li>")))
            .collect()
    }

    fn topic_web(topic_fraction: f64) -> Web {
        Web::new(WebConfig { hosts: 10, pages: 1000, topic_fraction, ..WebConfig::default() }).unwrap()
    }

    #[test]
    fn the_article_says_the_topic_word_topic_score_times_and_nothing_else_moves() {
        let plain = topic_web(0.0);
        let topical = topic_web(0.3);
        let context = RenderContext { port: 8080, ..RenderContext::default() };
        let mut on_topic = 0;
        for id in 0..1000 {
            let score = topical.page(id).unwrap().topic_score as usize;
            on_topic += usize::from(score > 0);
            for version in 0..3 {
                let html = page_html(&topical, id, version, &context);
                let plain_html = page_html(&plain, id, version, &context);
                assert!(!plain_html.contains(TOPIC_WORD), "page {id}");
                let words = article_words(&html);
                assert_eq!(words.iter().filter(|&&w| w == TOPIC_WORD).count(), score, "page {id} v{version}");
                // The topic word replaces vocabulary words; every other word is the plain web's.
                let plain_words = article_words(&plain_html);
                assert_eq!(words.len(), plain_words.len());
                let replaced = words.iter().zip(&plain_words).filter(|(w, p)| w != p).count();
                assert_eq!(replaced, score, "page {id} v{version}");
                // Outside the article, the word is only in anchors.
                let head = &html[..html.find("<article>").unwrap()];
                assert!(!head.contains(TOPIC_WORD), "page {id}");
            }
        }
        assert!(on_topic > 150, "only {on_topic} pages on topic");
    }

    #[test]
    fn anchors_mention_the_topic_for_on_topic_targets_only() {
        let web = topic_web(0.3);
        let context = RenderContext { port: 8080, ..RenderContext::default() };
        let (mut to_on_topic, mut mentioned) = (0u32, 0u32);
        for id in 0..1000 {
            let html = page_html(&web, id, 0, &context);
            let texts = anchors(&html);
            assert_eq!(texts.len(), web.links(id).len());
            for (&to, text) in web.links(id).iter().zip(&texts) {
                let mentions = text.split(' ').filter(|&w| w == TOPIC_WORD).count();
                if web.page(to).unwrap().topic_score == 0 {
                    assert_eq!(mentions, 0, "{id} → {to}: {text}");
                } else {
                    assert!(mentions <= 1, "{id} → {to}: {text}");
                    to_on_topic += 1;
                    mentioned += mentions as u32;
                }
            }
            // Every version shows the same anchors.
            assert_eq!(texts, anchors(&page_html(&web, id, 7, &context)), "page {id}");
        }
        let share = f64::from(mentioned) / f64::from(to_on_topic);
        assert!(to_on_topic > 500, "only {to_on_topic} links to on-topic pages");
        assert!((share - TOPIC_ANCHOR_PROBABILITY).abs() < 0.05, "{share} of the anchors mention the topic");
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
