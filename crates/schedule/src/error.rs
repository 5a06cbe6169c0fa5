//! Errors raised when a rate vector cannot be turned into a schedule.

use thiserror::Error;

/// Why a vector of refresh rates was rejected by [`Shares::new`](crate::Shares::new).
///
/// Every variant that concerns one rate names the page (its index in the input slice).
#[derive(Debug, Clone, Copy, PartialEq, Error)]
#[non_exhaustive]
pub enum ScheduleError {
    /// The rate slice was empty: there is nothing to schedule.
    #[error("no rates given: there is no page to schedule")]
    Empty,
    /// A rate was NaN.
    #[error("rate of page {page} is NaN")]
    NotANumber {
        /// Index of the offending page.
        page: usize,
    },
    /// A rate was negative (`-0.0` is accepted as zero).
    #[error("rate of page {page} is negative ({rate})")]
    Negative {
        /// Index of the offending page.
        page: usize,
        /// The rate given.
        rate: f64,
    },
    /// A rate was `+inf` (`-inf` is reported as [`ScheduleError::Negative`]).
    #[error("rate of page {page} is infinite")]
    Infinite {
        /// Index of the offending page.
        page: usize,
    },
    /// Every rate was zero: no page would ever be fetched.
    #[error("all {pages} rates are zero: no page would ever be fetched")]
    AllZero {
        /// Number of pages given.
        pages: usize,
    },
    /// Each rate was finite but their sum overflows `f64`.
    #[error("the total rate overflows f64")]
    TotalOverflow,
}

/// `Result` with [`ScheduleError`] as the default error.
pub type Result<T, E = ScheduleError> = std::result::Result<T, E>;
