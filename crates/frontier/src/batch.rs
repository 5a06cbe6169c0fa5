//! What a [`commit`](crate::FrontierStore::commit) carries: a batch of [`Op`]s applied in one
//! transaction, and the [`CommitReport`] it answers; plus the checks every engine runs on each
//! operation before it touches anything.

use freshet_schedule::online::{HostId, PageId};

use crate::error::{Result, StoreError};
use crate::record::{HostPoliteness, limits};

/// A URL found on a page, in a sitemap or among the seeds (URLFrontier's `DiscoveredURLItem`).
#[derive(Clone, Debug, PartialEq)]
pub struct Discovery {
    /// The canonical URL (the caller canonicalises: the store compares bytes).
    pub url: String,
    /// The key of its host, the politeness unit (URLFrontier's queue key); created on first use.
    pub host: String,
    /// Importance `w` to start from (finite, `≥ 0`).
    pub weight: f64,
    /// Change rate `λ` to start from, e.g. the host's pooled prior (finite, `≥ 0`).
    pub change_rate: f64,
    /// Links from a seed (0 for a seed).
    pub depth: u32,
    /// The page it was found on, if any.
    pub discovered_from: Option<PageId>,
    /// When it may first be fetched (usually the time of discovery).
    pub due: f64,
    /// For a redirect target, the URLs of the chain of redirects that led to it, oldest first
    /// (empty for a link): kept in a new page's record until its first fetch, so that a crawl
    /// resumed mid-chain still sees a loop or one hop too many (see
    /// [`PageRecord::redirect_trail`](crate::PageRecord::redirect_trail)).
    pub redirect_trail: Vec<String>,
    /// The caller's metadata for a new page (see
    /// [`PageRecord::metadata`](crate::PageRecord::metadata)); ignored for a URL already held,
    /// as every other field is.
    pub metadata: Vec<u8>,
}

/// What a finished fetch leaves in the record (URLFrontier's `KnownURLItem`). The record's
/// fields are replaced by these; `state` becomes [`Fetched`](crate::PageState::Fetched).
#[derive(Clone, Debug, PartialEq)]
pub struct Completion {
    /// The page fetched.
    pub page: PageId,
    /// When the fetch started.
    pub fetched_at: f64,
    /// Importance now.
    pub weight: f64,
    /// Change-rate estimate now.
    pub change_rate: f64,
    /// Earliest next fetch; `None`: never again (404, 410, disallowed), the URL stays seen.
    pub next_due: Option<f64>,
    /// `ETag` received (or kept from before, on a 304).
    pub etag: Option<String>,
    /// `Last-Modified` received (or kept).
    pub last_modified: Option<String>,
    /// Fingerprint of the content now held.
    pub fingerprint: Vec<u8>,
    /// The estimator's serialised state after this observation.
    pub estimator: Vec<u8>,
}

/// One operation of a batch.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// Inserts the URL if it is new (the seen-set check): a new [`PageId`] and, if its host key
    /// is new, a new [`HostId`]. A URL already held (earlier, or earlier in this batch) is left
    /// exactly as it is. Answered by one [`Admission`] in [`CommitReport::admissions`].
    Discover(Discovery),
    /// Marks a page handed to a fetcher. Errors: [`StoreError::UnknownPage`],
    /// [`StoreError::AlreadyInFlight`].
    Start(PageId),
    /// Records a finished fetch (from any state: a start need not have been recorded).
    /// Errors: [`StoreError::UnknownPage`].
    Complete(Completion),
    /// Gives an in-flight page back without a fetch (a back-off, shutdown, a robots.txt refusal
    /// found late): its state returns to what it was before the start, its due time becomes
    /// `next_due`. A page not in flight only gets the new due time. Errors:
    /// [`StoreError::UnknownPage`].
    Release {
        /// The page.
        page: PageId,
        /// Its new earliest fetch time; `None`: never again.
        next_due: Option<f64>,
    },
    /// Forgets a URL altogether (URLFrontier's `DeleteURL`): it leaves the seen set, so a later
    /// discovery admits it again under a new id. Ids are never reused. Errors:
    /// [`StoreError::UnknownPage`].
    Remove(PageId),
    /// Sets a host's politeness (robots.txt `Crawl-delay`, back-off; URLFrontier's `SetDelay`,
    /// `BlockQueueUntil`). Errors: [`StoreError::UnknownHost`].
    SetHost {
        /// The host.
        host: HostId,
        /// Its politeness from now on.
        politeness: HostPoliteness,
    },
    /// Replaces a page's metadata (URLFrontier's `KnownURLItem` carries the crawler's latest),
    /// whatever its state. Errors: [`StoreError::UnknownPage`].
    SetMetadata {
        /// The page.
        page: PageId,
        /// Its metadata from now on (see [`PageRecord::metadata`](crate::PageRecord::metadata)).
        metadata: Vec<u8>,
    },
}

/// The answer to one [`Op::Discover`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Admission {
    /// The URL's id: new, or the one it already had.
    pub page: PageId,
    /// Its host (the one stored with it, for a URL already held).
    pub host: HostId,
    /// Whether the URL was new (added by this batch).
    pub is_new: bool,
}

/// What a successful [`commit`](crate::FrontierStore::commit) did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CommitReport {
    /// One entry per [`Op::Discover`], in batch order.
    pub admissions: Vec<Admission>,
    /// Hosts this batch created, with their keys, in creation order: the caller declares them
    /// to its scheduler ([`set_host`](freshet_schedule::online::Scheduler::set_host)).
    pub new_hosts: Vec<(HostId, String)>,
}

/// Checks one operation's fields on their own (not against the store's contents).
///
/// # Errors
/// [`StoreError::Empty`], [`StoreError::TooLong`], [`StoreError::BadCharacter`],
/// [`StoreError::InvalidNumber`], naming `index` as the operation.
pub(crate) fn validate(index: usize, op: &Op) -> Result<()> {
    let check = Check { op: index };
    match op {
        Op::Discover(discovery) => {
            check.text("url", &discovery.url, limits::URL_BYTES)?;
            check.text("host", &discovery.host, limits::HOST_BYTES)?;
            check.non_negative("weight", discovery.weight)?;
            check.non_negative("change_rate", discovery.change_rate)?;
            check.redirect_trail(&discovery.redirect_trail)?;
            check.bytes("metadata", &discovery.metadata, limits::METADATA_BYTES)?;
            check.finite("due", discovery.due)
        }
        Op::Start(_) | Op::Remove(_) => Ok(()),
        Op::Complete(completion) => {
            check.finite("fetched_at", completion.fetched_at)?;
            check.non_negative("weight", completion.weight)?;
            check.non_negative("change_rate", completion.change_rate)?;
            check.optional_time("next_due", completion.next_due)?;
            check.optional_text("etag", completion.etag.as_deref(), limits::VALIDATOR_BYTES)?;
            let last_modified = completion.last_modified.as_deref();
            check.optional_text("last_modified", last_modified, limits::VALIDATOR_BYTES)?;
            check.bytes("fingerprint", &completion.fingerprint, limits::FINGERPRINT_BYTES)?;
            check.bytes("estimator", &completion.estimator, limits::ESTIMATOR_BYTES)
        }
        Op::Release { next_due, .. } => check.optional_time("next_due", *next_due),
        Op::SetMetadata { metadata, .. } => check.bytes("metadata", metadata, limits::METADATA_BYTES),
        Op::SetHost { politeness, .. } => {
            check.non_negative("min_delay", politeness.min_delay)?;
            if politeness.max_rate.is_nan() || politeness.max_rate <= 0.0 {
                return Err(check.number("max_rate", politeness.max_rate, "> 0"));
            }
            check.optional_time("blocked_until", politeness.blocked_until)
        }
    }
}

/// The first whitespace or control character of `value` and its byte offset. Printable ASCII
/// (`!` to `~`, every byte of a canonical URL) is settled a byte at a time, which the compiler
/// vectorises: the check ran on every discovery and was 13% of a crawl store's CPU time
/// (BENCHMARKS.md, "Frontier store"); anything else is looked at a character at a time.
fn first_whitespace_or_control(value: &str) -> Option<(usize, char)> {
    if is_printable_ascii(value.as_bytes()) {
        return None;
    }
    value.char_indices().find(|(_, c)| c.is_whitespace() || c.is_control())
}

/// Whether every byte is printable ASCII (`!` to `~`). 32 bytes at a time with no early exit
/// inside a chunk, which the compiler vectorises: `Iterator::all` stops at the first miss, so
/// it was compiled to a loop of a byte and a branch at a time.
fn is_printable_ascii(bytes: &[u8]) -> bool {
    // `byte - b'!'` wraps below `!`, so one comparison bounds both ends.
    let printable = |byte: &u8| byte.wrapping_sub(b'!') <= b'~' - b'!';
    let mut chunks = bytes.chunks_exact(32);
    for chunk in &mut chunks {
        if !chunk.iter().fold(true, |all, byte| all & printable(byte)) {
            return false;
        }
    }
    chunks.remainder().iter().all(printable)
}

/// The checks, remembering which operation they are about.
struct Check {
    op: usize,
}

impl Check {
    fn number(&self, field: &'static str, value: f64, expected: &'static str) -> StoreError {
        StoreError::InvalidNumber { op: self.op, field, value, expected }
    }

    fn finite(&self, field: &'static str, value: f64) -> Result<()> {
        if value.is_finite() { Ok(()) } else { Err(self.number(field, value, "finite")) }
    }

    fn non_negative(&self, field: &'static str, value: f64) -> Result<()> {
        if value.is_finite() && value >= 0.0 {
            Ok(())
        } else {
            Err(self.number(field, value, "finite and >= 0"))
        }
    }

    fn optional_time(&self, field: &'static str, value: Option<f64>) -> Result<()> {
        value.map_or(Ok(()), |time| self.finite(field, time))
    }

    fn bytes(&self, field: &'static str, value: &[u8], max: usize) -> Result<()> {
        if value.len() > max {
            return Err(StoreError::TooLong { op: self.op, field, len: value.len(), max });
        }
        Ok(())
    }

    /// A redirect trail: at most [`limits::REDIRECT_TRAIL`] URLs, each a valid key.
    fn redirect_trail(&self, trail: &[String]) -> Result<()> {
        if trail.len() > limits::REDIRECT_TRAIL {
            let (len, max) = (trail.len(), limits::REDIRECT_TRAIL);
            return Err(StoreError::TooLong { op: self.op, field: "redirect_trail", len, max });
        }
        trail.iter().try_for_each(|url| self.text("redirect_trail", url, limits::URL_BYTES))
    }

    /// A key: not empty, not too long, no whitespace or control characters.
    fn text(&self, field: &'static str, value: &str, max: usize) -> Result<()> {
        if value.is_empty() {
            return Err(StoreError::Empty { op: self.op, field });
        }
        self.bytes(field, value.as_bytes(), max)?;
        match first_whitespace_or_control(value) {
            Some((at, character)) => Err(StoreError::BadCharacter { op: self.op, field, character, at }),
            None => Ok(()),
        }
    }

    /// A header value: may be empty, may hold spaces, no control characters.
    fn optional_text(&self, field: &'static str, value: Option<&str>, max: usize) -> Result<()> {
        let Some(value) = value else { return Ok(()) };
        self.bytes(field, value.as_bytes(), max)?;
        match value.char_indices().find(|(_, c)| c.is_control()) {
            Some((at, character)) => Err(StoreError::BadCharacter { op: self.op, field, character, at }),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::first_whitespace_or_control;

    proptest::proptest! {
        /// The byte-wise shortcut answers as the character scan does, for any string (ASCII
        /// with spaces and controls, and any Unicode).
        #[test]
        fn the_ascii_shortcut_answers_as_the_character_scan(
            value in proptest::prop_oneof![
                proptest::string::string_regex("[ -~\\t\\n\\x00\\x7f]{0,100}").unwrap(),
                proptest::prelude::any::<String>(),
            ],
        ) {
            let scanned = value.char_indices().find(|(_, c)| c.is_whitespace() || c.is_control());
            proptest::prop_assert_eq!(first_whitespace_or_control(&value), scanned);
        }

        /// The chunked check answers as a byte-by-byte one, wherever the one byte outside `!`
        /// to `~` falls (in a whole 32-byte chunk or in the remainder), or with none.
        #[test]
        fn the_chunked_check_answers_as_the_byte_scan(
            printable in proptest::string::string_regex("[!-~]{0,100}").unwrap(),
            other in proptest::prelude::any::<u8>(),
            at in proptest::prelude::any::<proptest::sample::Index>(),
        ) {
            let mut bytes = printable.into_bytes();
            proptest::prop_assert!(super::is_printable_ascii(&bytes));
            if !bytes.is_empty() {
                let at = at.index(bytes.len());
                bytes[at] = other;
            }
            let expected = bytes.iter().all(|byte| (b'!'..=b'~').contains(byte));
            proptest::prop_assert_eq!(super::is_printable_ascii(&bytes), expected);
        }
    }

    #[test]
    fn the_shortcut_finds_what_it_must() {
        assert_eq!(first_whitespace_or_control("https://h.test/a"), None);
        assert_eq!(first_whitespace_or_control("https://h.test/a b"), Some((16, ' ')));
        assert_eq!(first_whitespace_or_control("https://h.test/\x7f"), Some((15, '\x7f')));
        assert_eq!(first_whitespace_or_control("https://h.test/\u{a0}"), Some((15, '\u{a0}')));
        assert_eq!(first_whitespace_or_control("https://h.test/é"), None);
    }
}
