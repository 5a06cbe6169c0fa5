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
/// 4: a page may carry metadata, written after the other fields only when there is some, so
/// that a format-3 record reads as a page without metadata (format 3 is upgraded on open by
/// rewriting the format alone).
pub(crate) const FORMAT: u64 = 4;

/// The last format without page metadata: its records are read as they are.
pub(crate) const FORMAT_WITHOUT_METADATA: u64 = 3;

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
    let mut bytes = postcard::to_stdvec(&out).map_err(|error| corrupt("pages", page, error))?;
    if !record.metadata.is_empty() {
        // After the fields of format 3, only when present: the crawler's records (no metadata)
        // keep their size, and a format-3 record is a record without metadata.
        bytes = postcard::to_extend(record.metadata.as_slice(), bytes)
            .map_err(|error| corrupt("pages", page, error))?;
    }
    Ok(bytes)
}

pub(crate) fn decode_page(page: u32, bytes: &[u8]) -> Result<PageRow> {
    let (input, rest): (PageIn, &[u8]) =
        postcard::take_from_bytes(bytes).map_err(|error| corrupt("pages", page, error))?;
    let metadata = if rest.is_empty() {
        Vec::new()
    } else {
        let (metadata, rest): (Vec<u8>, &[u8]) =
            postcard::take_from_bytes(rest).map_err(|error| corrupt("pages", page, error))?;
        if !rest.is_empty() {
            return Err(corrupt("pages", page, format!("{} bytes after the record", rest.len())));
        }
        metadata
    };
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
        metadata,
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn row(metadata: &[u8]) -> PageRow {
        let record = PageRecord {
            host: HostId(3),
            state: PageState::Fetched,
            depth: 2,
            discovered_from: Some(PageId(1)),
            weight: 1.5,
            change_rate: 0.25,
            last_fetch: Some(10.0),
            next_due: None,
            etag: Some("\"e\"".into()),
            last_modified: None,
            fingerprint: vec![1, 2],
            estimator: vec![3],
            redirect_trail: vec!["https://h.test/r".into()],
            metadata: metadata.to_vec(),
        };
        PageRow { url: "https://h.test/".into(), record }
    }

    /// Metadata is written after the other fields only when there is some: a record without
    /// it has the bytes format 3 wrote, and each reads back as written.
    #[test]
    fn metadata_follows_the_record_only_when_present() {
        let plain = encode_page(7, &row(b"")).unwrap();
        let with = encode_page(7, &row(b"key=value")).unwrap();
        assert_eq!(&with[..plain.len()], plain.as_slice());
        assert_eq!(with.len(), plain.len() + 1 + b"key=value".len());
        assert_eq!(decode_page(7, &plain).unwrap(), row(b""));
        assert_eq!(decode_page(7, &with).unwrap(), row(b"key=value"));
    }

    /// Bytes past the metadata, or metadata cut short, are a corrupt record naming the page.
    #[test]
    fn bytes_after_the_metadata_are_corrupt() {
        let mut bytes = encode_page(7, &row(b"abc")).unwrap();
        bytes.push(0);
        let error = decode_page(7, &bytes).unwrap_err();
        assert!(matches!(&error, StoreError::Corrupt { table: "pages", key, .. } if key == "7"), "{error}");
        bytes.truncate(bytes.len() - 2);
        assert!(matches!(decode_page(7, &bytes), Err(StoreError::Corrupt { .. })));
    }
}
