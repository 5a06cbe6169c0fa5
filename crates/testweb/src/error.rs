//! The crate's typed errors.

use thiserror::Error;

/// What can go wrong building or serving a test web.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum TestwebError {
    /// A config field is out of range.
    #[error("invalid testweb config: {field} = {value}")]
    InvalidConfig {
        /// The field's name.
        field: &'static str,
        /// Its value, and why it is wrong where that helps.
        value: String,
    },
    /// An unknown misbehaviour name.
    #[error("unknown misbehaviour {name:?}; known: {known}")]
    UnknownMisbehaviour {
        /// The name given.
        name: String,
        /// The names known, comma-separated.
        known: String,
    },
    /// Binding or serving the socket failed.
    #[error("testweb server on {address}: {source}")]
    Io {
        /// The address bound or served.
        address: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

/// The crate's result type.
pub type Result<T, E = TestwebError> = std::result::Result<T, E>;
