//! The crawler reads a page's links and main text in one parser pass where the page is UTF-8
//! (`freshet_fetch::links::extract_links_sharing` carrying `freshet_content::MainTextPass`,
//! whose handler on every element also reads the links): what it gives must equal the two
//! passes it replaces, `extract_links` (one selector per link element) and
//! `MainText::from_html` of the body as UTF-8 text. Pages: the test web's renderer (noise, navigation, ads,
//! character references) and hand-written edge cases (other encodings, a byte order mark,
//! markup a strict parser refuses, references cut across elements).

#![allow(clippy::unwrap_used)]

use freshet_content::{MainText, MainTextPass};
use freshet_fetch::links::{LinkOptions, extract_links, extract_links_sharing};
use freshet_testweb::render::{Noise, RenderContext, page_html};
use freshet_testweb::{Web, WebConfig};

/// What the crawler's analysis does (`job.rs`, `Analysis::of`): one pass, and the main text on
/// its own only where the pass could not carry it.
fn one_pass(
    url: &freshet_url::Url,
    content_type: Option<&str>,
    body: &[u8],
    options: &LinkOptions,
) -> (freshet_fetch::links::PageLinks, MainText, bool) {
    let pass = MainTextPass::new();
    let (links, shared) = extract_links_sharing(url, content_type, body, options, |settings, links| {
        pass.add_handlers_with(settings, move |element, name| {
            links.element(element, name);
            Ok(())
        })
    });
    let text = if shared { pass.finish(None) } else { MainText::from_html(&String::from_utf8_lossy(body)) };
    (links, text, shared)
}

/// The options the crawler runs with, and with anchor texts (focused crawling).
fn both_options() -> [LinkOptions; 2] {
    [LinkOptions::default(), LinkOptions { anchor_text: true, ..LinkOptions::default() }]
}

/// Asserts that one pass gives what two give, with and without anchor texts; whether the
/// pass carried the main text (the same both ways).
fn assert_same(content_type: Option<&str>, body: &[u8]) -> bool {
    let url = freshet_url::canonicalize("http://a.test/dir/page.html").unwrap();
    let [without, with] = both_options().map(|options| {
        let (links, text, shared) = one_pass(&url, content_type, body, &options);
        assert_eq!(links, extract_links(&url, content_type, body, &options));
        assert_eq!(text, MainText::from_html(&String::from_utf8_lossy(body)));
        assert_eq!(links.anchor_texts.len(), if options.anchor_text { links.links.len() } else { 0 });
        (links, shared)
    });
    // Anchor texts change nothing else.
    assert_eq!(with.0.links, without.0.links);
    assert_eq!(with.1, without.1);
    without.1
}

/// The anchor texts one pass gives for `page` (UTF-8), each with its link's path.
fn anchor_texts(page: &str) -> Vec<(String, String)> {
    let url = freshet_url::canonicalize("http://a.test/dir/page.html").unwrap();
    let options = LinkOptions { anchor_text: true, ..LinkOptions::default() };
    let (links, _, shared) = one_pass(&url, None, page.as_bytes(), &options);
    assert!(shared, "one pass: {page}");
    links.links.iter().map(|link| link.url.path().to_owned()).zip(links.anchor_texts).collect()
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

/// The one pass reads links by tag name from its handler on every element, `extract_links` by
/// one selector per element kind (`a[href]`, `link[href][rel]`, …): the same elements must
/// count, whatever their case, whichever attributes they lack, and wherever they stand.
#[test]
fn links_by_tag_name_equal_links_by_selector() {
    let pages = [
        // Elements without the attribute their selector asks for, then with it.
        "<a>no href</a><a href=/a1>a1</a><area alt=x><area href=/area1>\
         <iframe></iframe><iframe src=/frame1></iframe><frameset><frame><frame src=/frame2></frameset>",
        // `link` needs both `href` and `rel`; a canonical without `href` does not hide a later one.
        "<link rel=canonical><link href=/nothing><link rel=canonical href=/canonical1>\
         <link rel=canonical href=/canonical2><link rel=alternate href=/alt1>\
         <link rel='alternate stylesheet' href=/style><link rel=next href=/next1>\
         <link rel=NEXT href=/next2><link rel=stylesheet href=/style2>",
        // The first `base` with an `href` counts; one without is skipped.
        "<base target=_blank><base href=/b1/><base href=/b2/><a href=rel>rel</a>",
        // `meta` needs `content`: refresh, robots, a name without content.
        "<meta name=robots><meta http-equiv=refresh><meta http-equiv=Refresh content='0; url=/refresh1'>\
         <meta name=ROBOTS content='noindex'><a href=/after-meta>m</a>",
        "<meta name=robots content=nofollow><a href=/not-followed>n</a><link rel=canonical href=/c>",
        // Upper-case tags and attributes, foreign content, nofollow, `href` on other elements.
        "<A HREF=/upper>U</A><AREA HREF=/upper-area><svg><a href=/svg-a>s</a></svg>\
         <math><a href=/math-a>m</a></math><a rel='external nofollow' href=/nf>nf</a>\
         <div href=/div>d</div><img src=/img.png><script src=/script.js></script>",
        // References in attribute values, empty and fragment-only hrefs.
        "<a href='/q?a=1&amp;b=2'>q</a><a href=''>self</a><a href='#top'>top</a><a href=' /spaced '>s</a>",
        // The markup inside `noscript`, read after the page by the same rules, in its place.
        "<a href=/before>b</a><noscript><iframe src=toc.html></iframe><a href=/ns>n</a></noscript>         <p>text</p><a href=/after>a</a>",
    ];
    for page in pages {
        assert!(assert_same(Some("text/html; charset=utf-8"), page.as_bytes()), "one pass: {page}");
    }
    // The test above must see links: it compares two lists, which could both be empty.
    let url = freshet_url::canonicalize("http://a.test/dir/page.html").unwrap();
    let (links, _, _) = one_pass(&url, None, pages[0].as_bytes(), &LinkOptions::default());
    let found: Vec<&str> = links.links.iter().map(|link| link.url.path()).collect();
    assert_eq!(found, ["/a1", "/area1", "/frame1", "/frame2"]);
    let (links, _, _) = one_pass(&url, None, pages[1].as_bytes(), &LinkOptions::default());
    assert_eq!(links.canonical.as_ref().map(|url| url.path()), Some("/canonical1"));
    let (links, _, _) = one_pass(&url, None, pages[pages.len() - 1].as_bytes(), &LinkOptions::default());
    let found: Vec<&str> = links.links.iter().map(|link| link.url.path()).collect();
    assert_eq!(found, ["/before", "/dir/toc.html", "/ns", "/after"]);
}

/// The one pass reads anchor texts from the text its main-text handler also reads: the texts
/// must equal `extract_links`'s (compared by `assert_same`), and must be there to compare.
#[test]
fn anchor_texts_in_one_pass_equal_anchor_texts_in_two() {
    let pages = [
        "<p>See <a href=/a>the <b>first</b>\n link</a> and <a href=/b>Fish &amp; chips</a>.</p>\
         <a href=/a>again</a><map><area href=/area alt='a map'></map><link rel=next href=/next>",
        // Unclosed and nameless anchors, nofollow and rejected links between them.
        "<a href=/1>one <a name=x>none</a><a rel=nofollow href=/nf>nf</a><a href='mailto:x@a.test'>m</a>\
         <a href=/2>two<div>block</div></a><a href=/3>three",
        // Anchors inside and around noscript.
        "<a href=/o>outer<noscript><a href=/in>in</a></noscript> tail</a>",
    ];
    for page in pages {
        assert!(assert_same(Some("text/html; charset=utf-8"), page.as_bytes()), "one pass: {page}");
    }
    let pairs = |texts: &[(&str, &str)]| -> Vec<(String, String)> {
        texts.iter().map(|&(path, text)| (path.to_owned(), text.to_owned())).collect()
    };
    assert_eq!(
        anchor_texts(pages[0]),
        pairs(&[("/a", "the first link again"), ("/b", "Fish & chips"), ("/area", "a map"), ("/next", "")])
    );
    assert_eq!(anchor_texts(pages[1]), pairs(&[("/1", "one"), ("/2", "twoblock"), ("/3", "three")]));
    assert_eq!(anchor_texts(pages[2]), pairs(&[("/o", "outer tail"), ("/in", "in")]));
}
