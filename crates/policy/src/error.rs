//! Typed errors of the policy crate.

/// What is wrong with a problem given to a solver. Every variant names the offending item, so a
/// caller reading a file can map it back to a line.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// The budget (total fetches per unit time) is not a positive finite number.
    #[error("budget must be a positive finite number of fetches per unit time, got {budget}")]
    InvalidBudget {
        /// The budget given.
        budget: f64,
    },
    /// A page's weight is not a positive finite number.
    #[error("page {page}: weight must be a positive finite number, got {weight}")]
    InvalidWeight {
        /// Index of the page in the problem.
        page: usize,
        /// The weight given.
        weight: f64,
    },
    /// A page's change rate is outside the objective's domain.
    #[error("page {page}: change rate must be {expected}, got {change_rate}")]
    InvalidChangeRate {
        /// Index of the page in the problem.
        page: usize,
        /// The change rate given.
        change_rate: f64,
        /// The domain the objective expects, in words.
        expected: &'static str,
    },
    /// A page names a host that has no capacity entry.
    #[error("page {page}: host index {host} has no capacity (only {hosts} hosts given)")]
    UnknownHost {
        /// Index of the page in the problem.
        page: usize,
        /// The host index it names.
        host: u32,
        /// How many hosts have capacities.
        hosts: usize,
    },
    /// A host's capacity is not positive (use `f64::INFINITY` for "no cap").
    #[error("host {host}: capacity must be positive (or infinite for no cap), got {capacity}")]
    InvalidCapacity {
        /// Host index.
        host: usize,
        /// The capacity given.
        capacity: f64,
    },
    /// The host list does not have one entry per page.
    #[error("host assignment has {hosts} entries for {pages} pages")]
    HostLengthMismatch {
        /// Number of host entries.
        hosts: usize,
        /// Number of pages.
        pages: usize,
    },
    /// A closed-form algorithm was asked for a case outside its assumptions.
    #[error("{algorithm}: {reason}")]
    OutsideAssumptions {
        /// The algorithm.
        algorithm: &'static str,
        /// Why it does not apply.
        reason: &'static str,
    },
}

/// The policy crate's result type.
pub type Result<T, E = PolicyError> = std::result::Result<T, E>;
