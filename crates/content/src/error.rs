//! Typed errors of this crate.

use thiserror::Error;

/// Why bytes are not a [`crate::Signature`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum SignatureError {
    /// The bytes are not [`crate::Signature::ENCODED_LEN`] long.
    #[error("content signature bytes: expected {expected} bytes, found {found}")]
    WrongLength {
        /// The length of the form.
        expected: usize,
        /// The length given.
        found: usize,
    },
    /// The first byte names a format this build does not read.
    #[error("content signature bytes: format version {found}, this build reads version {expected}")]
    UnknownVersion {
        /// The version byte found.
        found: u8,
        /// The version this build writes and reads.
        expected: u8,
    },
}
