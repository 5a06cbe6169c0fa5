//! The bytes of a page and a host record in a persistent engine: `postcard` (serde, varint
//! integers, 8-byte floats) of a flat struct. The layout is [`FORMAT`]; a store written with
//! another is refused on open rather than misread.

use freshet_schedule::online::{HostId, PageId};
use serde::{Deserialize, Serialize};

use crate::apply::PageRow;
use crate::error::{Result, StoreError};
use crate::record::{HostPoliteness, HostRecord, PageRecord, PageState};

/// The layout version of the store (the values below and the redb engine's tables); bump it
/// with any change. 2: the seen set is keyed by URL fingerprint (see `redb_engine`), a page keeps
/// its redirect trail. 3: the seen set holds the pages below `meta`'s `merged_below` only, the
/// others' entries are rebuilt from their page records on open (format 2 is upgraded on open).
pub(crate) const FORMAT: u64 = 3;

#[derive(Serialize)]
struct PageOut<'a> {
    url: &'a str,
    host: u32,
    state: u8,
    depth: u32,
    discovered_from: Option<u32>,
    weight: f64,
    change_rate: f64,
    last_fetch: Option<f64>,
    next_due: Option<f64>,
    etag: Option<&'a str>,
    last_modified: Option<&'a str>,
    fingerprint: &'a [u8],
    estimator: &'a [u8],
    redirect_trail: &'a [String],
}

#[derive(Deserialize)]
struct PageIn {
    url: String,
    host: u32,
    state: u8,
    depth: u32,
    discovered_from: Option<u32>,
    weight: f64,
    change_rate: f64,
    last_fetch: Option<f64>,
    next_due: Option<f64>,
    etag: Option<String>,
    last_modified: Option<String>,
    fingerprint: Vec<u8>,
    estimator: Vec<u8>,
    redirect_trail: Vec<String>,
}

#[derive(Serialize, Deserialize)]
struct HostDisk<'a> {
    key: &'a str,
    min_delay: f64,
    max_rate: f64,
    blocked_until: Option<f64>,
}

fn state_code(state: PageState) -> u8 {
    match state {
        PageState::Discovered => 0,
        PageState::InFlight => 1,
        PageState::Fetched => 2,
    }
}

fn corrupt(table: &'static str, key: impl ToString, reason: impl ToString) -> StoreError {
    StoreError::Corrupt { table, key: key.to_string(), reason: reason.to_string() }
}

/// Serialises failing is a bug in this module (every field type is supported), reported as
/// [`StoreError::Corrupt`] rather than a panic.
pub(crate) fn encode_page(page: u32, row: &PageRow) -> Result<Vec<u8>> {
    let record = &row.record;
    let out = PageOut {
        url: &row.url,
        host: record.host.0,
        state: state_code(record.state),
        depth: record.depth,
        discovered_from: record.discovered_from.map(|page| page.0),
        weight: record.weight,
        change_rate: record.change_rate,
        last_fetch: record.last_fetch,
        next_due: record.next_due,
        etag: record.etag.as_deref(),
        last_modified: record.last_modified.as_deref(),
        fingerprint: &record.fingerprint,
        estimator: &record.estimator,
        redirect_trail: &record.redirect_trail,
    };
    postcard::to_stdvec(&out).map_err(|error| corrupt("pages", page, error))
}

pub(crate) fn decode_page(page: u32, bytes: &[u8]) -> Result<PageRow> {
    let input: PageIn = postcard::from_bytes(bytes).map_err(|error| corrupt("pages", page, error))?;
    let state = match input.state {
        0 => PageState::Discovered,
        1 => PageState::InFlight,
        2 => PageState::Fetched,
        other => return Err(corrupt("pages", page, format!("unknown state code {other}"))),
    };
    let record = PageRecord {
        host: HostId(input.host),
        state,
        depth: input.depth,
        discovered_from: input.discovered_from.map(PageId),
        weight: input.weight,
        change_rate: input.change_rate,
        last_fetch: input.last_fetch,
        next_due: input.next_due,
        etag: input.etag,
        last_modified: input.last_modified,
        fingerprint: input.fingerprint,
        estimator: input.estimator,
        redirect_trail: input.redirect_trail,
    };
    Ok(PageRow { url: input.url, record })
}

/// The URL of an encoded page record (its first field), without decoding the rest: the seen
/// set's confirmation of a fingerprint.
pub(crate) fn page_url(page: u32, bytes: &[u8]) -> Result<&str> {
    let (url, _) = postcard::take_from_bytes::<&str>(bytes).map_err(|error| corrupt("pages", page, error))?;
    Ok(url)
}

pub(crate) fn encode_host(host: &HostRecord) -> Result<Vec<u8>> {
    let politeness = host.politeness;
    let disk = HostDisk {
        key: &host.key,
        min_delay: politeness.min_delay,
        max_rate: politeness.max_rate,
        blocked_until: politeness.blocked_until,
    };
    postcard::to_stdvec(&disk).map_err(|error| corrupt("hosts", host.id.0, error))
}

pub(crate) fn decode_host(host: u32, bytes: &[u8]) -> Result<HostRecord> {
    let disk: HostDisk<'_> = postcard::from_bytes(bytes).map_err(|error| corrupt("hosts", host, error))?;
    let politeness = HostPoliteness {
        min_delay: disk.min_delay,
        max_rate: disk.max_rate,
        blocked_until: disk.blocked_until,
    };
    Ok(HostRecord { id: HostId(host), key: disk.key.to_owned(), politeness })
}
