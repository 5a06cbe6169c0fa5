//! The crawl loop's hook into [`crate::capacity`]: every page request's outcome goes to its
//! host's [`HostCapacity`](crate::capacity::HostCapacity); when the delay in force changes, the
//! scheduler gets the host's new politeness, the store a `SetHost` (so that `--resume` keeps
//! it), and the request's log line a note ("host delay 1s -> 2s").

use freshet_fetch::Outcome;
use freshet_frontier::Op;
use freshet_schedule::online::{HostId, Politeness};

use super::{Crawler, unix_now};
use crate::capacity::{DelayChange, Signal};
use crate::error::Result;
use crate::log::LogLine;

impl Crawler {
    /// Feeds the outcome of a request to `host` (`None`: no request was made) to the host's
    /// capacity and applies a change of its delay; returns the change for the log line.
    pub(super) fn adapt_host_delay(
        &mut self,
        host: HostId,
        outcome: Option<&Outcome>,
    ) -> Result<Option<DelayChange>> {
        let Some(signal) = outcome.and_then(capacity_signal) else { return Ok(None) };
        let state = self.host_mut(host)?;
        let Some(change) = state.capacity.report(signal) else { return Ok(None) };
        state.delay = change.to;
        let min_delay = change.to.as_secs_f64();
        self.scheduler.set_host(host, Politeness { min_delay, max_rate: f64::INFINITY })?;
        let politeness = self.host_mut(host)?.stored_politeness(unix_now());
        self.pending.push(Op::SetHost { host, politeness });
        Ok(Some(change))
    }
}

/// What an outcome says about the host's capacity (see [`crate::capacity`]): 429, 5xx,
/// timeouts and failed connections push back; an answer given without complaint is accepted;
/// a request that never reached the server (DNS failure, refused address) says nothing.
pub(super) fn capacity_signal(outcome: &Outcome) -> Option<Signal> {
    match outcome {
        Outcome::Throttled { .. }
        | Outcome::ServerError { .. }
        | Outcome::Timeout { .. }
        | Outcome::ConnectionRefused
        | Outcome::ConnectionReset
        | Outcome::Failed { .. } => Some(Signal::PushBack),
        Outcome::Ok { .. }
        | Outcome::NotModified
        | Outcome::Redirect { .. }
        | Outcome::BadRedirect { .. }
        | Outcome::ClientError { .. }
        | Outcome::Informational { .. }
        | Outcome::TooLarge { .. }
        | Outcome::UnwantedContentType { .. }
        | Outcome::BadContentEncoding { .. } => Some(Signal::Accepted),
        // A DNS failure or a refused address (the server was not reached), or an outcome added
        // to the fetcher later: nothing learned.
        _ => None,
    }
}

/// Adds the note of a delay change to a log line's `detail` (after what it says already).
pub(super) fn note_delay_change(line: &mut LogLine, change: Option<DelayChange>) {
    if let Some(change) = change {
        line.add_detail(change);
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use freshet_fetch::TimeoutPhase;

    use super::*;
    use crate::log::LogKind;

    #[test]
    fn throttling_errors_and_failed_connections_push_back_answers_are_accepted() {
        let push_back = [
            Outcome::Throttled { status: 429, retry_after: Some(Duration::from_secs(8)) },
            Outcome::Throttled { status: 503, retry_after: None },
            Outcome::ServerError { status: 500 },
            Outcome::ServerError { status: 502 },
            Outcome::Timeout { phase: TimeoutPhase::FirstByte },
            Outcome::ConnectionRefused,
            Outcome::ConnectionReset,
            Outcome::Failed { message: "early close".into() },
        ];
        for outcome in &push_back {
            assert_eq!(capacity_signal(outcome), Some(Signal::PushBack), "{outcome:?}");
        }
        let accepted =
            [Outcome::Ok { status: 200 }, Outcome::NotModified, Outcome::ClientError { status: 404 }];
        for outcome in &accepted {
            assert_eq!(capacity_signal(outcome), Some(Signal::Accepted), "{outcome:?}");
        }
        assert_eq!(capacity_signal(&Outcome::DnsFailed { message: "no such host".into() }), None);
    }

    #[test]
    fn the_note_follows_the_detail() {
        let mut line = LogLine {
            time: String::new(),
            kind: LogKind::Page,
            url: "http://a.test/".into(),
            status: Some(429),
            bytes: 0,
            duration_ms: 0.0,
            fingerprint: None,
            outcome: "throttled".into(),
            detail: Some("back-off 1 of 5: 1s".into()),
            links: None,
            topic_score: None,
        };
        let change = DelayChange { from: Duration::from_secs(1), to: Duration::from_secs(2) };
        note_delay_change(&mut line, Some(change));
        assert_eq!(line.detail.as_deref(), Some("back-off 1 of 5: 1s; host delay 1s -> 2s"));
        line.detail = None;
        note_delay_change(&mut line, None);
        assert_eq!(line.detail, None);
        note_delay_change(&mut line, Some(change));
        assert_eq!(line.detail.as_deref(), Some("host delay 1s -> 2s"));
    }
}
