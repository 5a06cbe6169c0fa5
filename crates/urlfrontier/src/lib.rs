//! A URLFrontier service on freshet's frontier store: the gRPC API of crawler-commons'
//! [URL Frontier](https://github.com/crawler-commons/url-frontier) (API 2.x, the schema in
//! `proto/urlfrontier.proto`), so that StormCrawler, Scrapy's frontier and any other client of
//! that API can keep their URLs in freshet.
//!
//! # What each call does
//! - `PutURLs`: a `DiscoveredURLItem` adds its URL if the crawl does not hold it (the store's
//!   seen-set check), due at once; a `KnownURLItem` ends the URL's lease, replaces its metadata
//!   and schedules it at `refetchable_from_date` (0: never again). URLs are compared byte for
//!   byte: the client canonicalises. An item with no key is queued by its URL's host. Items are
//!   stored in chunks of what the client has sent (one or two commits each, durable before the
//!   acks); a bad item (no URL, whitespace in it, metadata over 64 KiB encoded) is `SKIPPED`
//!   alone, a failed commit answers `FAIL` for its items.
//! - `GetURLs`: queues in rotation (in the order they became able to serve; a queue just
//!   served goes behind the others), each at most `max_urls_per_queue` URLs in process (those
//!   already leased count), at most `max_queues` queues; a queue is skipped while blocked
//!   (`BlockQueueUntil`), within its delay since it last served (`SetDelay`) or at its crawl
//!   limit (`SetCrawlLimit`). URLs come earliest due first. Each is leased for
//!   `delay_requestable` seconds (0: 30 s, [`ServiceOptions::default_lease`]), then served
//!   again unless reported.
//! - `GetStats`, `ListQueues`, `GetURLStatus`, `ListURLs`, `CountURLs`, `DeleteQueue`,
//!   `DeleteCrawl`, `ListCrawls`, `ListNodes`, `SetActive`, `GetActive` as the API says.
//! - Not offered (`UNIMPLEMENTED`, with the reason): `SetLogLevel` (the level is set at start)
//!   and `PurgeURLs` (no creation date is kept).
//!
//! # freshet's revisits
//! With [`ServiceOptions::revisit`], a known URL reported with a date and the metadata
//! `freshet.changed` or `freshet.signature` gets its next date from freshet's revisit policy
//! (learned change rate, seed 003's threshold rule under a budget): [`revisit`].
//!
//! # What survives a restart
//! Every URL, its queue, metadata and schedule, and each queue's delay and block, are in the
//! crawl's store ([`freshet_frontier::RedbStore`], one file per crawl in a directory:
//! [`RedbDirectory`]; or [`freshet_frontier::RedisStore`], one key prefix per crawl in a Redis
//! server: [`RedisSpace`]); leases are not (a URL leased when the service stopped is served again at
//! once, as the API says of a lease that ended), nor are the crawl limits, the default delay
//! and `SetActive`.
//!
//! # Why hand-written
//! The gRPC plumbing is `tonic`/`prost`, generated from the schema (with the `protoc` of
//! `protoc-bin-vendored`, so the toolchain alone builds it), and the storage is
//! `freshet-frontier`'s. What is written here is the mapping: the queues in memory that answer
//! `GetURLs` without reading the store ([`Crawl`]), and the calls on them.

pub mod crawl;
mod error;
pub mod metadata;
pub mod revisit;
mod service;
mod space;

/// The messages, client and server generated from `proto/urlfrontier.proto`.
#[allow(missing_docs, unreachable_pub, clippy::all, clippy::pedantic)]
pub mod proto {
    tonic::include_proto!("urlfrontier");
}

pub use crawl::Crawl;
pub use error::{Result, ServiceError};
pub use service::{DEFAULT_CRAWL, FrontierService, ServiceOptions};
pub use space::{CrawlSpace, MAX_CRAWL_ID_BYTES, MemorySpace, RedbDirectory, RedisSpace};

/// Serves `service` on `listener` until `shutdown` completes.
///
/// # Errors
/// The transport's (the listener failing).
pub async fn serve(
    service: FrontierService,
    listener: tokio::net::TcpListener,
    shutdown: impl std::future::Future<Output = ()> + Send,
) -> Result<(), tonic::transport::Error> {
    tonic::transport::Server::builder()
        .add_service(proto::url_frontier_server::UrlFrontierServer::new(service))
        // Without TCP_NODELAY a small reply waits for the client's delayed ACK (~40 ms a call).
        .serve_with_incoming_shutdown(
            tonic::transport::server::TcpIncoming::from(listener).with_nodelay(Some(true)),
            shutdown,
        )
        .await
}
