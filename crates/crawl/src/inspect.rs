//! A stopped crawl's frontier, read from its store: what `freshet status --data DIR` and
//! `freshet explain URL --data DIR` print (a running crawl answers its own questions over
//! `--listen`, see [`crate::Admin`]; its store is locked while it runs).
//!
//! Nutch's `readdb -stats` and `readdb -url` answer the same for a crawl database: how many URLs
//! in each state, which hosts hold them, and everything kept about one URL. Time is a parameter
//! (`now`, Unix seconds), as everywhere in the library.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub use freshet_frontier::{FrontierStore, RedbStore, RedisStore};
use freshet_frontier::{PageState, StoreError};
use freshet_schedule::online::HostId;
use serde::Serialize;

use crate::dedup::PayloadRecord;
use crate::revisit::{CorruptMemory, PageMemory};

/// Pages read from the store at a time while counting.
const PAGE_CHUNK: usize = 8_192;

/// Why a stopped crawl's frontier could not be read.
#[derive(Debug, thiserror::Error)]
pub enum InspectError {
    /// The data directory holds no frontier store.
    #[error("{0} holds no crawl (no frontier store)")]
    NoStore(PathBuf),
    /// The store could not be opened (a running crawl holds its lock, another format, I/O).
    #[error("frontier store {path}: {source}")]
    Open {
        /// The store's file.
        path: PathBuf,
        /// Why.
        #[source]
        source: StoreError,
    },
    /// Reading the store failed.
    #[error("frontier store: {0}")]
    Store(#[from] StoreError),
    /// The URL asked about is not a URL freshet can crawl.
    #[error("{0}: not a crawlable URL")]
    BadUrl(String),
    /// The URL (canonicalised) is not in the frontier.
    #[error("{0} is not in the frontier (never discovered, or out of scope)")]
    Unknown(String),
    /// A page's stored state could not be read.
    #[error("stored state of {url}: {source}")]
    Memory {
        /// The page's URL.
        url: String,
        /// What is wrong.
        #[source]
        source: CorruptMemory,
    },
}

/// Opens the frontier store of the crawl in `data_dir` (`DIR/frontier.redb`), without creating
/// one where there is none.
///
/// # Errors
/// [`InspectError::NoStore`] where there is no store, [`InspectError::Open`] where it cannot be
/// opened (while a crawl runs on it, its lock).
pub fn open_store(data_dir: &Path) -> Result<RedbStore, InspectError> {
    let path = data_dir.join(crate::config::STORE_FILE);
    if !path.is_file() {
        return Err(InspectError::NoStore(data_dir.to_path_buf()));
    }
    RedbStore::open(&path).map_err(|source| InspectError::Open { path, source })
}

/// What a stopped crawl's frontier holds.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FrontierReport {
    /// Every URL the crawl has seen.
    pub pages: u64,
    /// Never fetched.
    pub discovered: u64,
    /// Handed to a fetcher when the crawl stopped without a clean exit (`kill -9`): due again
    /// at once when it resumes.
    pub in_flight: u64,
    /// Fetched at least once.
    pub fetched: u64,
    /// Due at `now` or before (what a resumed crawl may fetch at once).
    pub due_now: u64,
    /// Due later (revisits scheduled, pauses asked for).
    pub due_later: u64,
    /// Not to be fetched again (a one-pass crawl's fetched pages, robots.txt, quotas, gone):
    /// the URL stays seen.
    pub not_due: u64,
    /// Fetched pages whose last complete body is another URL's, byte for byte (their WARC
    /// records are revisits of that URL's: see [`crate::dedup`]); a page whose stored memory
    /// cannot be read is not counted (`explain` names the error).
    pub duplicates: u64,
    /// Hosts.
    pub hosts: u64,
    /// The hosts with the most pages, most first (at most the number asked for).
    pub top_hosts: Vec<HostReport>,
}

/// One host of a [`FrontierReport`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HostReport {
    /// Its key (`scheme://host:port`).
    pub host: String,
    /// Its pages.
    pub pages: u64,
    /// Of them, fetched at least once.
    pub fetched: u64,
    /// Of them, due at `now` or before.
    pub due_now: u64,
    /// The delay between two requests the crawl last stored for it, seconds (0 where it
    /// stored none: the configured delay and robots.txt's `Crawl-delay` apply again when the
    /// crawl resumes).
    pub min_delay: f64,
    /// No request before this Unix time (the end of its turn or of a `Retry-After` pause,
    /// saved when the crawl stopped); `None` when nothing was owed.
    pub blocked_until: Option<f64>,
}

/// Per-host counts of [`frontier_report`].
#[derive(Clone, Copy, Default)]
struct HostCounts {
    pages: u64,
    fetched: u64,
    due_now: u64,
}

/// Counts the pages of `store` by state and by due time at `now` (one pass over every page),
/// with the `top_hosts` hosts that hold the most pages.
///
/// # Errors
/// A failed read of the store.
pub fn frontier_report(
    store: &impl FrontierStore,
    now: f64,
    top_hosts: usize,
) -> Result<FrontierReport, InspectError> {
    report_in_chunks(store, now, top_hosts, PAGE_CHUNK)
}

/// [`frontier_report`], reading `chunk` pages at a time.
fn report_in_chunks(
    store: &impl FrontierStore,
    now: f64,
    top_hosts: usize,
    chunk_pages: usize,
) -> Result<FrontierReport, InspectError> {
    let counts = store.counts()?;
    let mut report = FrontierReport {
        pages: 0,
        discovered: 0,
        in_flight: 0,
        fetched: 0,
        due_now: 0,
        due_later: 0,
        not_due: 0,
        duplicates: 0,
        hosts: counts.hosts,
        top_hosts: Vec::new(),
    };
    let mut by_host: HashMap<HostId, HostCounts> = HashMap::new();
    let mut after = None;
    loop {
        let chunk = store.pages(after, chunk_pages)?;
        let Some(last) = chunk.last() else { break };
        after = Some(last.id);
        for page in &chunk {
            let record = &page.record;
            report.pages += 1;
            let host = by_host.entry(record.host).or_default();
            host.pages += 1;
            match record.state {
                PageState::Discovered => report.discovered += 1,
                PageState::InFlight => report.in_flight += 1,
                PageState::Fetched => {
                    report.fetched += 1;
                    host.fetched += 1;
                }
            }
            let held = PageMemory::from_bytes(&record.estimator).ok().and_then(|memory| memory.capture);
            if held.is_some_and(|capture| capture.page != page.id) {
                report.duplicates += 1;
            }
            match record.next_due {
                // An in-flight page of a crashed run is due again at once on resume.
                _ if record.state == PageState::InFlight => {
                    report.due_now += 1;
                    host.due_now += 1;
                }
                Some(due) if due <= now => {
                    report.due_now += 1;
                    host.due_now += 1;
                }
                Some(_) => report.due_later += 1,
                None => report.not_due += 1,
            }
        }
        if chunk.len() < chunk_pages {
            break;
        }
    }
    let mut ranked: Vec<(HostId, HostCounts)> = by_host.into_iter().collect();
    // Most pages first; ties by id (the order found), so the report is the same every time.
    ranked.sort_unstable_by(|a, b| b.1.pages.cmp(&a.1.pages).then(a.0.cmp(&b.0)));
    for (id, counts) in ranked.into_iter().take(top_hosts) {
        let Some(host) = store.host(id)? else { continue };
        report.top_hosts.push(HostReport {
            host: host.key,
            pages: counts.pages,
            fetched: counts.fetched,
            due_now: counts.due_now,
            min_delay: host.politeness.min_delay,
            blocked_until: host.politeness.blocked_until,
        });
    }
    Ok(report)
}

/// Everything a stopped crawl keeps about one URL.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StoredPageReport {
    /// The URL, canonical.
    pub url: String,
    /// `discovered`, `in-flight` or `fetched`.
    pub state: &'static str,
    /// Its host's key.
    pub host: String,
    /// Links followed from a seed to reach it.
    pub depth: u32,
    /// The page whose links first named it (`None`: a seed or a sitemap entry).
    pub discovered_from: Option<String>,
    /// Importance `w`.
    pub weight: f64,
    /// The change rate the scheduler uses, per second.
    pub change_rate: f64,
    /// Start of its last fetch, Unix seconds.
    pub last_fetch: Option<f64>,
    /// When it may be fetched again, Unix seconds (`None`: not to be fetched again).
    pub next_due: Option<f64>,
    /// Its `ETag`, for `If-None-Match`.
    pub etag: Option<String>,
    /// Its `Last-Modified`, for `If-Modified-Since`.
    pub last_modified: Option<String>,
    /// The redirect chain that led to it, while it waits for its first fetch.
    pub redirect_trail: Vec<String>,
    /// Fetches whose content the change-rate estimators compared (intervals observed).
    pub observations: u32,
    /// Of them, those that found a change.
    pub changes: u32,
    /// Failed fetches in a row.
    pub failures: u32,
    /// Its host's delay between two requests, seconds.
    pub host_min_delay: f64,
    /// Its host's `blocked_until` (see [`HostReport::blocked_until`]).
    pub host_blocked_until: Option<f64>,
    /// The WARC record holding its last complete payload (see [`crate::dedup`]).
    pub payload_record: Option<PayloadRecord>,
}

/// What `store` keeps about `url` (canonicalised first, as the crawl stores it).
///
/// # Errors
/// [`InspectError::BadUrl`], [`InspectError::Unknown`], a failed read, a corrupt record.
pub fn stored_page_report(store: &impl FrontierStore, url: &str) -> Result<StoredPageReport, InspectError> {
    let canonical = freshet_url::canonicalize(url).map_err(|_| InspectError::BadUrl(url.to_owned()))?;
    let unknown = || InspectError::Unknown(canonical.to_string());
    let id = store.lookup(canonical.as_str())?.ok_or_else(unknown)?;
    let page = store.page(id)?.ok_or_else(unknown)?;
    let record = page.record;
    let memory = PageMemory::from_bytes(&record.estimator)
        .map_err(|source| InspectError::Memory { url: page.url.clone(), source })?;
    let host = store.host(record.host)?;
    let discovered_from = match record.discovered_from {
        Some(from) => store.page(from)?.map(|from| from.url),
        None => None,
    };
    let payload_record = match &memory.capture {
        Some(capture) => PayloadRecord::of(capture, id, &page.url, |other| {
            Ok::<_, InspectError>(store.page(other)?.map(|stored| stored.url))
        })?,
        None => None,
    };
    let state = match record.state {
        PageState::Discovered => "discovered",
        PageState::InFlight => "in-flight",
        PageState::Fetched => "fetched",
    };
    Ok(StoredPageReport {
        url: page.url,
        state,
        host: host.as_ref().map(|host| host.key.clone()).unwrap_or_default(),
        depth: record.depth,
        discovered_from,
        weight: record.weight,
        change_rate: record.change_rate,
        last_fetch: record.last_fetch,
        next_due: record.next_due,
        etag: record.etag,
        last_modified: record.last_modified,
        redirect_trail: record.redirect_trail,
        observations: memory.history.intervals(),
        changes: memory.history.changes(),
        failures: memory.failures,
        host_min_delay: host.as_ref().map_or(0.0, |host| host.politeness.min_delay),
        host_blocked_until: host.and_then(|host| host.politeness.blocked_until),
        payload_record,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use freshet_frontier::{Discovery, FrontierStore as _, MemoryStore, Op};

    use super::*;

    fn discovery(url: &str, host: &str, due: f64) -> Op {
        Op::Discover(Discovery {
            url: url.into(),
            host: host.into(),
            weight: 1.0,
            change_rate: 0.1,
            depth: 0,
            discovered_from: None,
            due,
            redirect_trail: Vec::new(),
            metadata: Vec::new(),
        })
    }

    /// Pages by state and due time at `now`, hosts by their pages (ties in the order found).
    #[test]
    fn the_report_counts_pages_by_state_and_due_time_and_ranks_hosts() {
        let mut store = MemoryStore::new();
        let report = store
            .commit(&[
                discovery("http://a.test/1", "http://a.test", 5.0),
                discovery("http://a.test/2", "http://a.test", 50.0),
                discovery("http://b.test/1", "http://b.test", 5.0),
                discovery("http://b.test/2", "http://b.test", 5.0),
                discovery("http://b.test/3", "http://b.test", 5.0),
                discovery("http://c.test/1", "http://c.test", 5.0),
                discovery("http://d.test/1", "http://d.test", 5.0),
            ])
            .unwrap();
        let page = |index: usize| report.admissions[index].page;
        store
            .commit(&[Op::Start(page(2)), Op::Release { page: page(3), next_due: None }, Op::Start(page(5))])
            .unwrap();
        store.commit(&[Op::Release { page: page(5), next_due: Some(70.0) }]).unwrap();

        let report = frontier_report(&store, 10.0, 2).unwrap();
        assert_eq!((report.pages, report.hosts), (7, 4));
        assert_eq!((report.discovered, report.in_flight, report.fetched), (6, 1, 0));
        // Due at 10: a/1, b/3, d/1 and b/1 (in flight: due again at once); later a/2 and c/1
        // (released to 70); b/2 never again.
        assert_eq!((report.due_now, report.due_later, report.not_due), (4, 2, 1));
        let hosts: Vec<(&str, u64, u64)> =
            report.top_hosts.iter().map(|host| (host.host.as_str(), host.pages, host.due_now)).collect();
        assert_eq!(hosts, [("http://b.test", 3, 2), ("http://a.test", 2, 1)]);
        // Every host when asked for more than there are; c and d tie, c was found first.
        let all = frontier_report(&store, 10.0, 10).unwrap();
        let order: Vec<&str> = all.top_hosts.iter().map(|host| host.host.as_str()).collect();
        assert_eq!(order, ["http://b.test", "http://a.test", "http://c.test", "http://d.test"]);
        // Read a few pages at a time, the same report (7 pages: chunks that end short, and one
        // that ends exactly at the last page).
        for chunk in [1, 2, 3, 7] {
            assert_eq!(report_in_chunks(&store, 10.0, 10, chunk).unwrap(), all, "{chunk} at a time");
        }
    }

    #[test]
    fn a_page_report_canonicalises_the_url_and_names_an_unknown_one() {
        let mut store = MemoryStore::new();
        store.commit(&[discovery("http://a.test/x", "http://a.test", 5.0)]).unwrap();
        let report = stored_page_report(&store, "HTTP://A.test:80/x#top").unwrap();
        assert_eq!(
            (report.url.as_str(), report.state, report.host.as_str()),
            ("http://a.test/x", "discovered", "http://a.test")
        );
        assert_eq!((report.observations, report.changes, report.next_due), (0, 0, Some(5.0)));
        assert!(
            matches!(stored_page_report(&store, "http://a.test/y"), Err(InspectError::Unknown(url)) if url == "http://a.test/y")
        );
        assert!(matches!(stored_page_report(&store, "not a url"), Err(InspectError::BadUrl(_))));
    }
}
