//! Sitemaps in the crawl loop: the `Sitemap:` lines of a host's robots.txt, and the sitemaps
//! their indexes list, are requested in the host's politeness slots, and the URLs they list
//! are discovered like links. See the crate docs, "Sitemaps", for the rules.
//!
//! The control task's side only: the job fetches the file and parses it off the control task
//! (`crate::job`), [`freshet_fetch::sitemap`] does the reading.

use std::collections::{HashSet, VecDeque};
use std::fmt::Write as _;
use std::sync::Arc;

use freshet_fetch::sitemap::{
    DatePrecision, LocationRule, Sitemap, SitemapError, SitemapFormat, SitemapOptions,
};
use freshet_fetch::{Fetch, Outcome, Validators};
use freshet_frontier::{Admission, CommitReport, Op, url_fingerprint};
use freshet_robots::{Access, RobotsEntry};
use freshet_schedule::online::{HostId, Outcome as Done, PageId};
use freshet_url::Url;
use tokio::time::Instant;

use super::complete::fetch_line;
use super::{Crawler, unix_now};
use crate::error::Result;
use crate::hosts::Verdict;
use crate::job::{Job, JobKind};
use crate::log::{LogKind, LogLine};
use crate::revisit::SitemapTold;

/// One host's sitemaps in this run.
#[derive(Debug, Default)]
pub(crate) struct HostSitemaps {
    /// Whether its robots.txt's `Sitemap:` lines were queued for the current read.
    listed: bool,
    /// When the current read began (Unix seconds): the files are read again in the host's
    /// first slot [`CrawlConfig::sitemap_revisit`](crate::CrawlConfig) after it, once the
    /// queue is empty.
    read_started: Option<f64>,
    /// When the read before the current one began.
    previous_read_started: Option<f64>,
    /// Whether the host's `<lastmod>`s are believed (see [`LastmodTrust`]).
    pub(crate) trust: LastmodTrust,
    /// A page of the host started lately: the one to borrow a slot from when a read is due
    /// and no page of the host is (see [`Crawler::wake_sitemap_reads`]).
    pub(crate) last_page: Option<PageId>,
    /// The page whose turn a due read borrowed (made due at once by
    /// `Scheduler::mark_stale`), with its last fetch, given back when the read's files are
    /// all requested.
    carrier: Option<(PageId, f64)>,
    /// Sitemap URLs to request, in the order they were found; its buffer is given back once
    /// empty (most hosts have one sitemap, requested once, and a crawl may have 10^5 hosts).
    queue: VecDeque<Url>,
    /// The fingerprint (`freshet_frontier::url_fingerprint`, as the seen set's) of every
    /// sitemap URL queued in the current read (requested or still to be): no file twice in a
    /// read, and their number is the read's file count. Fingerprints, not the URLs: 8 bytes a
    /// file, not ~100.
    queued: HashSet<u64>,
    /// URLs handed to discovery in the current read.
    urls: u64,
    /// What the latest 2xx of each file with a validator left (see [`SitemapFile`]), by the
    /// file's URL fingerprint, oldest first: at most the host's file limit of them (a site
    /// whose files are named by date would otherwise add some at every read).
    files: Vec<(u64, SitemapFile)>,
}

/// A sitemap file as its latest 2xx answer left it, for a conditional read the next time: its
/// validators (sent back as `If-None-Match` / `If-Modified-Since`, so that an unchanged file
/// answers 304 with no body), and, for an index, the sitemaps it listed, which a 304 queues
/// again (an index unchanged says nothing of its files). A read is conditional only while the
/// host's `<lastmod>`s do not vouch ([`LastmodTrust::vouches`]): a vouching read must list
/// the unchanged pages again, which a 304 would not.
#[derive(Debug)]
struct SitemapFile {
    validators: Validators,
    listed: Vec<Url>,
}

/// Checks of a host's `<lastmod>`s: sitemap-triggered fetches that found the content changed,
/// or not, and changes a vouched page's Last-Modified shows the sitemap missed. A host whose
/// `<lastmod>`s are mostly wrong (many sitemap generators write the time of generation for
/// every URL) would otherwise make its every page due at each read of its sitemaps, and the
/// budget would go to refetching unchanged pages; one that misses changes would vouch for
/// stale copies. After [`LastmodTrust::CHECKS`] checks with fewer than half right, the host's
/// `<lastmod>`s are ignored for the rest of the run (its sitemaps are still read for new
/// URLs).
///
/// A miss is seen only on a page that sends Last-Modified (the change must date from before
/// the read): a sitemap that misses the changes of pages without it is not caught, and their
/// copies age from its reads. That is the cost of taking a sitemap's word, which is what
/// lets the budget go to the pages it says changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct LastmodTrust {
    /// Fetches made because a `<lastmod>` said the page changed, with a content comparison,
    /// and misses found.
    checked: u32,
    /// Of those, the fetches that found the content changed.
    confirmed: u32,
}

impl LastmodTrust {
    /// Checks before a verdict.
    pub(crate) const CHECKS: u32 = 4;

    /// Whether the host's `<lastmod>`s are believed: until [`Self::CHECKS`] fetches were
    /// checked, and after that while at least half of them found a change.
    pub(crate) fn trusted(self) -> bool {
        self.checked < Self::CHECKS || 2 * self.confirmed >= self.checked
    }

    /// Whether the host's `<lastmod>`s have proved right: [`Self::CHECKS`] or more fetches
    /// checked them, and they are still believed. Only then does a `lastmod` at or before a
    /// page's copy vouch that the copy is current (a sitemap whose `lastmod`s never move, say
    /// a stale file, never gets there: none of its pages is told changed).
    pub(crate) fn vouches(self) -> bool {
        self.checked >= Self::CHECKS && self.trusted()
    }

    /// Counts one sitemap-triggered fetch; returns whether this one withdrew the host's trust.
    pub(crate) fn record(&mut self, changed: bool) -> bool {
        let before = self.trusted();
        self.checked = self.checked.saturating_add(1);
        self.confirmed = self.confirmed.saturating_add(u32::from(changed));
        before && !self.trusted()
    }

    /// `confirmed of checked`, for log lines.
    pub(crate) fn describe(self) -> String {
        format!("{} of {} checks found its lastmods right", self.confirmed, self.checked)
    }
}

/// A page a sitemap read told changed, made due at once and not fetched since.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Told {
    /// What the read said (for the observation of the page's next fetch).
    pub(crate) word: SitemapTold,
    /// The page's host.
    host: HostId,
    /// The time its copy was current as of before the read (its last fetch, or the read that
    /// last vouched for it): given back if the host's `lastmod`s are found wrong before the
    /// page is fetched.
    copy_of: f64,
}

/// What became of a sitemap URL offered to a host's queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Offer {
    /// Queued: it will be requested in one of the host's next turns.
    Queued,
    /// Queued before (a file listed twice, an index listing itself).
    Again,
    /// On another origin than the host's robots.txt: not requested.
    OtherOrigin,
    /// The host's file limit is reached: not requested.
    OverLimit,
}

/// Whether a change that a vouched page's fetch found was one its sitemap missed: the page's
/// Last-Modified (`modified`) is after its previous fetch and at or before the host's latest
/// read began (`read_started`), which listed the page as unchanged. Without a Last-Modified
/// nothing can be said (the change may have come after the read).
pub(super) fn missed_change(
    previous_fetch: Option<f64>,
    modified: Option<f64>,
    read_started: Option<f64>,
) -> bool {
    match (previous_fetch, modified, read_started) {
        (Some(previous), Some(modified), Some(read)) => modified > previous && modified <= read,
        _ => false,
    }
}

/// What a `lastmod` says of a copy current as of `copy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Word {
    /// Changed since: the period the `lastmod` names starts after the copy.
    Changed,
    /// Not changed since: the period ends by the copy.
    Unchanged,
    /// The copy falls within the period (a date-only `lastmod` of the day of the last fetch):
    /// the change may be before it or after it.
    Nothing,
}

fn lastmod_says(told: &SitemapTold, copy: f64) -> Word {
    if told.lastmod > copy {
        Word::Changed
    } else if told.lastmod_until <= copy {
        Word::Unchanged
    } else {
        Word::Nothing
    }
}

/// The length of the period a `lastmod` of this precision names, at most (a month of 31 days,
/// a year of 366).
fn period_seconds(precision: DatePrecision) -> f64 {
    match precision {
        DatePrecision::Second => 1.0,
        DatePrecision::Minute => 60.0,
        DatePrecision::Day => 86_400.0,
        DatePrecision::Month => 31.0 * 86_400.0,
        DatePrecision::Year => 366.0 * 86_400.0,
    }
}

/// The interval's seconds (infinite for none: once per run).
fn interval_seconds(interval: Option<std::time::Duration>) -> f64 {
    interval.map_or(f64::INFINITY, |interval| interval.as_secs_f64())
}

impl Offer {
    fn describe(self) -> &'static str {
        match self {
            Self::Queued => "queued",
            Self::Again => "already queued",
            Self::OtherOrigin => "on another origin, not requested",
            Self::OverLimit => "over the host's sitemap file limit, not requested",
        }
    }
}

impl HostSitemaps {
    /// The validators to send with a request for `url`: those its latest 2xx gave, unless the
    /// host's `lastmod`s vouch (see [`SitemapFile`]).
    fn validators_for(&self, url: &Url) -> Validators {
        if self.trust.vouches() {
            return Validators::default();
        }
        self.file(url).map(|file| file.validators.clone()).unwrap_or_default()
    }

    /// What the latest 2xx of `url` left, if anything.
    fn file(&self, url: &Url) -> Option<&SitemapFile> {
        let fingerprint = url_fingerprint(url.as_str());
        self.files.iter().find(|(file, _)| *file == fingerprint).map(|(_, file)| file)
    }

    /// Keeps what a 2xx of `url` left for its next read (forgets it without a validator), and
    /// at most `max_files` files, the latest.
    fn remember(&mut self, url: &Url, validators: Validators, listed: Vec<Url>, max_files: u32) {
        let fingerprint = url_fingerprint(url.as_str());
        self.files.retain(|(file, _)| *file != fingerprint);
        if validators.etag.is_some() || validators.last_modified.is_some() {
            self.files.push((fingerprint, SitemapFile { validators, listed }));
        }
        let over = self.files.len().saturating_sub(max_files as usize);
        self.files.drain(..over);
    }

    /// The sitemaps `url` listed at its latest 2xx (none if it was no index).
    fn listed_by(&self, url: &Url) -> Vec<Url> {
        self.file(url).map(|file| file.listed.clone()).unwrap_or_default()
    }

    /// When the latest read began (it vouched for the pages it listed unchanged).
    pub(crate) fn latest_read(&self) -> Option<f64> {
        self.read_started
    }

    /// Whether a new read of the sitemaps is due at `now`: the last one began at least
    /// `interval` seconds ago and none of its files is left to request.
    pub(crate) fn read_due(&self, now: f64, interval: Option<std::time::Duration>) -> bool {
        let (Some(interval), Some(started)) = (interval, self.read_started) else { return false };
        self.queue.is_empty() && now - started >= interval.as_secs_f64()
    }

    /// Forgets the current read (files queued and counted, URLs counted), so that the next
    /// [`Crawler::queue_robots_sitemaps`] begins a new one.
    fn end_read(&mut self) {
        self.listed = false;
        self.queued = HashSet::new();
        self.urls = 0;
    }

    /// Queues `url` if it is on `robots_url`'s origin, new, and within `max_files`.
    fn offer(&mut self, url: Url, robots_url: &Url, max_files: u32) -> Offer {
        if url.origin() != robots_url.origin() {
            return Offer::OtherOrigin;
        }
        let fingerprint = url_fingerprint(url.as_str());
        if self.queued.contains(&fingerprint) {
            return Offer::Again;
        }
        if self.queued.len() >= max_files as usize {
            return Offer::OverLimit;
        }
        self.queued.insert(fingerprint);
        self.queue.push_back(url);
        Offer::Queued
    }
}

impl Crawler {
    /// Called when `host`'s robots.txt has been fetched, and when a new read of its sitemaps is
    /// due: the first time in a read that its rules are known, queues the sitemaps its
    /// `Sitemap:` lines name on its own origin (a relative URL is resolved against the
    /// robots.txt's), and notes `now` as the read's start.
    pub(super) fn queue_robots_sitemaps(&mut self, host: HostId, now: f64) -> Result<()> {
        if !self.config.sitemaps {
            return Ok(());
        }
        let max_files = self.config.max_sitemap_files;
        let state = self.host_mut(host)?;
        if state.sitemaps.listed {
            return Ok(());
        }
        let Some(Access::Rules(robots)) = state.robots.as_ref().map(RobotsEntry::access) else {
            return Ok(());
        };
        let listed: Vec<Url> = robots
            .sitemaps()
            .iter()
            .filter_map(|line| freshet_url::resolve(&state.robots_url, line.trim()).ok())
            .collect();
        state.sitemaps.listed = true;
        let robots_url = state.robots_url.clone();
        let mut queued = false;
        for url in listed {
            queued |= state.sitemaps.offer(url, &robots_url, max_files) == Offer::Queued;
        }
        // A read begins only with a file to request: a host without sitemaps gets no timer
        // (its robots.txt is looked at again when it is fetched again).
        if !queued {
            state.sitemaps.listed = false;
            return Ok(());
        }
        state.sitemaps.previous_read_started = state.sitemaps.read_started.replace(now);
        if let Some(interval) = self.config.sitemap_revisit {
            let due = now + interval.as_secs_f64();
            // Positive finite times order as their bits.
            self.sitemap_timers.push(std::cmp::Reverse((due.to_bits(), host.0)));
        }
        Ok(())
    }

    /// In the slot the scheduler gave to `page` of `host` (whose robots.txt is known), starts a
    /// job for the host's next queued sitemap instead, if there is one that robots.txt allows
    /// (a disallowed one gets a `skipped` line); the page is handed back when it ends. Returns
    /// whether a job was started.
    pub(super) fn start_sitemap(&mut self, page: PageId, host: HostId, now: f64) -> Result<bool> {
        if !self.config.sitemaps {
            return Ok(false);
        }
        let revisit = self.config.sitemap_revisit;
        let state = self.host_mut(host)?;
        if state.sitemaps.read_due(now, revisit) {
            state.sitemaps.end_read();
            self.summary.sitemap_rereads += 1;
            self.queue_robots_sitemaps(host, now)?;
        }
        let agent = self.agent.clone();
        let state = self.host_mut(host)?;
        let mut disallowed = Vec::new();
        let mut next = None;
        while let Some(url) = state.sitemaps.queue.pop_front() {
            match state.verdict(&agent, freshet_url::path_and_query(&url), now) {
                Verdict::Allowed => {
                    next = Some(url);
                    break;
                }
                Verdict::Disallowed => disallowed.push((url, None)),
                Verdict::TooComplex => disallowed.push((url, Some(super::too_complex_detail()))),
                // The rules are no longer known, or the host's checks must wait: the sitemap
                // waits for the host's next turn.
                Verdict::Unknown
                | Verdict::WaitUntil(_)
                | Verdict::Deferred(_)
                | Verdict::Refused
                | Verdict::GivenUp => {
                    state.sitemaps.queue.push_front(url);
                    break;
                }
            }
        }
        if state.sitemaps.queue.is_empty() {
            state.sitemaps.queue = VecDeque::new();
        }
        let location = LocationRule::ListedInRobotsTxt(state.robots_url.clone());
        let (not_before, delay) = (state.not_before, state.delay);
        for (url, why) in disallowed {
            self.summary.skipped += 1;
            let detail = why.map_or_else(|| "sitemap".to_owned(), |why| format!("sitemap; {why}"));
            self.log.write(&LogLine::skipped(url.as_str(), "robots-disallowed", Some(detail)))?;
        }
        let Some(url) = next else { return Ok(false) };
        let validators = self.host_mut(host)?.sitemaps.validators_for(&url);
        let options = SitemapOptions { location, ..SitemapOptions::default() };
        let kind = JobKind::Sitemap(Box::new(options), validators);
        let job = Job { page, host, url, not_before, delay, warc: None, kind };
        let handle = self.jobs.spawn(job.clone().run(self.fetcher.clone(), Arc::clone(&self.link_options)));
        self.in_flight.insert(handle.id(), job);
        Ok(true)
    }

    /// Makes sure that each host whose sitemaps are due to be read again (or whose read has
    /// files left to request) gets a slot soon: a read takes a page's slot, and with no page of
    /// the host due (a budget that revisits the host rarely) it would wait for one. So the
    /// host's last started page lends its turn: it is made due at once
    /// (`Scheduler::mark_stale`), its slot goes to the sitemap ([`Crawler::start_sitemap`]),
    /// and once the read's files are all requested it gets its last fetch back
    /// (`Scheduler::set_last_fetch`), so no page is fetched for it. A host whose page is
    /// in flight is tried again a second later. Returns when the next read falls due, for the
    /// crawl loop's sleep.
    pub(super) fn wake_sitemap_reads(&mut self, now: f64) -> Result<Option<f64>> {
        let interval = self.config.sitemap_revisit;
        while let Some(&std::cmp::Reverse((due_bits, host))) = self.sitemap_timers.peek() {
            let due = f64::from_bits(due_bits);
            if due > now {
                return Ok(Some(due));
            }
            self.sitemap_timers.pop();
            let host = HostId(host);
            // A carrier that left the schedule (skipped, gone) before its slot came lends
            // nothing any more.
            let carrier = self.host_mut(host)?.sitemaps.carrier;
            if carrier.is_some_and(|(page, _)| !self.scheduler.contains(page)) {
                self.host_mut(host)?.sitemaps.carrier = None;
            }
            let state = self.host_mut(host)?;
            let sitemaps = &state.sitemaps;
            let wanted = sitemaps.read_due(now, interval) || !sitemaps.queue.is_empty();
            // A read begun since has a timer of its own; a host with a carrier waits for it.
            let begun_since =
                sitemaps.read_started.is_some_and(|started| started + interval_seconds(interval) > due);
            if !wanted || begun_since || sitemaps.carrier.is_some() {
                continue;
            }
            // The page to lend its turn: one fetched before and not in flight. One in flight is
            // tried again a second later; with none at all, the read waits for the host's next
            // slot (`start_sitemap` looks whenever a page of the host is started).
            let Some(page) = sitemaps.last_page else { continue };
            let Some(last_fetch) = self.scheduler.last_fetch(page) else { continue };
            if self.scheduler.mark_stale(page, now)? {
                self.host_mut(host)?.sitemaps.carrier = Some((page, last_fetch));
            } else {
                let retry = now + 1.0;
                self.sitemap_timers.push(std::cmp::Reverse((retry.to_bits(), host.0)));
            }
        }
        Ok(None)
    }

    /// `page` of `host` was fetched as a page: if it was lending its turn to a sitemap read
    /// (whose files another page's slot took), it has nothing left to give back.
    pub(super) fn carrier_fetched(&mut self, page: PageId, host: HostId) -> Result<()> {
        let sitemaps = &mut self.host_mut(host)?.sitemaps;
        if sitemaps.carrier.is_some_and(|(carrier, _)| carrier == page) {
            sitemaps.carrier = None;
        }
        Ok(())
    }

    /// `host`'s `lastmod`s were just found wrong: the pages they made due at once and that
    /// wait for their fetch get their copy's time back (`Scheduler::set_last_fetch`), so the
    /// budget does not go to them on the word of a sitemap now ignored. Returns how many.
    pub(super) fn withdraw_told(&mut self, host: HostId, now: f64) -> Result<u64> {
        let pages: Vec<(PageId, f64)> = self
            .sitemap_told
            .iter()
            .filter(|(_, told)| told.host == host)
            .map(|(&page, told)| (page, told.copy_of))
            .collect();
        let mut withdrawn = 0;
        for (page, copy_of) in pages {
            // One in flight keeps its entry: its fetch is under way and checks the word.
            match self.scheduler.set_last_fetch(page, copy_of, now) {
                Ok(true) => {
                    self.sitemap_told.remove(&page);
                    withdrawn += 1;
                }
                Ok(false) => {}
                Err(freshet_schedule::online::OnlineError::UnknownPage(_)) => {
                    self.sitemap_told.remove(&page);
                }
                Err(error) => return Err(error.into()),
            }
        }
        Ok(withdrawn)
    }

    /// Gives the page that lent its turn to `host`'s sitemap read its last fetch back, once
    /// the read's files are all requested (see [`Crawler::wake_sitemap_reads`]).
    fn return_carrier(&mut self, host: HostId, now: f64) -> Result<()> {
        let state = self.host_mut(host)?;
        if !state.sitemaps.queue.is_empty() {
            return Ok(());
        }
        if let Some((page, last_fetch)) = state.sitemaps.carrier.take() {
            // A page removed since (gone, given up) has nothing to give back.
            if let Err(error) = self.scheduler.set_last_fetch(page, last_fetch, now)
                && !matches!(error, freshet_schedule::online::OnlineError::UnknownPage(_))
            {
                return Err(error.into());
            }
        }
        Ok(())
    }

    /// A sitemap job ended: the request archived and logged, the file's URLs discovered (depth
    /// 1, as links of no page) or its sitemaps queued, the page whose slot it used handed back.
    /// Whatever came back (an error status, a body that is not a sitemap, a file cut short) is
    /// logged and the crawl goes on.
    pub(super) fn sitemap_done(
        &mut self,
        job: &Job,
        fetches: &[Fetch],
        parsed: Option<std::result::Result<Sitemap, SitemapError>>,
        ended: Instant,
        now: f64,
    ) -> Result<()> {
        let state = self.host_mut(job.host)?;
        state.not_before = Some(ended + state.delay);
        if let Some(fetch) = fetches.first() {
            self.archive(fetch, None)?;
            self.summary.bytes += fetch.transfer_body.len() as u64;
            let mut line = fetch_line(LogKind::Sitemap, fetch);
            // The fetcher's own detail (a body cut at its cap) is kept after what was read.
            let fetcher_detail = line.detail.take();
            let read = match parsed {
                Some(Ok(sitemap)) => {
                    let validators = fetch
                        .response
                        .as_ref()
                        .map(|head| Validators::from_headers(&head.headers))
                        .unwrap_or_default();
                    let validators = Validators {
                        etag: validators.etag.and_then(super::storable_validator),
                        last_modified: validators.last_modified.and_then(super::storable_validator),
                    };
                    let listed = sitemap.sitemaps.iter().map(|listed| listed.url.clone()).collect();
                    let max_files = self.config.max_sitemap_files;
                    self.host_mut(job.host)?.sitemaps.remember(&job.url, validators, listed, max_files);
                    Some(self.read_sitemap(job.host, &sitemap, now)?)
                }
                Some(Err(error)) => {
                    line.outcome = "not-a-sitemap".into();
                    Some(error.to_string())
                }
                None => match &fetch.outcome {
                    Outcome::Redirect { location, .. } => {
                        let offer = self.offer_sitemap(job.host, location.clone())?;
                        line.detail = Some(format!("{location} ({})", offer.describe()));
                        None
                    }
                    Outcome::NotModified => {
                        self.summary.sitemap_not_modified += 1;
                        let listed = self.host_mut(job.host)?.sitemaps.listed_by(&job.url);
                        let mut queued = 0;
                        for child in &listed {
                            queued +=
                                usize::from(self.offer_sitemap(job.host, child.clone())? == Offer::Queued);
                        }
                        Some(if listed.is_empty() {
                            "unchanged since its last read (a conditional request)".to_owned()
                        } else {
                            format!(
                                "unchanged since its last read (a conditional request): {} sitemaps it \
                                 lists, {queued} queued again",
                                listed.len()
                            )
                        })
                    }
                    _ => None,
                },
            };
            line.detail = match (read, fetcher_detail) {
                (Some(read), Some(cut)) => Some(format!("{read}; {cut}")),
                (Some(read), None) => Some(read),
                (None, cut) => line.detail.take().or(cut),
            };
            self.log.write(&line)?;
        }
        self.scheduler.fetched(job.page, Done::BackOff { retry_after: 0.0 }, now)?;
        self.return_carrier(job.host, now)
    }

    /// After a commit: each known page a sitemap entry listed with a `<lastmod>` later than the
    /// page's last fetch has changed since the crawl's copy (the sitemap protocol: "the date of
    /// last modification of the page"), so it is made due at once, as a page never fetched
    /// (`Scheduler::mark_stale`), and logged. A new page is due at once anyway; a page never
    /// fetched, in flight, or not in the schedule (given up, not to be revisited) is left as
    /// it is. `lastmods` holds the entries' indices among the commit's admissions and `urls`.
    /// The page's next fetch finds out whether the sitemap was right ([`LastmodTrust`]) and,
    /// if so, counts the sitemap's word as its observation ([`SitemapTold`]).
    pub(super) fn sitemap_changes(
        &mut self,
        report: &CommitReport,
        urls: &[Url],
        lastmods: &[(usize, SitemapTold)],
    ) -> Result<()> {
        let now = unix_now();
        for &(index, told) in lastmods {
            let lastmod = told.lastmod;
            let (Some(admission), Some(url)) = (report.admissions.get(index), urls.get(index)) else {
                continue;
            };
            if admission.is_new {
                continue;
            }
            let Some(last_fetch) = self.scheduler.last_fetch(admission.page) else { continue };
            match lastmod_says(&told, last_fetch) {
                Word::Unchanged => {
                    self.vouch(admission, told, last_fetch, now)?;
                    continue;
                }
                Word::Nothing => continue,
                Word::Changed => {}
            }
            if !self.scheduler.mark_stale(admission.page, now)? {
                continue;
            }
            self.summary.sitemap_changes += 1;
            self.sitemap_told
                .insert(admission.page, Told { word: told, host: admission.host, copy_of: last_fetch });
            let detail =
                format!("sitemap lastmod {lastmod:.0} after the last fetch at {last_fetch:.0}: due now");
            self.log.write(&LogLine::changed(url.as_str(), detail))?;
        }
        Ok(())
    }

    /// A page a read listed with a `<lastmod>` at or before its copy (`last_fetch`, the
    /// scheduler's: its last fetch, or the read that last vouched for it): on a host whose
    /// `lastmod`s have proved right ([`LastmodTrust::vouches`]), the copy is known to be
    /// current as of the read, as if a 304 had answered then, so the page's age counts from
    /// the read (`Scheduler::set_last_fetch`) and the budget goes to pages that changed or may
    /// have. The page is marked vouched (`vouched`) until its next fetch, which checks the
    /// sitemap's word where the page sends Last-Modified (see `Crawler::check_vouch`).
    fn vouch(&mut self, admission: &Admission, told: SitemapTold, last_fetch: f64, now: f64) -> Result<()> {
        if told.read_at <= last_fetch || !self.host_mut(admission.host)?.sitemaps.trust.vouches() {
            return Ok(());
        }
        if self.scheduler.set_last_fetch(admission.page, told.read_at, now)? {
            let bit = admission.page.0 as usize;
            if bit >= self.vouched.len() {
                self.vouched.grow((bit + 1).next_power_of_two());
            }
            self.vouched.insert(bit);
            self.summary.sitemap_vouched += 1;
        }
        Ok(())
    }

    /// The fetch of a page a trusted read vouched for (see [`Crawler::vouch`]) found its
    /// content changed, and the page's Last-Modified (`modified`) puts the change after its
    /// previous fetch (`previous_fetch`) and at or before the host's latest read began: the
    /// sitemap missed a change, which counts against its host's `lastmod`s as a told page
    /// found unchanged does. Returns a note for the log line if this withdrew the trust.
    pub(super) fn check_vouch(
        &mut self,
        host: HostId,
        previous_fetch: Option<f64>,
        modified: Option<f64>,
    ) -> Result<Option<String>> {
        if !missed_change(previous_fetch, modified, self.host_mut(host)?.sitemaps.latest_read()) {
            return Ok(None);
        }
        self.summary.sitemap_misses += 1;
        let sitemaps = &mut self.host_mut(host)?.sitemaps;
        if !sitemaps.trust.record(false) {
            return Ok(None);
        }
        let checks = sitemaps.trust.describe();
        let withdrawn = self.withdraw_told(host, unix_now())?;
        let note = format!(
            "the host's sitemap lastmods are ignored for the rest of the run: it missed this page's \
             change ({checks}); {withdrawn} pages they made due wait for their turn again"
        );
        self.summary.sitemap_lastmods_ignored += 1;
        Ok(Some(note))
    }

    /// Offers `url` (a child of an index, a redirect target) to `host`'s sitemap queue.
    fn offer_sitemap(&mut self, host: HostId, url: Url) -> Result<Offer> {
        let max_files = self.config.max_sitemap_files;
        let state = self.host_mut(host)?;
        let robots_url = state.robots_url.clone();
        Ok(state.sitemaps.offer(url, &robots_url, max_files))
    }

    /// Takes what a parsed sitemap, read at `now`, lists: pages to discovery (within the
    /// host's URL limit; a given `priority` becomes the discovery's starting weight in the
    /// store; a `lastmod` is kept for `sitemap_changes` while the host's are trusted), sitemaps
    /// to the host's queue. Returns the log line's detail.
    fn read_sitemap(&mut self, host: HostId, sitemap: &Sitemap, now: f64) -> Result<String> {
        let mut detail = String::from(match sitemap.format {
            SitemapFormat::UrlSet => "urlset",
            SitemapFormat::Index => "index",
            SitemapFormat::Text => "text",
        });
        if sitemap.gzip {
            detail.push_str(", gzip");
        }
        match sitemap.format {
            SitemapFormat::UrlSet | SitemapFormat::Text => {
                let max_urls = self.config.max_sitemap_urls;
                let state = self.host_mut(host)?;
                let room = max_urls.saturating_sub(state.sitemaps.urls);
                let trusted = state.sitemaps.trust.trusted();
                let previous_read = state.sitemaps.previous_read_started;
                let take = sitemap.urls.len().min(usize::try_from(room).unwrap_or(usize::MAX));
                for entry in &sitemap.urls[..take] {
                    let before = self.pending_urls.len();
                    self.discover(entry.url.clone(), 1, None)?;
                    if trusted
                        && self.pending_urls.len() > before
                        && let Some(last_modified) = entry.last_modified
                    {
                        let lastmod = last_modified.unix_seconds;
                        let lastmod_until = lastmod + period_seconds(last_modified.precision);
                        let told = SitemapTold { read_at: now, lastmod, lastmod_until, previous_read };
                        self.sitemap_lastmods.push((before, told));
                    }
                    if entry.priority_given
                        && self.pending_urls.len() > before
                        && let Some(Op::Discover(discovery)) = self.pending.last_mut()
                    {
                        discovery.weight = entry.priority;
                    }
                }
                self.host_mut(host)?.sitemaps.urls += take as u64;
                let _ = write!(detail, ": {take} URLs");
                if !trusted {
                    let _ = write!(
                        detail,
                        " (lastmods ignored: {})",
                        self.host_mut(host)?.sitemaps.trust.describe()
                    );
                }
                let left = sitemap.urls.len() - take;
                if left > 0 {
                    let _ = write!(detail, ", {left} more over the host's limit of {max_urls} URLs");
                }
            }
            SitemapFormat::Index => {
                let mut counts = [0_usize; 4];
                for child in &sitemap.sitemaps {
                    let offer = self.offer_sitemap(host, child.url.clone())?;
                    counts[offer as usize] += 1;
                }
                let _ = write!(detail, ": {} sitemaps", sitemap.sitemaps.len());
                let parts: Vec<String> = [Offer::Queued, Offer::Again, Offer::OtherOrigin, Offer::OverLimit]
                    .into_iter()
                    .filter(|&offer| counts[offer as usize] > 0)
                    .map(|offer| format!("{} {}", counts[offer as usize], offer.describe()))
                    .collect();
                if !parts.is_empty() {
                    let _ = write!(detail, " ({})", parts.join(", "));
                }
            }
        }
        if sitemap.over_limit > 0 {
            let _ = write!(detail, ", {} entries past the file's limit", sitemap.over_limit);
        }
        let problems = sitemap.problems.len() as u64 + sitemap.problems_over_limit;
        let _ = write!(detail, ", {problems} problems");
        if let Some(first) = sitemap.problems.first() {
            let _ = write!(detail, " (first: {first})");
        }
        if let Some(stopped) = &sitemap.stopped {
            let _ = write!(detail, ", stopped early: {stopped}");
        }
        Ok(detail)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn url(text: &str) -> Url {
        freshet_url::canonicalize(text).unwrap()
    }

    /// A file's validators are sent back while the host's `lastmod`s do not vouch, and not
    /// once they do (a vouching read must list the unchanged pages again); a 2xx without a
    /// validator leaves nothing.
    #[test]
    fn a_vouching_host_reads_its_sitemaps_whole() {
        let file = url("http://a.test/sitemap.xml");
        let mut sitemaps = HostSitemaps::default();
        let validators = Validators { etag: Some("\"1\"".into()), last_modified: None };
        sitemaps.remember(&file, validators.clone(), vec![url("http://a.test/child.xml")], 3);
        assert_eq!(sitemaps.validators_for(&file), validators);
        assert_eq!(sitemaps.listed_by(&file), [url("http://a.test/child.xml")]);
        assert_eq!(sitemaps.validators_for(&url("http://a.test/other.xml")), Validators::default());
        for _ in 0..LastmodTrust::CHECKS {
            sitemaps.trust.record(true);
        }
        assert!(sitemaps.trust.vouches());
        assert_eq!(sitemaps.validators_for(&file), Validators::default());
        sitemaps.remember(&file, Validators::default(), Vec::new(), 3);
        assert!(sitemaps.files.is_empty() && sitemaps.listed_by(&file).is_empty());
        // Files named anew at every read: the latest 3 are kept.
        for day in 0..10 {
            sitemaps.remember(
                &url(&format!("http://a.test/sitemap-{day}.xml")),
                validators.clone(),
                Vec::new(),
                3,
            );
        }
        assert_eq!(sitemaps.files.len(), 3);
        assert_eq!(
            sitemaps.validators_for(&url("http://a.test/sitemap-9.xml")),
            Validators::default(),
            "vouching"
        );
        assert_eq!(sitemaps.files[0].0, url_fingerprint("http://a.test/sitemap-7.xml"));
    }

    #[test]
    fn a_host_queues_its_own_sitemaps_once_each_up_to_the_file_limit() {
        let robots = url("http://a.test:8080/robots.txt");
        let mut sitemaps = HostSitemaps::default();
        assert_eq!(sitemaps.offer(url("http://a.test:8080/s1.xml"), &robots, 2), Offer::Queued);
        assert_eq!(sitemaps.offer(url("http://a.test:8080/s1.xml"), &robots, 2), Offer::Again);
        // Another scheme, host or port is another origin.
        for other in ["https://a.test:8080/s.xml", "http://b.test:8080/s.xml", "http://a.test/s.xml"] {
            assert_eq!(sitemaps.offer(url(other), &robots, 2), Offer::OtherOrigin, "{other}");
        }
        assert_eq!(sitemaps.offer(url("http://a.test:8080/deep/s2.xml.gz"), &robots, 2), Offer::Queued);
        assert_eq!(sitemaps.offer(url("http://a.test:8080/s3.xml"), &robots, 2), Offer::OverLimit);
        let queued: Vec<&str> = sitemaps.queue.iter().map(Url::as_str).collect();
        assert_eq!(queued, ["http://a.test:8080/s1.xml", "http://a.test:8080/deep/s2.xml.gz"]);
        // Requested files still count: the limit is per host and read.
        sitemaps.queue.clear();
        assert_eq!(sitemaps.offer(url("http://a.test:8080/s3.xml"), &robots, 2), Offer::OverLimit);
        assert_eq!(sitemaps.offer(url("http://a.test:8080/s1.xml"), &robots, 2), Offer::Again);
    }

    #[test]
    fn a_new_read_is_due_after_the_interval_once_the_last_one_is_done_and_starts_afresh() {
        let robots = url("http://a.test/robots.txt");
        let day = Some(std::time::Duration::from_secs(86_400));
        let mut sitemaps = HostSitemaps::default();
        // No read begun: the robots.txt's arrival begins the first.
        assert!(!sitemaps.read_due(1e9, day));
        sitemaps.read_started = Some(1_000.0);
        assert_eq!(sitemaps.offer(url("http://a.test/s1.xml"), &robots, 1), Offer::Queued);
        sitemaps.urls = 7;
        // Files of the read still to request: not before they are.
        assert!(!sitemaps.read_due(1_000.0 + 86_400.0, day));
        sitemaps.queue.clear();
        assert!(!sitemaps.read_due(1_000.0 + 86_399.0, day));
        assert!(sitemaps.read_due(1_000.0 + 86_400.0, day));
        // Once per run when there is no interval.
        assert!(!sitemaps.read_due(1e12, None));
        // A new read: the same files may be queued again, the limits count afresh.
        sitemaps.end_read();
        assert_eq!((sitemaps.listed, sitemaps.urls), (false, 0));
        assert_eq!(sitemaps.offer(url("http://a.test/s1.xml"), &robots, 1), Offer::Queued);
        assert_eq!(sitemaps.offer(url("http://a.test/s2.xml"), &robots, 1), Offer::OverLimit);
    }

    #[test]
    fn a_date_only_lastmod_says_nothing_of_a_copy_of_its_own_day() {
        let day_start = 1_796_000_000.0 - 1_796_000_000.0 % 86_400.0;
        let told = SitemapTold {
            read_at: day_start + 80_000.0,
            lastmod: day_start,
            lastmod_until: day_start + period_seconds(DatePrecision::Day),
            previous_read: None,
        };
        assert_eq!(lastmod_says(&told, day_start - 1.0), Word::Changed);
        assert_eq!(lastmod_says(&told, day_start + 3_600.0), Word::Nothing, "fetched that day");
        assert_eq!(lastmod_says(&told, day_start + 86_400.0), Word::Unchanged);
        let second = SitemapTold { lastmod_until: day_start + period_seconds(DatePrecision::Second), ..told };
        assert_eq!(lastmod_says(&second, day_start + 0.5), Word::Nothing);
        assert_eq!(lastmod_says(&second, day_start + 1.0), Word::Unchanged);
    }

    #[test]
    fn a_change_dated_before_the_read_that_vouched_for_the_page_is_a_miss() {
        // Fetched at 100, vouched for by the read that began at 200.
        assert!(missed_change(Some(100.0), Some(150.0), Some(200.0)));
        assert!(missed_change(Some(100.0), Some(200.0), Some(200.0)));
        // A change after the read, or before the fetch (the server's clock, a copy already
        // held), is not the sitemap's fault; without a Last-Modified nothing is known.
        assert!(!missed_change(Some(100.0), Some(250.0), Some(200.0)));
        assert!(!missed_change(Some(100.0), Some(100.0), Some(200.0)));
        assert!(!missed_change(Some(100.0), None, Some(200.0)));
        assert!(!missed_change(None, Some(150.0), Some(200.0)));
        assert!(!missed_change(Some(100.0), Some(150.0), None));
    }

    #[test]
    fn lastmods_lose_trust_when_most_of_the_fetches_they_made_found_nothing_changed() {
        let mut trust = LastmodTrust::default();
        // Three wrong of three: not yet a verdict.
        for _ in 0..3 {
            assert!(!trust.record(false));
            assert!(trust.trusted());
        }
        // The fourth check decides.
        assert!(trust.record(true), "1 of 4 confirmed is under half");
        let mut wrong = LastmodTrust::default();
        assert!(!wrong.record(false) && !wrong.record(false) && !wrong.record(false));
        assert!(wrong.record(false), "4 of 4 wrong withdraws the trust, once");
        assert!(!wrong.trusted());
        assert!(!wrong.record(true), "already withdrawn");
        assert_eq!(wrong.describe(), "1 of 5 checks found its lastmods right");
        // Half right keeps it.
        let mut half = LastmodTrust::default();
        for changed in [true, false, true, false, true, false] {
            assert!(!half.record(changed));
        }
        assert!(half.trusted());
        assert!(half.vouches(), "six checks, half right: proved");
        assert!(half.record(false), "3 of 7 is under half");
        assert!(!half.vouches());
        // Vouching needs the checks first.
        let mut new = LastmodTrust::default();
        for _ in 0..3 {
            new.record(true);
            assert!(new.trusted() && !new.vouches());
        }
        new.record(true);
        assert!(new.vouches());
    }
}
