//! PageRank of a (partial) link graph by power iteration, on a compressed sparse row graph.
//!
//! Page, Brin, Motwani, Winograd, "The PageRank citation ranking", 1998; Langville & Meyer, "A
//! survey of eigenvector methods of web information retrieval" (the fixture in `tests/data`).
//! With damping `d`, `n` pages, out-degree `|L_i|` and `D` the dangling pages (no out-links):
//!
//! ```text
//! (1)  r'_j = (1 − d)/n + (d/n) Σ_{i∈D} r_i + d Σ_{i→j} r_i / |L_i|
//! ```
//!
//! uniform teleport, dangling pages spread uniformly, from `r = 1/n`, until
//! `‖r' − r‖₁ < tolerance`. The map contracts by `d` in the L1 norm, so the answer is within
//! `d/(1 − d) · tolerance` of the fixed point, and at most `⌈ln(tolerance/2)/ln d⌉` rounds are
//! needed. The result sums to 1 (the test web scales it by `n`, to mean 1). This is the batch
//! twin of [`crate::opic`], whose fixed point it is.

use crate::error::{RankError, Result};

/// A directed graph on pages `0..n` in compressed sparse row form: the out-links of page `i` are
/// `targets[offsets[i]..offsets[i + 1]]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsrGraph {
    offsets: Vec<usize>,
    targets: Vec<u32>,
}

impl CsrGraph {
    /// A graph from its CSR arrays, taken as they are (repeated targets are parallel edges,
    /// a target equal to its source is a self-link).
    ///
    /// # Errors
    /// [`RankError::MalformedOffsets`] unless `offsets` starts at 0, never decreases and ends at
    /// `targets.len()`; [`RankError::LinkOutOfRange`] for a target `≥ n = offsets.len() − 1`.
    pub fn from_csr(offsets: Vec<usize>, targets: Vec<u32>) -> Result<Self> {
        if offsets.first() != Some(&0) {
            return Err(RankError::MalformedOffsets { position: 0 });
        }
        if let Some(position) = offsets.windows(2).position(|pair| pair[0] > pair[1]) {
            return Err(RankError::MalformedOffsets { position: position + 1 });
        }
        if offsets.last() != Some(&targets.len()) {
            return Err(RankError::MalformedOffsets { position: offsets.len() - 1 });
        }
        let page_count =
            u32::try_from(offsets.len() - 1).map_err(|_| RankError::MalformedOffsets { position: 0 })?;
        for (from, pair) in offsets.windows(2).enumerate() {
            if let Some(&to) = targets[pair[0]..pair[1]].iter().find(|&&to| to >= page_count) {
                // `from < page_count`, which fits in u32.
                return Err(RankError::LinkOutOfRange { from: from as u32, to, page_count });
            }
        }
        Ok(Self { offsets, targets })
    }

    /// A graph on `page_count` pages from `(from, to)` links in any order. Links are a set, as
    /// [`crate::Opic`] takes them: repeats are dropped, and so are self-links, so that this
    /// graph's PageRank is OPIC's fixed point.
    ///
    /// # Errors
    /// [`RankError::LinkOutOfRange`] for an endpoint `≥ page_count`.
    pub fn from_links(page_count: u32, links: &[(u32, u32)]) -> Result<Self> {
        if let Some(&(from, to)) = links.iter().find(|&&(from, to)| from >= page_count || to >= page_count) {
            return Err(RankError::LinkOutOfRange { from, to, page_count });
        }
        let mut sorted: Vec<(u32, u32)> = links.iter().copied().filter(|&(from, to)| from != to).collect();
        sorted.sort_unstable();
        sorted.dedup();
        let mut offsets = vec![0usize; page_count as usize + 1];
        for &(from, _) in &sorted {
            offsets[from as usize + 1] += 1;
        }
        for i in 0..page_count as usize {
            offsets[i + 1] += offsets[i];
        }
        let targets = sorted.into_iter().map(|(_, to)| to).collect();
        Ok(Self { offsets, targets })
    }

    /// Number of pages `n`.
    #[must_use]
    pub fn page_count(&self) -> u32 {
        // from_csr and from_links both bound it by u32.
        u32::try_from(self.offsets.len() - 1).unwrap_or(u32::MAX)
    }

    /// Number of links (the length of the CSR targets).
    #[must_use]
    pub fn link_count(&self) -> usize {
        self.targets.len()
    }

    /// The ids of `page`'s out-links, in the order of [`CsrGraph::out_links`]: link `k` of the
    /// range goes to `out_links(page)[k − start]`. Per-link values (a focused crawl's anchor
    /// scores) are indexed by these ids. Empty for a page outside the graph.
    #[must_use]
    pub fn link_ids(&self, page: u32) -> std::ops::Range<usize> {
        let i = page as usize;
        match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(&start), Some(&end)) => start..end,
            _ => 0..0,
        }
    }

    /// Out-links of `page`; empty for a page outside the graph.
    #[must_use]
    pub fn out_links(&self, page: u32) -> &[u32] {
        let i = page as usize;
        match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(&start), Some(&end)) => &self.targets[start..end],
            _ => &[],
        }
    }
}

/// PageRank of `graph` by eq. (1) of the module docs: a vector of `n` ranks summing to 1.
///
/// # Errors
/// [`RankError::InvalidDamping`] unless `0 ≤ damping < 1`; [`RankError::InvalidTolerance`]
/// unless `tolerance` is finite and `> 0`.
pub fn pagerank(graph: &CsrGraph, damping: f64, tolerance: f64) -> Result<Vec<f64>> {
    if !(0.0..1.0).contains(&damping) {
        return Err(RankError::InvalidDamping { damping, range: "[0, 1)" });
    }
    if !(tolerance.is_finite() && tolerance > 0.0) {
        return Err(RankError::InvalidTolerance(tolerance));
    }
    let n = graph.page_count() as usize;
    if n == 0 {
        return Ok(Vec::new());
    }
    let uniform = 1.0 / n as f64;
    let mut rank = vec![uniform; n];
    let mut next = vec![0.0; n];
    // ‖r_k − r*‖₁ ≤ 2 d^k, so this many rounds always reach the tolerance (plus one for rounding).
    let max_rounds =
        if damping == 0.0 { 1 } else { ((tolerance / 2.0).ln() / damping.ln()).ceil() as usize + 1 };
    for _ in 0..max_rounds {
        next.fill(0.0);
        let mut dangling = 0.0;
        for (page, &r) in rank.iter().enumerate() {
            let out = &graph.targets[graph.offsets[page]..graph.offsets[page + 1]];
            if out.is_empty() {
                dangling += r;
            } else {
                let share = damping * r / out.len() as f64;
                for &to in out {
                    next[to as usize] += share;
                }
            }
        }
        let base = (1.0 - damping) * uniform + damping * dangling * uniform;
        let mut change = 0.0;
        for (value, &old) in next.iter_mut().zip(&rank) {
            *value += base;
            change += (*value - old).abs();
        }
        std::mem::swap(&mut rank, &mut next);
        if change < tolerance {
            break;
        }
    }
    Ok(rank)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn malformed_graphs_are_refused_with_the_place() {
        assert_eq!(CsrGraph::from_csr(vec![1, 1], vec![0]), Err(RankError::MalformedOffsets { position: 0 }));
        assert_eq!(
            CsrGraph::from_csr(vec![0, 2, 1], vec![0, 1]),
            Err(RankError::MalformedOffsets { position: 2 })
        );
        assert_eq!(
            CsrGraph::from_csr(vec![0, 1], vec![0, 0]),
            Err(RankError::MalformedOffsets { position: 1 })
        );
        assert_eq!(
            CsrGraph::from_csr(vec![0, 0, 1], vec![2]),
            Err(RankError::LinkOutOfRange { from: 1, to: 2, page_count: 2 })
        );
        assert_eq!(
            CsrGraph::from_links(2, &[(0, 1), (2, 0)]),
            Err(RankError::LinkOutOfRange { from: 2, to: 0, page_count: 2 })
        );
    }

    #[test]
    fn from_links_makes_a_set_without_self_links() {
        let graph = CsrGraph::from_links(3, &[(2, 0), (0, 2), (0, 1), (0, 2), (1, 1)]).unwrap();
        assert_eq!(graph.out_links(0), &[1, 2]);
        assert_eq!(graph.out_links(1), &[] as &[u32]);
        assert_eq!(graph.out_links(2), &[0]);
        assert_eq!(graph.out_links(3), &[] as &[u32]);
    }

    #[test]
    fn no_links_gives_uniform_rank_and_parameters_are_checked() {
        let graph = CsrGraph::from_links(4, &[]).unwrap();
        assert_eq!(pagerank(&graph, 0.85, 1e-12).unwrap(), vec![0.25; 4]);
        assert!(pagerank(&graph, 1.0, 1e-9).is_err());
        assert!(pagerank(&graph, 0.85, 0.0).is_err());
        assert!(pagerank(&CsrGraph::from_links(0, &[]).unwrap(), 0.85, 1e-9).unwrap().is_empty());
    }
}
