//! The crawler's frontier store: what is known about every URL, kept so that the crawl survives
//! `kill -9` and resumes where it was.
//!
//! The online [`Scheduler`](freshet_schedule::online::Scheduler) is the frontier's brain (sans-IO,
//! in memory, 24 bytes a page); this crate is its durable memory.
//!
//! # Main types
//! - [`FrontierStore`]: the storage trait. One write verb, [`commit`](FrontierStore::commit), takes
//!   a batch of [`Op`]s (discover URLs with the seen-set check, start, complete, release,
//!   remove, set a host's politeness) and applies it as one atomic, durable transaction;
//!   [`recover`](FrontierStore::recover) gives in-flight pages back after a crash; reads by id,
//!   by URL, and in id order for rebuilding the scheduler. Its docs hold the crash-safety
//!   contract and the order to follow with WARC.
//! - [`PageRecord`]: one URL's compact record (ids, state, weight, change-rate estimate and
//!   estimator state, last fetch, next due time, `ETag`/`Last-Modified`, fingerprint, depth,
//!   discovered-from); [`HostRecord`] with [`HostPoliteness`].
//! - Engines: [`MemoryStore`] (tests, simulations) and [`RedbStore`] (the default: one `redb` file).
//! - [`SeenFilter`]: any engine behind an in-memory [`SeenIndex`] (URL fingerprint → page and
//!   host ids, ~23 bytes a URL), so that a link to a URL already seen costs one hash probe and
//!   no engine read; the crawler's store. Sized for 10^8 URLs (module `seen`, BENCHMARKS.md).
//! - With the `conformance` feature, `conformance`: the one suite every engine must pass.
//!
//! # Mapping to URLFrontier and to Redis
//! The verbs follow the URLFrontier gRPC API (crawler-commons' `urlfrontier.proto`, used by
//! StormCrawler and Scrapy) so that a service can be put in front of any engine:
//! `PutURLs` with a `DiscoveredURLItem` is [`Op::Discover`] (the queue key is the host key),
//! with a `KnownURLItem` is [`Op::Complete`] (`refetchable_from_date` 0 is `next_due: None`),
//! each `AckMessage` answered by a commit; `GetURLs` is the scheduler's `next` followed by
//! [`Op::Start`] (its `delay_requestable` is the in-flight lease); `SetDelay` and
//! `BlockQueueUntil` are [`Op::SetHost`]; `DeleteURL` is [`Op::Remove`]; `GetURLStatus` is
//! [`lookup`](FrontierStore::lookup) + [`page`](FrontierStore::page); `ListURLs` is
//! [`pages`](FrontierStore::pages); `ListQueues` is [`hosts`](FrontierStore::hosts); `GetStats`
//! is [`counts`](FrontierStore::counts). A crawl id is one store (one file, one key prefix).
//!
//! A Redis engine keeps the same tables as keys (`urls` and `host_keys` as hashes, `pages` and
//! `hosts` as hashes of encoded records, `in_flight` as a set, counters with `INCRBY`) and runs
//! a batch as one Lua script or `MULTI`/`EXEC` (atomic; durable per the server's AOF
//! `appendfsync` setting). Under Redis Cluster, keys are sharded by host with a `{host}` hash
//! tag, so that a batch of one host's URLs stays on one shard; the seen-set entry of a URL
//! lives with its host, and ids come from per-shard counters (shard number in the high bits).
//!
//! # Why hand-written, and what is not
//! The engines are `redb` (embedded, ACID, crash-safe by default: see `shared/CRATES.md`) and
//! a `HashMap`; records are encoded by `postcard`. What is written here is the frontier's own
//! semantics: which operations form a transaction, what in-flight means after a crash, the
//! seen-set and id rules, once in `apply.rs` for every engine.
//!
//! # Example
//! ```
//! use freshet_frontier::{Discovery, FrontierStore, Op, PageState, RedbStore};
//!
//! let dir = tempfile::tempdir()?;
//! let mut store = RedbStore::open(dir.path().join("frontier.redb"))?;
//! let seed = Discovery {
//!     url: "http://h1.web.test/".into(),
//!     host: "h1.web.test".into(),
//!     weight: 1.0,
//!     change_rate: 0.1,
//!     depth: 0,
//!     discovered_from: None,
//!     due: 0.0,
//!     redirect_trail: Vec::new(),
//! };
//! let report = store.commit(&[Op::Discover(seed.clone()), Op::Discover(seed)])?;
//! assert!(report.admissions[0].is_new);
//! assert_eq!(report.admissions[1].page, report.admissions[0].page); // seen already
//! let page = report.admissions[0].page;
//! store.commit(&[Op::Start(page)])?;
//! drop(store); // as if killed while the fetch was in flight
//!
//! let mut store = RedbStore::open(dir.path().join("frontier.redb"))?;
//! assert_eq!(store.recover()?, 1);
//! let stored = store.page(page)?.expect("kept");
//! assert_eq!(stored.record.state, PageState::Discovered);
//! assert_eq!(stored.record.next_due, Some(0.0)); // due again at once
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod apply;
mod batch;
mod codec;
mod error;
mod memory;
mod record;
mod redb_engine;
mod seen;
mod store;

#[cfg(feature = "conformance")]
pub mod conformance;

pub use batch::{Admission, CommitReport, Completion, Discovery, Op};
pub use error::{Result, StoreError};
pub use memory::MemoryStore;
pub use record::{Counts, HostPoliteness, HostRecord, PageRecord, PageState, StoredPage, limits};
pub use redb_engine::{DEFAULT_CACHE_BYTES, MERGE_RANGES, RedbOptions, RedbStore};
pub use seen::{SeenFilter, SeenIndex, url_fingerprint};
pub use store::FrontierStore;
