//! The seen-URL index in front of a store: [`SeenIndex`] (a URL's 64-bit fingerprint → its page
//! and host ids, in memory) and [`SeenFilter`], a [`FrontierStore`] that answers the discovery of
//! a URL it has seen from the index and hands only the others to the engine behind it.
//!
//! # Why
//! A crawl discovers every URL many times (each page links to ~40 URLs, most known already), so
//! the seen-set check is the frontier's hottest path. Through an engine it is a B-tree read inside
//! a write transaction (redb: ~52,600 discoveries/s at 10^6 URLs, BENCHMARKS.md "Frontier
//! store"); through the index it is one hash-table probe, and only new URLs reach the engine.
//! The index keeps the page id, not just a membership bit (a Bloom filter would not do): the
//! importance estimator (OPIC, `freshet-rank`) needs every link target's page id, and the
//! crawler needs its host to ask robots.txt whether the link is followed.
//!
//! # Size
//! One entry is a 64-bit fingerprint and two `u32` ids, 16 bytes, in a `std` (hashbrown)
//! table: one control byte per slot, at most 7/8 full, slots a power of two; so 17 bytes per
//! slot and between ~19.4 and ~39 bytes per URL by where the count falls between two sizes
//! (22.8 at 10^8 URLs: 2^27 slots). BENCHMARKS.md ("Seen-URL set sized for 10^8 URLs") has the measured
//! figures. The URL itself stays in the engine only.
//!
//! # Fingerprint collisions
//! Two URLs with the same 64-bit fingerprint (xxh3-64 of the canonical URL's bytes) would be taken
//! for one: the second would be answered "seen" with the first's id and never fetched. Among
//! `n` URLs the probability of any collision is about `n² / 2^65`: 2.7·10^-4 at 10^8 URLs,
//! 2.7·10^-6 at 10^7. That is accepted rather than paid for with a store read on every hit
//! (which would undo the index's point); the engine itself stays exact (redb compares URLs byte
//! for byte), so a collision costs at most one URL per colliding pair, in memory, for the run.
//!
//! # A cache, never the truth
//! The index only ever holds pairs the engine has confirmed (it is updated after a commit
//! succeeds), so an index that lacks a URL is merely slower: the discovery goes to the engine,
//! which answers it exactly. That makes rebuilding it after a restart or `kill -9` a matter of
//! speed, not of safety: [`SeenFilter::open`] scans the engine in id order, and a caller that
//! scans the engine anyway (the crawler rebuilding its scheduler) feeds each chunk to
//! [`SeenFilter::remember`] instead and scans once.

use freshet_schedule::online::{HostId, PageId};
use nohash_hasher::BuildNoHashHasher;
use std::collections::HashMap;
use xxhash_rust::xxh3::xxh3_64;

use crate::batch::{Admission, CommitReport, Op, validate};
use crate::error::{Result, StoreError};
use crate::record::{Counts, HostRecord, StoredPage};
use crate::store::FrontierStore;

/// The fingerprint the seen index keys a URL by: xxh3-64 of its bytes (the canonical URL, as the
/// store compares them). The redb engine keys its seen set by it too, so it must not change
/// without a new store format (xxh3 is a fixed, specified function).
#[must_use]
pub fn url_fingerprint(url: &str) -> u64 {
    xxh3_64(url.as_bytes())
}

/// A URL's fingerprint → its page and host ids, for every URL the engine confirmed.
#[derive(Clone, Debug, Default)]
pub struct SeenIndex {
    /// Keyed by fingerprint, hashed to itself (`nohash_hasher`): it is already a uniform 64-bit
    /// hash, and hashing it again would only cost time.
    entries: HashMap<u64, (u32, u32), BuildNoHashHasher<u64>>,
}

impl SeenIndex {
    /// An empty index.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty index with room for `urls` entries without growing (growing a table of 10^8
    /// entries briefly holds the old and the new one).
    #[must_use]
    pub fn with_capacity(urls: usize) -> Self {
        Self { entries: HashMap::with_capacity_and_hasher(urls, BuildNoHashHasher::default()) }
    }

    /// Makes room for `urls` more entries without growing.
    pub fn reserve(&mut self, urls: usize) {
        self.entries.reserve(urls);
    }

    /// The page and host of the URL with fingerprint `fingerprint`, if seen.
    #[must_use]
    pub fn get(&self, fingerprint: u64) -> Option<(PageId, HostId)> {
        self.entries.get(&fingerprint).map(|&(page, host)| (PageId(page), HostId(host)))
    }

    /// Records that the URL with `fingerprint` is `page` on `host` (replacing what was there).
    pub fn insert(&mut self, fingerprint: u64, page: PageId, host: HostId) {
        self.entries.insert(fingerprint, (page.0, host.0));
    }

    /// Forgets `fingerprint` if it names `page` (a removed page; another page under the same
    /// fingerprint stays).
    pub fn remove(&mut self, fingerprint: u64, page: PageId) {
        if self.entries.get(&fingerprint).is_some_and(|&(held, _)| held == page.0) {
            self.entries.remove(&fingerprint);
        }
    }

    /// How many URLs it holds.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it holds none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The bytes its table takes on the heap, from its capacity: hashbrown keeps
    /// `capacity · 8/7` slots rounded up to a power of two, each an entry (16 bytes) and a
    /// control byte (an estimate of the layout, checked against the resident set by the bench).
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        let capacity = self.entries.capacity();
        if capacity == 0 {
            return 0;
        }
        let slots = if capacity < 8 { capacity + 1 } else { (capacity * 8 / 7).next_power_of_two() };
        slots * (std::mem::size_of::<(u64, (u32, u32))>() + 1)
    }
}

/// A [`FrontierStore`] that answers the discovery of an already seen URL from a [`SeenIndex`]
/// (one hash probe, no engine read) and passes everything else to `S`. Reads, recovery and the
/// other operations go to `S` unchanged; see the `seen` module docs for size and collisions.
#[derive(Debug)]
pub struct SeenFilter<S> {
    store: S,
    index: SeenIndex,
}

impl<S: FrontierStore> SeenFilter<S> {
    /// `store` with an empty index: correct at once (a URL not in the index goes to the
    /// engine), and filled by commits and by [`remember`](Self::remember).
    #[must_use]
    pub fn new(store: S) -> Self {
        Self { store, index: SeenIndex::new() }
    }

    /// `store` with its index rebuilt from every page it holds (one scan in id order, into a
    /// table sized from [`counts`](FrontierStore::counts), so it never grows while rebuilding).
    ///
    /// # Errors
    /// What [`FrontierStore::counts`] and [`FrontierStore::pages`] return.
    pub fn open(store: S) -> Result<Self> {
        let mut filter = Self::new(store);
        filter.reserve_for_store()?;
        let mut after = None;
        loop {
            let pages = filter.store.pages(after, 4096)?;
            let Some(last) = pages.last().map(|page| page.id) else { break };
            filter.remember(&pages);
            after = Some(last);
        }
        Ok(filter)
    }

    /// Sizes the index for every page the engine holds (before [`remember`](Self::remember)ing
    /// them), so that a rebuild never doubles the table.
    ///
    /// # Errors
    /// What [`FrontierStore::counts`] returns.
    pub fn reserve_for_store(&mut self) -> Result<()> {
        let pages = self.store.counts()?.pages();
        self.index.reserve(usize::try_from(pages).unwrap_or(usize::MAX));
        Ok(())
    }

    /// Adds pages read from the engine (by [`pages`](FrontierStore::pages)) to the index: for a
    /// caller that scans the engine anyway, so that a resume scans it once.
    pub fn remember(&mut self, pages: &[StoredPage]) {
        for page in pages {
            self.index.insert(url_fingerprint(&page.url), page.id, page.record.host);
        }
    }

    /// The index.
    #[must_use]
    pub fn index(&self) -> &SeenIndex {
        &self.index
    }

    /// The engine behind it.
    #[must_use]
    pub fn store(&self) -> &S {
        &self.store
    }

    /// The engine behind it, for its own verbs (e.g. [`RedbStore::compact`](crate::RedbStore::compact)).
    /// Committing through it directly leaves the index behind, which only costs speed, except
    /// for [`Op::Remove`]: a removed URL would stay "seen" under its old id.
    pub fn store_mut(&mut self) -> &mut S {
        &mut self.store
    }

    /// The engine, dropping the index.
    pub fn into_store(self) -> S {
        self.store
    }

    /// A batch with a removal goes to the engine whole (a removal in a batch can make a later
    /// discovery of the same URL new again); the index follows the report.
    fn commit_whole(&mut self, batch: &[Op]) -> Result<CommitReport> {
        // The URLs of pages removed that existed before the batch (a page created in the batch
        // and removed in it is found among the batch's discoveries below).
        let mut removed_urls = HashMap::new();
        for op in batch {
            if let Op::Remove(page) = op
                && let Some(stored) = self.store.page(*page)?
            {
                removed_urls.insert(*page, stored.url);
            }
        }
        let report = self.store.commit(batch)?;
        let mut admissions = report.admissions.iter();
        for op in batch {
            match op {
                Op::Discover(discovery) => {
                    if let Some(admission) = admissions.next() {
                        let fingerprint = url_fingerprint(&discovery.url);
                        self.index.insert(fingerprint, admission.page, admission.host);
                        removed_urls.entry(admission.page).or_insert_with(|| discovery.url.clone());
                    }
                }
                Op::Remove(page) => {
                    if let Some(url) = removed_urls.get(page) {
                        self.index.remove(url_fingerprint(url), *page);
                    }
                }
                _ => {}
            }
        }
        Ok(report)
    }
}

/// Where one discovery's answer comes from.
enum Answer {
    /// The index: seen already.
    Seen(Admission),
    /// The engine (the discovery went into the engine's batch).
    Engine,
}

impl<S: FrontierStore> FrontierStore for SeenFilter<S> {
    fn commit(&mut self, batch: &[Op]) -> Result<CommitReport> {
        if batch.iter().any(|op| matches!(op, Op::Remove(_))) {
            return self.commit_whole(batch);
        }
        // Checked here on the whole batch, so that an error names the operation's index in
        // `batch`, as the engine would.
        for (index, op) in batch.iter().enumerate() {
            validate(index, op)?;
        }
        let mut answers = Vec::new();
        let mut forwarded = Vec::with_capacity(batch.len());
        // For each forwarded operation, its index in `batch`.
        let mut origins = Vec::with_capacity(batch.len());
        for (index, op) in batch.iter().enumerate() {
            if let Op::Discover(discovery) = op {
                if let Some((page, host)) = self.index.get(url_fingerprint(&discovery.url)) {
                    answers.push(Answer::Seen(Admission { page, host, is_new: false }));
                    continue;
                }
                answers.push(Answer::Engine);
            }
            forwarded.push(op.clone());
            origins.push(index);
        }
        let report = if forwarded.is_empty() {
            CommitReport::default()
        } else {
            self.store.commit(&forwarded).map_err(|error| renumber(error, &origins))?
        };
        let mut from_engine = report.admissions.into_iter();
        let mut admissions = Vec::with_capacity(answers.len());
        for op in &forwarded {
            if let Op::Discover(discovery) = op
                && let Some(admission) = from_engine.next()
            {
                self.index.insert(url_fingerprint(&discovery.url), admission.page, admission.host);
                admissions.push(admission);
            }
        }
        let mut from_engine = admissions.into_iter();
        let mut merged = Vec::with_capacity(answers.len());
        for answer in answers {
            match answer {
                Answer::Seen(admission) => merged.push(admission),
                Answer::Engine => {
                    let admission = from_engine.next().ok_or_else(|| StoreError::Corrupt {
                        table: "commit report",
                        key: "admissions".to_owned(),
                        reason: "the engine answered fewer discoveries than it was given".to_owned(),
                    })?;
                    merged.push(admission);
                }
            }
        }
        Ok(CommitReport { admissions: merged, new_hosts: report.new_hosts })
    }

    fn recover(&mut self) -> Result<u64> {
        self.store.recover()
    }

    fn page(&self, page: PageId) -> Result<Option<StoredPage>> {
        self.store.page(page)
    }

    fn page_batch(&self, pages: &[PageId]) -> Result<Vec<Option<StoredPage>>> {
        self.store.page_batch(pages)
    }

    fn lookup(&self, url: &str) -> Result<Option<PageId>> {
        self.store.lookup(url)
    }

    fn pages(&self, after: Option<PageId>, limit: usize) -> Result<Vec<StoredPage>> {
        self.store.pages(after, limit)
    }

    fn host(&self, host: HostId) -> Result<Option<HostRecord>> {
        self.store.host(host)
    }

    fn host_by_key(&self, key: &str) -> Result<Option<HostId>> {
        self.store.host_by_key(key)
    }

    fn hosts(&self, after: Option<HostId>, limit: usize) -> Result<Vec<HostRecord>> {
        self.store.hosts(after, limit)
    }

    fn counts(&self) -> Result<Counts> {
        self.store.counts()
    }
}

/// An engine error about operation `op` of the forwarded batch, renamed to name its index in
/// the caller's batch.
fn renumber(error: StoreError, origins: &[usize]) -> StoreError {
    let original = |op: usize| origins.get(op).copied().unwrap_or(op);
    match error {
        StoreError::Empty { op, field } => StoreError::Empty { op: original(op), field },
        StoreError::TooLong { op, field, len, max } => {
            StoreError::TooLong { op: original(op), field, len, max }
        }
        StoreError::BadCharacter { op, field, character, at } => {
            StoreError::BadCharacter { op: original(op), field, character, at }
        }
        StoreError::InvalidNumber { op, field, value, expected } => {
            StoreError::InvalidNumber { op: original(op), field, value, expected }
        }
        StoreError::UnknownPage { op, page } => StoreError::UnknownPage { op: original(op), page },
        StoreError::UnknownHost { op, host } => StoreError::UnknownHost { op: original(op), host },
        StoreError::AlreadyInFlight { op, page } => StoreError::AlreadyInFlight { op: original(op), page },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::MemoryStore;

    fn discover(url: &str) -> Op {
        Op::Discover(crate::conformance::discovery(url, "https://h.test"))
    }

    #[test]
    fn a_seen_url_is_answered_by_the_index_and_a_new_one_by_the_engine() {
        let mut filter = SeenFilter::new(MemoryStore::new());
        let first = filter.commit(&[discover("https://h.test/a")]).unwrap();
        assert!(first.admissions[0].is_new);
        assert_eq!(filter.index().len(), 1);
        let next = filter.commit(&[discover("https://h.test/b"), discover("https://h.test/a")]).unwrap();
        assert!(next.admissions[0].is_new);
        assert_eq!(next.admissions[1], Admission { is_new: false, ..first.admissions[0] });
        assert_eq!(filter.counts().unwrap().discovered, 2);
    }

    #[test]
    fn an_engine_error_names_the_operation_of_the_callers_batch() {
        let mut filter = SeenFilter::new(MemoryStore::new());
        filter.commit(&[discover("https://h.test/a")]).unwrap();
        // Operation 0 is answered by the index, so the engine sees the Start as its operation 0.
        let error = filter.commit(&[discover("https://h.test/a"), Op::Start(PageId(7))]).unwrap_err();
        assert!(matches!(error, StoreError::UnknownPage { op: 1, page: PageId(7) }), "{error:?}");
    }

    #[test]
    fn a_removed_url_is_new_again() {
        let mut filter = SeenFilter::new(MemoryStore::new());
        let first = filter.commit(&[discover("https://h.test/a")]).unwrap().admissions[0];
        let report = filter.commit(&[Op::Remove(first.page), discover("https://h.test/a")]).unwrap();
        assert!(report.admissions[0].is_new);
        assert_ne!(report.admissions[0].page, first.page);
        let again = filter.commit(&[discover("https://h.test/a")]).unwrap().admissions[0];
        assert_eq!(again, Admission { is_new: false, ..report.admissions[0] });
        // A page created and removed in one batch leaves nothing behind.
        let report = filter.commit(&[discover("https://h.test/c"), Op::Remove(PageId(2))]).unwrap();
        assert_eq!(report.admissions[0].page, PageId(2));
        assert_eq!(filter.index().get(url_fingerprint("https://h.test/c")), None);
    }

    #[test]
    fn open_rebuilds_the_index_from_the_engine() {
        let mut store = MemoryStore::new();
        store.commit(&[discover("https://h.test/a"), discover("https://h.test/b")]).unwrap();
        let filter = SeenFilter::open(store).unwrap();
        assert_eq!(filter.index().len(), 2);
        assert_eq!(
            filter.index().get(url_fingerprint("https://h.test/b")).map(|(page, _)| page),
            Some(PageId(1))
        );
    }

    /// One operation of a generated batch: a discovery from a small pool of URLs (so that
    /// repeats, in and across batches, are common), a removal or a start of a small id.
    fn op_strategy() -> impl proptest::strategy::Strategy<Value = Op> {
        use proptest::prelude::*;
        prop_oneof![
            6 => (0..12u32).prop_map(|n| discover(&format!("https://h.test/{n}"))),
            1 => (0..16u32).prop_map(|page| Op::Remove(PageId(page))),
            1 => (0..16u32).prop_map(|page| Op::Start(PageId(page))),
        ]
    }

    proptest::proptest! {
        /// The filter changes no answer: the same batches through `SeenFilter<MemoryStore>` and
        /// a bare `MemoryStore` give the same reports, the same errors (naming the same
        /// operation) and the same pages.
        #[test]
        fn the_filter_answers_as_the_engine_does(
            batches in proptest::collection::vec(proptest::collection::vec(op_strategy(), 0..8), 0..12),
        ) {
            let (mut bare, mut filter) = (MemoryStore::new(), SeenFilter::new(MemoryStore::new()));
            for batch in &batches {
                let expected = bare.commit(batch).map_err(|error| error.to_string());
                let got = filter.commit(batch).map_err(|error| error.to_string());
                proptest::prop_assert_eq!(got, expected);
            }
            proptest::prop_assert_eq!(filter.pages(None, 100).unwrap(), bare.pages(None, 100).unwrap());
            proptest::prop_assert!(filter.index().len() as u64 <= bare.counts().unwrap().pages());
        }
    }

    #[test]
    fn heap_bytes_follows_the_capacity() {
        let mut index = SeenIndex::with_capacity(1000);
        assert!(index.heap_bytes() >= 1000 * 17);
        for i in 0..1000u32 {
            index.insert(u64::from(i).wrapping_mul(0x9e37_79b9_7f4a_7c15), PageId(i), HostId(0));
        }
        assert_eq!(index.len(), 1000);
        assert!(index.heap_bytes() < 1000 * 40);
    }
}
