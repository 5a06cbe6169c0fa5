//! Focused crawling, after Gouriten, Maniu, Senellart, "Scalable, generic, and adaptive systems
//! for focused crawling" (HT 2014; seed `002_987a179045e4afb6.txt`): a crawl that is after the
//! pages relevant to something (a topic's word, say), on a graph whose pages and links carry a
//! score (`β(u)`: the word's count in page `u`; `α(u, v)`: in the anchor of `u`'s link to `v`),
//! learnt only when a page is fetched. Its goal: crawl sequences from the seeds whose total
//! score is as high as possible for the budget. Finding the best sequence is NP-hard even
//! with the scores known; a crawler estimates each unfetched page's score from the graph it has
//! fetched and takes the best estimate.
//!
//! * [`ScoredGraph`]: a graph with its scores (the truth, for measuring).
//! * [`Estimator`]: seed 002's estimators: `bfs`, `opic`, the first- and second-level
//!   neighbourhood sums (`fl_deg`, `fl_n`, `fl_e`, `fl_ne`, `sl_n`, `sl_e`, `sl_ne`), linear
//!   regressions on them (`lr_fl`, `lr_sl`), and the oracle (the true score); `nr` (its
//!   quadratic "NodeRank") is not built, as the slides find it too slow to run past 1,000
//!   pages.
//! * [`Strategy`]: greedy or altered greedy; [`FocusConfig::refresh`], the refresh rate `r`.
//! * [`Bandit`]: `mab_ε`, `mab_ε-first`, `mab_var` over any estimators.
//! * [`focused_crawl`] runs a crawl; [`cumulative_scores`] measures it.
//! * [`OnlineFocus`]: the first-level estimators and `lr_fl` for a crawler that learns links
//!   and scores only as it fetches (no graph given in advance).
//!
//! `docs/focus/README.md` compares them on the `cnr-2000` web graph with planted topics
//! (`crates/focus/examples/focus.rs`); `freshet focus` runs a crawl on any graph and scores
//! given as files. The crawler runs a focused crawl through [`OnlineFocus`]
//! (`freshet crawl --focus WORD…`: `freshet_crawl::focus`, measured in `docs/focus/crawl.md`).
//!
//! Pure: no I/O, no clock; the random draws (altered greedy, bandits) come from a seeded
//! generator, so a crawl is the same for the same seed on any machine. Written by hand: the
//! estimators are sums kept up to date as pages are fetched, the point of the seed, and no
//! crate offers them; the bandits are a few lines each.
//!
//! ```
//! use freshet_focus::{Estimator, FocusConfig, ScoredGraph, cumulative_scores, focused_crawl};
//! use freshet_rank::CsrGraph;
//!
//! // 0 → 1, 2; 1 → 3; 2 → 4. Page 1 is relevant (β = 5) and links to 3 (β = 4); the link
//! // 0 → 2 says "relevant" (α = 1) but 2 and 4 are not.
//! let graph = CsrGraph::from_links(5, &[(0, 1), (0, 2), (1, 3), (2, 4)])?;
//! let scored = ScoredGraph::new(graph, vec![0.0, 5.0, 0.0, 4.0, 0.0], vec![0.0, 1.0, 0.0, 0.0])?;
//! let by_parents = focused_crawl(&scored, &[0], &FocusConfig::greedy(Estimator::FirstNodes), 2)?;
//! // 1 and 2 tie at fl_n = β(0) = 0 (1 first by id); then 3 has fl_n = β(1) = 5.
//! assert_eq!(by_parents.sequence, vec![1, 3]);
//! assert_eq!(cumulative_scores(&by_parents.sequence, scored.page_scores()), vec![5.0, 9.0]);
//! let by_anchors = focused_crawl(&scored, &[0], &FocusConfig::greedy(Estimator::FirstEdges), 2)?;
//! assert_eq!(by_anchors.sequence, vec![2, 1]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod bandit;
mod crawl;
mod error;
mod estimator;
mod graph;
mod online;
mod regression;
mod rng;

pub use bandit::{Bandit, OnlineBandit};
pub use crawl::{
    ALTERED_CANDIDATES, FocusConfig, FocusedCrawl, Selector, Strategy, cumulative_scores, focused_crawl,
};
pub use error::{FocusError, Result};
pub use estimator::Estimator;
pub use graph::ScoredGraph;
pub use online::{Learned, ONLINE_ESTIMATORS, OnlineFocus};
