//! A tiny discrete-event driver for the scheduler: fetches take a fixed time, outcomes come from
//! a closure, every decision is logged.

use freshet_schedule::online::{Decision, HostId, OnlineResult, Outcome, PageId, Scheduler};

/// One fetch start.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Start {
    pub(crate) time: f64,
    pub(crate) page: PageId,
    pub(crate) host: HostId,
}

/// Runs `scheduler` from `start` to `horizon`: every fetch lasts `duration`, and ends with
/// `outcome(page, time)`. Returns the fetch starts in order.
pub(crate) fn run(
    scheduler: &mut Scheduler,
    start: f64,
    horizon: f64,
    duration: f64,
    mut outcome: impl FnMut(PageId, f64) -> Outcome,
) -> OnlineResult<Vec<Start>> {
    let mut starts = Vec::new();
    let mut now = start;
    // In-flight fetches: (end time, page).
    let mut in_flight: Vec<(f64, PageId)> = Vec::new();
    loop {
        // Complete every fetch that ended by now.
        in_flight.sort_by(|a, b| b.0.total_cmp(&a.0));
        while in_flight.last().is_some_and(|&(end, _)| end <= now) {
            if let Some((end, page)) = in_flight.pop() {
                scheduler.fetched(page, outcome(page, end), end.max(now))?;
            }
        }
        let next_end = in_flight.last().map_or(f64::INFINITY, |&(end, _)| end);
        match scheduler.next(now) {
            Decision::Fetch { page, host } => {
                starts.push(Start { time: now, page, host });
                if duration > 0.0 {
                    in_flight.push((now + duration, page));
                } else {
                    scheduler.fetched(page, outcome(page, now), now)?;
                }
            }
            Decision::WaitUntil(time) => {
                assert!(time >= now, "WaitUntil({time}) is in the past (now {now})");
                now = time.min(next_end);
            }
            Decision::Idle => {
                if next_end.is_finite() {
                    now = next_end;
                } else {
                    break;
                }
            }
        }
        if now >= horizon {
            break;
        }
    }
    Ok(starts)
}

/// Fetch counts per page over the starts at or after `from`.
pub(crate) fn counts(starts: &[Start], pages: usize, from: f64) -> Vec<u64> {
    let mut counts = vec![0; pages];
    for start in starts.iter().filter(|start| start.time >= from) {
        counts[start.page.0 as usize] += 1;
    }
    counts
}
