//! Typed errors: a URL that cannot be crawled, named with the input at fault.

/// Why a URL was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UrlError {
    /// Not a URL (or not one relative to the base).
    #[error("{input:?} is not a valid URL: {source}")]
    Parse {
        /// The text that failed.
        input: String,
        /// What the `url` crate said.
        source: url::ParseError,
    },
    /// A URL whose scheme a web crawler does not fetch.
    #[error("{url}: scheme {scheme:?} is not crawlable (only http and https are)")]
    UnsupportedScheme {
        /// The URL.
        url: String,
        /// Its scheme.
        scheme: String,
    },
    /// A URL whose host is empty once its trailing dots are removed.
    #[error("{url}: no host name")]
    NoHost {
        /// The URL.
        url: String,
    },
}
