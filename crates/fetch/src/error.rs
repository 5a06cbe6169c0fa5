//! Typed errors: only for caller misuse. What the network or a server does is an
//! [`crate::Outcome`], never an error.

/// A mistake by the caller.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FetchError {
    /// The URL is not http(s) with a host.
    #[error("{url}: only http and https URLs with a host can be fetched")]
    UnsupportedUrl {
        /// The URL.
        url: String,
    },
    /// The HTTP client could not be built.
    #[error("cannot build the HTTP client: {message}")]
    Client {
        /// What reqwest said.
        message: String,
    },
    /// A content-type pattern is not `type/subtype`, `type/*` or `*/*`.
    #[error("content type {given:?}: expected type/subtype, type/* or */* (for example `text/html`)")]
    BadContentType {
        /// The pattern given.
        given: String,
    },
    /// A `--resolve` override is not `HOST=IP`.
    #[error("--resolve {given:?}: expected HOST=IP or *.DOMAIN=IP (for example `h1.web.test=127.0.0.1`)")]
    BadResolveOverride {
        /// The text given.
        given: String,
    },
}
