//! [`RedbStore`]: the default persistent engine, one `redb` file (a copy-on-write B-tree with
//! ACID transactions; a commit is durable when it returns, and a file cut by `kill -9` or a
//! power loss reopens at the last commit).
//!
//! Tables: `urls` (the seen set: (xxh3-64 fingerprint of the URL, page id) → host id),
//! `pages` (page id → [`codec`](crate::codec) bytes: the URL and its record), `host_keys` (key → host id), `hosts` (host id → record),
//! `in_flight` (page ids in flight, so [`recover`](FrontierStore::recover) costs what is in
//! flight, not the whole store), `meta` (format, id counters, per-state counts).
//!
//! # Why the seen set is keyed by fingerprint
//! Format 1 keyed `urls` by the URL itself, so every URL was stored twice (there and in its page
//! record: ~65 bytes plus B-tree overhead, of 561 live bytes a URL in BENCHMARKS.md). Now a
//! URL is stored once, in `pages`; `urls` holds 16 fixed bytes an entry, and the check stays
//! exact: every entry under the URL's fingerprint (one, but for a collision) is confirmed by
//! comparing the URL in its page record, so two URLs with one fingerprint are two pages. The
//! extra page read is paid only when the fingerprint is found, and before the engine, the
//! crawler's [`SeenFilter`](crate::SeenFilter) already answers the URLs seen before.

use std::path::{Path, PathBuf};

use freshet_schedule::online::{HostId, PageId};
use redb::{Database, ReadableDatabase, ReadableTable, ReadableTableMetadata, Table, TableDefinition};

use crate::apply::{Meta, PageRow, Tables, apply_batch, recover_in_flight};
use crate::batch::{CommitReport, Op};
use crate::codec::{FORMAT, decode_host, decode_page, encode_host, encode_page, page_url};
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

/// The persistent engine: a redb database file.
#[derive(Debug)]
pub struct RedbStore {
    db: Database,
    path: PathBuf,
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
    /// [`StoreError::FormatMismatch`] (written by another layout).
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let db = Database::create(&path).map_err(engine("open"))?;
        let transaction = db.begin_write().map_err(engine("begin write"))?;
        {
            // The format is read from `meta` alone, before any other table is opened: a table
            // whose key or value types changed between formats (format 1's `urls` was keyed by
            // the URL) fails to open with redb's type error, which would hide the real reason.
            let mut meta = transaction.open_table(META).map_err(engine("open table meta"))?;
            let found = meta.get("format").map_err(engine("read format"))?.map(|value| value.value());
            match found {
                Some(found) if found != FORMAT => {
                    return Err(StoreError::FormatMismatch { found, expected: FORMAT });
                }
                Some(_) => {}
                None => {
                    meta.insert("format", FORMAT).map_err(engine("write format"))?;
                }
            }
        }
        // Creates the other tables of a new store.
        RedbTables::open(&transaction)?;
        transaction.commit().map_err(engine("commit"))?;
        Ok(Self { db, path })
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

    fn write<T>(&mut self, work: impl FnOnce(&mut RedbTables<'_>) -> Result<T>) -> Result<T> {
        let transaction = self.db.begin_write().map_err(engine("begin write"))?;
        let value = {
            let mut tables = RedbTables::open(&transaction)?;
            work(&mut tables)?
        };
        // Dropping an uncommitted transaction (the `?` above) aborts it.
        transaction.commit().map_err(engine("commit"))?;
        Ok(value)
    }

    fn read(&self) -> Result<redb::ReadTransaction> {
        self.db.begin_read().map_err(engine("begin read"))
    }
}

/// The tables of one write transaction.
struct RedbTables<'t> {
    urls: Table<'t, (u64, u32), u32>,
    pages: Table<'t, u32, &'static [u8]>,
    host_keys: Table<'t, &'static str, u32>,
    hosts: Table<'t, u32, &'static [u8]>,
    in_flight: Table<'t, u32, ()>,
    meta: Table<'t, &'static str, u64>,
}

impl<'t> RedbTables<'t> {
    fn open(transaction: &'t redb::WriteTransaction) -> Result<Self> {
        Ok(Self {
            urls: transaction.open_table(URLS).map_err(engine("open table urls"))?,
            pages: transaction.open_table(PAGES).map_err(engine("open table pages"))?,
            host_keys: transaction.open_table(HOST_KEYS).map_err(engine("open table host_keys"))?,
            hosts: transaction.open_table(HOSTS).map_err(engine("open table hosts"))?,
            in_flight: transaction.open_table(IN_FLIGHT).map_err(engine("open table in_flight"))?,
            meta: transaction.open_table(META).map_err(engine("open table meta"))?,
        })
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

/// The page and host ids of `url`: the entries under its fingerprint, each confirmed by the URL
/// in its page record (see the module docs).
fn find_url(
    urls: &impl ReadableTable<(u64, u32), u32>,
    pages: &impl ReadableTable<u32, &'static [u8]>,
    url: &str,
) -> Result<Option<(u32, u32)>> {
    let fingerprint = url_fingerprint(url);
    let range = urls.range((fingerprint, 0)..=(fingerprint, u32::MAX)).map_err(engine("read urls"))?;
    for entry in range {
        let (key, host) = entry.map_err(engine("read urls"))?;
        let (_, page) = key.value();
        let Some(bytes) = pages.get(page).map_err(engine("read pages"))? else {
            return Err(StoreError::Corrupt {
                table: "urls",
                key: format!("({fingerprint}, {page})"),
                reason: "names a page the pages table does not hold".to_owned(),
            });
        };
        if page_url(page, bytes.value())? == url {
            return Ok(Some((page, host.value())));
        }
    }
    Ok(None)
}

impl Tables for RedbTables<'_> {
    fn url_id(&mut self, url: &str) -> Result<Option<(u32, u32)>> {
        find_url(&self.urls, &self.pages, url)
    }

    fn put_url(&mut self, url: &str, page: u32, host: u32) -> Result<()> {
        self.urls.insert((url_fingerprint(url), page), host).map_err(engine("write urls"))?;
        Ok(())
    }

    fn remove_url(&mut self, url: &str, page: u32) -> Result<()> {
        self.urls.remove((url_fingerprint(url), page)).map_err(engine("remove from urls"))?;
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
        Ok(find_url(&urls, &pages, url)?.map(|(page, _)| PageId(page)))
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

    /// A fingerprint collision, made by hand (a real xxh3-64 pair is out of reach): the seen set
    /// gets an entry under `b`'s fingerprint naming `a`'s page. `b` must still be a page of its
    /// own, and both URLs must keep their ids, through a reopen.
    #[test]
    fn urls_sharing_a_fingerprint_stay_two_pages() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("frontier.redb");
        let (a, b) = ("https://h.test/a", "https://h.test/b");
        let mut store = RedbStore::open(&path).unwrap();
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
        let store = RedbStore::open(&path).unwrap();
        assert_eq!(store.lookup(a).unwrap(), Some(first.page));
        assert_eq!(store.lookup(b).unwrap(), Some(report.admissions[0].page));
        assert_eq!(store.lookup("https://h.test/c").unwrap(), None);
    }
}
