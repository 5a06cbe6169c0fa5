//! Main-text extraction: one streaming `lol_html` pass that keeps the text a reader sees and
//! drops what repeats or rotates around it, then normalises it into words grouped in blocks.
//!
//! The pass builds no tree. An element handler on every element and an end-tag handler on
//! every element that can have content keep a stack of open elements; a document text handler
//! keeps a text chunk unless an open element is noise ([`DROPPED_ELEMENTS`], a class or id
//! token in [`NOISE_TOKENS`], `hidden`, `aria-hidden="true"`). Every element that is not
//! inline ([`INLINE_ELEMENTS`]) starts and ends a block, the unit of the host boilerplate
//! table. Comments and the doctype are not text.
//!
//! Why an own stack: `lol_html` closes an element only at its end tag (or the end tag of an
//! ancestor); it knows void elements but not HTML's implied end tags, so dropping
//! `<p class="date">` left unclosed before a `<div>` would drop the rest of the page (its
//! `remove()` does exactly that). The stack here applies the implied end tags of HTML
//! §13.2.6.4.7 that real pages lean on (`implied_close`): `p` closed by a block start
//! tag, `li` by `li`, `dt`/`dd` by either, `td`/`th`/`tr`/table sections by their siblings,
//! `option` by `option`/`optgroup`, a heading by a heading; an end tag closes its element and
//! everything opened after it.

use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::LazyLock;

use lol_html::html_content::Element;
use lol_html::{ElementContentHandlers, HtmlRewriter, Selector, Settings, doc_text};

use crate::text::{MainText, TextBlock, end_normalised, normalise_into};

/// Elements removed with everything inside them: code and styling (`script`, `style`,
/// `template`, `noscript`), drawings and embeds (`svg`, `canvas`, `iframe`, `object`, `noembed`,
/// `noframes`), controls (`form`, `select`, `button`), and the page furniture that HTML5 names
/// (`nav`, `header`, `footer`, `aside`). The furniture carries menus, session links, dates and
/// "related" lists that change independently of what the page says.
///
/// A trade-off: an article's own `<header>` (its headline) is dropped with the rest; the
/// `<title>` and any `<h1>` outside `<header>` still carry the headline.
pub const DROPPED_ELEMENTS: &[&str] = &[
    "script", "style", "noscript", "template", "svg", "canvas", "iframe", "object", "noembed", "noframes",
    "nav", "header", "footer", "aside", "form", "select", "button",
];

/// Class or id tokens that name likely noise, after Readability's "unlikely candidates"
/// (Mozilla Readability, `REGEXPS.unlikelyCandidates`): advertising, consent banners, sharing
/// and comment widgets, the page furniture again, and the stamps that change on every request
/// (`timestamp`, `served`, `date`).
///
/// Matching is by whole token, not by substring: a class or id value is cut at every character
/// that is not an ASCII letter or digit and at every lower-to-upper case step (`adSlot` →
/// `ad`, `slot`), and each token is compared ignoring ASCII case. So `ad-banner`, `top_ad` and
/// `adSlot` match `ad`, while `head`, `shadow`, `download` and `update` do not match anything.
/// The structural elements of [`NEVER_NOISE_BY_CLASS`] are never dropped for their class
/// (`<body class="has-sidebar">` keeps the page).
pub const NOISE_TOKENS: &[&str] = &[
    "ad",
    "ads",
    "adv",
    "advert",
    "adverts",
    "advertisement",
    "advertising",
    "banner",
    "sponsor",
    "sponsored",
    "promo",
    "promoted",
    "cookie",
    "cookies",
    "consent",
    "gdpr",
    "share",
    "sharing",
    "social",
    "comment",
    "comments",
    "disqus",
    "timestamp",
    "served",
    "date",
    "dateline",
    "sidebar",
    "widget",
    "related",
    "recommended",
    "newsletter",
    "popup",
    "modal",
    "breadcrumb",
    "breadcrumbs",
    "menu",
    "nav",
    "navbar",
    "masthead",
    "header",
    "footer",
    "skyscraper",
    "outbrain",
    "taboola",
];

/// Elements whose class or id never makes them noise: dropping one would drop the page.
pub const NEVER_NOISE_BY_CLASS: &[&str] = &["html", "head", "body", "main", "article"];

/// Elements that do not end a text block (phrasing content that flows within a line). Every
/// other element, known or not, starts and ends a block.
pub const INLINE_ELEMENTS: &[&str] = &[
    "a", "abbr", "b", "bdi", "bdo", "big", "cite", "code", "data", "del", "dfn", "em", "font", "i", "ins",
    "kbd", "label", "mark", "nobr", "q", "rp", "rt", "ruby", "s", "samp", "small", "span", "strike",
    "strong", "sub", "sup", "time", "tt", "u", "var", "wbr",
];

/// Extracts the main text of `html` (already decoded to UTF-8). Never fails: a page the parser
/// gives up on keeps the text read up to there, and [`MainText::parse_error`] says why.
pub(crate) fn main_text(html: &str) -> MainText {
    let pass = MainTextPass::new();
    // Non-strict: ambiguous markup (`<select><xmp>…`) is parsed as best it can be rather
    // than aborting the page; a fingerprint wants a deterministic answer, not a refusal.
    let settings = pass.add_handlers(Settings::new().with_strict(false));
    let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
    let parse_error = match rewriter.write(html.as_bytes()) {
        Ok(()) => rewriter.end().err().map(|error| error.to_string()),
        Err(error) => Some(error.to_string()),
    };
    pass.finish(parse_error)
}

/// Main-text extraction as handlers that another `lol_html` pass can carry: a caller that
/// parses a page anyway (the crawler, for its links) adds these to its own [`Settings`] and
/// reads the page once, not twice. [`MainText::from_html`] is this pass alone.
///
/// The result equals [`MainText::from_html`]'s on the same text when the pass reads the page
/// as UTF-8 to its end: the handlers see the same elements and text whatever else runs and
/// however the input is cut into writes. A pass that stops at an error (a strict parser's
/// ambiguity) has read less than the non-strict [`MainText::from_html`] would.
#[derive(Debug, Default)]
pub struct MainTextPass {
    walker: Rc<RefCell<Walker>>,
}

impl MainTextPass {
    /// A pass that has read nothing yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// `settings` with this pass's handlers added: one on every element (`*`) and one on the
    /// document's text.
    #[must_use]
    pub fn add_handlers<'handlers, 'selectors>(
        &self,
        settings: Settings<'handlers, 'selectors>,
    ) -> Settings<'handlers, 'selectors> {
        self.add_handlers_with(settings, |_, _| Ok(()))
    }

    /// [`add_handlers`](Self::add_handlers), with `also_on_element` called first on every
    /// element, with its tag name (lower case), from the same handler: a caller that needs a
    /// look at some elements (the crawler's links, `freshet_fetch::links::extract_links_sharing`)
    /// dispatches on the name instead of adding its own selectors. Each selector is matched
    /// against every start tag and each matching handler is a call of its own; one handler on
    /// `*` for both made the static-site bench's HTML pass about a sixth cheaper (BENCHMARKS.md,
    /// "Crawl throughput"). An error `also_on_element` returns stops the parser, as any
    /// handler's error does.
    #[must_use]
    pub fn add_handlers_with<'handlers, 'selectors>(
        &self,
        settings: Settings<'handlers, 'selectors>,
        mut also_on_element: impl FnMut(&mut Element<'_, '_>, &str) -> lol_html::HandlerResult + 'handlers,
    ) -> Settings<'handlers, 'selectors> {
        let on_element = Rc::clone(&self.walker);
        let on_text = Rc::clone(&self.walker);
        settings
            .append_element_content_handler((
                Cow::Borrowed(&*EVERY_ELEMENT),
                ElementContentHandlers::default().element(move |el: &mut Element<'_, '_>| {
                    // `lol_html` gives the name only as a new `String` (lower case): made once
                    // here for both.
                    let name = el.tag_name();
                    also_on_element(el, &name)?;
                    open_element(&on_element, el, &name);
                    Ok(())
                }),
            ))
            .append_document_content_handler(doc_text!(move |chunk| {
                on_text.borrow_mut().text(chunk.as_str(), chunk.last_in_text_node());
                Ok(())
            }))
    }

    /// The main text read, once the parser has ended (or stopped: `parse_error` says why, and
    /// becomes [`MainText::parse_error`]).
    #[must_use]
    pub fn finish(self, parse_error: Option<String>) -> MainText {
        let mut walker = self.walker.take();
        walker.flush();
        MainText::new(walker.blocks, parse_error)
    }
}

/// The selector `*`, parsed once per process: `lol_html`'s `element!` macro parses its selector
/// each time it builds a handler, once per page in a crawl.
static EVERY_ELEMENT: LazyLock<Selector> = LazyLock::new(every_element);

/// The selector `*`.
#[expect(clippy::expect_used, reason = "a constant, valid selector: no input reaches it")]
fn every_element() -> Selector {
    // Cannot fail (every extraction test parses it), as `element!("*", ...)` could not.
    "*".parse().expect("`*` is a valid selector")
}

/// The element handler: pushes `el` (its tag `name`, lower case) on the walker's stack and
/// arranges for its end tag to pop it.
fn open_element(walker: &Rc<RefCell<Walker>>, el: &mut Element<'_, '_>, name: &str) {
    // The name is classified once here, and the stack keeps the integer key.
    let key = tag_key(name.as_bytes());
    let flags = tag_flags(key);
    let mut state = walker.borrow_mut();
    state.close_implied_by(key, flags);
    // Inside dropped content nothing is kept, so the attributes need no look.
    let dropped = state.dropped_open == 0 && is_noise(el, flags);
    if flags & INLINE == 0 {
        state.flush();
    }
    // Void elements (and self-closed foreign ones) have no content and no end tag.
    let Some(end_tag_handlers) = el.end_tag_handlers() else { return };
    let id = state.push(key, flags, dropped);
    let walker = Rc::clone(walker);
    end_tag_handlers.push(Box::new(move |_end| {
        walker.borrow_mut().close(id);
        Ok(())
    }));
}

/// A tag name as an integer: its bytes little-endian, zero-padded, for names of up to 16
/// bytes (every name in this file's lists); a longer name is [`LONG_NAME`]. Distinct names
/// give distinct keys, since a tag name holds no NUL byte (the tokenizer replaces it) and
/// no `0xff` byte (never in UTF-8). Comparing keys replaces comparing strings, and the stack
/// holds no `String`.
type TagKey = u128;

/// The key of every name longer than 16 bytes: all `0xff` bytes, no name's key. No list here
/// holds such a name, so they are all alike: unknown, not inline, a block.
const LONG_NAME: TagKey = TagKey::MAX;

/// The [`TagKey`] of `name` (lower case).
const fn tag_key(name: &[u8]) -> TagKey {
    if name.len() > 16 {
        return LONG_NAME;
    }
    let mut key: TagKey = 0;
    let mut index = 0;
    while index < name.len() {
        key |= (name[index] as TagKey) << (8 * index);
        index += 1;
    }
    key
}

// What the lists of this file say of a tag, as bits of a `u8`.

/// In [`INLINE_ELEMENTS`].
const INLINE: u8 = 1;
/// In [`DROPPED_ELEMENTS`].
const DROPPED: u8 = 1 << 1;
/// In [`NEVER_NOISE_BY_CLASS`].
const NEVER_NOISE: u8 = 1 << 2;
/// In [`CLOSES_P`].
const CLOSES_AN_OPEN_P: u8 = 1 << 3;
/// In [`SCOPE_BOUNDARIES`].
const SCOPE_BOUNDARY: u8 = 1 << 4;
/// In [`HEADINGS`].
const HEADING: u8 = 1 << 5;

/// Slots of [`TAG_TABLE`], a power of two well above the ~100 names of the lists, so that a
/// look-up mostly ends at its first slot.
const TAG_SLOTS: usize = 512;

/// The names of the lists and their flags, in an open-addressing hash table built at compile
/// time: slot `(key, flags)`, an empty slot has key 0 (no tag name is empty). One multiply
/// and a slot or two per element, where scanning the lists compared up to ~100 strings.
static TAG_TABLE: [(TagKey, u8); TAG_SLOTS] = {
    let mut table = [(0, 0); TAG_SLOTS];
    table = with_flag(table, INLINE_ELEMENTS, INLINE);
    table = with_flag(table, DROPPED_ELEMENTS, DROPPED);
    table = with_flag(table, NEVER_NOISE_BY_CLASS, NEVER_NOISE);
    table = with_flag(table, CLOSES_P, CLOSES_AN_OPEN_P);
    table = with_flag(table, SCOPE_BOUNDARIES, SCOPE_BOUNDARY);
    with_flag(table, HEADINGS, HEADING)
};

/// The first slot to look at for `key`: the top bits of a multiplicative hash of its halves.
const fn tag_slot(key: TagKey) -> usize {
    let folded = (key as u64) ^ ((key >> 64) as u64).rotate_left(29);
    (folded.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - TAG_SLOTS.trailing_zeros())) as usize
}

/// `table` with `flag` set on every name of `names` (added if missing; linear probing).
const fn with_flag(
    mut table: [(TagKey, u8); TAG_SLOTS],
    names: &[&str],
    flag: u8,
) -> [(TagKey, u8); TAG_SLOTS] {
    let mut index = 0;
    while index < names.len() {
        let key = tag_key(names[index].as_bytes());
        assert!(key != LONG_NAME && key != 0, "list names are 1 to 16 bytes");
        let mut slot = tag_slot(key);
        loop {
            if table[slot].0 == key || table[slot].0 == 0 {
                table[slot] = (key, table[slot].1 | flag);
                break;
            }
            slot = (slot + 1) % TAG_SLOTS;
        }
        index += 1;
    }
    table
}

/// The flags of the tag `key`: 0 for a name on no list. The probe ends: the table is never
/// full (about 100 names in [`TAG_SLOTS`] slots), so it meets `key` or an empty slot.
fn tag_flags(key: TagKey) -> u8 {
    let mut slot = tag_slot(key);
    loop {
        let (held, flags) = TAG_TABLE[slot];
        if held == key {
            return flags;
        }
        if held == 0 {
            return 0;
        }
        slot = (slot + 1) % TAG_SLOTS;
    }
}

/// An element open on the walker's stack.
#[derive(Debug)]
struct Open {
    /// Sequence number, so that an end tag finds its own element (or none, if an implied end
    /// tag closed it already).
    id: u64,
    key: TagKey,
    flags: u8,
    dropped: bool,
}

/// The state of the pass: open elements, the text of the current node and block, blocks so far.
#[derive(Debug, Default)]
struct Walker {
    stack: Vec<Open>,
    next_id: u64,
    /// Open elements that are noise: text is kept only while this is 0.
    dropped_open: usize,
    /// Raw HTML text (character references still in) of the text node being read, when it
    /// comes in more than one chunk.
    node: String,
    /// The normalised text of the block being read (`crate::text::normalise_into`, node by
    /// node; it may end in the one space a separator left, taken off when the block ends), and
    /// whether it ends inside a word.
    block: Vec<u8>,
    in_word: bool,
    blocks: Vec<TextBlock>,
}

impl Walker {
    fn push(&mut self, key: TagKey, flags: u8, dropped: bool) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.dropped_open += usize::from(dropped);
        self.stack.push(Open { id, key, flags, dropped });
        id
    }

    /// Closes the element `id` and everything opened after it, if it is still open.
    fn close(&mut self, id: u64) {
        if let Some(index) = self.stack.iter().rposition(|open| open.id == id) {
            self.pop_to(index);
        }
    }

    /// Closes what a start tag `key` (with its `flags`) implies closed.
    fn close_implied_by(&mut self, key: TagKey, flags: u8) {
        if let Some(index) = implied_close(&self.stack, key, flags) {
            self.pop_to(index);
        }
    }

    /// Pops the stack down to `index` (inclusive).
    fn pop_to(&mut self, index: usize) {
        while self.stack.len() > index {
            let Some(open) = self.stack.pop() else { break };
            self.dropped_open -= usize::from(open.dropped);
            if open.flags & INLINE == 0 {
                self.flush();
            }
        }
    }

    /// A chunk of a text node as it stands in the HTML; `last`: the node ends with it.
    /// Character references are decoded per text node, as the HTML tokenizer does (a
    /// reference cut by a tag, `&am<b>p;`, is not one).
    fn text(&mut self, chunk: &str, last: bool) {
        if self.dropped_open == 0 {
            if last && self.node.is_empty() {
                // The whole node in one chunk (the common case): read in place, not copied.
                self.add_node_text(chunk);
                return;
            }
            self.node.push_str(chunk);
        }
        if last {
            self.end_text_node();
        }
    }

    fn end_text_node(&mut self) {
        let node = std::mem::take(&mut self.node);
        self.add_node_text(&node);
        // The buffer is kept for the next node.
        self.node = node;
        self.node.clear();
    }

    /// Adds a whole text node's raw text to the block, references decoded, normalised.
    fn add_node_text(&mut self, raw: &str) {
        if raw.contains('&') {
            normalise_into(&htmlize::unescape(raw), &mut self.block, &mut self.in_word);
        } else {
            normalise_into(raw, &mut self.block, &mut self.in_word);
        }
    }

    /// Ends the current block.
    fn flush(&mut self) {
        self.end_text_node();
        end_normalised(&mut self.block);
        if !self.block.is_empty() {
            // The block's bytes are whole characters' UTF-8 (`normalise_into`), so the check
            // (`from_utf8`, quick on ASCII, unlike `from_utf8_lossy`'s) passes and nothing is
            // replaced; copied at their exact size, the buffer kept for the next block.
            let text = String::from_utf8(self.block.clone())
                .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned());
            self.blocks.extend(TextBlock::from_normalised(text));
            self.block.clear();
        }
        self.in_word = false;
    }
}

/// Start tags that close an open `p` (HTML §13.2.6.4.7, "in body": the tags whose rule says "if
/// the stack of open elements has a p element in button scope, close a p element").
const CLOSES_P: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "center",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hgroup",
    "hr",
    "li",
    "dd",
    "dt",
    "listing",
    "main",
    "menu",
    "nav",
    "ol",
    "p",
    "plaintext",
    "pre",
    "search",
    "section",
    "summary",
    "table",
    "ul",
    "xmp",
];

/// Elements that end every search for an element to close (HTML's "scope" elements, and
/// `body`/`html`): a `div` inside a `td` does not close a `p` around the table.
const SCOPE_BOUNDARIES: &[&str] =
    &["html", "body", "table", "td", "th", "caption", "button", "object", "template", "marquee", "applet"];

const HEADINGS: &[&str] = &["h1", "h2", "h3", "h4", "h5", "h6"];

/// The keys of the names `implied_close` looks for.
const P: TagKey = tag_key(b"p");
const LI: TagKey = tag_key(b"li");
const UL: TagKey = tag_key(b"ul");
const OL: TagKey = tag_key(b"ol");
const MENU: TagKey = tag_key(b"menu");
const DT: TagKey = tag_key(b"dt");
const DD: TagKey = tag_key(b"dd");
const DL: TagKey = tag_key(b"dl");
const TD: TagKey = tag_key(b"td");
const TH: TagKey = tag_key(b"th");
const TR: TagKey = tag_key(b"tr");
const TBODY: TagKey = tag_key(b"tbody");
const THEAD: TagKey = tag_key(b"thead");
const TFOOT: TagKey = tag_key(b"tfoot");
const OPTION: TagKey = tag_key(b"option");
const OPTGROUP: TagKey = tag_key(b"optgroup");
const SELECT: TagKey = tag_key(b"select");
const DATALIST: TagKey = tag_key(b"datalist");

/// The lowest index of `stack` that the start tag `start` (with its `flags`) implicitly
/// closes (with everything above it), if any: HTML's implied end tags, simplified to the
/// cases that decide where text belongs. Each rule looks down the stack for its targets and
/// gives up at its own stops or at a [`SCOPE_BOUNDARIES`] element.
fn implied_close(stack: &[Open], start: TagKey, flags: u8) -> Option<usize> {
    let mut lowest: Option<usize> = None;
    let mut search = |targets: &[TagKey], stops: &[TagKey]| {
        for (index, open) in stack.iter().enumerate().rev() {
            if targets.contains(&open.key) {
                lowest = Some(lowest.map_or(index, |lowest| lowest.min(index)));
                return;
            }
            if open.flags & SCOPE_BOUNDARY != 0 || stops.contains(&open.key) {
                return;
            }
        }
    };
    if flags & CLOSES_AN_OPEN_P != 0 {
        search(&[P], &[]);
    }
    match start {
        LI => search(&[LI], &[UL, OL, MENU]),
        DT | DD => search(&[DT, DD], &[DL]),
        TD | TH => search(&[TD, TH], &[TR]),
        TR => search(&[TR], &[]),
        TBODY | THEAD | TFOOT => search(&[TBODY, THEAD, TFOOT], &[]),
        OPTION => search(&[OPTION], &[SELECT, DATALIST]),
        OPTGROUP => search(&[OPTION, OPTGROUP], &[SELECT, DATALIST]),
        _ => {}
    }
    // A heading start tag closes a heading only when that heading is the current element.
    if flags & HEADING != 0 && stack.last().is_some_and(|open| open.flags & HEADING != 0) {
        let top = stack.len() - 1;
        lowest = Some(lowest.map_or(top, |lowest| lowest.min(top)));
    }
    lowest
}

/// Whether the element `el` (a tag with `flags`) is noise: see [`DROPPED_ELEMENTS`].
///
/// One walk over the attributes (most elements have none, and then nothing is allocated),
/// where a look-up per attribute (`Element::get_attribute`) allocated a lower-case copy of
/// the name asked for, four times per element. As with those look-ups, only the first
/// attribute of a name counts (names compared in lower case).
fn is_noise(el: &Element<'_, '_>, flags: u8) -> bool {
    if flags & DROPPED != 0 {
        return true;
    }
    let attributes = el.attributes();
    if attributes.is_empty() {
        return false;
    }
    let class_may_be_noise = flags & NEVER_NOISE == 0;
    let (mut seen_aria_hidden, mut seen_class, mut seen_id) = (false, false, false);
    let mut noisy_class_or_id = false;
    for attribute in attributes {
        let name = attribute.name();
        let first = match name.as_str() {
            "hidden" => return true,
            "aria-hidden" => !std::mem::replace(&mut seen_aria_hidden, true),
            "class" => !std::mem::replace(&mut seen_class, true),
            "id" => !std::mem::replace(&mut seen_id, true),
            _ => false,
        };
        if !first {
            continue;
        }
        if name == "aria-hidden" {
            if attribute.value().trim().eq_ignore_ascii_case("true") {
                return true;
            }
        } else if class_may_be_noise && !noisy_class_or_id {
            noisy_class_or_id = names_noise(&attribute.value());
        }
    }
    noisy_class_or_id
}

/// Whether a class or id value holds a token of [`NOISE_TOKENS`] (see there for the cut).
pub(crate) fn names_noise(value: &str) -> bool {
    let mut start = 0;
    let mut previous_lower = false;
    let bytes = value.as_bytes();
    for (i, &byte) in bytes.iter().enumerate() {
        let cut_before = byte.is_ascii_uppercase() && previous_lower;
        if !byte.is_ascii_alphanumeric() || cut_before {
            if is_noise_token(&bytes[start..i]) {
                return true;
            }
            start = if byte.is_ascii_alphanumeric() { i } else { i + 1 };
        }
        previous_lower = byte.is_ascii_lowercase() || byte.is_ascii_digit();
    }
    is_noise_token(&bytes[start..])
}

/// Whether `token` (bytes of a class or id value; slicing bytes needs no character
/// boundaries) is one of [`NOISE_TOKENS`], ignoring ASCII case.
fn is_noise_token(token: &[u8]) -> bool {
    !token.is_empty() && NOISE_TOKENS.iter().any(|noise| noise.as_bytes().eq_ignore_ascii_case(token))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_tokens_are_whole_words() {
        for noisy in ["ad", "AD", "ad-banner", "top_ad", "adSlot", "x ads y", "cookie-consent", "served"] {
            assert!(names_noise(noisy), "{noisy}");
        }
        for clean in ["head", "shadow", "download", "update", "article-body", "x1", "", "-", "leading"] {
            assert!(!names_noise(clean), "{clean}");
        }
    }

    #[test]
    fn the_tag_table_holds_the_lists() {
        let lists: [(&[&str], u8); 6] = [
            (INLINE_ELEMENTS, INLINE),
            (DROPPED_ELEMENTS, DROPPED),
            (NEVER_NOISE_BY_CLASS, NEVER_NOISE),
            (CLOSES_P, CLOSES_AN_OPEN_P),
            (SCOPE_BOUNDARIES, SCOPE_BOUNDARY),
            (HEADINGS, HEADING),
        ];
        let names = lists.iter().flat_map(|(list, _)| list.iter());
        for name in
            names.chain(&["x-widget", "pp", "p\u{e9}", "abcdefghijklmnop", "abcdefghijklmnopq", "ul1"])
        {
            let expected =
                lists.iter().filter(|(list, _)| list.contains(name)).fold(0, |flags, (_, flag)| flags | flag);
            assert_eq!(tag_flags(tag_key(name.as_bytes())), expected, "{name}");
        }
        assert_eq!(tag_key(b"abcdefghijklmnopq"), LONG_NAME);
        assert_ne!(tag_key(b"abcdefghijklmnop"), LONG_NAME);
        assert_ne!(tag_key(b"a"), tag_key(b"a\x01"));
    }

    #[test]
    fn non_ascii_class_values_are_cut_at_their_characters() {
        // Each byte of a multi-byte character is not ASCII alphanumeric: it cuts.
        assert!(names_noise("é-ad"));
        assert!(names_noise("adé"));
        assert!(!names_noise("éàü"));
    }
}
