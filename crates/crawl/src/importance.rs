//! Page importance `w` for the freshness loop: OPIC online (the default), in-degree, or weights
//! the user gives per URL. `freshet-rank` does the math; this module feeds it what the crawl
//! sees and keeps what must survive a restart.
//!
//! # How `w` enters the value function
//! Under [`Revisit::Freshet`](crate::Revisit::Freshet) a page's `w` is its weight in seed 003's
//! crawl value `V(τ) = (w/λ)(1 − e^(−λτ)) − wτe^(−λτ)` (the `freshness` objective of
//! `freshet-policy`), which is linear in `w`: a page twice as important is worth twice as much
//! at the same staleness and reaches the threshold `λ_i + λ_0` sooner, so it is refreshed more
//! often, by the square-root-like law of the optimum. Only ratios matter (`λ_0` follows the
//! budget), so the estimators' weights have mean 1. A page's `w` is handed to the scheduler when
//! it is discovered and again after each of its fetches (not whenever cash reaches it, which
//! would touch every linked page at every fetch); every page is refetched, so `w` stays
//! current within one revisit.
//!
//! # OPIC in the crawl
//! A page fetched with content passes its cash on along its links that the crawl keeps: in
//! scope, not disallowed by robots.txt (a page never fetched would hoard cash), and the target
//! of a redirect (a redirect passes all of it). Links are known as page ids only after the
//! group commit allocates them, so the crawl calls [`Opic::fetched`] then; a page with no such
//! link is dangling and gives its cash to the virtual page (`freshet_rank::opic`, eq. 3).
//!
//! **Across restarts** a page's OPIC history `H` changes only when it is fetched, so its next
//! completion stores it (in the page's memory bytes) and `--resume` restores it; the cash in
//! flight (received since each page's last fetch) is not stored, so it is parked with the
//! virtual page, which hands it out evenly at the next fetch: the estimate loses at most the
//! flow of one pass. In-degree counts are not stored: they are relearned as pages are fetched
//! again (each page's links count from its first fetch in a run).

use std::collections::HashMap;
use std::sync::Arc;

use freshet_rank::{InDegree, Opic, PageCash};

/// The smallest weight handed to the scheduler (it needs `w > 0`; the estimators answer 0 for
/// a page they do not know).
const MIN_WEIGHT: f64 = 1e-6;

/// Where page weights come from.
#[derive(Clone, Debug, Default)]
pub enum Importance {
    /// OPIC, learned online from the links the crawl follows (seed 002's estimator 3).
    #[default]
    Opic,
    /// Distinct in-links from fetched pages, scaled to mean 1.
    InDegree,
    /// Weights given per canonical URL (`--weights FILE`); pages not listed weigh 1.
    Given(Arc<HashMap<String, f64>>),
}

/// The crawl's importance estimator.
#[derive(Debug)]
pub(crate) enum Weights {
    Opic(Opic),
    InDegree(InDegree),
    Given(Arc<HashMap<String, f64>>),
}

impl Weights {
    pub(crate) fn new(kind: &Importance) -> Self {
        match kind {
            Importance::Opic => Self::Opic(Opic::new()),
            Importance::InDegree => Self::InDegree(InDegree::new()),
            Importance::Given(weights) => Self::Given(Arc::clone(weights)),
        }
    }

    /// A page became known (discovered, or rebuilt from the store).
    pub(crate) fn add(&mut self, page: u32) {
        match self {
            Self::Opic(opic) => opic.add_page(page),
            Self::InDegree(degree) => degree.add_page(page),
            Self::Given(_) => {}
        }
    }

    /// A page rebuilt from the store, with the OPIC history its last completion stored.
    pub(crate) fn restore(&mut self, page: u32, history: f64) {
        match self {
            Self::Opic(opic) if history > 0.0 => {
                // A stored history is finite and ≥ 0 (checked when the memory was decoded);
                // were it not, the page would simply keep the cash of a new page.
                let _ = opic.restore(page, PageCash { cash: 0.0, history });
            }
            _ => self.add(page),
        }
    }

    /// `page` was fetched with content and links to `out_links` (kept links only) and, in a
    /// sharded crawl, to `external` distinct pages of other shards. Returns the OPIC cash each
    /// of those carries away (0 for the other estimators: in-degree counts only the links
    /// within a shard), for the caller to hand to their shards.
    pub(crate) fn fetched(&mut self, page: u32, out_links: &[u32], external: usize) -> f64 {
        match self {
            Self::Opic(opic) => opic.fetched_with_external(page, out_links, external),
            Self::InDegree(degree) => {
                degree.fetched(page, out_links);
                0.0
            }
            Self::Given(_) => 0.0,
        }
    }

    /// In a crawl of `shards` shards: hands out here only this shard's share of OPIC's virtual
    /// page (`1/shards`: shards hold about as many pages each, hosts being shared out by a
    /// hash), keeping the rest for the others ([`Weights::take_teleport_export`]).
    pub(crate) fn set_shards(&mut self, shards: u32) {
        if let Self::Opic(opic) = self
            && shards > 1
        {
            let _ = opic.set_local_teleport(1.0 / f64::from(shards));
        }
    }

    /// The OPIC virtual page's cash kept for other shards' pages since the last call.
    pub(crate) fn take_teleport_export(&mut self) -> f64 {
        match self {
            Self::Opic(opic) => opic.take_teleport_export(),
            _ => 0.0,
        }
    }

    /// Spreads OPIC cash another shard's virtual page kept for this shard's pages over them.
    pub(crate) fn receive_teleport(&mut self, cash: f64) {
        if let Self::Opic(opic) = self {
            let _ = opic.receive_teleport(cash);
        }
    }

    /// OPIC cash another shard's estimator handed on along a link to `page` (`None`: a page
    /// this shard does not hold, or cash it cannot address: then to every page evenly).
    /// Ignored by the other estimators, and when not a finite amount ≥ 0.
    pub(crate) fn receive(&mut self, page: Option<u32>, cash: f64) {
        if let Self::Opic(opic) = self {
            let _ = opic.receive(page, cash);
        }
    }

    /// The weight `w` of `page`, whose canonical URL is `url`.
    pub(crate) fn weight(&self, page: u32, url: &str) -> f64 {
        let weight = match self {
            Self::Opic(opic) => opic.scaled_importance(page),
            Self::InDegree(degree) => degree.scaled_in_degree(page),
            Self::Given(weights) => weights.get(url).copied().unwrap_or(1.0),
        };
        if weight.is_finite() { weight.max(MIN_WEIGHT) } else { 1.0 }
    }

    /// What to store for `page` so that a restart can [`restore`](Self::restore) it: its OPIC
    /// history (0 for the other estimators).
    pub(crate) fn history(&self, page: u32) -> f64 {
        match self {
            Self::Opic(opic) => opic.state(page).map_or(0.0, |state| state.history),
            _ => 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opic_weights_follow_links_and_survive_a_restart() {
        let mut weights = Weights::new(&Importance::Opic);
        for page in 0..3 {
            weights.add(page);
        }
        // 0 → 2, 1 → 2, 2 → 0: page 2 gathers the most cash, page 1 the least.
        for _ in 0..200 {
            weights.fetched(0, &[2], 0);
            weights.fetched(1, &[2], 0);
            weights.fetched(2, &[0], 0);
        }
        let [w0, w1, w2] = [0, 1, 2].map(|page| weights.weight(page, ""));
        assert!(w2 > w0 && w0 > w1 && w1 > 0.0, "{w0} {w1} {w2}");
        assert!(((w0 + w1 + w2) / 3.0 - 1.0).abs() < 1e-9);

        let mut rebuilt = Weights::new(&Importance::Opic);
        for page in 0..3 {
            rebuilt.restore(page, weights.history(page));
        }
        for page in 0..3 {
            let (before, after) = (weights.weight(page, ""), rebuilt.weight(page, ""));
            assert!((before - after).abs() < 0.02 * before, "page {page}: {before} then {after}");
        }
    }

    #[test]
    fn given_weights_and_floors() {
        let given = Importance::Given(Arc::new(HashMap::from([("http://a.test/".to_owned(), 5.0)])));
        let weights = Weights::new(&given);
        assert_eq!(weights.weight(0, "http://a.test/"), 5.0);
        assert_eq!(weights.weight(0, "http://b.test/"), 1.0);
        let mut degree = Weights::new(&Importance::InDegree);
        degree.add(0);
        degree.add(1);
        degree.fetched(0, &[1], 0);
        // In-degree plus one, mean 1: 2/3 and 4/3.
        assert!((degree.weight(0, "") - 2.0 / 3.0).abs() < 1e-12);
        assert!((degree.weight(1, "") - 4.0 / 3.0).abs() < 1e-12);
        // An unknown page weighs nothing to the estimator: the floor keeps it schedulable.
        assert_eq!(degree.weight(7, ""), MIN_WEIGHT);
    }
}
