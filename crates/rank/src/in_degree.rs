//! In-degree as links are discovered: how many distinct fetched pages link to each page.
//!
//! The oldest importance signal for crawl ordering (seed 004_e0cda6b04941d422.txt, "crawl
//! ordering": in-degree, PageRank, BFS; seed 002_987a179045e4afb6.txt, estimator `fl_deg`,
//! `β̃(v) = d_i(v) = |P(v)|`).
//!
//! What is counted: the links of a page's **first** fetch. A page's out-links are taken as a set
//! (repeats once, no link to itself), so each `(from, to)` pair counts at most once; a refetch
//! of the same page counts nothing, so revisits never double count. The price: links a page
//! gains or loses in later versions are not seen. Keeping every page's previous link set to
//! count the difference would cost memory proportional to the edges, which is the store's job,
//! not this counter's; a crawler that has both sets at hand can rebuild the counter from its
//! store instead. Memory: a `u32` count and a flag per page.

use crate::links::distinct_out_links;

/// Counts of distinct in-links per page, from the first fetch of each linking page.
#[derive(Debug, Clone, Default)]
pub struct InDegree {
    counts: Vec<u32>,
    counted: Vec<bool>,
    /// `Σ counts`, kept so that the scaled form is O(1).
    links_counted: u64,
    scratch: Vec<u32>,
}

impl InDegree {
    /// No pages.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of known pages: one more than the largest id seen (ids are dense, as for
    /// [`crate::Opic::add_page`]).
    #[must_use]
    pub fn page_count(&self) -> u32 {
        u32::try_from(self.counts.len()).unwrap_or(u32::MAX)
    }

    /// Makes `page` (and any smaller id) known, with in-degree 0.
    pub fn add_page(&mut self, page: u32) {
        self.make_known(page);
    }

    /// Page `page` was fetched and links to `out_links`. On its first fetch every distinct
    /// target other than itself gains one (targets not yet known are added); later fetches of
    /// the same page change nothing. Returns whether the links were counted.
    pub fn fetched(&mut self, page: u32, out_links: &[u32]) -> bool {
        self.make_known(page);
        if self.counted[page as usize] {
            return false;
        }
        self.counted[page as usize] = true;
        let links = distinct_out_links(&mut self.scratch, page, out_links);
        if let Some(&largest) = links.last() {
            let needed = largest as usize + 1;
            if self.counts.len() < needed {
                self.counts.resize(needed, 0);
                self.counted.resize(needed, false);
            }
        }
        for &to in links {
            let count = &mut self.counts[to as usize];
            *count = count.saturating_add(1);
        }
        self.links_counted += links.len() as u64;
        true
    }

    /// Distinct fetched pages seen linking to `page`; 0 for an unknown page.
    #[must_use]
    pub fn in_degree(&self, page: u32) -> u32 {
        self.counts.get(page as usize).copied().unwrap_or(0)
    }

    /// `w_i = n (k_i + 1) / Σ_j (k_j + 1)`: in-degree plus one, scaled to mean 1 over the known
    /// pages, so that it can stand in for OPIC's weight (never 0: a page nobody links to yet
    /// still has a weight). O(1); 0 for an unknown page.
    #[must_use]
    pub fn scaled_in_degree(&self, page: u32) -> f64 {
        let Some(&count) = self.counts.get(page as usize) else { return 0.0 };
        let n = self.counts.len() as f64;
        n * (f64::from(count) + 1.0) / (self.links_counted as f64 + n)
    }

    /// Heap bytes held, from capacities: 5 per page slot plus the scratch link list.
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        self.counts.capacity() * size_of::<u32>()
            + self.counted.capacity() * size_of::<bool>()
            + self.scratch.capacity() * size_of::<u32>()
    }

    fn make_known(&mut self, page: u32) {
        let needed = page as usize + 1;
        if self.counts.len() < needed {
            self.counts.resize(needed, 0);
            self.counted.resize(needed, false);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_fetch_counts_distinct_links_and_refetches_count_nothing() {
        let mut degree = InDegree::new();
        assert!(degree.fetched(0, &[2, 1, 2, 0]));
        assert!(degree.fetched(1, &[2]));
        assert!(!degree.fetched(0, &[2, 1, 3]), "a refetch counts nothing");
        assert_eq!((degree.in_degree(0), degree.in_degree(1), degree.in_degree(2)), (0, 1, 2));
        assert_eq!(degree.in_degree(3), 0);
        assert_eq!(degree.page_count(), 3);
        // Scaled: (k + 1) = 1, 2, 3 over n = 3 pages, mean 1.
        let weights: Vec<f64> = (0..3).map(|p| degree.scaled_in_degree(p)).collect();
        assert_eq!(weights, vec![0.5, 1.0, 1.5]);
        assert_eq!(degree.scaled_in_degree(7), 0.0);
    }
}
