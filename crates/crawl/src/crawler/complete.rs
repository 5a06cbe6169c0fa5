//! What the control task does with a finished job: WARC records, the log line, the store's
//! completion and the discovered links (queued for the group commit), the scheduler told.

use std::sync::Arc;
use std::time::SystemTime;

use freshet_content::{BoilerplateSet, MainText, NearMatch, Signature};
use freshet_fetch::{Fetch, Outcome, SizeStage, TimeoutPhase, Truncated, Validators};
use freshet_frontier::{Completion, FrontierStore as _, Op};
use freshet_robots::{FetchOutcome, RobotsEntry};
use freshet_schedule::online::PageId;
use freshet_schedule::online::{Outcome as Done, Politeness};
use freshet_warc::{Capture, CaptureResponse, Digest, RefersTo, Truncation, WarcDate};

use super::adapt::note_delay_change;
use super::{Crawler, parse_stored, sitemaps, unix_now};
use crate::capacity::DelayChange;
use crate::dedup::{HeldCapture, Reference, payload_digest};
use crate::error::Result;
use crate::hosts::Verdict;
use crate::job::{Analysis, EncodedPage, Job, JobKind, JobResult};
use crate::log::{LogKind, LogLine};
use crate::revisit::{self, ContentCheck, PageMemory, Revisit};

/// A log timestamp: RFC 3339 in UTC (as `WARC-Date` writes it).
pub(crate) fn log_time(time: SystemTime) -> String {
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
                let line = LogLine::no_request(
                    job.kind.log_kind(),
                    job.url.as_str(),
                    "unsupported-url",
                    error.to_string(),
                );
                self.log.write(&line)?;
                Vec::new()
            }
        };
        match job.kind {
            JobKind::Robots => self.robots_done(&job, &fetches, result.ended, now),
            JobKind::Sitemap(..) => self.sitemap_done(&job, &fetches, result.sitemap, result.ended, now),
            JobKind::Page { depth, .. } => {
                let change = self.adapt_host_delay(job.host, fetches.first().map(|fetch| &fetch.outcome))?;
                let state = self.host_mut(job.host)?;
                state.not_before = Some(result.ended + state.delay);
                match fetches.first() {
                    Some(fetch) => {
                        let fetched = Fetched { fetch, analysis: result.analysis, encoded: result.encoded };
                        self.page_done(&job, fetched, depth, now, change)
                    }
                    None => {
                        let held = job.kind.held_capture();
                        self.finish_page(&job, None, None, held, Done::Failed, now).map(|_| ())
                    }
                }
            }
        }
    }

    fn page_done(
        &mut self,
        job: &Job,
        fetched: Fetched<'_>,
        depth: u32,
        now: f64,
        delay_change: Option<DelayChange>,
    ) -> Result<()> {
        let Fetched { fetch, analysis, encoded } = fetched;
        let trail = self.redirect_trails.remove(job.url.as_str());
        let archived = if is_archived(fetch) {
            self.archive_page(job, fetch, encoded)?
        } else {
            Archived { capture: job.kind.held_capture(), note: None }
        };
        self.summary.pages += 1;
        self.summary.bytes += fetch.transfer_body.len() as u64;
        let mut line = fetch_line(LogKind::Page, fetch);
        if let Some(note) = archived.note {
            line.add_detail(note);
        }
        match &fetch.outcome {
            Outcome::Throttled { retry_after, .. } => {
                let count = self.back_offs.entry(job.page).or_insert(0);
                *count += 1;
                let wait = retry_after.unwrap_or(self.config.default_back_off);
                let (once, cap) = (self.config.revisit == Revisit::Once, self.config.max_retry_after);
                if once && wait > cap {
                    // Neither sooner than asked nor never ending: the host is given up (its
                    // pages are skipped when they come up), this page with it.
                    line.detail = Some(format!(
                        "retry-after {wait:?} is longer than max-retry-after ({cap:?}): the host is given up for this crawl"
                    ));
                    let state = self.host_mut(job.host)?;
                    state.throttled_out = true;
                    state.retry_after_until = Some(now + wait.as_secs_f64());
                    let politeness = state.stored_politeness(now);
                    self.pending.push(Op::SetHost { host: job.host, politeness });
                } else if *count <= self.config.max_back_offs {
                    line.detail =
                        Some(format!("back-off {} of {}: {wait:?}", count, self.config.max_back_offs));
                    self.summary.not_ok += 1;
                    note_delay_change(&mut line, delay_change);
                    self.log.write(&line)?;
                    let retry_after = wait.as_secs_f64();
                    let state = self.host_mut(job.host)?;
                    state.retry_after_until =
                        Some(state.retry_after_until.unwrap_or(now).max(now + retry_after));
                    // Stored with this answer's group commit: a resume after `kill -9` waits too.
                    let politeness = state.stored_politeness(now);
                    self.pending.push(Op::SetHost { host: job.host, politeness });
                    return self
                        .scheduler
                        .fetched(job.page, Done::BackOff { retry_after }, now)
                        .map_err(Into::into);
                } else {
                    line.detail = Some(format!("given up after {} back-offs", self.config.max_back_offs));
                }
            }
            Outcome::Ok { .. } => {
                // A focused crawl's score of the page: its topic words in its main text.
                if let Some(gate) = &mut self.focus {
                    let score =
                        analysis.text.as_ref().map_or(0.0, |text| gate.words.count_words(text.words()));
                    gate.scored(job.page, score);
                    line.topic_score = Some(score as u32);
                }
                let first = self.pending_urls.len();
                if let Some(found) = analysis.links {
                    line.links = Some(found.links.len());
                    if let Some(canonical) =
                        self.canonical_alias_of(job, found.canonical.as_ref(), depth, now)?
                    {
                        self.summary.canonical_aliases += 1;
                        let revisited = if self.config.revisit_canonical_aliases {
                            "revisited as any page (revisit-canonical-aliases)"
                        } else {
                            "not revisited"
                        };
                        line.add_detail(format_args!("rel=canonical names {canonical}: {revisited}"));
                        self.canonical_aliases.insert(job.page);
                    }
                    if let Some(max) =
                        self.config.max_depth.filter(|&max| depth >= max && !found.links.is_empty())
                    {
                        line.add_detail(format!("links not followed: past the max depth of {max}"));
                    }
                    let too_long = self.summary.too_long;
                    let anchor_texts = found.anchor_texts;
                    for (index, link) in found.links.into_iter().enumerate() {
                        let before = self.pending_urls.len();
                        self.discover(link.url, depth + 1, Some(job.page))?;
                        // A focused crawl's score of the link: its topic words in its anchors.
                        if let Some(gate) = &self.focus
                            && self.pending_urls.len() > before
                            && let Some(text) = anchor_texts.get(index)
                        {
                            let score = gate.words.count_in_text(text);
                            if score > 0.0 {
                                self.link_scores.resize(before, 0.0);
                                self.link_scores.push(score);
                            }
                        }
                    }
                    let too_long = self.summary.too_long - too_long;
                    if too_long > 0 {
                        let note = format!(
                            "{too_long} links not followed: longer than {} bytes",
                            freshet_frontier::limits::URL_BYTES
                        );
                        line.add_detail(note);
                    }
                }
                self.link_sources.push((job.page, first..self.pending_urls.len()));
            }
            Outcome::NotModified => {
                let links = self.cached_links(job.page);
                self.follow_links(job.page, links, true);
            }
            Outcome::Redirect { location, .. } => {
                // The target is a link like any other: it goes through scope, the seen set,
                // robots.txt and its host's politeness. Importance follows it whole.
                // A chain is followed hop by hop through the frontier, so its URLs are
                // remembered here: a loop or more than `max_redirects` hops in a row stop it.
                let mut trail = trail.unwrap_or_default();
                trail.push(job.url.to_string());
                let max = self.config.fetch.max_redirects;
                if trail.iter().any(|url| url == location.as_str()) {
                    line.detail = Some(format!(
                        "{location}: redirect loop (already requested in this chain of {} redirects), not followed",
                        trail.len()
                    ));
                } else if trail.len() > max {
                    line.detail = Some(format!(
                        "{location}: too many redirects ({} in a row, the limit is {max}), not followed",
                        trail.len()
                    ));
                } else if !super::storable_url(location) {
                    line.detail = Some(format!(
                        "{}…: a redirect target longer than {} bytes, not followed",
                        location.as_str().chars().take(200).collect::<String>(),
                        freshet_frontier::limits::URL_BYTES
                    ));
                    self.summary.too_long += 1;
                } else {
                    let first = self.pending_urls.len();
                    self.discover(location.clone(), depth + 1, Some(job.page))?;
                    self.link_sources.push((job.page, first..self.pending_urls.len()));
                    if let Some(gate) = &mut self.focus {
                        gate.redirect_from(job.page);
                    }
                    // Remembered only for a target queued for admission (one out of scope or
                    // past the depth limit is never admitted, and its trail would stay).
                    // The trail goes into the store with the target (kept until its first
                    // fetch), so that a resumed crawl continues the chain's count.
                    if self.pending_urls.len() > first {
                        if let Some(Op::Discover(discovery)) = self.pending.last_mut() {
                            discovery.redirect_trail.clone_from(&trail);
                        }
                        self.redirect_trails.insert(location.to_string(), trail);
                    }
                }
            }
            _ => {}
        }
        let ok = matches!(fetch.outcome, Outcome::Ok { .. } | Outcome::NotModified);
        if !ok {
            self.summary.not_ok += 1;
        }
        note_delay_change(&mut line, delay_change);
        let done = if ok { Done::Fetched } else { Done::Failed };
        let text = analysis.text.map(|text| (text, analysis.signature));
        // Before the line is written, so that it can name a near-duplicate (the line and the
        // page's completion reach the disk together, at the next group commit).
        let finished = self.finish_page(job, Some(fetch), text, archived.capture, done, now)?;
        if let Some(note) = finished.note {
            line.add_detail(note);
        }
        if let Some(near) = finished.near {
            self.summary.near_duplicates += 1;
            let url = self.page_url(PageId(near.page))?.unwrap_or_else(|| format!("page {}", near.page));
            line.add_detail(format_args!(
                "near-duplicate of {url} (main text's SimHash {} of 64 bits apart)",
                near.distance
            ));
        }
        self.log.write(&line)
    }

    /// The page's fetch is over: what it teaches goes into its memory and its change-rate
    /// estimate (see [`crate::revisit`]), the store's completion is queued for the group
    /// commit, and the scheduler hears the outcome with the page's new `(w, λ)` — or, if the
    /// page is not to be revisited (a one-pass crawl, a page gone, too many failures), the page
    /// leaves the scheduler and its completion has no next due time. Returns the page fetched
    /// before whose main text the page's first fetch nearly repeats, if any, and a note for
    /// the page's log line.
    fn finish_page(
        &mut self,
        job: &Job,
        fetch: Option<&Fetch>,
        text: Option<(MainText, Option<Signature>)>,
        capture: Option<HeldCapture>,
        done: Done,
        now: f64,
    ) -> Result<Finished> {
        let JobKind::Page { validators, memory, fingerprint, weight, change_rate, boilerplate, .. } =
            &job.kind
        else {
            return Ok(Finished::default());
        };
        let received = fetch
            .and_then(|fetch| fetch.response.as_ref())
            .map(|head| Validators::from_headers(&head.headers))
            .unwrap_or_default();
        // A validator the store cannot keep (too long, a control character) is dropped with
        // the old one: the page's next request is unconditional.
        let etag = match received.etag {
            Some(etag) => super::storable_validator(etag),
            None => validators.etag.clone(),
        };
        let last_modified = match received.last_modified {
            Some(last_modified) => super::storable_validator(last_modified),
            None => validators.last_modified.clone(),
        };
        let fetched_at = fetch.map_or(now, |fetch| to_unix(fetch.timings.started));
        let outcome = fetch.map(|fetch| &fetch.outcome);
        let not_modified = matches!(outcome, Some(Outcome::NotModified));
        let content = not_modified || matches!(outcome, Some(Outcome::Ok { .. }));
        let mut memory = **memory;
        memory.capture = capture;
        let (new_fingerprint, near) = match fetch {
            Some(fetch) if fetch.outcome.is_ok() => {
                let first_fetch = memory.last_content.is_none();
                self.content_fingerprint(job, fetch, text, boilerplate, first_fetch)?
            }
            _ => (fingerprint.clone(), None),
        };
        self.carrier_fetched(job.page, job.host)?;
        // A page a sitemap said changed: the fetch checks the sitemap's word, and if it was
        // right, the observation is the sitemap's (see `revisit::observe_sitemap_change`).
        let told = self.sitemap_told.remove(&job.page).map(|told| told.word);
        let memory_before_fetch = memory.last_content;
        // A page a trusted read vouched for: the read's word is part of the observation (see
        // `revisit::observe_after_vouch`), and a change its Last-Modified dates before the
        // read is one the sitemap missed.
        let vouched = self.vouched.contains(job.page.0 as usize);
        if vouched {
            self.vouched.set(job.page.0 as usize, false);
        }
        let vouched_at =
            if vouched && told.is_none() { self.host_mut(job.host)?.sitemaps.latest_read() } else { None };
        let observation = content.then(|| {
            let check = ContentCheck::of(not_modified, fingerprint, &new_fingerprint);
            let modified = last_modified.as_deref().and_then(http_date_unix);
            let observed = match told {
                Some(told) if check == ContentCheck::Changed => {
                    revisit::observe_sitemap_change(&mut memory, told, fetched_at)
                }
                _ => match vouched_at {
                    Some(read) if !sitemaps::missed_change(memory.last_content, modified, Some(read)) => {
                        revisit::observe_after_vouch(&mut memory, read, fetched_at, check, modified)
                    }
                    _ => revisit::observe(&mut memory, fetched_at, check, modified),
                },
            };
            (check, observed)
        });
        let mut note = None;
        if vouched_at.is_some() && matches!(observation, Some((ContentCheck::Changed, _))) {
            let modified = last_modified.as_deref().and_then(http_date_unix);
            note = self.check_vouch(job.host, memory_before_fetch, modified)?;
        }
        if told.is_some()
            && let Some((check @ (ContentCheck::Changed | ContentCheck::Unchanged), _)) = observation
        {
            let changed = check == ContentCheck::Changed;
            self.summary.sitemap_changes_confirmed += u64::from(changed);
            let trust = &mut self.host_mut(job.host)?.sitemaps.trust;
            if trust.record(changed) {
                let checks = trust.describe();
                let withdrawn = self.withdraw_told(job.host, now)?;
                note = Some(format!(
                    "the host's sitemap lastmods are ignored for the rest of the run: {checks}; \
                     {withdrawn} pages they made due wait for their turn again"
                ));
                self.summary.sitemap_lastmods_ignored += 1;
            }
        }
        // Gone (4xx but 429, which is a back-off), moved (a redirect: its target is a page of
        // its own), not wanted (its content type), or failing again and again: not revisited.
        let gone = matches!(
            outcome,
            Some(
                Outcome::ClientError { .. }
                    | Outcome::Redirect { .. }
                    | Outcome::BadRedirect { .. }
                    | Outcome::AddressRefused { .. }
                    | Outcome::UnwantedContentType { .. }
            )
        );
        if !content && !gone {
            memory.failures = memory.failures.saturating_add(1);
        }
        // A failure that may pass (a timeout, a 5xx, a reset, no answer at all) is tried
        // again, up to `max_failures` in a row, in a one-pass crawl too; one that will not (a
        // body over the cap, a broken coding) waits for the page's next revisit, if any.
        let transient = outcome.is_none_or(|outcome| {
            matches!(
                outcome,
                Outcome::Timeout { .. }
                    | Outcome::ServerError { .. }
                    | Outcome::Throttled { .. }
                    | Outcome::ConnectionReset
                    | Outcome::ConnectionRefused
                    | Outcome::DnsFailed { .. }
                    | Outcome::Failed { .. }
            )
        });
        let retry = !content && !gone && transient && memory.failures < self.config.max_failures;
        // A variant of another URL of its host (`<link rel=canonical>`) is not revisited: the
        // canonical URL is, as a page of its own.
        let alias = self.canonical_aliases.remove(&job.page) && !self.config.revisit_canonical_aliases;
        let keep = match self.config.revisit {
            Revisit::Once => retry,
            _ if alias => false,
            _ => content || (!gone && memory.failures < self.config.max_failures),
        };
        let had_data = job_had_data(&job.kind);
        memory.opic_history = self.weights.history(job.page.0);
        let (new_weight, new_rate) = if keep {
            let importance = match &self.focus {
                Some(gate) => gate.weight(job.page),
                None => self.weights.weight(job.page.0, job.url.as_str()),
            };
            self.revisit_parameters(job.host, &mut memory, observation, (importance, *change_rate), had_data)
        } else {
            if had_data && self.config.revisit == Revisit::Freshet {
                self.host_rates_mut(job.host).remove(*change_rate);
            }
            (*weight, *change_rate)
        };
        self.pending.push(Op::Complete(Completion {
            page: job.page,
            fetched_at,
            weight: new_weight,
            change_rate: new_rate,
            next_due: keep.then_some(fetched_at),
            etag,
            last_modified,
            fingerprint: new_fingerprint,
            estimator: memory.to_bytes(),
        }));
        self.back_offs.remove(&job.page);
        if keep {
            // While the page is in flight `update` only sets its numbers; `fetched` queues it.
            self.scheduler.update(job.page, new_weight, new_rate)?;
        } else {
            self.scheduler.remove(job.page)?;
        }
        let done = if retry && self.config.revisit == Revisit::Once {
            // A one-pass crawl has no revisit interval to wait: the page is tried again after
            // a pause that doubles with each failure (the host's delay, at least 0.1 s, times
            // 2, 4…, at most the back-off), keeping its value, as after a 429.
            let pause =
                self.config.delay.as_secs_f64().max(0.1) * f64::from(1_u32 << memory.failures.min(16));
            Done::BackOff { retry_after: pause.min(self.config.default_back_off.as_secs_f64()) }
        } else {
            done
        };
        self.scheduler.fetched(job.page, done, now)?;
        // In a focused crawl the host may take its next best new page.
        self.focus_settled(job.page, job.host)?;
        Ok(Finished { near, note })
    }

    /// The fingerprint of a 2xx body: the main-text signature of an HTML page (`text`, read
    /// by the job: `freshet-content`, markup, scripts, noise elements and the host's
    /// boilerplate left out), else the xxh3-128 of the body (empty if the body is incomplete).
    /// A page's first fetch also teaches its host's boilerplate table (only the first, so that
    /// a page fetched often does not count as many pages).
    ///
    /// The job computed the signature with the host's boilerplate set of its start
    /// (`job_set`); it is taken when the table says the same of every block of the page now,
    /// so it is the signature the table gives. Else it is computed again here, and the host's
    /// set, found out of date, is taken anew.
    ///
    /// A first fetch's signature is also looked up in the near-duplicate index (see
    /// [`crate::dedup`]): the page it nearly repeats is returned; a page that repeats none is
    /// indexed, so that the index holds one page of each group of near-duplicates.
    fn content_fingerprint(
        &mut self,
        job: &Job,
        fetch: &Fetch,
        text: Option<(MainText, Option<Signature>)>,
        job_set: &Arc<BoilerplateSet>,
        first_fetch: bool,
    ) -> Result<(Vec<u8>, Option<NearMatch>)> {
        let Some((text, job_signature)) = text else {
            let print = fetch.fingerprint.map(|print| print.to_be_bytes().to_vec()).unwrap_or_default();
            return Ok((print, None));
        };
        let state = self.host_mut(job.host)?;
        let signature = match job_signature {
            Some(signature) if job_set.agrees_with(&state.boilerplate, &text) => signature,
            _ => {
                if Arc::ptr_eq(job_set, &state.boilerplate_set) {
                    state.boilerplate_set = Arc::new(state.boilerplate.snapshot());
                }
                Signature::of_text(&text, Some(&state.boilerplate))
            }
        };
        if first_fetch {
            state.boilerplate.learn(&text);
        }
        let near = if first_fetch {
            let near = self.near_duplicates.find(&signature).filter(|near| near.page != job.page.0);
            if near.is_none() {
                self.near_duplicates.insert(&signature, job.page.0);
            }
            near
        } else {
            None
        };
        Ok((signature.to_bytes().to_vec(), near))
    }

    /// The URL `canonical` (a page's `<link rel=canonical>`) if it makes the page a variant of
    /// another URL of its host that the crawl would fetch: not the page's own URL, the same
    /// origin, followed from the page (scope, depth, patterns) and not disallowed by
    /// robots.txt. `None` otherwise: the page keeps its own revisits.
    fn canonical_alias_of(
        &mut self,
        job: &Job,
        canonical: Option<&freshet_url::Url>,
        depth: u32,
        now: f64,
    ) -> Result<Option<String>> {
        let Some(canonical) = canonical.filter(|canonical| **canonical != job.url) else { return Ok(None) };
        if canonical.origin() != job.url.origin() || !self.follows(canonical, depth + 1) {
            return Ok(None);
        }
        let agent = self.agent.clone();
        let verdict =
            self.host_mut(job.host)?.early_verdict(&agent, freshet_url::path_and_query(canonical), now);
        Ok(matches!(verdict, Verdict::Allowed).then(|| canonical.to_string()))
    }

    /// The `(w, λ)` the revisit policy hands the scheduler after a fetch (see
    /// [`crate::revisit`]); keeps the host's pooled prior in step with the page's estimate.
    fn revisit_parameters(
        &mut self,
        host: freshet_schedule::online::HostId,
        memory: &mut PageMemory,
        observation: Option<(ContentCheck, bool)>,
        (weight, change_rate): (f64, f64),
        had_data: bool,
    ) -> (f64, f64) {
        let prior_rate = self.config.change_rate_prior;
        match self.config.revisit {
            Revisit::Freshet => {
                let prior_fetches = self.config.prior_fetches;
                let rates = self.host_rates_mut(host);
                if had_data {
                    rates.remove(change_rate);
                }
                let estimate = rates
                    .prior(prior_rate, memory.history.mean_interval(), prior_fetches)
                    .map(|prior| revisit::estimate_rate(&memory.history, &prior));
                let rate = estimate.map_or(prior_rate, |estimate| estimate.rate).max(MIN_RATE);
                if memory.history.intervals() > 0 {
                    self.host_rates_mut(host).add(rate);
                }
                (weight, rate)
            }
            Revisit::Uniform => (1.0, prior_rate),
            Revisit::Nutch => {
                let (min, max) = self.config.nutch_interval_bounds;
                if memory.nutch_interval == 0.0 {
                    memory.nutch_interval = (1.0 / prior_rate).clamp(min, max);
                } else if let Some((check, true)) = observation {
                    let changed = check == ContentCheck::Changed;
                    memory.nutch_interval =
                        revisit::nutch_next_interval(memory.nutch_interval, changed, min, max);
                }
                let rate = 1.0 / memory.nutch_interval;
                (rate, rate)
            }
            Revisit::Once => (weight, change_rate),
        }
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
        let outcome = robots_outcome(fetches.last());
        let unreachable = matches!(outcome, FetchOutcome::Unreachable);
        let policy = self.config.robots_cache;
        let agent = self.agent.clone();
        let configured = self.config.delay;
        let give_up_after = self.robots_attempts_before_giving_up();
        let state = self.host_mut(job.host)?;
        state.robots_in_flight = false;
        match &mut state.robots {
            Some(entry) => entry.record(outcome, now, &policy),
            None => state.robots = Some(RobotsEntry::new(outcome, now, &policy)),
        }
        state.robots_failures = if unreachable { state.robots_failures.saturating_add(1) } else { 0 };
        state.robots_given_up = give_up_after.is_some_and(|attempts| state.robots_failures >= attempts);
        // What the host's pages face now, said on the last hop's line (RFC 9309 §2.3.1.4).
        let held = match (&state.robots, give_up_after) {
            (Some(entry), _) if !unreachable || entry.unreachable_since().is_none() => None,
            _ if state.robots_given_up => Some(format!(
                "robots.txt unreachable ({} attempts): the host's pages are given up (skipped, \
                 robots-unreachable)",
                state.robots_failures
            )),
            (Some(entry), _) => Some(format!(
                "robots.txt unreachable: the host is disallowed, no page fetched until robots.txt \
                 is tried again at {}",
                log_time(
                    SystemTime::UNIX_EPOCH + std::time::Duration::from_secs_f64(entry.expires_at().max(0.0))
                )
            )),
            (None, _) => None,
        };
        for (index, fetch) in fetches.iter().enumerate() {
            self.archive(fetch, None)?;
            self.summary.robots += 1;
            self.summary.bytes += fetch.transfer_body.len() as u64;
            let mut line = fetch_line(LogKind::Robots, fetch);
            if index + 1 == fetches.len()
                && let Some(held) = &held
            {
                line.add_detail(held);
            }
            self.log.write(&line)?;
        }
        let state = self.host_mut(job.host)?;
        let crawl_delay = state.robots.as_ref().and_then(|entry| entry.access().crawl_delay(&agent));
        // The delay in force: the new floor, or above it if pushbacks raised it.
        let delay = state.capacity.set_floor(configured.max(crawl_delay.unwrap_or_default()));
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
            let politeness = self.host_mut(job.host)?.stored_politeness(now);
            self.pending.push(Op::SetHost { host: job.host, politeness });
        }
        self.scheduler.fetched(job.page, Done::BackOff { retry_after: 0.0 }, now)?;
        for page in unchecked {
            let stored = self.store.page(page)?;
            let Some(stored) = stored.filter(|stored| stored.record.next_due.is_some()) else { continue };
            let url = parse_stored(&stored)?;
            let state = self.host_mut(job.host)?;
            match state.early_verdict(&agent, freshet_url::path_and_query(&url), now) {
                verdict @ (Verdict::Disallowed
                | Verdict::TooComplex
                | Verdict::Refused
                | Verdict::GivenUp) => {
                    self.skip(page, job.host, &url, verdict)?;
                }
                Verdict::Unknown | Verdict::WaitUntil(_) => state.unchecked.push(page),
                // Checked when it is due, as every page is.
                Verdict::Allowed | Verdict::Deferred(_) => {}
            }
        }
        self.queue_robots_sitemaps(job.host, now)
    }

    /// Writes the WARC records of a fetch that got an answer: request and response, or request
    /// and a `revisit` of `refers_to` (see [`with_capture`]).
    pub(super) fn archive(&mut self, fetch: &Fetch, refers_to: Option<RefersTo<'_>>) -> Result<()> {
        let warc = &mut self.warc;
        if with_capture(fetch, refers_to, |capture| warc.write_capture(capture))?.is_some() {
            self.warc_dirty = true;
        }
        Ok(())
    }

    /// Writes a page's WARC records, and says which record now holds its payload (see
    /// [`crate::dedup`]): a complete 2xx body that is the page's held payload, or a 304, is a
    /// revisit of the held capture (as the fetch task encoded it); one found in the payload
    /// index is a revisit of that record (encoded here); any other is a `response` record,
    /// indexed. The records the fetch task encoded are appended when they are what is written
    /// and are for the file being written; otherwise they are encoded here.
    fn archive_page(&mut self, job: &Job, fetch: &Fetch, encoded: Option<EncodedPage>) -> Result<Archived> {
        let JobKind::Page { last_fetch, held, .. } = &job.kind else { return Ok(Archived::default()) };
        let (own_url, held) = (job.url.as_str(), held.as_ref());
        let kept = Archived { capture: held.map(|held| held.capture), note: None };
        let (encoded, encoded_same_as_held) = match encoded {
            Some(EncodedPage { records: Ok(records), same_as_held }) if !records.is_empty() => {
                (Some(records), same_as_held)
            }
            _ => (None, false),
        };
        let whole_ok = fetch.outcome.is_ok() && fetch.truncated.is_none();
        let payload = match &encoded {
            Some(encoded) if whole_ok => encoded.payload_digest(),
            _ => payload_digest(fetch),
        };
        let same_as_held = held.filter(|held| payload == Some(held.capture.payload_digest));
        let original = match (payload, same_as_held) {
            (Some(payload), None) => self.payloads.find(&payload),
            _ => None,
        };
        let original = match original {
            Some(original) if original.page == job.page => Some((original, own_url.to_owned())),
            Some(original) => self.page_url(original.page)?.map(|url| (original, url)),
            None => None,
        };
        if let Some((original, url)) = original {
            // Another URL's payload: a revisit of its record, encoded here.
            let refers_to = RefersTo { target_uri: &url, date: original.date, record_id: None };
            self.archive(fetch, Some(refers_to))?;
            self.summary.identical_payloads += 1;
            self.summary.duplicates += u64::from(original.page != job.page);
            let note = format!(
                "identical payload to {url} captured {}: written as a WARC revisit record",
                original.date
            );
            self.forget_own(job.page, held, &original);
            return Ok(Archived { capture: Some(original), note: Some(note) });
        }
        // What the fetch task encoded: a revisit of the held capture, a 304's revisit, or a
        // response record; appended if it decided as this task did.
        let appended = match &encoded {
            Some(encoded) if encoded_same_as_held == same_as_held.is_some() => {
                self.warc.write_encoded(encoded)?.is_some()
            }
            _ => false,
        };
        if appended {
            self.warc_dirty = true;
        } else {
            let refers_to = capture_refers_to(fetch, own_url, *last_fetch, held, payload)?;
            self.archive(fetch, refers_to)?;
        }
        if let Some(held) = same_as_held {
            self.summary.identical_payloads += 1;
            let note = if held.capture.page == job.page {
                format!(
                    "unchanged payload: written as a WARC revisit record of its capture of {}",
                    held.capture.date
                )
            } else {
                self.summary.duplicates += 1;
                format!(
                    "identical payload to {} captured {}: written as a WARC revisit record",
                    held.target_uri(own_url),
                    held.capture.date
                )
            };
            return Ok(Archived { note: Some(note), ..kept });
        }
        let Some(payload) = payload else { return Ok(kept) };
        // A new payload: its response record is the one to refer to from now on.
        let capture = HeldCapture {
            payload_digest: payload,
            date: WarcDate::from_system_time(fetch.timings.started)?,
            page: job.page,
        };
        self.forget_own(job.page, held, &capture);
        self.payloads.insert(capture);
        Ok(Archived { capture: Some(capture), note: None })
    }

    /// Takes `page`'s own record of its old payload (`held`) out of the payload index when the
    /// page now holds another (`now`): at most one entry a page.
    fn forget_own(&mut self, page: PageId, held: Option<&Reference>, now: &HeldCapture) {
        if let Some(old) = held.filter(|held| held.capture.page == page && held.capture != *now) {
            self.payloads.forget(&old.capture);
        }
    }

    /// The URL a page was stored under (`None` if the store has no such page).
    pub(super) fn page_url(&self, page: PageId) -> Result<Option<String>> {
        Ok(self.store.page(page)?.map(|stored| stored.url))
    }
}

/// What `finish_page` reports for the page's log line.
#[derive(Default)]
struct Finished {
    /// The page fetched before whose main text this first fetch nearly repeats.
    near: Option<NearMatch>,
    /// A note for the line's detail.
    note: Option<String>,
}

/// What [`Crawler::archive_page`] wrote.
#[derive(Debug, Default)]
struct Archived {
    /// The record holding the page's payload after this answer (see [`crate::dedup`]).
    capture: Option<HeldCapture>,
    /// What the log line's detail says of it (a revisit record and what it refers to).
    note: Option<String>,
}

/// What a page job brought back for its one request.
struct Fetched<'a> {
    fetch: &'a Fetch,
    analysis: Analysis,
    encoded: Option<EncodedPage>,
}

/// Whether a page fetch's answer goes to WARC: any answer but an unwanted type, whose head
/// alone would read as an empty page.
pub(crate) fn is_archived(fetch: &Fetch) -> bool {
    !matches!(fetch.outcome, Outcome::UnwantedContentType { .. })
}

/// The earlier capture a page's answer is written as a revisit of (see [`crate::dedup`]): for a
/// 304, the page's held capture (or, for a page stored before held captures, its capture at
/// `last_fetch`); for a complete 2xx whose payload digest (`payload`) is the held capture's,
/// that capture; else `None`, a `response` record. `own_url`: the page's URL.
pub(crate) fn capture_refers_to<'a>(
    fetch: &Fetch,
    own_url: &'a str,
    last_fetch: Option<f64>,
    held: Option<&'a Reference>,
    payload: Option<Digest>,
) -> freshet_warc::Result<Option<RefersTo<'a>>> {
    let refers_to = |reference: &'a Reference| RefersTo {
        target_uri: reference.target_uri(own_url),
        date: reference.capture.date,
        record_id: None,
    };
    Ok(match (&fetch.outcome, held) {
        (Outcome::NotModified, Some(held)) => Some(refers_to(held)),
        (Outcome::NotModified, None) => match last_fetch {
            Some(last) => Some(RefersTo {
                target_uri: own_url,
                date: WarcDate::from_system_time(
                    SystemTime::UNIX_EPOCH + std::time::Duration::from_secs_f64(last.max(0.0)),
                )?,
                record_id: None,
            }),
            None => None,
        },
        (Outcome::Ok { .. }, Some(held)) if payload == Some(held.capture.payload_digest) => {
            Some(refers_to(held))
        }
        _ => None,
    })
}

/// Calls `write` with the WARC capture of a fetch that got an answer (`None` without one):
/// request and response; or request and a `revisit` of `refers_to` (see
/// [`capture_refers_to`]), profile server-not-modified for a 304 and identical-payload-digest
/// for a 2xx. Run by the control task, and by a page's fetch task to encode its records there.
pub(crate) fn with_capture<R>(
    fetch: &Fetch,
    refers_to: Option<RefersTo<'_>>,
    write: impl FnOnce(&Capture<'_>) -> freshet_warc::Result<R>,
) -> freshet_warc::Result<Option<R>> {
    let Some(message) = fetch.response_message() else { return Ok(None) };
    let request = fetch.request_message();
    let date = WarcDate::from_system_time(fetch.timings.started)?;
    let target_uri = fetch.url.as_str();
    let response = match (&fetch.outcome, refers_to) {
        (Outcome::NotModified, Some(refers_to)) => {
            CaptureResponse::NotModified { message: &message, refers_to }
        }
        (Outcome::Ok { .. }, Some(refers_to)) => {
            CaptureResponse::IdenticalPayload { message: &message, refers_to }
        }
        _ => CaptureResponse::Full { message: &message, truncated: fetch.truncated.map(truncation) },
    };
    let ip_address = fetch.remote.map(|remote| remote.ip());
    write(&Capture { target_uri, date, ip_address, request: &request, response }).map(Some)
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

fn truncation(truncated: Truncated) -> Truncation {
    match truncated {
        Truncated::Length => Truncation::Length,
        Truncated::Time => Truncation::Time,
        Truncated::Disconnect => Truncation::Disconnect,
    }
}

/// The smallest change rate handed to the scheduler (it needs `λ > 0`): one change in about
/// 30,000 years.
const MIN_RATE: f64 = 1e-12;

/// Whether the page had observations before this fetch (its estimate then counts in its
/// host's pooled prior).
fn job_had_data(kind: &JobKind) -> bool {
    matches!(kind, JobKind::Page { memory, .. } if memory.history.intervals() > 0)
}

/// An HTTP date (`Last-Modified`) as Unix seconds; `None` if it does not parse.
fn http_date_unix(value: &str) -> Option<f64> {
    httpdate::parse_http_date(value.trim()).ok().map(to_unix)
}

fn to_unix(time: SystemTime) -> f64 {
    time.duration_since(SystemTime::UNIX_EPOCH).map_or(0.0, |since| since.as_secs_f64())
}

/// What a timeout means, in words: which limit passed and what was kept.
fn timeout_detail(phase: TimeoutPhase, fetch: &Fetch) -> String {
    match phase {
        TimeoutPhase::Connect => "connect timeout: no connection to the server in time".to_owned(),
        TimeoutPhase::FirstByte => "first-byte timeout: no response head in time".to_owned(),
        TimeoutPhase::Body => format!(
            "total timeout: the body did not arrive in time, cut after {} bytes (WARC-Truncated: time)",
            fetch.transfer_body.len()
        ),
    }
}

/// What a body over the cap means, in words: which size passed it and what was kept.
fn too_large_detail(limit: u64, stage: SizeStage, fetch: &Fetch) -> String {
    let kept = fetch.transfer_body.len();
    match stage {
        SizeStage::Declared => format!(
            "body cap: Content-Length over the cap of {limit} bytes, nothing read (WARC-Truncated: length)"
        ),
        SizeStage::Transfer => {
            format!(
                "body cap: over the cap of {limit} bytes, cut after {kept} bytes (WARC-Truncated: length)"
            )
        }
        SizeStage::Decoded => format!(
            "body cap: decoded content over the cap of {limit} bytes (a compression bomb?), cut after \
             {kept} bytes received (WARC-Truncated: length)"
        ),
    }
}

/// The log line of one request.
pub(super) fn fetch_line(kind: LogKind, fetch: &Fetch) -> LogLine {
    let detail = match &fetch.outcome {
        Outcome::Redirect { location, .. } => Some(location.to_string()),
        Outcome::BadRedirect { location, .. } => location.clone(),
        Outcome::Throttled { retry_after, .. } => retry_after.map(|after| format!("retry-after {after:?}")),
        Outcome::Timeout { phase } => Some(timeout_detail(*phase, fetch)),
        Outcome::TooLarge { limit, stage } => Some(too_large_detail(*limit, *stage, fetch)),
        Outcome::BadContentEncoding { message, .. }
        | Outcome::DnsFailed { message }
        | Outcome::Failed { message } => Some(message.clone()),
        Outcome::AddressRefused { host, addresses } => Some(format!("{host}: {addresses:?}")),
        Outcome::UnwantedContentType { content_type, .. } => {
            Some(format!("content type {content_type:?} is not one of the crawl's content types"))
        }
        _ => None,
    };
    LogLine {
        time: log_time(fetch.timings.started),
        kind,
        url: fetch.url.as_str().to_owned(),
        status: fetch.response.as_ref().map(|head| head.status),
        bytes: fetch.transfer_body.len() as u64,
        duration_ms: fetch.timings.total.as_secs_f64() * 1000.0,
        fingerprint: fetch.fingerprint.map(|fingerprint| format!("{fingerprint:032x}")),
        outcome: fetch.outcome.name().into(),
        detail,
        links: None,
        topic_score: None,
    }
}
