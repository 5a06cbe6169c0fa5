//! The crate's typed error: every variant names the file, the byte offset or the field at fault.

use std::path::PathBuf;

/// What went wrong reading, writing or recovering WARC files.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WarcError {
    /// An operating-system call on a file or directory failed.
    #[error("{action} {path}: {source}")]
    Io {
        /// What was being done ("create", "write", "sync", "rename", "read directory", …).
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A record handed to the writer cannot be written as WARC (for example a header value with a
    /// line break, which would inject a header field).
    #[error("invalid {field}: {reason}")]
    InvalidField {
        /// The WARC header field or writer input at fault.
        field: &'static str,
        /// Why it was refused.
        reason: String,
    },
    /// An HTTP message handed to the writer has no end of its header block (no blank line).
    #[error("the {which} message has no blank line ending its header block ({len} bytes)")]
    NoHttpHeaderEnd {
        /// "request" or "response".
        which: &'static str,
        /// Length of the message given.
        len: usize,
    },
    /// A date outside what WARC-Date can express (years 1970 to 9999 here) or unparsable.
    #[error("invalid WARC date {value:?}: {reason}")]
    InvalidDate {
        /// The date as given.
        value: String,
        /// Why it was refused.
        reason: String,
    },
    /// The writer's options are unusable.
    #[error("invalid writer option {option}: {reason}")]
    InvalidOption {
        /// The option.
        option: &'static str,
        /// Why it was refused.
        reason: String,
    },
    /// A gzip member or the WARC record inside it is malformed or incomplete.
    #[error("{}bad record at byte {offset}: {reason}", path_prefix(path))]
    BadRecord {
        /// The file, when reading from one.
        path: Option<PathBuf>,
        /// Offset of the gzip member (the record) in the compressed file.
        offset: u64,
        /// What is wrong with it.
        reason: String,
    },
    /// Recovery found a damaged record followed by valid ones: this is not a torn tail left by a
    /// killed writer, so nothing was truncated (truncating would lose stored records).
    #[error(
        "{path}: damaged record at byte {offset} is followed by a valid record at byte {next_valid_offset}; \
         not a torn tail, nothing truncated"
    )]
    CorruptBeforeEnd {
        /// The file.
        path: PathBuf,
        /// Offset of the first damaged member.
        offset: u64,
        /// Offset of a later member that decodes to a valid record.
        next_valid_offset: u64,
    },
    /// The deflate compressor reported an error (a bug, not bad input: nothing was written).
    #[error("gzip compression failed: {reason}")]
    Compress {
        /// The compressor's message.
        reason: String,
    },
    /// A previous write failed and the file could not be rolled back to its last complete record;
    /// the writer refuses further writes (reopen it to recover the file).
    #[error("writer is unusable after a failed write to {path} that could not be rolled back")]
    Poisoned {
        /// The file left in an unknown state.
        path: PathBuf,
    },
}

fn path_prefix(path: &Option<PathBuf>) -> String {
    match path {
        Some(path) => format!("{}: ", path.display()),
        None => String::new(),
    }
}

/// This crate's result type.
pub type Result<T, E = WarcError> = std::result::Result<T, E>;

/// Wraps an I/O error with the action and path, for `map_err`.
pub(crate) fn io_error(
    action: &'static str,
    path: impl Into<PathBuf>,
) -> impl FnOnce(std::io::Error) -> WarcError {
    let path = path.into();
    move |source| WarcError::Io { action, path, source }
}
