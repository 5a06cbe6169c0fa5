//! What the scheduler answers ([`Decision`]) and what the caller reports back ([`Outcome`]).

use super::{HostId, PageId};

/// The answer of [`Scheduler::next`](super::Scheduler::next).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Decision {
    /// Start fetching `page` (on `host`) now; report the end with
    /// [`fetched`](super::Scheduler::fetched). The host's slot is taken until then.
    Fetch {
        /// The page to fetch.
        page: PageId,
        /// Its host.
        host: HostId,
    },
    /// Nothing may start before this time (a page becoming due, a host's delay ending, a budget
    /// token). Call `next` again then, or earlier after any other call.
    WaitUntil(f64),
    /// Nothing will ever be due without new input: no pages, every page in flight, or every page
    /// worth less than the threshold forever.
    Idle,
}

/// How a fetch ended, as the caller reports it to [`fetched`](super::Scheduler::fetched).
/// A failed fetch is data, not an error.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Outcome {
    /// The page was fetched: its crawl value restarts from 0 at the fetch's start.
    Fetched,
    /// The fetch failed (timeout, 5xx, DNS): scheduled like a fetch, so the page is retried after
    /// its usual interval rather than hammered.
    Failed,
    /// The host asked to back off (429, 503 with Retry-After): its slot stays closed for
    /// `retry_after` time units from now, and the page keeps its value (it was not refreshed).
    BackOff {
        /// How long the host asked to be left alone.
        retry_after: f64,
    },
}
