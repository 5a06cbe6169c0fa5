//! Focused crawling (seed `002_987a179045e4afb6.txt`): a crawl after the pages about a topic,
//! given as words, fetches first the pages it estimates to be most about it.
//!
//! # Scores
//! As in the seed, a fetched page's score `β(u)` is how many times the topic's words occur in
//! its main text (`freshet-content`'s words: lower case, markup, scripts and noise left out;
//! every occurrence of any of the words counts once), and a link's score `α(u, v)` how many
//! times they occur in the text of `u`'s anchors to `v` (`freshet_fetch::links`' anchor texts,
//! normalised the same way). `freshet-focus`'s [`OnlineFocus`] turns them into the estimate
//! `β̃(v)` of every page not fetched yet: `fl_e` (the anchors; the CLI's default, the seed's
//! best in a crawl's first thousand pages), `fl_n` (the parents' scores), `lr_fl` (a regression
//! on those, refitted as pages are fetched, which the seed finds best later) and the others it
//! keeps. With a bandit ([`FocusBandit`], seed 002's estimators 6 to 8) over several of them,
//! each new page a host is handed is the best by the arm the bandit pulls, and the page's score,
//! once fetched, is that arm's reward.
//!
//! # The order of fetches
//! A page's weight `w` is its estimate before its first fetch and its score after, plus
//! [`FLOOR`] (`w > 0`, so that a page about nothing is still fetched, last, and revisited,
//! rarely): so a page estimated to be about the topic reaches the scheduler's threshold first
//! and, under the budget, takes the token from a less promising host's offer (seed 003's
//! tokens by value), and a fetched page about the topic is kept fresher.
//!
//! Within a host the scheduler serves the pages never fetched in the order they came (its
//! backlog keys them at their add time: `freshet_schedule::online`), which an estimate that
//! moves after the page was added could not reorder. So the crawl holds a host's new pages
//! back, in a queue by estimate (a heap whose stale entries are skipped), and hands the
//! scheduler at most `FocusGate::per_host` of them at a time (the host's in-flight limit, one
//! by default): when one's fetch ends, the host's best estimate then goes next, before the
//! host's delay has passed. (With one more out, the scheduler would take the two in the order
//! they came, not by estimate: the end-to-end redirect test saw it.) The
//! scheduler's own decisions are unchanged, as is every crawl without a topic.
//!
//! # Memory
//! About 72 bytes per page known, on top of an unfocused crawl's: 48 for the estimator's sums
//! (`OnlineFocus`), 8 for the page's place among the held pages, 16 for its live entry in its
//! host's heap (stale entries are dropped once they outnumber the live ones); a bandit keeps
//! one heap per arm, 16 bytes a page each.
//!
//! # What a restart keeps
//! The held pages are in the frontier store like any other page not fetched yet (nothing is
//! lost: a resumed crawl holds them again), but the estimates' sums are not stored: after a
//! resume a page's sums count the fetches since, and `bfs` its stored depth. The ordering
//! relearns; no URL is lost or fetched twice.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap, HashSet};

use freshet_focus::{Bandit, Estimator, OnlineBandit, OnlineFocus};
use freshet_schedule::online::{HostId, PageId};

use crate::error::{CrawlError, Result};

/// Added to every focus weight: the scheduler needs `w > 0`, and a page estimated at 0 must
/// still be fetched once the better ones are (and a fetched page about nothing revisited,
/// rarely). Small against a score of 1 (one occurrence of a topic word).
pub const FLOOR: f64 = 0.01;

/// Pages between two fits of `lr_fl`'s regression once 8, 16, 32… have been fetched (each fit
/// re-weights every page not fetched yet).
pub const REFIT_EVERY: usize = 256;

/// A focused crawl's topic and estimator.
#[derive(Clone, Debug, PartialEq)]
pub struct Focus {
    /// The topic's words, normalised as page text is (lower case); distinct.
    words: Vec<String>,
    /// The estimator of the pages not fetched yet (with a bandit, the first arm: it sets the
    /// scheduler weights of the pages handed out).
    pub estimator: Estimator,
    /// A bandit over several estimators (seed 002's estimators 6 to 8), if any.
    pub bandit: Option<FocusBandit>,
}

/// A bandit over estimators in a focused crawl: each new page a host is handed is the best
/// by the arm the bandit pulls, and the page's score, once fetched, is that arm's reward.
#[derive(Clone, Debug, PartialEq)]
pub struct FocusBandit {
    /// The estimators to choose from (distinct, at least one; each kept online).
    pub arms: Vec<Estimator>,
    /// How the bandit chooses.
    pub policy: Bandit,
    /// The pulls `mab_ε-first` explores a share of (the crawl's page budget).
    pub horizon: usize,
}

impl Focus {
    /// A topic of `words` (each one word once normalised: `"Bhutan"` is `bhutan`), estimated by
    /// `estimator` (one that `freshet_focus::OnlineFocus` keeps).
    ///
    /// # Errors
    /// [`CrawlError::InvalidConfig`] for no word, a word that normalises to nothing or to more
    /// than one word, or an estimator not kept online.
    pub fn new(words: &[String], estimator: Estimator) -> Result<Self> {
        let bad =
            |value: String, expected| Err(CrawlError::InvalidConfig { field: "focus", value, expected });
        if words.is_empty() {
            return bad(String::new(), "at least one word");
        }
        let mut normalised: Vec<String> = Vec::with_capacity(words.len());
        for word in words {
            let text = freshet_content::normalise(word);
            if text.is_empty() || text.contains(' ') {
                return bad(word.clone(), "one word each (letters or digits)");
            }
            if !normalised.contains(&text) {
                normalised.push(text);
            }
        }
        if !freshet_focus::ONLINE_ESTIMATORS.contains(&estimator) {
            return Err(CrawlError::InvalidConfig {
                field: "focus-estimator",
                value: estimator.name().to_owned(),
                expected: "one of bfs, fl_deg, fl_n, fl_e, fl_ne, lr_fl",
            });
        }
        Ok(Self { words: normalised, estimator, bandit: None })
    }

    /// A topic of `words` with a bandit over `arms` (see [`FocusBandit`]).
    ///
    /// # Errors
    /// As [`Focus::new`] for the words and each arm; [`CrawlError::InvalidConfig`] for no arm, an
    /// arm twice or a bad policy (`ε` outside `[0, 1]`, a reset of 0).
    pub fn with_bandit(
        words: &[String],
        arms: Vec<Estimator>,
        policy: Bandit,
        horizon: usize,
    ) -> Result<Self> {
        let Some(&first) = arms.first() else {
            return Err(CrawlError::InvalidConfig {
                field: "focus-estimator",
                value: String::new(),
                expected: "at least one estimator for the bandit's arms",
            });
        };
        let mut focus = Self::new(words, first)?;
        for (index, &arm) in arms.iter().enumerate() {
            Self::new(words, arm)?;
            if arms[..index].contains(&arm) {
                return Err(CrawlError::InvalidConfig {
                    field: "focus-estimator",
                    value: arm.name().to_owned(),
                    expected: "each of the bandit's arms once",
                });
            }
        }
        OnlineBandit::new(policy, arms.len(), 0, horizon).map_err(|error| CrawlError::InvalidConfig {
            field: "focus-bandit",
            value: format!("{} ({error})", policy.name()),
            expected: "epsilon in [0, 1] and a reset of at least 1",
        })?;
        focus.bandit = Some(FocusBandit { arms, policy, horizon });
        Ok(focus)
    }

    /// The topic's words, normalised.
    #[must_use]
    pub fn words(&self) -> &[String] {
        &self.words
    }
}

/// Counts a topic's words in text.
#[derive(Clone, Debug)]
pub(crate) struct TopicWords {
    words: HashSet<String>,
}

impl TopicWords {
    pub(crate) fn new(focus: &Focus) -> Self {
        Self { words: focus.words.iter().cloned().collect() }
    }

    /// Occurrences in already-normalised words.
    pub(crate) fn count_words<'a>(&self, words: impl IntoIterator<Item = &'a str>) -> f64 {
        words.into_iter().filter(|word| self.words.contains(*word)).count() as f64
    }

    /// Occurrences in raw text (an anchor's), normalised first.
    pub(crate) fn count_in_text(&self, text: &str) -> f64 {
        if text.is_empty() {
            return 0.0;
        }
        self.count_words(freshet_content::normalise(text).split(' '))
    }
}

/// A held page in its host's queue: its estimate when pushed, and the generation that says
/// whether that is still its live entry.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    estimate: f64,
    page: u32,
    generation: u32,
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Candidate {}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Candidate {
    /// The highest estimate first, then the lowest page (found first).
    fn cmp(&self, other: &Self) -> Ordering {
        self.estimate
            .total_cmp(&other.estimate)
            .then_with(|| other.page.cmp(&self.page))
            .then_with(|| self.generation.cmp(&other.generation))
    }
}

#[derive(Debug, Default)]
struct HostQueue {
    /// The held pages by each arm's estimate (one heap without a bandit).
    held: Vec<BinaryHeap<Candidate>>,
    /// New pages of the host handed to the scheduler and not fetched yet.
    released: u32,
}

/// The focused crawl's state: the estimates, and the new pages held back per host (see the
/// module docs).
#[derive(Debug)]
pub(crate) struct FocusGate {
    pub(crate) words: TopicWords,
    estimates: OnlineFocus,
    /// Per page: generation 0 if not held, else the generation of its live entry in its
    /// host's queue, and the host.
    held: Vec<Held>,
    generation: u32,
    /// Held pages, and entries no longer live (compacted when they outnumber the live ones).
    live: usize,
    stale: usize,
    released: HashMap<PageId, HostId>,
    hosts: HashMap<HostId, HostQueue>,
    /// New pages each host may have in the scheduler at once.
    per_host: u32,
    /// Scores of pages fetched since the last commit, learned when their links get ids.
    pending_scores: HashMap<PageId, f64>,
    /// Pages that redirected since the last commit (their target learns their links).
    pending_redirects: HashSet<PageId>,
    /// The estimators the hosts' queues are ordered by: the estimator, or the bandit's arms.
    arms: Vec<Estimator>,
    /// The bandit, and the arm that handed out each page not yet rewarded.
    bandit: Option<OnlineBandit>,
    chosen: HashMap<PageId, usize>,
    /// Hosts that may take new pages at the next [`top_up_deferred`](Self::top_up_deferred).
    deferred: Vec<HostId>,
}

/// A page's place among the held pages.
#[derive(Clone, Copy, Debug, Default)]
struct Held {
    generation: u32,
    host: u32,
}

impl FocusGate {
    pub(crate) fn new(focus: &Focus, max_in_flight_per_host: u32) -> Result<Self> {
        let (arms, bandit) = match &focus.bandit {
            Some(bandit) => {
                let online = OnlineBandit::new(bandit.policy, bandit.arms.len(), 0, bandit.horizon).map_err(
                    |error| CrawlError::InvalidConfig {
                        field: "focus-bandit",
                        value: format!("{} ({error})", bandit.policy.name()),
                        expected: "epsilon in [0, 1] and a reset of at least 1",
                    },
                )?;
                (bandit.arms.clone(), Some(online))
            }
            None => (vec![focus.estimator], None),
        };
        let estimates =
            OnlineFocus::new(focus.estimator, REFIT_EVERY).map_err(|error| CrawlError::InvalidConfig {
                field: "focus-estimator",
                value: format!("{} ({error})", focus.estimator.name()),
                expected: "one of bfs, fl_deg, fl_n, fl_e, fl_ne, lr_fl",
            })?;
        Ok(Self {
            words: TopicWords::new(focus),
            estimates,
            held: Vec::new(),
            generation: 0,
            live: 0,
            stale: 0,
            released: HashMap::new(),
            hosts: HashMap::new(),
            per_host: max_in_flight_per_host.max(1),
            pending_scores: HashMap::new(),
            pending_redirects: HashSet::new(),
            arms,
            bandit,
            chosen: HashMap::new(),
            deferred: Vec::new(),
        })
    }

    /// The scheduler weight of `page`: its score once fetched, else its estimate, plus
    /// [`FLOOR`].
    pub(crate) fn weight(&self, page: PageId) -> f64 {
        let value = match self.pending_scores.get(&page) {
            Some(&score) => score,
            None => self.estimates.score(page.0).unwrap_or_else(|| self.estimates.estimate(page.0)),
        };
        FLOOR + if value.is_finite() { value.max(0.0) } else { 0.0 }
    }

    /// A page known at `depth` links from the seeds (a resumed crawl's pages).
    pub(crate) fn add_page(&mut self, page: PageId, depth: u32) {
        self.estimates.add_page(page.0, depth);
    }

    /// A new page of `host` for the scheduler: it is held, then the host's best held pages go
    /// to the scheduler while the host has room. Returns those (perhaps this page, perhaps a
    /// better one held before, perhaps none).
    pub(crate) fn offer(&mut self, page: PageId, host: HostId) -> Vec<PageId> {
        self.hold(page, host);
        self.top_up(host)
    }

    /// New pages found together (a commit's links): all are held first, then each host's best
    /// go to the scheduler, so that a page found after others of its host in the same batch
    /// still goes first if it is estimated better. Returns the pages handed out, by host.
    pub(crate) fn offer_batch(&mut self, pages: &[(PageId, HostId)]) -> Vec<(HostId, Vec<PageId>)> {
        let mut hosts = Vec::new();
        for &(page, host) in pages {
            self.hold(page, host);
            if !hosts.contains(&host) {
                hosts.push(host);
            }
        }
        hosts
            .into_iter()
            .map(|host| (host, self.top_up(host)))
            .filter(|(_, released)| !released.is_empty())
            .collect()
    }

    fn hold(&mut self, page: PageId, host: HostId) {
        let index = page.0 as usize;
        if self.held.len() <= index {
            self.held.resize(index + 1, Held::default());
        }
        if self.held[index].generation == 0 {
            self.live += 1;
        } else {
            self.stale += self.arms.len();
        }
        self.generation = self.generation.wrapping_add(1).max(1);
        self.held[index] = Held { generation: self.generation, host: host.0 };
        let queue = self.hosts.entry(host).or_default();
        queue.held.resize_with(self.arms.len(), BinaryHeap::new);
        for (heap, &arm) in queue.held.iter_mut().zip(&self.arms) {
            let estimate = self.estimates.estimate_with(arm, page.0);
            heap.push(Candidate { estimate, page: page.0, generation: self.generation });
        }
    }

    fn is_live(&self, candidate: &Candidate) -> bool {
        self.held.get(candidate.page as usize).is_some_and(|held| held.generation == candidate.generation)
    }

    /// `page` left the new pages the scheduler holds for its host (its first fetch is over, or
    /// it was skipped), or it was held and is skipped: the host may take its next best page;
    /// returns those pages, to add to the scheduler.
    #[cfg(test)]
    pub(crate) fn settled(&mut self, page: PageId, host: HostId) -> Vec<PageId> {
        self.free_slot(page, host);
        self.top_up(host)
    }

    /// `page`'s first fetch is over or it was skipped, as `settled` (the tests' form, which
    /// tops the host up at once), but the host takes its next page only at
    /// [`top_up_deferred`](Self::top_up_deferred): the crawl calls that after the commit that
    /// follows the fetch, so that the links the fetch found (and the estimates they move)
    /// count in the choice of the host's next page.
    pub(crate) fn settled_later(&mut self, page: PageId, host: HostId) {
        self.free_slot(page, host);
        if !self.deferred.contains(&host) {
            self.deferred.push(host);
        }
    }

    /// The hosts [`settled_later`](Self::settled_later) left waiting take their next pages.
    pub(crate) fn top_up_deferred(&mut self) -> Vec<(HostId, Vec<PageId>)> {
        let hosts = std::mem::take(&mut self.deferred);
        hosts
            .into_iter()
            .map(|host| (host, self.top_up(host)))
            .filter(|(_, released)| !released.is_empty())
            .collect()
    }

    /// Whether some host waits for [`top_up_deferred`](Self::top_up_deferred).
    pub(crate) fn has_deferred(&self) -> bool {
        !self.deferred.is_empty()
    }

    /// `page` no longer holds a place among its host's new pages out, or among the held ones.
    fn free_slot(&mut self, page: PageId, host: HostId) {
        if let Some(slot) = self.held.get_mut(page.0 as usize).filter(|held| held.generation != 0) {
            slot.generation = 0;
            self.live -= 1;
            self.stale += self.arms.len();
        }
        // A page a bandit's arm chose that brought no content (a failure, a redirect, a skip)
        // rewards the arm with 0 now: no score will come for it.
        if !self.pending_scores.contains_key(&page)
            && let (Some(arm), Some(bandit)) = (self.chosen.remove(&page), self.bandit.as_mut())
        {
            bandit.reward(arm, 0.0);
        }
        if self.released.remove(&page).is_some()
            && let Some(queue) = self.hosts.get_mut(&host)
        {
            queue.released = queue.released.saturating_sub(1);
        }
    }

    /// Hands `host`'s best held pages to the scheduler while it has room: each the best by the
    /// arm the bandit pulls (or by the estimator).
    fn top_up(&mut self, host: HostId) -> Vec<PageId> {
        let mut out = Vec::new();
        let per_host = self.per_host;
        while self.hosts.get(&host).is_some_and(|queue| queue.released < per_host) {
            let arm = self.bandit.as_mut().map_or(0, OnlineBandit::choose);
            let Some(page) = self.pop_live(host, arm) else { break };
            if let Some(queue) = self.hosts.get_mut(&host) {
                queue.released += 1;
            }
            self.held[page as usize].generation = 0;
            self.live -= 1;
            // The page's entries in the other arms' heaps are stale now.
            self.stale += self.arms.len() - 1;
            self.released.insert(PageId(page), host);
            if self.bandit.is_some() {
                self.chosen.insert(PageId(page), arm);
            }
            out.push(PageId(page));
        }
        out
    }

    /// The best live held page of `host` by arm `arm`, taken out of that arm's heap.
    fn pop_live(&mut self, host: HostId, arm: usize) -> Option<u32> {
        let queue = self.hosts.get_mut(&host)?;
        let heap = queue.held.get_mut(arm)?;
        while let Some(candidate) = heap.pop() {
            let live = self
                .held
                .get(candidate.page as usize)
                .is_some_and(|held| held.generation == candidate.generation);
            if live {
                return Some(candidate.page);
            }
            self.stale = self.stale.saturating_sub(1);
        }
        None
    }

    /// A fetched page's score, kept until its links have page ids ([`learn`](Self::learn)).
    pub(crate) fn scored(&mut self, page: PageId, score: f64) {
        self.pending_scores.insert(page, score);
    }

    /// `page` redirected: its links (the target) are learned as a redirect.
    pub(crate) fn redirect_from(&mut self, page: PageId) {
        self.pending_redirects.insert(page);
    }

    /// Whether `page` redirected since the last commit (and is forgotten as such).
    pub(crate) fn is_redirect(&mut self, page: PageId) -> bool {
        self.pending_redirects.remove(&page)
    }

    /// The host of a page the gate holds or has released unfetched.
    pub(crate) fn host_of(&self, page: PageId) -> Option<HostId> {
        if let Some(&host) = self.released.get(&page) {
            return Some(host);
        }
        self.held.get(page.0 as usize).filter(|held| held.generation != 0).map(|held| HostId(held.host))
    }

    /// `page` was fetched and links to `links` (page id, anchor score): the estimates learn it.
    /// Returns the pages whose weight moved and that the scheduler has (to update there); the
    /// held ones are queued again by their new estimate here.
    pub(crate) fn learn(&mut self, page: PageId, links: &[(u32, f64)]) -> Vec<PageId> {
        let score = self.pending_scores.remove(&page).unwrap_or(0.0);
        if let (Some(arm), Some(bandit)) = (self.chosen.remove(&page), self.bandit.as_mut()) {
            bandit.reward(arm, score);
        }
        let refitted = match self.estimates.fetched(page.0, score, links) {
            Ok(learned) => learned.refitted,
            // Scores are counts, never negative or NaN; were one refused, nothing is learned.
            Err(_) => false,
        };
        if refitted && self.arms.contains(&Estimator::RegressionFirst) {
            return self.reweigh_all();
        }
        let touched = self.estimates.touched().to_vec();
        self.reweigh(&touched)
    }

    /// `from` redirected to `to` (see `OnlineFocus::redirected`).
    pub(crate) fn redirected(&mut self, from: PageId, to: PageId) -> Vec<PageId> {
        self.pending_scores.remove(&from);
        self.estimates.redirected(from.0, to.0);
        let touched = self.estimates.touched().to_vec();
        self.reweigh(&touched)
    }

    fn reweigh(&mut self, touched: &[u32]) -> Vec<PageId> {
        let mut in_scheduler = Vec::new();
        for &page in touched {
            let page = PageId(page);
            if self.released.contains_key(&page) {
                in_scheduler.push(page);
            } else if let Some(held) =
                self.held.get(page.0 as usize).copied().filter(|held| held.generation != 0)
            {
                self.hold(page, HostId(held.host));
            }
        }
        self.compact_if_stale();
        in_scheduler
    }

    /// After a refit every estimate moved: every host's queue is rebuilt, and every released
    /// page re-weighed.
    fn reweigh_all(&mut self) -> Vec<PageId> {
        let mut queues = std::mem::take(&mut self.hosts);
        for queue in queues.values_mut() {
            for (heap, &arm) in queue.held.iter_mut().zip(&self.arms) {
                let entries = std::mem::take(heap).into_vec();
                let rebuilt: Vec<Candidate> = entries
                    .into_iter()
                    .filter(|candidate| self.is_live(candidate))
                    .map(|candidate| Candidate {
                        estimate: self.estimates.estimate_with(arm, candidate.page),
                        ..candidate
                    })
                    .collect();
                *heap = BinaryHeap::from(rebuilt);
            }
        }
        self.hosts = queues;
        self.stale = 0;
        self.released.keys().copied().collect()
    }

    /// Drops the entries no longer live once they outnumber the live ones (and 1,024).
    fn compact_if_stale(&mut self) {
        if self.stale <= (self.live * self.arms.len()).max(1_024) {
            return;
        }
        let held = &self.held;
        for queue in self.hosts.values_mut() {
            for heap in &mut queue.held {
                heap.retain(|candidate| {
                    held.get(candidate.page as usize)
                        .is_some_and(|held| held.generation == candidate.generation)
                });
            }
        }
        self.stale = 0;
    }

    /// Nothing is in the scheduler or in flight: no released page is out, whatever the counts
    /// say. Resets them and hands out every host's best held pages (see
    /// `Crawler::release_stranded`).
    pub(crate) fn release_stranded(&mut self) -> Vec<(HostId, Vec<PageId>)> {
        self.released.clear();
        let hosts: Vec<HostId> = self.hosts.keys().copied().collect();
        let mut out = Vec::new();
        for host in hosts {
            if let Some(queue) = self.hosts.get_mut(&host) {
                queue.released = 0;
            }
            let pages = self.top_up(host);
            if !pages.is_empty() {
                out.push((host, pages));
            }
        }
        out
    }

    /// If `page` is held back: its estimate, and how many held pages of its host come before it.
    /// `O(the host's queue)`, for `explain`.
    pub(crate) fn held_position(&self, page: PageId) -> Option<(f64, usize)> {
        let held = self.held.get(page.0 as usize).filter(|held| held.generation != 0)?;
        let estimate = self.estimates.estimate(page.0);
        let me = Candidate { estimate, page: page.0, generation: held.generation };
        let queue = self.hosts.get(&HostId(held.host))?;
        let heap = queue.held.first()?;
        let ahead = heap.iter().filter(|candidate| self.is_live(candidate) && **candidate > me).count();
        Some((estimate, ahead))
    }

    /// Pulls of each arm rewarded so far (empty without a bandit), for the crawl's summary.
    pub(crate) fn arm_pulls(&self) -> Vec<(Estimator, u64)> {
        match &self.bandit {
            Some(bandit) => self.arms.iter().copied().zip(bandit.rewarded_pulls().iter().copied()).collect(),
            None => Vec::new(),
        }
    }

    /// Pages held back, for the status.
    pub(crate) fn held_pages(&self) -> usize {
        self.live
    }

    /// `page`'s score if fetched.
    #[cfg(test)]
    pub(crate) fn score(&self, page: PageId) -> Option<f64> {
        self.estimates.score(page.0)
    }

    /// Whether `page` is held back (not in the scheduler).
    #[cfg(test)]
    pub(crate) fn is_held(&self, page: PageId) -> bool {
        self.held.get(page.0 as usize).is_some_and(|held| held.generation != 0)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use proptest::prelude::*;

    use super::*;

    fn gate(per_host_in_flight: u32) -> FocusGate {
        let focus = Focus::new(&["Bhutan".to_owned()], Estimator::FirstEdges).unwrap();
        FocusGate::new(&focus, per_host_in_flight).unwrap()
    }

    #[test]
    fn a_held_page_costs_8_bytes_and_its_heap_entry_16() {
        assert_eq!(std::mem::size_of::<Held>(), 8);
        assert_eq!(std::mem::size_of::<Candidate>(), 16);
    }

    #[test]
    fn words_are_normalised_and_checked() {
        let focus =
            Focus::new(&["Bhutan".into(), "THIMPHU".into(), "bhutan".into()], Estimator::RegressionFirst)
                .unwrap();
        assert_eq!(focus.words(), &["bhutan", "thimphu"]);
        assert!(Focus::new(&[], Estimator::FirstEdges).is_err());
        assert!(Focus::new(&["two words".into()], Estimator::FirstEdges).is_err());
        assert!(Focus::new(&["...".into()], Estimator::FirstEdges).is_err());
        assert!(Focus::new(&["x".into()], Estimator::SecondNodes).is_err());
        let words = TopicWords::new(&focus);
        assert_eq!(words.count_in_text("Bhutan, bhutan! Thimphu is in BHUTAN."), 4.0);
        assert_eq!(words.count_in_text("Bhutanese"), 0.0);
    }

    #[test]
    fn a_host_gets_its_best_held_page_next() {
        let mut gate = gate(2);
        let host = HostId(0);
        // Two go to the scheduler (two in flight); the rest are held.
        assert_eq!(gate.offer(PageId(1), host), vec![PageId(1)]);
        assert_eq!(gate.offer(PageId(2), host), vec![PageId(2)]);
        for page in 3..=5 {
            assert!(gate.offer(PageId(page), host).is_empty());
        }
        assert_eq!(gate.held_pages(), 3);
        // Page 0 is fetched and its anchors praise page 5, then page 4.
        gate.scored(PageId(0), 1.0);
        let updated = gate.learn(PageId(0), &[(5, 2.0), (4, 1.0), (2, 1.0)]);
        assert_eq!(updated, vec![PageId(2)], "only a released page needs the scheduler's update");
        assert!(gate.weight(PageId(5)) > gate.weight(PageId(4)));
        assert!(gate.weight(PageId(4)) > gate.weight(PageId(3)));
        assert_eq!(gate.weight(PageId(3)), FLOOR);
        // Page 3 (estimate 0) waits behind pages 5 and 4; page 1 is in the scheduler.
        assert_eq!(gate.held_position(PageId(3)), Some((0.0, 2)));
        assert_eq!(gate.held_position(PageId(5)), Some((2.0, 0)));
        assert_eq!(gate.held_position(PageId(1)), None);
        // Page 1's first fetch is over: the host's best held page goes next.
        assert_eq!(gate.settled(PageId(1), host), vec![PageId(5)]);
        assert_eq!(gate.settled(PageId(2), host), vec![PageId(4)]);
        assert_eq!(gate.settled(PageId(5), host), vec![PageId(3)]);
        assert_eq!(gate.held_pages(), 0);
        assert!(gate.settled(PageId(4), host).is_empty());
        // A new page of a host with room goes straight to the scheduler.
        assert_eq!(gate.offer(PageId(6), host), vec![PageId(6)]);
        // Pages found together are held together: the best of the batch goes first, wherever it
        // stood in it.
        gate.scored(PageId(20), 0.0);
        gate.learn(PageId(20), &[(9, 3.0)]);
        let batch: Vec<(PageId, HostId)> = (7..=9).map(|page| (PageId(page), host)).collect();
        let other = HostId(9);
        let batch: Vec<(PageId, HostId)> = batch.into_iter().map(|(page, _)| (page, other)).collect();
        assert_eq!(gate.offer_batch(&batch), vec![(other, vec![PageId(9), PageId(7)])]);
    }

    #[test]
    fn a_bandit_hands_out_each_arm_s_best_and_learns_from_the_scores() {
        let focus = Focus::with_bandit(
            &["glacier".to_owned()],
            vec![Estimator::FirstNodes, Estimator::FirstEdges],
            Bandit::EpsilonGreedy { epsilon: 0.0 },
            1_000,
        )
        .unwrap();
        let mut gate = FocusGate::new(&focus, 0).unwrap();
        let host = HostId(0);
        assert_eq!(gate.offer(PageId(1), host), vec![PageId(1)]);
        for page in 2..=4 {
            assert!(gate.offer(PageId(page), host).is_empty());
        }
        // Page 10 (score 5) links to 2 with a plain anchor; pages 11 and 12 (score 0) link to 3
        // and 4 with anchors that name the topic twice and once: fl_n ranks 2 first, fl_e 3 then
        // 4. (Page 1 was arm 0's pull, fl_n's.)
        gate.scored(PageId(10), 5.0);
        gate.learn(PageId(10), &[(2, 0.0)]);
        gate.scored(PageId(11), 0.0);
        gate.learn(PageId(11), &[(3, 2.0)]);
        gate.scored(PageId(12), 0.0);
        gate.learn(PageId(12), &[(4, 1.0)]);
        // Page 1 (fl_n's) says nothing of the topic; as in the crawl, its score is noted, then
        // its fetch settled, then learned at the commit. The untried arm goes next: fl_e's best.
        gate.scored(PageId(1), 0.0);
        assert_eq!(gate.settled(PageId(1), host), vec![PageId(3)]);
        gate.learn(PageId(1), &[]);
        // Page 3 (fl_e's) says it 6 times. The next page is chosen before that reward comes:
        // an arm not yet rewarded goes first, so fl_e again: page 4 (fl_n would take page 2).
        gate.scored(PageId(3), 6.0);
        assert_eq!(gate.settled(PageId(3), host), vec![PageId(4)]);
        gate.learn(PageId(3), &[]);
        assert_eq!(gate.arm_pulls(), vec![(Estimator::FirstNodes, 1), (Estimator::FirstEdges, 1)]);
        // Page 4's fetch fails (no score): fl_e is rewarded 0 at once, and page 2 goes next.
        assert_eq!(gate.settled(PageId(4), host), vec![PageId(2)]);
        assert_eq!(gate.arm_pulls(), vec![(Estimator::FirstNodes, 1), (Estimator::FirstEdges, 2)]);
        assert!(
            Focus::with_bandit(&["x".into()], vec![], Bandit::EpsilonGreedy { epsilon: 0.1 }, 1).is_err()
        );
        let twice = vec![Estimator::FirstEdges, Estimator::FirstEdges];
        assert!(Focus::with_bandit(&["x".into()], twice, Bandit::EpsilonGreedy { epsilon: 0.1 }, 1).is_err());
        let bad = Bandit::EpsilonGreedy { epsilon: 2.0 };
        assert!(Focus::with_bandit(&["x".into()], vec![Estimator::FirstEdges], bad, 1).is_err());
    }

    /// What a crawl may do to the gate, for the model test below.
    #[derive(Clone, Debug)]
    enum Step {
        /// A new page of host `host % 3`.
        Offer { host: u32 },
        /// The `pick`-th page handed out finishes its first fetch with `score` and links to
        /// the `links`-th newest pages with anchor scores.
        Fetch { pick: usize, score: u8, links: Vec<(usize, u8)> },
        /// The `pick`-th held page is skipped (robots.txt).
        Skip { pick: usize },
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            3 => (0_u32..3).prop_map(|host| Step::Offer { host }),
            3 => (any::<usize>(), 0_u8..4, proptest::collection::vec((0_usize..8, 0_u8..3), 0..4))
                .prop_map(|(pick, score, links)| Step::Fetch { pick, score, links }),
            1 => any::<usize>().prop_map(|pick| Step::Skip { pick }),
        ]
    }

    /// The pages as the crawl sees them: held by the gate, out (in the scheduler or in flight),
    /// handed out at some time, skipped while held.
    #[derive(Default)]
    struct Model {
        held: Vec<u32>,
        out: Vec<u32>,
        handed: HashSet<u32>,
        skipped: HashSet<u32>,
    }

    impl Model {
        fn receive(&mut self, pages: Vec<PageId>) -> Result<(), TestCaseError> {
            for page in pages {
                prop_assert!(!self.skipped.contains(&page.0), "page {} skipped, then handed out", page.0);
                prop_assert!(self.handed.insert(page.0), "page {} handed out twice", page.0);
                prop_assert!(self.held.contains(&page.0), "page {} was not held", page.0);
                self.held.retain(|&other| other != page.0);
                self.out.push(page.0);
            }
            Ok(())
        }
    }

    proptest! {
        /// Against a model: every page offered is handed out at most once, a host never has more
        /// than its share (its two in flight) out at once, a held page is never out, and no page is stranded: once
        /// the crawl has nothing out, every page still held is handed out in turn.
        #[test]
        fn the_gate_hands_out_every_page_once_within_each_host_s_share(
            steps in proptest::collection::vec(step(), 1..120),
            bandit in any::<bool>(),
        ) {
            let focus = if bandit {
                Focus::with_bandit(
                    &["glacier".to_owned()],
                    vec![Estimator::FirstNodes, Estimator::FirstEdges, Estimator::RegressionFirst],
                    Bandit::EpsilonGreedy { epsilon: 0.2 },
                    100,
                )
                .unwrap()
            } else {
                Focus::new(&["glacier".to_owned()], Estimator::FirstEdges).unwrap()
            };
            let mut gate = FocusGate::new(&focus, 2).unwrap();
            let mut model = Model::default();
            let mut next_page = 0_u32;
            let host_of = |page: u32| HostId(page % 3);
            for step in steps {
                match step {
                    Step::Offer { host } => {
                        // Page ids by host: page % 3 is its host.
                        let page = next_page * 3 + host;
                        next_page += 1;
                        model.held.push(page);
                        model.receive(gate.offer(PageId(page), host_of(page)))?;
                    }
                    Step::Fetch { pick, score, links } if !model.out.is_empty() => {
                        let page = model.out.remove(pick % model.out.len());
                        gate.scored(PageId(page), f64::from(score));
                        model.receive(gate.settled(PageId(page), host_of(page)))?;
                        let known: Vec<u32> = model.held.iter().chain(&model.out).copied().collect();
                        let links: Vec<(u32, f64)> = links
                            .into_iter()
                            .filter_map(|(index, anchor)| {
                                known.iter().rev().nth(index).map(|&target| (target, f64::from(anchor)))
                            })
                            .collect();
                        for moved in gate.learn(PageId(page), &links) {
                            prop_assert!(!model.held.contains(&moved.0), "a held page re-weighed in the scheduler");
                        }
                    }
                    Step::Skip { pick } if !model.held.is_empty() => {
                        let page = model.held.remove(pick % model.held.len());
                        model.skipped.insert(page);
                        model.receive(gate.settled(PageId(page), host_of(page)))?;
                    }
                    _ => {}
                }
                for host in 0..3 {
                    let out_of_host = model.out.iter().filter(|&&page| page % 3 == host).count();
                    prop_assert!(out_of_host <= 2, "host {} has {} out", host, out_of_host);
                }
                prop_assert_eq!(gate.held_pages(), model.held.len());
            }
            // Drain: fetch whatever is out; every held page must come out in the end.
            while let Some(page) = model.out.pop() {
                model.receive(gate.settled(PageId(page), host_of(page)))?;
            }
            let held = &model.held;
            prop_assert!(held.is_empty(), "stranded: {:?}", held);
        }
    }

    #[test]
    fn a_held_page_that_is_skipped_is_never_handed_out() {
        let mut gate = gate(0);
        let host = HostId(3);
        assert_eq!(gate.offer(PageId(1), host), vec![PageId(1)]);
        assert!(gate.offer(PageId(2), host).is_empty());
        assert!(gate.offer(PageId(3), host).is_empty());
        // Page 2 is skipped (robots.txt) while held.
        assert!(gate.settled(PageId(2), host).is_empty(), "the host is full");
        assert!(!gate.is_held(PageId(2)));
        assert_eq!(gate.settled(PageId(1), host), vec![PageId(3)]);
    }

    #[test]
    fn stale_entries_are_dropped_and_fetched_pages_weigh_their_score() {
        let mut gate = gate(0);
        let host = HostId(1);
        assert_eq!(gate.offer(PageId(0), host), vec![PageId(0)]);
        for page in 1..=2_000 {
            assert!(gate.offer(PageId(page), host).is_empty());
        }
        // Many re-estimates of the same pages: the queue must not grow without bound.
        for parent in 3_000..3_400 {
            gate.scored(PageId(parent), 0.0);
            let links: Vec<(u32, f64)> = (1..=10).map(|page| (page, 1.0)).collect();
            gate.learn(PageId(parent), &links);
        }
        let queued = gate.hosts[&host].held[0].len();
        // Compacted once the stale entries outnumber the 2,000 live ones: 6,000 without.
        assert!(queued <= 2 * 2_000 + 10, "{queued}");
        gate.scored(PageId(0), 3.0);
        gate.learn(PageId(0), &[]);
        assert_eq!(gate.weight(PageId(0)), FLOOR + 3.0);
        assert_eq!(gate.score(PageId(0)), Some(3.0));
        // The best of the held pages (1..=10, estimate 400) come out first, by id.
        let next = gate.settled(PageId(0), host);
        assert_eq!(next, vec![PageId(1)]);
    }
}
