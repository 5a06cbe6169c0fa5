//! Typed errors: a graph whose scores do not fit it, a parameter out of range.

/// Why a graph, a crawl's seeds or its configuration was rejected. Nothing is run when one is
/// returned.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum FocusError {
    /// Per-page or per-link scores not one per page (link) of the graph.
    #[error("{got} {what} scores for a graph of {expected} {what}s")]
    WrongLength {
        /// `"page"` or `"link"`.
        what: &'static str,
        /// How many were given.
        got: usize,
        /// How many the graph has.
        expected: usize,
    },
    /// A score that is negative, NaN or infinite: relevance is a count or a weight, `≥ 0`.
    #[error("{what} {index}: score must be finite and ≥ 0, got {value}")]
    InvalidScore {
        /// `"page"` or `"link"`.
        what: &'static str,
        /// The page or link id.
        index: usize,
        /// The value given.
        value: f64,
    },
    /// A seed outside `0..page_count`.
    #[error("seed {page} is outside the {page_count} pages of the graph")]
    PageOutOfRange {
        /// The page given.
        page: u32,
        /// The number of pages in the graph.
        page_count: u32,
    },
    /// A parameter out of its range (a probability outside `[0, 1]`, a refresh rate of 0…).
    #[error("{name} = {value} is outside {range}")]
    InvalidParameter {
        /// The parameter's name, as in [`crate::FocusConfig`].
        name: &'static str,
        /// The value given.
        value: f64,
        /// The range it must lie in, as text.
        range: &'static str,
    },
    /// An estimator that [`crate::OnlineFocus`] does not keep (the second level, OPIC, the
    /// oracle: see `online.rs`).
    #[error("{estimator} is not kept online (online estimators: bfs, fl_deg, fl_n, fl_e, fl_ne, lr_fl)")]
    NotOnline {
        /// The estimator's name.
        estimator: &'static str,
    },
    /// A bandit with no estimator to choose from.
    #[error("a bandit needs at least one estimator (arm)")]
    NoArms,
}

/// Results of this crate.
pub type Result<T, E = FocusError> = std::result::Result<T, E>;
