//! Typed errors for observations and prior parameters that make no sense.

/// Why an observation or a parameter was rejected. Nothing is changed when one is returned.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An interval (time between two fetches) must be finite and strictly positive.
    #[error("interval must be a finite, positive time, got {0}")]
    InvalidInterval(f64),
    /// A Last-Modified age (time from the last change to the fetch) must be finite and ≥ 0.
    #[error("Last-Modified age must be a finite, non-negative time, got {0}")]
    InvalidAge(f64),
    /// A change was seen, but Last-Modified puts it before the previous fetch.
    #[error("Last-Modified age {age} exceeds the interval {interval} in which the change was seen")]
    AgeExceedsInterval {
        /// The age of the last change at fetch time.
        age: f64,
        /// The interval since the previous fetch.
        interval: f64,
    },
    /// No change was seen, but Last-Modified puts a change after the previous fetch.
    /// The server's Last-Modified is unreliable for this page; observe with `None` instead.
    #[error("Last-Modified age {age} lies inside the unchanged interval {interval}")]
    ModifiedWithoutChange {
        /// The age of the last change at fetch time.
        age: f64,
        /// The interval since the previous fetch.
        interval: f64,
    },
    /// More than `u32::MAX` intervals were observed for one page.
    #[error("too many observations for one page (the counters are u32)")]
    TooManyObservations,
    /// A count of changes larger than the count of intervals they were seen in.
    #[error("{changes} changes cannot be seen in {intervals} intervals")]
    ChangesExceedIntervals {
        /// Intervals with a change.
        changes: u32,
        /// Intervals observed.
        intervals: u32,
    },
    /// Bytes that are not a [`crate::ChangeHistory`]'s byte form.
    #[error("corrupt change history bytes: {0}")]
    Corrupt(&'static str),
    /// A prior or pool parameter that is not finite and positive.
    #[error("{name} must be finite and positive, got {value}")]
    InvalidParameter {
        /// Which parameter.
        name: &'static str,
        /// The value given.
        value: f64,
    },
}

/// `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
