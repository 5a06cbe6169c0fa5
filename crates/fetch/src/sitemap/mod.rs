//! Sitemaps (<https://www.sitemaps.org/protocol.html>): pure, no I/O. [`parse_sitemap`] reads
//! one fetched sitemap file, XML or plain text, gzip or not, and returns its entries with
//! canonical URLs, or a typed error when the file is not a sitemap at all.
//!
//! # What is read
//! | input | result |
//! |---|---|
//! | `<urlset>` of `<url>`: `loc` (required), `lastmod`, `changefreq`, `priority` | [`SitemapFormat::UrlSet`], [`Sitemap::urls`] of [`SitemapUrl`] |
//! | `<sitemapindex>` of `<sitemap>`: `loc`, `lastmod` | [`SitemapFormat::Index`], [`Sitemap::sitemaps`] of [`SitemapRef`] |
//! | plain text, one absolute URL per line (UTF-8) | [`SitemapFormat::Text`], [`Sitemap::urls`] |
//! | gzip of any of these, recognised by its magic bytes, not by the name | the same, [`Sitemap::gzip`] |
//! | `lastmod` in the W3C Datetime forms | [`LastModified`] (Unix seconds and [`DatePrecision`]), [`parse_w3c_datetime`] |
//! | `changefreq` | [`ChangeFrequency`], with [`ChangeFrequency::rate_per_second`] as a prior |
//! | `priority` | `f64` in `[0, 1]`, [`DEFAULT_PRIORITY`] (0.5) when absent or invalid |
//!
//! **Errors are data.** A bad entry (a `loc` that is not an http(s) URL, outside the location
//! the sitemap may list ([`LocationRule`]), longer than 2,048 bytes; a priority outside
//! `[0, 1]`; a lastmod that is not a W3C Datetime; an unknown changefreq) is an
//! [`EntryProblem`] naming the entry (`invalid loc at entry 17: …`): an entry with a bad `loc`
//! is dropped, one with a bad optional field is kept without that field. A file that stops
//! early (the size cap, corrupt gzip, XML broken beyond repair) keeps what was read before,
//! with [`Sitemap::stopped`] saying why. Only a file that is not a sitemap at all (HTML, a
//! feed, another XML vocabulary, text that is not URLs, binary, empty) is an `Err`
//! ([`SitemapError`], naming what was found).
//!
//! **Bounded.** [`SitemapLimits`] defaults to the protocol's per-file limits: 50,000 entries
//! and 50 MiB (52,428,800 bytes) uncompressed. Entries past the limit are counted in
//! [`Sitemap::over_limit`], not kept; bytes past the cap are never inflated (a gzip bomb stops
//! at the cap with [`Stopped::SizeCap`], after at most the cap was inflated in 64 KiB steps).
//!
//! **Tolerant XML.** Elements are matched by local name, so `<sm:url>` with any prefix works,
//! declared or not; the root may carry the standard namespace, Google's old
//! `…/schemas/sitemap/0.84`, another or none. Inside an entry only its direct children in a
//! sitemap namespace (any `…/schemas/sitemap/…`, the root's own namespace, or none) are read,
//! so extension elements (`image:image/image:loc`, `news:news`, `xhtml:link`,
//! `video:video`) are ignored. A leading byte order mark, CDATA sections, the five predefined
//! entities and character references, whitespace around values, mismatched or missing end
//! tags, and a raw `&` in a URL (common, and strictly an XML error) are all accepted; an entry
//! left open at the end of the file is taken if its `loc` was complete. Duplicate URLs are
//! kept (the seen-set is the crawler's).
//!
//! **Why `quick-xml` and not the `sitemap` crate.** `sitemap` 0.4 reads through `xml-rs` and
//! `chrono`; it has no size or entry cap, does not read the plain-text format or gzip, does
//! not tell a sitemap from an HTML page or a feed, and `xml-rs` stops at the first
//! well-formedness error (a raw `&`, a mismatched end tag), where real sitemaps are often
//! sloppy. `quick-xml` is a fast pull parser whose leniency is configurable
//! (`check_end_names`, `allow_unmatched_ends`, `allow_dangling_amp`), so the few rules above
//! are the whole of the hand-written part. Input must be UTF-8 (the protocol requires it): an
//! invalid byte sequence ends the file there ([`Stopped::Malformed`]).
//!
//! ```
//! use freshet_fetch::sitemap::{LocationRule, SitemapFormat, SitemapOptions, parse_sitemap};
//! let at = freshet_url::canonicalize("https://a.test/sitemap.xml").unwrap();
//! let xml = br#"<?xml version="1.0" encoding="UTF-8"?>
//! <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
//!   <url><loc>https://a.test/</loc><changefreq>daily</changefreq><priority>0.9</priority></url>
//!   <url><loc>https://b.test/elsewhere</loc></url>
//! </urlset>"#;
//! let sitemap = parse_sitemap(xml, &at, &SitemapOptions::default()).unwrap();
//! assert_eq!(sitemap.format, SitemapFormat::UrlSet);
//! assert_eq!(sitemap.urls.len(), 1);
//! assert_eq!(sitemap.urls[0].priority, 0.9);
//! assert_eq!(sitemap.problems[0].to_string(),
//!     "loc outside the sitemap's location at entry 2: https://b.test/elsewhere");
//! let html = b"<!DOCTYPE html><html><body>Not found</body></html>";
//! assert!(parse_sitemap(html, &at, &SitemapOptions::default()).is_err());
//! ```

mod collect;
mod datetime;
mod entry;
mod source;
mod text;
mod xml;

#[cfg(test)]
mod tests;

use std::io::{BufRead as _, BufReader};

use freshet_url::Url;

pub use datetime::{BadDatetime, DatePrecision, LastModified, parse_w3c_datetime};
pub use entry::{ChangeFrequency, DEFAULT_PRIORITY, LocationRule, SitemapRef, SitemapUrl};

use collect::Collector;
use source::{Body, CappedReader, Sniffed, sniff};

/// How much of one sitemap file is read and kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SitemapLimits {
    /// Entries read per file (`<url>`, `<sitemap>` or a text line); later ones are counted in
    /// [`Sitemap::over_limit`]. Protocol: 50,000.
    pub max_entries: u64,
    /// Uncompressed bytes read per file; the rest is not read ([`Stopped::SizeCap`]).
    /// Protocol: 50 MiB (52,428,800 bytes).
    pub max_bytes: u64,
    /// Longest `loc` accepted, in bytes. Protocol: "less than 2,048 characters".
    pub max_loc_bytes: usize,
    /// Problems kept; later ones are counted in [`Sitemap::problems_over_limit`].
    pub max_problems: usize,
}

impl Default for SitemapLimits {
    fn default() -> Self {
        Self { max_entries: 50_000, max_bytes: 50 << 20, max_loc_bytes: 2_048, max_problems: 1_000 }
    }
}

/// How to read a sitemap: limits and which URLs it may list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SitemapOptions {
    /// Per-file limits.
    pub limits: SitemapLimits,
    /// Which URLs the sitemap may list (the protocol's location rule by default).
    pub location: LocationRule,
}

/// Which of the sitemap formats a file was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SitemapFormat {
    /// XML `<urlset>`: pages.
    UrlSet,
    /// XML `<sitemapindex>`: other sitemap files.
    Index,
    /// Plain text, one URL per line: pages.
    Text,
}

/// A parsed sitemap file.
#[derive(Clone, Debug, PartialEq)]
pub struct Sitemap {
    /// Which format it was.
    pub format: SitemapFormat,
    /// Whether it was gzip.
    pub gzip: bool,
    /// The pages it lists (urlset and text), in file order.
    pub urls: Vec<SitemapUrl>,
    /// The sitemaps it lists (index), in file order.
    pub sitemaps: Vec<SitemapRef>,
    /// Entries seen, kept or not, including those over the limit.
    pub entries: u64,
    /// Entries past [`SitemapLimits::max_entries`], counted and not read.
    pub over_limit: u64,
    /// What was wrong with entries, in file order, at most [`SitemapLimits::max_problems`].
    pub problems: Vec<EntryProblem>,
    /// Problems past [`SitemapLimits::max_problems`], counted.
    pub problems_over_limit: u64,
    /// Uncompressed bytes read.
    pub bytes_read: u64,
    /// Why reading ended before the end of the file; `None` when the whole file was read.
    pub stopped: Option<Stopped>,
}

/// Why a sitemap file was not read to its end. What was read before is kept.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Stopped {
    /// The uncompressed size cap was reached (a gzip bomb ends here).
    #[error("stopped at the size cap of {limit_bytes} uncompressed bytes")]
    SizeCap {
        /// [`SitemapLimits::max_bytes`].
        limit_bytes: u64,
    },
    /// The gzip stream is corrupt or cut short.
    #[error("gzip data is corrupt after {after_bytes} uncompressed bytes: {message}")]
    Decompression {
        /// Uncompressed bytes read before.
        after_bytes: u64,
        /// What the decoder said.
        message: String,
    },
    /// The XML broke in a way the parser cannot read past.
    #[error("malformed XML at byte {byte_offset}: {message}")]
    Malformed {
        /// Uncompressed byte offset of the error.
        byte_offset: u64,
        /// What `quick-xml` said.
        message: String,
    },
}

/// One problem with one entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryProblem {
    /// The entry's number in the file, from 1 (`<url>`, `<sitemap>`, or non-empty line).
    pub entry: u64,
    /// What was wrong.
    pub kind: ProblemKind,
}

impl std::fmt::Display for EntryProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at entry {}: {}", self.kind.what(), self.entry, self.kind)
    }
}

/// What was wrong with an entry (values kept to at most 200 characters).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProblemKind {
    /// No `<loc>`, or an empty one: the entry is dropped.
    #[error("the entry has no loc")]
    MissingLoc,
    /// A `<loc>` that is not an absolute http(s) URL: the entry is dropped.
    #[error("{reason}")]
    InvalidLoc {
        /// What `freshet_url` said.
        reason: String,
    },
    /// A `<loc>` longer than [`SitemapLimits::max_loc_bytes`]: the entry is dropped.
    #[error("longer than {limit} bytes")]
    LocTooLong {
        /// The limit.
        limit: usize,
    },
    /// A URL the [`LocationRule`] does not allow here: the entry is dropped.
    #[error("{url}")]
    OutsideLocation {
        /// The canonical URL.
        url: String,
    },
    /// A `<priority>` that is not a number in `[0, 1]`: the default is used.
    #[error("{value:?} is not a number in [0, 1]")]
    BadPriority {
        /// The value.
        value: String,
    },
    /// A `<lastmod>` that is not a W3C Datetime: left out.
    #[error("{0}")]
    BadLastModified(BadDatetime),
    /// A `<changefreq>` that is not one of the seven values: left out.
    #[error("{value:?} is not always, hourly, daily, weekly, monthly, yearly or never")]
    BadChangeFrequency {
        /// The value.
        value: String,
    },
    /// The file ended inside this entry before its `loc` was complete: the entry is dropped.
    #[error("the file ended inside the entry")]
    CutOff,
}

impl ProblemKind {
    /// A short name of the problem, as the report line opens with.
    #[must_use]
    pub fn what(&self) -> &'static str {
        match self {
            Self::MissingLoc => "missing loc",
            Self::InvalidLoc { .. } => "invalid loc",
            Self::LocTooLong { .. } => "loc too long",
            Self::OutsideLocation { .. } => "loc outside the sitemap's location",
            Self::BadPriority { .. } => "bad priority",
            Self::BadLastModified(_) => "bad lastmod",
            Self::BadChangeFrequency { .. } => "bad changefreq",
            Self::CutOff => "cut-off entry",
        }
    }
}

/// A file that is not a sitemap, named by what it was.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SitemapError {
    /// No bytes (after decompression).
    #[error("not a sitemap: the file is empty")]
    Empty,
    /// An HTML page (an HTML doctype, or a first tag such as `<html>`, `<head>`, `<meta>`), e.g.
    /// a soft 404.
    #[error("not a sitemap: an HTML page")]
    Html,
    /// An RSS or Atom feed (root `<rss>`, `<feed>` or `<RDF>`); feeds are not read here.
    #[error("not a sitemap: a feed (root <{root}>)")]
    Feed {
        /// The root element's local name.
        root: String,
    },
    /// XML of another vocabulary.
    #[error("not a sitemap: XML with root <{root}>")]
    OtherXml {
        /// The root element's name as written (at most 200 characters).
        root: String,
    },
    /// Text that does not start with an http(s) URL.
    #[error("not a sitemap: text starting {start:?}")]
    OtherText {
        /// The first characters.
        start: String,
    },
    /// Control bytes or invalid UTF-8 at the start.
    #[error("not a sitemap: binary data")]
    Binary,
    /// XML that broke before its root element.
    #[error("not a sitemap: malformed XML before the root element at byte {byte_offset}: {message}")]
    MalformedXml {
        /// Uncompressed byte offset of the error.
        byte_offset: u64,
        /// What `quick-xml` said.
        message: String,
    },
    /// Gzip that could not be inflated at all, or markup with no root element within the cap.
    #[error("not a sitemap: {reason}")]
    Unreadable {
        /// What happened.
        reason: String,
    },
}

/// Bytes buffered between the decoder and the parsers.
const BUFFER_BYTES: usize = 64 << 10;

/// Parses one sitemap file fetched from `sitemap_url` (`body` as received: gzip is inflated
/// here). See the module docs for what is read and what is tolerated.
///
/// # Errors
/// [`SitemapError`] when the file is not a sitemap at all; problems with entries, and a file
/// cut short, are reported inside the returned [`Sitemap`].
pub fn parse_sitemap(
    body: &[u8],
    sitemap_url: &Url,
    options: &SitemapOptions,
) -> Result<Sitemap, SitemapError> {
    let source = Body::new(body);
    let gzip = source.is_gzip();
    let mut reader =
        BufReader::with_capacity(BUFFER_BYTES, CappedReader::new(source, options.limits.max_bytes));
    // `CappedReader` turns every error but `Interrupted` into an end of input.
    let sniffed = loop {
        match reader.fill_buf() {
            Ok(head) => break sniff(head),
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(error) => return Err(SitemapError::Unreadable { reason: error.to_string() }),
        }
    };
    let mut collector = Collector::new(sitemap_url, options, gzip);
    match sniffed {
        Sniffed::Empty => {
            return Err(match reader.get_ref().failed.clone() {
                Some(message) => {
                    SitemapError::Unreadable { reason: format!("gzip data is corrupt: {message}") }
                }
                None => SitemapError::Empty,
            });
        }
        Sniffed::Binary => return Err(SitemapError::Binary),
        Sniffed::OtherText(start) => return Err(SitemapError::OtherText { start }),
        Sniffed::TextUrls => text::read(&mut reader, &mut collector),
        Sniffed::Markup => xml::read(&mut reader, &mut collector)?,
    }
    let capped = reader.get_ref();
    let stopped = if capped.exceeded {
        Some(Stopped::SizeCap { limit_bytes: options.limits.max_bytes })
    } else if let Some(message) = &capped.failed {
        Some(Stopped::Decompression { after_bytes: capped.read, message: message.clone() })
    } else {
        collector.malformed.take()
    };
    Ok(collector.finish(capped.read, stopped))
}
