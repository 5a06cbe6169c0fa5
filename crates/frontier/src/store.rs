//! The storage trait every frontier engine implements: one write verb taking a batch, one
//! recovery verb, and reads by id, by URL and in id order.

use freshet_schedule::online::{HostId, PageId};

use crate::batch::{CommitReport, Op};
use crate::error::Result;
use crate::record::{Counts, HostRecord, StoredPage};

/// The frontier's durable memory: the seen set (canonical URL → [`PageId`]), one compact
/// [`PageRecord`](crate::PageRecord) per page, the hosts with their politeness, and the id
/// counters. The [scheduler](freshet_schedule::online::Scheduler) is the brain that decides
/// what to fetch; this is what it is rebuilt from after a restart or a crash.
///
/// # Why synchronous
/// Embedded engines block by nature (a commit ends in `fsync`), and the crawler calls the store
/// from the one task that owns the scheduler, a batch at a time (group commit: every few
/// milliseconds, not per URL). A synchronous trait keeps the engines simple and object-safe
/// (`Box<dyn FrontierStore>`); the tokio crawler calls it through `spawn_blocking` or from a
/// dedicated thread. A networked engine (Redis) implements it with a blocking connection (the
/// `redis` crate has one for single nodes and for Redis Cluster), a batch being one pipelined
/// round trip, so it loses nothing by being synchronous.
///
/// # The crash-safety contract
/// - [`commit`](Self::commit) is atomic and durable: when it returns `Ok`, every operation of
///   the batch survives `kill -9` and (for a persistent engine) a power cut; when it returns
///   `Err`, or the process dies before it returns, none of them is visible. A batch of
///   discoveries together with the completions that found them is therefore one transaction:
///   no page is marked fetched without its outlinks, no outlink is kept without its page.
/// - Ids are allocated inside the commit: a `PageId` or `HostId` returned by a successful commit
///   is never given to another URL or host, in this run or after a crash (ids of a batch that
///   did not commit are simply allocated again).
/// - [`PageState::InFlight`](crate::PageState::InFlight) outlives no process: after a crash,
///   [`recover`](Self::recover) gives every in-flight page back, due again, so a URL is fetched
///   again at most once per fetch that was in flight when the crawler died.
/// - WARC first: the crawler writes and syncs a fetch's WARC records
///   (`freshet_warc::WarcWriter::sync`) *before* the commit that completes the page. A crash in
///   between leaves the page in flight, refetched and archived twice (WARC allows it); the other
///   order could mark a page fetched whose record was lost.
///
/// # Resuming
/// Open the engine, call [`recover`](Self::recover), then rebuild the scheduler: every host from
/// [`hosts`](Self::hosts) (`set_host`), then every page from [`pages`](Self::pages) in id order
/// whose `next_due` is set: `add` if it has no `last_fetch`, `restore` with its `last_fetch`
/// otherwise. Everything else (URLs, validators, estimator state) is read with
/// [`page`](Self::page) when the page is fetched.
///
/// # Errors
/// Every verb may fail with [`StoreError::Engine`](crate::StoreError::Engine) (I/O) or
/// [`StoreError::Corrupt`](crate::StoreError::Corrupt) (an undecodable entry); each verb lists
/// the others.
pub trait FrontierStore: Send {
    /// Applies `batch` in order as one atomic, durable transaction (see the contract above) and
    /// reports the discoveries' ids and the new hosts.
    ///
    /// # Errors
    /// Each operation's checks (see [`Op`]): [`Empty`](crate::StoreError::Empty),
    /// [`TooLong`](crate::StoreError::TooLong), [`BadCharacter`](crate::StoreError::BadCharacter),
    /// [`InvalidNumber`](crate::StoreError::InvalidNumber),
    /// [`UnknownPage`](crate::StoreError::UnknownPage),
    /// [`UnknownHost`](crate::StoreError::UnknownHost),
    /// [`AlreadyInFlight`](crate::StoreError::AlreadyInFlight),
    /// [`IdsExhausted`](crate::StoreError::IdsExhausted); each names the operation's index. On
    /// any error nothing of the batch is applied.
    fn commit(&mut self, batch: &[Op]) -> Result<CommitReport>;

    /// Gives every in-flight page back (to `Discovered` or `Fetched`, by its `last_fetch`; its
    /// due time unchanged, so it is due at once) in one transaction, and returns how many.
    /// Call it once when resuming, before any fetch starts.
    fn recover(&mut self) -> Result<u64>;

    /// The page with id `page`, or `None` if the store does not hold it.
    fn page(&self, page: PageId) -> Result<Option<StoredPage>>;

    /// [`page`](Self::page) of each of `pages`, in their order: one round trip on an engine
    /// across a network (Redis), one read each elsewhere.
    ///
    /// # Errors
    /// As [`page`](Self::page).
    fn page_batch(&self, pages: &[PageId]) -> Result<Vec<Option<StoredPage>>> {
        pages.iter().map(|&page| self.page(page)).collect()
    }

    /// The id of `url` (compared byte for byte), or `None` if it is not in the seen set.
    fn lookup(&self, url: &str) -> Result<Option<PageId>>;

    /// Up to `limit` pages in increasing id order, starting after `after` (from the first page
    /// with `None`): for rebuilding the scheduler and for listing (URLFrontier's `ListURLs`).
    fn pages(&self, after: Option<PageId>, limit: usize) -> Result<Vec<StoredPage>>;

    /// The host with id `host`, or `None`.
    fn host(&self, host: HostId) -> Result<Option<HostRecord>>;

    /// The id of the host with key `key`, or `None`.
    fn host_by_key(&self, key: &str) -> Result<Option<HostId>>;

    /// Up to `limit` hosts in increasing id order, starting after `after`.
    fn hosts(&self, after: Option<HostId>, limit: usize) -> Result<Vec<HostRecord>>;

    /// How many pages (by state) and hosts the store holds.
    fn counts(&self) -> Result<Counts>;
}

/// A boxed engine is an engine, so that a crawler can choose its engine at run time
/// (`Box<dyn FrontierStore>`).
impl<S: FrontierStore + ?Sized> FrontierStore for Box<S> {
    fn commit(&mut self, batch: &[Op]) -> Result<CommitReport> {
        (**self).commit(batch)
    }

    fn recover(&mut self) -> Result<u64> {
        (**self).recover()
    }

    fn page(&self, page: PageId) -> Result<Option<StoredPage>> {
        (**self).page(page)
    }

    fn page_batch(&self, pages: &[PageId]) -> Result<Vec<Option<StoredPage>>> {
        (**self).page_batch(pages)
    }

    fn lookup(&self, url: &str) -> Result<Option<PageId>> {
        (**self).lookup(url)
    }

    fn pages(&self, after: Option<PageId>, limit: usize) -> Result<Vec<StoredPage>> {
        (**self).pages(after, limit)
    }

    fn host(&self, host: HostId) -> Result<Option<HostRecord>> {
        (**self).host(host)
    }

    fn host_by_key(&self, key: &str) -> Result<Option<HostId>> {
        (**self).host_by_key(key)
    }

    fn hosts(&self, after: Option<HostId>, limit: usize) -> Result<Vec<HostRecord>> {
        (**self).hosts(after, limit)
    }

    fn counts(&self) -> Result<Counts> {
        (**self).counts()
    }
}
