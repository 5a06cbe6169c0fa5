//! Links from an HTML page: pure, no I/O. [`extract_links`] runs the streaming parser
//! `lol_html` over the page once, in the page's own encoding ([`detect_charset`]), and returns
//! absolute URLs canonicalised by `freshet_url`, ready for the seen-set.
//!
//! | element | taken | kind |
//! |---|---|---|
//! | `<a href>`, `<area href>` | unless `rel` has `nofollow` | [`LinkKind::Anchor`], [`LinkKind::Area`] |
//! | `<link href>` with `rel` `canonical` | also reported as [`PageLinks::canonical`] | [`LinkKind::Canonical`] |
//! | `<link href>` with `rel` `alternate` (not `alternate stylesheet`) | | [`LinkKind::Alternate`] |
//! | `<link href>` with `rel` `next` | | [`LinkKind::Next`] |
//! | `<iframe src>`, `<frame src>` | | [`LinkKind::Frame`] |
//! | `<meta http-equiv=refresh content="N; url=…">` | | [`LinkKind::Refresh`] |
//! | `<base href>` | the first one; every URL of the page resolves against it, even those before it (HTML §2.4.1) | — |
//! | `<meta name=robots content=…>` | `noindex`, `nofollow`, `none`; also `<meta name=AGENT>` for [`LinkOptions::robots_agent`] | [`PageLinks::robots`] |
//! | the markup inside `<noscript>` | read by the same rules, its links in document order | as above |
//! | with [`LinkOptions::anchor_text`]: the text inside `<a href>`, the `alt` of `<area href>` | one per link, in [`PageLinks::anchor_texts`] | — |
//!
//! Anchor texts ([`LinkOptions::anchor_text`], off by default, and then nothing is read or
//! allocated for them): the text of an `<a href>` is all the text inside it, character
//! references decoded (`&amp;` → `&`, `&#39;` → `'`, `&nbsp;` → a space) per text node,
//! whitespace runs (Unicode's) one space, none at either end; text nodes are joined as they
//! stand, so `a<div>b</div>` reads `ab`. An anchor ends at its `</a>` or at the next `<a>`,
//! as an HTML parser ends it. An `<area href>`'s text is its `alt`; other kinds have none
//! (the empty string). A URL linked several times gets the texts of all its links joined by
//! one space, in document order (empty ones left out, and those after a [`LinkOptions::max_links`]
//! cut not read). Each is cut at [`MAX_ANCHOR_TEXT`] bytes, on a char boundary, however many
//! anchors point at the URL. Links inside `<noscript>` get their text as on the page, and the
//! `<noscript>` is no part of an anchor around it.
//!
//! `<noscript>`: a crawler runs no scripts, so it reads a page as a browser with scripting
//! off does, where the content of `<noscript>` is markup (HTML §4.12.2). `lol_html` parses as a
//! browser with scripting on, where that content is one raw text, so its text is collected and
//! parsed again on its own once the page has been read. What it recovers is common: every
//! mdBook page's table of contents is an `<iframe src="toc.html">` inside `<noscript>` (its
//! sidebar is drawn by a script), so without this a crawl of the Rust toolchain's own docs
//! missed 627 of the 31,765 HTML pages `wget --recursive` found (BENCHMARKS.md, "A real site").
//! The first [`MAX_NOSCRIPTS`] of a page are read: each is a parser of its own (~10,000
//! instructions to set up), and a hostile page could hold a million.
//!
//! `lol_html` does not apply `<base href>` itself (it rewrites, it does not resolve), so hrefs
//! are collected raw and resolved once the page has been read. A page whose robots meta says
//! `nofollow` yields no links (its canonical link is still reported: it names the page, it is
//! not a link to follow). Links are deduplicated in document order; links back to the page
//! itself (`href=""`, `#top`) are dropped; hrefs that do not parse or are not http(s)
//! (`mailto:`, `javascript:`) are counted in [`PageLinks::rejected`].
//!
//! Not done: query strings of non-UTF-8 pages are percent-encoded as UTF-8, not in the page's
//! encoding as a browser would (WHATWG URL "encoding override"); the difference only changes
//! which of two spellings of such a URL is fetched.

mod anchor_text;
mod charset;
mod refresh;

pub use anchor_text::MAX_ANCHOR_TEXT;
pub use charset::{CharsetSource, detect_charset};

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::rc::Rc;
use std::sync::LazyLock;

use encoding_rs::Encoding;
use freshet_url::Url;
use lol_html::html_content::Element;
use lol_html::{AsciiCompatibleEncoding, HtmlRewriter, Selector, Settings};

/// What a link is, by the element that carried it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LinkKind {
    /// `<a href>`.
    Anchor,
    /// `<area href>`.
    Area,
    /// `<link rel=canonical>`.
    Canonical,
    /// `<link rel=alternate>` (translations, feeds).
    Alternate,
    /// `<link rel=next>` (pagination).
    Next,
    /// `<iframe src>` or `<frame src>`.
    Frame,
    /// `<meta http-equiv=refresh>`.
    Refresh,
}

/// One link to follow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    /// Absolute and canonical (`freshet_url::canonicalize_url`).
    pub url: Url,
    /// Where it came from.
    pub kind: LinkKind,
}

/// The page's `<meta name=robots>` directives (Google's and Bing's meaning; not in RFC 9309,
/// which covers robots.txt only).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RobotsMeta {
    /// `noindex` or `none`: do not keep the page in an index.
    pub noindex: bool,
    /// `nofollow` or `none`: follow none of its links.
    pub nofollow: bool,
}

/// What to extract.
#[derive(Clone, Debug)]
pub struct LinkOptions {
    /// At most this many links are kept (a calendar page or a spam page can hold millions).
    pub max_links: usize,
    /// A robots meta tag named after this agent (`<meta name=freshet>`) counts as well as
    /// `<meta name=robots>`. Lower-case product token.
    pub robots_agent: Option<String>,
    /// Also return the text of each link, [`PageLinks::anchor_texts`] (focused crawling scores
    /// a link by the words of its anchors). Off by default: off, the parser runs no handler
    /// for it and nothing is allocated for it.
    pub anchor_text: bool,
}

impl Default for LinkOptions {
    fn default() -> Self {
        Self { max_links: 10_000, robots_agent: None, anchor_text: false }
    }
}

/// Everything [`extract_links`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageLinks {
    /// Links to follow: absolute, canonical, unique, in document order.
    pub links: Vec<Link>,
    /// With [`LinkOptions::anchor_text`], the text of each link of `links`, at the same index
    /// (module docs, "Anchor texts"); empty without it.
    pub anchor_texts: Vec<String>,
    /// The page's `<link rel=canonical>`, resolved and canonicalised.
    pub canonical: Option<Url>,
    /// The page's `<base href>`, resolved against the page's URL.
    pub base: Option<Url>,
    /// The robots meta directives.
    pub robots: RobotsMeta,
    /// The encoding the page was read in.
    pub encoding: &'static Encoding,
    /// Where that encoding came from.
    pub encoding_source: CharsetSource,
    /// Links not followed because of `rel=nofollow` or a robots meta `nofollow`.
    pub nofollow_skipped: usize,
    /// hrefs that do not resolve to an http(s) URL.
    pub rejected: usize,
    /// Whether `max_links` cut the list short.
    pub truncated: bool,
    /// Set if the parser gave up part way (the links before that point are kept).
    pub parse_error: Option<String>,
}

/// One raw href as found, before resolution.
struct RawLink {
    href: String,
    kind: LinkKind,
    nofollow: bool,
    /// Its anchor text ([`LinkOptions::anchor_text`]); empty without the option, and for the
    /// kinds that have none.
    text: String,
}

/// What the handlers collect while the page streams through the parser.
#[derive(Default)]
struct Collected {
    raw: Vec<RawLink>,
    base: Option<String>,
    canonical: Option<String>,
    robots: RobotsMeta,
    /// The content of each `<noscript>` element, read after the page (module docs).
    noscript: Vec<Noscript>,
    /// The elements the parser is inside, set at their start tag and cleared by a handler on
    /// their end tag (which outlives the borrow of this record, hence the `Rc`).
    open: Rc<OpenElements>,
    /// The text of the open anchor ([`LinkOptions::anchor_text`]).
    anchor_text: anchor_text::AnchorTextReader,
}

/// The elements whose content the text handlers read, if the parser is inside them.
#[derive(Default)]
struct OpenElements {
    /// Inside a `<noscript>` element.
    noscript: Cell<bool>,
    /// Inside an `<a href>` whose text is read ([`LinkOptions::anchor_text`]): the index of its
    /// link in [`Collected::raw`].
    anchor: Cell<Option<usize>>,
}

impl Collected {
    /// Writes the last text read for an anchor to its link, once the parser has ended.
    fn end_anchor_text(&mut self) {
        self.anchor_text.flush(&mut self.raw);
    }
}

/// The most `<noscript>` elements of one page whose markup is read (module docs); later ones
/// are not kept. Real pages hold a few.
pub const MAX_NOSCRIPTS: usize = 256;

/// The markup inside one `<noscript>` element, as raw text.
struct Noscript {
    /// How many links of the page came before it: where its own links go in document order.
    links_before: usize,
    markup: String,
}

/// Extracts the links of an HTML page fetched from `page_url`, given its HTTP `Content-Type`
/// (for the charset) and its decoded body (see the module docs for the rules).
///
/// ```
/// use freshet_fetch::links::{LinkKind, LinkOptions, extract_links};
/// let page = freshet_url::canonicalize("https://a.test/dir/page.html").unwrap();
/// let html = br#"<base href="/base/"><a href="x.html">x</a><a rel="nofollow" href="/y">y</a>
///               <link rel="canonical" href="https://a.test/dir/page.html?ref=1">"#;
/// let found = extract_links(&page, Some("text/html"), html, &LinkOptions::default());
/// assert_eq!(found.links[0].url.as_str(), "https://a.test/base/x.html");
/// assert_eq!(found.links[0].kind, LinkKind::Anchor);
/// assert_eq!(found.nofollow_skipped, 1);
/// assert_eq!(found.canonical.unwrap().as_str(), "https://a.test/dir/page.html?ref=1");
/// ```
pub fn extract_links(
    page_url: &Url,
    content_type: Option<&str>,
    body: &[u8],
    options: &LinkOptions,
) -> PageLinks {
    extract(page_url, content_type, body, options, None::<HandlersToAdd>).0
}

/// The type of a function adding no handlers, for [`extract`] called without any.
type HandlersToAdd =
    for<'handlers> fn(Settings<'handlers, 'static>, LinkElements<'handlers>) -> Settings<'handlers, 'static>;

/// [`extract_links`], with more handlers in the same parser pass when the page is UTF-8:
/// `also_utf8` adds them to the pass's settings (the crawler reads the page's main text this
/// way, `freshet_content::MainTextPass`, so that each page is parsed once).
///
/// In that pass this module adds no handler of its own: `also_utf8` is handed the link rules
/// as [`LinkElements`] and must add a handler on every element (`*`) that calls
/// [`LinkElements::element`] with the element and its tag name (lower case), as
/// `freshet_content::MainTextPass::add_handlers_with` does. One handler on `*` for both costs
/// less than this module's six selectors beside the main text's `*` (each selector is matched
/// against every start tag, each match is a call of its own): about a sixth of the static-site
/// bench's HTML pass (BENCHMARKS.md, "Crawl throughput"). The links found are the same either
/// way (`crates/crawl/tests/one_pass.rs`).
///
/// The second value says whether they ran, over `body` itself read as UTF-8 text, from its
/// start to its end: only when the page is valid UTF-8 without a byte order mark and read as
/// UTF-8 (the bytes `String::from_utf8_lossy` would hand over unchanged), and the parser
/// stopped at no error (it is strict here, and stops at markup it finds ambiguous). When it is
/// `false` the handlers saw part of the page or none of it and the caller reads the page its
/// own way; where `also_utf8` was not called, the links were read by this module's own
/// handlers.
pub fn extract_links_sharing(
    page_url: &Url,
    content_type: Option<&str>,
    body: &[u8],
    options: &LinkOptions,
    also_utf8: impl for<'handlers> FnOnce(
        Settings<'handlers, 'static>,
        LinkElements<'handlers>,
    ) -> Settings<'handlers, 'static>,
) -> (PageLinks, bool) {
    extract(page_url, content_type, body, options, Some(also_utf8))
}

/// [`extract_links_sharing`], or [`extract_links`] when there are no handlers to add (which
/// then need not check that the page is valid UTF-8).
fn extract(
    page_url: &Url,
    content_type: Option<&str>,
    body: &[u8],
    options: &LinkOptions,
    also_utf8: Option<
        impl for<'handlers> FnOnce(
            Settings<'handlers, 'static>,
            LinkElements<'handlers>,
        ) -> Settings<'handlers, 'static>,
    >,
) -> (PageLinks, bool) {
    let (encoding, encoding_source) = detect_charset(content_type, body);
    let collected = RefCell::new(Collected::default());
    let mut shared = false;
    let parse_error = match AsciiCompatibleEncoding::new(encoding) {
        Some(ascii_compatible) => {
            let utf8_text = || {
                encoding == encoding_rs::UTF_8
                    && encoding_source != CharsetSource::ByteOrderMark
                    && (encoding_source == CharsetSource::ValidUtf8 || std::str::from_utf8(body).is_ok())
            };
            let links = LinkElements { collected: &collected, options };
            let settings = links.text_handlers(Settings::new().with_encoding(ascii_compatible));
            match also_utf8 {
                Some(also_utf8) if utf8_text() => {
                    let parse_error = parse(also_utf8(settings, links), body);
                    shared = parse_error.is_none();
                    parse_error
                }
                _ => parse(links.handlers(settings), body),
            }
        }
        None => {
            // UTF-16 (by its byte order mark) and `replacement`: lol_html reads only
            // ASCII-compatible encodings, so decode to UTF-8 first.
            let (text, _, _) = encoding.decode(body);
            let links = LinkElements { collected: &collected, options };
            let settings =
                links.text_handlers(Settings::new().with_encoding(AsciiCompatibleEncoding::utf_8()));
            parse(links.handlers(settings), text.as_bytes())
        }
    };
    let mut collected = collected.into_inner();
    collected.end_anchor_text();
    read_noscript(&mut collected, options);
    (resolve_all(page_url, collected, options, encoding, encoding_source, parse_error), shared)
}

/// The link handlers' CSS selectors, parsed once per process, each with the tag name whose rule
/// of [`LinkElements::element`] it feeds. `lol_html`'s `element!` macro parses its selector
/// each time it builds a handler, that is once per page here: about 2.5% of a crawl's CPU
/// (`perf`, BENCHMARKS.md "Crawl throughput").
static LINK_SELECTORS: LazyLock<[(Selector, &'static str); 7]> = LazyLock::new(|| {
    [
        (constant_selector("a[href]"), "a"),
        (constant_selector("area[href]"), "area"),
        (constant_selector("link[href][rel]"), "link"),
        // One rule for both names.
        (constant_selector("iframe[src], frame[src]"), "iframe"),
        (constant_selector("base[href]"), "base"),
        (constant_selector("meta[content]"), "meta"),
        (constant_selector("noscript"), "noscript"),
    ]
});

/// The selector `a`, parsed once per process: every anchor, with or without `href`, for
/// anchor texts ([`LinkElements::handlers`]).
static EVERY_ANCHOR: LazyLock<Selector> = LazyLock::new(|| constant_selector("a"));

/// The selector `*`, parsed once per process.
static EVERY_ELEMENT: LazyLock<Selector> = LazyLock::new(|| constant_selector("*"));

/// A selector written in this file.
#[expect(clippy::expect_used, reason = "only called on the constant, valid selectors above")]
fn constant_selector(selector: &str) -> Selector {
    // Cannot fail on the constants above (no input reaches it); every test that extracts links
    // parses them.
    selector.parse().expect("the link selectors are valid CSS")
}

/// An element content handler on a selector parsed once ([`LINK_SELECTORS`]); what
/// `lol_html::element!` builds, without parsing the selector again.
macro_rules! on_element {
    ($selector:expr, $handler:expr) => {{
        // As in `element!`: without it the closure's argument type is not inferred.
        #[inline(always)]
        const fn type_hint<'h, T, H: lol_html::HandlerTypes>(handler: T) -> T
        where
            T: FnMut(&mut Element<'_, '_, H>) -> lol_html::HandlerResult + 'h,
        {
            handler
        }
        (Cow::Borrowed($selector), lol_html::ElementContentHandlers::default().element(type_hint($handler)))
    }};
}

/// Reads the markup of the page's `<noscript>` elements by the same rules (module docs), each
/// on its own (one that ends inside a tag does not run into the next): their links go into
/// `collected`'s list where their element stood; a `<base>`, canonical link or robots meta
/// among them counts as one outside would (a `<base>` or canonical only if the page had none).
/// A part that stops the parser keeps the links read before the stop.
fn read_noscript(collected: &mut Collected, options: &LinkOptions) {
    // From the last to the first, so that the positions of the earlier ones stay true.
    for noscript in std::mem::take(&mut collected.noscript).into_iter().rev() {
        if !noscript.markup.contains('<') {
            // Words only ("Please turn on JavaScript"): no element, so no parser.
            continue;
        }
        let inner = RefCell::new(Collected::default());
        let links = LinkElements { collected: &inner, options };
        // Its text is the page's, decoded: UTF-8 whatever the page's encoding. One handler on
        // every element, dispatching by name: building the parser's matcher for one selector
        // costs less than for six, and these parts are short. Anchor texts are read as on the
        // page.
        let settings = links.anchor_text(Settings::new().with_encoding(AsciiCompatibleEncoding::utf_8()));
        let _stopped = parse(
            settings.append_element_content_handler(on_element!(&*EVERY_ELEMENT, move |el| {
                links.element(el, &el.tag_name());
                Ok(())
            })),
            noscript.markup.as_bytes(),
        );
        let mut inner = inner.into_inner();
        inner.end_anchor_text();
        let at = noscript.links_before.min(collected.raw.len());
        collected.raw.splice(at..at, inner.raw);
        collected.base = collected.base.take().or(inner.base);
        collected.canonical = collected.canonical.take().or(inner.canonical);
        collected.robots.noindex |= inner.robots.noindex;
        collected.robots.nofollow |= inner.robots.nofollow;
    }
}

/// The rules of the module docs' table as one function of an element and its tag name, for a
/// parser pass that another handler on every element (`*`) drives
/// ([`extract_links_sharing`]); this module's own pass ([`extract_links`]) calls the same
/// rules from one selector per element kind.
#[derive(Clone, Copy)]
pub struct LinkElements<'collected> {
    collected: &'collected RefCell<Collected>,
    options: &'collected LinkOptions,
}

impl LinkElements<'_> {
    /// Reads `element`, whose tag name (lower case, as `Element::tag_name` gives it) is
    /// `name`, as the selectors of `LINK_SELECTORS` would: `a[href]`, `area[href]`,
    /// `link[href][rel]`, `iframe[src]`, `frame[src]`, `base[href]`, `meta[content]`, and
    /// `noscript`, whose text is kept (module docs); other elements are not looked at. With
    /// [`LinkOptions::anchor_text`], every `<a>` is read (one without `href` ends the open
    /// anchor's text, as it ends the anchor in an HTML parser).
    ///
    /// Each rule reads the attribute its selector asks for first and does nothing without it
    /// (`has_attribute` would cost a look, and in `lol_html` an allocation, of its own).
    pub fn element(&self, element: &mut Element<'_, '_>, name: &str) {
        match name {
            "a" => self.anchor(element),
            "area" => self.area(element),
            "link" => self.link(element),
            "iframe" | "frame" => self.frame(element),
            "base" => self.base(element),
            "meta" => self.meta(element),
            "noscript" => self.noscript(element),
            _ => {}
        }
    }

    /// `settings` with this module's own handlers: one per selector of `LINK_SELECTORS`,
    /// each calling [`element`](Self::element) with the name its selector matches, so that
    /// both ways run the same rules; what [`extract_links`] runs, for an `also_utf8` of
    /// [`extract_links_sharing`] that adds no handler on every element.
    #[must_use]
    pub fn handlers<'handlers>(self, settings: Settings<'handlers, 'static>) -> Settings<'handlers, 'static>
    where
        Self: 'handlers,
    {
        let selectors: &'static [(Selector, &'static str)] = &*LINK_SELECTORS;
        selectors.iter().fold(settings, |settings, (selector, name)| {
            // Anchor texts need every `<a>` ([`element`](Self::element)).
            let selector = if *name == "a" && self.options.anchor_text { &*EVERY_ANCHOR } else { selector };
            settings.append_element_content_handler(on_element!(selector, move |el| {
                self.element(el, name);
                Ok(())
            }))
        })
    }

    /// `settings` with the handlers on the document's text: [`noscript_text`](Self::noscript_text)
    /// and, with [`LinkOptions::anchor_text`], [`anchor_text`](Self::anchor_text). Both ways of
    /// reading a page add them here, before any other.
    fn text_handlers<'handlers>(self, settings: Settings<'handlers, 'static>) -> Settings<'handlers, 'static>
    where
        Self: 'handlers,
    {
        self.anchor_text(self.noscript_text(settings))
    }

    /// With [`LinkOptions::anchor_text`], `settings` with a handler on the document's text that
    /// reads the text of the open anchor (module docs) into its link; without it, `settings`
    /// as they are (no handler: the parser runs no code for it).
    fn anchor_text<'handlers>(self, settings: Settings<'handlers, 'static>) -> Settings<'handlers, 'static>
    where
        Self: 'handlers,
    {
        if !self.options.anchor_text {
            return settings;
        }
        let collected = self.collected;
        settings.append_document_content_handler(lol_html::doc_text!(move |chunk| {
            let collected = &mut *collected.borrow_mut();
            // A `<noscript>`'s text is markup, read on its own afterwards (module docs).
            if !collected.open.noscript.get() {
                let open = collected.open.anchor.get();
                collected.anchor_text.chunk(
                    open,
                    chunk.as_str(),
                    chunk.last_in_text_node(),
                    &mut collected.raw,
                );
            }
            Ok(())
        }))
    }

    /// `settings` with a handler on the document's text that keeps the text of every
    /// `<noscript>` element (which `lol_html` reads as raw text, module docs) for
    /// [`read_noscript`]: the element itself is seen by [`element`](Self::element). A handler on
    /// the text costs less than another selector, matched against every start tag (on the Rust
    /// docs' pages, 0.9% of the analysis's instructions against 0.3%: BENCHMARKS.md, "A real site").
    fn noscript_text<'handlers>(self, settings: Settings<'handlers, 'static>) -> Settings<'handlers, 'static>
    where
        Self: 'handlers,
    {
        let collected = self.collected;
        settings.append_document_content_handler(lol_html::doc_text!(move |chunk| {
            let mut collected = collected.borrow_mut();
            if collected.open.noscript.get()
                && let Some(noscript) = collected.noscript.last_mut()
            {
                noscript.markup.push_str(chunk.as_str());
            }
            Ok(())
        }))
    }

    /// `<noscript>`: its text, until its end tag, is kept by the handler of
    /// [`noscript_text`](Self::noscript_text).
    fn noscript(&self, element: &mut Element<'_, '_>) {
        let mut collected = self.collected.borrow_mut();
        if collected.noscript.len() == MAX_NOSCRIPTS {
            return;
        }
        let links_before = collected.raw.len();
        collected.noscript.push(Noscript { links_before, markup: String::new() });
        let Some(end_tag_handlers) = element.end_tag_handlers() else { return };
        collected.open.noscript.set(true);
        let open = Rc::clone(&collected.open);
        end_tag_handlers.push(Box::new(move |_end| {
            open.noscript.set(false);
            Ok(())
        }));
    }

    /// Collects `href` as a link of `kind`, without text.
    fn push(&self, href: String, kind: LinkKind, nofollow: bool) {
        self.push_with_text(href, kind, nofollow, String::new());
    }

    /// Collects `href` as a link of `kind` whose anchor text is `text`; its index in the raw
    /// links.
    fn push_with_text(&self, href: String, kind: LinkKind, nofollow: bool, text: String) -> usize {
        let raw = &mut self.collected.borrow_mut().raw;
        raw.push(RawLink { href, kind, nofollow, text });
        raw.len() - 1
    }

    /// `<a href>`: a link unless `rel` says `nofollow`. With [`LinkOptions::anchor_text`], its
    /// text is read until its end tag or the next `<a>`, which ends it (with or without `href`).
    fn anchor(&self, element: &mut Element<'_, '_>) {
        if self.options.anchor_text {
            self.collected.borrow().open.anchor.set(None);
        }
        let Some(href) = attribute(element, "href") else { return };
        let link = self.push_with_text(href, LinkKind::Anchor, nofollow(element), String::new());
        if self.options.anchor_text {
            self.open_anchor(element, link);
        }
    }

    /// Reads the text from here on into the raw link `link`, until the next `</a>` or `<a>`.
    fn open_anchor(&self, element: &mut Element<'_, '_>, link: usize) {
        let Some(end_tag_handlers) = element.end_tag_handlers() else { return };
        let collected = self.collected.borrow();
        collected.open.anchor.set(Some(link));
        let open = Rc::clone(&collected.open);
        end_tag_handlers.push(Box::new(move |_end| {
            // An `</a>` ends the open anchor, whichever `<a>` `lol_html` (which keeps no
            // tree) matches it to: in HTML at most one anchor is open, as an `<a>` ends the
            // previous one.
            open.anchor.set(None);
            Ok(())
        }));
    }

    /// `<area href>`: a link unless `rel` says `nofollow`; with [`LinkOptions::anchor_text`],
    /// its text is its `alt`.
    fn area(&self, element: &Element<'_, '_>) {
        let Some(href) = attribute(element, "href") else { return };
        let text = match attribute(element, "alt") {
            Some(alt) if self.options.anchor_text => anchor_text::normalised(&alt),
            _ => String::new(),
        };
        self.push_with_text(href, LinkKind::Area, nofollow(element), text);
    }

    /// `<link href rel>`: the canonical URL, an alternate or the next page.
    fn link(&self, element: &Element<'_, '_>) {
        let (Some(href), Some(rel)) = (attribute(element, "href"), attribute(element, "rel")) else { return };
        if has_token(&rel, "canonical") {
            let mut collected = self.collected.borrow_mut();
            if collected.canonical.is_none() {
                collected.canonical = Some(href);
            }
        } else if has_token(&rel, "alternate") && !has_token(&rel, "stylesheet") {
            self.push(href, LinkKind::Alternate, false);
        } else if has_token(&rel, "next") {
            self.push(href, LinkKind::Next, false);
        }
    }

    /// `<iframe src>`, `<frame src>`.
    fn frame(&self, element: &Element<'_, '_>) {
        if let Some(src) = attribute(element, "src") {
            self.push(src, LinkKind::Frame, false);
        }
    }

    /// `<base href>`: the first one counts.
    fn base(&self, element: &Element<'_, '_>) {
        let Some(href) = attribute(element, "href") else { return };
        let mut collected = self.collected.borrow_mut();
        if collected.base.is_none() {
            collected.base = Some(href);
        }
    }

    /// `<meta content>`: a refresh's target, or robots directives for us.
    fn meta(&self, element: &Element<'_, '_>) {
        let Some(content) = attribute(element, "content") else { return };
        if attribute(element, "http-equiv").is_some_and(|v| v.trim().eq_ignore_ascii_case("refresh")) {
            if let Some(target) = refresh::refresh_url(&content) {
                self.push(target.to_owned(), LinkKind::Refresh, false);
            }
        } else if let Some(name) = attribute(element, "name") {
            let name = name.trim();
            let for_us = name.eq_ignore_ascii_case("robots")
                || self.options.robots_agent.as_deref().is_some_and(|agent| name.eq_ignore_ascii_case(agent));
            if for_us {
                let mut collected = self.collected.borrow_mut();
                for directive in content.split(',').map(str::trim) {
                    let none = directive.eq_ignore_ascii_case("none");
                    collected.robots.noindex |= none || directive.eq_ignore_ascii_case("noindex");
                    collected.robots.nofollow |= none || directive.eq_ignore_ascii_case("nofollow");
                }
            }
        }
    }
}

/// Runs the parser with `settings` over `body`; the error it stopped at, if any.
fn parse(settings: Settings<'_, 'static>, body: &[u8]) -> Option<String> {
    let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
    // Fed in slices as a network stream would be; lol_html keeps only what a tag in flight needs.
    for chunk in body.chunks(16 << 10) {
        if let Err(error) = rewriter.write(chunk) {
            return Some(error.to_string());
        }
    }
    rewriter.end().err().map(|error| error.to_string())
}

/// Resolves the collected hrefs against the base (or the page) and applies nofollow, dedup and
/// the cap.
fn resolve_all(
    page_url: &Url,
    collected: Collected,
    options: &LinkOptions,
    encoding: &'static Encoding,
    encoding_source: CharsetSource,
    parse_error: Option<String>,
) -> PageLinks {
    let base = collected.base.as_deref().and_then(|href| page_url.join(href.trim()).ok());
    let resolve_against = base.clone().unwrap_or_else(|| page_url.clone());
    let page_canonical = freshet_url::canonicalize_url(page_url.clone()).ok();
    let canonical = collected
        .canonical
        .as_deref()
        .and_then(|href| freshet_url::resolve(&resolve_against, href.trim()).ok());
    // The list and the set of seen URLs are sized for every href at once (and the canonical
    // link): grown one push at a time they were reallocated and rehashed four or five times a
    // page.
    let room = collected.raw.len().min(options.max_links) + 1;
    let mut found = PageLinks {
        links: Vec::with_capacity(room),
        anchor_texts: if options.anchor_text { Vec::with_capacity(room) } else { Vec::new() },
        canonical,
        base,
        robots: collected.robots,
        encoding,
        encoding_source,
        nofollow_skipped: 0,
        rejected: 0,
        truncated: false,
        parse_error,
    };
    // Each URL kept, with its index in `found.links` (where the text of a later anchor to it
    // joins the first's).
    let mut seen = HashMap::with_capacity(room);
    for raw in collected.raw {
        if raw.nofollow || found.robots.nofollow {
            found.nofollow_skipped += 1;
            continue;
        }
        let Ok(url) = freshet_url::resolve(&resolve_against, raw.href.trim()) else {
            found.rejected += 1;
            continue;
        };
        if page_canonical.as_ref() == Some(&url) {
            continue;
        }
        // One look in the set, whether the URL is new or not.
        let new = match seen.entry(url) {
            Entry::Occupied(seen) => {
                if let Some(text) = found.anchor_texts.get_mut(*seen.get()) {
                    anchor_text::join_capped(text, &raw.text);
                }
                continue;
            }
            Entry::Vacant(new) => new,
        };
        if found.links.len() == options.max_links {
            found.truncated = true;
            break;
        }
        let url = new.key().clone();
        new.insert(found.links.len());
        found.links.push(Link { url, kind: raw.kind });
        if options.anchor_text {
            found.anchor_texts.push(raw.text);
        }
    }
    if let Some(canonical) = found.canonical.clone().filter(|c| Some(c) != page_canonical.as_ref())
        && !found.robots.nofollow
        && !seen.contains_key(&canonical)
        && found.links.len() < options.max_links
    {
        found.links.push(Link { url: canonical, kind: LinkKind::Canonical });
        if options.anchor_text {
            found.anchor_texts.push(String::new());
        }
    }
    found
}

/// An attribute's value with its character references decoded (`&amp;` → `&`), as the HTML
/// tokenizer does and `lol_html` does not (it hands out the raw text, for rewriting); the
/// attribute-value rules of HTML §13.2.5.73 (`htmlize::unescape_attribute`).
fn attribute(element: &Element, name: &str) -> Option<String> {
    let raw = element.get_attribute(name)?;
    if raw.contains('&') { Some(htmlize::unescape_attribute(raw).into_owned()) } else { Some(raw) }
}

/// Whether `element`'s `rel` says `nofollow`.
fn nofollow(element: &Element<'_, '_>) -> bool {
    attribute(element, "rel").is_some_and(|rel| has_token(&rel, "nofollow"))
}

/// Whether the space-separated token list `list` (a `rel` value) holds `token`, ignoring case.
fn has_token(list: &str, token: &str) -> bool {
    list.split_ascii_whitespace().any(|t| t.eq_ignore_ascii_case(token))
}

#[cfg(test)]
mod tests;
