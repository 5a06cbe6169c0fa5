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
//! - Engines: [`MemoryStore`] (tests, simulations), [`RedbStore`] (the default: one `redb` file)
//!   and [`RedisStore`] (a Redis server, for a frontier beyond one machine: `freshet crawl
//!   --store redis://…`). `Box<dyn FrontierStore>` is an engine too, chosen at run time.
//! - [`SeenFilter`]: any engine behind an in-memory [`SeenIndex`] (URL fingerprint → page and
//!   host ids, ~23 bytes a URL), so that a link to a URL already seen costs one hash probe and
//!   no engine read; the crawler's store. Sized for 10^8 URLs (module `seen`, BENCHMARKS.md).
//! - With the `conformance` feature, `conformance`: the one suite every engine must pass.
//!
//! # Mapping to URLFrontier and to Redis
//! The verbs follow the URLFrontier gRPC API (crawler-commons' `urlfrontier.proto`, used by
//! StormCrawler and Scrapy), and `freshet-urlfrontier` serves that API on any engine:
//! `PutURLs` with a `DiscoveredURLItem` is [`Op::Discover`] (the queue key is the host key,
//! the item's metadata [`Discovery::metadata`]), with a `KnownURLItem` is [`Op::Complete`]
//! (`refetchable_from_date` 0 is `next_due: None`) and [`Op::SetMetadata`], each `AckMessage`
//! answered after the commit; `GetURLs` is served from the service's queues in memory, its
//! leases not stored (a lease ends with the process, as the API says of a lease that ended);
//! `SetDelay` and `BlockQueueUntil` are [`Op::SetHost`]; `DeleteQueue` is [`Op::Remove`] of the
//! queue's pages; `GetURLStatus` is [`lookup`](FrontierStore::lookup) +
//! [`page`](FrontierStore::page); `ListURLs` and `CountURLs` read
//! [`pages`](FrontierStore::pages). A crawl id is one store (one file, one key prefix).
//!
//! [`RedisStore`] keeps the same tables as keys (`urls` and `host_keys` as hashes, `pages` and
//! `hosts` as hashes of encoded records, `in_flight` as a set, the counters in a `meta` hash)
//! and writes a batch as one `MULTI`/`EXEC` (atomic; durable only on a server that syncs its
//! append-only file at every write, which it checks). Every key of a crawl carries the hash tag
//! of its prefix, so that under Redis Cluster a crawl's keys stay on one node and a batch stays
//! one transaction; sharding one crawl over several nodes (keys by host with a `{host}` tag, the
//! seen-set entry of a URL with its host, ids from per-shard counters with the shard in the high
//! bits) is not built.
//!
//! # Why hand-written, and what is not
//! The engines are `redb` (embedded, ACID, crash-safe by default: see `shared/CRATES.md`), a
//! `HashMap`, and a Redis server through the `redis` crate's blocking client; records are
//! encoded by `postcard`. What is written here is the frontier's own
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
//!     metadata: Vec::new(),
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
mod redis_engine;
mod seen;
mod shards;
mod store;

#[cfg(feature = "conformance")]
pub mod conformance;

pub use batch::{Admission, CommitReport, Completion, Discovery, Op};
pub use error::{Result, StoreError};
pub use memory::MemoryStore;
pub use record::{Counts, HostPoliteness, HostRecord, PageRecord, PageState, StoredPage, limits};
pub use redb_engine::{DEFAULT_CACHE_BYTES, MERGE_RANGES, RedbOptions, RedbStore};
pub use redis_engine::{RedisOptions, RedisStore, connect_to_slot_owner, slot_owner};
pub use seen::{SeenFilter, SeenIndex, url_fingerprint};
pub use shards::{Handover, ShardExchange, ShardPlan};
pub use store::FrontierStore;
