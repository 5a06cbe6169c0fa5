//! What the control task does with a finished job: WARC records, the log line, the store's
//! completion and the discovered links (queued for the group commit), the scheduler told.

use std::time::SystemTime;

use freshet_fetch::links::{LinkOptions, extract_links};
use freshet_fetch::{Fetch, Outcome, Truncated, Validators};
use freshet_frontier::{Completion, FrontierStore as _, HostPoliteness, Op};
use freshet_robots::{FetchOutcome, RobotsEntry};
use freshet_schedule::online::{Outcome as Done, Politeness};
use freshet_warc::{Capture, CaptureResponse, RefersTo, Truncation, WarcDate};

use super::{Crawler, parse_stored, unix_now};
use crate::error::Result;
use crate::hosts::Verdict;
use crate::job::{Job, JobKind, JobResult};
use crate::log::{LogKind, LogLine};

/// A log timestamp: RFC 3339 in UTC (as `WARC-Date` writes it).
pub(super) fn log_time(time: SystemTime) -> String {
    WarcDate::from_system_time(time).map(|date| date.to_string()).unwrap_or_default()
}

impl Crawler {
    /// Handles a job that ran to its end.
    pub(super) fn complete(&mut self, job: Job, result: JobResult) -> Result<()> {
        let now = unix_now();
        let fetches = match result.fetches {
            Ok(fetches) => fetches,
            Err(error) => {
                // Only an unsupported URL gets here, which the canonical store cannot hold.
                self.log.write(&LogLine {
                    time: log_time(SystemTime::now()),
                    kind: if matches!(job.kind, JobKind::Robots) { LogKind::Robots } else { LogKind::Page },
                    url: job.url.to_string(),
                    status: None,
                    bytes: 0,
                    duration_ms: 0.0,
                    fingerprint: None,
                    outcome: "unsupported-url".into(),
                    detail: Some(error.to_string()),
                    links: None,
                })?;
                Vec::new()
            }
        };
        match job.kind {
            JobKind::Robots => self.robots_done(&job, &fetches, result.ended, now),
            JobKind::Page { depth, last_fetch, ref validators } => {
                let state = self.host_mut(job.host)?;
                state.not_before = Some(result.ended + state.delay);
                match fetches.first() {
                    Some(fetch) => self.page_done(&job, fetch, depth, last_fetch, validators, now),
                    None => self.finish_page(&job, None, validators, Done::Failed, now),
                }
            }
        }
    }

    fn page_done(
        &mut self,
        job: &Job,
        fetch: &Fetch,
        depth: u32,
        last_fetch: Option<f64>,
        validators: &Validators,
        now: f64,
    ) -> Result<()> {
        self.archive(fetch, last_fetch)?;
        self.summary.pages += 1;
        self.summary.bytes += fetch.transfer_body.len() as u64;
        let mut line = fetch_line(LogKind::Page, fetch);
        match &fetch.outcome {
            Outcome::Throttled { retry_after, .. } => {
                let count = self.back_offs.entry(job.page).or_insert(0);
                *count += 1;
                if *count <= self.config.max_back_offs {
                    let wait = retry_after.unwrap_or(self.config.default_back_off);
                    line.detail =
                        Some(format!("back-off {} of {}: {wait:?}", count, self.config.max_back_offs));
                    self.summary.not_ok += 1;
                    self.log.write(&line)?;
                    let retry_after = wait.as_secs_f64();
                    return self
                        .scheduler
                        .fetched(job.page, Done::BackOff { retry_after }, now)
                        .map_err(Into::into);
                }
                line.detail = Some(format!("given up after {} back-offs", self.config.max_back_offs));
            }
            Outcome::Ok { .. } => {
                if let Some(content) = fetch.content.as_ref().filter(|_| is_html(fetch)) {
                    let options =
                        LinkOptions { robots_agent: Some(self.agent.clone()), ..LinkOptions::default() };
                    let content_type = fetch.response.as_ref().and_then(|head| head.header("content-type"));
                    let found = extract_links(&fetch.url, content_type, content, &options);
                    line.links = Some(found.links.len());
                    for link in found.links {
                        self.discover(link.url, depth + 1, Some(job.page));
                    }
                }
            }
            Outcome::Redirect { location, .. } => {
                // The target is a link like any other: it goes through scope, the seen set,
                // robots.txt and its host's politeness.
                self.discover(location.clone(), depth + 1, Some(job.page));
            }
            _ => {}
        }
        let ok = matches!(fetch.outcome, Outcome::Ok { .. } | Outcome::NotModified);
        if !ok {
            self.summary.not_ok += 1;
        }
        self.log.write(&line)?;
        self.finish_page(job, Some(fetch), validators, if ok { Done::Fetched } else { Done::Failed }, now)
    }

    /// The page is done for this crawl: completed in the store (not due again: see the crate
    /// docs on revisits), out of the scheduler, its host's slot released.
    fn finish_page(
        &mut self,
        job: &Job,
        fetch: Option<&Fetch>,
        validators: &Validators,
        done: Done,
        now: f64,
    ) -> Result<()> {
        let received = fetch
            .and_then(|fetch| fetch.response.as_ref())
            .map(|head| Validators::from_headers(&head.headers));
        let received = received.unwrap_or_default();
        let fetched_at = fetch.map_or(now, |fetch| to_unix(fetch.timings.started));
        self.pending.push(Op::Complete(Completion {
            page: job.page,
            fetched_at,
            weight: 1.0,
            change_rate: self.config.change_rate_prior,
            next_due: None,
            etag: received.etag.or_else(|| validators.etag.clone()),
            last_modified: received.last_modified.or_else(|| validators.last_modified.clone()),
            fingerprint: fetch
                .and_then(|fetch| fetch.fingerprint)
                .map(|f| f.to_be_bytes().to_vec())
                .unwrap_or_default(),
            estimator: Vec::new(),
        }));
        self.back_offs.remove(&job.page);
        self.scheduler.remove(job.page)?;
        self.scheduler.fetched(job.page, done, now)?;
        Ok(())
    }

    /// A robots.txt fetched: every hop archived and logged, the entry updated, the delay raised
    /// to `Crawl-delay`, the page whose slot it used handed back, and the pages admitted
    /// before it checked.
    fn robots_done(
        &mut self,
        job: &Job,
        fetches: &[Fetch],
        ended: tokio::time::Instant,
        now: f64,
    ) -> Result<()> {
        for fetch in fetches {
            self.archive(fetch, None)?;
            self.summary.robots += 1;
            self.summary.bytes += fetch.transfer_body.len() as u64;
            self.log.write(&fetch_line(LogKind::Robots, fetch))?;
        }
        let outcome = robots_outcome(fetches.last());
        let policy = self.config.robots_cache;
        let agent = self.agent.clone();
        let configured = self.config.delay;
        let state = self.host_mut(job.host)?;
        match &mut state.robots {
            Some(entry) => entry.record(outcome, now, &policy),
            None => state.robots = Some(RobotsEntry::new(outcome, now, &policy)),
        }
        let crawl_delay = state.robots.as_ref().and_then(|entry| entry.access().crawl_delay(&agent));
        let delay = configured.max(crawl_delay.unwrap_or_default());
        state.not_before = Some(ended + delay);
        let changed = delay != state.delay;
        state.delay = delay;
        if let Some(Outcome::AddressRefused { host, addresses }) = fetches.last().map(|fetch| &fetch.outcome)
        {
            state.refused = Some(format!("{host}: {addresses:?}"));
        }
        let unchecked = std::mem::take(&mut state.unchecked);
        if changed {
            let min_delay = delay.as_secs_f64();
            self.scheduler.set_host(job.host, Politeness { min_delay, max_rate: f64::INFINITY })?;
            let politeness = HostPoliteness { min_delay, ..HostPoliteness::default() };
            self.pending.push(Op::SetHost { host: job.host, politeness });
        }
        self.scheduler.fetched(job.page, Done::BackOff { retry_after: 0.0 }, now)?;
        for page in unchecked {
            let stored = self.store.page(page)?;
            let Some(stored) = stored.filter(|stored| stored.record.next_due.is_some()) else { continue };
            let url = parse_stored(&stored)?;
            let state = self.host_mut(job.host)?;
            match state.verdict(&agent, freshet_url::path_and_query(&url), now) {
                verdict @ (Verdict::Disallowed | Verdict::Refused) => self.skip(page, &url, verdict)?,
                Verdict::Unknown | Verdict::WaitUntil(_) => state.unchecked.push(page),
                Verdict::Allowed => {}
            }
        }
        Ok(())
    }

    /// Writes the WARC records of a fetch that got an answer: request and response, or request
    /// and a `revisit` (server-not-modified) for a 304 to a conditional GET.
    fn archive(&mut self, fetch: &Fetch, last_fetch: Option<f64>) -> Result<()> {
        let Some(message) = fetch.response_message() else { return Ok(()) };
        let request = fetch.request_message();
        let date = WarcDate::from_system_time(fetch.timings.started)?;
        let target_uri = fetch.url.as_str();
        let response = match (&fetch.outcome, last_fetch) {
            (Outcome::NotModified, Some(last)) => CaptureResponse::NotModified {
                message: &message,
                refers_to: RefersTo {
                    target_uri,
                    date: WarcDate::from_system_time(
                        SystemTime::UNIX_EPOCH + std::time::Duration::from_secs_f64(last.max(0.0)),
                    )?,
                    record_id: None,
                },
            },
            _ => CaptureResponse::Full { message: &message, truncated: fetch.truncated.map(truncation) },
        };
        let ip_address = fetch.remote.map(|remote| remote.ip());
        self.warc.write_capture(&Capture { target_uri, date, ip_address, request: &request, response })?;
        self.warc_dirty = true;
        Ok(())
    }
}

/// What a robots.txt chain's last answer means (RFC 9309 §2.3.1). A 2xx whose body could not
/// be decoded is unreachable (not "empty, allow all"); a chain that ends on a redirect is
/// unavailable (too many redirects, §2.3.1.2).
fn robots_outcome(last: Option<&Fetch>) -> FetchOutcome<'_> {
    let Some(fetch) = last else { return FetchOutcome::Unreachable };
    let Some(head) = &fetch.response else { return FetchOutcome::Unreachable };
    match (&fetch.outcome, &fetch.content) {
        // A body cut at the cap: its first bytes are what the parser reads anyway (500 KiB).
        (Outcome::Ok { .. } | Outcome::TooLarge { .. }, Some(content)) => FetchOutcome::Fetched(content),
        _ if (200..300).contains(&head.status) => FetchOutcome::Unreachable,
        _ => FetchOutcome::from_status(head.status, &[]),
    }
}

fn is_html(fetch: &Fetch) -> bool {
    let content_type = fetch.response.as_ref().and_then(|head| head.header("content-type"));
    content_type.is_none_or(|value| {
        let value = value.to_ascii_lowercase();
        value.starts_with("text/html") || value.starts_with("application/xhtml+xml")
    })
}

fn truncation(truncated: Truncated) -> Truncation {
    match truncated {
        Truncated::Length => Truncation::Length,
        Truncated::Time => Truncation::Time,
        Truncated::Disconnect => Truncation::Disconnect,
    }
}

fn to_unix(time: SystemTime) -> f64 {
    time.duration_since(SystemTime::UNIX_EPOCH).map_or(0.0, |since| since.as_secs_f64())
}

/// The log line of one request.
fn fetch_line(kind: LogKind, fetch: &Fetch) -> LogLine {
    let detail = match &fetch.outcome {
        Outcome::Redirect { location, .. } => Some(location.to_string()),
        Outcome::BadRedirect { location, .. } => location.clone(),
        Outcome::Throttled { retry_after, .. } => retry_after.map(|after| format!("retry-after {after:?}")),
        Outcome::Timeout { phase } => Some(format!("{phase:?}")),
        Outcome::TooLarge { limit, stage } => Some(format!("{stage:?} size over {limit} bytes")),
        Outcome::BadContentEncoding { message, .. }
        | Outcome::DnsFailed { message }
        | Outcome::Failed { message } => Some(message.clone()),
        Outcome::AddressRefused { host, addresses } => Some(format!("{host}: {addresses:?}")),
        _ => None,
    };
    LogLine {
        time: log_time(fetch.timings.started),
        kind,
        url: fetch.url.to_string(),
        status: fetch.response.as_ref().map(|head| head.status),
        bytes: fetch.transfer_body.len() as u64,
        duration_ms: fetch.timings.total.as_secs_f64() * 1000.0,
        fingerprint: fetch.fingerprint.map(|fingerprint| format!("{fingerprint:032x}")),
        outcome: fetch.outcome.name().into(),
        detail,
        links: None,
    }
}
