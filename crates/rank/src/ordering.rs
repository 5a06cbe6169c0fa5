//! Crawl ordering: which discovered page a first crawl fetches next, and how fast each order
//! gathers the important pages. Seed `004_e0cda6b04941d422.txt` ("Crawling the Web": crawl
//! ordering by in-degree, PageRank or breadth first) and seed `002_987a179045e4afb6.txt`
//! (Gouriten, Maniu, Senellart: a *crawl sequence* from seeds, each node taken from the
//! frontier of those before it, scored by an estimator: `bfs`, `opic`, `fl_deg`, `nr`), on a
//! known graph, so that every order can be measured against the truth.
//!
//! [`crawl_sequence`] runs a first crawl of `budget` pages from `seeds` on a [`CsrGraph`]: a
//! page is *discovered* when a crawled page links to it, and the next page crawled is the
//! discovered one the [`CrawlOrder`] ranks first (ties to the smaller id), its estimate updated as
//! the crawl reveals links (seed 002's refresh rate of 1: the greedy strategy, which its slides
//! find best):
//! - [`CrawlOrder::Bfs`]: first discovered, first crawled (seed 002's `bfs`, `1/(l(v)+1)`).
//! - [`CrawlOrder::InDegree`]: most links from crawled pages (seed 002's `fl_deg`; seed 004's
//!   "backlink count").
//! - [`CrawlOrder::Opic`]: most OPIC cash (seed 002's estimator 3 without the crawled history,
//!   which is 0 for a page not yet crawled): the seeds share a cash of 1, and a crawled page
//!   passes its cash to its out-links in equal parts.
//! - [`CrawlOrder::PartialPageRank`]: highest PageRank of the graph known so far (the crawled
//!   pages' links), recomputed every `every` pages (Cho, Garcia-Molina, Page, "Efficient
//!   crawling through URL ordering", WWW 1998, behind seed 004; seed 002's `nr` is of the same
//!   kind and quadratic, so it is not run).
//! - [`CrawlOrder::Oracle`]: highest true score: the greedy crawl with a perfect estimator, which
//!   seed 002 shows is not always optimal (finding the optimal sequence is NP-hard) but the
//!   yardstick the estimators are judged by.
//!
//! [`coverage`] measures a sequence: after each page, the share of the whole graph's score
//! (say its PageRank, the test web's importance) held by the pages crawled so far (Cho et al.'s
//! "importance coverage"). `docs/ordering/README.md` compares the orders on the test web's
//! graphs (`crates/rank/examples/ordering.rs`).
//!
//! Written by hand for the same reason as the rest of the crate: each order is a few lines over
//! a lazily invalidated binary heap, and the conventions (links as the graph gives them,
//! PageRank's dangling pages) must be this crate's.

use std::cmp::Ordering as CmpOrdering;
use std::collections::{BinaryHeap, VecDeque};

use crate::error::{RankError, Result};
use crate::pagerank::{CsrGraph, pagerank};

/// How a first crawl picks the next page among those discovered (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CrawlOrder<'a> {
    /// First discovered, first crawled.
    Bfs,
    /// Most links from crawled pages.
    InDegree,
    /// Most OPIC cash.
    Opic,
    /// Highest PageRank of the known graph, recomputed every `every` pages (`≥ 1`).
    PartialPageRank {
        /// Pages crawled between two computations.
        every: usize,
    },
    /// Highest true score (one per page of the graph).
    Oracle(&'a [f64]),
}

/// A heap entry: a page's key when it was pushed, and the page's version then.
#[derive(Debug, Clone, Copy)]
struct Entry {
    key: f64,
    page: u32,
    version: u32,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == CmpOrdering::Equal
    }
}

impl Eq for Entry {}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<CmpOrdering> {
        Some(self.cmp(other))
    }
}

impl Ord for Entry {
    /// The larger key first, then the smaller page id.
    fn cmp(&self, other: &Self) -> CmpOrdering {
        self.key.total_cmp(&other.key).then_with(|| other.page.cmp(&self.page))
    }
}

/// The discovered, uncrawled pages, by key: a max-heap whose entries are stale once their
/// page's version moved on (a page's key only changes through [`Frontier::set`]).
struct Frontier {
    heap: BinaryHeap<Entry>,
    version: Vec<u32>,
    key: Vec<f64>,
}

impl Frontier {
    fn new(pages: usize) -> Self {
        Self { heap: BinaryHeap::new(), version: vec![0; pages], key: vec![0.0; pages] }
    }

    fn set(&mut self, page: u32, key: f64) {
        let index = page as usize;
        self.version[index] = self.version[index].wrapping_add(1);
        self.key[index] = key;
        self.heap.push(Entry { key, page, version: self.version[index] });
    }

    /// The page of the largest current key that `skip` does not rule out.
    fn pop(&mut self, skip: impl Fn(u32) -> bool) -> Option<u32> {
        while let Some(entry) = self.heap.pop() {
            if entry.version == self.version[entry.page as usize] && !skip(entry.page) {
                return Some(entry.page);
            }
        }
        None
    }
}

/// The first `budget` pages a crawl from `seeds` fetches on `graph` in `ordering`'s order
/// (fewer when fewer are reachable); seeds given twice count once.
///
/// # Errors
/// [`RankError::PageOutOfRange`] for a seed outside the graph; [`RankError::WrongLength`] for
/// oracle scores not one per page; [`RankError::ZeroInterval`] for a partial PageRank
/// recomputed every 0 pages.
pub fn crawl_sequence(
    graph: &CsrGraph,
    seeds: &[u32],
    ordering: CrawlOrder<'_>,
    budget: usize,
) -> Result<Vec<u32>> {
    let page_count = graph.page_count();
    let pages = page_count as usize;
    if let Some(&page) = seeds.iter().find(|&&seed| seed >= page_count) {
        return Err(RankError::PageOutOfRange { page, page_count });
    }
    match ordering {
        CrawlOrder::Oracle(scores) if scores.len() != pages => {
            return Err(RankError::WrongLength { got: scores.len(), expected: pages });
        }
        CrawlOrder::PartialPageRank { every: 0 } => return Err(RankError::ZeroInterval),
        _ => {}
    }
    let mut crawled = vec![false; pages];
    let mut discovered = vec![false; pages];
    let mut sequence = Vec::with_capacity(budget.min(pages));
    let mut queue = VecDeque::new();
    let mut frontier = Frontier::new(pages);
    // In-links from crawled pages, or OPIC cash, as each ordering needs.
    let mut count = vec![0.0_f64; pages];
    let seed_cash = 1.0 / seeds.len().max(1) as f64;
    for &seed in seeds {
        if std::mem::replace(&mut discovered[seed as usize], true) {
            continue;
        }
        match ordering {
            CrawlOrder::Bfs => queue.push_back(seed),
            CrawlOrder::InDegree | CrawlOrder::PartialPageRank { .. } => frontier.set(seed, 0.0),
            CrawlOrder::Opic => {
                count[seed as usize] = seed_cash;
                frontier.set(seed, seed_cash);
            }
            CrawlOrder::Oracle(scores) => frontier.set(seed, scores[seed as usize]),
        }
    }
    // The known graph's PageRank, for `PartialPageRank`: the uniform rank before the first.
    let mut rank = vec![1.0 / pages.max(1) as f64; pages];
    while sequence.len() < budget {
        let next = match ordering {
            CrawlOrder::Bfs => queue.pop_front(),
            _ => frontier.pop(|page| crawled[page as usize]),
        };
        let Some(page) = next else { break };
        crawled[page as usize] = true;
        sequence.push(page);
        let links = graph.out_links(page);
        let share = if links.is_empty() { 0.0 } else { count[page as usize] / links.len() as f64 };
        if ordering == CrawlOrder::Opic {
            count[page as usize] = 0.0;
        }
        for &to in links {
            let index = to as usize;
            let new = !std::mem::replace(&mut discovered[index], true);
            if crawled[index] {
                continue;
            }
            match ordering {
                CrawlOrder::Bfs if new => queue.push_back(to),
                CrawlOrder::Bfs => {}
                CrawlOrder::InDegree => {
                    count[index] += 1.0;
                    frontier.set(to, count[index]);
                }
                CrawlOrder::Opic => {
                    count[index] += share;
                    frontier.set(to, count[index]);
                }
                CrawlOrder::PartialPageRank { .. } if new => frontier.set(to, rank[index]),
                CrawlOrder::PartialPageRank { .. } => {}
                CrawlOrder::Oracle(scores) if new => frontier.set(to, scores[index]),
                CrawlOrder::Oracle(_) => {}
            }
        }
        if let CrawlOrder::PartialPageRank { every } = ordering
            && sequence.len() % every == 0
        {
            rank = known_pagerank(graph, &crawled)?;
            for index in 0..pages {
                if discovered[index] && !crawled[index] {
                    frontier.set(index as u32, rank[index]);
                }
            }
        }
    }
    Ok(sequence)
}

/// PageRank (damping 0.85) of the graph the crawl knows: the crawled pages' out-links; every
/// other page is dangling (its rank spread evenly, which moves every page alike and so no
/// order).
fn known_pagerank(graph: &CsrGraph, crawled: &[bool]) -> Result<Vec<f64>> {
    let mut offsets = Vec::with_capacity(crawled.len() + 1);
    let mut targets = Vec::new();
    offsets.push(0);
    for (page, &is_crawled) in crawled.iter().enumerate() {
        if is_crawled {
            targets.extend_from_slice(graph.out_links(page as u32));
        }
        offsets.push(targets.len());
    }
    pagerank(&CsrGraph::from_csr(offsets, targets)?, 0.85, 1e-9)
}

/// After each page of `sequence`, the share of the total of `scores` (one per page, `≥ 0`)
/// held by the pages crawled so far; a page given twice counts once. All zeros when the
/// scores sum to 0.
///
/// # Errors
/// [`RankError::PageOutOfRange`] for a page without a score.
pub fn coverage(sequence: &[u32], scores: &[f64]) -> Result<Vec<f64>> {
    let total: f64 = scores.iter().sum();
    let mut seen = vec![false; scores.len()];
    let mut held = 0.0;
    let page_count = u32::try_from(scores.len()).unwrap_or(u32::MAX);
    sequence
        .iter()
        .map(|&page| {
            let index = page as usize;
            let first = seen.get_mut(index).ok_or(RankError::PageOutOfRange { page, page_count })?;
            if !std::mem::replace(first, true) {
                held += scores[index];
            }
            Ok(if total > 0.0 { held / total } else { 0.0 })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// 0 → 1, 2; 1 → 3; 2 → 3, 4; 3 → 5; 4 → 5; 5 → nothing.
    fn diamond() -> CsrGraph {
        CsrGraph::from_links(6, &[(0, 1), (0, 2), (1, 3), (2, 3), (2, 4), (3, 5), (4, 5)]).unwrap()
    }

    #[test]
    fn each_order_on_a_small_graph() {
        let graph = diamond();
        let run = |ordering| crawl_sequence(&graph, &[0], ordering, 10).unwrap();
        assert_eq!(run(CrawlOrder::Bfs), vec![0, 1, 2, 3, 4, 5]);
        // After 0: 1 and 2 have one link each (1 first by id); after 1: 3 has one, 2 has one
        // (2 first by id); after 2: 3 has two.
        assert_eq!(run(CrawlOrder::InDegree), vec![0, 1, 2, 3, 4, 5]);
        // Cash: 1 and 2 get 1/2 (1 first by id); 1 passes 1/2 to 3, which ties with 2 (2
        // first by id); 2 passes 1/4 to 3 and 4: 3 has 3/4, passed whole to 5, ahead of 4.
        assert_eq!(run(CrawlOrder::Opic), vec![0, 1, 2, 3, 5, 4]);
        let scores = [1.0, 0.0, 5.0, 1.0, 9.0, 2.0];
        assert_eq!(run(CrawlOrder::Oracle(&scores)), vec![0, 2, 4, 5, 3, 1]);
        assert_eq!(run(CrawlOrder::PartialPageRank { every: 1 }).len(), 6);
        assert_eq!(crawl_sequence(&graph, &[0], CrawlOrder::Bfs, 3).unwrap(), vec![0, 1, 2]);
        // Only what is reachable: from 4, 4 and 5.
        assert_eq!(crawl_sequence(&graph, &[4, 4], CrawlOrder::Opic, 10).unwrap(), vec![4, 5]);
    }

    #[test]
    fn bad_input_is_refused() {
        let graph = diamond();
        assert_eq!(
            crawl_sequence(&graph, &[6], CrawlOrder::Bfs, 1),
            Err(RankError::PageOutOfRange { page: 6, page_count: 6 })
        );
        assert_eq!(
            crawl_sequence(&graph, &[0], CrawlOrder::Oracle(&[1.0]), 1),
            Err(RankError::WrongLength { got: 1, expected: 6 })
        );
        assert_eq!(
            crawl_sequence(&graph, &[0], CrawlOrder::PartialPageRank { every: 0 }, 1),
            Err(RankError::ZeroInterval)
        );
        assert_eq!(coverage(&[7], &[1.0]), Err(RankError::PageOutOfRange { page: 7, page_count: 1 }));
    }

    #[test]
    fn coverage_is_the_share_held_so_far() {
        let shares = coverage(&[2, 0, 2, 1], &[1.0, 1.0, 2.0]).unwrap();
        assert_eq!(shares, vec![0.5, 0.75, 0.75, 1.0]);
        assert_eq!(coverage(&[0], &[0.0]).unwrap(), vec![0.0]);
    }
}
