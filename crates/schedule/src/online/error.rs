//! Typed errors of the online scheduler: bad input, each naming the offending page or host.

use super::{HostId, PageId};
use thiserror::Error;

/// Why the online scheduler refused a call. A failed fetch is not an error: it is an
/// [`Outcome`](super::Outcome).
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum OnlineError {
    /// The page was never added, or was removed.
    #[error("{0} is not known to the scheduler")]
    UnknownPage(PageId),
    /// The host was never declared with `set_host`.
    #[error("{0} is not known to the scheduler (declare it with set_host first)")]
    UnknownHost(HostId),
    /// `add` named a page that is already present.
    #[error("{0} is already present")]
    DuplicatePage(PageId),
    /// `restore` gave a last fetch time that is not a finite number.
    #[error("{page}: the time of the last fetch must be a finite number, got {time}")]
    InvalidTime {
        /// The page.
        page: PageId,
        /// The time given.
        time: f64,
    },
    /// `fetched` named a page that is not in flight.
    #[error("{0} is not in flight: fetched() must answer a Fetch decision")]
    NotInFlight(PageId),
    /// A weight outside the objective's domain, or not representable as a positive `f32`.
    #[error("{page}: weight must be a positive finite number (as f32), got {weight}")]
    InvalidWeight {
        /// The page.
        page: PageId,
        /// The weight given.
        weight: f64,
    },
    /// A change rate outside the objective's domain, or not representable as a positive `f32`.
    #[error(
        "{page}: change rate must be a positive finite number in the objective's domain, got {change_rate}"
    )]
    InvalidChangeRate {
        /// The page.
        page: PageId,
        /// The change rate given.
        change_rate: f64,
    },
    /// A host's minimum delay is negative or not finite, or its maximum rate is not positive.
    #[error("{host}: min_delay must be finite and ≥ 0 and max_rate > 0, got {min_delay} and {max_rate}")]
    InvalidPoliteness {
        /// The host.
        host: HostId,
        /// The minimum delay given.
        min_delay: f64,
        /// The maximum rate given.
        max_rate: f64,
    },
    /// A back-off that is negative or NaN.
    #[error("{page}: retry_after must be ≥ 0, got {retry_after}")]
    InvalidBackOff {
        /// The page whose fetch asked for the back-off.
        page: PageId,
        /// The delay given.
        retry_after: f64,
    },
    /// A budget that is not a positive finite rate, or a burst below one fetch.
    #[error("budget must be a positive finite rate and burst ≥ 1, got {budget} and {burst}")]
    InvalidBudget {
        /// The budget `k_0` given.
        budget: f64,
        /// The burst given.
        burst: f64,
    },
    /// A threshold `λ_0` that is not a positive finite number.
    #[error("λ_0 must be a positive finite number, got {0}")]
    InvalidThreshold(f64),
}

/// `Result` with [`OnlineError`] as the default error.
pub type OnlineResult<T, E = OnlineError> = std::result::Result<T, E>;
