//! The crate's typed error: every variant names the operation of the batch (its index), the page,
//! host or field at fault, or the engine action and table that failed.

use freshet_schedule::online::{HostId, PageId};

/// What went wrong in a [`FrontierStore`](crate::FrontierStore) call. A failed
/// [`commit`](crate::FrontierStore::commit) has changed nothing.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// A shard plan that is not shard `index` of `count` with `index < count` (see
    /// [`ShardPlan`](crate::ShardPlan)).
    #[error("shard {index} of {count} is not a shard: give K/N with N at least 1 and K from 0 to N-1")]
    InvalidShard {
        /// The shard's index (0 when the text did not parse).
        index: u32,
        /// The number of shards (0 when the text did not parse).
        count: u32,
    },
    /// A required text field (a URL, a host key) is empty.
    #[error("operation {op}: {field} is empty")]
    Empty {
        /// Index of the operation in the batch.
        op: usize,
        /// The field.
        field: &'static str,
    },
    /// A field is longer than the store accepts.
    #[error("operation {op}: {field} is {len} bytes, more than the limit of {max}")]
    TooLong {
        /// Index of the operation in the batch.
        op: usize,
        /// The field.
        field: &'static str,
        /// Its length in bytes.
        len: usize,
        /// The limit (see [`limits`](crate::limits)).
        max: usize,
    },
    /// A text field holds a character it may not (a control character or whitespace in a URL,
    /// which would make the stored key ambiguous with what a log line shows).
    #[error("operation {op}: {field} contains the forbidden character {character:?} at byte {at}")]
    BadCharacter {
        /// Index of the operation in the batch.
        op: usize,
        /// The field.
        field: &'static str,
        /// The character.
        character: char,
        /// Its byte offset in the field.
        at: usize,
    },
    /// A number is not finite or out of its range (a negative weight, a NaN time).
    #[error("operation {op}: {field} = {value} is invalid ({expected})")]
    InvalidNumber {
        /// Index of the operation in the batch.
        op: usize,
        /// The field.
        field: &'static str,
        /// The value given.
        value: f64,
        /// What it must be.
        expected: &'static str,
    },
    /// The operation names a page the store does not hold (never discovered, or removed).
    #[error("operation {op}: unknown {page}")]
    UnknownPage {
        /// Index of the operation in the batch.
        op: usize,
        /// The page.
        page: PageId,
    },
    /// The operation names a host the store does not hold.
    #[error("operation {op}: unknown {host}")]
    UnknownHost {
        /// Index of the operation in the batch.
        op: usize,
        /// The host.
        host: HostId,
    },
    /// A page is started while it is already in flight: the same URL would be fetched twice at
    /// once (a dispatch bug, or two workers racing for it).
    #[error("operation {op}: {page} is already in flight")]
    AlreadyInFlight {
        /// Index of the operation in the batch.
        op: usize,
        /// The page.
        page: PageId,
    },
    /// All `u32` ids of a kind are taken.
    #[error("no {kind} id left: all 2^32 are allocated")]
    IdsExhausted {
        /// "page" or "host".
        kind: &'static str,
    },
    /// A stored value cannot be decoded: the store was written by another format or damaged.
    #[error("corrupt {table} entry {key}: {reason}")]
    Corrupt {
        /// The table.
        table: &'static str,
        /// The entry's key, as text.
        key: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The store was written with another layout than this version of the crate reads.
    #[error(
        "store format {found} where this build reads format {expected}: it was written by another version of freshet and cannot be resumed by this one (start the crawl again in a new directory)"
    )]
    FormatMismatch {
        /// The format found in the store.
        found: u64,
        /// The format this build writes and reads.
        expected: u64,
    },
    /// The storage engine failed (I/O, a full disk, a lock held by another process).
    #[error("{engine}: {action}: {source}")]
    Engine {
        /// The engine ("redb", …).
        engine: &'static str,
        /// What was being done ("open", "commit", "read pages", …).
        action: &'static str,
        /// The engine's error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

/// The crate's result type.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;
