//! The sitemap parser against the test web's own sitemaps (compared with the model), its
//! robots.txt `Sitemap:` line, a gzip bomb, and arbitrary bytes (proptest).

#![allow(clippy::unwrap_used)]

use std::io::Write as _;

use freshet_fetch::sitemap::{
    LocationRule, Sitemap, SitemapError, SitemapFormat, SitemapLimits, SitemapOptions, Stopped, parse_sitemap,
};
use freshet_robots::RobotsTxt;
use freshet_testweb::render::{SITEMAP_CHUNK, robots_txt, sitemap_part_xml, sitemap_parts, sitemap_xml};
use freshet_testweb::{Web, WebConfig, gzip_bomb};

const PORT: u16 = 8123;

fn url(text: &str) -> freshet_url::Url {
    freshet_url::canonicalize(text).unwrap()
}

/// The host's sitemap as the crawler finds it: robots.txt's `Sitemap:` line, the file there,
/// and, for an index, every part it names (each parsed under the robots.txt allowance).
fn crawl_sitemaps(web: &Web, host: u32, gzip: bool) -> (Vec<Sitemap>, Option<Sitemap>) {
    let robots_url = url(&format!("http://{}:{PORT}/robots.txt", Web::host_name(host)));
    let robots = RobotsTxt::parse(robots_txt(host, PORT).as_bytes());
    assert_eq!(robots.sitemaps().len(), 1);
    let sitemap_url = url(&robots.sitemaps()[0]);
    let options =
        SitemapOptions { location: LocationRule::ListedInRobotsTxt(robots_url), ..SitemapOptions::default() };
    let encode = |xml: String| if gzip { gzip_bytes(xml.as_bytes()) } else { xml.into_bytes() };
    let top = parse_sitemap(&encode(sitemap_xml(web, host, PORT)), &sitemap_url, &options).unwrap();
    assert_eq!(top.gzip, gzip);
    if top.format == SitemapFormat::UrlSet {
        return (vec![top], None);
    }
    let parts = top
        .sitemaps
        .iter()
        .map(|part| {
            let number: u32 = part
                .url
                .path()
                .strip_prefix("/sitemap-")
                .unwrap()
                .strip_suffix(".xml")
                .unwrap()
                .parse()
                .unwrap();
            let xml = sitemap_part_xml(web, host, number, PORT).unwrap();
            parse_sitemap(&encode(xml), &part.url, &options).unwrap()
        })
        .collect();
    (parts, Some(top))
}

fn gzip_bytes(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

/// Checks every host of `web`: the sitemap's URLs are exactly the host's allowed pages, in
/// order, with the priorities the renderer wrote.
fn check_web(web: &Web, gzip: bool) -> usize {
    let mut indexes = 0;
    for host in 0..web.config().hosts {
        let (parts, index) = crawl_sitemaps(web, host, gzip);
        if let Some(index) = &index {
            indexes += 1;
            assert_eq!(index.sitemaps.len(), sitemap_parts(web, host) as usize);
            assert!(index.problems.is_empty());
        }
        let expected: Vec<String> = web
            .host_pages(host)
            .filter(|&id| web.page(id).unwrap().allowed)
            .map(|id| web.url(id, PORT))
            .collect();
        let got: Vec<String> =
            parts.iter().flat_map(|part| part.urls.iter().map(|u| u.url.to_string())).collect();
        assert_eq!(got, expected, "host {host}");
        for part in &parts {
            assert_eq!(
                (part.format, part.stopped.clone(), part.over_limit),
                (SitemapFormat::UrlSet, None, 0)
            );
            assert!(part.problems.is_empty(), "host {host}: {:?}", part.problems);
            assert!(part.urls.iter().all(|u| u.priority_given && (0.1..=1.0).contains(&u.priority)));
        }
        // Priorities are importance relative to the host's most important page, in tenths:
        // that page, when listed, has 1.0.
        let most_important = web
            .host_pages(host)
            .max_by(|&a, &b| web.page(a).unwrap().importance.total_cmp(&web.page(b).unwrap().importance))
            .unwrap();
        if web.page(most_important).unwrap().allowed {
            let listed =
                parts.iter().flat_map(|p| &p.urls).find(|u| u.url.as_str() == web.url(most_important, PORT));
            assert_eq!(listed.unwrap().priority, 1.0, "host {host}");
        }
    }
    indexes
}

#[test]
fn every_host_of_a_thousand_page_web_lists_exactly_its_allowed_pages() {
    let web = Web::new(WebConfig { pages: 1_000, ..WebConfig::default() }).unwrap();
    assert_eq!(check_web(&web, false), 0, "no host of 1,000 pages needs an index");
    assert_eq!(check_web(&web, true), 0);
    // Private pages exist and are not listed.
    assert!(web.pages().iter().any(|p| !p.allowed));
}

#[test]
fn a_host_beyond_one_chunk_gets_an_index_whose_parts_cover_its_pages() {
    let pages = 2 * SITEMAP_CHUNK + 500;
    let web = Web::new(WebConfig { hosts: 2, pages, ..WebConfig::default() }).unwrap();
    assert!(check_web(&web, false) >= 1);
}

#[test]
fn a_cross_submit_needs_the_robots_txt_allowance() {
    let web = Web::new(WebConfig::default()).unwrap();
    let xml = sitemap_xml(&web, 0, PORT);
    // Served as if h1's sitemap: every URL is h0's, so none may be listed under the default rule,
    // and all may under h0's robots.txt (a cross-submit).
    let h1 = url(&format!("http://{}:{PORT}/sitemap.xml", Web::host_name(1)));
    let strict = parse_sitemap(xml.as_bytes(), &h1, &SitemapOptions::default()).unwrap();
    assert!(strict.urls.is_empty());
    assert_eq!(strict.problems.len() as u64 + strict.problems_over_limit, strict.entries);
    let robots = url(&format!("http://{}:{PORT}/robots.txt", Web::host_name(0)));
    let options =
        SitemapOptions { location: LocationRule::ListedInRobotsTxt(robots), ..SitemapOptions::default() };
    let allowed = parse_sitemap(xml.as_bytes(), &h1, &options).unwrap();
    assert_eq!(allowed.urls.len() as u64, allowed.entries);
}

#[test]
fn a_gzip_bomb_of_zeros_is_refused_as_binary_without_inflating_it() {
    let bomb = gzip_bomb(1 << 30);
    let at = url("http://h0.web.test/sitemap.xml.gz");
    let error = parse_sitemap(&bomb, &at, &SitemapOptions::default()).unwrap_err();
    assert_eq!(error, SitemapError::Binary);
}

#[test]
fn a_gzip_bomb_of_sitemap_xml_stops_at_the_cap() {
    // A urlset of 50,010 entries followed by whitespace that inflates to 64 MiB, past the
    // 50 MiB cap: the entry limit keeps 50,000 and counts 10, and the byte cap ends the read.
    // (Whitespace rather than more entries keeps this debug-build test fast; gzip members
    // concatenate, RFC 1952 §2.2, so one compressed mebibyte of spaces is repeated.)
    let entry = b"<url><loc>http://h0.web.test/page/1</loc></url>\n";
    let mut head = b"<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">".to_vec();
    head.extend_from_slice(&entry.repeat(50_010));
    let mut bomb = gzip_bytes(&head);
    let spaces = gzip_bytes(&[b' '; 1 << 20]);
    for _ in 0..64 {
        bomb.extend_from_slice(&spaces);
    }
    assert!(bomb.len() < 1 << 20, "{} compressed bytes", bomb.len());
    let at = url("http://h0.web.test/sitemap.xml");
    let limits = SitemapLimits::default();
    let sitemap = parse_sitemap(&bomb, &at, &SitemapOptions::default()).unwrap();
    assert_eq!(sitemap.stopped, Some(Stopped::SizeCap { limit_bytes: limits.max_bytes }));
    assert_eq!(sitemap.bytes_read, limits.max_bytes);
    assert_eq!(sitemap.urls.len() as u64, limits.max_entries);
    assert_eq!((sitemap.entries, sitemap.over_limit), (50_010, 10));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_bytes_never_panic(body in proptest::collection::vec(proptest::num::u8::ANY, 0..600)) {
        let at = url("https://a.test/sitemap.xml");
        let _ = parse_sitemap(&body, &at, &SitemapOptions::default());
    }

    #[test]
    fn sitemap_like_input_never_panics_nor_exceeds_the_limits(
        pieces in proptest::collection::vec(
            proptest::sample::select(vec![
                "<urlset>", "</urlset>", "<sitemapindex>", "<url>", "</url>", "<sitemap>", "</sitemap>", "<loc>",
                "</loc>", "https://a.test/x", "https://b.test/", "&amp;", "&#x41;", "&bogus;", "<![CDATA[",
                "]]>", "<priority>", "0.3", "</priority>", "<lastmod>", "2005-01", "</lastmod>", "<changefreq>",
                "daily", "</changefreq>", "<image:image>", "</image:image>", "<!--", "-->", " ", "\n", "<", ">",
                "\u{feff}", "\u{1f}\u{8b}", "<x:url/>", "<loc/>",
            ]),
            0..80,
        ),
        max_entries in 0u64..6,
        max_bytes in 1u64..400,
        gzip in proptest::bool::ANY,
    ) {
        let text: String = pieces.concat();
        let body = if gzip { gzip_bytes(text.as_bytes()) } else { text.into_bytes() };
        let at = url("https://a.test/sitemap.xml");
        let limits = SitemapLimits { max_entries, max_bytes, max_loc_bytes: 64, max_problems: 3 };
        let options = SitemapOptions { limits, ..SitemapOptions::default() };
        if let Ok(sitemap) = parse_sitemap(&body, &at, &options) {
            proptest::prop_assert!((sitemap.urls.len() + sitemap.sitemaps.len()) as u64 <= max_entries);
            proptest::prop_assert!(sitemap.problems.len() <= 3);
            proptest::prop_assert!(sitemap.bytes_read <= max_bytes);
            proptest::prop_assert_eq!(sitemap.over_limit, sitemap.entries.saturating_sub(max_entries));
            proptest::prop_assert!(sitemap.urls.iter().all(|u| (0.0..=1.0).contains(&u.priority)));
        }
    }
}
