//! What a crawl knows of the pages it has not fetched, and the estimators of seed
//! `002_987a179045e4afb6.txt` that turn it into a score `β̃(v)`.
//!
//! With `P(v)` the fetched pages that link to `v` (its known parents), `β` a fetched page's
//! score and `α` a fetched page's link's score (see [`crate::ScoredGraph`]):
//!
//! ```text
//! bfs     1 / (l(v) + 1)                    l(v): links from the seeds to v (estimator 1)
//! opic    C(v)                              OPIC's cash (estimator 3: (H(v) + C(v))/(G + 1),
//!                                           H(v) = 0 and G shared by every unfetched page)
//! fl_deg  |P(v)|                            (estimator 4: the first-level neighbourhood)
//! fl_n    Σ_{u∈P(v)} β(u)
//! fl_e    Σ_{u∈P(v)} α(u, v)
//! fl_ne   Σ_{u∈P(v)} β(u) α(u, v)
//! sl_n    Σ_{u∈P(v)} Σ_{w fetched, u∈P(w)} β(w)             (the second level: v's siblings)
//! sl_e    Σ_{u∈P(v)} Σ_{w fetched, u∈P(w)} α(u, w)
//! sl_ne   Σ_{u∈P(v)} Σ_{w fetched, u∈P(w)} β(w) α(u, w)
//! lr_fl   θ · (1, fl_deg, fl_n, fl_e, fl_ne)                (estimator 5: a linear regression
//! lr_sl   θ · (1, fl_*, sl_n, sl_e, sl_ne)                   trained on the fetched pages)
//! oracle  β(v)                                               (the true score: the yardstick)
//! ```
//!
//! Everything is kept up to date incrementally as pages are fetched, as a crawler would: a
//! fetch of `x` adds to the first-level sums of `x`'s unfetched targets (`O(out-degree)`), and,
//! through each fetched parent `u` of `x`, to the second-level sums of `u`'s unfetched targets
//! (`O(Σ out-degree of x's fetched parents)`: the slides' "sl_ estimators are slower"). The
//! second level is `sl_*(v) = Σ_{u∈P(v)} S(u)` with `S(u) = Σ_{w fetched, u∈P(w)} (β(w), α(u, w),
//! β(w)α(u, w))`: `S(u)` is summed over `u`'s fetched children when `u` is fetched (and added to
//! each of its unfetched children), and each child fetched later adds its part to them.

use crate::graph::ScoredGraph;

/// The first- and second-level sums of an unfetched page (see the module docs).
pub(crate) const FEATURES: usize = 7;
const FL_DEG: usize = 0;
const FL_N: usize = 1;
const FL_E: usize = 2;
const FL_NE: usize = 3;
const SL_N: usize = 4;
const SL_E: usize = 5;
const SL_NE: usize = 6;

/// An estimator of an unfetched page's score (seed 002's estimators 1 to 5, and the oracle).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Estimator {
    /// `1/(l(v) + 1)`: breadth first.
    Bfs,
    /// OPIC's cash.
    Opic,
    /// Known in-degree `|P(v)|`.
    FirstDegree,
    /// Sum of the parents' scores.
    FirstNodes,
    /// Sum of the scores of the links to `v`.
    FirstEdges,
    /// Sum of parent score × link score.
    FirstNodesEdges,
    /// Sum over the parents of their fetched children's scores.
    SecondNodes,
    /// Sum over the parents of the scores of their links to fetched children.
    SecondEdges,
    /// Sum over the parents of child score × link score.
    SecondNodesEdges,
    /// A linear regression on the first-level sums (and a constant), refitted on the fetched
    /// pages' scores every [`crate::FocusConfig::refit_every`] pages.
    RegressionFirst,
    /// A linear regression on the first- and second-level sums.
    RegressionSecond,
    /// The true score: a perfect estimator.
    Oracle,
}

impl Estimator {
    /// Every estimator, in the order of the module docs.
    pub const ALL: [Self; 12] = [
        Self::Bfs,
        Self::Opic,
        Self::FirstDegree,
        Self::FirstNodes,
        Self::FirstEdges,
        Self::FirstNodesEdges,
        Self::SecondNodes,
        Self::SecondEdges,
        Self::SecondNodesEdges,
        Self::RegressionFirst,
        Self::RegressionSecond,
        Self::Oracle,
    ];

    /// Seed 002's name: `bfs`, `opic`, `fl_deg`, `fl_n`, `fl_e`, `fl_ne`, `sl_n`, `sl_e`,
    /// `sl_ne`, `lr_fl`, `lr_sl`, `oracle`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Bfs => "bfs",
            Self::Opic => "opic",
            Self::FirstDegree => "fl_deg",
            Self::FirstNodes => "fl_n",
            Self::FirstEdges => "fl_e",
            Self::FirstNodesEdges => "fl_ne",
            Self::SecondNodes => "sl_n",
            Self::SecondEdges => "sl_e",
            Self::SecondNodesEdges => "sl_ne",
            Self::RegressionFirst => "lr_fl",
            Self::RegressionSecond => "lr_sl",
            Self::Oracle => "oracle",
        }
    }

    /// The estimator of a [`name`](Self::name).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|estimator| estimator.name() == name)
    }

    /// Whether its score moves with the second-level sums.
    pub(crate) const fn reads_second_level(self) -> bool {
        matches!(
            self,
            Self::SecondNodes | Self::SecondEdges | Self::SecondNodesEdges | Self::RegressionSecond
        )
    }

    /// The regression's inputs: how many of [`FEATURES`] it reads (a prefix), if it is one.
    pub(crate) const fn regression_inputs(self) -> Option<usize> {
        match self {
            Self::RegressionFirst => Some(SL_N),
            Self::RegressionSecond => Some(FEATURES),
            _ => None,
        }
    }
}

/// What the crawl knows: which pages are fetched and discovered, and the sums of the module
/// docs for every discovered, unfetched page (the frontier).
#[derive(Debug, Clone)]
pub(crate) struct Knowledge {
    crawled: Vec<bool>,
    discovered: Vec<bool>,
    depth: Vec<u32>,
    cash: Vec<f64>,
    features: Vec<[f64; FEATURES]>,
    /// The frontier, in no order, and each page's place in it (`u32::MAX`: not in it).
    frontier: Vec<u32>,
    place: Vec<u32>,
    /// Unfetched pages whose first-level sums (and so perhaps any estimate) moved in the last
    /// fetch, and those whose second-level sums alone moved.
    touched_first: Vec<u32>,
    touched_second: Vec<u32>,
    /// The fetch that last put a page in each list (to list it once).
    mark_first: Vec<u32>,
    mark_second: Vec<u32>,
    fetches: u32,
}

const NOWHERE: u32 = u32::MAX;

impl Knowledge {
    /// Nothing known; `seeds` discovered at depth 0, sharing OPIC's cash of 1.
    pub(crate) fn new(page_count: u32, seeds: &[u32]) -> Self {
        let pages = page_count as usize;
        let mut knowledge = Self {
            crawled: vec![false; pages],
            discovered: vec![false; pages],
            depth: vec![0; pages],
            cash: vec![0.0; pages],
            features: vec![[0.0; FEATURES]; pages],
            frontier: Vec::new(),
            place: vec![NOWHERE; pages],
            touched_first: Vec::new(),
            touched_second: Vec::new(),
            mark_first: vec![0; pages],
            mark_second: vec![0; pages],
            fetches: 0,
        };
        let mut distinct: Vec<u32> = seeds.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        let cash = 1.0 / distinct.len().max(1) as f64;
        for seed in distinct {
            knowledge.discover(seed, 0);
            knowledge.cash[seed as usize] = cash;
        }
        knowledge
    }

    fn discover(&mut self, page: u32, depth: u32) {
        let index = page as usize;
        if std::mem::replace(&mut self.discovered[index], true) {
            return;
        }
        self.depth[index] = depth;
        self.place[index] = self.frontier.len() as u32;
        self.frontier.push(page);
    }

    pub(crate) fn is_crawled(&self, page: u32) -> bool {
        self.crawled.get(page as usize).copied().unwrap_or(true)
    }

    /// The discovered, unfetched pages, in no order.
    pub(crate) fn frontier(&self) -> &[u32] {
        &self.frontier
    }

    /// The sums of an unfetched page.
    pub(crate) fn features(&self, page: u32) -> [f64; FEATURES] {
        self.features.get(page as usize).copied().unwrap_or_default()
    }

    /// Pages whose estimates may have moved in the last fetch: all estimators' (first), the
    /// second level's alone (second).
    pub(crate) fn touched(&self) -> (&[u32], &[u32]) {
        (&self.touched_first, &self.touched_second)
    }

    /// `estimator`'s score of an unfetched `page`; `regression` is the regression's weights
    /// for the two regression estimators.
    pub(crate) fn score(
        &self,
        graph: &ScoredGraph,
        estimator: Estimator,
        page: u32,
        regression: &[f64],
    ) -> f64 {
        let index = page as usize;
        let feature = |feature: usize| self.features.get(index).map_or(0.0, |sums| sums[feature]);
        match estimator {
            Estimator::Bfs => 1.0 / (f64::from(self.depth.get(index).copied().unwrap_or(0)) + 1.0),
            Estimator::Opic => self.cash.get(index).copied().unwrap_or(0.0),
            Estimator::FirstDegree => feature(FL_DEG),
            Estimator::FirstNodes => feature(FL_N),
            Estimator::FirstEdges => feature(FL_E),
            Estimator::FirstNodesEdges => feature(FL_NE),
            Estimator::SecondNodes => feature(SL_N),
            Estimator::SecondEdges => feature(SL_E),
            Estimator::SecondNodesEdges => feature(SL_NE),
            Estimator::RegressionFirst | Estimator::RegressionSecond => {
                let sums = self.features.get(index).copied().unwrap_or_default();
                let (constant, weights) = regression.split_first().unwrap_or((&0.0, &[]));
                constant + weights.iter().zip(sums).map(|(weight, sum)| weight * sum).sum::<f64>()
            }
            Estimator::Oracle => graph.page_score(page),
        }
    }

    /// Fetches `page`: learns its score and its links' scores, and updates every sum they
    /// enter (see the module docs). Lists the pages whose estimates moved ([`Self::touched`]).
    pub(crate) fn fetch(&mut self, graph: &ScoredGraph, page: u32) {
        let index = page as usize;
        self.fetches = self.fetches.wrapping_add(1).max(1);
        self.touched_first.clear();
        self.touched_second.clear();
        if self.crawled.get(index).is_none_or(|&crawled| crawled) {
            return;
        }
        if !self.discovered[index] {
            self.discover(page, 0);
        }
        self.crawled[index] = true;
        let place = std::mem::replace(&mut self.place[index], NOWHERE);
        if place != NOWHERE {
            self.frontier.swap_remove(place as usize);
            if let Some(&moved) = self.frontier.get(place as usize) {
                self.place[moved as usize] = place;
            }
        }
        let score = graph.page_score(page);
        // S(page): its children fetched before it. Needed only now: the children it gets later
        // add to its unfetched children's sums directly (below, as a parent).
        let mut siblings = [0.0; 3];
        for (child, link) in graph.out_links(page) {
            if child != page && self.crawled[child as usize] {
                let (child_score, link_score) = (graph.page_score(child), graph.link_score(link));
                siblings[0] += child_score;
                siblings[1] += link_score;
                siblings[2] += child_score * link_score;
            }
        }
        // OPIC: its cash goes to its links in equal parts.
        let links = graph.graph().out_links(page).len();
        let share = if links == 0 { 0.0 } else { self.cash[index] / links as f64 };
        self.cash[index] = 0.0;
        let depth = self.depth[index].saturating_add(1);
        for (child, link) in graph.out_links(page) {
            let child_index = child as usize;
            if self.crawled[child_index] {
                continue;
            }
            self.discover(child, depth);
            let link_score = graph.link_score(link);
            let sums = &mut self.features[child_index];
            sums[FL_DEG] += 1.0;
            sums[FL_N] += score;
            sums[FL_E] += link_score;
            sums[FL_NE] += score * link_score;
            sums[SL_N] += siblings[0];
            sums[SL_E] += siblings[1];
            sums[SL_NE] += siblings[2];
            self.cash[child_index] += share;
            if self.mark_first[child_index] != self.fetches {
                self.mark_first[child_index] = self.fetches;
                self.touched_first.push(child);
            }
        }
        // The page is a newly fetched child of its fetched parents: their S grows, and so do
        // the second-level sums of their unfetched children.
        for (parent, link) in graph.in_links(page) {
            let parent_index = parent as usize;
            if parent == page || !self.crawled[parent_index] {
                continue;
            }
            let link_score = graph.link_score(link);
            let delta = [score, link_score, score * link_score];
            if delta == [0.0; 3] {
                continue;
            }
            for (sibling, _) in graph.out_links(parent) {
                let sibling_index = sibling as usize;
                if self.crawled[sibling_index] {
                    continue;
                }
                let sums = &mut self.features[sibling_index];
                sums[SL_N] += delta[0];
                sums[SL_E] += delta[1];
                sums[SL_NE] += delta[2];
                if self.mark_second[sibling_index] != self.fetches {
                    self.mark_second[sibling_index] = self.fetches;
                    self.touched_second.push(sibling);
                }
            }
        }
    }
}
