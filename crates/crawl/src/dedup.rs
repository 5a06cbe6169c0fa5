//! Identical payloads stored once. A 2xx answer whose body is, byte for byte, one the archive
//! already holds is written as a WARC `revisit` record of profile *identical-payload-digest*
//! (WARC 1.1 §6.3.2: the HTTP header block only, with `WARC-Refers-To-Target-URI` and
//! `WARC-Refers-To-Date` naming the `response` record that holds the body), instead of a second
//! copy of the body. Two cases, one rule:
//! - **the page's own last capture**: a revisit found the page unchanged, from a server that
//!   does not answer conditional GETs with `304` (most dynamic pages: no `ETag`, no
//!   `Last-Modified`). A freshness crawl spends most of its fetches on unchanged pages, so
//!   without this its archive grows by a full copy of the page at every revisit;
//! - **another URL's capture**: the same body under several URLs (`/` and `/index.html`, a
//!   mirror, session tokens or tracking parameters in query strings, a soft 404 served under
//!   every missing path). A one-pass crawl of the Rust toolchain's documentation (31,790
//!   pages) met 31 bodies another URL's `response` record already held (BENCHMARKS.md,
//!   "Identical payloads stored once").
//!
//! This is what Heritrix's deduplication and `wget --warc-dedup` write, and what replay tools
//! (pywb, OpenWayback) and `warcio` read: a revisit is resolved by looking up the record at
//! its `WARC-Refers-To-Target-URI` and `WARC-Refers-To-Date`.
//!
//! # What is compared
//! The `WARC-Payload-Digest`: the SHA-1 of the body exactly as recorded (transfer coding
//! removed, content coding kept). These are the bytes a replay serves with the revisit's own
//! headers, so two URLs with the same text under different `Content-Encoding`s are not
//! duplicates. The whole 20 bytes are compared, never a prefix: a false match would lose a
//! page's body. A body cut short (`WARC-Truncated`) is never a duplicate, nor an original.
//!
//! # Where it is kept
//! - Each page's memory ([`PageMemory::capture`](crate::revisit::PageMemory::capture), in the
//!   store's opaque `estimator` bytes; no new table in the store's trait) holds the capture of
//!   its last complete payload, a [`HeldCapture`]: the digest, the record's `WARC-Date`, and
//!   the page whose URL is the record's `WARC-Target-URI` (the page itself, or the one it
//!   duplicates). It is stored with the page's completion, which the group commit writes only
//!   after the WARC files are synced: a held capture names a record on disk. A fetch task
//!   compares its body's digest with the page's held capture before it encodes, so the common
//!   case (an unchanged revisit) costs one SHA-1 of the body and writes a few hundred bytes; a
//!   changed body is digested twice (the encoder computes its payload digest again, ~5 µs for
//!   10 KB, on the fetch task, not the control task), a page's first fetch once, as before. A
//!   `304` refers to the held capture too.
//! - The crawl's [`PayloadIndex`]: digest → the page that owns a `response` record of it, with
//!   the record's date; in memory, at most one entry a page (a page's entry goes when its
//!   payload changes), at most [`CrawlConfig::duplicate_index_entries`](crate::CrawlConfig)
//!   entries (32 bytes each, in a hash table; when full, new payloads are not indexed, which
//!   only costs a full copy of a later duplicate). A resumed crawl rebuilds it from the page
//!   memories in the scan that rebuilds the scheduler. The held capture adds 37 bytes to each
//!   page's record in the store.
//!
//!
//! # Near-duplicates
//! A page whose bytes differ but whose main text nearly repeats another's (a mirror with
//! another template, a printable version, the same article under a session token or a
//! timestamp) cannot share a WARC record, but is worth knowing: at a page's first fetch its
//! main-text signature (`freshet_content`'s SimHash, host boilerplate left out) is looked up in
//! the crawl's [`NearDuplicateIndex`](freshet_content::NearDuplicateIndex), Manku et al.'s
//! block tables over the SimHashes of one page of each group of near-duplicates (within 3 of
//! 64 bits; texts of fewer than 24 words are left out, their SimHash says too little). A page
//! that nearly repeats one is counted ([`CrawlSummary::near_duplicates`](crate::CrawlSummary))
//! and its log line's `detail` names that page; one that repeats none is indexed. At most
//! [`CrawlConfig::near_duplicate_index_entries`](crate::CrawlConfig) pages (about 28 bytes
//! each), rebuilt on resume from the signatures the page records keep.
//!
//! # What stays the same
//! A duplicate or near-duplicate is a page like any other: its links are read (the same markup
//! under another URL can resolve to other links), it keeps its own revisit schedule,
//! change-rate estimate and crawl log line, whose `detail` names the capture it refers to or
//! the page it nearly repeats.

use std::collections::HashMap;

use freshet_schedule::online::PageId;
use freshet_warc::{Digest, WarcDate};

use crate::revisit::CorruptMemory;

/// The default of [`CrawlConfig::duplicate_index_entries`](crate::CrawlConfig): 2^22 payloads,
/// about 277 MB of hash table once full (2^23 slots of a 32-byte entry and a control byte:
/// the table keeps at most 7/8 of its slots full, in a power of two).
pub const DEFAULT_INDEX_ENTRIES: usize = 1 << 22;

/// The default of [`CrawlConfig::near_duplicate_index_entries`](crate::CrawlConfig): 2^22
/// pages, about 117 MB once full (28 bytes a page: 12 for the entry, 4 in each of four
/// tables), and 1 MiB of list heads from the first page on.
pub const DEFAULT_NEAR_DUPLICATE_ENTRIES: usize = 1 << 22;

/// A WARC `response` record holding a payload: what a revisit record refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeldCapture {
    /// Its `WARC-Payload-Digest`.
    pub payload_digest: Digest,
    /// Its `WARC-Date` (`WARC-Refers-To-Date`).
    pub date: WarcDate,
    /// The page whose canonical URL is its `WARC-Target-URI` (`WARC-Refers-To-Target-URI`).
    pub page: PageId,
}

impl HeldCapture {
    /// Length of the byte form: digest (20), Unix seconds (8), microseconds (4), page (4).
    pub const ENCODED_LEN: usize = 20 + 8 + 4 + 4;

    /// The byte form, little-endian.
    #[must_use]
    pub fn to_bytes(&self) -> [u8; Self::ENCODED_LEN] {
        let mut out = [0; Self::ENCODED_LEN];
        out[..20].copy_from_slice(&self.payload_digest.bytes());
        out[20..28].copy_from_slice(&self.date.unix_seconds().to_le_bytes());
        out[28..32].copy_from_slice(&self.date.micros().to_le_bytes());
        out[32..36].copy_from_slice(&self.page.0.to_le_bytes());
        out
    }

    /// Reads the byte form.
    ///
    /// # Errors
    /// [`CorruptMemory`] for a wrong length or a date WARC cannot write.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, CorruptMemory> {
        let bytes: &[u8; Self::ENCODED_LEN] =
            bytes.try_into().map_err(|_| CorruptMemory("the held capture has the wrong length"))?;
        let mut digest = [0; 20];
        digest.copy_from_slice(&bytes[..20]);
        let mut seconds = [0; 8];
        seconds.copy_from_slice(&bytes[20..28]);
        let mut micros = [0; 4];
        micros.copy_from_slice(&bytes[28..32]);
        let mut page = [0; 4];
        page.copy_from_slice(&bytes[32..36]);
        let date = WarcDate::from_unix(u64::from_le_bytes(seconds), u32::from_le_bytes(micros))
            .map_err(|_| CorruptMemory("the held capture's date is out of range"))?;
        Ok(Self { payload_digest: Digest::from_bytes(digest), date, page: PageId(u32::from_le_bytes(page)) })
    }
}

/// A page job's held capture with the URL its record is under, for the fetch task to refer
/// to without asking the store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Reference {
    /// The record.
    pub(crate) capture: HeldCapture,
    /// Its `WARC-Target-URI` when it is another page's; `None`: the job's own URL.
    pub(crate) other_url: Option<String>,
}

impl Reference {
    /// The record's `WARC-Target-URI`: `own_url` unless it is another page's.
    pub(crate) fn target_uri<'a>(&'a self, own_url: &'a str) -> &'a str {
        self.other_url.as_deref().unwrap_or(own_url)
    }
}

/// The `WARC-Payload-Digest` a complete 2xx answer's `response` record gets: the SHA-1 of the
/// body as received (`Fetch::transfer_body`, which `Fetch::response_message` puts after the
/// header block, whose header values hold no line break, so that the writer digests the same
/// bytes). `None` for any other answer and for a body cut short.
pub(crate) fn payload_digest(fetch: &freshet_fetch::Fetch) -> Option<Digest> {
    (fetch.outcome.is_ok() && fetch.truncated.is_none() && fetch.response.is_some())
        .then(|| Digest::sha1(&fetch.transfer_body))
}

/// The WARC record that holds a page's last complete payload, as `freshet explain` shows it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PayloadRecord {
    /// Its `WARC-Target-URI`: the page's own URL, or the one whose body it duplicates.
    pub target_uri: String,
    /// Its `WARC-Date`.
    pub date: String,
    /// Its `WARC-Payload-Digest` (`sha1:` and base32).
    pub payload_digest: String,
}

impl PayloadRecord {
    /// The record of `capture`, held by page `page` whose URL is `url`; `url_of` gives another
    /// page's URL (`None` if the store no longer has it: then there is no record to name).
    pub(crate) fn of<E>(
        capture: &HeldCapture,
        page: PageId,
        url: &str,
        url_of: impl FnOnce(PageId) -> Result<Option<String>, E>,
    ) -> Result<Option<Self>, E> {
        let target_uri = if capture.page == page { Some(url.to_owned()) } else { url_of(capture.page)? };
        Ok(target_uri.map(|target_uri| Self {
            target_uri,
            date: capture.date.to_string(),
            payload_digest: capture.payload_digest.to_string(),
        }))
    }
}

/// One index entry: the digest's last 12 bytes (its first 8 are the key), the page, and the
/// record's date in microseconds since the Unix epoch: 24 bytes, 32 with the key.
#[derive(Clone, Copy, Debug)]
struct Entry {
    digest_rest: [u8; 12],
    page: PageId,
    date_micros: u64,
}

/// The crawl's payloads with a `response` record: digest → [`HeldCapture`], bounded (see the
/// module docs).
#[derive(Debug)]
pub struct PayloadIndex {
    entries: HashMap<u64, Entry>,
    max_entries: usize,
    /// Payloads not indexed because the index was full.
    unindexed: u64,
}

fn split(digest: &Digest) -> (u64, [u8; 12]) {
    let bytes = digest.bytes();
    let mut head = [0; 8];
    head.copy_from_slice(&bytes[..8]);
    let mut rest = [0; 12];
    rest.copy_from_slice(&bytes[8..]);
    (u64::from_le_bytes(head), rest)
}

fn micros(date: WarcDate) -> u64 {
    date.unix_seconds() * 1_000_000 + u64::from(date.micros())
}

fn from_micros(micros: u64) -> Option<WarcDate> {
    // Every stored date came from a `WarcDate`, so this holds; `None` would be no record.
    WarcDate::from_unix(micros / 1_000_000, (micros % 1_000_000) as u32).ok()
}

impl PayloadIndex {
    /// An empty index of at most `max_entries` payloads (0: none indexed, no duplicate of
    /// another URL found; a page's own unchanged payload is still found from its memory).
    #[must_use]
    pub fn new(max_entries: usize) -> Self {
        Self { entries: HashMap::new(), max_entries, unindexed: 0 }
    }

    /// The record holding `digest`'s payload, if indexed (the whole digest compared).
    #[must_use]
    pub fn find(&self, digest: &Digest) -> Option<HeldCapture> {
        let (key, rest) = split(digest);
        let entry = self.entries.get(&key).filter(|entry| entry.digest_rest == rest)?;
        Some(HeldCapture { payload_digest: *digest, date: from_micros(entry.date_micros)?, page: entry.page })
    }

    /// Indexes `held`, replacing an entry with the same digest (or the same first 8 bytes);
    /// `false`, with nothing changed, when the index is full.
    pub fn insert(&mut self, held: HeldCapture) -> bool {
        let (key, digest_rest) = split(&held.payload_digest);
        let entry = Entry { digest_rest, page: held.page, date_micros: micros(held.date) };
        if self.entries.len() >= self.max_entries && !self.entries.contains_key(&key) {
            self.unindexed += 1;
            return false;
        }
        self.entries.insert(key, entry);
        true
    }

    /// Removes `held`'s entry if it is still exactly `held` (a page whose payload changed
    /// takes its old one out; a later capture of the same payload by another page stays).
    pub fn forget(&mut self, held: &HeldCapture) {
        let (key, rest) = split(&held.payload_digest);
        if self.entries.get(&key).is_some_and(|entry| {
            entry.digest_rest == rest && entry.page == held.page && entry.date_micros == micros(held.date)
        }) {
            self.entries.remove(&key);
        }
    }

    /// Payloads indexed.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether none is.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Payloads that found the index full.
    #[must_use]
    pub fn unindexed(&self) -> u64 {
        self.unindexed
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn held(body: &[u8], seconds: u64, page: u32) -> HeldCapture {
        HeldCapture {
            payload_digest: Digest::sha1(body),
            date: WarcDate::from_unix(seconds, 250).unwrap(),
            page: PageId(page),
        }
    }

    #[test]
    fn a_held_capture_survives_its_bytes_and_a_bad_date_is_refused() {
        let capture = held(b"body", 1_800_000_000, 7);
        assert_eq!(HeldCapture::from_bytes(&capture.to_bytes()), Ok(capture));
        let mut bad = capture.to_bytes();
        bad[28..32].copy_from_slice(&1_000_000_u32.to_le_bytes());
        assert!(HeldCapture::from_bytes(&bad).is_err());
        assert!(HeldCapture::from_bytes(&bad[..35]).is_err());
    }

    #[test]
    fn the_index_finds_a_payload_by_its_whole_digest() {
        let mut index = PayloadIndex::new(10);
        let original = held(b"a page", 100, 1);
        assert!(index.insert(original));
        assert_eq!(index.find(&Digest::sha1(b"a page")), Some(original));
        assert_eq!(index.find(&Digest::sha1(b"another page")), None);
        // The same first 8 bytes with another rest is not the payload.
        let mut bytes = original.payload_digest.bytes();
        bytes[19] ^= 1;
        assert_eq!(index.find(&Digest::from_bytes(bytes)), None);
        // A later capture of the same payload takes the entry.
        let later = held(b"a page", 200, 2);
        assert!(index.insert(later));
        assert_eq!(index.find(&later.payload_digest), Some(later));
        assert_eq!(index.len(), 1);
    }

    #[test]
    fn an_entry_is_32_bytes_with_its_key() {
        assert_eq!(std::mem::size_of::<(u64, Entry)>(), 32);
    }

    #[test]
    fn forgetting_takes_out_only_the_entry_named() {
        let mut index = PayloadIndex::new(10);
        let first = held(b"x", 100, 1);
        let second = held(b"x", 200, 2);
        index.insert(first);
        index.insert(second);
        index.forget(&first);
        assert_eq!(index.find(&first.payload_digest), Some(second));
        index.forget(&second);
        assert!(index.is_empty());
    }

    #[test]
    fn a_full_index_keeps_what_it_has_and_counts_the_rest() {
        let mut index = PayloadIndex::new(2);
        assert!(index.insert(held(b"1", 1, 1)));
        assert!(index.insert(held(b"2", 2, 2)));
        assert!(!index.insert(held(b"3", 3, 3)));
        assert_eq!((index.len(), index.unindexed()), (2, 1));
        assert_eq!(index.find(&Digest::sha1(b"3")), None);
        // Replacing an entry needs no room.
        assert!(index.insert(held(b"2", 4, 4)));
        assert_eq!(index.find(&Digest::sha1(b"2")).map(|held| held.page), Some(PageId(4)));
        let mut none = PayloadIndex::new(0);
        assert!(!none.insert(held(b"1", 1, 1)));
    }

    /// A digest whose first 8 bytes (the index's key) come from a set of 3 and its last byte
    /// from a set of 2, so that keys collide with and without the same digest.
    fn crafted(key: u8, last: u8) -> Digest {
        let mut bytes = [7; 20];
        bytes[..8].copy_from_slice(&[key; 8]);
        bytes[19] = last;
        Digest::from_bytes(bytes)
    }

    proptest::proptest! {
        /// Against a model that keeps every capture ever inserted: a found record is always
        /// one inserted with exactly that digest (never a false match: a revisit must name a
        /// record holding its body), the latest such one not forgotten since; the index never
        /// holds more than its cap; and without a cap or a shared key it finds every capture
        /// inserted and not forgotten.
        #[test]
        fn the_index_never_names_a_record_of_another_payload(
            operations in proptest::collection::vec((0u8..3, 0u8..2, 0u32..4, proptest::bool::ANY), 1..60),
            cap in 1usize..6,
        ) {
            let mut index = PayloadIndex::new(cap);
            let mut latest: std::collections::HashMap<Digest, HeldCapture> = std::collections::HashMap::new();
            for (step, &(key, last, page, forget)) in operations.iter().enumerate() {
                let capture = HeldCapture {
                    payload_digest: crafted(key, last),
                    date: WarcDate::from_unix(1_000 + step as u64, 0).unwrap(),
                    page: PageId(page),
                };
                match latest.get(&capture.payload_digest).copied() {
                    Some(previous) if forget => {
                        index.forget(&previous);
                        latest.remove(&capture.payload_digest);
                    }
                    _ => {
                        if index.insert(capture) {
                            latest.insert(capture.payload_digest, capture);
                        }
                    }
                }
                proptest::prop_assert!(index.len() <= cap);
                for key in 0..3 {
                    for last in 0..2 {
                        let digest = crafted(key, last);
                        if let Some(found) = index.find(&digest) {
                            proptest::prop_assert_eq!(found.payload_digest, digest);
                            proptest::prop_assert_eq!(Some(found), latest.get(&digest).copied());
                        }
                    }
                }
            }
        }
    }
}
