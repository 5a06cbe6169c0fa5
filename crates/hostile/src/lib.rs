//! The properties the parsers of hostile input must keep, whatever the bytes: each function
//! here takes an input and panics if a parser panics on it or breaks its property. They are
//! run two ways:
//!
//! - by cargo-fuzz (`fuzz/`, libFuzzer, coverage-guided, on a nightly toolchain), one target
//!   per function, for hours when someone runs it;
//! - by the test suite on stable (`tests/mutations.rs`, so in CI at every commit): each
//!   function on the seed inputs in `seeds/` ([`Target::seeds`]) and on 2,000 inputs made
//!   from them by [`Mutator`], seeded, so the same inputs every run. No coverage guidance, but
//!   the mutations are those libFuzzer starts with (bit flips, interesting bytes, a target's
//!   tokens, deletions, duplications, splices) on real inputs, and a failure saves the input
//!   that broke the property and names the file, for the fuzz target to replay.
//!
//! Written here, not in each parser's crate, so that both runners call one copy.
// A property says what must hold by panicking where it does not (a fuzz target's contract).
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

mod mutate;

use std::io::Write as _;

use flate2::Compression;
use flate2::write::GzEncoder;
use freshet_content::{MainText, Signature, normalise};
use freshet_fetch::links::{LinkOptions, extract_links};
use freshet_fetch::sitemap::{SitemapOptions, parse_sitemap};
use freshet_robots::{Check, RobotsTxt};
use freshet_warc::WarcReader;

pub use mutate::Mutator;

/// The targets, by name (the fuzz targets' and the seed directories' names), with their
/// property and the tokens [`Mutator`] inserts for them.
pub const TARGETS: [Target; 6] = [
    Target { name: "robots", check: robots, tokens: ROBOTS_TOKENS, seeds: &["robots"] },
    Target { name: "url", check: url, tokens: URL_TOKENS, seeds: &["url"] },
    Target { name: "links", check: links, tokens: HTML_TOKENS, seeds: &["links"] },
    Target { name: "main_text", check: main_text, tokens: HTML_TOKENS, seeds: &["main_text", "links"] },
    Target { name: "sitemap", check: sitemap, tokens: SITEMAP_TOKENS, seeds: &["sitemap"] },
    Target { name: "warc_reader", check: warc_reader, tokens: WARC_TOKENS, seeds: &["warc_reader"] },
];

/// One parser's property.
#[derive(Clone, Copy, Debug)]
pub struct Target {
    /// Its name: the fuzz target's and the seed directory's.
    pub name: &'static str,
    /// The property: panics if it does not hold for the input.
    pub check: fn(&[u8]),
    /// Fragments of the input's language, for [`Mutator`] to insert.
    pub tokens: &'static [&'static [u8]],
    /// The directories under `seeds/` whose files are its seed inputs (HTML serves two).
    pub seeds: &'static [&'static str],
}

const ROBOTS_TOKENS: &[&[u8]] = &[
    b"User-agent: ",
    b"Disallow: ",
    b"Allow: ",
    b"Crawl-delay: ",
    b"Sitemap: ",
    b"*",
    b"$",
    b"#",
    b"\n",
    b"\r\n",
    b"/",
    b"%2F",
    b"\xef\xbb\xbf",
];
const URL_TOKENS: &[&[u8]] = &[
    b"%", b"%2e", b"%2F", b"..", b"/./", b"//", b"@", b":", b"[::1]", b"xn--", b"#", b"?", b"\\", b" ",
    b"\t", b":443",
];
const HTML_TOKENS: &[&[u8]] = &[
    b"<a href=\"",
    b"<base href=\"",
    b"<link rel=canonical href=",
    b"<meta http-equiv=refresh content=\"0; url=",
    b"<meta name=robots content=nofollow>",
    b"<meta charset=\"shift_jis\">",
    b"&#x",
    b"&amp;",
    b"<!--",
    b"-->",
    b"<script>",
    b"</",
    b"<area href=",
    b"<iframe src=",
    b"\"",
    b">",
];
const SITEMAP_TOKENS: &[&[u8]] = &[
    b"<url>",
    b"</url>",
    b"<loc>",
    b"</loc>",
    b"<lastmod>",
    b"2026-11-30T04:30:00Z",
    b"<sitemapindex>",
    b"<sitemap>",
    b"<![CDATA[",
    b"]]>",
    b"&amp;",
    b"<?xml version=\"1.0\"?>",
    b"\x1f\x8b",
    b"\n",
];
const WARC_TOKENS: &[&[u8]] = &[
    b"WARC/1.1\r\n",
    b"WARC-Type: response\r\n",
    b"Content-Length: ",
    b"Content-Type: application/http; msgtype=response\r\n",
    b"\r\n\r\n",
    b"HTTP/1.1 200 OK\r\n",
    b"Transfer-Encoding: chunked\r\n",
    b"\0",
    b"18446744073709551616",
];

/// A robots.txt body: parsing never panics, every check ends, and `check`, `is_allowed` and
/// the group picked once agree. The input's last line and its first 64 characters are also
/// checked as paths.
pub fn robots(data: &[u8]) {
    let robots = RobotsTxt::parse(data);
    let text = String::from_utf8_lossy(data);
    let last_line = text.lines().last().unwrap_or("/");
    let head: String = text.chars().take(64).collect();
    for agent in ["freshet", "FooBot", "*", ""] {
        let group = robots.group(agent);
        for path in [last_line, head.as_str(), "/", "/robots.txt", "/a/b?c=d"] {
            let check = robots.check(agent, path);
            assert_eq!(check, group.check(path), "agent {agent:?}, path {path:?}");
            assert_eq!(
                robots.is_allowed(agent, path),
                check == Check::Allowed,
                "agent {agent:?}, path {path:?}"
            );
        }
        let _ = robots.crawl_delay(agent);
    }
    let _ = robots.sitemaps();
}

/// A URL, or a reference against a base: canonicalisation never panics and is idempotent, as
/// the frontier's seen-URL set needs (one key per page).
pub fn url(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(url) = freshet_url::canonicalize(text) {
        let again = freshet_url::canonicalize(url.as_str()).expect("a canonical URL canonicalises");
        assert_eq!(again.as_str(), url.as_str(), "canonicalisation is not idempotent");
        let _ = freshet_url::path_and_query(&url);
        let _ = freshet_url::origin_key(&url);
    }
    let base = freshet_url::canonicalize("https://a.test/dir/page.html?q=1").expect("a valid base");
    if let Ok(url) = freshet_url::resolve(&base, text) {
        let again = freshet_url::canonicalize(url.as_str()).expect("a resolved URL canonicalises");
        assert_eq!(again.as_str(), url.as_str(), "a resolved URL is not canonical");
    }
}

/// An HTML body: link extraction never panics, and every link it returns is a canonical URL.
pub fn links(data: &[u8]) {
    let page = freshet_url::canonicalize("https://a.test/dir/page.html").expect("a valid page URL");
    let options = LinkOptions { max_links: 1_000, ..LinkOptions::default() };
    for content_type in [Some("text/html"), Some("text/html; charset=windows-1252"), None] {
        let found = extract_links(&page, content_type, data, &options);
        for link in &found.links {
            let again = freshet_url::canonicalize(link.url.as_str()).expect("a link is a valid URL");
            assert_eq!(again.as_str(), link.url.as_str(), "a link is not canonical");
        }
    }
}

/// An HTML body's main text and content signature (`freshet_content`): extraction never
/// panics; every block holds normalised words: no space at either end or two in a row, every
/// character alphanumeric but the combining dot U+0307 that lower-casing `İ` adds (the one
/// such character in Unicode; `freshet_content`'s text module keeps it in its word), and,
/// without that dot, normalising again changes nothing; the signature of the HTML is the
/// signature of its main text, counts its words, and reads back from its bytes.
pub fn main_text(data: &[u8]) {
    let html = String::from_utf8_lossy(data);
    let text = MainText::from_html(&html);
    for block in text.blocks() {
        let words = block.text();
        assert!(!words.is_empty(), "an empty block");
        assert!(!words.starts_with(' ') && !words.ends_with(' ') && !words.contains("  "), "{words:?}");
        assert!(words.chars().all(|c| c.is_alphanumeric() || c == ' ' || c == '\u{307}'), "{words:?}");
        if !words.contains('\u{307}') {
            assert_eq!(normalise(words), words, "a block's words are not normalised");
        }
    }
    let signature = Signature::of_html(&html, None);
    assert_eq!(signature, Signature::of_text(&text, None));
    assert_eq!(Signature::from_bytes(&signature.to_bytes()), Ok(signature));
    assert_eq!(signature.tokens as usize, text.word_count());
}

/// A sitemap body (XML, text, gzip or a sitemap index): parsing never panics, and every URL
/// it lists is a canonical URL.
pub fn sitemap(data: &[u8]) {
    let url = freshet_url::canonicalize("https://a.test/sitemap.xml").expect("a valid sitemap URL");
    if let Ok(sitemap) = parse_sitemap(data, &url, &SitemapOptions::default()) {
        let listed_sitemaps = sitemap.sitemaps.iter().map(|entry| &entry.url);
        for listed in sitemap.urls.iter().map(|entry| &entry.url).chain(listed_sitemaps) {
            let again = freshet_url::canonicalize(listed.as_str()).expect("a listed URL is a valid URL");
            assert_eq!(again.as_str(), listed.as_str(), "a listed URL is not canonical");
        }
    }
}

/// A WARC file: reading it never panics, whatever is torn or wrong. The input is read as it
/// is (gzip members, mostly not) and, so that the record parser behind the gzip layer is
/// reached too, cut at its `\0` octets into parts, each compressed into a gzip member, with
/// the last member cut short by the input's first octet (a torn tail, as a crash leaves).
pub fn warc_reader(data: &[u8]) {
    read_all(data);
    let mut file = Vec::new();
    for part in data.split(|&octet| octet == 0) {
        let mut member = GzEncoder::new(Vec::new(), Compression::fast());
        if member.write_all(part).is_err() {
            return;
        }
        let Ok(member) = member.finish() else { return };
        file.extend_from_slice(&member);
    }
    let torn = usize::from(data.first().copied().unwrap_or(0));
    read_all(&file);
    read_all(&file[..file.len().saturating_sub(torn)]);
}

fn read_all(file: &[u8]) {
    for record in WarcReader::new(file).take(1_000) {
        let Ok(record) = record else { break };
        let _ = record.http_head();
        let _ = record.http_payload();
    }
}
