//! Typed errors of the simulator: every variant names the offending page, host or setting.

use thiserror::Error;

/// Why a simulation could not run.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum SimError {
    /// The configuration has no page.
    #[error("no pages to simulate")]
    NoPages,
    /// The global budget is not finite and positive.
    #[error("budget must be finite and > 0 fetches per unit time, got {0}")]
    InvalidBudget(f64),
    /// The horizon is not finite and positive.
    #[error("horizon must be finite and > 0, got {0}")]
    InvalidHorizon(f64),
    /// The warm-up fraction is outside `[0, 1)`.
    #[error("warm-up fraction must be in [0, 1), got {0}")]
    InvalidWarmup(f64),
    /// The number of time-series buckets is 0.
    #[error("the time series needs at least one bucket")]
    NoBuckets,
    /// A page's weight is not finite and positive.
    #[error("page {page}: weight must be finite and > 0, got {weight}")]
    InvalidWeight {
        /// Index of the page.
        page: usize,
        /// The weight given.
        weight: f64,
    },
    /// A page's change process has a parameter out of range.
    #[error("page {page}: change process parameter `{name}` out of range: {value}")]
    InvalidProcess {
        /// Index of the page.
        page: usize,
        /// Name of the parameter.
        name: &'static str,
        /// The value given.
        value: f64,
    },
    /// A page names a host that does not exist.
    #[error("page {page}: host {host} does not exist ({hosts} hosts)")]
    UnknownHost {
        /// Index of the page.
        page: usize,
        /// The host it names.
        host: u32,
        /// Number of hosts configured.
        hosts: usize,
    },
    /// A host's capacity or minimum delay is out of range.
    #[error("host {host}: `{name}` out of range: {value}")]
    InvalidHost {
        /// Index of the host.
        host: usize,
        /// `capacity` (must be > 0, may be infinite) or `min_delay` (finite, ≥ 0).
        name: &'static str,
        /// The value given.
        value: f64,
    },
    /// A policy name that the simulator does not know.
    #[error("unknown policy `{0}` (known: {known})", known = crate::PolicyKind::names().join(", "))]
    UnknownPolicy(String),
    /// A rates mode other than `known` or `learned`.
    #[error("unknown rates mode `{0}` (known: known, learned)")]
    UnknownRatesMode(String),
    /// A policy asked for a fetch in the past or of a page that does not exist.
    #[error("policy proposed an invalid fetch: page {page} at time {time} (now {now})")]
    InvalidFetch {
        /// The page proposed.
        page: usize,
        /// The time proposed.
        time: f64,
        /// The simulation time when it was proposed.
        now: f64,
    },
    /// The refresh solver rejected the problem the policy built.
    #[error("solver: {0}")]
    Solver(#[from] freshet_policy::PolicyError),
    /// An exploration phase was asked for before a policy that has none.
    #[error("an exploration phase (--explore) runs only before `threshold` with learned rates, not `{0}`")]
    ExploreUnsupported(&'static str),
    /// The interval between change notifications is not finite and positive.
    #[error("notification interval must be finite and > 0, got {0}")]
    InvalidNotifyInterval(f64),
    /// Change notifications asked for with an exploration phase, which does not hear them.
    #[error(
        "change notifications (--notify-interval) are not simulated with an exploration phase (--explore)"
    )]
    NotifyExplore,
    /// The online scheduler (`threshold`) rejected a page, a host or the budget.
    #[error("scheduler: {0}")]
    Scheduler(#[from] freshet_schedule::online::OnlineError),
}

/// `Result` with a [`SimError`].
pub type Result<T, E = SimError> = std::result::Result<T, E>;
