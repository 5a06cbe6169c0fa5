//! The server's own request log: what a crawler actually did, for politeness checks.
//!
//! One entry per request to a host of the web (the reserved `/_truth` and `/_log` paths are
//! not logged), recorded when the request arrives — before any deliberate delay — with the
//! status it is about to get. Held in memory (about 100 bytes an entry) for the server's life.

use std::sync::{Arc, Mutex, PoisonError};

use serde::Serialize;

/// One request as the server saw it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LogEntry {
    /// Position in the log, from 0.
    pub seq: u64,
    /// Arrival, seconds since the Unix epoch (the server's clock).
    pub unix: f64,
    /// Arrival in model time (days).
    pub model_time: f64,
    /// The request method.
    pub method: String,
    /// The Host header without its port, lower-case.
    pub host: String,
    /// Path and query.
    pub path: String,
    /// The status sent; 0 when the connection was reset instead.
    pub status: u16,
}

/// A shared, append-only request log.
#[derive(Debug, Clone, Default)]
pub struct RequestLog {
    entries: Arc<Mutex<Vec<LogEntry>>>,
}

impl RequestLog {
    /// Appends an entry, numbering it.
    pub(crate) fn push(&self, mut entry: LogEntry) {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        entry.seq = entries.len() as u64;
        entries.push(entry);
    }

    /// Entries from position `since` on.
    #[must_use]
    pub fn since(&self, since: u64) -> Vec<LogEntry> {
        let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let start = usize::try_from(since).unwrap_or(usize::MAX).min(entries.len());
        entries[start..].to_vec()
    }

    /// Every entry.
    #[must_use]
    pub fn entries(&self) -> Vec<LogEntry> {
        self.since(0)
    }

    /// Number of entries.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner).len()
    }

    /// Whether nothing was logged yet.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
