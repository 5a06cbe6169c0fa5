//! What the XML and text readers share: entry numbering and the entry limit, `loc` checks
//! (canonical form, length, [`LocationRule`](super::LocationRule)), optional fields, and bounded problem lists.

use freshet_url::Url;

use super::datetime::parse_w3c_datetime;
use super::entry::{ChangeFrequency, DEFAULT_PRIORITY, SitemapRef, SitemapUrl};
use super::{EntryProblem, ProblemKind, Sitemap, SitemapFormat, SitemapOptions, Stopped};

/// Longest value kept in a problem, in characters.
const KEPT_CHARS: usize = 200;

/// The raw text of one entry's fields, as read.
#[derive(Debug, Default)]
pub(super) struct RawEntry {
    pub(super) loc: Option<String>,
    pub(super) last_modified: Option<String>,
    pub(super) change_frequency: Option<String>,
    pub(super) priority: Option<String>,
}

/// Collects entries into a [`Sitemap`].
pub(super) struct Collector<'a> {
    sitemap_url: &'a Url,
    options: &'a SitemapOptions,
    gzip: bool,
    pub(super) format: SitemapFormat,
    urls: Vec<SitemapUrl>,
    sitemaps: Vec<SitemapRef>,
    entries: u64,
    over_limit: u64,
    problems: Vec<EntryProblem>,
    problems_over_limit: u64,
    /// Set by the XML reader when the XML broke after the root element.
    pub(super) malformed: Option<Stopped>,
}

impl<'a> Collector<'a> {
    pub(super) fn new(sitemap_url: &'a Url, options: &'a SitemapOptions, gzip: bool) -> Self {
        Self {
            sitemap_url,
            options,
            gzip,
            format: SitemapFormat::UrlSet,
            urls: Vec::new(),
            sitemaps: Vec::new(),
            entries: 0,
            over_limit: 0,
            problems: Vec::new(),
            problems_over_limit: 0,
            malformed: None,
        }
    }

    /// Numbers a new entry: `Some(number)` if it is within the limit and should be read,
    /// `None` (counted) if it is past it.
    pub(super) fn begin_entry(&mut self) -> Option<u64> {
        self.entries += 1;
        if self.entries > self.options.limits.max_entries {
            self.over_limit += 1;
            return None;
        }
        Some(self.entries)
    }

    /// The longest `loc` accepted, in bytes.
    pub(super) fn max_loc_bytes(&self) -> usize {
        self.options.limits.max_loc_bytes
    }

    /// Records a problem with entry `entry`.
    pub(super) fn problem(&mut self, entry: u64, kind: ProblemKind) {
        if self.problems.len() < self.options.limits.max_problems {
            self.problems.push(EntryProblem { entry, kind });
        } else {
            self.problems_over_limit += 1;
        }
    }

    /// Checks a `loc` (already trimmed): canonical, not too long, allowed here.
    fn location(&mut self, entry: u64, loc: Option<&str>, is_index: bool) -> Option<Url> {
        let Some(loc) = loc.filter(|loc| !loc.is_empty()) else {
            self.problem(entry, ProblemKind::MissingLoc);
            return None;
        };
        if loc.len() > self.options.limits.max_loc_bytes {
            self.problem(entry, ProblemKind::LocTooLong { limit: self.options.limits.max_loc_bytes });
            return None;
        }
        let url = match freshet_url::canonicalize(loc) {
            Ok(url) => url,
            Err(error) => {
                self.problem(entry, ProblemKind::InvalidLoc { reason: shorten(&error.to_string()) });
                return None;
            }
        };
        let rule = &self.options.location;
        let allowed = if is_index {
            rule.allows_sitemap(self.sitemap_url, &url)
        } else {
            rule.allows_page(self.sitemap_url, &url)
        };
        if !allowed {
            self.problem(entry, ProblemKind::OutsideLocation { url: shorten(url.as_str()) });
            return None;
        }
        Some(url)
    }

    /// Takes one `<url>` or `<sitemap>` entry (per [`Self::format`]).
    pub(super) fn entry(&mut self, entry: u64, raw: RawEntry) {
        let is_index = self.format == SitemapFormat::Index;
        let Some(url) = self.location(entry, raw.loc.as_deref().map(str::trim), is_index) else { return };
        let last_modified = raw.last_modified.and_then(|value| match parse_w3c_datetime(&value) {
            Ok(parsed) => Some(parsed),
            Err(error) => {
                self.problem(entry, ProblemKind::BadLastModified(error));
                None
            }
        });
        if is_index {
            self.sitemaps.push(SitemapRef { url, last_modified });
            return;
        }
        let change_frequency = raw.change_frequency.and_then(|value| {
            let parsed = ChangeFrequency::parse(&value);
            if parsed.is_none() {
                self.problem(entry, ProblemKind::BadChangeFrequency { value: shorten(value.trim()) });
            }
            parsed
        });
        let priority = raw.priority.and_then(|value| {
            let parsed = value.trim().parse::<f64>().ok().filter(|p| (0.0..=1.0).contains(p));
            if parsed.is_none() {
                self.problem(entry, ProblemKind::BadPriority { value: shorten(value.trim()) });
            }
            parsed
        });
        self.urls.push(SitemapUrl {
            url,
            last_modified,
            change_frequency,
            priority: priority.unwrap_or(DEFAULT_PRIORITY),
            priority_given: priority.is_some(),
        });
    }

    /// Takes one line of a text sitemap (trimmed, non-empty).
    pub(super) fn text_line(&mut self, entry: u64, line: &str) {
        if let Some(url) = self.location(entry, Some(line), false) {
            self.urls.push(SitemapUrl {
                url,
                last_modified: None,
                change_frequency: None,
                priority: DEFAULT_PRIORITY,
                priority_given: false,
            });
        }
    }

    pub(super) fn finish(self, bytes_read: u64, stopped: Option<Stopped>) -> Sitemap {
        Sitemap {
            format: self.format,
            gzip: self.gzip,
            urls: self.urls,
            sitemaps: self.sitemaps,
            entries: self.entries,
            over_limit: self.over_limit,
            problems: self.problems,
            problems_over_limit: self.problems_over_limit,
            bytes_read,
            stopped,
        }
    }
}

/// `value` cut to [`KEPT_CHARS`] characters.
pub(super) fn shorten(value: &str) -> String {
    match value.char_indices().nth(KEPT_CHARS) {
        Some((cut, _)) => format!("{}…", &value[..cut]),
        None => value.to_owned(),
    }
}
