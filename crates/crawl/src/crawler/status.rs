//! The control task's answers to [`Admin`](crate::Admin) questions: the crawl's status and one
//! page's explanation, from the scheduler and the store as they are between two decisions.

use std::time::Duration;

use freshet_frontier::FrontierStore as _;
use freshet_schedule::online::{OnlineError, Status};
use tokio::time::Instant;

use super::{Crawler, unix_now};
use crate::admin::{CrawlStatus, ExplainError, HostStatus, PageReport, Request, ShardCounts, SitemapCounts};
use crate::dedup::PayloadRecord;
use crate::focus::FocusGate;
use crate::revisit::{self, PageMemory, Revisit};

/// Hosts listed in a status, by `λ_i`.
const STATUS_HOSTS: usize = 10;
/// The window of `fetches_per_second`.
const RATE_WINDOW: Duration = Duration::from_secs(10);

impl Crawler {
    /// Answers one question. A questioner that went away is not an error.
    pub(super) fn answer(&mut self, request: Request) {
        match request {
            Request::Status(reply) => {
                let _ = reply.send(self.status());
            }
            Request::Explain(url, reply) => {
                let _ = reply.send(self.explain(&url));
            }
        }
    }

    /// Counts a page fetch start for `fetches_per_second`, forgetting those older than the
    /// window (so the queue holds at most one window of starts).
    pub(super) fn note_start(&mut self, at: Instant) {
        self.recent_starts.push_back(at);
        self.forget_old_starts(at);
    }

    fn forget_old_starts(&mut self, clock: Instant) {
        while self.recent_starts.front().is_some_and(|&start| clock.duration_since(start) > RATE_WINDOW) {
            self.recent_starts.pop_front();
        }
    }

    fn status(&mut self) -> CrawlStatus {
        let now = unix_now();
        let clock = Instant::now();
        self.forget_old_starts(clock);
        let uptime = clock.duration_since(self.started);
        let window = uptime.min(RATE_WINDOW).as_secs_f64();
        let census = self.scheduler.census(now);
        let hosts = self
            .scheduler
            .hosts_by_lambda(STATUS_HOSTS)
            .into_iter()
            .map(|numbers| HostStatus {
                host: self.origin(numbers.host.0),
                lambda: numbers.lambda,
                capacity: numbers.capacity,
                fetches: numbers.fetches,
                pages: numbers.pages,
            })
            .collect();
        CrawlStatus {
            time: now,
            uptime: uptime.as_secs_f64(),
            revisit: self.config.revisit.name().to_owned(),
            budget: self.config.rate,
            lambda0: self.scheduler.lambda0(),
            expected_freshness: census.expected_freshness,
            pages: census.pages,
            fetched_pages: census.fetched,
            due: census.due,
            in_flight: self.jobs.len(),
            held_by_focus: self.focus.as_ref().map_or(0, FocusGate::held_pages),
            page_requests: self.page_requests,
            fetches_per_second: if window > 0.0 { self.recent_starts.len() as f64 / window } else { 0.0 },
            not_ok: self.summary.not_ok,
            bytes: self.summary.bytes,
            discovered: self.summary.discovered,
            robots_skipped: self.summary.skipped,
            robots_deferred: self.summary.robots_deferred,
            over_host_quota: self.summary.over_quota,
            over_domain_quota: self.summary.over_domain_quota,
            too_long: self.summary.too_long,
            throttled_out: self.summary.throttled_out,
            host_count: self.hosts.iter().flatten().count(),
            boilerplate_bytes: self
                .hosts
                .iter()
                .flatten()
                .map(|host| host.boilerplate.allocated_bytes() as u64)
                .sum(),
            identical_payloads: self.summary.identical_payloads,
            duplicates: self.summary.duplicates,
            payloads_indexed: self.payloads.len() as u64,
            payloads_unindexed: self.payloads.unindexed(),
            near_duplicates: self.summary.near_duplicates,
            near_duplicates_indexed: self.near_duplicates.len() as u64,
            sitemaps: SitemapCounts {
                rereads: self.summary.sitemap_rereads,
                not_modified: self.summary.sitemap_not_modified,
                changes: self.summary.sitemap_changes,
                changes_confirmed: self.summary.sitemap_changes_confirmed,
                vouched: self.summary.sitemap_vouched,
                misses: self.summary.sitemap_misses,
                lastmods_ignored: self.summary.sitemap_lastmods_ignored,
            },
            shard: self.shard_plan().map(|(plan, waiting)| ShardCounts {
                index: plan.index(),
                count: plan.count(),
                waiting,
                handed_over: self.summary.handed_over,
                handed_in: self.summary.handed_in,
            }),
            hosts,
        }
    }

    /// The origin of host `index`, from its robots.txt URL.
    fn origin(&self, index: u32) -> String {
        self.hosts
            .get(index as usize)
            .and_then(Option::as_ref)
            .map_or_else(|| format!("host {index}"), |state| state.robots_url.origin().ascii_serialization())
    }

    fn explain(&mut self, url: &str) -> Result<PageReport, ExplainError> {
        let url =
            freshet_url::canonicalize(url.trim()).map_err(|error| ExplainError::BadUrl(error.to_string()))?;
        let store_error = |error: freshet_frontier::StoreError| ExplainError::Store(error.to_string());
        let page = self.store.lookup(url.as_str()).map_err(store_error)?;
        let page = page.ok_or_else(|| ExplainError::Unknown(url.to_string()))?;
        let stored = self.store.page(page).map_err(store_error)?;
        let stored = stored.ok_or_else(|| ExplainError::Unknown(url.to_string()))?;
        if let Some((estimate, ahead)) = self.focus.as_ref().and_then(|gate| gate.held_position(page)) {
            return Err(ExplainError::HeldByFocus { url: url.to_string(), estimate, ahead });
        }
        let why = match self.scheduler.explain(page, unix_now()) {
            Ok(why) => why,
            Err(OnlineError::UnknownPage(_)) => return Err(ExplainError::NotScheduled(url.to_string())),
            Err(error) => return Err(ExplainError::Store(error.to_string())),
        };
        let memory = PageMemory::from_bytes(&stored.record.estimator).unwrap_or_default();
        let change_rate_std_error = (self.config.revisit == Revisit::Freshet
            && memory.history.intervals() > 0)
            .then(|| {
                let (crawl_prior, prior_fetches) = (self.config.change_rate_prior, self.config.prior_fetches);
                let prior = self.host_rates_mut(stored.record.host).prior(
                    crawl_prior,
                    memory.history.mean_interval(),
                    prior_fetches,
                )?;
                Some(revisit::estimate_rate(&memory.history, &prior).std_error)
            })
            .flatten();
        let payload_record = match &memory.capture {
            Some(capture) => PayloadRecord::of(capture, page, url.as_str(), |other| {
                Ok(self.store.page(other)?.map(|stored| stored.url))
            })
            .map_err(store_error)?,
            None => None,
        };
        Ok(PageReport {
            url: url.to_string(),
            weight: stored.record.weight,
            change_rate: stored.record.change_rate,
            change_rate_std_error,
            observations: memory.history.intervals(),
            changes: memory.history.changes(),
            last_fetch: stored.record.last_fetch,
            current_since: why.last_fetch,
            value: why.value,
            lambda0: why.lambda0,
            host_lambda: why.host_lambda,
            threshold: why.threshold,
            due_at: why.due_at.is_finite().then_some(why.due_at),
            status: describe(why.status),
            payload_record,
        })
    }
}

/// A page's status in words.
fn describe(status: Status) -> String {
    match status {
        Status::InFlight => "in flight: a fetch is under way".into(),
        Status::NeverDue => "never due at this threshold: V(∞) < λ_0".into(),
        Status::NotYetEligible => "not yet due: V(τ) < λ_0".into(),
        Status::HostBusy { until: None } => "due, but its host has a fetch in flight".into(),
        Status::HostBusy { until: Some(at) } => {
            format!("due, but its host's politeness holds it until {at:.3}")
        }
        Status::BehindOtherPages => {
            "due, behind other pages of its host that reached the threshold first".into()
        }
        Status::WaitingForBudget { until } => {
            format!("next on its host, waiting for a budget token until {until:.3}")
        }
        Status::Ready => "ready: fetched at the next decision".into(),
    }
}
