//! A fetch job: what the control task hands to a spawned task, and the requests that task makes.
//! The only async I/O of the crate; everything it decides was decided before it was spawned.

use std::collections::HashSet;
use std::time::Duration;

use std::sync::Arc;

use freshet_content::{BoilerplateSet, MainText, MainTextPass, Signature};
use freshet_fetch::links::{LinkOptions, PageLinks, extract_links_sharing};
use freshet_fetch::sitemap::{Sitemap, SitemapError, SitemapOptions, parse_sitemap};
use freshet_fetch::{Fetch, FetchError, Fetcher, Outcome, Validators};
use freshet_robots::Redirects;
use freshet_schedule::online::{HostId, PageId};
use freshet_url::Url;
use freshet_warc::{CaptureEncoder, EncodedCapture};
use tokio::time::Instant;

use crate::crawler::{capture_refers_to, is_archived, with_capture};
use crate::dedup::{Reference, payload_digest};
use crate::log::LogKind;
use crate::revisit::PageMemory;

/// What a job fetches.
#[derive(Clone, Debug)]
pub(crate) enum JobKind {
    /// A page the scheduler chose.
    Page {
        /// Links from a seed to it.
        depth: u32,
        /// Its last fetch (Unix seconds), for a `revisit` record if the answer is 304.
        last_fetch: Option<f64>,
        /// Stored validators for a conditional GET.
        validators: Validators,
        /// What the crawler remembers of the page (estimator state, Nutch interval…).
        memory: Box<PageMemory>,
        /// Fingerprint of the copy held (empty: none).
        fingerprint: Vec<u8>,
        /// The importance and change rate the scheduler had for it.
        weight: f64,
        change_rate: f64,
        /// Its host's boilerplate blocks when the job was made, for the signature.
        boilerplate: Arc<BoilerplateSet>,
        /// Whether its main text is read ([`CrawlConfig::main_text`](crate::CrawlConfig)).
        main_text: bool,
        /// The WARC record holding its last complete payload (see [`crate::dedup`]): an
        /// unchanged body, or a 304, is written as a revisit of it.
        held: Option<Reference>,
    },
    /// The host's robots.txt, fetched in the slot the scheduler gave to `page` (which is then
    /// handed back, unfetched, to be checked against the rules).
    Robots,
    /// A sitemap file of the host, fetched in the slot the scheduler gave to `page` (handed
    /// back unfetched, as for robots.txt), with these validators (a conditional read, see
    /// `crawler::sitemaps`), and parsed with these options.
    Sitemap(Box<SitemapOptions>, Validators),
}

impl JobKind {
    /// A page job's held capture (see [`crate::dedup`]).
    pub(crate) fn held_capture(&self) -> Option<crate::dedup::HeldCapture> {
        match self {
            Self::Page { held, .. } => held.as_ref().map(|held| held.capture),
            Self::Robots | Self::Sitemap(..) => None,
        }
    }

    /// The kind of its log lines.
    pub(crate) fn log_kind(&self) -> LogKind {
        match self {
            Self::Page { .. } => LogKind::Page,
            Self::Robots => LogKind::Robots,
            Self::Sitemap(..) => LogKind::Sitemap,
        }
    }
}

/// One job: a page or a robots.txt, on one host.
#[derive(Clone, Debug)]
pub(crate) struct Job {
    /// The page the scheduler started.
    pub(crate) page: PageId,
    /// Its host.
    pub(crate) host: HostId,
    /// The URL to request.
    pub(crate) url: Url,
    /// No request before this instant: the end of the host's previous request plus its delay.
    pub(crate) not_before: Option<Instant>,
    /// The host's delay, also kept between the hops of a robots.txt redirect chain.
    pub(crate) delay: Duration,
    /// For a page job: encodes its WARC records in the task (see [`JobResult::encoded`]).
    pub(crate) warc: Option<CaptureEncoder>,
    /// Page or robots.txt.
    pub(crate) kind: JobKind,
}

/// What a job brings back: every request it made, in order, and when the last one ended.
#[derive(Debug)]
pub(crate) struct JobResult {
    /// The requests (one for a page; one per hop for a robots.txt), or the caller's mistake.
    pub(crate) fetches: Result<Vec<Fetch>, FetchError>,
    /// When the last request ended: the host's next request waits its delay from here.
    pub(crate) ended: Instant,
    /// A sitemap job's file, parsed (after `ended`, off the control task); `None` for other
    /// jobs and for a sitemap request that brought no body to read.
    pub(crate) sitemap: Option<Result<Sitemap, SitemapError>>,
    /// A page job's HTML, read (after `ended`, off the control task).
    pub(crate) analysis: Analysis,
    /// A page job's WARC records, encoded (compressed, digested) off the control task, which
    /// appends them; `None` for other jobs and answers that are not archived.
    pub(crate) encoded: Option<EncodedPage>,
}

impl JobResult {
    /// A job that made no request, ended at `ended` (its task panicked).
    pub(crate) fn nothing(ended: Instant) -> Self {
        Self { fetches: Ok(Vec::new()), ended, sitemap: None, analysis: Analysis::default(), encoded: None }
    }
}

/// A page job's WARC records, encoded by its task.
#[derive(Debug)]
pub(crate) struct EncodedPage {
    /// The records (or why they could not be encoded).
    pub(crate) records: freshet_warc::Result<EncodedCapture>,
    /// Whether they are a revisit of the job's held capture for an identical 2xx payload: the
    /// control task appends them only if it decides the same (see `Crawler::archive_page`).
    pub(crate) same_as_held: bool,
}

/// What a page job read from a 2xx HTML body, on the fetch's own task so that the control task
/// (one core) does not parse every page: the CPU-heavy part of completing a fetch.
#[derive(Debug, Default)]
pub(crate) struct Analysis {
    /// Its links (`freshet_fetch::links`), for discovery.
    pub(crate) links: Option<PageLinks>,
    /// Its main text (`freshet_content`), for the content signature; only of a whole body.
    pub(crate) text: Option<MainText>,
    /// The signature of `text` without the blocks of the job's boilerplate set (the control
    /// task checks that its host's table still agrees for this page's blocks).
    pub(crate) signature: Option<Signature>,
}

impl Analysis {
    /// Reads `fetch`'s body if it is a 2xx HTML page: links always, main text if `main_text`
    /// and the body is whole (a cut body's signature would not compare).
    pub(crate) fn of(
        fetch: &Fetch,
        options: &LinkOptions,
        boilerplate: &BoilerplateSet,
        main_text: bool,
    ) -> Self {
        let Some(content) = fetch.content.as_ref().filter(|_| fetch.outcome.is_ok() && is_html(fetch)) else {
            return Self::default();
        };
        let content_type = fetch.response.as_ref().and_then(|head| head.header("content-type"));
        let whole = fetch.truncated.is_none();
        // One parser pass for the links and the main text where the page is UTF-8 (most are);
        // otherwise, or if that pass stopped early, the main text is read on its own from the
        // body as UTF-8 text, as `MainText::from_html` always reads it.
        let pass = (whole && main_text).then(MainTextPass::new);
        let (links, shared) = extract_links_sharing(
            &fetch.url,
            content_type,
            content,
            options,
            |settings, links| match &pass {
                Some(pass) => pass.add_handlers_with(settings, move |element, name| {
                    links.element(element, name);
                    Ok(())
                }),
                // A cut body: the links only, from the elements that carry them.
                None => links.handlers(settings),
            },
        );
        let text = match pass {
            Some(pass) if shared => Some(pass.finish(None)),
            Some(_) => Some(MainText::from_html(&String::from_utf8_lossy(content))),
            None => None,
        };
        let signature =
            text.as_ref().map(|text| Signature::of_text_without(text, |hash| boilerplate.contains(hash)));
        Self { links: Some(links), text, signature }
    }
}

/// Whether the answer is HTML (`text/html`, `application/xhtml+xml`, or no `Content-Type`).
pub(crate) fn is_html(fetch: &Fetch) -> bool {
    let content_type = fetch.response.as_ref().and_then(|head| head.header("content-type"));
    content_type.is_none_or(|value| {
        let value = value.to_ascii_lowercase();
        value.starts_with("text/html") || value.starts_with("application/xhtml+xml")
    })
}

impl Job {
    /// Waits for the host's turn, then makes the requests; reads a page's HTML with `links`.
    pub(crate) async fn run(self, fetcher: Fetcher, links: Arc<LinkOptions>) -> JobResult {
        if let Some(not_before) = self.not_before {
            tokio::time::sleep_until(not_before).await;
        }
        // The crate's own tests' stand-in for a bug that some page's bytes reach
        // (`crawler::panic_tests`); not compiled into the crate.
        #[cfg(test)]
        assert!(self.url.path() != "/panic-here", "a test's stand-in for a bug, at {}", self.url);
        let fetches = match &self.kind {
            JobKind::Page { validators, .. } => {
                fetcher.fetch_page(&self.url, validators).await.map(|f| vec![f])
            }
            JobKind::Robots => robots_chain(&fetcher, self.url.clone(), self.delay).await,
            JobKind::Sitemap(_, validators) => fetcher.fetch(&self.url, validators).await.map(|f| vec![f]),
        };
        let ended = Instant::now();
        let sitemap = match (&self.kind, &fetches) {
            (JobKind::Sitemap(options, _), Ok(fetches)) => match fetches.first() {
                Some(fetch) => parse_fetched_sitemap(fetch, options).await,
                None => None,
            },
            _ => None,
        };
        let (analysis, encoded) = match (&self.kind, &fetches, fetches.as_ref().ok().and_then(|f| f.first()))
        {
            (JobKind::Page { last_fetch, boilerplate, held, main_text, .. }, Ok(_), Some(fetch)) => {
                let encoded = match &self.warc {
                    Some(encoder) if is_archived(fetch) => {
                        // The body's digest only where there is a held payload to compare with:
                        // a page's first fetch pays no second SHA-1.
                        let payload = held.as_ref().and_then(|_| payload_digest(fetch));
                        let same_as_held = fetch.outcome.is_ok()
                            && held.as_ref().is_some_and(|held| payload == Some(held.capture.payload_digest));
                        capture_refers_to(fetch, self.url.as_str(), *last_fetch, held.as_ref(), payload)
                            .and_then(|refers_to| {
                                with_capture(fetch, refers_to, |capture| encoder.encode(capture))
                            })
                            .transpose()
                            .map(|records| EncodedPage { records, same_as_held })
                    }
                    _ => None,
                };
                (Analysis::of(fetch, &links, boilerplate, *main_text), encoded)
            }
            _ => (Analysis::default(), None),
        };
        JobResult { fetches, ended, sitemap, analysis, encoded }
    }
}

/// Parses a fetched sitemap on a blocking thread (a 50,000-URL file takes about a quarter of a
/// second: BENCHMARKS.md, "Sitemap parsing"), so that neither the control task nor the other
/// fetches wait for it. Read: a 2xx body, and the first bytes of one cut at the fetcher's cap
/// (what was read before the cut is kept, the parser reports where it stopped). `None` for any
/// other answer.
async fn parse_fetched_sitemap(
    fetch: &Fetch,
    options: &SitemapOptions,
) -> Option<Result<Sitemap, SitemapError>> {
    let body = match (&fetch.outcome, &fetch.content) {
        (Outcome::Ok { .. } | Outcome::TooLarge { .. }, Some(content)) => content.clone(),
        _ => return None,
    };
    let (url, options) = (fetch.url.clone(), options.clone());
    let parsed = tokio::task::spawn_blocking(move || parse_sitemap(&body, &url, &options)).await;
    Some(parsed.unwrap_or_else(|error| {
        Err(SitemapError::Unreadable { reason: format!("the parser failed: {error}") })
    }))
}

/// Fetches a robots.txt, following up to five redirects (RFC 9309 §2.3.1.2), waiting `delay`
/// between hops; a loop ends the chain. The caller reads the last hop: a redirect there means
/// "too many redirects", which the RFC lets a crawler treat as unavailable.
async fn robots_chain(fetcher: &Fetcher, start: Url, delay: Duration) -> Result<Vec<Fetch>, FetchError> {
    let mut redirects = Redirects::default();
    let mut seen = HashSet::from([start.clone()]);
    let mut hops = vec![fetcher.fetch(&start, &Validators::default()).await?];
    loop {
        let Some(Outcome::Redirect { location, .. }) = hops.last().map(|hop| &hop.outcome) else {
            return Ok(hops);
        };
        let next = location.clone();
        if !seen.insert(next.clone()) || !redirects.follow() {
            return Ok(hops);
        }
        tokio::time::sleep(delay).await;
        hops.push(fetcher.fetch(&next, &Validators::default()).await?);
    }
}
