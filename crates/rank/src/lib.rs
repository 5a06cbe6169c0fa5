//! Page importance from the link graph as it is crawled: OPIC online, in-degree, partial
//! PageRank. Pure: no I/O, no clock, no randomness.
//!
//! The freshness loop weights each page by its importance `w` in seed 003's crawl value
//! `V(τ) = (w/λ)(1 − e^(−λτ)) − wτe^(−λτ)` (`freshet_policy::Page::weight`); `V` is linear in
//! `w`, and only ratios of weights matter, so every estimator here offers a weight scaled to
//! mean 1 over the pages it knows. Main types:
//!
//! * [`Opic`]: Abiteboul, Preda, Cobena's On-line Page Importance Computation (WWW 2003; seed
//!   002's estimator 3, seed 000's OPIC backend) with a virtual page, so that its fixed point is
//!   PageRank with damping 0.85; `fetched(page, out_links)` is O(out-degree), 16 bytes a page;
//!   [`PageCash`] is a page's persisted state. The default estimator.
//! * [`InDegree`]: distinct in-links counted from each page's first fetch.
//! * [`pagerank()`] on a [`CsrGraph`]: the batch power iteration on a (partial) graph, the check
//!   of both.
//! * [`LinkImportance`]: the two online estimators behind one trait, for a crawler flag.
//! * [`ordering`]: a first crawl's order on a known graph (breadth first, in-degree, OPIC,
//!   partial PageRank, an oracle) and the importance it gathers, page by page.
//!
//! Page ids are plain dense `u32` (the frontier store's `PageId(u32)`, unwrapped): the crate
//! depends on nothing of ours, like `freshet-policy`, so the simulator can use it as well as the
//! crawler. Everything here is written by hand: OPIC is forty lines over one `Vec`, no crate
//! offers it online, and the power iteration is thirty lines whose conventions (dangling pages
//! spread uniformly, links as a set) must be exactly the test web's and OPIC's; a graph crate
//! (petgraph has a PageRank) would add a dependency, not checked knowledge.
//!
//! ```
//! use freshet_rank::{CsrGraph, InDegree, Opic, pagerank};
//!
//! // 0 → 1, 0 → 2, 1 → 2, 2 → 0: fetch every page 2,000 times, round robin.
//! let links: [&[u32]; 3] = [&[1, 2], &[2], &[0]];
//! let mut opic = Opic::new();
//! let mut degree = InDegree::new();
//! for _ in 0..2000 {
//!     for (page, out) in links.iter().enumerate() {
//!         opic.fetched(page as u32, out);
//!         degree.fetched(page as u32, out);
//!     }
//! }
//! opic.check()?; // total cash 1 and total history G are conserved
//!
//! // OPIC's weights tend to n · PageRank (mean 1).
//! let graph = CsrGraph::from_links(3, &[(0, 1), (0, 2), (1, 2), (2, 0)])?;
//! let rank = pagerank(&graph, 0.85, 1e-12)?;
//! for page in 0..3 {
//!     let w = opic.scaled_importance(page);
//!     assert!((w - 3.0 * rank[page as usize]).abs() < 1e-3, "{w}");
//! }
//! assert_eq!(degree.in_degree(2), 2);
//! # Ok::<(), freshet_rank::RankError>(())
//! ```

mod error;
mod in_degree;
mod links;
pub mod opic;
pub mod ordering;
mod pagerank;

pub use error::{RankError, Result};
pub use in_degree::InDegree;
pub use opic::{DEFAULT_DAMPING, Opic, PageCash};
pub use pagerank::{CsrGraph, pagerank};

/// An importance estimator fed by the crawl: the verbs a crawler calls whichever estimator its
/// flag picks.
pub trait LinkImportance {
    /// Makes `page` known (dense ids: smaller ids become known too).
    fn add_page(&mut self, page: u32);
    /// Page `page` was fetched and links to `out_links` (a set: repeats and self-links ignored).
    fn fetched(&mut self, page: u32, out_links: &[u32]);
    /// The page's weight `w`, mean 1 over the known pages; 0 for an unknown page.
    fn weight(&self, page: u32) -> f64;
}

impl LinkImportance for Opic {
    fn add_page(&mut self, page: u32) {
        Opic::add_page(self, page);
    }
    fn fetched(&mut self, page: u32, out_links: &[u32]) {
        Opic::fetched(self, page, out_links);
    }
    fn weight(&self, page: u32) -> f64 {
        self.scaled_importance(page)
    }
}

impl LinkImportance for InDegree {
    fn add_page(&mut self, page: u32) {
        InDegree::add_page(self, page);
    }
    fn fetched(&mut self, page: u32, out_links: &[u32]) {
        InDegree::fetched(self, page, out_links);
    }
    fn weight(&self, page: u32) -> f64 {
        self.scaled_in_degree(page)
    }
}
