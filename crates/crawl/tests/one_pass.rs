//! The crawler reads a page's links and main text in one parser pass where the page is UTF-8
//! (`freshet_fetch::links::extract_links_with` carrying `freshet_content::MainTextPass`): what
//! it gives must equal the two passes it replaces, `extract_links` and `MainText::from_html`
//! of the body as UTF-8 text. Pages: the test web's renderer (noise, navigation, ads,
//! character references) and hand-written edge cases (other encodings, a byte order mark,
//! markup a strict parser refuses, references cut across elements).

#![allow(clippy::unwrap_used)]

use freshet_content::{MainText, MainTextPass};
use freshet_fetch::links::{LinkOptions, extract_links, extract_links_with};
use freshet_testweb::render::{Noise, RenderContext, page_html};
use freshet_testweb::{Web, WebConfig};

/// What the crawler's analysis does (`job.rs`, `Analysis::of`): one pass, and the main text on
/// its own only where the pass could not carry it.
fn one_pass(
    url: &freshet_url::Url,
    content_type: Option<&str>,
    body: &[u8],
) -> (freshet_fetch::links::PageLinks, MainText, bool) {
    let pass = MainTextPass::new();
    let (links, shared) = extract_links_with(url, content_type, body, &LinkOptions::default(), |settings| {
        pass.add_handlers(settings)
    });
    let text = if shared { pass.finish(None) } else { MainText::from_html(&String::from_utf8_lossy(body)) };
    (links, text, shared)
}

fn assert_same(content_type: Option<&str>, body: &[u8]) -> bool {
    let url = freshet_url::canonicalize("http://a.test/dir/page.html").unwrap();
    let (links, text, shared) = one_pass(&url, content_type, body);
    assert_eq!(links, extract_links(&url, content_type, body, &LinkOptions::default()));
    assert_eq!(text, MainText::from_html(&String::from_utf8_lossy(body)));
    shared
}

#[test]
fn one_pass_equals_two_on_test_web_pages() {
    let web = Web::new(WebConfig { hosts: 4, pages: 200, ..WebConfig::default() }).unwrap();
    let mut words = 0;
    for id in 0..200 {
        let noise = Noise {
            session: format!("{:016x}", u64::from(id) * 0x9e37_79b9),
            ad: u64::from(id) * 7919 + 13,
            served_at: "Tue, 24 Nov 2026 05:00:00 GMT".to_owned(),
        };
        let html = page_html(
            &web,
            id,
            u64::from(id % 3),
            &RenderContext { port: 8080, extra_root_links: &[], noise: Some(noise) },
        );
        assert!(
            assert_same(Some("text/html; charset=utf-8"), html.as_bytes()),
            "page {id} went the one-pass way"
        );
        words += MainText::from_html(&html).word_count();
    }
    assert!(words > 10_000, "the pages hold text: {words} words");
}

#[test]
fn one_pass_equals_two_on_edge_cases() {
    let page = "<html><head><title>Caf&eacute; &amp; more</title><base href=/b/>\
        <meta name=robots content=noindex></head><body><nav><a href=/n>menu</a></nav>\
        <p>Stra&szlig;e &am<b>p;</b> \u{130}stanbul <a href=x.html rel=nofollow>x</a> \
        <a href='y?a=1&amp;b=2'>y</a><p class=ad>Buy now<div>after <i>the</i> ad</div>\
        <ul><li>one<li>two</ul><script>var a = '<p>';</script>end";
    // UTF-8 as declared, as found valid, and announced by a meta tag: one pass.
    assert!(assert_same(Some("text/html; charset=utf-8"), page.as_bytes()));
    assert!(assert_same(None, page.as_bytes()));
    assert!(assert_same(None, format!("<meta charset=utf-8>{page}").as_bytes()));
    // A byte order mark, another encoding, bytes that are not UTF-8: the main text on its own.
    assert!(!assert_same(None, format!("\u{feff}{page}").as_bytes()));
    assert!(!assert_same(Some("text/html; charset=iso-8859-1"), b"<p>caf\xe9 <a href=/x>x</a></p><p>ok</p>"));
    assert!(!assert_same(Some("text/html; charset=utf-8"), b"<p>caf\xe9 <a href=/x>x</a></p><p>ok</p>"));
    // Markup the strict link pass stops at: the main text is read on its own, non-strict.
    let ambiguous = "<p>before <a href=/a>a</a></p><select><xmp><p>inside</p></xmp></select><p>after</p>";
    assert!(!assert_same(None, ambiguous.as_bytes()));
    // An empty page and a page of text only.
    assert!(assert_same(None, b""));
    assert!(assert_same(None, "just words &amp; more".as_bytes()));
}

#[test]
fn a_long_page_cut_into_writes_reads_the_same() {
    // Longer than the link pass's 16 KiB writes, with text nodes and references across the cuts.
    let paragraph = "<p>Some words &amp; a reference, <a href=/p>a link</a>, more\n words.</p>\n";
    let page = paragraph.repeat(1000);
    assert!(page.len() > 3 * (16 << 10));
    assert!(assert_same(None, page.as_bytes()));
}
