//! [`MemoryStore`]: the whole frontier in process memory. For tests, the simulator and short
//! crawls that need not survive the process; it keeps the trait's atomicity (a failed batch is
//! rolled back from an undo log) but not its durability.

use std::collections::{BTreeSet, HashMap};

use freshet_schedule::online::{HostId, PageId};

use crate::apply::{Meta, PageRow, Tables, apply_batch, recover_in_flight};
use crate::batch::{CommitReport, Op};
use crate::error::Result;
use crate::record::{Counts, HostRecord, StoredPage};
use crate::store::FrontierStore;

/// The in-memory engine: hash maps from URL and host key to id, dense vectors from id to record.
#[derive(Clone, Debug, Default)]
pub struct MemoryStore {
    state: State,
}

#[derive(Clone, Debug, Default)]
struct State {
    urls: HashMap<String, (u32, u32)>,
    pages: Vec<Option<PageRow>>,
    host_keys: HashMap<String, u32>,
    hosts: Vec<Option<HostRecord>>,
    in_flight: BTreeSet<u32>,
    meta: Meta,
}

impl MemoryStore {
    /// An empty store.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Runs `work` as one transaction: its writes are undone if it fails.
    fn transaction<T>(&mut self, work: impl FnOnce(&mut Transaction<'_>) -> Result<T>) -> Result<T> {
        let mut transaction = Transaction { state: &mut self.state, undo: Vec::new() };
        let result = work(&mut transaction);
        if result.is_err() {
            transaction.roll_back();
        }
        result
    }
}

/// A write undone by a failed batch: the value a slot held before.
enum Undo {
    Url(String, Option<(u32, u32)>),
    Page(u32, Option<PageRow>),
    HostKey(String, Option<u32>),
    Host(u32, Option<HostRecord>),
    InFlight(u32, bool),
    Meta(Meta),
}

struct Transaction<'a> {
    state: &'a mut State,
    undo: Vec<Undo>,
}

impl Transaction<'_> {
    fn roll_back(&mut self) {
        while let Some(entry) = self.undo.pop() {
            let state = &mut *self.state;
            match entry {
                Undo::Url(url, old) => restore_map(&mut state.urls, url, old),
                Undo::Page(page, old) => state.pages[page as usize] = old,
                Undo::HostKey(key, old) => restore_map(&mut state.host_keys, key, old),
                Undo::Host(host, old) => state.hosts[host as usize] = old,
                Undo::InFlight(page, was) => {
                    if was {
                        state.in_flight.insert(page);
                    } else {
                        state.in_flight.remove(&page);
                    }
                }
                Undo::Meta(meta) => state.meta = meta,
            }
        }
    }
}

fn restore_map<V>(map: &mut HashMap<String, V>, key: String, old: Option<V>) {
    match old {
        Some(value) => map.insert(key, value),
        None => map.remove(&key),
    };
}

fn slot<T>(slots: &mut Vec<Option<T>>, index: u32) -> &mut Option<T> {
    let index = index as usize;
    if slots.len() <= index {
        slots.resize_with(index + 1, || None);
    }
    &mut slots[index]
}

impl Tables for Transaction<'_> {
    fn url_id(&mut self, url: &str) -> Result<Option<(u32, u32)>> {
        Ok(self.state.urls.get(url).copied())
    }

    fn put_url(&mut self, url: &str, page: u32, host: u32) -> Result<()> {
        let old = self.state.urls.insert(url.to_owned(), (page, host));
        self.undo.push(Undo::Url(url.to_owned(), old));
        Ok(())
    }

    fn remove_url(&mut self, url: &str, _page: u32) -> Result<()> {
        let old = self.state.urls.remove(url);
        self.undo.push(Undo::Url(url.to_owned(), old));
        Ok(())
    }

    fn page(&mut self, page: u32) -> Result<Option<PageRow>> {
        Ok(self.state.pages.get(page as usize).cloned().flatten())
    }

    fn put_page(&mut self, page: u32, row: PageRow) -> Result<()> {
        let old = slot(&mut self.state.pages, page).replace(row);
        self.undo.push(Undo::Page(page, old));
        Ok(())
    }

    fn remove_page(&mut self, page: u32) -> Result<()> {
        let old = slot(&mut self.state.pages, page).take();
        self.undo.push(Undo::Page(page, old));
        Ok(())
    }

    fn host_id(&mut self, key: &str) -> Result<Option<u32>> {
        Ok(self.state.host_keys.get(key).copied())
    }

    fn put_host(&mut self, host: &HostRecord) -> Result<()> {
        let old_key = self.state.host_keys.insert(host.key.clone(), host.id.0);
        self.undo.push(Undo::HostKey(host.key.clone(), old_key));
        let old = slot(&mut self.state.hosts, host.id.0).replace(host.clone());
        self.undo.push(Undo::Host(host.id.0, old));
        Ok(())
    }

    fn host(&mut self, host: u32) -> Result<Option<HostRecord>> {
        Ok(self.state.hosts.get(host as usize).cloned().flatten())
    }

    fn set_in_flight(&mut self, page: u32, in_flight: bool) -> Result<()> {
        let was =
            if in_flight { !self.state.in_flight.insert(page) } else { self.state.in_flight.remove(&page) };
        self.undo.push(Undo::InFlight(page, was));
        Ok(())
    }

    fn in_flight_pages(&mut self) -> Result<Vec<u32>> {
        Ok(self.state.in_flight.iter().copied().collect())
    }

    fn meta(&mut self) -> Result<Meta> {
        Ok(self.state.meta)
    }

    fn put_meta(&mut self, meta: &Meta) -> Result<()> {
        self.undo.push(Undo::Meta(self.state.meta));
        self.state.meta = *meta;
        Ok(())
    }
}

impl FrontierStore for MemoryStore {
    fn commit(&mut self, batch: &[Op]) -> Result<CommitReport> {
        self.transaction(|transaction| apply_batch(transaction, batch))
    }

    fn recover(&mut self) -> Result<u64> {
        self.transaction(|transaction| recover_in_flight(transaction))
    }

    fn page(&self, page: PageId) -> Result<Option<StoredPage>> {
        let row = self.state.pages.get(page.0 as usize).and_then(Option::as_ref);
        Ok(row.map(|row| StoredPage { id: page, url: row.url.clone(), record: row.record.clone() }))
    }

    fn lookup(&self, url: &str) -> Result<Option<PageId>> {
        Ok(self.state.urls.get(url).map(|&(page, _)| PageId(page)))
    }

    fn pages(&self, after: Option<PageId>, limit: usize) -> Result<Vec<StoredPage>> {
        let first = after.map_or(0, |page| page.0 as usize + 1);
        let rows = self.state.pages.iter().enumerate().skip(first);
        let present = rows.filter_map(|(id, row)| Some((id, row.as_ref()?)));
        let pages = present.take(limit).map(|(id, row)| StoredPage {
            id: PageId(id as u32),
            url: row.url.clone(),
            record: row.record.clone(),
        });
        Ok(pages.collect())
    }

    fn host(&self, host: HostId) -> Result<Option<HostRecord>> {
        Ok(self.state.hosts.get(host.0 as usize).cloned().flatten())
    }

    fn host_by_key(&self, key: &str) -> Result<Option<HostId>> {
        Ok(self.state.host_keys.get(key).map(|&host| HostId(host)))
    }

    fn hosts(&self, after: Option<HostId>, limit: usize) -> Result<Vec<HostRecord>> {
        let first = after.map_or(0, |host| host.0 as usize + 1);
        let hosts = self.state.hosts.iter().skip(first).flatten().take(limit).cloned();
        Ok(hosts.collect())
    }

    fn counts(&self) -> Result<Counts> {
        Ok(self.state.meta.counts())
    }
}
