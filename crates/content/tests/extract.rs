//! Main-text extraction: what is kept, what is dropped, how text is normalised and cut into
//! blocks.

#![allow(clippy::unwrap_used)]

use freshet_content::MainText;

fn blocks(html: &str) -> Vec<String> {
    MainText::from_html(html).blocks().iter().map(|block| block.text().to_owned()).collect()
}

fn words(html: &str) -> String {
    MainText::from_html(html).joined()
}

#[test]
fn scripts_styles_and_page_furniture_are_dropped() {
    let html = r#"<!DOCTYPE html><html><head><title>River news</title>
        <style>p { color: red } /* hidden words */</style>
        <script>var s = "<p>not text</p>"; if (a < b) { document.write('x') }</script></head>
        <body><header><a href="/">Site name</a></header>
        <nav><a href="/?sid=42">home</a> <a href="/login">log in</a></nav>
        <main><h1>Flood at the mill</h1><p>The river rose.</p>
        <noscript>enable javascript</noscript><template><p>template text</p></template>
        <svg><text>drawn words</text></svg>
        <form><label>search</label><input name=q><button>go</button></form></main>
        <aside>related stories</aside><footer>© 2026 Example</footer></body></html>"#;
    assert_eq!(blocks(html), ["river news", "flood at the mill", "the river rose"]);
}

#[test]
fn noise_classes_and_ids_are_dropped_with_their_content() {
    let html = r#"<body><p>kept one</p>
        <div class="ad">Advertisement 3: cheap boots</div>
        <p class="served">Served Mon, 01 Jun 2026 10:00:00 GMT</p>
        <div id="cookie-banner"><p>We use cookies</p><p>Accept?</p></div>
        <div class="post-share"><a>share on social</a></div>
        <span class="timestamp">10:42</span>
        <div class="article-body">kept two <span class="adSlot">inline ad</span> still two</div>
        <section id="comments"><p>first!</p></section></body>"#;
    assert_eq!(blocks(html), ["kept one", "kept two still two"]);
}

#[test]
fn hidden_elements_are_dropped() {
    assert_eq!(
        words("<p>a</p><p hidden>b</p><div aria-hidden=\"true\">c</div><div aria-hidden=false>d</div>"),
        "a d"
    );
}

#[test]
fn structural_elements_are_never_noise_by_class() {
    let html = r#"<html class="has-sidebar"><body class="page comments-open"><main id="ad">
        <article class="share"><p>the story</p></article></main></body></html>"#;
    assert_eq!(words(html), "the story");
}

#[test]
fn character_references_are_decoded() {
    assert_eq!(
        words("<p>Fish &amp; Chips&nbsp;&mdash; caf&eacute; &#233;t&#xE9; &lt;tag&gt; AT&amp;T</p>"),
        "fish chips café été tag at t"
    );
    // A reference cut by inline markup is not one: `&am` + `p;` stay text (a browser shows
    // `x&amp;y`).
    assert_eq!(words("<p>x&am<b>p;</b>y</p>"), "x amp y");
}

#[test]
fn whitespace_case_and_punctuation_do_not_count() {
    let a = words("<p>Hello,   World!\n  It's   <em>2026</em>.</p>");
    let b = words("<p>hello world\tit S 2026</p>");
    assert_eq!(a, "hello world it s 2026");
    assert_eq!(a, b);
}

#[test]
fn inline_elements_join_and_blocks_split() {
    assert_eq!(blocks("<p>ri<b>ver</b> <a href=x>bank</a></p><p>delta</p>"), ["river bank", "delta"]);
    assert_eq!(blocks("<ul><li>one<li>two</ul>tail<br>after<hr>end"), ["one", "two", "tail", "after", "end"]);
    assert_eq!(blocks("<table><tr><td>a<td>b<tr><th>c</table><div>d</div>"), ["a", "b", "c", "d"]);
}

#[test]
fn comments_and_doctype_are_not_text() {
    assert_eq!(words("<!DOCTYPE html><!-- a comment --><p>text<!-- inner --></p>"), "text");
}

/// Regression: `lol_html` closes an element only at an end tag, so an unclosed
/// `<p class="served">` followed by a `<div>` (HTML closes the `p` there) used to drop the
/// rest of the page.
#[test]
fn unclosed_noise_paragraph_is_closed_by_the_next_block() {
    let html = "<p class=served>Served now<div>content</div><p>more<p class=date>today<h2>Title</h2>end";
    assert_eq!(blocks(html), ["content", "more", "title", "end"]);
}

#[test]
fn implied_end_tags_of_list_items_cells_and_options() {
    assert_eq!(words("<ul><li class=ad>ad<li>kept</ul>"), "kept");
    assert_eq!(words("<dl><dt class=date>x<dd>kept<dt>kept2</dl>"), "kept kept2");
    assert_eq!(words("<table><tr><td class=promo>x<td>kept<tr><td>kept2</table>"), "kept kept2");
    // A nested list's items do not close the outer item.
    assert_eq!(words("<ul><li class=ad>ad<ul><li>inner</ul>still ad</ul><p>after"), "after");
}

#[test]
fn an_end_tag_closes_what_was_opened_after_its_element() {
    // `</div>` ends the ad even though its `<span>` was never closed.
    assert_eq!(words("<div class=ad><span>x</div><p>after</p>"), "after");
    // Misnested markup follows `lol_html`'s stack, not the browser's: `</p>` ends the `p`
    // that the `<div>` closed already, and with it the div opened after it, so `c` is kept
    // (a browser keeps the div open and hides `c`); the stray `</div>` then ends nothing, and
    // `c` and `d` join in one word.
    assert_eq!(words("<p>a<div class=ad>b</p>c</div>d"), "a cd");
}

#[test]
fn unicode_text_is_tokenised() {
    assert_eq!(words("<p>STRASSE Straße — Ελλάδα, 東京!</p>"), "strasse straße ελλάδα 東京");
}

#[test]
fn an_unclosed_noise_element_drops_the_rest_as_a_browser_would_hide_it() {
    assert_eq!(words("<p>before</p><div class=ad>unclosed <p>after"), "before");
}

#[test]
fn empty_and_text_only_inputs() {
    assert!(MainText::from_html("").blocks().is_empty());
    assert_eq!(MainText::from_html("").word_count(), 0);
    assert_eq!(words("just text, no markup"), "just text no markup");
    assert_eq!(MainText::from_html("<p>a b</p><p>c</p>").word_count(), 3);
    assert!(MainText::from_html("<p>a</p>").parse_error().is_none());
}
