//! freshet's revisit policy for URLFrontier clients: when a client reports a URL it wants
//! fetched again (a `KnownURLItem` with a `refetchable_from_date`) and says what it saw
//! ([`Signals`]: whether the content changed, or its signature to compare), the service learns
//! the page's change rate and chooses the date itself, so that the crawl's revisits spend a
//! budget of fetches a second where they keep the most pages fresh.
//!
//! # The rule
//! - **Change rate** (seeds 000_df0cf756c1e6fcc1.txt, 004_e0cda6b04941d422.txt): each report
//!   after the first with a signal is one observation (the interval since the last report,
//!   changed or not) folded into the page's 96-byte `ChangeHistory`; the rate is the posterior
//!   under its queue's pooled Gamma prior ([`freshet_estimate::HostRates`], the crawler's rule),
//!   the crawl-wide prior being [`RevisitOptions::prior_rate`].
//! - **When** (seed 003_aad34b8e7abe1f9a.txt): the page is due when its crawl value
//!   `V(τ) = (w/λ)(1 − e^(−λτ)) − wτe^(−λτ)` reaches `λ_0`, the multiplier of the budget in the
//!   freshness problem over the crawl's revisited pages (`freshet_policy::solve`, re-solved as
//!   reports come in): `τ* = time_to_reach(λ_0)`, so that in the steady state the pages' rates
//!   `1/τ*` are the optimal ones and sum to the budget. `w` is the page's weight
//!   (`freshet.weight`, else 1).
//! - A page whose value never reaches `λ_0` at this budget (it changes too fast to be kept
//!   fresh: `w/λ < λ_0`), and a report without signals, keep the client's date.
//!
//! Host politeness is not in the problem: each queue's delay (`SetDelay`) paces its URLs when
//! they are served. Pure: time is a parameter.

use std::collections::HashMap;

use freshet_estimate::{ChangeHistory, HostRates, PRIOR_FETCHES, estimate_rate};
use freshet_frontier::PageRecord;
use freshet_policy::objective::Freshness;
use freshet_policy::{Page, Problem, solve, time_to_reach};
use freshet_schedule::online::PageId;

use crate::proto::StringList;

/// The metadata keys a client sets to let freshet choose a URL's next fetch date.
pub mod keys {
    /// `"true"` or `"false"`: whether the content changed since the client's previous fetch.
    pub const CHANGED: &str = "freshet.changed";
    /// A signature of the content (any string; compared with the previous report's).
    pub const SIGNATURE: &str = "freshet.signature";
    /// The page's importance `w` (a positive number; 1 when absent).
    pub const WEIGHT: &str = "freshet.weight";
}

/// What a client said of a fetch, from the item's metadata ([`keys`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Signals {
    /// `freshet.changed`.
    pub changed: Option<bool>,
    /// `freshet.signature`.
    pub signature: Option<String>,
    /// `freshet.weight`, if a positive finite number.
    pub weight: Option<f64>,
}

impl Signals {
    /// The signals in `metadata` (the first value of each key; unreadable values ignored).
    #[must_use]
    pub fn from_metadata(metadata: &HashMap<String, StringList>) -> Self {
        Self::from_metadata_with(metadata, &[])
    }

    /// [`from_metadata`](Self::from_metadata), with a signature also read from the first of
    /// `signature_keys` present when `freshet.signature` is absent: a client that already
    /// keeps a content digest in its metadata under a key of its own (a crawler's
    /// `signature`, say) needs no change to report it.
    #[must_use]
    pub fn from_metadata_with(metadata: &HashMap<String, StringList>, signature_keys: &[String]) -> Self {
        let first_value =
            |key: &str| metadata.get(key).and_then(|values| values.values.first()).map(String::as_str);
        let changed = first_value(keys::CHANGED).and_then(|value| match value.trim() {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        });
        let signature = std::iter::once(keys::SIGNATURE)
            .chain(signature_keys.iter().map(String::as_str))
            .find_map(first_value)
            .map(str::to_owned);
        let weight = first_value(keys::WEIGHT)
            .and_then(|value| value.trim().parse::<f64>().ok())
            .filter(|weight| weight.is_finite() && *weight > 0.0);
        Self { changed, signature, weight }
    }

    /// Whether the client said whether the content changed, one way or the other.
    #[must_use]
    pub fn observes(&self) -> bool {
        self.changed.is_some() || self.signature.is_some()
    }
}

/// The revisit policy's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RevisitOptions {
    /// Revisit fetches per second the crawl may spend (`k_0`).
    pub budget: f64,
    /// The crawl-wide prior change rate, per second (a page's before its queue has data).
    pub prior_rate: f64,
}

impl RevisitOptions {
    /// Options with `budget` fetches a second and a prior of one change a day.
    #[must_use]
    pub fn with_budget(budget: f64) -> Self {
        Self { budget, prior_rate: 1.0 / 86_400.0 }
    }
}

/// What the policy decided for one report: the fields of the page's new record.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// When the page is next served.
    pub due: f64,
    /// `w`.
    pub weight: f64,
    /// The learned `λ`, per second.
    pub change_rate: f64,
    /// The page's `ChangeHistory`, encoded.
    pub estimator: Vec<u8>,
    /// The signature's fingerprint (empty without a signature).
    pub fingerprint: Vec<u8>,
    /// Whether the page's history has observations (its rate counts in its queue's prior).
    has_data: bool,
}

/// The revisit state of one crawl: each revisited page's `(w, λ)`, each queue's pooled
/// prior, and `λ_0`.
#[derive(Debug)]
pub struct Revisits {
    options: RevisitOptions,
    host_rates: Vec<HostRates>,
    /// Pages scheduled by the policy: their queue, `(w, λ)` and whether `λ` is from data.
    pages: HashMap<PageId, (u32, Page, bool)>,
    /// `λ_0` from the last solve; `None` until the first or after enough reports.
    threshold: Option<f64>,
    reports_since_solve: usize,
}

impl Revisits {
    /// No page yet.
    #[must_use]
    pub fn new(options: RevisitOptions) -> Self {
        Self {
            options,
            host_rates: Vec::new(),
            pages: HashMap::new(),
            threshold: None,
            reports_since_solve: 0,
        }
    }

    /// Takes back a page the policy scheduled before the crawl was reopened (its record has an
    /// estimator's state and a due time).
    pub fn restore(&mut self, page: PageId, queue: u32, record: &PageRecord) {
        let Ok(history) = ChangeHistory::from_bytes(&record.estimator) else { return };
        if !(record.weight > 0.0 && record.change_rate > 0.0) {
            return;
        }
        let has_data = history.intervals() > 0;
        self.set(page, queue, Page::new(record.weight, record.change_rate), has_data);
        self.threshold = None;
    }

    fn rates_mut(&mut self, queue: u32) -> &mut HostRates {
        let index = queue as usize;
        if self.host_rates.len() <= index {
            self.host_rates.resize(index + 1, HostRates::default());
        }
        &mut self.host_rates[index]
    }

    fn set(&mut self, page: PageId, queue: u32, values: Page, has_data: bool) {
        self.forget(page);
        if has_data {
            self.rates_mut(queue).add(values.change_rate);
        }
        self.pages.insert(page, (queue, values, has_data));
    }

    /// The page is no longer revisited by the policy (done, deleted, or rescheduled by its
    /// client).
    pub fn forget(&mut self, page: PageId) {
        if let Some((queue, values, has_data)) = self.pages.remove(&page)
            && has_data
        {
            self.rates_mut(queue).remove(values.change_rate);
        }
    }

    /// Pages the policy schedules.
    #[must_use]
    pub fn pages(&self) -> usize {
        self.pages.len()
    }

    /// `λ_0`: the marginal freshness of one more revisit a second, solved over the revisited
    /// pages (with `extra`, the page being decided, in place of its old values) when stale.
    fn threshold(&mut self, extra: Option<(PageId, Page)>) -> f64 {
        let stale = self.reports_since_solve >= (self.pages.len() / 64).max(64);
        if let Some(threshold) = self.threshold.filter(|_| !stale) {
            return threshold;
        }
        let mut pages: Vec<Page> = self
            .pages
            .iter()
            .filter(|(page, _)| extra.is_none_or(|(extra, _)| **page != extra))
            .map(|(_, (_, values, _))| *values)
            .collect();
        pages.extend(extra.map(|(_, values)| values));
        let threshold = solve(Freshness, &Problem::budgeted(&pages, self.options.budget))
            .map_or(0.0, |solution| solution.lambda0);
        self.threshold = Some(threshold);
        self.reports_since_solve = 0;
        threshold
    }

    /// Decides a reported page's next fetch from `signals`, or `None` to keep the client's
    /// date (no signal). `record` is the page's record before this report, `queue` its queue,
    /// `client_date` the date the client asked for (kept for a page not worth a revisit at
    /// this budget). Changes nothing but the cached `λ_0`: [`apply`](Self::apply) the decision
    /// once stored.
    pub fn decide(
        &mut self,
        page: PageId,
        queue: u32,
        record: &PageRecord,
        signals: &Signals,
        now: f64,
        client_date: f64,
    ) -> Option<Decision> {
        if !signals.observes() {
            return None;
        }
        let fingerprint = signals
            .signature
            .as_deref()
            .map(|signature| xxhash_rust::xxh3::xxh3_64(signature.as_bytes()).to_le_bytes().to_vec())
            .unwrap_or_default();
        let changed = signals.changed.or_else(|| {
            (!record.fingerprint.is_empty() && !fingerprint.is_empty())
                .then(|| record.fingerprint != fingerprint)
        });
        let mut history =
            ChangeHistory::from_bytes(&record.estimator).unwrap_or_else(|_| ChangeHistory::new());
        if let (Some(changed), Some(previous)) = (changed, record.last_fetch)
            && now > previous
        {
            // Only an interval that is not finite and positive is refused: then nothing is
            // recorded, and the page keeps the rate it had.
            let _ = history.observe(now - previous, changed, None);
        }
        let has_data = history.intervals() > 0;
        let prior_rate = self.options.prior_rate;
        let prior = self.rates_mut(queue).prior(prior_rate, history.mean_interval(), PRIOR_FETCHES)?;
        let change_rate = if has_data { estimate_rate(&history, &prior).rate } else { prior.mean() };
        let weight = signals.weight.unwrap_or(if record.weight > 0.0 { record.weight } else { 1.0 });
        let values = Page::new(weight, change_rate);
        if !(change_rate.is_finite() && change_rate > 0.0) {
            return None;
        }
        self.reports_since_solve += 1;
        let threshold = self.threshold(Some((page, values)));
        let interval = time_to_reach(Freshness, values, threshold);
        let due = if interval.is_finite() { now + interval } else { client_date };
        let estimator = history.to_bytes().to_vec();
        Some(Decision { due, weight, change_rate, estimator, fingerprint, has_data })
    }

    /// Records a decision that was stored.
    pub fn apply(&mut self, page: PageId, queue: u32, decision: &Decision) {
        self.set(page, queue, Page::new(decision.weight, decision.change_rate), decision.has_data);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata(pairs: &[(&str, &[&str])]) -> HashMap<String, StringList> {
        pairs
            .iter()
            .map(|(key, values)| {
                let values = values.iter().map(|value| (*value).to_owned()).collect();
                ((*key).to_owned(), StringList { values })
            })
            .collect()
    }

    /// The first value of each key counts; a value that is not what the key takes is ignored.
    #[test]
    fn signals_are_read_from_the_metadata() {
        let read = |pairs: &[(&str, &[&str])]| Signals::from_metadata(&metadata(pairs));
        let all = read(&[
            (keys::CHANGED, &["true", "false"]),
            (keys::SIGNATURE, &["abc"]),
            (keys::WEIGHT, &[" 2.5"]),
        ]);
        assert_eq!(all, Signals { changed: Some(true), signature: Some("abc".into()), weight: Some(2.5) });
        assert!(all.observes());
        assert_eq!(read(&[(keys::CHANGED, &["false"])]).changed, Some(false));
        let bad = read(&[(keys::CHANGED, &["yes"]), (keys::WEIGHT, &["-1"]), ("depth", &["3"])]);
        assert_eq!(bad, Signals::default());
        assert!(!bad.observes());
        assert_eq!(read(&[(keys::WEIGHT, &["inf"])]).weight, None);
        let own_keys = ["digest".to_owned(), "signature".to_owned()];
        let with_keys = |pairs: &[(&str, &[&str])]| Signals::from_metadata_with(&metadata(pairs), &own_keys);
        assert_eq!(with_keys(&[("signature", &["s1"])]).signature.as_deref(), Some("s1"));
        assert_eq!(
            with_keys(&[("signature", &["s1"]), ("digest", &["d1"])]).signature.as_deref(),
            Some("d1")
        );
        let ours_first = with_keys(&[(keys::SIGNATURE, &["f1"]), ("digest", &["d1"])]);
        assert_eq!(ours_first.signature.as_deref(), Some("f1"));
        assert_eq!(read(&[("signature", &["s1"])]).signature, None, "only keys named are read");
        assert_eq!(read(&[(keys::CHANGED, &[])]).changed, None);
    }
}
