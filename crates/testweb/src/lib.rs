//! freshet's test web: a synthetic web served on 127.0.0.1 whose every change is known, so a
//! crawl's freshness can be measured against the truth rather than estimated.
//!
//! Two layers:
//!
//! * **The model, pure** (no clock, no I/O; time is a parameter): [`Web`] built from a
//!   [`WebConfig`] — `N` hosts `h{i}.web.test`, `M` pages, a power-law link graph, importance
//!   (PageRank) and a change process per page (`freshet-sim`'s [`ChangeProcess`]: Poisson,
//!   periodic with jitter, bursty). [`PageChanges`] gives a page's change times, a pure
//!   function of `(seed, page)`; a page's content at model time `t` is a function of
//!   `(seed, page, version)`, version = number of changes in `(0, t]` ([`render`]).
//!   Optionally a topic ([`WebConfig::topic_fraction`]): on-topic pages, clustered by host and
//!   along links, say [`TOPIC_WORD`] [`PageInfo::topic_score`] times in their text, and links
//!   to them often say it in their anchors — ground truth for a focused crawl.
//! * **The server, thin**: [`TestWeb`] serves the model with axum on one port, virtual hosts by
//!   the Host header, mapping a [`Clock`]'s wall time to model time (days) through a
//!   [`TimeMap`] (`--time-scale` days per second). It answers conditional GETs (ETag,
//!   Last-Modified, 304), serves robots.txt and sitemaps, ground truth under `/_truth`, its own
//!   request log at `/_log` (and in process: [`TestWeb::log`]), optional per-request noise, and
//!   misbehaving hosts ([`Misbehaviour`]).
//!
//! [`freshness()`] computes a crawl's exact ground-truth freshness from its fetches, as
//! the truth endpoints let any client do over HTTP.
//!
//! The change-time generator is written here rather than reused from the simulator because
//! the simulator draws from one sequential generator, which a stateless server cannot replay
//! per request; the processes' definitions are the simulator's own.
//!
//! ```
//! use freshet_testweb::{Web, WebConfig};
//!
//! let web = Web::new(WebConfig { hosts: 3, pages: 100, ..WebConfig::default() })?;
//! let page = web.lookup(1, "/").expect("every host has a root");
//! let changes = web.changes(page);
//! let first = changes.nth_change(0);
//! // Version 0 until the first change, version 1 from it on.
//! assert_eq!(web.version_at(page, first * 0.5), 0);
//! assert_eq!(web.version_at(page, first), 1);
//! assert_ne!(web.etag(page, 0), web.etag(page, 1));
//! # Ok::<(), freshet_testweb::TestwebError>(())
//! ```

mod bomb;
mod changes;
mod clock;
mod error;
mod freshness;
mod keyed;
mod log;
mod misbehave;
pub mod render;
mod server;
mod topic;
mod web;

pub use bomb::gzip_bomb;
pub use changes::{ChangeIter, PageChanges, VersionCursor};
pub use clock::{Clock, ManualClock, SystemClock, TimeMap, unix_seconds};
pub use error::{Result, TestwebError};
pub use freshet_sim::ChangeProcess;
pub use freshness::{Fetch, Freshness, freshness};
pub use log::{LogEntry, RequestLog};
pub use misbehave::{
    COSTLY_PATH_OCTETS, COSTLY_RULES, LONG_HOST_OCTETS, LONG_URL_OCTETS, LONG_VALIDATOR_OCTETS, Misbehaviour,
    MisbehaviourSettings, costly_paths, costly_robots_txt, long_host, long_path,
};
pub use server::{ServerConfig, SitemapLastmod, TestWeb};
pub use topic::{TOPIC_ANCHOR_PROBABILITY, TOPIC_WORD};
pub use web::{DOMAIN, PageInfo, Web, WebConfig};
