//! The XML formats (`<urlset>`, `<sitemapindex>`), read as a stream of `quick-xml` events with
//! the leniency the module docs describe. One pass, one event buffer; the only state is the
//! entry being read.

use std::io::BufRead;

use quick_xml::NsReader;
use quick_xml::events::{BytesRef, Event};
use quick_xml::name::ResolveResult;

use super::collect::{Collector, RawEntry, shorten};
use super::{ProblemKind, SitemapError, SitemapFormat, Stopped};

/// Longest value kept for `lastmod`, `changefreq` and `priority`, in bytes (longer ones are
/// invalid anyway; this only bounds memory).
const MAX_FIELD_BYTES: usize = 256;

/// A child of `<url>` or `<sitemap>` that is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    Loc,
    LastModified,
    ChangeFrequency,
    Priority,
}

impl Field {
    fn from_local_name(name: &str) -> Option<Self> {
        match name {
            "loc" => Some(Self::Loc),
            "lastmod" => Some(Self::LastModified),
            "changefreq" => Some(Self::ChangeFrequency),
            "priority" => Some(Self::Priority),
            _ => None,
        }
    }
}

/// The entry being read.
struct OpenEntry {
    /// Its number; `None` past the entry limit (read for structure, not kept).
    number: Option<u64>,
    raw: RawEntry,
    /// The field whose text is being collected, and that text.
    field: Option<(Field, String)>,
    /// Whether the text of the open field outgrew its bound.
    overflowed: bool,
    /// Depth of unknown (extension) elements entered inside the entry.
    foreign_depth: u32,
}

impl OpenEntry {
    fn new(number: Option<u64>) -> Self {
        Self { number, raw: RawEntry::default(), field: None, overflowed: false, foreign_depth: 0 }
    }

    /// Appends text to the open field, up to its bound.
    fn push_text(&mut self, text: &str, max_loc_bytes: usize) {
        let Some((field, value)) = &mut self.field else { return };
        let bound = if *field == Field::Loc { max_loc_bytes } else { MAX_FIELD_BYTES };
        if value.len() + text.len() > bound {
            self.overflowed = true;
            return;
        }
        value.push_str(text);
    }

    /// Closes the open field, storing its value (the first of each field wins).
    fn close_field(&mut self, max_loc_bytes: usize) {
        let Some((field, mut value)) = self.field.take() else { return };
        if std::mem::take(&mut self.overflowed) {
            // Too long to be valid: keep a value that fails validation with the right message.
            value = if field == Field::Loc { "x".repeat(max_loc_bytes + 1) } else { shorten(&value) + "…" };
        }
        let slot = match field {
            Field::Loc => &mut self.raw.loc,
            Field::LastModified => &mut self.raw.last_modified,
            Field::ChangeFrequency => &mut self.raw.change_frequency,
            Field::Priority => &mut self.raw.priority,
        };
        if slot.is_none() {
            *slot = Some(value);
        }
    }
}

/// Whether `namespace` is a sitemap namespace: `…/schemas/sitemap/…` (sitemaps.org 0.9,
/// Google's 0.84), not an extension's (`…/schemas/sitemap-image/1.1`, `…/sitemap-news/0.9`).
fn is_sitemap_namespace(namespace: &str) -> bool {
    namespace.to_ascii_lowercase().contains("/schemas/sitemap/")
}

/// Reads an XML sitemap from `reader` into `collector`.
///
/// # Errors
/// [`SitemapError`] if the root element is not `urlset` or `sitemapindex`, or the XML breaks
/// before it.
pub(super) fn read(reader: &mut impl BufRead, collector: &mut Collector<'_>) -> Result<(), SitemapError> {
    let mut xml = NsReader::from_reader(reader);
    let config = xml.config_mut();
    config.check_end_names = false;
    config.allow_unmatched_ends = true;
    config.allow_dangling_amp = true;
    config.check_comments = false;
    let max_loc_bytes = collector.max_loc_bytes();
    let mut buffer = Vec::new();
    // The root's own namespace, if bound: children in it are sitemap elements too.
    let mut root: Option<Option<String>> = None;
    let mut open: Option<OpenEntry> = None;
    // Whether a `<!DOCTYPE html>` came before the root (HTML whose first tag is not `<html>`).
    let mut html_doctype = false;
    loop {
        buffer.clear();
        let position = xml.buffer_position();
        let (resolved, event) = match xml.read_resolved_event_into(&mut buffer) {
            Ok(read) => read,
            Err(error) => {
                let byte_offset = xml.error_position().max(position);
                let message = error.to_string();
                if root.is_none() {
                    return Err(SitemapError::MalformedXml { byte_offset, message });
                }
                collector.malformed = Some(Stopped::Malformed { byte_offset, message });
                break;
            }
        };
        let namespace = match &resolved {
            ResolveResult::Bound(namespace) => Some(namespace.as_ref().to_owned()),
            ResolveResult::Unbound | ResolveResult::Unknown(_) => None,
        };
        match event {
            Event::Start(start) | Event::Empty(start) if root.is_none() => {
                let name = start.local_name();
                let name = name.as_ref();
                collector.format = match name {
                    "urlset" => SitemapFormat::UrlSet,
                    "sitemapindex" => SitemapFormat::Index,
                    _ if html_doctype => return Err(SitemapError::Html),
                    _ => return Err(not_a_sitemap(name, start.name().as_ref())),
                };
                root = Some(namespace);
            }
            Event::Start(start) => {
                let ours = is_ours(namespace.as_deref(), root.as_ref());
                element_start(collector, &mut open, start.local_name().as_ref(), ours, false);
            }
            Event::Empty(start) => {
                let ours = is_ours(namespace.as_deref(), root.as_ref());
                element_start(collector, &mut open, start.local_name().as_ref(), ours, true);
            }
            Event::End(end) => {
                let name = end.local_name();
                let name = name.as_ref();
                if name == entry_name(collector.format) {
                    if let Some(entry) = open.take() {
                        finish(collector, entry, max_loc_bytes);
                    }
                } else if let Some(entry) = open.as_mut() {
                    if entry.foreign_depth > 0 {
                        entry.foreign_depth -= 1;
                    } else if entry
                        .field
                        .as_ref()
                        .is_some_and(|(field, _)| Field::from_local_name(name) == Some(*field))
                    {
                        entry.close_field(max_loc_bytes);
                    }
                } else if matches!(name, "urlset" | "sitemapindex") {
                    break;
                }
            }
            Event::Text(text) => {
                if let Some(entry) = open.as_mut().filter(|entry| entry.foreign_depth == 0) {
                    entry.push_text(&text.xml10_content(), max_loc_bytes);
                }
            }
            Event::CData(data) => {
                if let Some(entry) = open.as_mut().filter(|entry| entry.foreign_depth == 0) {
                    entry.push_text(&data.xml10_content(), max_loc_bytes);
                }
            }
            Event::GeneralRef(reference) => {
                if let Some(entry) = open.as_mut().filter(|entry| entry.foreign_depth == 0) {
                    entry.push_text(&resolve_reference(&reference), max_loc_bytes);
                }
            }
            Event::Eof => break,
            Event::DocType(doctype) => {
                html_doctype |= doctype
                    .xml10_content()
                    .trim_start()
                    .get(..4)
                    .is_some_and(|name| name.eq_ignore_ascii_case("html"));
            }
            Event::Comment(_) | Event::Decl(_) | Event::PI(_) => {}
        }
    }
    if root.is_none() {
        return Err(SitemapError::Unreadable { reason: "no root element".to_owned() });
    }
    if let Some(entry) = open.take() {
        // The file ended inside an entry: take it if its `loc` was complete.
        match (entry.number, entry.raw.loc.is_some()) {
            (Some(_), true) => finish(collector, entry, max_loc_bytes),
            (Some(number), false) => collector.problem(number, ProblemKind::CutOff),
            (None, _) => {}
        }
    }
    Ok(())
}

/// Whether an element in `namespace` is a sitemap element: no namespace, a sitemap
/// namespace, or the root's own.
fn is_ours(namespace: Option<&str>, root: Option<&Option<String>>) -> bool {
    namespace.is_none_or(|namespace| {
        is_sitemap_namespace(namespace) || root.is_some_and(|root| root.as_deref() == Some(namespace))
    })
}

/// A start tag (or an empty-element tag, `is_empty`) below the root.
fn element_start(
    collector: &mut Collector<'_>,
    open: &mut Option<OpenEntry>,
    name: &str,
    ours: bool,
    is_empty: bool,
) {
    let max_loc_bytes = collector.max_loc_bytes();
    let starts_entry = ours
        && name == entry_name(collector.format)
        && open.as_ref().is_none_or(|entry| entry.foreign_depth == 0);
    if starts_entry {
        // An entry still open here lacked its end tag.
        if let Some(previous) = open.take() {
            finish(collector, previous, max_loc_bytes);
        }
        let entry = OpenEntry::new(collector.begin_entry());
        if is_empty {
            finish(collector, entry, max_loc_bytes);
        } else {
            *open = Some(entry);
        }
        return;
    }
    let Some(entry) = open.as_mut() else { return };
    match Field::from_local_name(name).filter(|_| ours && entry.foreign_depth == 0) {
        Some(field) => {
            // A field still open here lacked its end tag.
            entry.close_field(max_loc_bytes);
            entry.field = Some((field, String::new()));
            if is_empty {
                entry.close_field(max_loc_bytes);
            }
        }
        None if !is_empty => entry.foreign_depth += 1,
        None => {}
    }
}

/// The local name of an entry element in `format`.
fn entry_name(format: SitemapFormat) -> &'static str {
    if format == SitemapFormat::Index { "sitemap" } else { "url" }
}

/// Hands a closed entry to the collector (if it is within the limit).
fn finish(collector: &mut Collector<'_>, mut entry: OpenEntry, max_loc_bytes: usize) {
    entry.close_field(max_loc_bytes);
    if let Some(number) = entry.number {
        collector.entry(number, entry.raw);
    }
}

/// The text an entity or character reference stands for: the five predefined entities and
/// character references are resolved; anything else is kept as written.
fn resolve_reference(reference: &BytesRef<'_>) -> String {
    if let Ok(Some(character)) = reference.resolve_char_ref() {
        return character.to_string();
    }
    let name: &str = reference;
    match quick_xml::escape::resolve_predefined_entity(name) {
        Some(text) => text.to_owned(),
        None => format!("&{name};"),
    }
}

/// The error for a root element that is not a sitemap's.
fn not_a_sitemap(local_name: &str, qualified_name: &str) -> SitemapError {
    const HTML_FIRST_TAGS: [&str; 8] = ["html", "head", "body", "meta", "title", "link", "script", "div"];
    if HTML_FIRST_TAGS.iter().any(|tag| local_name.eq_ignore_ascii_case(tag)) {
        SitemapError::Html
    } else if matches!(local_name, "rss" | "feed" | "RDF") {
        SitemapError::Feed { root: local_name.to_owned() }
    } else {
        SitemapError::OtherXml { root: shorten(qualified_name) }
    }
}
