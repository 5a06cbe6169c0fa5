//! [`RedbStore`]: the default persistent engine, one `redb` file (a copy-on-write B-tree with
//! ACID transactions; a commit is durable when it returns, and a file cut by `kill -9` or a
//! power loss reopens at the last commit).
//!
//! Tables: `urls` (the seen set: (xxh3-64 fingerprint of the URL, page id) → host id, for each
//! of 16 fingerprint ranges the pages below its `merged_below` in `meta`; see below), `pages`
//! (page id → [`codec`](crate::codec) bytes: the URL and its record), `host_keys` (key → host
//! id), `hosts` (host id → record),
//! `in_flight` (page ids in flight, so [`recover`](FrontierStore::recover) costs what is in
//! flight, not the whole store), `meta` (format, id counters, per-state counts, each range's
//! `merged_below`, the range merged next).
//!
//! # Why the seen set is keyed by fingerprint
//! Format 1 keyed `urls` by the URL itself, so every URL was stored twice (there and in its page
//! record: ~65 bytes plus B-tree overhead, of 561 live bytes a URL in BENCHMARKS.md). Now a
//! URL is stored once, in `pages`; `urls` holds 16 fixed bytes an entry, and the check stays
//! exact: every entry under the URL's fingerprint (one, but for a collision) is confirmed by
//! comparing the URL in its page record, so two URLs with one fingerprint are two pages. The
//! extra page read is paid only when the fingerprint is found, and before the engine, the
//! crawler's [`SeenFilter`](crate::SeenFilter) already answers the URLs seen before.
//!
//! # Why new URLs reach `urls` late, many at a time (format 3)
//! Fingerprints are random, so every new URL inserted into `urls` lands in another B-tree leaf:
//! a commit of 1,000 new URLs rewrote ~1,000 leaves of 4 KiB (copy-on-write), ~3.4 KB written
//! per new URL, which held the engine to 13,000–27,000 new URLs/s (BENCHMARKS.md, "Frontier
//! store"). A new URL's page record, keyed by its sequential id, is an append instead. So a
//! commit writes only the page record, and the seen-set entries not yet in `urls` are kept in
//! memory (a [`BTreeMap`]: ~30 bytes an entry, estimated from its node layout, not measured).
//! The fingerprints are cut into [`MERGE_RANGES`] ranges (their top 4 bits), each with its
//! `merged_below` in `meta`: the entries of the pages below it are in `urls`, the others in
//! memory. When a commit finds at least [`RedbOptions::merge_at_least`] entries held, and at
//! least `1/`[`RedbOptions::merge_divisor`] of the pages, it merges one range's entries into
//! `urls` in key order, the range merged longest ago (round robin), and moves that range's
//! `merged_below` to the next page id. One merge thus rewrites about 1/16 of `urls` (each leaf
//! once) for ~1/8 of the entries held, so that the bytes written per URL do not grow with the
//! store (~20 bytes a URL in `urls` × the divisor / 2: ~160 bytes at the default 16), and no
//! commit waits for more than 1/16 of the table. Nothing is lost by a crash: page records are
//! durable with their commit, and [`RedbStore::open`] rebuilds the entries held from the pages
//! at and above the lowest `merged_below` (about twice the entries held).
//! A format-2 store (every page in `urls`) is upgraded on open by setting every range's
//! `merged_below` to its next page id.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use freshet_schedule::online::{HostId, PageId};
use redb::{Database, ReadableDatabase, ReadableTable, ReadableTableMetadata, Table, TableDefinition};

use crate::apply::{Meta, PageRow, Tables, apply_batch, recover_in_flight};
use crate::batch::{CommitReport, Op};
use crate::codec::{
    FORMAT, FORMAT_WITHOUT_METADATA, decode_host, decode_page, encode_host, encode_page, page_url,
};
use crate::error::{Result, StoreError};
use crate::record::{Counts, HostRecord, StoredPage};
use crate::seen::url_fingerprint;
use crate::store::FrontierStore;

const URLS: TableDefinition<'_, (u64, u32), u32> = TableDefinition::new("urls");
const PAGES: TableDefinition<'_, u32, &[u8]> = TableDefinition::new("pages");
const HOST_KEYS: TableDefinition<'_, &str, u32> = TableDefinition::new("host_keys");
const HOSTS: TableDefinition<'_, u32, &[u8]> = TableDefinition::new("hosts");
const IN_FLIGHT: TableDefinition<'_, u32, ()> = TableDefinition::new("in_flight");
const META: TableDefinition<'_, &str, u64> = TableDefinition::new("meta");
/// How many fingerprint ranges are merged into `urls` one at a time (see the module docs).
pub const MERGE_RANGES: usize = 16;
/// Each range's `meta` key: the pages below it have their entry in `urls`.
const MERGED_BELOW: [&str; MERGE_RANGES] = [
    "merged_below_0",
    "merged_below_1",
    "merged_below_2",
    "merged_below_3",
    "merged_below_4",
    "merged_below_5",
    "merged_below_6",
    "merged_below_7",
    "merged_below_8",
    "merged_below_9",
    "merged_below_10",
    "merged_below_11",
    "merged_below_12",
    "merged_below_13",
    "merged_below_14",
    "merged_below_15",
];
/// The `meta` key of the range the next merge takes.
const NEXT_MERGE: &str = "next_merge_range";

/// The range of a fingerprint: its top 4 bits.
fn merge_range(fingerprint: u64) -> usize {
    (fingerprint >> 60) as usize
}

/// The fingerprints of range `range`, as `urls` keys.
fn range_keys(range: usize) -> std::ops::RangeInclusive<(u64, u32)> {
    let first = (range as u64) << 60;
    (first, 0)..=(first | (u64::MAX >> 4), u32::MAX)
}

/// The last format whose `urls` held every page: upgraded on open (see the module docs).
const FORMAT_ALL_IN_URLS: u64 = 2;

/// redb's own default for its cache of the file's pages: 1 GiB, a ceiling reached only as a
/// store that large is read or written (BENCHMARKS.md: 24 MiB of a 100,000-page crawl's peak).
pub const DEFAULT_CACHE_BYTES: usize = 1 << 30;

/// How the redb engine is run: when the seen-set entries of new URLs, held in memory, are
/// merged into the `urls` table (see the module docs), and how much memory redb may keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RedbOptions {
    /// The fewest entries held before a merge (0: every commit that holds any merges one
    /// range).
    pub merge_at_least: u64,
    /// A merge also waits for `pages / merge_divisor` entries held, so that its cost per URL
    /// (rewriting 1/16 of `urls`) does not grow with the store; the memory held is about that
    /// many entries. At least 1.
    pub merge_divisor: u64,
    /// The most memory redb keeps of the file's pages, in bytes (`redb::Builder::set_cache_size`).
    /// What a store holds does not depend on it, only how often a page is read from the file
    /// again: with 0 every read goes to the file (the conformance suite runs so too).
    pub cache_bytes: usize,
}

impl Default for RedbOptions {
    /// 131,072 entries (~4 MB of memory, estimated) at least, and 1/16 of the store: at 10^8 URLs,
    /// ~6·10^6 entries held (~190 MB, estimated), each merge rewriting 1/16 of the ~2 GB of
    /// `urls` (not measured at that size; BENCHMARKS.md has the sizes measured); redb's own cache
    /// ceiling, [`DEFAULT_CACHE_BYTES`].
    fn default() -> Self {
        Self { merge_at_least: 1 << 17, merge_divisor: 16, cache_bytes: DEFAULT_CACHE_BYTES }
    }
}

/// The seen-set entries not yet in `urls`: (fingerprint, page id) → host id, as in `urls`.
type Unmerged = BTreeMap<(u64, u32), u32>;

/// The persistent engine: a redb database file.
#[derive(Debug)]
pub struct RedbStore {
    db: Database,
    path: PathBuf,
    options: RedbOptions,
    /// The seen-set entries of the pages at and above their range's `merged_below`.
    unmerged: Unmerged,
}

/// A change to [`Unmerged`] by a transaction, undone if it does not commit.
enum Undo {
    Inserted { key: (u64, u32), previous: Option<u32> },
    Removed { key: (u64, u32), host: u32 },
}

fn undo_all(unmerged: &mut Unmerged, undo: Vec<Undo>) {
    for change in undo.into_iter().rev() {
        match change {
            Undo::Inserted { key, previous: Some(host) } | Undo::Removed { key, host } => {
                unmerged.insert(key, host);
            }
            Undo::Inserted { key, previous: None } => {
                unmerged.remove(&key);
            }
        }
    }
}

/// Wraps a redb error as [`StoreError::Engine`], naming what was being done.
fn engine<E: std::error::Error + Send + Sync + 'static>(
    action: &'static str,
) -> impl FnOnce(E) -> StoreError {
    move |error| StoreError::Engine { engine: "redb", action, source: Box::new(error) }
}

impl RedbStore {
    /// Opens the store at `path`, creating it if it does not exist. After a crash, redb
    /// repairs the file to its last commit first; then call [`recover`](FrontierStore::recover).
    ///
    /// # Errors
    /// [`StoreError::Engine`] (I/O; the file is held by another process),
    /// [`StoreError::FormatMismatch`] (written by another layout),
    /// [`StoreError::Corrupt`] (an undecodable page among those not merged into `urls`).
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        Self::open_with(path, RedbOptions::default())
    }

    /// [`open`](Self::open) with other [`RedbOptions`] (tests make every commit merge).
    ///
    /// # Errors
    /// As [`open`](Self::open).
    pub fn open_with(path: impl AsRef<Path>, options: RedbOptions) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let db =
            Database::builder().set_cache_size(options.cache_bytes).create(&path).map_err(engine("open"))?;
        let transaction = db.begin_write().map_err(engine("begin write"))?;
        {
            // The format is read from `meta` alone, before any other table is opened: a table
            // whose key or value types changed between formats (format 1's `urls` was keyed by
            // the URL) fails to open with redb's type error, which would hide the real reason.
            let mut meta = transaction.open_table(META).map_err(engine("open table meta"))?;
            let found = meta.get("format").map_err(engine("read format"))?.map(|value| value.value());
            match found {
                Some(FORMAT_ALL_IN_URLS) => {
                    // Every page is in `urls`: the same tables, with nothing left to merge.
                    let next_page =
                        meta.get("next_page").map_err(engine("read meta"))?.map(|value| value.value());
                    for key in MERGED_BELOW {
                        meta.insert(key, next_page.unwrap_or(0)).map_err(engine("write meta"))?;
                    }
                    meta.insert("format", FORMAT).map_err(engine("write format"))?;
                }
                Some(FORMAT_WITHOUT_METADATA) => {
                    // Its page records read as records without metadata.
                    meta.insert("format", FORMAT).map_err(engine("write format"))?;
                }
                Some(found) if found != FORMAT => {
                    return Err(StoreError::FormatMismatch { found, expected: FORMAT });
                }
                Some(_) => {}
                None => {
                    meta.insert("format", FORMAT).map_err(engine("write format"))?;
                }
            }
        }
        let mut unmerged = Unmerged::new();
        {
            // Creates the other tables of a new store.
            let tables = RedbTables::open(&transaction, &mut unmerged)?;
            let mut merged_below = [0; MERGE_RANGES];
            for (range, below) in merged_below.iter_mut().enumerate() {
                *below = tables.merged_below(range)?;
            }
            // The pages at and above their range's `merged_below` have their seen-set entries
            // in memory only.
            let lowest = merged_below.iter().copied().min().unwrap_or(0);
            if let Ok(first) = u32::try_from(lowest) {
                for entry in tables.pages.range(first..).map_err(engine("read pages"))? {
                    let (id, bytes) = entry.map_err(engine("read pages"))?;
                    let page = id.value();
                    let row = decode_page(page, bytes.value())?;
                    let fingerprint = url_fingerprint(&row.url);
                    if u64::from(page) >= merged_below[merge_range(fingerprint)] {
                        tables.unmerged.insert((fingerprint, page), row.record.host.0);
                    }
                }
            }
        }
        transaction.commit().map_err(engine("commit"))?;
        Ok(Self {
            db,
            path,
            options: RedbOptions { merge_divisor: options.merge_divisor.max(1), ..options },
            unmerged,
        })
    }

    /// The database file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Rewrites the file without its free pages (redb's `compact`); returns whether it did.
    ///
    /// # Errors
    /// [`StoreError::Engine`].
    pub fn compact(&mut self) -> Result<bool> {
        self.db.compact().map_err(engine("compact"))
    }

    /// Each table's bytes in the file (redb's stored, metadata and fragmented bytes of its
    /// B-tree), for sizing: what a URL costs in each table.
    ///
    /// # Errors
    /// [`StoreError::Engine`].
    pub fn table_bytes(&self) -> Result<Vec<(&'static str, u64)>> {
        fn bytes(stats: redb::TableStats) -> u64 {
            stats.stored_bytes() + stats.metadata_bytes() + stats.fragmented_bytes()
        }
        let transaction = self.read()?;
        let urls = transaction.open_table(URLS).map_err(engine("open table urls"))?;
        let pages = transaction.open_table(PAGES).map_err(engine("open table pages"))?;
        let host_keys = transaction.open_table(HOST_KEYS).map_err(engine("open table host_keys"))?;
        let hosts = transaction.open_table(HOSTS).map_err(engine("open table hosts"))?;
        Ok(vec![
            ("urls", bytes(urls.stats().map_err(engine("table stats"))?)),
            ("pages", bytes(pages.stats().map_err(engine("table stats"))?)),
            ("host_keys", bytes(host_keys.stats().map_err(engine("table stats"))?)),
            ("hosts", bytes(hosts.stats().map_err(engine("table stats"))?)),
        ])
    }

    /// The seen-set entries held in memory, not yet merged into `urls` (see the module docs).
    #[must_use]
    pub fn unmerged_urls(&self) -> usize {
        self.unmerged.len()
    }

    /// Merges every entry held into `urls` in one commit (every range), so that the next
    /// [`open`](Self::open) rebuilds none: e.g. before a planned stop.
    ///
    /// # Errors
    /// [`StoreError::Engine`].
    pub fn merge_all(&mut self) -> Result<()> {
        let transaction = self.db.begin_write().map_err(engine("begin write"))?;
        {
            let mut tables = RedbTables::open(&transaction, &mut self.unmerged)?;
            for range in 0..MERGE_RANGES {
                tables.merge(range)?;
            }
        }
        transaction.commit().map_err(engine("commit"))?;
        self.unmerged.clear();
        Ok(())
    }

    /// Runs `work` in one write transaction, merges the in-memory seen-set entries into `urls`
    /// if they are due, and commits; on any error, the transaction is dropped (aborted) and
    /// the in-memory entries are put back as they were.
    fn write<T>(&mut self, work: impl FnOnce(&mut RedbTables<'_>) -> Result<T>) -> Result<T> {
        let transaction = self.db.begin_write().map_err(engine("begin write"))?;
        let mut tables = RedbTables::open(&transaction, &mut self.unmerged)?;
        let done = work(&mut tables).and_then(|value| Ok((value, tables.merge_if_due(self.options)?)));
        let undo = std::mem::take(&mut tables.undo);
        drop(tables);
        let done = done.and_then(|done| {
            transaction.commit().map_err(engine("commit"))?;
            Ok(done)
        });
        match done {
            Ok((value, merged)) => {
                if let Some(range) = merged {
                    // What the commit put into `urls`: the range's keys, cut out of the map.
                    let keys = range_keys(range);
                    let mut taken = self.unmerged.split_off(keys.start());
                    let mut above = taken.split_off(keys.end());
                    above.remove(keys.end());
                    self.unmerged.append(&mut above);
                }
                Ok(value)
            }
            Err(error) => {
                undo_all(&mut self.unmerged, undo);
                Err(error)
            }
        }
    }

    fn read(&self) -> Result<redb::ReadTransaction> {
        self.db.begin_read().map_err(engine("begin read"))
    }
}

/// The tables of one write transaction, and the in-memory seen-set entries with the changes
/// this transaction made to them.
struct RedbTables<'t> {
    urls: Table<'t, (u64, u32), u32>,
    pages: Table<'t, u32, &'static [u8]>,
    host_keys: Table<'t, &'static str, u32>,
    hosts: Table<'t, u32, &'static [u8]>,
    in_flight: Table<'t, u32, ()>,
    meta: Table<'t, &'static str, u64>,
    unmerged: &'t mut Unmerged,
    undo: Vec<Undo>,
}

impl<'t> RedbTables<'t> {
    fn open(transaction: &'t redb::WriteTransaction, unmerged: &'t mut Unmerged) -> Result<Self> {
        Ok(Self {
            unmerged,
            undo: Vec::new(),
            urls: transaction.open_table(URLS).map_err(engine("open table urls"))?,
            pages: transaction.open_table(PAGES).map_err(engine("open table pages"))?,
            host_keys: transaction.open_table(HOST_KEYS).map_err(engine("open table host_keys"))?,
            hosts: transaction.open_table(HOSTS).map_err(engine("open table hosts"))?,
            in_flight: transaction.open_table(IN_FLIGHT).map_err(engine("open table in_flight"))?,
            meta: transaction.open_table(META).map_err(engine("open table meta"))?,
        })
    }

    fn merged_below(&self, range: usize) -> Result<u64> {
        self.meta_value(MERGED_BELOW[range])
    }

    fn meta_value(&self, key: &str) -> Result<u64> {
        Ok(self.meta.get(key).map_err(engine("read meta"))?.map_or(0, |value| value.value()))
    }

    /// If enough entries are held (see [`RedbOptions`]), merges the next range's into `urls`
    /// and returns it (the caller drops its entries from the map once the transaction has
    /// committed).
    fn merge_if_due(&mut self, options: RedbOptions) -> Result<Option<usize>> {
        let pages = self.meta_value("next_page")?;
        let due = options.merge_at_least.max(pages / options.merge_divisor).max(1);
        if (self.unmerged.len() as u64) < due {
            return Ok(None);
        }
        let range = usize::try_from(self.meta_value(NEXT_MERGE)?).unwrap_or(0) % MERGE_RANGES;
        self.merge(range)?;
        let next = ((range + 1) % MERGE_RANGES) as u64;
        self.meta.insert(NEXT_MERGE, next).map_err(engine("write meta"))?;
        Ok(Some(range))
    }

    /// Inserts the entries of `range` held in memory into `urls`, in key order, and moves the
    /// range's `merged_below` to the next page id (the map is left as it is).
    fn merge(&mut self, range: usize) -> Result<()> {
        for (&key, &host) in self.unmerged.range(range_keys(range)) {
            self.urls.insert(key, host).map_err(engine("write urls"))?;
        }
        let next_page = self.meta_value("next_page")?;
        self.meta.insert(MERGED_BELOW[range], next_page).map_err(engine("write meta"))?;
        Ok(())
    }
}

const META_KEYS: [&str; 5] = ["next_page", "next_host", "discovered", "in_flight", "fetched"];

fn meta_from(mut get: impl FnMut(&str) -> Result<Option<u64>>) -> Result<Meta> {
    let mut values = [0; 5];
    for (value, key) in values.iter_mut().zip(META_KEYS) {
        *value = get(key)?.unwrap_or(0);
    }
    let [next_page, next_host, discovered, in_flight, fetched] = values;
    Ok(Meta { next_page, next_host, discovered, in_flight, fetched })
}

/// The page and host ids of `url`: the entries under its fingerprint, in memory and in `urls`,
/// each confirmed by the URL in its page record (see the module docs).
fn find_url(
    unmerged: &Unmerged,
    urls: &impl ReadableTable<(u64, u32), u32>,
    pages: &impl ReadableTable<u32, &'static [u8]>,
    url: &str,
) -> Result<Option<(u32, u32)>> {
    let fingerprint = url_fingerprint(url);
    let confirms = |page: u32| -> Result<bool> {
        let Some(bytes) = pages.get(page).map_err(engine("read pages"))? else {
            return Err(StoreError::Corrupt {
                table: "urls",
                key: format!("({fingerprint}, {page})"),
                reason: "names a page the pages table does not hold".to_owned(),
            });
        };
        Ok(page_url(page, bytes.value())? == url)
    };
    for (&(_, page), &host) in unmerged.range((fingerprint, 0)..=(fingerprint, u32::MAX)) {
        if confirms(page)? {
            return Ok(Some((page, host)));
        }
    }
    let range = urls.range((fingerprint, 0)..=(fingerprint, u32::MAX)).map_err(engine("read urls"))?;
    for entry in range {
        let (key, host) = entry.map_err(engine("read urls"))?;
        let (_, page) = key.value();
        if confirms(page)? {
            return Ok(Some((page, host.value())));
        }
    }
    Ok(None)
}

impl Tables for RedbTables<'_> {
    fn url_id(&mut self, url: &str) -> Result<Option<(u32, u32)>> {
        find_url(self.unmerged, &self.urls, &self.pages, url)
    }

    /// Into memory only: a new page's id is at or above every `merged_below` (ids only grow).
    fn put_url(&mut self, url: &str, page: u32, host: u32) -> Result<()> {
        let key = (url_fingerprint(url), page);
        let previous = self.unmerged.insert(key, host);
        self.undo.push(Undo::Inserted { key, previous });
        Ok(())
    }

    fn remove_url(&mut self, url: &str, page: u32) -> Result<()> {
        let key = (url_fingerprint(url), page);
        if let Some(host) = self.unmerged.remove(&key) {
            self.undo.push(Undo::Removed { key, host });
        } else {
            self.urls.remove(key).map_err(engine("remove from urls"))?;
        }
        Ok(())
    }

    fn page(&mut self, page: u32) -> Result<Option<PageRow>> {
        let value = self.pages.get(page).map_err(engine("read pages"))?;
        value.map(|bytes| decode_page(page, bytes.value())).transpose()
    }

    fn put_page(&mut self, page: u32, row: PageRow) -> Result<()> {
        let bytes = encode_page(page, &row)?;
        self.pages.insert(page, bytes.as_slice()).map_err(engine("write pages"))?;
        Ok(())
    }

    fn remove_page(&mut self, page: u32) -> Result<()> {
        self.pages.remove(page).map_err(engine("remove from pages"))?;
        Ok(())
    }

    fn host_id(&mut self, key: &str) -> Result<Option<u32>> {
        Ok(self.host_keys.get(key).map_err(engine("read host_keys"))?.map(|value| value.value()))
    }

    fn put_host(&mut self, host: &HostRecord) -> Result<()> {
        let bytes = encode_host(host)?;
        self.host_keys.insert(host.key.as_str(), host.id.0).map_err(engine("write host_keys"))?;
        self.hosts.insert(host.id.0, bytes.as_slice()).map_err(engine("write hosts"))?;
        Ok(())
    }

    fn host(&mut self, host: u32) -> Result<Option<HostRecord>> {
        let value = self.hosts.get(host).map_err(engine("read hosts"))?;
        value.map(|bytes| decode_host(host, bytes.value())).transpose()
    }

    fn set_in_flight(&mut self, page: u32, in_flight: bool) -> Result<()> {
        if in_flight {
            self.in_flight.insert(page, ()).map_err(engine("write in_flight"))?;
        } else {
            self.in_flight.remove(page).map_err(engine("remove from in_flight"))?;
        }
        Ok(())
    }

    fn in_flight_pages(&mut self) -> Result<Vec<u32>> {
        let range = self.in_flight.iter().map_err(engine("read in_flight"))?;
        range.map(|entry| entry.map(|(page, _)| page.value()).map_err(engine("read in_flight"))).collect()
    }

    fn meta(&mut self) -> Result<Meta> {
        let table = &self.meta;
        meta_from(|key| Ok(table.get(key).map_err(engine("read meta"))?.map(|value| value.value())))
    }

    fn put_meta(&mut self, meta: &Meta) -> Result<()> {
        let values = [meta.next_page, meta.next_host, meta.discovered, meta.in_flight, meta.fetched];
        for (key, value) in META_KEYS.into_iter().zip(values) {
            self.meta.insert(key, value).map_err(engine("write meta"))?;
        }
        Ok(())
    }
}

impl FrontierStore for RedbStore {
    fn commit(&mut self, batch: &[Op]) -> Result<CommitReport> {
        self.write(|tables| apply_batch(tables, batch))
    }

    fn recover(&mut self) -> Result<u64> {
        self.write(|tables| recover_in_flight(tables))
    }

    fn page(&self, page: PageId) -> Result<Option<StoredPage>> {
        let transaction = self.read()?;
        let pages = transaction.open_table(PAGES).map_err(engine("open table pages"))?;
        let Some(bytes) = pages.get(page.0).map_err(engine("read pages"))? else { return Ok(None) };
        let row = decode_page(page.0, bytes.value())?;
        Ok(Some(StoredPage { id: page, url: row.url, record: row.record }))
    }

    fn lookup(&self, url: &str) -> Result<Option<PageId>> {
        let transaction = self.read()?;
        let urls = transaction.open_table(URLS).map_err(engine("open table urls"))?;
        let pages = transaction.open_table(PAGES).map_err(engine("open table pages"))?;
        Ok(find_url(&self.unmerged, &urls, &pages, url)?.map(|(page, _)| PageId(page)))
    }

    fn pages(&self, after: Option<PageId>, limit: usize) -> Result<Vec<StoredPage>> {
        let Some(first) = after.map_or(Some(0), |page| page.0.checked_add(1)) else {
            return Ok(Vec::new());
        };
        let transaction = self.read()?;
        let pages = transaction.open_table(PAGES).map_err(engine("open table pages"))?;
        let range = pages.range(first..).map_err(engine("read pages"))?;
        let mut found = Vec::with_capacity(limit.min(4096));
        for entry in range.take(limit) {
            let (id, bytes) = entry.map_err(engine("read pages"))?;
            let row = decode_page(id.value(), bytes.value())?;
            found.push(StoredPage { id: PageId(id.value()), url: row.url, record: row.record });
        }
        Ok(found)
    }

    fn host(&self, host: HostId) -> Result<Option<HostRecord>> {
        let transaction = self.read()?;
        let hosts = transaction.open_table(HOSTS).map_err(engine("open table hosts"))?;
        let value = hosts.get(host.0).map_err(engine("read hosts"))?;
        value.map(|bytes| decode_host(host.0, bytes.value())).transpose()
    }

    fn host_by_key(&self, key: &str) -> Result<Option<HostId>> {
        let transaction = self.read()?;
        let host_keys = transaction.open_table(HOST_KEYS).map_err(engine("open table host_keys"))?;
        Ok(host_keys.get(key).map_err(engine("read host_keys"))?.map(|value| HostId(value.value())))
    }

    fn hosts(&self, after: Option<HostId>, limit: usize) -> Result<Vec<HostRecord>> {
        let Some(first) = after.map_or(Some(0), |host| host.0.checked_add(1)) else {
            return Ok(Vec::new());
        };
        let transaction = self.read()?;
        let hosts = transaction.open_table(HOSTS).map_err(engine("open table hosts"))?;
        let range = hosts.range(first..).map_err(engine("read hosts"))?;
        let mut found = Vec::new();
        for entry in range.take(limit) {
            let (id, bytes) = entry.map_err(engine("read hosts"))?;
            found.push(decode_host(id.value(), bytes.value())?);
        }
        Ok(found)
    }

    fn counts(&self) -> Result<Counts> {
        let transaction = self.read()?;
        let table = transaction.open_table(META).map_err(engine("open table meta"))?;
        let meta =
            meta_from(|key| Ok(table.get(key).map_err(engine("read meta"))?.map(|value| value.value())))?;
        let in_flight = transaction.open_table(IN_FLIGHT).map_err(engine("open table in_flight"))?;
        debug_assert_eq!(in_flight.len().ok(), Some(meta.in_flight));
        Ok(meta.counts())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::Admission;

    fn discover(url: &str) -> Op {
        Op::Discover(crate::conformance::discovery(url, "https://h.test"))
    }

    /// A store of format 1 (its `urls` table keyed by the URL itself) is refused with the
    /// format named, not with redb's error about the table's types, and is left as it was.
    #[test]
    fn a_store_of_format_1_is_refused_by_its_format() {
        const FORMAT_1_URLS: TableDefinition<'_, &str, (u32, u32)> = TableDefinition::new("urls");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("frontier.redb");
        {
            let db = Database::create(&path).unwrap();
            let transaction = db.begin_write().unwrap();
            transaction.open_table(FORMAT_1_URLS).unwrap().insert("https://h.test/", (0, 0)).unwrap();
            transaction.open_table(META).unwrap().insert("format", 1).unwrap();
            transaction.commit().unwrap();
        }
        let error = RedbStore::open(&path).unwrap_err();
        assert!(matches!(error, StoreError::FormatMismatch { found: 1, expected: FORMAT }), "{error}");
        let db = Database::create(&path).unwrap();
        let transaction = db.begin_read().unwrap();
        let urls = transaction.open_table(FORMAT_1_URLS).unwrap();
        assert_eq!(urls.get("https://h.test/").unwrap().map(|value| value.value()), Some((0, 0)));
    }

    fn merging_at(at_least: u64) -> RedbOptions {
        RedbOptions { merge_at_least: at_least, merge_divisor: 16, ..RedbOptions::default() }
    }

    /// A store of format 2 (every page's entry in `urls`) is upgraded on open: nothing left in
    /// memory, every URL found, and new ones admitted after the old ones.
    #[test]
    fn a_store_of_format_2_is_upgraded() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("frontier.redb");
        let urls = ["https://h.test/a", "https://h.test/b", "https://h.test/c"];
        {
            let mut store = RedbStore::open(&path).unwrap();
            store.commit(&urls.map(discover)).unwrap();
            store.merge_all().unwrap();
            assert_eq!(store.unmerged_urls(), 0);
            // What format 2 wrote: the same tables, no `merged_below` nor next range.
            let transaction = store.db.begin_write().unwrap();
            let mut meta = transaction.open_table(META).unwrap();
            meta.insert("format", 2).unwrap();
            for key in MERGED_BELOW {
                meta.remove(key).unwrap();
            }
            meta.remove(NEXT_MERGE).unwrap();
            drop(meta);
            transaction.commit().unwrap();
        }
        let mut store = RedbStore::open(&path).unwrap();
        assert_eq!(store.unmerged_urls(), 0, "a format-2 store has every page in urls");
        for (page, url) in urls.iter().enumerate() {
            assert_eq!(store.lookup(url).unwrap(), Some(PageId(page as u32)));
        }
        let report = store.commit(&[discover("https://h.test/d"), discover(urls[1])]).unwrap();
        assert_eq!(report.admissions[0].page, PageId(3));
        assert!(report.admissions[0].is_new && !report.admissions[1].is_new);
        drop(store);
        let store = RedbStore::open(&path).unwrap();
        let transaction = store.db.begin_read().unwrap();
        let meta = transaction.open_table(META).unwrap();
        assert_eq!(meta.get("format").unwrap().map(|value| value.value()), Some(FORMAT));
        for key in MERGED_BELOW {
            assert_eq!(meta.get(key).unwrap().map(|value| value.value()), Some(3), "{key}");
        }
        assert_eq!(store.unmerged_urls(), 1, "page 3 is rebuilt from its record");
    }

    /// A store of format 3 (pages without metadata) opens as it is: its records read as pages
    /// without metadata, its format becomes the current one, and metadata can then be set.
    #[test]
    fn a_store_of_format_3_is_read_as_pages_without_metadata() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("frontier.redb");
        {
            let mut store = RedbStore::open(&path).unwrap();
            store.commit(&[discover("https://h.test/a"), discover("https://h.test/b")]).unwrap();
            let transaction = store.db.begin_write().unwrap();
            transaction.open_table(META).unwrap().insert("format", FORMAT_WITHOUT_METADATA).unwrap();
            transaction.commit().unwrap();
        }
        let mut store = RedbStore::open(&path).unwrap();
        let page = store.page(PageId(1)).unwrap().unwrap();
        assert_eq!(page.url, "https://h.test/b");
        assert!(page.record.metadata.is_empty());
        store.commit(&[Op::SetMetadata { page: PageId(1), metadata: b"m".to_vec() }]).unwrap();
        drop(store);
        let store = RedbStore::open(&path).unwrap();
        assert_eq!(store.page(PageId(1)).unwrap().unwrap().record.metadata, b"m");
        assert!(store.page(PageId(0)).unwrap().unwrap().record.metadata.is_empty());
        let transaction = store.db.begin_read().unwrap();
        let meta = transaction.open_table(META).unwrap();
        assert_eq!(meta.get("format").unwrap().map(|value| value.value()), Some(FORMAT));
    }

    /// New URLs stay in memory until enough are held, then one fingerprint range at a time
    /// goes to `urls`; a reopen rebuilds exactly the ones not merged; `merge_all` takes all.
    #[test]
    fn new_urls_are_merged_one_range_at_a_time_when_enough_are_held() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("frontier.redb");
        let mut store = RedbStore::open_with(&path, merging_at(5)).unwrap();
        let urls: Vec<String> = (0..12).map(|i| format!("https://h.test/{i}")).collect();
        let in_range = |urls: &[String], range| {
            urls.iter().filter(|url| merge_range(url_fingerprint(url)) == range).count()
        };
        let urls_table_len = |store: &RedbStore| {
            let transaction = store.db.begin_read().unwrap();
            transaction.open_table(URLS).unwrap().len().unwrap()
        };
        store.commit(&urls[..4].iter().map(|url| discover(url)).collect::<Vec<_>>()).unwrap();
        assert_eq!((store.unmerged_urls(), urls_table_len(&store)), (4, 0));
        store.commit(&urls[4..6].iter().map(|url| discover(url)).collect::<Vec<_>>()).unwrap();
        // 6 held >= 5: range 0 merged, the others still held.
        let merged = in_range(&urls[..6], 0);
        assert_eq!(store.unmerged_urls(), 6 - merged);
        assert_eq!(urls_table_len(&store), merged as u64);
        drop(store);
        let mut store = RedbStore::open_with(&path, merging_at(5)).unwrap();
        assert_eq!(store.unmerged_urls(), 6 - merged, "the same entries rebuilt");
        for (page, url) in urls.iter().enumerate().take(6) {
            assert_eq!(store.lookup(url).unwrap(), Some(PageId(page as u32)), "{url}");
        }
        assert_eq!(store.lookup(&urls[6]).unwrap(), None);
        store.merge_all().unwrap();
        assert_eq!((store.unmerged_urls(), urls_table_len(&store)), (0, 6));
        drop(store);
        let store = RedbStore::open_with(&path, merging_at(5)).unwrap();
        assert_eq!(store.unmerged_urls(), 0);
        for (page, url) in urls.iter().enumerate().take(6) {
            assert_eq!(store.lookup(url).unwrap(), Some(PageId(page as u32)), "{url}");
        }
    }

    /// A batch that fails leaves the in-memory entries as they were: its new URL is not seen,
    /// and a removal it made is undone.
    #[test]
    fn a_failed_batch_leaves_the_unmerged_entries_as_they_were() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = RedbStore::open(dir.path().join("frontier.redb")).unwrap();
        store.commit(&[discover("https://h.test/a")]).unwrap();
        let failing = [discover("https://h.test/b"), Op::Remove(PageId(0)), Op::Start(PageId(99))];
        assert!(store.commit(&failing).is_err());
        assert_eq!(store.unmerged_urls(), 1);
        assert_eq!(store.lookup("https://h.test/a").unwrap(), Some(PageId(0)));
        assert_eq!(store.lookup("https://h.test/b").unwrap(), None);
    }

    /// One operation of a generated batch: a discovery from a small pool of URLs, a removal or
    /// a start of a small id, or a reopen of the store (as the first operation of a batch).
    fn op_strategy() -> impl proptest::strategy::Strategy<Value = Op> {
        use proptest::prelude::*;
        prop_oneof![
            6 => (0..16u32).prop_map(|n| discover(&format!("https://h.test/{n}"))),
            1 => (0..20u32).prop_map(|page| Op::Remove(PageId(page))),
            1 => (0..20u32).prop_map(|page| Op::Start(PageId(page))),
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(32))]
        /// When the seen-set entries reach `urls` changes no answer: the same batches (some
        /// failing), with reopens between them, through redb merging at every commit, every
        /// few URLs and never (at this size), give the reports, errors, pages and lookups of
        /// the memory engine.
        #[test]
        fn merging_changes_no_answer(
            batches in proptest::collection::vec(
                (proptest::collection::vec(op_strategy(), 0..8), proptest::bool::weighted(0.2)),
                0..14,
            ),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let options = [merging_at(0), merging_at(2), merging_at(5), RedbOptions::default()];
            let paths: Vec<PathBuf> =
                (0..options.len()).map(|i| dir.path().join(format!("{i}.redb"))).collect();
            let mut stores: Vec<RedbStore> = paths
                .iter()
                .zip(options)
                .map(|(path, options)| RedbStore::open_with(path, options).unwrap())
                .collect();
            let mut memory = crate::MemoryStore::new();
            for (batch, reopen) in &batches {
                if *reopen {
                    stores = stores
                        .into_iter()
                        .zip(options)
                        .map(|(store, options)| {
                            let path = store.path().to_path_buf();
                            drop(store);
                            RedbStore::open_with(path, options).unwrap()
                        })
                        .collect();
                }
                let expected = memory.commit(batch).map_err(|error| error.to_string());
                for store in &mut stores {
                    let got = store.commit(batch).map_err(|error| error.to_string());
                    proptest::prop_assert_eq!(&got, &expected);
                }
            }
            let pages = memory.pages(None, 100).unwrap();
            for store in &stores {
                proptest::prop_assert_eq!(store.pages(None, 100).unwrap(), pages.clone());
                proptest::prop_assert_eq!(store.counts().unwrap(), memory.counts().unwrap());
                for n in 0..16 {
                    let url = format!("https://h.test/{n}");
                    proptest::prop_assert_eq!(store.lookup(&url).unwrap(), memory.lookup(&url).unwrap());
                }
            }
        }
    }

    /// A fingerprint collision, made by hand (a real xxh3-64 pair is out of reach): the seen set
    /// gets an entry under `b`'s fingerprint naming `a`'s page. `b` must still be a page of its
    /// own, and both URLs must keep their ids, through a reopen.
    #[test]
    fn urls_sharing_a_fingerprint_stay_two_pages() {
        urls_sharing_a_fingerprint_stay_two_pages_with(RedbOptions::default());
        urls_sharing_a_fingerprint_stay_two_pages_with(merging_at(0));
    }

    fn urls_sharing_a_fingerprint_stay_two_pages_with(options: RedbOptions) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("frontier.redb");
        let (a, b) = ("https://h.test/a", "https://h.test/b");
        let mut store = RedbStore::open_with(&path, options).unwrap();
        let first = store.commit(&[discover(a)]).unwrap().admissions[0];
        let transaction = store.db.begin_write().unwrap();
        transaction
            .open_table(URLS)
            .unwrap()
            .insert((url_fingerprint(b), first.page.0), first.host.0)
            .unwrap();
        transaction.commit().unwrap();

        let report = store.commit(&[discover(b), discover(a)]).unwrap();
        assert!(report.admissions[0].is_new);
        assert_ne!(report.admissions[0].page, first.page);
        assert_eq!(report.admissions[1], Admission { is_new: false, ..first });
        drop(store);
        let store = RedbStore::open_with(&path, options).unwrap();
        assert_eq!(store.lookup(a).unwrap(), Some(first.page));
        assert_eq!(store.lookup(b).unwrap(), Some(report.admissions[0].page));
        assert_eq!(store.lookup("https://h.test/c").unwrap(), None);
    }
}
