//! What the store keeps: one [`PageRecord`] per URL, one [`HostRecord`] per host (politeness
//! unit, URLFrontier's queue), and the [`limits`] on their fields.

use freshet_schedule::online::{HostId, PageId};

/// The largest sizes the store accepts; a larger field is a
/// [`StoreError::TooLong`](crate::StoreError::TooLong) naming the operation, not a silent truncation.
pub mod limits {
    /// A URL, in bytes. Browsers and the sitemap protocol stop near 2,000; 8 KiB leaves room
    /// for the long query strings real crawls meet while keeping one record well inside a page.
    pub const URL_BYTES: usize = 8 * 1024;
    /// A host key (a host name, a registered domain, an IP: whatever the caller queues by).
    pub const HOST_BYTES: usize = 1024;
    /// An `ETag` or `Last-Modified` value as received.
    pub const VALIDATOR_BYTES: usize = 1024;
    /// A content fingerprint (a SHA-1 is 20 bytes, a SHA-256 32, a SimHash 8).
    pub const FINGERPRINT_BYTES: usize = 64;
    /// The change-rate estimator's serialised state (`freshet_estimate::ChangeHistory` is 96
    /// bytes in memory).
    pub const ESTIMATOR_BYTES: usize = 256;
    /// URLs in a redirect trail (a crawler stops a chain long before: 20 hops is the most
    /// browsers follow, and the `fetch.max_redirects` default is lower).
    pub const REDIRECT_TRAIL: usize = 32;
    /// A page's metadata, in bytes (a URLFrontier client's key/values, encoded by it): room for
    /// the depth, status and source URL a crawler keeps, not for a page's content.
    pub const METADATA_BYTES: usize = 64 * 1024;
}

/// Where a URL is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PageState {
    /// Known, never fetched (or never reported fetched).
    Discovered,
    /// Handed to a fetcher and not reported back. After a crash this means nothing: the fetch
    /// died with the process, and [`recover`](crate::FrontierStore::recover) puts the page back
    /// to [`Discovered`](Self::Discovered) or [`Fetched`](Self::Fetched) (by
    /// [`PageRecord::last_fetch`]) with its due time unchanged, so it is due again at once.
    InFlight,
    /// Fetched at least once ([`PageRecord::last_fetch`] says when).
    Fetched,
}

/// Everything the crawler keeps about one URL between runs: enough to rebuild the scheduler
/// ([`Scheduler::add`](freshet_schedule::online::Scheduler::add) or
/// [`restore`](freshet_schedule::online::Scheduler::restore)), send a conditional GET, detect a
/// change, and continue the change-rate estimate.
///
/// Times are in the scheduler's unit and origin (the crawler uses seconds since the Unix epoch).
#[derive(Clone, Debug, PartialEq)]
pub struct PageRecord {
    /// The page's host (politeness unit).
    pub host: HostId,
    /// Where the URL is in its life.
    pub state: PageState,
    /// Links followed from a seed to reach it (0 for a seed).
    pub depth: u32,
    /// The page whose links first named it (`None` for a seed or a sitemap entry).
    pub discovered_from: Option<PageId>,
    /// Importance `w` (finite, `≥ 0`).
    pub weight: f64,
    /// The change-rate estimate `λ` the scheduler uses (finite, `≥ 0`).
    pub change_rate: f64,
    /// Start of the last reported fetch; `None` before the first.
    pub last_fetch: Option<f64>,
    /// Earliest time the page may be fetched again (a discovery's time, a fixed revisit
    /// interval, a `Retry-After`, URLFrontier's `refetchable_from_date`); `None`: not to be
    /// fetched again (gone, disallowed, out of scope), though the URL stays seen.
    pub next_due: Option<f64>,
    /// The last `ETag` received, for `If-None-Match` (RFC 9110 §13.1.2).
    pub etag: Option<String>,
    /// The last `Last-Modified` received, for `If-Modified-Since` (RFC 9110 §13.1.3).
    pub last_modified: Option<String>,
    /// Fingerprint of the last fetched content (empty: none yet); opaque bytes.
    pub fingerprint: Vec<u8>,
    /// The change-rate estimator's state, serialised by its owner (empty: no observation yet);
    /// opaque bytes to the store.
    pub estimator: Vec<u8>,
    /// The redirect chain that led to this page, as discovered
    /// ([`Discovery::redirect_trail`](crate::Discovery::redirect_trail)); emptied when the page is first reported fetched
    /// ([`Op::Complete`](crate::Op::Complete)): the chain has then moved on to the next target
    /// or ended.
    pub redirect_trail: Vec<String>,
    /// What a client of the store keeps beside the page (URLFrontier's `metadata`, encoded by
    /// the service); opaque bytes to the store, empty for the crawler's own pages. Set on
    /// discovery and by [`Op::SetMetadata`](crate::Op::SetMetadata).
    pub metadata: Vec<u8>,
}

/// A page as [`page`](crate::FrontierStore::page) and [`pages`](crate::FrontierStore::pages)
/// return it: its id, its canonical URL and its record.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredPage {
    /// The page's dense id (the scheduler's [`PageId`]).
    pub id: PageId,
    /// The canonical URL it was discovered as.
    pub url: String,
    /// What is known about it.
    pub record: PageRecord,
}

/// A host's politeness as the crawler last decided it (robots.txt `Crawl-delay`, configured
/// delay, adaptive back-off), in the scheduler's unit of time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HostPoliteness {
    /// Minimum time between two fetch starts (finite, `≥ 0`).
    pub min_delay: f64,
    /// Maximum fetch starts per unit time (`> 0`, may be infinite).
    pub max_rate: f64,
    /// No fetch before this time (a `Retry-After`; URLFrontier's `BlockQueueUntil`).
    pub blocked_until: Option<f64>,
}

impl Default for HostPoliteness {
    /// No delay, no rate limit, not blocked: the scheduler's default politeness.
    fn default() -> Self {
        Self { min_delay: 0.0, max_rate: f64::INFINITY, blocked_until: None }
    }
}

/// A host: its key and its politeness.
#[derive(Clone, Debug, PartialEq)]
pub struct HostRecord {
    /// The host's dense id (the scheduler's [`HostId`]).
    pub id: HostId,
    /// The key pages are queued by (a host name; URLFrontier's queue key).
    pub key: String,
    /// Its politeness.
    pub politeness: HostPoliteness,
}

/// How many pages and hosts the store holds (URLFrontier's `GetStats`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Pages in state [`PageState::Discovered`].
    pub discovered: u64,
    /// Pages in state [`PageState::InFlight`].
    pub in_flight: u64,
    /// Pages in state [`PageState::Fetched`].
    pub fetched: u64,
    /// Hosts.
    pub hosts: u64,
}

impl Counts {
    /// All pages, whatever their state.
    #[must_use]
    pub fn pages(&self) -> u64 {
        self.discovered + self.in_flight + self.fetched
    }
}
