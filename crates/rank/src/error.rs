//! Typed errors: a parameter out of range, a graph that is not a graph, a restored state that
//! would break cash conservation.

/// Why a parameter, a graph or a restored state was rejected. Nothing is changed when one is
/// returned.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RankError {
    /// The damping factor (the fraction of a page's cash or rank that follows its links) is out
    /// of range: OPIC takes `(0, 1]`, PageRank `[0, 1)`.
    #[error("damping factor {damping} is outside {range}")]
    InvalidDamping {
        /// The value given.
        damping: f64,
        /// The range it must lie in, as text.
        range: &'static str,
    },
    /// A PageRank tolerance must be finite and strictly positive.
    #[error("tolerance must be finite and > 0, got {0}")]
    InvalidTolerance(f64),
    /// A CSR graph whose offsets are not `n + 1` non-decreasing positions starting at 0 and
    /// ending at the number of targets.
    #[error("CSR offsets are malformed at position {position}")]
    MalformedOffsets {
        /// The first offset index where the rule is broken.
        position: usize,
    },
    /// A link (in a CSR graph or an edge list) to a page outside `0..page_count`.
    #[error("link {from} → {to} points outside the {page_count} pages of the graph")]
    LinkOutOfRange {
        /// The page the link leaves.
        from: u32,
        /// The page it points to.
        to: u32,
        /// The number of pages in the graph.
        page_count: u32,
    },
    /// A restored cash or history that is negative, NaN or infinite.
    #[error("page {page}: restored {field} must be finite and ≥ 0, got {value}")]
    InvalidState {
        /// The page (`u32::MAX` for the virtual page).
        page: u32,
        /// `"cash"` or `"history"`.
        field: &'static str,
        /// The value given.
        value: f64,
    },
    /// A conservation invariant of [`crate::opic`] does not hold: `quantity` should be
    /// `expected` but is `found`.
    #[error("{quantity} is not conserved: expected {expected}, found {found}")]
    NotConserved {
        /// `"cash"` (invariant I1) or `"history"` (invariant I2).
        quantity: &'static str,
        /// What the invariant says.
        expected: f64,
        /// What the pages hold.
        found: f64,
    },
    /// A page (a crawl's seed, a page of a sequence) outside `0..page_count`.
    #[error("page {page} is outside the {page_count} pages of the graph")]
    PageOutOfRange {
        /// The page given.
        page: u32,
        /// The number of pages in the graph.
        page_count: u32,
    },
    /// Per-page values (an oracle's scores) not one per page of the graph.
    #[error("{got} values for a graph of {expected} pages")]
    WrongLength {
        /// How many were given.
        got: usize,
        /// The number of pages.
        expected: usize,
    },
    /// A partial PageRank recomputed every 0 pages.
    #[error("a partial PageRank must be recomputed every 1 page or more, not every 0")]
    ZeroInterval,
}

/// Results of this crate.
pub type Result<T, E = RankError> = std::result::Result<T, E>;
