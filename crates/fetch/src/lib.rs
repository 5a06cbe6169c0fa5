//! freshet's I/O edge: a URL in, a [`Fetch`] out; and the links of an HTML page.
//!
//! # Main items
//! - [`Fetcher`] with [`FetchConfig`]: one GET per call ([`Fetcher::fetch`]), or a redirect
//!   chain hop by hop ([`Fetcher::fetch_following`], [`RedirectChain`]). HTTP/1.1 and HTTP/2
//!   over rustls (reqwest); connect, first-byte and total timeouts; a body cap on the declared,
//!   transferred and decoded sizes (a gzip bomb stops at the cap); conditional GET from stored
//!   [`Validators`] (304 is [`Outcome::NotModified`]); address-safe DNS (every resolved address
//!   checked with `freshet_url::classify` before connecting, the connection made to the
//!   checked address; `allow_private` and `--resolve HOST=IP` overrides, [`parse_resolve`]);
//!   at most [`FetchConfig::max_in_flight_per_ip`] requests in flight to one IP address over
//!   all host names; the media types a crawl wants ([`ContentTypes`], [`Fetcher::fetch_page`]:
//!   an unwanted type is not downloaded).
//! - [`Fetch`]: the [`Outcome`] (data, never an `Err`, for everything the network or server
//!   does), the response head and the body **as received** (content coding kept, for WARC:
//!   [`Fetch::response_message`]), the decoded content, an exact xxh3-128 fingerprint, the
//!   remote address and timings. [`parse_retry_after`] reads `Retry-After` for 429 and 503.
//! - [`links`]: the HTML link extractor (pure, `lol_html`, charset detection), its own module
//!   with its own tests.
//! - [`sitemap`]: the sitemap parser (pure, `quick-xml`): urlsets, sitemap indexes and text
//!   sitemaps, gzip by magic bytes, the protocol's 50,000-entry and 50 MiB caps, entry
//!   problems as data, the protocol's location rule with the robots.txt cross-submit allowance.
//!
//! Written here rather than taken from a crate: content decoding with a cap (reqwest's has
//! none and discards the coded bytes WARC needs; the decoders themselves are `flate2` and
//! `brotli-decompressor`), the resolver's address filter (the project's safety rule), and the
//! mapping of client errors to outcomes.
//!
//! ```no_run
//! use freshet_fetch::{FetchConfig, Fetcher, Outcome, Validators};
//! # async fn example() -> Result<(), freshet_fetch::FetchError> {
//! let fetcher = Fetcher::new(FetchConfig { user_agent: "freshet-example".into(), ..FetchConfig::default() })?;
//! let url = freshet_url::canonicalize("https://example.com/").expect("a valid URL");
//! let fetch = fetcher.fetch(&url, &Validators::default()).await?;
//! match &fetch.outcome {
//!     Outcome::Ok { .. } => println!("{} bytes, fingerprint {:032x}", fetch.transfer_body.len(), fetch.fingerprint.unwrap_or(0)),
//!     other => println!("{}: {other:?}", other.name()),
//! }
//! # Ok(()) }
//! ```

mod content_type;
mod decode;
mod error;
mod fetcher;
mod ip_limit;
pub mod links;
mod outcome;
mod redirect;
mod resolve;
mod retry_after;
pub mod sitemap;

use std::net::IpAddr;

pub use content_type::ContentTypes;
pub use error::FetchError;
pub use fetcher::{
    DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_IN_FLIGHT_PER_IP, Fetch, FetchConfig, Fetcher, Followed, ResponseHead,
    Timings, Truncated, Validators,
};
pub use outcome::{Outcome, SizeStage, TimeoutPhase};
pub use redirect::{RedirectChain, RedirectStop};
pub use resolve::{AddressRefused, ResolveFailed};
pub use retry_after::parse_retry_after;

/// Parses a `--resolve` override, `HOST=IP` (IPv6 with or without brackets); a `HOST` of
/// `*.NAME` stands for every name under `NAME`.
///
/// ```
/// let (host, ip) = freshet_fetch::parse_resolve("H1.web.test=127.0.0.1").unwrap();
/// assert_eq!((host.as_str(), ip.to_string().as_str()), ("h1.web.test", "127.0.0.1"));
/// assert!(freshet_fetch::parse_resolve("h1.web.test:127.0.0.1").is_err());
/// assert!(freshet_fetch::parse_resolve("*.web.test=127.0.0.1").is_ok());
/// assert!(freshet_fetch::parse_resolve("a.*.test=127.0.0.1").is_err());
/// ```
///
/// # Errors
/// [`FetchError::BadResolveOverride`] naming the text.
pub fn parse_resolve(given: &str) -> Result<(String, IpAddr), FetchError> {
    let bad = || FetchError::BadResolveOverride { given: given.to_owned() };
    let (host, ip) = given.split_once('=').ok_or_else(bad)?;
    let host = host.trim().trim_end_matches('.').to_ascii_lowercase();
    let ip = ip.trim().trim_start_matches('[').trim_end_matches(']');
    // A `*` only as the whole first label: the wildcard the resolver knows.
    if host.is_empty() || host.strip_prefix("*.").unwrap_or(&host).contains('*') {
        return Err(bad());
    }
    Ok((host, ip.parse().map_err(|_| bad())?))
}
