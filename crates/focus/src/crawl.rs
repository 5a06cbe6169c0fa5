//! Seed `002_987a179045e4afb6.txt`'s focused crawling algorithm: from the seeds, while budget is
//! left, score the frontier with the estimator (or let a bandit pick the estimator), take the
//! next `r` pages by the strategy (`r`: the refresh rate of the estimates), fetch them, learn.
//!
//! ```text
//! while budgetLeft > 0:
//!     frontier ← extractFrontier(G'); scoredFrontier ← estimator.scoreFrontier(G', frontier)
//!     NodeSequence ← strategy.getNextNodes(scoredFrontier, r)
//!     for u in NodeSequence: G' ← G' ∪ crawlNode(u); budgetLeft ← budgetLeft − 1
//! ```
//!
//! Each estimator keeps its frontier in a max-heap whose entries go stale as the page's
//! estimate moves; an entry is taken only if its key is still the page's estimate (every move
//! pushes the new one), so a fetch costs `O(pages whose estimate moved × log)`, not a rescoring
//! of the frontier. A regression's refit moves every estimate: its heap is rebuilt then
//! (`O(frontier)` every [`FocusConfig::refit_every`] pages), and any heap is rebuilt when stale
//! entries outnumber live ones four to one.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::bandit::{Arms, Bandit};
use crate::error::{FocusError, Result};
use crate::estimator::{Estimator, Knowledge};
use crate::graph::ScoredGraph;
use crate::regression::Regression;
use crate::rng::SplitMix;

/// How the next pages are taken from the scored frontier.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Strategy {
    /// The highest estimate (ties to the smaller page id). The slides: greedy wins once the
    /// crawled graph has more than ~1,000 nodes.
    Greedy,
    /// With probability `q` the highest estimate `m`; otherwise a page drawn uniformly among
    /// those estimated at least `m − ζ·|m|` (at most [`ALTERED_CANDIDATES`] of the best), since
    /// greedy is not always optimal (the slides' "altered greedy").
    AlteredGreedy {
        /// `q ∈ [0, 1]`.
        q: f64,
        /// `ζ ∈ [0, 1]`.
        zeta: f64,
    },
}

/// The most pages an altered greedy step draws among.
pub const ALTERED_CANDIDATES: usize = 64;

/// Which estimator scores the frontier.
#[derive(Debug, Clone, PartialEq)]
pub enum Selector {
    /// One estimator throughout.
    One(Estimator),
    /// A bandit choosing among `arms` at each refresh (seed 002's estimators 6 to 8).
    Bandit {
        /// The estimators to choose from.
        arms: Vec<Estimator>,
        /// How it chooses.
        policy: Bandit,
    },
}

/// A focused crawl's settings.
#[derive(Debug, Clone, PartialEq)]
pub struct FocusConfig {
    /// The estimator, or a bandit over several.
    pub selector: Selector,
    /// How pages are taken from the scored frontier.
    pub strategy: Strategy,
    /// Pages fetched per refresh of the estimates (`r ≥ 1`; the slides: 1 is best, and the
    /// score falls as it grows).
    pub refresh: usize,
    /// Pages between two fits of a regression estimator (`≥ 1`); at first the fits come at
    /// 8, 16, 32… pages, doubling up to this.
    pub refit_every: usize,
    /// The seed of the random draws (altered greedy, bandits): the same seed, the same crawl.
    pub seed: u64,
}

impl FocusConfig {
    /// One estimator, greedy, refreshed at every page, regressions refitted every 100 pages.
    #[must_use]
    pub fn greedy(estimator: Estimator) -> Self {
        Self {
            selector: Selector::One(estimator),
            strategy: Strategy::Greedy,
            refresh: 1,
            refit_every: 100,
            seed: 0,
        }
    }

    fn validate(&self) -> Result<()> {
        let probability = |name: &'static str, value: f64| {
            if (0.0..=1.0).contains(&value) {
                Ok(())
            } else {
                Err(FocusError::InvalidParameter { name, value, range: "[0, 1]" })
            }
        };
        let at_least_one = |name: &'static str, value: usize| {
            if value >= 1 {
                Ok(())
            } else {
                Err(FocusError::InvalidParameter { name, value: value as f64, range: "≥ 1" })
            }
        };
        at_least_one("refresh", self.refresh)?;
        at_least_one("refit_every", self.refit_every)?;
        if let Strategy::AlteredGreedy { q, zeta } = self.strategy {
            probability("q", q)?;
            probability("zeta", zeta)?;
        }
        if let Selector::Bandit { arms, policy } = &self.selector {
            if arms.is_empty() {
                return Err(FocusError::NoArms);
            }
            probability("epsilon", policy.epsilon())?;
            if let Bandit::VariableReset { reset, .. } = *policy {
                at_least_one("reset", reset)?;
            }
        }
        Ok(())
    }
}

/// What a focused crawl did.
#[derive(Debug, Clone, PartialEq)]
pub struct FocusedCrawl {
    /// The pages fetched after the seeds, in order (at most the budget; fewer when the
    /// frontier ran dry).
    pub sequence: Vec<u32>,
    /// Per arm of a bandit, the refreshes it chose (one entry for a single estimator).
    pub pulls: Vec<u64>,
}

/// A heap entry: a page's estimate when it was pushed.
#[derive(Debug, Clone, Copy)]
struct Entry {
    key: f64,
    page: u32,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Entry {}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Entry {
    /// The larger estimate first, then the smaller page id.
    fn cmp(&self, other: &Self) -> Ordering {
        self.key.total_cmp(&other.key).then_with(|| other.page.cmp(&self.page))
    }
}

/// Pages marked in one pass (a refresh's batch, an altered greedy step's candidates), cleared
/// in `O(1)` by moving to the next stamp.
#[derive(Debug)]
struct Marks {
    stamps: Vec<u32>,
    stamp: u32,
}

impl Marks {
    fn new(pages: u32) -> Self {
        Self { stamps: vec![0; pages as usize], stamp: 1 }
    }

    fn clear(&mut self) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.stamps.iter_mut().for_each(|stamp| *stamp = 0);
            self.stamp = 1;
        }
    }

    fn contains(&self, page: u32) -> bool {
        self.stamps.get(page as usize) == Some(&self.stamp)
    }

    /// Marks `page`; whether it was not marked yet.
    fn insert(&mut self, page: u32) -> bool {
        match self.stamps.get_mut(page as usize) {
            Some(stamp) if *stamp != self.stamp => {
                *stamp = self.stamp;
                true
            }
            _ => false,
        }
    }
}

/// One estimator's view of the frontier.
#[derive(Debug)]
struct Arm {
    estimator: Estimator,
    heap: BinaryHeap<Entry>,
    regression: Option<Regression>,
}

impl Arm {
    fn new(estimator: Estimator) -> Self {
        Self {
            estimator,
            heap: BinaryHeap::new(),
            regression: estimator.regression_inputs().map(Regression::new),
        }
    }

    fn score(&self, graph: &ScoredGraph, knowledge: &Knowledge, page: u32) -> f64 {
        let weights = self.regression.as_ref().map_or(&[][..], Regression::weights);
        knowledge.score(graph, self.estimator, page, weights)
    }

    fn push(&mut self, graph: &ScoredGraph, knowledge: &Knowledge, page: u32) {
        let key = self.score(graph, knowledge, page);
        self.heap.push(Entry { key, page });
    }

    /// The frontier's pages with their estimates now, stale entries gone.
    fn rebuild(&mut self, graph: &ScoredGraph, knowledge: &Knowledge) {
        let entries: Vec<Entry> = knowledge
            .frontier()
            .iter()
            .map(|&page| Entry { key: self.score(graph, knowledge, page), page })
            .collect();
        self.heap = BinaryHeap::from(entries);
    }

    /// After a fetch: the new estimates of the pages whose estimate moved.
    fn update(&mut self, graph: &ScoredGraph, knowledge: &Knowledge) {
        let (first, second) = knowledge.touched();
        for &page in first {
            self.push(graph, knowledge, page);
        }
        if self.estimator.reads_second_level() {
            for &page in second {
                self.push(graph, knowledge, page);
            }
        }
        if self.heap.len() > 4 * knowledge.frontier().len() + 1024 {
            self.rebuild(graph, knowledge);
        }
    }

    /// The live entry of the highest estimate that is not in `taken` (the refresh's pages so
    /// far), taken out. A page may have several live entries (two moves to the same
    /// estimate): the others are dropped when they come up, as taken or fetched.
    fn pop(&mut self, graph: &ScoredGraph, knowledge: &Knowledge, taken: &Marks) -> Option<Entry> {
        while let Some(entry) = self.heap.pop() {
            if !knowledge.is_crawled(entry.page)
                && !taken.contains(entry.page)
                && self.score(graph, knowledge, entry.page).to_bits() == entry.key.to_bits()
            {
                return Some(entry);
            }
        }
        None
    }

    /// The next page by `strategy`, not one of `taken`; `candidates` is scratch space.
    fn take(
        &mut self,
        graph: &ScoredGraph,
        knowledge: &Knowledge,
        strategy: Strategy,
        rng: &mut SplitMix,
        (taken, candidates): (&Marks, &mut Marks),
    ) -> Option<u32> {
        let best = self.pop(graph, knowledge, taken)?;
        let Strategy::AlteredGreedy { q, zeta } = strategy else { return Some(best.page) };
        if rng.uniform() < q {
            return Some(best.page);
        }
        let floor = best.key - zeta * best.key.abs();
        candidates.clear();
        candidates.insert(best.page);
        let mut drawn = vec![best];
        while drawn.len() < ALTERED_CANDIDATES {
            match self.pop(graph, knowledge, taken) {
                Some(entry) if entry.key < floor => {
                    self.heap.push(entry);
                    break;
                }
                // A second live entry of a candidate: one is enough.
                Some(entry) if !candidates.insert(entry.page) => {}
                Some(entry) => drawn.push(entry),
                None => break,
            }
        }
        let chosen = drawn.swap_remove(rng.index(drawn.len()));
        self.heap.extend(drawn);
        Some(chosen.page)
    }
}

/// A focused crawl of `graph` from `seeds` (fetched first, outside the budget, as seed 002's
/// seed subgraph `G_0`): `budget` pages more, chosen as `config` says.
///
/// # Errors
/// [`FocusError::PageOutOfRange`] for a seed outside the graph; [`FocusError::InvalidParameter`]
/// or [`FocusError::NoArms`] for a configuration out of range.
pub fn focused_crawl(
    graph: &ScoredGraph,
    seeds: &[u32],
    config: &FocusConfig,
    budget: usize,
) -> Result<FocusedCrawl> {
    config.validate()?;
    let page_count = graph.page_count();
    if let Some(&page) = seeds.iter().find(|&&seed| seed >= page_count) {
        return Err(FocusError::PageOutOfRange { page, page_count });
    }
    let (estimators, bandit) = match &config.selector {
        Selector::One(estimator) => (vec![*estimator], None),
        Selector::Bandit { arms, policy } => (arms.clone(), Some(Arms::new(*policy, arms.len()))),
    };
    let mut bandit = bandit;
    let mut arms: Vec<Arm> = estimators.into_iter().map(Arm::new).collect();
    let mut knowledge = Knowledge::new(page_count, seeds);
    let mut rng = SplitMix::new(config.seed);
    let mut since_refit = 0;
    let fetch = |knowledge: &mut Knowledge, arms: &mut [Arm], page: u32| {
        let sums = knowledge.features(page);
        for arm in arms.iter_mut() {
            if let Some(regression) = arm.regression.as_mut() {
                regression.observe(&sums, graph.page_score(page));
            }
        }
        knowledge.fetch(graph, page);
        for arm in arms.iter_mut() {
            arm.update(graph, knowledge);
        }
    };
    for &seed in seeds {
        fetch(&mut knowledge, &mut arms, seed);
    }
    let mut sequence = Vec::with_capacity(budget.min(page_count as usize));
    let mut pulls = vec![0_u64; arms.len()];
    let refreshes = budget.div_ceil(config.refresh);
    let mut refresh = 0;
    let mut batch = Vec::with_capacity(config.refresh);
    let (mut taken, mut candidates) = (Marks::new(page_count), Marks::new(page_count));
    while sequence.len() < budget {
        // Every `refit_every` pages, sooner while few are fetched (after 8, 16, 32…), so that
        // the first fit comes before the first hundred pages.
        if since_refit >= config.refit_every.min(sequence.len().max(8)) {
            since_refit = 0;
            for arm in &mut arms {
                if arm.regression.as_mut().is_some_and(Regression::refit) {
                    arm.rebuild(graph, &knowledge);
                }
            }
        }
        let chosen = match bandit.as_mut() {
            Some(bandit) => bandit.choose(refresh, refreshes, &mut rng),
            None => 0,
        };
        refresh += 1;
        let Some(arm) = arms.get_mut(chosen) else { break };
        // The estimates frozen for the refresh: its pages are taken before any is fetched.
        batch.clear();
        taken.clear();
        while batch.len() < config.refresh.min(budget - sequence.len()) {
            match arm.take(graph, &knowledge, config.strategy, &mut rng, (&taken, &mut candidates)) {
                Some(page) => {
                    taken.insert(page);
                    batch.push(page);
                }
                None => break,
            }
        }
        if batch.is_empty() {
            break;
        }
        pulls[chosen] += 1;
        let mut reward = 0.0;
        for &page in &batch {
            reward += graph.page_score(page);
            fetch(&mut knowledge, &mut arms, page);
            sequence.push(page);
        }
        since_refit += batch.len();
        if let Some(bandit) = bandit.as_mut() {
            bandit.reward(chosen, reward / batch.len() as f64);
        }
    }
    if let Some(bandit) = &bandit {
        pulls = bandit.total_pulls().to_vec();
    }
    Ok(FocusedCrawl { sequence, pulls })
}

/// The crawl's score after each page of `sequence`: the sum of the scores of the pages fetched
/// so far (seed 002's score of a crawl sequence), a page given twice counted once, a page
/// outside `page_scores` as 0.
#[must_use]
pub fn cumulative_scores(sequence: &[u32], page_scores: &[f64]) -> Vec<f64> {
    let mut seen = vec![false; page_scores.len()];
    let mut total = 0.0;
    sequence
        .iter()
        .map(|&page| {
            let index = page as usize;
            if let Some(first) = seen.get_mut(index)
                && !std::mem::replace(first, true)
            {
                total += page_scores[index];
            }
            total
        })
        .collect()
}
