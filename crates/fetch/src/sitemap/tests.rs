//! Unit tests of the sitemap parser: every element, format and tolerance the module docs
//! promise, each in its own test.

#![allow(clippy::unwrap_used)]

use std::io::Write as _;

use super::*;

fn url(text: &str) -> Url {
    freshet_url::canonicalize(text).unwrap()
}

fn at() -> Url {
    url("https://a.test/sitemap.xml")
}

fn parse(body: &[u8]) -> Sitemap {
    parse_sitemap(body, &at(), &SitemapOptions::default()).unwrap()
}

fn urlset(entries: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">{entries}</urlset>"
    )
}

fn locs(sitemap: &Sitemap) -> Vec<&str> {
    sitemap.urls.iter().map(|u| u.url.as_str()).collect()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

#[test]
fn urlset_with_every_field() {
    let sitemap = parse(
        urlset(
            "<url><loc>https://a.test/a</loc><lastmod>2005-01-01</lastmod>\
             <changefreq>monthly</changefreq><priority>0.8</priority></url>\
             <url><loc>https://A.test:443/b/./c#x</loc></url>",
        )
        .as_bytes(),
    );
    assert_eq!((sitemap.format, sitemap.gzip, sitemap.stopped.clone()), (SitemapFormat::UrlSet, false, None));
    assert_eq!(locs(&sitemap), ["https://a.test/a", "https://a.test/b/c"], "canonicalised");
    let first = &sitemap.urls[0];
    assert_eq!(first.last_modified.unwrap().unix_seconds, 1_104_537_600.0);
    assert_eq!(first.last_modified.unwrap().precision, DatePrecision::Day);
    assert_eq!(first.change_frequency, Some(ChangeFrequency::Monthly));
    assert_eq!((first.priority, first.priority_given), (0.8, true));
    let second = &sitemap.urls[1];
    assert_eq!((second.priority, second.priority_given), (DEFAULT_PRIORITY, false));
    assert_eq!((second.last_modified, second.change_frequency), (None, None));
    assert_eq!((sitemap.entries, sitemap.over_limit, sitemap.problems.len()), (2, 0, 0));
}

#[test]
fn every_changefreq_value() {
    let values = ["always", "hourly", "daily", "weekly", "monthly", "yearly", "never"];
    let entries: String = values
        .iter()
        .enumerate()
        .map(|(i, v)| format!("<url><loc>https://a.test/{i}</loc><changefreq>{v}</changefreq></url>"))
        .collect();
    let sitemap = parse(urlset(&entries).as_bytes());
    let rates: Vec<Option<f64>> =
        sitemap.urls.iter().map(|u| u.change_frequency.unwrap().rate_per_second()).collect();
    assert_eq!(rates[0], None);
    assert_eq!(rates[1], Some(1.0 / 3600.0));
    assert_eq!(rates[3], Some(1.0 / 604_800.0));
    assert!((1.0 / rates[4].unwrap() / 86_400.0 - 30.436_875).abs() < 1e-9);
    assert!((1.0 / rates[5].unwrap() / 86_400.0 - 365.2425).abs() < 1e-9);
    assert_eq!(rates[6], Some(0.0));
    // Rates fall as periods grow.
    let finite: Vec<f64> = rates[1..].iter().map(|r| r.unwrap()).collect();
    assert!(finite.windows(2).all(|w| w[0] > w[1]));
}

#[test]
fn bad_optional_fields_are_problems_and_the_entry_is_kept() {
    let sitemap = parse(
        urlset(
            "<url><loc>https://a.test/1</loc><priority>1.5</priority></url>\
             <url><loc>https://a.test/2</loc><priority>high</priority><lastmod>last tuesday</lastmod></url>\
             <url><loc>https://a.test/3</loc><changefreq>fortnightly</changefreq><priority>NaN</priority></url>",
        )
        .as_bytes(),
    );
    assert_eq!(sitemap.urls.len(), 3);
    assert!(sitemap.urls.iter().all(|u| u.priority == DEFAULT_PRIORITY && !u.priority_given));
    let lines: Vec<String> = sitemap.problems.iter().map(ToString::to_string).collect();
    assert_eq!(lines.len(), 5, "{lines:#?}");
    assert_eq!(lines[0], "bad priority at entry 1: \"1.5\" is not a number in [0, 1]");
    assert!(lines[1].starts_with("bad lastmod at entry 2: \"last tuesday\""), "{}", lines[1]);
    assert_eq!(lines[2], "bad priority at entry 2: \"high\" is not a number in [0, 1]");
    assert!(lines[3].starts_with("bad changefreq at entry 3"), "{}", lines[3]);
}

#[test]
fn bad_locs_drop_the_entry_with_its_number() {
    let long = format!("https://a.test/{}", "x".repeat(3000));
    let sitemap = parse(
        urlset(&format!(
            "<url><loc>https://a.test/ok</loc></url><url><loc>/relative</loc></url><url><loc>ftp://a.test/f</loc></url>\
             <url><priority>0.3</priority></url><url><loc>   </loc></url><url><loc>{long}</loc></url>\
             <url><loc>http://a.test/other-scheme</loc></url>"
        ))
        .as_bytes(),
    );
    assert_eq!(locs(&sitemap), ["https://a.test/ok"]);
    let got: Vec<(u64, &str)> = sitemap.problems.iter().map(|p| (p.entry, p.kind.what())).collect();
    assert_eq!(
        got,
        [
            (2, "invalid loc"),
            (3, "invalid loc"),
            (4, "missing loc"),
            (5, "missing loc"),
            (6, "loc too long"),
            (7, "loc outside the sitemap's location")
        ]
    );
    assert!(sitemap.problems[0].to_string().starts_with("invalid loc at entry 2: \"/relative\""));
}

#[test]
fn the_location_rule_is_a_parameter() {
    let at = url("https://a.test/catalog/sitemap.xml");
    let xml = urlset(
        "<url><loc>https://a.test/catalog/x</loc></url><url><loc>https://a.test/about</loc></url>\
         <url><loc>https://b.test/catalog/x</loc></url>",
    );
    let with = |location| {
        let options = SitemapOptions { location, ..SitemapOptions::default() };
        parse_sitemap(xml.as_bytes(), &at, &options).unwrap().urls.len()
    };
    assert_eq!(with(LocationRule::SitemapDirectory), 1);
    assert_eq!(with(LocationRule::ListedInRobotsTxt(url("https://a.test/robots.txt"))), 2);
    // A cross-submit: b.test's robots.txt names a sitemap that lives on a.test.
    assert_eq!(with(LocationRule::ListedInRobotsTxt(url("https://b.test/robots.txt"))), 2);
    assert_eq!(with(LocationRule::Any), 3);
}

#[test]
fn sitemap_index_with_lastmod() {
    let sitemap = parse(
        b"<?xml version=\"1.0\"?><sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
          <sitemap><loc>https://a.test/s1.xml.gz</loc><lastmod>2004-10-01T18:23:17+00:00</lastmod></sitemap>\
          <sitemap><loc>https://a.test/deep/s2.xml</loc></sitemap>\
          <sitemap><loc>https://evil.test/s3.xml</loc></sitemap>\
          <url><loc>https://a.test/not-an-index-entry</loc></url></sitemapindex>",
    );
    assert_eq!(sitemap.format, SitemapFormat::Index);
    assert!(sitemap.urls.is_empty());
    let refs: Vec<&str> = sitemap.sitemaps.iter().map(|s| s.url.as_str()).collect();
    assert_eq!(refs, ["https://a.test/s1.xml.gz", "https://a.test/deep/s2.xml"]);
    assert_eq!(sitemap.sitemaps[0].last_modified.unwrap().unix_seconds, 1_096_654_997.0);
    assert_eq!(sitemap.problems.len(), 1);
    assert_eq!(sitemap.problems[0].entry, 3);
}

#[test]
fn plain_text_format() {
    let sitemap = parse(
        b"\xEF\xBB\xBFhttps://a.test/one\r\n\n  https://a.test/two  \nnot a url\nhttps://b.test/x\nhttps://a.test/caf\xe9\n",
    );
    assert_eq!(sitemap.format, SitemapFormat::Text);
    assert_eq!(locs(&sitemap), ["https://a.test/one", "https://a.test/two"]);
    let got: Vec<(u64, &str)> = sitemap.problems.iter().map(|p| (p.entry, p.kind.what())).collect();
    assert_eq!(got, [(3, "invalid loc"), (4, "loc outside the sitemap's location"), (5, "invalid loc")]);
    assert_eq!(sitemap.entries, 5);
}

#[test]
fn gzip_is_detected_by_magic_bytes_for_every_format() {
    let xml = urlset("<url><loc>https://a.test/z</loc></url>");
    let sitemap = parse(&gzip(xml.as_bytes()));
    assert!(sitemap.gzip);
    assert_eq!(locs(&sitemap), ["https://a.test/z"]);
    let text = parse(&gzip(b"https://a.test/t\n"));
    assert_eq!((text.format, text.gzip, locs(&text)), (SitemapFormat::Text, true, vec!["https://a.test/t"]));
}

#[test]
fn corrupt_gzip_keeps_what_was_read() {
    let entries: String = (0..2000).map(|i| format!("<url><loc>https://a.test/{i}</loc></url>")).collect();
    let mut gz = gzip(urlset(&entries).as_bytes());
    let len = gz.len();
    gz.truncate(len * 2 / 3);
    let sitemap = parse(&gz);
    assert!(matches!(sitemap.stopped, Some(Stopped::Decompression { .. })), "{:?}", sitemap.stopped);
    assert!(!sitemap.urls.is_empty() && sitemap.urls.len() < 2000, "{}", sitemap.urls.len());
    let garbage = [0x1f, 0x8b, 0xff, 0xff, 0xff, 0xff];
    let error = parse_sitemap(&garbage, &at(), &SitemapOptions::default()).unwrap_err();
    assert!(matches!(error, SitemapError::Unreadable { .. }), "{error}");
}

#[test]
fn entry_and_byte_limits() {
    let entries: String = (0..30).map(|i| format!("<url><loc>https://a.test/{i}</loc></url>")).collect();
    let xml = urlset(&entries);
    let limits = SitemapLimits { max_entries: 10, ..SitemapLimits::default() };
    let options = SitemapOptions { limits, ..SitemapOptions::default() };
    let sitemap = parse_sitemap(xml.as_bytes(), &at(), &options).unwrap();
    assert_eq!((sitemap.urls.len(), sitemap.entries, sitemap.over_limit), (10, 30, 20));
    assert_eq!(sitemap.urls[9].url.as_str(), "https://a.test/9");
    assert_eq!(sitemap.stopped, None);

    let limits = SitemapLimits { max_bytes: 500, ..SitemapLimits::default() };
    let options = SitemapOptions { limits, ..SitemapOptions::default() };
    let sitemap = parse_sitemap(xml.as_bytes(), &at(), &options).unwrap();
    assert_eq!(sitemap.stopped, Some(Stopped::SizeCap { limit_bytes: 500 }));
    assert_eq!(sitemap.bytes_read, 500);
    assert!(!sitemap.urls.is_empty() && sitemap.urls.len() < 30);
    let text: String = (0..30).map(|i| format!("https://a.test/{i}\n")).collect();
    let sitemap = parse_sitemap(text.as_bytes(), &at(), &options).unwrap();
    assert_eq!(sitemap.stopped, Some(Stopped::SizeCap { limit_bytes: 500 }));
}

#[test]
fn problems_are_bounded_too() {
    let entries: String = (0..50).map(|_| "<url><loc>nope</loc></url>").collect();
    let limits = SitemapLimits { max_problems: 5, ..SitemapLimits::default() };
    let options = SitemapOptions { limits, ..SitemapOptions::default() };
    let sitemap = parse_sitemap(urlset(&entries).as_bytes(), &at(), &options).unwrap();
    assert_eq!((sitemap.problems.len(), sitemap.problems_over_limit), (5, 45));
}

#[test]
fn namespaces_prefixes_and_extensions() {
    let xml = r#"<?xml version="1.0"?>
<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"
    xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"
    xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"
    xmlns:xhtml="http://www.w3.org/1999/xhtml">
  <sm:url>
    <sm:loc>https://a.test/prefixed</sm:loc>
    <image:image><image:loc>https://a.test/photo.jpg</image:loc></image:image>
    <news:news><news:publication_date>1999-01-01</news:publication_date></news:news>
    <xhtml:link rel="alternate" hreflang="de" href="https://a.test/de"/>
    <image:loc>https://a.test/stray-image-loc</image:loc>
    <sm:priority>0.7</sm:priority>
  </sm:url>
</sm:urlset>"#;
    let sitemap = parse(xml.as_bytes());
    assert_eq!(locs(&sitemap), ["https://a.test/prefixed"]);
    assert_eq!(sitemap.urls[0].priority, 0.7);
    assert!(sitemap.problems.is_empty(), "{:?}", sitemap.problems);
    for root in [
        "<urlset>",
        "<urlset xmlns=\"http://www.google.com/schemas/sitemap/0.84\">",
        "<urlset xmlns=\"https://www.sitemaps.org/schemas/sitemap/0.9/\">",
        "<urlset xmlns=\"urn:something-odd\">",
        "<x:urlset>",
    ] {
        let close = if root.starts_with("<x:") { "</x:urlset>" } else { "</urlset>" };
        let xml = format!("{root}<url><loc>https://a.test/n</loc></url>{close}");
        assert_eq!(locs(&parse(xml.as_bytes())), ["https://a.test/n"], "{root}");
    }
}

#[test]
fn bom_cdata_entities_and_whitespace() {
    let mut xml = b"\xEF\xBB\xBF".to_vec();
    xml.extend_from_slice(
        urlset(
            "<url><loc>\n   https://a.test/a?x=1&amp;y=2\t\n</loc></url>\
             <url><loc><![CDATA[https://a.test/b?x=1&y=2]]></loc></url>\
             <url><loc>https://a.test/&#99;&#x64;</loc></url>\
             <url><loc>https://a.test/raw?x=1&y=2</loc></url>\
             <url><loc>https://a.test/&unknown;</loc></url>\
             <url> <loc> https://a.test/spaced </loc> <priority> 0.25 </priority> </url>\
             <!-- <url><loc>https://a.test/commented</loc></url> -->",
        )
        .as_bytes(),
    );
    let sitemap = parse(&xml);
    assert_eq!(
        locs(&sitemap),
        [
            "https://a.test/a?x=1&y=2",
            "https://a.test/b?x=1&y=2",
            "https://a.test/cd",
            "https://a.test/raw?x=1&y=2",
            "https://a.test/&unknown;",
            "https://a.test/spaced"
        ]
    );
    assert_eq!(sitemap.urls[5].priority, 0.25);
}

#[test]
fn unclosed_and_mismatched_tags() {
    // No </url>, no </urlset>, a mismatched </lock>, a missing </loc>.
    let sitemap = parse(
        b"<urlset><url><loc>https://a.test/1</loc>\
          <url><loc>https://a.test/2</lock></url>\
          <url><loc>https://a.test/3<priority>0.1</priority></url>\
          <url><loc>https://a.test/4</loc>",
    );
    assert_eq!(
        locs(&sitemap),
        ["https://a.test/1", "https://a.test/2", "https://a.test/3", "https://a.test/4"]
    );
    assert_eq!(sitemap.urls[2].priority, 0.1);
    // Cut off inside a loc: that entry is dropped with a problem, the others are kept.
    let sitemap = parse(b"<urlset><url><loc>https://a.test/1</loc></url><url><loc>https://a.test/trunc");
    assert_eq!(locs(&sitemap), ["https://a.test/1"]);
    assert_eq!(
        sitemap.problems.iter().map(|p| (p.entry, p.kind.clone())).collect::<Vec<_>>(),
        [(2, ProblemKind::CutOff)]
    );
}

#[test]
fn broken_xml_after_the_root_keeps_the_entries_before() {
    let sitemap = parse(b"<urlset><url><loc>https://a.test/1</loc></url><url><loc>https://a.test/2</loc></url><!-- never closed");
    assert_eq!(locs(&sitemap), ["https://a.test/1", "https://a.test/2"]);
    assert!(matches!(sitemap.stopped, Some(Stopped::Malformed { .. })), "{:?}", sitemap.stopped);
    let invalid_utf8 = parse(
        b"<urlset><url><loc>https://a.test/1</loc></url><url><loc>https://a.test/\xff</loc></url></urlset>",
    );
    assert_eq!(locs(&invalid_utf8), ["https://a.test/1"]);
    assert!(invalid_utf8.stopped.is_some());
}

#[test]
fn files_that_are_not_sitemaps_are_named() {
    let cases: [(&[u8], &str); 12] = [
        (b"<!doctype html><meta charset=utf-8><title>x</title><p>unclosed & raw", "an HTML page"),
        (b"\xEF\xBB\xBF\n<HTML lang=en><body>", "an HTML page"),
        (b"", "empty"),
        (b"   \n", "no root element"),
        (b"<!DOCTYPE html>\n<html><head><title>404</title></head></html>", "an HTML page"),
        (b"<?xml version=\"1.0\"?><rss version=\"2.0\"><channel/></rss>", "a feed (root <rss>)"),
        (b"<feed xmlns=\"http://www.w3.org/2005/Atom\"/>", "a feed (root <feed>)"),
        (b"<?xml version=\"1.0\"?><catalog><book/></catalog>", "XML with root <catalog>"),
        (b"User-agent: *\nDisallow: /", "text starting \"User-agent: *"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "binary data"),
        (b"<?xml version=\"1.0\"?><!-- never closed", "malformed XML before the root element"),
        (b"<<<>>>", "XML with root"),
    ];
    for (body, expected) in cases {
        let error = parse_sitemap(body, &at(), &SitemapOptions::default()).unwrap_err();
        let message = error.to_string();
        assert!(message.starts_with("not a sitemap: "), "{message}");
        assert!(message.contains(expected), "{body:?}: {message}");
    }
}

#[test]
fn an_empty_urlset_is_a_sitemap_with_no_entries() {
    let sitemap =
        parse(b"<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"/>");
    assert_eq!((sitemap.format, sitemap.entries, sitemap.stopped), (SitemapFormat::UrlSet, 0, None));
}
