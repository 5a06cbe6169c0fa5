//! Sitemaps in the crawl loop: the `Sitemap:` lines of a host's robots.txt, and the sitemaps
//! their indexes list, are requested in the host's politeness slots, and the URLs they list
//! are discovered like links. See the crate docs, "Sitemaps", for the rules.
//!
//! The control task's side only: the job fetches the file and parses it off the control task
//! (`crate::job`), [`freshet_fetch::sitemap`] does the reading.

use std::collections::{HashSet, VecDeque};
use std::fmt::Write as _;
use std::sync::Arc;

use freshet_fetch::sitemap::{LocationRule, Sitemap, SitemapError, SitemapFormat, SitemapOptions};
use freshet_fetch::{Fetch, Outcome};
use freshet_frontier::{CommitReport, Op, url_fingerprint};
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

/// One host's sitemaps in this run.
#[derive(Debug, Default)]
pub(crate) struct HostSitemaps {
    /// Whether its robots.txt's `Sitemap:` lines were queued (once per host and run).
    listed: bool,
    /// Sitemap URLs to request, in the order they were found; its buffer is given back once
    /// empty (most hosts have one sitemap, requested once, and a crawl may have 10^5 hosts).
    queue: VecDeque<Url>,
    /// The fingerprint (`freshet_frontier::url_fingerprint`, as the seen set's) of every
    /// sitemap URL queued in this run (requested or still to be): no file twice, and their
    /// number is the host's file count. Fingerprints, not the URLs: 8 bytes a file, not ~100,
    /// kept for the whole run.
    queued: HashSet<u64>,
    /// URLs handed to discovery in this run.
    urls: u64,
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
    /// Called when `host`'s robots.txt has been fetched: the first time its rules are known in
    /// this run, queues the sitemaps its `Sitemap:` lines name on its own origin (a relative
    /// URL is resolved against the robots.txt's).
    pub(super) fn queue_robots_sitemaps(&mut self, host: HostId) -> Result<()> {
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
        for url in listed {
            state.sitemaps.offer(url, &robots_url, max_files);
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
        let options = SitemapOptions { location, ..SitemapOptions::default() };
        let job =
            Job { page, host, url, not_before, delay, warc: None, kind: JobKind::Sitemap(Box::new(options)) };
        let handle = self.jobs.spawn(job.clone().run(self.fetcher.clone(), Arc::clone(&self.link_options)));
        self.in_flight.insert(handle.id(), job);
        Ok(true)
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
                Some(Ok(sitemap)) => Some(self.read_sitemap(job.host, &sitemap)?),
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
        Ok(())
    }

    /// After a commit: each known page a sitemap entry listed with a `<lastmod>` later than the
    /// page's last fetch has changed since the crawl's copy (the sitemap protocol: "the date of
    /// last modification of the page"), so it is made due at once, as a page never fetched
    /// (`Scheduler::mark_stale`), and logged. A new page is due at once anyway; a page never
    /// fetched, in flight, or not in the schedule (given up, not to be revisited) is left as
    /// it is. `lastmods` holds the entries' indices among the commit's admissions and `urls`.
    pub(super) fn sitemap_changes(
        &mut self,
        report: &CommitReport,
        urls: &[Url],
        lastmods: &[(usize, f64)],
    ) -> Result<()> {
        let now = unix_now();
        for &(index, lastmod) in lastmods {
            let (Some(admission), Some(url)) = (report.admissions.get(index), urls.get(index)) else {
                continue;
            };
            if admission.is_new {
                continue;
            }
            let Some(last_fetch) = self.scheduler.last_fetch(admission.page) else { continue };
            if lastmod <= last_fetch || !self.scheduler.mark_stale(admission.page, now)? {
                continue;
            }
            self.summary.sitemap_changes += 1;
            let detail =
                format!("sitemap lastmod {lastmod:.0} after the last fetch at {last_fetch:.0}: due now");
            self.log.write(&LogLine::changed(url.as_str(), detail))?;
        }
        Ok(())
    }

    /// Offers `url` (a child of an index, a redirect target) to `host`'s sitemap queue.
    fn offer_sitemap(&mut self, host: HostId, url: Url) -> Result<Offer> {
        let max_files = self.config.max_sitemap_files;
        let state = self.host_mut(host)?;
        let robots_url = state.robots_url.clone();
        Ok(state.sitemaps.offer(url, &robots_url, max_files))
    }

    /// Takes what a parsed sitemap lists: pages to discovery (within the host's URL limit; a
    /// given `priority` becomes the discovery's starting weight in the store), sitemaps to the
    /// host's queue. Returns the log line's detail.
    fn read_sitemap(&mut self, host: HostId, sitemap: &Sitemap) -> Result<String> {
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
                let room = max_urls.saturating_sub(self.host_mut(host)?.sitemaps.urls);
                let take = sitemap.urls.len().min(usize::try_from(room).unwrap_or(usize::MAX));
                for entry in &sitemap.urls[..take] {
                    let before = self.pending_urls.len();
                    self.discover(entry.url.clone(), 1, None)?;
                    if self.pending_urls.len() > before
                        && let Some(last_modified) = entry.last_modified
                    {
                        self.sitemap_lastmods.push((before, last_modified.unix_seconds));
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
        // Requested files still count: the limit is per host and run.
        sitemaps.queue.clear();
        assert_eq!(sitemaps.offer(url("http://a.test:8080/s3.xml"), &robots, 2), Offer::OverLimit);
        assert_eq!(sitemaps.offer(url("http://a.test:8080/s1.xml"), &robots, 2), Offer::Again);
    }
}
