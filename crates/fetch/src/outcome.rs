//! What happened to one fetch, as data: the crawler logs it, politeness reacts to it (back off
//! on `Throttled`, `ServerError`, `Timeout`…), and the change-rate estimators learn from it
//! (`NotModified` is an observation "unchanged"). Every HTTP-level failure is an [`Outcome`],
//! never an `Err`.

use std::net::IpAddr;
use std::time::Duration;

use freshet_url::{AddressClass, Url};

/// The outcome of one HTTP request (one hop of a redirect chain).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// A 2xx answer with its whole body.
    Ok {
        /// The status code.
        status: u16,
    },
    /// 304 to a conditional request: the page is unchanged since the validators were stored.
    NotModified,
    /// A 3xx answer with a `Location` that resolves to an http(s) URL (canonical): the next hop.
    Redirect {
        /// The status code (301, 302, 303, 307, 308).
        status: u16,
        /// Where to, resolved against the request URL and canonicalised.
        location: Url,
    },
    /// A 3xx answer without a usable `Location`.
    BadRedirect {
        /// The status code.
        status: u16,
        /// The `Location` value, if any.
        location: Option<String>,
    },
    /// 429, or 503: the server asks us to slow down.
    Throttled {
        /// 429 or 503.
        status: u16,
        /// `Retry-After`, parsed, when the answer had a valid one.
        retry_after: Option<Duration>,
    },
    /// Another 4xx (404, 410 gone; 403…).
    ClientError {
        /// The status code.
        status: u16,
    },
    /// Another 5xx, or a status outside 100–599.
    ServerError {
        /// The status code.
        status: u16,
    },
    /// 1xx as a final answer (not valid HTTP for a GET; counted rather than guessed at).
    Informational {
        /// The status code.
        status: u16,
    },
    /// A time limit passed.
    Timeout {
        /// Which one.
        phase: TimeoutPhase,
    },
    /// The body was larger than the cap (the body kept is cut at the cap).
    TooLarge {
        /// The cap, in bytes.
        limit: u64,
        /// Which size passed it.
        stage: SizeStage,
    },
    /// A 2xx answer of a media type the crawl does not want (`FetchConfig::content_types`):
    /// only its head was read.
    UnwantedContentType {
        /// The status code.
        status: u16,
        /// The `Content-Type` it declared.
        content_type: String,
    },
    /// The body's content coding was corrupt or is one we do not remove.
    BadContentEncoding {
        /// The status code of the answer.
        status: u16,
        /// What went wrong.
        message: String,
    },
    /// Every address of the host is one we may not connect to (loopback, private…: see
    /// `freshet_url::classify`), and private addresses are not allowed.
    AddressRefused {
        /// The host name or IP literal.
        host: String,
        /// The addresses and their classes.
        addresses: Vec<(IpAddr, AddressClass)>,
    },
    /// The host name did not resolve.
    DnsFailed {
        /// What the resolver said.
        message: String,
    },
    /// The server refused the TCP connection.
    ConnectionRefused,
    /// The connection was reset (TCP RST), before or during the answer.
    ConnectionReset,
    /// Any other connection or protocol failure (TLS, malformed HTTP, early close…).
    Failed {
        /// The client's description.
        message: String,
    },
}

/// Which time limit passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimeoutPhase {
    /// Establishing the connection (TCP and TLS).
    Connect,
    /// Waiting for the response head.
    FirstByte,
    /// Reading the body (the total limit).
    Body,
}

/// Which size passed the cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SizeStage {
    /// The `Content-Length` the server declared (nothing was read).
    Declared,
    /// The bytes on the wire.
    Transfer,
    /// The bytes after removing the content coding (a compression bomb).
    Decoded,
}

impl Outcome {
    /// A short stable name for logs and metrics (`ok`, `not-modified`, `timeout`…).
    pub fn name(&self) -> &'static str {
        match self {
            Self::Ok { .. } => "ok",
            Self::NotModified => "not-modified",
            Self::Redirect { .. } => "redirect",
            Self::BadRedirect { .. } => "bad-redirect",
            Self::Throttled { .. } => "throttled",
            Self::ClientError { .. } => "client-error",
            Self::ServerError { .. } => "server-error",
            Self::Informational { .. } => "informational",
            Self::Timeout { .. } => "timeout",
            Self::TooLarge { .. } => "too-large",
            Self::UnwantedContentType { .. } => "unwanted-content-type",
            Self::BadContentEncoding { .. } => "bad-content-encoding",
            Self::AddressRefused { .. } => "address-refused",
            Self::DnsFailed { .. } => "dns-failed",
            Self::ConnectionRefused => "connection-refused",
            Self::ConnectionReset => "connection-reset",
            Self::Failed { .. } => "failed",
        }
    }

    /// Whether the server answered and the page is there to be read (2xx with its body).
    pub fn is_ok(&self) -> bool {
        matches!(self, Self::Ok { .. })
    }

    /// The outcome of a complete answer with status `status`, before redirects and
    /// `Retry-After` are looked at.
    pub(crate) fn from_status(status: u16) -> Self {
        match status {
            100..=199 => Self::Informational { status },
            200..=299 => Self::Ok { status },
            304 => Self::NotModified,
            300..=399 => Self::BadRedirect { status, location: None },
            429 => Self::Throttled { status, retry_after: None },
            400..=499 => Self::ClientError { status },
            503 => Self::Throttled { status, retry_after: None },
            _ => Self::ServerError { status },
        }
    }
}
