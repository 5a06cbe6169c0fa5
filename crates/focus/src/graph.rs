//! A graph with the relevance a focused crawl is after (seed `002_987a179045e4afb6.txt`, "a
//! directed graph, weighted"): a score `β(u) ≥ 0` per page (say the count of a topic's word in
//! it) and `α(u, v) ≥ 0` per link (the count in the anchor, or in the tweets of `u` that
//! mention `v`). A crawl learns `β(u)` and the `α(u, ·)` of `u`'s links when it fetches `u`,
//! and nothing of an unfetched page.

use freshet_rank::CsrGraph;

use crate::error::{FocusError, Result};

/// A link graph with a score per page and per link; the in-links are indexed once, for the
/// second-level estimators.
#[derive(Debug, Clone)]
pub struct ScoredGraph {
    graph: CsrGraph,
    page_scores: Vec<f64>,
    link_scores: Vec<f64>,
    /// In-links of page `v`: `in_sources[in_offsets[v]..in_offsets[v + 1]]`, with the id of
    /// each link at the same position of `in_link_ids`.
    in_offsets: Vec<usize>,
    in_sources: Vec<u32>,
    in_link_ids: Vec<usize>,
}

impl ScoredGraph {
    /// `graph` with `page_scores` (`β`, one per page) and `link_scores` (`α`, one per link, by
    /// [`CsrGraph::link_ids`]).
    ///
    /// # Errors
    /// [`FocusError::WrongLength`] unless there is one score per page and per link;
    /// [`FocusError::InvalidScore`] for a negative, NaN or infinite score.
    pub fn new(graph: CsrGraph, page_scores: Vec<f64>, link_scores: Vec<f64>) -> Result<Self> {
        let pages = graph.page_count() as usize;
        for (what, scores, expected) in
            [("page", &page_scores, pages), ("link", &link_scores, graph.link_count())]
        {
            if scores.len() != expected {
                return Err(FocusError::WrongLength { what, got: scores.len(), expected });
            }
            if let Some((index, &value)) =
                scores.iter().enumerate().find(|(_, value)| !(value.is_finite() && **value >= 0.0))
            {
                return Err(FocusError::InvalidScore { what, index, value });
            }
        }
        let mut in_offsets = vec![0_usize; pages + 1];
        for page in 0..graph.page_count() {
            for &to in graph.out_links(page) {
                in_offsets[to as usize + 1] += 1;
            }
        }
        for index in 0..pages {
            in_offsets[index + 1] += in_offsets[index];
        }
        let mut fill = in_offsets.clone();
        let mut in_sources = vec![0_u32; graph.link_count()];
        let mut in_link_ids = vec![0_usize; graph.link_count()];
        for page in 0..graph.page_count() {
            for (link, &to) in graph.link_ids(page).zip(graph.out_links(page)) {
                let slot = &mut fill[to as usize];
                in_sources[*slot] = page;
                in_link_ids[*slot] = link;
                *slot += 1;
            }
        }
        Ok(Self { graph, page_scores, link_scores, in_offsets, in_sources, in_link_ids })
    }

    /// The link graph.
    #[must_use]
    pub fn graph(&self) -> &CsrGraph {
        &self.graph
    }

    /// Number of pages.
    #[must_use]
    pub fn page_count(&self) -> u32 {
        self.graph.page_count()
    }

    /// Every page's score `β`.
    #[must_use]
    pub fn page_scores(&self) -> &[f64] {
        &self.page_scores
    }

    /// Page `page`'s score `β` (0 outside the graph).
    #[must_use]
    pub fn page_score(&self, page: u32) -> f64 {
        self.page_scores.get(page as usize).copied().unwrap_or(0.0)
    }

    /// Link `link`'s score `α` (0 outside the graph).
    #[must_use]
    pub fn link_score(&self, link: usize) -> f64 {
        self.link_scores.get(link).copied().unwrap_or(0.0)
    }

    /// `page`'s out-links: `(target, link id)`.
    pub(crate) fn out_links(&self, page: u32) -> impl Iterator<Item = (u32, usize)> + '_ {
        self.graph.out_links(page).iter().copied().zip(self.graph.link_ids(page))
    }

    /// `page`'s in-links: `(source, link id)`.
    pub(crate) fn in_links(&self, page: u32) -> impl Iterator<Item = (u32, usize)> + '_ {
        let index = page as usize;
        let range = match (self.in_offsets.get(index), self.in_offsets.get(index + 1)) {
            (Some(&start), Some(&end)) => start..end,
            _ => 0..0,
        };
        self.in_sources[range.clone()].iter().copied().zip(self.in_link_ids[range].iter().copied())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn in_links_mirror_out_links_and_bad_scores_are_refused() {
        let graph = CsrGraph::from_links(3, &[(0, 1), (0, 2), (1, 2), (2, 0)]).unwrap();
        let scored = ScoredGraph::new(graph.clone(), vec![1.0, 0.0, 2.0], vec![0.5, 1.0, 0.0, 3.0]).unwrap();
        let into_two: Vec<_> = scored.in_links(2).collect();
        // Links are numbered in CSR order: 0→1 (0), 0→2 (1), 1→2 (2), 2→0 (3).
        assert_eq!(into_two, vec![(0, 1), (1, 2)]);
        assert_eq!(scored.in_links(0).collect::<Vec<_>>(), vec![(2, 3)]);
        assert_eq!(scored.out_links(0).collect::<Vec<_>>(), vec![(1, 0), (2, 1)]);
        assert_eq!(scored.link_score(3), 3.0);
        assert_eq!(
            ScoredGraph::new(graph.clone(), vec![1.0; 2], vec![0.0; 4]).unwrap_err(),
            FocusError::WrongLength { what: "page", got: 2, expected: 3 }
        );
        assert_eq!(
            ScoredGraph::new(graph.clone(), vec![1.0; 3], vec![0.0; 5]).unwrap_err(),
            FocusError::WrongLength { what: "link", got: 5, expected: 4 }
        );
        assert!(matches!(
            ScoredGraph::new(graph, vec![1.0, -1.0, 0.0], vec![0.0; 4]).unwrap_err(),
            FocusError::InvalidScore { what: "page", index: 1, .. }
        ));
    }
}
