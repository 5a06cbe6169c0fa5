//! Seed `002_987a179045e4afb6.txt`'s estimators for a crawler that learns the graph as it
//! fetches: [`OnlineFocus`].
//!
//! [`focused_crawl`](crate::focused_crawl) reads a [`ScoredGraph`](crate::ScoredGraph) that holds
//! the whole web and reveals a page's links and scores when the crawl fetches it. A real crawler
//! has no such graph: it learns a page's links, the page's score `β(u)` and its links' scores
//! `α(u, v)` only from the fetched body. `OnlineFocus` takes exactly that at each fetch and keeps
//! the estimates of the module docs of `estimator.rs` for every page it has heard of:
//!
//! ```text
//! bfs     1 / (l(v) + 1)          l(v): the fewest links from the seeds to v known
//! fl_deg  |P(v)|                  P(v): the fetched pages that link to v
//! fl_n    Σ_{u∈P(v)} β(u)
//! fl_e    Σ_{u∈P(v)} α(u, v)
//! fl_ne   Σ_{u∈P(v)} β(u) α(u, v)
//! lr_fl   θ · (1, fl_deg, fl_n, fl_e, fl_ne)     θ fitted to the fetched pages' scores
//! ```
//!
//! The sums are the offline crawl's, fetch for fetch (a property test holds them to
//! `estimator.rs`'s `Knowledge` on random graphs and fetch orders), and the regression is
//! refitted on the same schedule (after 8, 16, 32… pages, then every `refit_every`). State: 48
//! bytes a page heard of, indexed by the crawler's dense page ids.
//!
//! **Not here:** the second-level sums (`sl_*`, `lr_sl`) need, at each fetch, the fetched
//! parents of the page and their other children: a crawler would have to keep every fetched
//! page's in-links, which it does not; OPIC is the crawler's own importance estimator
//! (`freshet-rank`); the oracle is the truth a crawler does not have.
//!
//! **A page fetched again** (a crawler revisits) keeps the contributions of its first fetch:
//! seed 002's crawl fetches each page once, and counting a page's links twice would make its
//! children look twice as well linked. Its score is the newest one.

use crate::error::{FocusError, Result};
use crate::estimator::{Estimator, FEATURES};
use crate::regression::Regression;

/// The first-level sums kept per page: `fl_deg`, `fl_n`, `fl_e`, `fl_ne`.
const FIRST_LEVEL: usize = 4;

/// The estimators [`OnlineFocus`] keeps (see the module docs).
pub const ONLINE_ESTIMATORS: [Estimator; 6] = [
    Estimator::Bfs,
    Estimator::FirstDegree,
    Estimator::FirstNodes,
    Estimator::FirstEdges,
    Estimator::FirstNodesEdges,
    Estimator::RegressionFirst,
];

/// What is known of one page.
#[derive(Debug, Clone, Copy, Default)]
struct PageKnowledge {
    /// `fl_deg`, `fl_n`, `fl_e`, `fl_ne` from the fetched pages that link to it.
    sums: [f64; FIRST_LEVEL],
    /// Its score `β`, once fetched.
    score: f64,
    /// The fewest links from the seeds known (`u32::MAX`: not heard of yet).
    depth: u32,
    fetched: bool,
}

const UNKNOWN_DEPTH: u32 = u32::MAX;

/// One estimator's knowledge of a crawl in progress (see the module docs).
#[derive(Debug, Clone)]
pub struct OnlineFocus {
    estimator: Estimator,
    pages: Vec<PageKnowledge>,
    /// `lr_fl`'s fit, kept whatever the estimator (for `estimate_with`).
    regression: Regression,
    refit_every: u64,
    fetched: u64,
    since_refit: u64,
    /// Unfetched pages whose estimate moved in the last [`fetched`](Self::fetched).
    touched: Vec<u32>,
}

/// What a [`OnlineFocus::fetched`] changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Learned {
    /// Whether this was the page's first fetch (only a first fetch adds to the sums).
    pub first_fetch: bool,
    /// Whether the regression was refitted: every unfetched page's `lr_fl` estimate may have
    /// moved, not only [`OnlineFocus::touched`]'s (the regression is kept whatever the
    /// estimator, for [`OnlineFocus::estimate_with`]).
    pub refitted: bool,
}

impl OnlineFocus {
    /// Nothing known yet. `refit_every` (`≥ 1`): pages between two fits of `lr_fl`'s regression
    /// once 8, 16, 32… have been fetched.
    ///
    /// # Errors
    /// [`FocusError::NotOnline`] for an estimator outside [`ONLINE_ESTIMATORS`];
    /// [`FocusError::InvalidParameter`] for `refit_every = 0`.
    pub fn new(estimator: Estimator, refit_every: usize) -> Result<Self> {
        if !ONLINE_ESTIMATORS.contains(&estimator) {
            return Err(FocusError::NotOnline { estimator: estimator.name() });
        }
        if refit_every == 0 {
            return Err(FocusError::InvalidParameter { name: "refit_every", value: 0.0, range: "≥ 1" });
        }
        // Kept whatever the estimator, so that `estimate_with` can answer `lr_fl` too (a bandit's
        // arm): `O(25)` a fetch. `lr_fl` reads the first-level sums.
        let regression = Regression::new(FIRST_LEVEL);
        Ok(Self {
            estimator,
            pages: Vec::new(),
            regression,
            refit_every: refit_every as u64,
            fetched: 0,
            since_refit: 0,
            touched: Vec::new(),
        })
    }

    /// The estimator it keeps.
    #[must_use]
    pub fn estimator(&self) -> Estimator {
        self.estimator
    }

    fn page_mut(&mut self, page: u32) -> &mut PageKnowledge {
        let index = page as usize;
        if self.pages.len() <= index {
            self.pages.resize(index + 1, PageKnowledge { depth: UNKNOWN_DEPTH, ..PageKnowledge::default() });
        }
        &mut self.pages[index]
    }

    /// `page` is a seed: found at depth 0.
    pub fn add_seed(&mut self, page: u32) {
        self.page_mut(page).depth = 0;
    }

    /// `page` became known at `depth` links from the seeds (a crawler rebuilding its state after
    /// a restart, or finding a page other than by a fetched link); a smaller depth known
    /// already is kept.
    pub fn add_page(&mut self, page: u32, depth: u32) {
        let known = self.page_mut(page);
        known.depth = known.depth.min(depth);
    }

    /// `page` was fetched: its score is `score` (`β(page)`) and it links to `links`, each with its
    /// link score (`α(page, v)`; a target listed twice counts twice, as two links would). On its
    /// first fetch every unfetched target's sums grow and it becomes a training example of the
    /// regression with the sums it had; [`touched`](Self::touched) lists the unfetched pages
    /// whose estimate moved.
    ///
    /// # Errors
    /// [`FocusError::InvalidScore`] for a score or link score that is negative, NaN or infinite;
    /// nothing is learned from the fetch then.
    pub fn fetched(&mut self, page: u32, score: f64, links: &[(u32, f64)]) -> Result<Learned> {
        self.touched.clear();
        check_score("page", page as usize, score)?;
        for (index, &(_, link_score)) in links.iter().enumerate() {
            check_score("link", index, link_score)?;
        }
        let known = self.page_mut(page);
        known.score = score;
        if std::mem::replace(&mut known.fetched, true) {
            return Ok(Learned { first_fetch: false, refitted: false });
        }
        if known.depth == UNKNOWN_DEPTH {
            known.depth = 0;
        }
        let (depth, sums) = (known.depth, known.sums);
        let mut features = [0.0; FEATURES];
        features[..FIRST_LEVEL].copy_from_slice(&sums);
        self.regression.observe(&features, score);
        let child_depth = depth.saturating_add(1);
        for &(child, link_score) in links {
            let target = self.page_mut(child);
            target.depth = target.depth.min(child_depth);
            if target.fetched {
                continue;
            }
            target.sums[0] += 1.0;
            target.sums[1] += score;
            target.sums[2] += link_score;
            target.sums[3] += score * link_score;
            self.touched.push(child);
        }
        self.touched.sort_unstable();
        self.touched.dedup();
        self.fetched += 1;
        self.since_refit += 1;
        let mut refitted = false;
        // The offline crawl's schedule: after 8, 16, 32… pages, then every `refit_every`.
        if self.since_refit >= self.refit_every.min(self.fetched.max(8)) {
            self.since_refit = 0;
            refitted = self.regression.refit();
        }
        Ok(Learned { first_fetch: true, refitted })
    }

    /// `from` redirected to `to`: a link to `from` was a link to `to`, so `to` (if not fetched)
    /// gains `from`'s sums and depth, and [`touched`](Self::touched) lists it. A redirect is
    /// not a page: `from` is not fetched by it and teaches the regression nothing.
    pub fn redirected(&mut self, from: u32, to: u32) {
        self.touched.clear();
        let source = self.pages.get(from as usize).copied().unwrap_or_default();
        let target = self.page_mut(to);
        target.depth = target.depth.min(source.depth);
        if target.fetched || from == to {
            return;
        }
        for (sum, added) in target.sums.iter_mut().zip(source.sums) {
            *sum += added;
        }
        self.touched.push(to);
    }

    /// The unfetched pages whose estimate moved in the last [`fetched`](Self::fetched), each
    /// once, in increasing order.
    #[must_use]
    pub fn touched(&self) -> &[u32] {
        &self.touched
    }

    /// Whether `page` has been fetched.
    #[must_use]
    pub fn is_fetched(&self, page: u32) -> bool {
        self.pages.get(page as usize).is_some_and(|known| known.fetched)
    }

    /// `page`'s score `β` as its last fetch gave it; `None` if never fetched.
    #[must_use]
    pub fn score(&self, page: u32) -> Option<f64> {
        self.pages.get(page as usize).filter(|known| known.fetched).map(|known| known.score)
    }

    /// The estimate `β̃(page)` of the estimator, from what is known now (a page never heard of
    /// has sums of 0 and is taken to be at depth 0). The regression's estimate may be negative
    /// (it is a linear fit); before its first fit it ranks by `fl_deg`.
    #[must_use]
    pub fn estimate(&self, page: u32) -> f64 {
        self.estimate_with(self.estimator, page)
    }

    /// The estimate of `page` by `estimator`, any of [`ONLINE_ESTIMATORS`] (they share the
    /// sums; another estimator answers as `lr_fl`).
    #[must_use]
    pub fn estimate_with(&self, estimator: Estimator, page: u32) -> f64 {
        let known = self.pages.get(page as usize).copied().unwrap_or_default();
        match estimator {
            Estimator::Bfs => {
                let depth = if known.depth == UNKNOWN_DEPTH { 0 } else { known.depth };
                1.0 / (f64::from(depth) + 1.0)
            }
            Estimator::FirstDegree => known.sums[0],
            Estimator::FirstNodes => known.sums[1],
            Estimator::FirstEdges => known.sums[2],
            Estimator::FirstNodesEdges => known.sums[3],
            _ => {
                let weights = self.regression.weights();
                let (constant, weights) = weights.split_first().unwrap_or((&0.0, &[]));
                constant + weights.iter().zip(known.sums).map(|(weight, sum)| weight * sum).sum::<f64>()
            }
        }
    }

    /// The first-level sums of `page` (`fl_deg`, `fl_n`, `fl_e`, `fl_ne`), for tests and
    /// explanations.
    #[must_use]
    pub fn sums(&self, page: u32) -> [f64; 4] {
        self.pages.get(page as usize).map_or([0.0; FIRST_LEVEL], |known| known.sums)
    }

    /// Pages fetched at least once.
    #[must_use]
    pub fn fetched_pages(&self) -> u64 {
        self.fetched
    }
}

fn check_score(what: &'static str, index: usize, value: f64) -> Result<()> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(FocusError::InvalidScore { what, index, value })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use proptest::prelude::*;

    use super::*;
    use crate::estimator::Knowledge;
    use crate::graph::ScoredGraph;
    use freshet_rank::CsrGraph;

    #[test]
    fn a_page_costs_48_bytes() {
        assert_eq!(std::mem::size_of::<PageKnowledge>(), 48);
    }

    #[test]
    fn sums_follow_the_fetched_parents() {
        let mut focus = OnlineFocus::new(Estimator::FirstEdges, 100).unwrap();
        focus.add_seed(0);
        let learned = focus.fetched(0, 2.0, &[(1, 1.0), (2, 0.0)]).unwrap();
        assert_eq!(learned, Learned { first_fetch: true, refitted: false });
        assert_eq!(focus.touched(), &[1, 2]);
        assert_eq!(focus.sums(1), [1.0, 2.0, 1.0, 2.0]);
        assert_eq!(focus.sums(2), [1.0, 2.0, 0.0, 0.0]);
        assert_eq!(focus.estimate(1), 1.0);
        focus.fetched(2, 0.0, &[(1, 3.0), (0, 5.0)]).unwrap();
        assert_eq!(focus.touched(), &[1], "a fetched target is not touched");
        assert_eq!(focus.sums(1), [2.0, 2.0, 4.0, 2.0]);
        // A refetch changes the score, not the sums.
        let again = focus.fetched(2, 7.0, &[(1, 9.0), (3, 9.0)]).unwrap();
        assert!(!again.first_fetch);
        assert!(focus.touched().is_empty());
        assert_eq!(focus.sums(1), [2.0, 2.0, 4.0, 2.0]);
        assert_eq!(focus.score(2), Some(7.0));
        assert_eq!(focus.score(1), None);
    }

    #[test]
    fn a_redirect_target_inherits_the_links_to_its_source() {
        let mut focus = OnlineFocus::new(Estimator::FirstNodes, 100).unwrap();
        focus.fetched(0, 4.0, &[(1, 1.0)]).unwrap();
        focus.redirected(1, 2);
        assert_eq!(focus.touched(), &[2]);
        assert_eq!(focus.sums(2), [1.0, 4.0, 1.0, 4.0]);
        assert_eq!(focus.estimate(2), 4.0);
        focus.fetched(2, 0.0, &[]).unwrap();
        focus.redirected(1, 2);
        assert!(focus.touched().is_empty(), "a fetched target gains nothing");
        assert_eq!(focus.sums(2), [1.0, 4.0, 1.0, 4.0]);
    }

    #[test]
    fn depth_is_the_first_path_from_a_seed() {
        let mut focus = OnlineFocus::new(Estimator::Bfs, 100).unwrap();
        focus.add_seed(0);
        focus.fetched(0, 0.0, &[(1, 0.0)]).unwrap();
        focus.fetched(1, 0.0, &[(2, 0.0)]).unwrap();
        assert_eq!(focus.estimate(2), 1.0 / 3.0);
        focus.add_page(2, 1);
        assert_eq!(focus.estimate(2), 0.5, "a shorter path found later counts");
        focus.add_page(2, 5);
        assert_eq!(focus.estimate(2), 0.5);
    }

    #[test]
    fn bad_scores_and_estimators_are_refused() {
        assert_eq!(
            OnlineFocus::new(Estimator::SecondNodes, 10).unwrap_err(),
            FocusError::NotOnline { estimator: "sl_n" }
        );
        assert!(OnlineFocus::new(Estimator::Oracle, 10).is_err());
        assert!(OnlineFocus::new(Estimator::FirstNodes, 0).is_err());
        let mut focus = OnlineFocus::new(Estimator::FirstNodes, 10).unwrap();
        assert!(focus.fetched(0, f64::NAN, &[]).is_err());
        assert!(focus.fetched(0, 1.0, &[(1, -1.0)]).is_err());
        assert!(!focus.is_fetched(0), "nothing learned from a refused fetch");
        assert_eq!(focus.sums(1), [0.0; 4]);
    }

    #[test]
    fn the_regression_learns_a_linear_score() {
        // β(v) = 3·fl_e(v) + 1 on a chain of stars: the fit recovers it once refitted.
        let mut focus = OnlineFocus::new(Estimator::RegressionFirst, 4).unwrap();
        focus.add_seed(0);
        let mut refits = 0;
        let mut next = 1;
        for page in 0..40_u32 {
            let links: Vec<(u32, f64)> = (0..3).map(|i| (next + i, f64::from((page + i) % 3))).collect();
            next += 3;
            let score = 3.0 * focus.sums(page)[2] + 1.0;
            refits += u32::from(focus.fetched(page, score, &links).unwrap().refitted);
        }
        assert!(refits >= 3, "{refits}");
        let unfetched = 100;
        let [_, _, anchors, _] = focus.sums(unfetched);
        assert!((focus.estimate(unfetched) - (3.0 * anchors + 1.0)).abs() < 1e-6);
    }

    /// Pages, links, page scores and an order of fetches.
    type Case = (u32, Vec<(u32, u32)>, Vec<f64>, Vec<u32>);

    fn graph_and_order() -> impl Strategy<Value = Case> {
        (2_u32..30).prop_flat_map(|pages| {
            (
                Just(pages),
                proptest::collection::vec((0..pages, 0..pages), 0..120),
                proptest::collection::vec(0.0_f64..5.0, pages as usize),
                Just((0..pages).collect::<Vec<_>>()).prop_shuffle(),
            )
        })
    }

    proptest! {
        /// The online sums are the offline crawl's (`Knowledge`), fetch for fetch, in any
        /// order of fetches.
        #[test]
        fn sums_match_the_offline_knowledge((pages, links, scores, order) in graph_and_order()) {
            let graph = CsrGraph::from_links(pages, &links).unwrap();
            let link_count = graph.link_count();
            let link_scores: Vec<f64> = (0..link_count).map(|link| (link % 4) as f64).collect();
            let scored = ScoredGraph::new(graph, scores, link_scores).unwrap();
            let mut knowledge = Knowledge::new(pages, &[order[0]]);
            let mut focus = OnlineFocus::new(Estimator::FirstNodesEdges, 100).unwrap();
            focus.add_seed(order[0]);
            for &page in &order {
                let out: Vec<(u32, f64)> = scored
                    .out_links(page)
                    .map(|(child, link)| (child, scored.link_score(link)))
                    .collect();
                knowledge.fetch(&scored, page);
                focus.fetched(page, scored.page_score(page), &out).unwrap();
                for other in 0..pages {
                    if !knowledge.is_crawled(other) {
                        let offline = knowledge.features(other);
                        prop_assert_eq!(&focus.sums(other)[..], &offline[..4], "page {}", other);
                    }
                }
            }
        }
    }
}
