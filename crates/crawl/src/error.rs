//! Typed errors of the crawl loop. What a server or the network does is never an error here: it
//! is an [`Outcome`](freshet_fetch::Outcome) in the crawl log. These are the failures that stop
//! a crawl: the data directory, the store, the WARC files, a bad configuration.

use std::path::PathBuf;

/// Why a crawl could not start or had to stop.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CrawlError {
    /// A file or directory under the data directory could not be created, opened or written.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// What the OS said.
        #[source]
        source: std::io::Error,
    },
    /// The data directory already holds a crawl and `resume` was not asked for.
    #[error("{path} already holds a crawl: pass --resume to continue it, or choose another --data directory")]
    AlreadyStarted {
        /// The frontier store found.
        path: PathBuf,
    },
    /// `resume` was asked for but the data directory holds no crawl.
    #[error("{path} holds no crawl to resume (no frontier store)")]
    NothingToResume {
        /// The frontier store expected.
        path: PathBuf,
    },
    /// A new crawl was given a Redis frontier that already holds a crawl, without `resume`.
    #[error(
        "Redis at {url}, prefix {prefix:?}, already holds a crawl: pass --resume to continue it, or choose another --store-prefix"
    )]
    RedisAlreadyStarted {
        /// The server.
        url: String,
        /// The key prefix.
        prefix: String,
    },
    /// `resume` was asked for but the Redis frontier holds no crawl.
    #[error("Redis at {url}, prefix {prefix:?}, holds no crawl to resume")]
    RedisNothingToResume {
        /// The server.
        url: String,
        /// The key prefix.
        prefix: String,
    },
    /// The Redis frontier could not be opened (no server, a server that does not sync every
    /// write, a prefix held by another live crawl, another format).
    #[error("frontier store in Redis at {url}, prefix {prefix:?}: {source}")]
    RedisStoreOpen {
        /// The server.
        url: String,
        /// The key prefix.
        prefix: String,
        /// Why.
        #[source]
        source: freshet_frontier::StoreError,
    },
    /// A new crawl was started without any seed.
    #[error("no seed URL: give at least one SEED_URL or --seeds FILE")]
    NoSeeds,
    /// A setting is out of range.
    #[error("{field} = {value}: {expected}")]
    InvalidConfig {
        /// The setting.
        field: &'static str,
        /// Its value.
        value: String,
        /// What it should be.
        expected: &'static str,
    },
    /// The frontier store could not be opened (I/O, a full disk, a lock held by another
    /// process, another format).
    #[error("frontier store {path}: {source}")]
    StoreOpen {
        /// The store's file.
        path: PathBuf,
        /// Why.
        #[source]
        source: freshet_frontier::StoreError,
    },
    /// The frontier store failed.
    #[error("frontier store: {0}")]
    Store(#[from] freshet_frontier::StoreError),
    /// Writing WARC failed.
    #[error("WARC: {0}")]
    Warc(#[from] freshet_warc::WarcError),
    /// The scheduler refused a call (a bug in the crawl loop, or a corrupt store).
    #[error("scheduler: {0}")]
    Schedule(#[from] freshet_schedule::online::OnlineError),
    /// The fetcher could not be built.
    #[error("fetcher: {0}")]
    Fetch(#[from] freshet_fetch::FetchError),
    /// A stored URL does not parse (the store holds only canonical URLs, so: a corrupt store).
    #[error("stored URL {url:?} of page {page}: {source}")]
    StoredUrl {
        /// The page id.
        page: u32,
        /// The URL text.
        url: String,
        /// Why it does not parse.
        #[source]
        source: freshet_url::UrlError,
    },
    /// A page's stored estimator state does not decode (a corrupt store).
    #[error("stored state of page {page}: {source}")]
    StoredMemory {
        /// The page id.
        page: u32,
        /// What is wrong.
        #[source]
        source: crate::revisit::CorruptMemory,
    },
    /// A page or host id the scheduler handed out is not in the store (a corrupt store).
    #[error("{what} {id} is not in the frontier store")]
    Missing {
        /// `page` or `host`.
        what: &'static str,
        /// The id.
        id: u32,
    },
}

/// The crate's result.
pub type Result<T, E = CrawlError> = std::result::Result<T, E>;

impl CrawlError {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |source| Self::Io { path, source }
    }
}
