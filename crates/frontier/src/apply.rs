//! The semantics of [`commit`](crate::FrontierStore::commit) and
//! [`recover`](crate::FrontierStore::recover), written once over [`Tables`], the few reads and
//! writes an engine's transaction offers. The in-memory and redb engines both run this code, so
//! they cannot disagree on what a batch means; atomicity is the engine's (redb's transaction,
//! the memory engine's undo log).

use freshet_schedule::online::{HostId, PageId};

use crate::batch::{Admission, CommitReport, Completion, Discovery, Op, validate};
use crate::error::{Result, StoreError};
use crate::record::{Counts, HostPoliteness, HostRecord, PageRecord, PageState};

/// A page as stored: its URL beside its record, so that an id finds its URL.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct PageRow {
    pub(crate) url: String,
    pub(crate) record: PageRecord,
}

/// The store-wide counters, kept in the same transaction as the pages they count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Meta {
    /// The next page id to allocate (ids are never reused).
    pub(crate) next_page: u64,
    /// The next host id to allocate.
    pub(crate) next_host: u64,
    pub(crate) discovered: u64,
    pub(crate) in_flight: u64,
    pub(crate) fetched: u64,
}

impl Meta {
    pub(crate) fn counts(&self) -> Counts {
        Counts {
            discovered: self.discovered,
            in_flight: self.in_flight,
            fetched: self.fetched,
            hosts: self.next_host,
        }
    }

    fn count_mut(&mut self, state: PageState) -> &mut u64 {
        match state {
            PageState::Discovered => &mut self.discovered,
            PageState::InFlight => &mut self.in_flight,
            PageState::Fetched => &mut self.fetched,
        }
    }

    fn enter(&mut self, state: PageState) {
        *self.count_mut(state) += 1;
    }

    fn leave(&mut self, state: PageState) {
        let count = self.count_mut(state);
        *count = count.saturating_sub(1);
    }
}

/// What one engine transaction offers: point reads and writes on the tables.
pub(crate) trait Tables {
    /// The page id and host id stored for `url` (the host beside the id, so that the
    /// seen-set check of a known URL, the common case in a crawl, is one lookup).
    fn url_id(&mut self, url: &str) -> Result<Option<(u32, u32)>>;
    fn put_url(&mut self, url: &str, page: u32, host: u32) -> Result<()>;
    /// Takes `url`, held as `page`, out of the seen set.
    fn remove_url(&mut self, url: &str, page: u32) -> Result<()>;
    fn page(&mut self, page: u32) -> Result<Option<PageRow>>;
    fn put_page(&mut self, page: u32, row: PageRow) -> Result<()>;
    fn remove_page(&mut self, page: u32) -> Result<()>;
    fn host_id(&mut self, key: &str) -> Result<Option<u32>>;
    /// Stores a host, and its key in the key index.
    fn put_host(&mut self, host: &HostRecord) -> Result<()>;
    fn host(&mut self, host: u32) -> Result<Option<HostRecord>>;
    /// Adds a page to, or takes it out of, the in-flight index.
    fn set_in_flight(&mut self, page: u32, in_flight: bool) -> Result<()>;
    /// Every page in the in-flight index.
    fn in_flight_pages(&mut self) -> Result<Vec<u32>>;
    fn meta(&mut self) -> Result<Meta>;
    fn put_meta(&mut self, meta: &Meta) -> Result<()>;
}

/// Applies `batch` through `tables`. On `Err` the caller must discard every write made.
pub(crate) fn apply_batch(tables: &mut impl Tables, batch: &[Op]) -> Result<CommitReport> {
    for (index, op) in batch.iter().enumerate() {
        validate(index, op)?;
    }
    let mut meta = tables.meta()?;
    let mut report = CommitReport::default();
    for (index, op) in batch.iter().enumerate() {
        match op {
            Op::Discover(discovery) => {
                let admission = discover(tables, &mut meta, &mut report, discovery)?;
                report.admissions.push(admission);
            }
            Op::Start(page) => start(tables, &mut meta, index, *page)?,
            Op::Complete(completion) => complete(tables, &mut meta, index, completion)?,
            Op::Release { page, next_due } => release(tables, &mut meta, index, *page, *next_due)?,
            Op::Remove(page) => remove(tables, &mut meta, index, *page)?,
            Op::SetHost { host, politeness } => set_host(tables, index, *host, *politeness)?,
            Op::SetMetadata { page, metadata } => set_metadata(tables, index, *page, metadata)?,
        }
    }
    tables.put_meta(&meta)?;
    Ok(report)
}

/// Gives every in-flight page back; returns how many.
pub(crate) fn recover_in_flight(tables: &mut impl Tables) -> Result<u64> {
    let mut meta = tables.meta()?;
    let pages = tables.in_flight_pages()?;
    for &page in &pages {
        let Some(mut row) = tables.page(page)? else {
            // An index entry without its page cannot be produced by apply_batch; drop it.
            tables.set_in_flight(page, false)?;
            continue;
        };
        meta.leave(PageState::InFlight);
        let state = settled_state(&row.record);
        meta.enter(state);
        row.record.state = state;
        tables.put_page(page, row)?;
        tables.set_in_flight(page, false)?;
    }
    tables.put_meta(&meta)?;
    Ok(pages.len() as u64)
}

/// The state a page returns to when it stops being in flight without a new fetch.
fn settled_state(record: &PageRecord) -> PageState {
    if record.last_fetch.is_some() { PageState::Fetched } else { PageState::Discovered }
}

fn allocate(next: &mut u64, kind: &'static str) -> Result<u32> {
    let id = u32::try_from(*next).map_err(|_| StoreError::IdsExhausted { kind })?;
    *next += 1;
    Ok(id)
}

fn discover(
    tables: &mut impl Tables,
    meta: &mut Meta,
    report: &mut CommitReport,
    discovery: &Discovery,
) -> Result<Admission> {
    if let Some((page, host)) = tables.url_id(&discovery.url)? {
        return Ok(Admission { page: PageId(page), host: HostId(host), is_new: false });
    }
    let host = match tables.host_id(&discovery.host)? {
        Some(host) => HostId(host),
        None => {
            let host = HostId(allocate(&mut meta.next_host, "host")?);
            let key = discovery.host.clone();
            tables.put_host(&HostRecord {
                id: host,
                key: key.clone(),
                politeness: HostPoliteness::default(),
            })?;
            report.new_hosts.push((host, key));
            host
        }
    };
    let page = allocate(&mut meta.next_page, "page")?;
    let record = PageRecord {
        host,
        state: PageState::Discovered,
        depth: discovery.depth,
        discovered_from: discovery.discovered_from,
        weight: discovery.weight,
        change_rate: discovery.change_rate,
        last_fetch: None,
        next_due: Some(discovery.due),
        etag: None,
        last_modified: None,
        fingerprint: Vec::new(),
        estimator: Vec::new(),
        redirect_trail: discovery.redirect_trail.clone(),
        metadata: discovery.metadata.clone(),
    };
    tables.put_url(&discovery.url, page, host.0)?;
    tables.put_page(page, PageRow { url: discovery.url.clone(), record })?;
    meta.enter(PageState::Discovered);
    Ok(Admission { page: PageId(page), host, is_new: true })
}

fn existing(tables: &mut impl Tables, op: usize, page: PageId) -> Result<PageRow> {
    tables.page(page.0)?.ok_or(StoreError::UnknownPage { op, page })
}

fn start(tables: &mut impl Tables, meta: &mut Meta, op: usize, page: PageId) -> Result<()> {
    let mut row = existing(tables, op, page)?;
    if row.record.state == PageState::InFlight {
        return Err(StoreError::AlreadyInFlight { op, page });
    }
    meta.leave(row.record.state);
    meta.enter(PageState::InFlight);
    row.record.state = PageState::InFlight;
    tables.put_page(page.0, row)?;
    tables.set_in_flight(page.0, true)
}

fn complete(tables: &mut impl Tables, meta: &mut Meta, op: usize, completion: &Completion) -> Result<()> {
    let mut row = existing(tables, op, completion.page)?;
    if row.record.state == PageState::InFlight {
        tables.set_in_flight(completion.page.0, false)?;
    }
    meta.leave(row.record.state);
    meta.enter(PageState::Fetched);
    let record = &mut row.record;
    record.state = PageState::Fetched;
    record.last_fetch = Some(completion.fetched_at);
    record.weight = completion.weight;
    record.change_rate = completion.change_rate;
    record.next_due = completion.next_due;
    record.etag.clone_from(&completion.etag);
    record.last_modified.clone_from(&completion.last_modified);
    record.fingerprint.clone_from(&completion.fingerprint);
    record.estimator.clone_from(&completion.estimator);
    record.redirect_trail.clear();
    tables.put_page(completion.page.0, row)
}

fn release(
    tables: &mut impl Tables,
    meta: &mut Meta,
    op: usize,
    page: PageId,
    next_due: Option<f64>,
) -> Result<()> {
    let mut row = existing(tables, op, page)?;
    if row.record.state == PageState::InFlight {
        tables.set_in_flight(page.0, false)?;
        let state = settled_state(&row.record);
        meta.leave(PageState::InFlight);
        meta.enter(state);
        row.record.state = state;
    }
    row.record.next_due = next_due;
    tables.put_page(page.0, row)
}

fn remove(tables: &mut impl Tables, meta: &mut Meta, op: usize, page: PageId) -> Result<()> {
    let row = existing(tables, op, page)?;
    if row.record.state == PageState::InFlight {
        tables.set_in_flight(page.0, false)?;
    }
    meta.leave(row.record.state);
    tables.remove_url(&row.url, page.0)?;
    tables.remove_page(page.0)
}

fn set_host(tables: &mut impl Tables, op: usize, host: HostId, politeness: HostPoliteness) -> Result<()> {
    let mut record = tables.host(host.0)?.ok_or(StoreError::UnknownHost { op, host })?;
    record.politeness = politeness;
    tables.put_host(&record)
}

fn set_metadata(tables: &mut impl Tables, op: usize, page: PageId, metadata: &[u8]) -> Result<()> {
    let mut row = existing(tables, op, page)?;
    metadata.clone_into(&mut row.record.metadata);
    tables.put_page(page.0, row)
}
