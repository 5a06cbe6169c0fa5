//! What can go wrong in the service, and the gRPC status each becomes.

use std::path::PathBuf;

use freshet_frontier::StoreError;

/// A failure of the service.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// The crawl's store failed (I/O, a corrupt entry, a refused operation).
    #[error("frontier store: {0}")]
    Store(#[from] StoreError),
    /// A call named a queue the crawl does not have.
    #[error("no queue {0:?} in this crawl")]
    UnknownQueue(String),
    /// A crawl id that cannot name a crawl.
    #[error("crawl id {id:?}: {reason}")]
    BadCrawlId {
        /// The id as received.
        id: String,
        /// Why it is refused.
        reason: &'static str,
    },
    /// The directory of the crawls could not be read or changed.
    #[error("{action} {path}: {source}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// Where.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// The Redis server holding the list of crawls failed.
    #[error("redis: {action}: {source}")]
    Redis {
        /// What was being done.
        action: &'static str,
        /// The error.
        #[source]
        source: redis::RedisError,
    },
    /// The store and the queues in memory disagree: a bug, reported rather than a panic.
    #[error("internal inconsistency: {0}")]
    Inconsistent(&'static str),
}

/// The service's results.
pub type Result<T, E = ServiceError> = std::result::Result<T, E>;

impl From<ServiceError> for tonic::Status {
    fn from(error: ServiceError) -> Self {
        let message = error.to_string();
        match error {
            ServiceError::UnknownQueue(_) => Self::not_found(message),
            ServiceError::BadCrawlId { .. } => Self::invalid_argument(message),
            ServiceError::Store(StoreError::Empty { .. } | StoreError::TooLong { .. })
            | ServiceError::Store(StoreError::BadCharacter { .. } | StoreError::InvalidNumber { .. }) => {
                Self::invalid_argument(message)
            }
            ServiceError::Store(_)
            | ServiceError::Io { .. }
            | ServiceError::Redis { .. }
            | ServiceError::Inconsistent(_) => Self::internal(message),
        }
    }
}
