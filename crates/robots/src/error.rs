//! Typed errors. Parsing a robots.txt body never fails (a parser skips what it does not
//! understand, RFC 9309 §2.2); only a nonsensical cache policy is refused.

/// Why a [`crate::CachePolicy`] was refused.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RobotsError {
    /// A duration of the cache policy is not a finite, positive number of seconds.
    #[error("cache policy {field} must be a finite, positive number of seconds, got {value}")]
    InvalidDuration {
        /// The field at fault (`ttl`, `retry`, `outage`).
        field: &'static str,
        /// Its value.
        value: f64,
    },
}
