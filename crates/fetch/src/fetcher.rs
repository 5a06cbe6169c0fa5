//! The fetcher: one GET, one [`Fetch`] record, every failure as an [`Outcome`].
//!
//! Built on reqwest (HTTP/1.1 and HTTP/2 over rustls, ALPN), configured so that everything a
//! crawler must decide stays here: no automatic redirects, no automatic decompression (see
//! [`crate::decode`]'s docs for why), no proxy from the environment, no `Referer`, and name
//! resolution through [`crate::resolve`]'s address-safe resolver.

use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant, SystemTime};

use bytes::{Bytes, BytesMut};
use freshet_url::Url;
use reqwest::header::{self, HeaderMap, HeaderValue};

use crate::content_type::ContentTypes;
use crate::decode::{Coding, DecodeStop, Decoder};
use crate::error::FetchError;
use crate::ip_limit::IpGates;
use crate::outcome::{Outcome, SizeStage, TimeoutPhase};
use crate::redirect::{RedirectChain, RedirectStop};
use crate::resolve::{AddressRefused, ResolveError, ResolveFailed, SafeResolver};
use std::sync::Arc;
use tokio::sync::OwnedSemaphorePermit;

/// The most of a body's declared length reserved before its bytes arrive (1 MiB): most pages
/// fit, and a body beyond it grows as it comes, so a lying `Content-Length` costs little.
const PRESIZED_BODY_BYTES: usize = 1 << 20;

/// What the fetcher sends `Accept-Encoding` as: the codings [`crate::decode`] removes.
const ACCEPT_ENCODING: &str = "gzip, deflate, br";

/// The default of [`FetchConfig::max_in_flight_per_ip`]: enough for a server that hosts many
/// sites to be crawled in parallel, few enough that a crawler polite to each host name does not
/// swamp the machine behind them.
pub const DEFAULT_MAX_IN_FLIGHT_PER_IP: usize = 8;

/// How the fetcher behaves. Every limit is per request (per hop), but the per-IP limit.
#[derive(Clone, Debug)]
pub struct FetchConfig {
    /// `User-Agent` sent with every request.
    pub user_agent: String,
    /// Limit on establishing a connection (TCP, then TLS).
    pub connect_timeout: Duration,
    /// Limit from the start of the request to the response head (includes connecting).
    pub first_byte_timeout: Duration,
    /// Limit from the start of the request to the end of the body.
    pub total_timeout: Duration,
    /// Cap on the body, in bytes, applied to the declared `Content-Length`, to the bytes on
    /// the wire and to the decoded bytes alike.
    pub max_body_bytes: u64,
    /// Redirects [`Fetcher::fetch_following`] takes before giving up (and the crawler, which
    /// follows a chain through its frontier, before it stops one).
    pub max_redirects: usize,
    /// Allow loopback, private, link-local… addresses (tests, testweb, intranets).
    pub allow_private: bool,
    /// `--resolve HOST=IP` overrides, still subject to the address check.
    pub resolve: Vec<(String, IpAddr)>,
    /// The media types [`Fetcher::fetch_page`] downloads; a 2xx answer of another type stops
    /// after its head as [`Outcome::UnwantedContentType`]. Default: all.
    pub content_types: ContentTypes,
    /// At most this many requests in flight to one IP address, over all host names (see
    /// the `ip_limit` module); `None`: no limit. Default 8.
    pub max_in_flight_per_ip: Option<usize>,
    /// How long a connection is kept open unused, for its host's next request (HTTP
    /// keep-alive); zero: never reused. A crawl calls on many hosts, and every connection
    /// kept holds a socket (a file descriptor) and its buffers: the HTTP client's own default
    /// (90 s, no limit on the connections kept) held one per host called on in the last 90 s,
    /// 4,896 descriptors and ~27 KB each on a crawl of 4,878 test hosts (BENCHMARKS.md,
    /// "Connections kept open"). The default, [`DEFAULT_IDLE_TIMEOUT`] (5 s, Apache's own
    /// keep-alive timeout), still covers a host's next request at the default 1 s delay.
    pub idle_timeout: Duration,
    /// At most this many unused connections kept per host (the crawler keeps as many as it
    /// has requests in flight per host). Default 1.
    pub max_idle_per_host: usize,
}

/// The default [`FetchConfig::idle_timeout`]: 5 s.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(5);

impl Default for FetchConfig {
    fn default() -> Self {
        Self {
            user_agent: concat!("freshet/", env!("CARGO_PKG_VERSION")).to_owned(),
            connect_timeout: Duration::from_secs(10),
            first_byte_timeout: Duration::from_secs(30),
            total_timeout: Duration::from_secs(120),
            max_body_bytes: 10 << 20,
            max_redirects: 10,
            allow_private: false,
            resolve: Vec::new(),
            content_types: ContentTypes::all(),
            max_in_flight_per_ip: Some(DEFAULT_MAX_IN_FLIGHT_PER_IP),
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            max_idle_per_host: 1,
        }
    }
}

/// Validators stored from an earlier fetch of the same URL, for a conditional GET
/// (RFC 9110 §13.1). With either set, a 304 answer is [`Outcome::NotModified`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Validators {
    /// The `ETag` received, sent back as `If-None-Match`.
    pub etag: Option<String>,
    /// The `Last-Modified` received, sent back as `If-Modified-Since`.
    pub last_modified: Option<String>,
}

impl Validators {
    /// The validators of an answer, to store for the next fetch.
    pub fn from_headers(headers: &[(String, Vec<u8>)]) -> Self {
        let get = |name: &str| {
            headers
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .and_then(|(_, value)| std::str::from_utf8(value).ok())
                .map(str::to_owned)
        };
        Self { etag: get("etag"), last_modified: get("last-modified") }
    }
}

/// The response as received: status line and header fields, verbatim values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResponseHead {
    /// The status code.
    pub status: u16,
    /// `HTTP/1.1`, `HTTP/2.0`…
    pub version: String,
    /// Header fields in the order the client keeps them (grouped by name; names lower-case as
    /// hyper gives them), values as bytes.
    pub headers: Vec<(String, Vec<u8>)>,
}

impl ResponseHead {
    /// The first value of header `name` as text, if it is valid UTF-8.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .and_then(|(_, value)| std::str::from_utf8(value).ok())
    }
}

/// How long the parts of a fetch took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timings {
    /// When the request began (wall clock, for the log and `WARC-Date`).
    pub started: SystemTime,
    /// From the start to the response head, if one came.
    pub first_byte: Option<Duration>,
    /// From the start to the end (body read, or failure).
    pub total: Duration,
}

/// Why a body was cut short (WARC 1.1 §5.13 `WARC-Truncated`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Truncated {
    /// The size cap.
    Length,
    /// The total time limit.
    Time,
    /// The connection dropped.
    Disconnect,
}

/// Everything about one request: what was asked, what came back, what it meant.
#[derive(Clone, Debug)]
pub struct Fetch {
    /// The URL requested.
    pub url: Url,
    /// What happened.
    pub outcome: Outcome,
    /// Request header fields this fetcher set (reqwest adds `Host`, and for HTTP/1.1 nothing
    /// else; for HTTP/2 `:authority` and friends).
    pub request_headers: Vec<(String, String)>,
    /// The response head, if the server answered.
    pub response: Option<ResponseHead>,
    /// The address connected to.
    pub remote: Option<SocketAddr>,
    /// The body as received on the wire: transfer coding (chunked) removed by the client, the
    /// content coding (gzip…) kept, as WARC wants the payload. Cut at the cap, or where a
    /// timeout or reset stopped it (see `truncated`).
    pub transfer_body: Bytes,
    /// The body with its content coding removed (the page itself), when it could be decoded;
    /// the same bytes as `transfer_body` when there was no content coding.
    pub content: Option<Bytes>,
    /// Set when the body is incomplete.
    pub truncated: Option<Truncated>,
    /// An exact fingerprint of the whole decoded content: xxh3-128 (collisions among 10^12
    /// pages have probability ~10^-15). Only for complete bodies.
    pub fingerprint: Option<u128>,
    /// Timings.
    pub timings: Timings,
}

impl Fetch {
    /// The HTTP response message for a WARC `response` record: status line, header fields and
    /// `transfer_body`. `Transfer-Encoding` is dropped (the client removed the chunking, so the
    /// header would misdescribe the stored body); `Content-Encoding` and `Content-Length` stay
    /// as sent, since the stored body is still content-coded. HTTP/2 answers are written with
    /// an `HTTP/2` status line, as wget and warcio write them.
    pub fn response_message(&self) -> Option<Vec<u8>> {
        let head = self.response.as_ref()?;
        let reason =
            reqwest::StatusCode::from_u16(head.status).ok().and_then(|s| s.canonical_reason()).unwrap_or("");
        let version = if head.version == "HTTP/2.0" { "HTTP/2" } else { head.version.as_str() };
        // Sized at once: grown from the status line, the ~10 KB message was reallocated (and
        // copied) about six times a page.
        let head_len: usize = head.headers.iter().map(|(name, value)| name.len() + value.len() + 4).sum();
        let mut message =
            Vec::with_capacity(version.len() + reason.len() + 8 + head_len + 2 + self.transfer_body.len());
        message.extend_from_slice(version.as_bytes());
        message.extend_from_slice(format!(" {} ", head.status).as_bytes());
        message.extend_from_slice(reason.as_bytes());
        message.extend_from_slice(b"\r\n");
        for (name, value) in &head.headers {
            if name.eq_ignore_ascii_case("transfer-encoding") {
                continue;
            }
            message.extend_from_slice(name.as_bytes());
            message.extend_from_slice(b": ");
            message.extend_from_slice(value);
            message.extend_from_slice(b"\r\n");
        }
        message.extend_from_slice(b"\r\n");
        message.extend_from_slice(&self.transfer_body);
        Some(message)
    }

    /// The HTTP request message for a WARC `request` record, as an HTTP/1.1 request: request
    /// line, `Host` and the header fields this fetcher set.
    pub fn request_message(&self) -> Vec<u8> {
        let mut host = self.url.host_str().unwrap_or_default().to_owned();
        if let Some(port) = self.url.port() {
            host.push_str(&format!(":{port}"));
        }
        let mut message =
            format!("GET {} HTTP/1.1\r\nhost: {host}\r\n", freshet_url::path_and_query(&self.url));
        for (name, value) in &self.request_headers {
            message.push_str(&format!("{name}: {value}\r\n"));
        }
        message.push_str("\r\n");
        message.into_bytes()
    }
}

/// A redirect chain fetched hop by hop ([`Fetcher::fetch_following`]).
#[derive(Clone, Debug)]
pub struct Followed {
    /// Every request made, in order; the last is the page (or the failure) unless `stopped`.
    pub hops: Vec<Fetch>,
    /// Set when the chain ended on a redirect not taken.
    pub stopped: Option<RedirectStop>,
}

/// The fetcher: a connection pool and the configuration. Cheap to clone (the pool is shared).
#[derive(Clone, Debug)]
pub struct Fetcher {
    client: reqwest::Client,
    resolver: SafeResolver,
    config: FetchConfig,
    /// The per-IP limit's semaphores, shared by the clones.
    ip_gates: Option<Arc<IpGates>>,
}

impl Fetcher {
    /// A fetcher with `config`.
    ///
    /// # Errors
    /// [`FetchError::Client`] if the HTTP client cannot be built (TLS roots unavailable).
    pub fn new(config: FetchConfig) -> Result<Self, FetchError> {
        let resolver = SafeResolver::new(&config.resolve, config.allow_private);
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .referer(false)
            .connect_timeout(config.connect_timeout)
            .pool_idle_timeout(config.idle_timeout)
            .pool_max_idle_per_host(if config.idle_timeout.is_zero() { 0 } else { config.max_idle_per_host })
            .dns_resolver(resolver.clone())
            .build()
            .map_err(|source| FetchError::Client { message: source.to_string() })?;
        let ip_gates = config.max_in_flight_per_ip.map(|limit| Arc::new(IpGates::new(limit)));
        Ok(Self { client, resolver, config, ip_gates })
    }

    /// The configuration.
    pub fn config(&self) -> &FetchConfig {
        &self.config
    }

    /// GETs `url` once, conditionally if `validators` hold anything; never follows a redirect.
    ///
    /// # Errors
    /// [`FetchError::UnsupportedUrl`] for a URL that is not http(s) with a host (caller
    /// misuse); everything the network or the server does is an [`Outcome`].
    pub async fn fetch(&self, url: &Url, validators: &Validators) -> Result<Fetch, FetchError> {
        self.fetch_checked(url, validators, None).await
    }

    /// As [`Fetcher::fetch`], for a page of the crawl: a 2xx answer whose `Content-Type` is
    /// not one of [`FetchConfig::content_types`] is not downloaded (the request ends after its
    /// head) and is [`Outcome::UnwantedContentType`]. robots.txt and sitemaps are fetched with
    /// [`Fetcher::fetch`], whatever the filter.
    ///
    /// # Errors
    /// As [`Fetcher::fetch`].
    pub async fn fetch_page(&self, url: &Url, validators: &Validators) -> Result<Fetch, FetchError> {
        let filter = (!self.config.content_types.is_all()).then_some(&self.config.content_types);
        self.fetch_checked(url, validators, filter).await
    }

    async fn fetch_checked(
        &self,
        url: &Url,
        validators: &Validators,
        wanted: Option<&ContentTypes>,
    ) -> Result<Fetch, FetchError> {
        if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
            return Err(FetchError::UnsupportedUrl { url: url.to_string() });
        }
        if let Some(refused) = self.refused_literal(url) {
            return Ok(self.unanswered(url, validators, refused));
        }
        // The per-IP gate is passed before the clock starts (see `crate::ip_limit`).
        let _permit = match self.enter_ip_gate(url).await {
            Ok(permit) => permit,
            Err(refused) => return Ok(self.unanswered(url, validators, refused)),
        };
        let clock = Instant::now();
        let mut fetch = self.unanswered(url, validators, Outcome::Failed { message: String::new() });
        fetch.outcome = self.exchange(&mut fetch, clock, wanted).await;
        fetch.timings.total = clock.elapsed();
        Ok(fetch)
    }

    /// Waits for a permit to the address the request will go to, if there is a per-IP limit.
    /// A name that does not resolve, or resolves only to refused addresses, gives the outcome
    /// the request would have had.
    async fn enter_ip_gate(&self, url: &Url) -> Result<Option<OwnedSemaphorePermit>, Outcome> {
        let Some(gates) = &self.ip_gates else { return Ok(None) };
        let address = match url.host() {
            Some(url::Host::Ipv4(v4)) => IpAddr::V4(v4),
            Some(url::Host::Ipv6(v6)) => IpAddr::V6(v6),
            Some(url::Host::Domain(name)) => match self.resolver.lookup(name).await {
                Ok(addresses) => match addresses.first() {
                    Some(address) => *address,
                    None => return Ok(None),
                },
                Err(ResolveError::Refused(refused)) => {
                    return Err(Outcome::AddressRefused { host: refused.host, addresses: refused.addresses });
                }
                Err(ResolveError::Failed(failed)) => {
                    return Err(Outcome::DnsFailed { message: failed.to_string() });
                }
            },
            None => return Ok(None),
        };
        Ok(gates.enter(address).await)
    }

    /// The record of a request that was never sent (or not yet: `exchange` fills it in),
    /// started now.
    fn unanswered(&self, url: &Url, validators: &Validators, outcome: Outcome) -> Fetch {
        Fetch {
            url: url.clone(),
            outcome,
            request_headers: self.request_headers(validators),
            response: None,
            remote: None,
            transfer_body: Bytes::new(),
            content: None,
            truncated: None,
            fingerprint: None,
            timings: Timings { started: SystemTime::now(), first_byte: None, total: Duration::ZERO },
        }
    }

    /// GETs `url`, following redirects hop by hop: each `Location` is offered to `allow_hop`
    /// (robots.txt, scope) before it is fetched, loops and chains longer than
    /// [`FetchConfig::max_redirects`] stop the chain. `validators` go with the first request
    /// only. A crawler that must fetch robots.txt for a new host between hops drives
    /// [`RedirectChain`] itself with [`Fetcher::fetch`].
    ///
    /// # Errors
    /// As [`Fetcher::fetch`].
    pub async fn fetch_following(
        &self,
        url: &Url,
        validators: &Validators,
        mut allow_hop: impl FnMut(&Url) -> bool,
    ) -> Result<Followed, FetchError> {
        let mut chain = RedirectChain::new(url.clone(), self.config.max_redirects);
        let mut hops = vec![self.fetch(url, validators).await?];
        loop {
            let Some(Outcome::Redirect { location, .. }) = hops.last().map(|hop| &hop.outcome) else {
                return Ok(Followed { hops, stopped: None });
            };
            let next = location.clone();
            if let Err(stop) = chain.hop(next.clone()) {
                return Ok(Followed { hops, stopped: Some(stop) });
            }
            if !allow_hop(&next) {
                return Ok(Followed { hops, stopped: Some(RedirectStop::Refused { url: next }) });
            }
            hops.push(self.fetch(&next, &Validators::default()).await?);
        }
    }

    fn request_headers(&self, validators: &Validators) -> Vec<(String, String)> {
        let mut headers = vec![
            ("user-agent".to_owned(), self.config.user_agent.clone()),
            ("accept".to_owned(), "text/html,application/xhtml+xml,*/*;q=0.8".to_owned()),
            ("accept-encoding".to_owned(), ACCEPT_ENCODING.to_owned()),
        ];
        if let Some(etag) = &validators.etag {
            headers.push(("if-none-match".to_owned(), etag.clone()));
        }
        if let Some(date) = &validators.last_modified {
            headers.push(("if-modified-since".to_owned(), date.clone()));
        }
        headers
    }

    /// An IP-literal URL's address, checked here: reqwest connects to literals without asking
    /// the resolver.
    fn refused_literal(&self, url: &Url) -> Option<Outcome> {
        let address = match url.host()? {
            url::Host::Ipv4(v4) => IpAddr::V4(v4),
            url::Host::Ipv6(v6) => IpAddr::V6(v6),
            url::Host::Domain(_) => return None,
        };
        self.resolver.refuses(address).then(|| Outcome::AddressRefused {
            host: address.to_string(),
            addresses: vec![(address, freshet_url::classify(address))],
        })
    }

    /// Sends the request and reads the answer into `fetch`; returns the outcome.
    async fn exchange(&self, fetch: &mut Fetch, clock: Instant, wanted: Option<&ContentTypes>) -> Outcome {
        let mut headers = HeaderMap::new();
        for (name, value) in &fetch.request_headers {
            let (Ok(name), Ok(value)) =
                (header::HeaderName::from_bytes(name.as_bytes()), HeaderValue::from_str(value))
            else {
                return Outcome::Failed { message: format!("request header {name}: {value:?} is not valid") };
            };
            headers.insert(name, value);
        }
        // The parsed URL, not its text: reqwest would parse the text again (host, IDNA), about
        // 1.5% of a crawl's CPU (BENCHMARKS.md "Crawl throughput").
        let request = self.client.get(fetch.url.clone()).headers(headers).send();
        let head_limit = self.config.first_byte_timeout.min(self.config.total_timeout);
        let mut response = match tokio::time::timeout(head_limit, request).await {
            Err(_) => return Outcome::Timeout { phase: TimeoutPhase::FirstByte },
            Ok(Err(error)) => return outcome_of_error(&error),
            Ok(Ok(response)) => response,
        };
        fetch.timings.first_byte = Some(clock.elapsed());
        fetch.remote = response.remote_addr();
        let status = response.status().as_u16();
        let head = ResponseHead {
            status,
            version: format!("{:?}", response.version()),
            headers: response
                .headers()
                .iter()
                .map(|(name, value)| (name.as_str().to_owned(), value.as_bytes().to_vec()))
                .collect(),
        };
        let date = head.header("date").and_then(|d| httpdate::parse_http_date(d).ok());
        let status_outcome = status_outcome(&fetch.url, &head, date.unwrap_or(fetch.timings.started));
        let coding = Coding::from_header(head.header("content-encoding"));
        let content_type = head.header("content-type").map(str::to_owned);
        fetch.response = Some(head);
        if let Some(wanted) = wanted
            && status_outcome.is_ok()
            && !wanted.allows(content_type.as_deref())
        {
            // Dropping the response closes the connection without reading the body.
            return Outcome::UnwantedContentType { status, content_type: content_type.unwrap_or_default() };
        }

        let cap = self.config.max_body_bytes;
        if response.content_length().is_some_and(|length| length > cap) {
            fetch.truncated = Some(Truncated::Length);
            return Outcome::TooLarge { limit: cap, stage: SizeStage::Declared };
        }
        let cap_bytes = usize::try_from(cap).unwrap_or(usize::MAX);
        // An unknown content coding: kept verbatim for the archive, nothing to decode.
        let mut decoder = match coding {
            Ok(Coding::Identity) | Err(_) => None,
            Ok(coding) => Some(Decoder::new(coding, cap_bytes)),
        };
        let deadline = tokio::time::Instant::from_std(clock) + self.config.total_timeout;
        // Room for the declared length at once: grown chunk by chunk, a 10 KB body was
        // reallocated and copied several times. At most `PRESIZED_BODY_BYTES`, not the cap: a
        // hostile server declaring the cap on every connection, then sending nothing, would
        // otherwise have the crawler reserve the cap per fetch in flight before a byte arrived.
        let declared = response.content_length().and_then(|length| usize::try_from(length).ok());
        let presized = declared.unwrap_or(0).min(cap_bytes).min(PRESIZED_BODY_BYTES);
        let mut body = BytesMut::with_capacity(presized);
        let mut stop = None;
        loop {
            let chunk = match tokio::time::timeout_at(deadline, response.chunk()).await {
                Err(_) => {
                    fetch.truncated = Some(Truncated::Time);
                    stop = Some(Outcome::Timeout { phase: TimeoutPhase::Body });
                    break;
                }
                Ok(Err(error)) => {
                    fetch.truncated = Some(Truncated::Disconnect);
                    stop = Some(outcome_of_error(&error));
                    break;
                }
                Ok(Ok(None)) => break,
                Ok(Ok(Some(chunk))) => chunk,
            };
            let room = cap_bytes.saturating_sub(body.len());
            let fits = chunk.len() <= room;
            let piece = if fits { &chunk[..] } else { &chunk[..room] };
            body.extend_from_slice(piece);
            if let Some(active) = decoder.as_mut()
                && let Err(reason) = active.write(piece)
            {
                fetch.truncated = Some(Truncated::Length);
                stop = Some(decode_stop_outcome(reason, cap, status));
                break;
            }
            if !fits {
                fetch.truncated = Some(Truncated::Length);
                stop = Some(Outcome::TooLarge { limit: cap, stage: SizeStage::Transfer });
                break;
            }
        }
        fetch.transfer_body = body.freeze();
        match decoder {
            None if coding.is_ok() => fetch.content = Some(fetch.transfer_body.clone()),
            None => {}
            Some(mut active) => {
                if stop.is_none()
                    && let Err(reason) = active.finish()
                {
                    stop = Some(decode_stop_outcome(reason, cap, status));
                }
                fetch.content = Some(Bytes::from(active.take_output()));
            }
        }
        if let Some(stop) = stop {
            if matches!(stop, Outcome::BadContentEncoding { .. }) {
                fetch.content = None;
            }
            return stop;
        }
        if let Err(unknown) = coding
            && status_outcome.is_ok()
        {
            return Outcome::BadContentEncoding {
                status,
                message: format!("content coding {unknown:?} not supported"),
            };
        }
        fetch.fingerprint = fetch.content.as_deref().map(xxhash_rust::xxh3::xxh3_128);
        status_outcome
    }
}

/// The outcome of a complete answer: status, `Location`, `Retry-After`.
fn status_outcome(url: &Url, head: &ResponseHead, now: SystemTime) -> Outcome {
    match Outcome::from_status(head.status) {
        Outcome::BadRedirect { status, .. } => match head.header("location") {
            Some(location) => match freshet_url::resolve(url, location.trim()) {
                Ok(target) => Outcome::Redirect { status, location: target },
                Err(_) => Outcome::BadRedirect { status, location: Some(location.to_owned()) },
            },
            None => Outcome::BadRedirect { status, location: None },
        },
        Outcome::Throttled { status, .. } => Outcome::Throttled {
            status,
            retry_after: head.header("retry-after").and_then(|value| crate::parse_retry_after(value, now)),
        },
        other => other,
    }
}

fn decode_stop_outcome(reason: DecodeStop, cap: u64, status: u16) -> Outcome {
    match reason {
        DecodeStop::TooLarge => Outcome::TooLarge { limit: cap, stage: SizeStage::Decoded },
        DecodeStop::Corrupt(message) => Outcome::BadContentEncoding { status, message },
    }
}

/// The outcome of a reqwest error (connect, send or body), by walking its causes.
fn outcome_of_error(error: &reqwest::Error) -> Outcome {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(current) = cause {
        if let Some(refused) = current.downcast_ref::<AddressRefused>() {
            return Outcome::AddressRefused {
                host: refused.host.clone(),
                addresses: refused.addresses.clone(),
            };
        }
        if let Some(failed) = current.downcast_ref::<ResolveFailed>() {
            return Outcome::DnsFailed { message: failed.to_string() };
        }
        if let Some(io) = current.downcast_ref::<std::io::Error>() {
            match io.kind() {
                std::io::ErrorKind::ConnectionReset => return Outcome::ConnectionReset,
                std::io::ErrorKind::ConnectionRefused => return Outcome::ConnectionRefused,
                _ => {}
            }
        }
        cause = current.source();
    }
    if error.is_timeout() {
        return Outcome::Timeout {
            phase: if error.is_connect() { TimeoutPhase::Connect } else { TimeoutPhase::Body },
        };
    }
    Outcome::Failed { message: error_chain(error) }
}

/// An error and its causes, joined.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(current) = cause {
        text.push_str(": ");
        text.push_str(&current.to_string());
        cause = current.source();
    }
    text
}
