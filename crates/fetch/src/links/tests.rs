//! One test per rule of the link extractor's table.

#![allow(clippy::unwrap_used)]

use super::*;

fn page() -> Url {
    freshet_url::canonicalize("https://a.test/dir/page.html").unwrap()
}

fn extract(html: &str) -> PageLinks {
    extract_links(&page(), Some("text/html; charset=utf-8"), html.as_bytes(), &LinkOptions::default())
}

fn urls(found: &PageLinks) -> Vec<(&str, LinkKind)> {
    found.links.iter().map(|link| (link.url.as_str(), link.kind)).collect()
}

#[test]
fn anchors_and_areas_resolve_against_the_page() {
    let found =
        extract(r#"<a href="x.html">x</a><map><area href="/map/1" shape=rect></map><a name=x>no href</a>"#);
    assert_eq!(
        urls(&found),
        [("https://a.test/dir/x.html", LinkKind::Anchor), ("https://a.test/map/1", LinkKind::Area)]
    );
}

#[test]
fn links_are_canonicalised() {
    let found = extract(r#"<a href="HTTPS://A.TEST:443/%7Eu/./v/../w?#frag">x</a>"#);
    assert_eq!(urls(&found), [("https://a.test/~u/w", LinkKind::Anchor)]);
}

#[test]
fn link_rel_alternate_canonical_next_only() {
    let found = extract(
        r#"<head><link rel="Alternate" hreflang=fr href="/fr/"><link rel="alternate stylesheet" href="/s.css">
        <link rel=stylesheet href="/main.css"><link rel="next" href="?page=2"><link rel=icon href=/i.png>
        <link rel="canonical" href="/dir/page.html?id=1"><link rel="canonical" href="/second"></head>"#,
    );
    assert_eq!(
        urls(&found),
        [
            ("https://a.test/fr/", LinkKind::Alternate),
            ("https://a.test/dir/page.html?page=2", LinkKind::Next),
            ("https://a.test/dir/page.html?id=1", LinkKind::Canonical),
        ]
    );
    assert_eq!(found.canonical.unwrap().as_str(), "https://a.test/dir/page.html?id=1");
}

#[test]
fn a_canonical_naming_the_page_itself_is_not_a_link() {
    let found = extract(r#"<link rel=canonical href="https://a.test/dir/page.html">"#);
    assert_eq!(found.canonical.unwrap(), page());
    assert!(found.links.is_empty());
}

#[test]
fn iframes_and_frames() {
    let found = extract(r#"<iframe src="/embed"></iframe><frameset><frame src="f.html"></frameset>"#);
    assert_eq!(
        urls(&found),
        [("https://a.test/embed", LinkKind::Frame), ("https://a.test/dir/f.html", LinkKind::Frame)]
    );
}

#[test]
fn base_href_applies_to_every_link_even_earlier_ones_and_only_the_first_counts() {
    let found = extract(
        r#"<a href="early">e</a><base href="https://b.test/root/"><base href="/ignored/"><a href="late">l</a>"#,
    );
    assert_eq!(
        urls(&found),
        [("https://b.test/root/early", LinkKind::Anchor), ("https://b.test/root/late", LinkKind::Anchor)]
    );
    assert_eq!(found.base.unwrap().as_str(), "https://b.test/root/");
}

#[test]
fn a_relative_base_resolves_against_the_page() {
    let found = extract(r#"<base href="../other/"><a href="x">x</a>"#);
    assert_eq!(urls(&found), [("https://a.test/other/x", LinkKind::Anchor)]);
}

#[test]
fn meta_refresh() {
    let found = extract(
        r#"<meta http-equiv="Refresh" content="0; URL='/moved'"><meta http-equiv=refresh content=5>"#,
    );
    assert_eq!(urls(&found), [("https://a.test/moved", LinkKind::Refresh)]);
}

#[test]
fn rel_nofollow_is_respected() {
    let found = extract(
        r#"<a rel="external NoFollow" href="/no">n</a><area rel=nofollow href=/no2><a href="/yes">y</a>"#,
    );
    assert_eq!(urls(&found), [("https://a.test/yes", LinkKind::Anchor)]);
    assert_eq!(found.nofollow_skipped, 2);
}

#[test]
fn meta_robots_nofollow_drops_every_link_but_keeps_the_canonical() {
    let found = extract(
        r#"<meta name="ROBOTS" content="noindex, NOFOLLOW"><link rel=canonical href=/c><a href="/a">a</a><iframe src=/f></iframe>"#,
    );
    assert!(found.links.is_empty());
    assert_eq!(found.nofollow_skipped, 2);
    assert_eq!(found.robots, RobotsMeta { noindex: true, nofollow: true });
    assert_eq!(found.canonical.unwrap().as_str(), "https://a.test/c");
}

#[test]
fn meta_robots_none_and_noindex_alone() {
    assert_eq!(
        extract(r#"<meta name=robots content=none>"#).robots,
        RobotsMeta { noindex: true, nofollow: true }
    );
    let found = extract(r#"<meta name=robots content="noindex"><a href=/a>a</a>"#);
    assert_eq!(found.robots, RobotsMeta { noindex: true, nofollow: false });
    assert_eq!(found.links.len(), 1);
}

#[test]
fn meta_robots_for_our_agent_only_when_asked() {
    let html = br#"<meta name="freshet" content="nofollow"><meta name="otherbot" content="noindex"><a href=/a>a</a>"#;
    let options = LinkOptions { robots_agent: Some("freshet".into()), ..LinkOptions::default() };
    let found = extract_links(&page(), None, html, &options);
    assert_eq!(found.robots, RobotsMeta { noindex: false, nofollow: true });
    assert!(found.links.is_empty());
    assert_eq!(extract_links(&page(), None, html, &LinkOptions::default()).robots, RobotsMeta::default());
}

#[test]
fn links_in_scripts_comments_and_text_are_not_links() {
    let found = extract(
        r#"<script>var s = '<a href="/script">';</script><!-- <a href="/comment"> --><p>href="/text"</p><a href=/real>r</a>"#,
    );
    assert_eq!(urls(&found), [("https://a.test/real", LinkKind::Anchor)]);
}

#[test]
fn duplicates_self_links_and_unfetchable_schemes() {
    let found = extract(
        r##"<a href="/x">1</a><a href="/x#again">2</a><a href="">self</a><a href="#top">self</a>
        <a href="mailto:a@a.test">m</a><a href="javascript:void(0)">j</a><a href="http://[bad">b</a>"##,
    );
    assert_eq!(urls(&found), [("https://a.test/x", LinkKind::Anchor)]);
    assert_eq!(found.rejected, 3);
}

#[test]
fn whitespace_and_entities_in_attributes() {
    let found = extract(
        "<a href=\"\n  /a?x=1&amp;y=2  \t\">a</a><a href=\"&#x2F;b&#47;c\">b</a><a href=\"/d?e=1&copy=2\">d</a>",
    );
    assert_eq!(
        urls(&found),
        [
            ("https://a.test/a?x=1&y=2", LinkKind::Anchor),
            ("https://a.test/b/c", LinkKind::Anchor),
            // In an attribute, a legacy reference without `;` before `=` is not decoded (HTML §13.2.5.73).
            ("https://a.test/d?e=1&copy=2", LinkKind::Anchor),
        ]
    );
}

#[test]
fn max_links_truncates() {
    let html: String = (0..20).map(|i| format!("<a href=/p{i}>p</a>")).collect();
    let options = LinkOptions { max_links: 5, ..LinkOptions::default() };
    let found = extract_links(&page(), None, html.as_bytes(), &options);
    assert_eq!(found.links.len(), 5);
    assert!(found.truncated);
}

#[test]
fn latin1_page_by_header_decodes_hrefs() {
    // "café" in windows-1252: the href's é is one byte 0xE9, which becomes %C3%A9 once decoded.
    let html = b"<a href=\"/caf\xe9\">x</a>";
    let found = extract_links(&page(), Some("text/html; charset=iso-8859-1"), html, &LinkOptions::default());
    assert_eq!(found.encoding, encoding_rs::WINDOWS_1252);
    assert_eq!(found.encoding_source, CharsetSource::HttpHeader);
    assert_eq!(urls(&found), [("https://a.test/caf%C3%A9", LinkKind::Anchor)]);
}

#[test]
fn shift_jis_page_by_meta_decodes_hrefs() {
    // "日本" in Shift_JIS is 93 FA 96 7B.
    let html = b"<meta charset=\"shift_jis\"><a href=\"/\x93\xfa\x96\x7b\">x</a>";
    let found = extract_links(&page(), Some("text/html"), html, &LinkOptions::default());
    assert_eq!(found.encoding_source, CharsetSource::MetaTag);
    assert_eq!(urls(&found), [("https://a.test/%E6%97%A5%E6%9C%AC", LinkKind::Anchor)]);
}

#[test]
fn utf16_page_by_byte_order_mark() {
    let mut html = vec![0xff, 0xfe];
    for unit in "<a href=\"/\u{65e5}\">x</a>".encode_utf16() {
        html.extend_from_slice(&unit.to_le_bytes());
    }
    let found = extract_links(&page(), None, &html, &LinkOptions::default());
    assert_eq!(found.encoding, encoding_rs::UTF_16LE);
    assert_eq!(urls(&found), [("https://a.test/%E6%97%A5", LinkKind::Anchor)]);
}

#[test]
fn invalid_utf8_labelled_utf8_still_yields_links() {
    let html = b"<p>caf\xc3\x28 \xff\xfe</p><a href=\"/ok\">ok</a><a href=\"/b\xffd\">bad</a>";
    let found = extract_links(&page(), Some("text/html; charset=utf-8"), html, &LinkOptions::default());
    assert_eq!(found.parse_error, None);
    assert_eq!(
        urls(&found),
        [("https://a.test/ok", LinkKind::Anchor), ("https://a.test/b%EF%BF%BDd", LinkKind::Anchor)]
    );
}

#[test]
fn empty_and_non_html_input_yield_nothing() {
    assert!(extract("").links.is_empty());
    let binary: Vec<u8> = (0..4096u32).map(|i| (i * 7919 % 251) as u8).collect();
    let found = extract_links(&page(), Some("text/html"), &binary, &LinkOptions::default());
    assert!(found.links.is_empty(), "{found:?}");
}

#[test]
fn links_inside_noscript_are_read_as_markup() {
    // mdBook's table of contents, drawn by a script; without it, the frame below.
    let found = extract(
        r#"<nav id="sidebar"><script src="toc.js"></script><noscript>
           <iframe class="sidebar-iframe-outer" src="toc.html"></iframe></noscript></nav>"#,
    );
    assert_eq!(urls(&found), [("https://a.test/dir/toc.html", LinkKind::Frame)]);
}

#[test]
fn noscript_links_keep_their_place_in_document_order() {
    let found = extract(
        "<a href=/1>1</a><noscript><a href=/2>2</a><p>text <A HREF='/3?a=1&amp;b=2'>3</A></noscript>\
         <a href=/4>4</a><noscript><meta http-equiv=refresh content='0; url=/5'></noscript><a href=/6>6</a>",
    );
    let paths: Vec<&str> = found.links.iter().map(|link| &link.url.as_str()[14..]).collect();
    assert_eq!(paths, ["/1", "/2", "/3?a=1&b=2", "/4", "/5", "/6"]);
    assert_eq!(found.links[4].kind, LinkKind::Refresh);
}

#[test]
fn each_noscript_is_read_on_its_own() {
    // The first ends inside a tag (dropped at its end, as at the end of a file); read joined
    // to the next, that tag would swallow the second's link.
    let found = extract(
        r#"<noscript><a href="/cut"</noscript><p>between</p><noscript><a href=/whole>w</a></noscript>"#,
    );
    assert_eq!(urls(&found), [("https://a.test/whole", LinkKind::Anchor)]);
}

#[test]
fn noscript_rules_are_the_pages_rules() {
    // `nofollow` on the link and in a robots meta inside noscript; a base inside it counts
    // only where the page has none.
    let found = extract("<noscript><a rel=nofollow href=/nf>n</a><a href=/f>f</a></noscript>");
    assert_eq!(urls(&found), [("https://a.test/f", LinkKind::Anchor)]);
    assert_eq!(found.nofollow_skipped, 1);
    let found =
        extract("<head><noscript><meta name=robots content=nofollow></noscript></head><a href=/x>x</a>");
    assert!(found.robots.nofollow && found.links.is_empty(), "{found:?}");
    let found = extract("<base href=/b/><noscript><base href=/other/><a href=x>x</a></noscript>");
    assert_eq!(urls(&found), [("https://a.test/b/x", LinkKind::Anchor)]);
    // Text after a noscript, even an empty one, is not its markup: here a script's.
    let found = extract(
        "<noscript></noscript><script>w('<a href=/x>')</script><noscript> </noscript><textarea><a href=/y></textarea>",
    );
    assert!(found.links.is_empty(), "{found:?}");
    // Script text and comments stay what they are.
    let found =
        extract("<noscript><!-- <a href=/comment> --></noscript><script>'<noscript><a href=/s>'</script>");
    assert!(found.links.is_empty(), "{found:?}");
}

#[test]
fn noscript_links_of_a_page_in_another_encoding_are_decoded() {
    // "café" in windows-1252, inside noscript: handed over decoded, read as UTF-8.
    let html = b"<noscript><a href=\"/caf\xe9\">x</a></noscript>";
    let found = extract_links(&page(), Some("text/html; charset=iso-8859-1"), html, &LinkOptions::default());
    assert_eq!(urls(&found), [("https://a.test/caf%C3%A9", LinkKind::Anchor)]);
    // And of a UTF-16 page, decoded before the parser.
    let mut html = vec![0xff, 0xfe];
    for unit in "<noscript><a href=\"/\u{65e5}\">x</a></noscript>".encode_utf16() {
        html.extend_from_slice(&unit.to_le_bytes());
    }
    let found = extract_links(&page(), None, &html, &LinkOptions::default());
    assert_eq!(urls(&found), [("https://a.test/%E6%97%A5", LinkKind::Anchor)]);
}

#[test]
fn only_the_first_noscripts_of_a_page_are_read() {
    let html: String =
        (0..MAX_NOSCRIPTS + 10).map(|i| format!("<noscript><a href=/n{i}>n</a></noscript>")).collect();
    let found = extract(&html);
    assert_eq!(found.links.len(), MAX_NOSCRIPTS);
    assert_eq!(found.links[MAX_NOSCRIPTS - 1].url.path(), format!("/n{}", MAX_NOSCRIPTS - 1));
}

fn with_texts(html: &str) -> PageLinks {
    let options = LinkOptions { anchor_text: true, ..LinkOptions::default() };
    extract_links(&page(), Some("text/html; charset=utf-8"), html.as_bytes(), &options)
}

/// Each link's path with its anchor text; fails if the two lists are not the same length.
fn texts(found: &PageLinks) -> Vec<(&str, &str)> {
    assert_eq!(found.links.len(), found.anchor_texts.len(), "{found:?}");
    found.links.iter().zip(&found.anchor_texts).map(|(link, text)| (link.url.path(), text.as_str())).collect()
}

#[test]
fn anchor_texts_of_several_anchors() {
    let found = with_texts(
        "<p>See <a href=/one>the first</a>, <a href=/two>  the\n\t second </a> and <a href=/three></a>.",
    );
    assert_eq!(texts(&found), [("/one", "the first"), ("/two", "the second"), ("/three", "")]);
}

#[test]
fn anchor_text_runs_through_nested_markup() {
    let found = with_texts("<a href=x>Hello <b>big</b> world</a><a href=y>one<i>word</i></a>");
    assert_eq!(texts(&found), [("/dir/x", "Hello big world"), ("/dir/y", "oneword")]);
}

#[test]
fn anchor_text_decodes_character_references_per_text_node() {
    let found = with_texts(
        "<a href=/r>Fish &amp; chips&nbsp;&lt;3 &#x41;&#66; &quot;q&quot; &#39;s&#39;</a><a href=/cut>&am<b>p;</b></a>",
    );
    assert_eq!(texts(&found), [("/r", "Fish & chips <3 AB \"q\" 's'"), ("/cut", "&amp;")]);
}

#[test]
fn anchor_texts_of_one_url_are_joined_in_document_order() {
    let found = with_texts(
        "<a href=/x>first</a><a href=/y>other</a><a href=/x#frag> second </a><a href=/x></a><a href=/x>third</a>",
    );
    assert_eq!(texts(&found), [("/x", "first second third"), ("/y", "other")]);
}

#[test]
fn area_text_is_its_alt_and_other_kinds_have_none() {
    let found = with_texts(
        "<head><link rel=alternate href=/alt><link rel=next href=/next><link rel=canonical href=/canon>\
         <meta http-equiv=refresh content='5; url=/refresh'></head><map><area href=/area alt=' The  map &amp; more '>\
         <area href=/bare></map><iframe src=/frame>frame text</iframe>",
    );
    assert_eq!(
        texts(&found),
        [
            ("/alt", ""),
            ("/next", ""),
            ("/refresh", ""),
            ("/area", "The map & more"),
            ("/bare", ""),
            ("/frame", ""),
            ("/canon", ""),
        ]
    );
}

#[test]
fn anchor_texts_are_empty_without_the_option() {
    let html = "<a href=/x>x</a><area href=/y alt=y>";
    let found = extract(html);
    assert_eq!(found.links.len(), 2);
    assert!(found.anchor_texts.is_empty());
    // The option changes nothing else.
    let with = with_texts(html);
    assert_eq!(with.anchor_texts, ["x", "y"]);
    assert_eq!(PageLinks { anchor_texts: Vec::new(), ..with }, found);
}

#[test]
fn anchor_texts_stay_aligned_past_skipped_and_rejected_links() {
    let found = with_texts(
        "<a href=/1>one</a><a rel=nofollow href=/nf>skipped</a><a href='mailto:a@a.test'>mail</a>\
         <a href=''>self</a><a href=/2>two</a><area rel=nofollow href=/nfa alt=no><a href='http://[bad'>bad</a>\
         <a href=/3>three</a>",
    );
    assert_eq!(texts(&found), [("/1", "one"), ("/2", "two"), ("/3", "three")]);
    assert_eq!((found.nofollow_skipped, found.rejected), (2, 2));
    // And past the cut of `max_links`.
    let html: String = (0..20).map(|i| format!("<a href=/p{i}>text {i}</a>")).collect();
    let options = LinkOptions { max_links: 5, anchor_text: true, ..LinkOptions::default() };
    let found = extract_links(&page(), None, html.as_bytes(), &options);
    assert_eq!(found.anchor_texts, ["text 0", "text 1", "text 2", "text 3", "text 4"]);
}

#[test]
fn anchor_text_is_capped_however_many_anchors_point_at_the_url() {
    let html: String = (0..5000).map(|i| format!("<a href=/same>word{i}</a>")).collect();
    let found = with_texts(&html);
    assert_eq!(found.links.len(), 1);
    let text = &found.anchor_texts[0];
    assert!(text.len() <= MAX_ANCHOR_TEXT && text.len() > MAX_ANCHOR_TEXT - 10, "{}", text.len());
    assert!(text.starts_with("word0 word1 word2 "));
}

#[test]
fn one_huge_anchor_text_is_capped_on_a_char_boundary() {
    // Two-byte characters across the parser's 16 KiB writes, and references among them.
    let html = format!("<a href=/big>a{}</a><a href=/next>next</a>", "é &amp; ".repeat(100_000));
    let found = with_texts(&html);
    assert_eq!(texts(&found)[1], ("/next", "next"));
    let text = &found.anchor_texts[0];
    assert!(text.len() <= MAX_ANCHOR_TEXT && text.len() > MAX_ANCHOR_TEXT - 8, "{}", text.len());
    assert!(text.starts_with("aé & é & "));
    // The text is cut at the first character that does not fit: no later, shorter one follows.
    let html = format!("<a href=/c>{}é<b>a</b></a>", "x".repeat(MAX_ANCHOR_TEXT - 1));
    assert_eq!(with_texts(&html).anchor_texts, ["x".repeat(MAX_ANCHOR_TEXT - 1)]);
    // Joining texts also cuts on a char boundary.
    let html = format!("<a href=/j>{}</a><a href=/j>ééé</a>", "x".repeat(MAX_ANCHOR_TEXT - 3));
    let found = with_texts(&html);
    assert_eq!(found.anchor_texts[0], format!("{} é", "x".repeat(MAX_ANCHOR_TEXT - 3)));
}

#[test]
fn an_unclosed_anchor_ends_at_the_next_anchor() {
    let found = with_texts("<a href=/1>one <a href=/2>two</a> after <a name=x>named</a><a href=/3>three");
    assert_eq!(texts(&found), [("/1", "one"), ("/2", "two"), ("/3", "three")]);
    // An anchor without `href` ends the open one's text.
    let found = with_texts("<a href=/1>one <a name=x>not one</a>");
    assert_eq!(texts(&found), [("/1", "one")]);
    // `lol_html` ends an anchor at the end tag of an element around it (a browser would open
    // it again for ` more`: `lol_html` keeps no list of formatting elements); what follows is
    // no anchor's.
    let found =
        with_texts("<a href=/1>one <b><a href=/2>two</b> more</a> after <a href=/3>three</a></a> after");
    assert_eq!(texts(&found), [("/1", "one"), ("/2", "two"), ("/3", "three")]);
}

#[test]
fn anchor_texts_inside_noscript_are_read_as_on_the_page() {
    let found = with_texts(
        "<a href=/outer>outer <noscript><a href=/in>inside &amp; more</a></noscript> still outer</a>",
    );
    assert_eq!(texts(&found), [("/outer", "outer still outer"), ("/in", "inside & more")]);
}

#[test]
fn a_reference_cut_by_the_parsers_writes_is_decoded() {
    // The parser is fed 16 KiB at a time: `&amp;` straddles the first cut, inside one text node.
    let start = "<a href=/x>start";
    let html = format!("{start}{}&amp;end</a>", " ".repeat((16 << 10) - 2 - start.len()));
    assert_eq!(&html[(16 << 10) - 2..(16 << 10)], "&a");
    assert_eq!(with_texts(&html).anchor_texts, ["start &end"]);
}
