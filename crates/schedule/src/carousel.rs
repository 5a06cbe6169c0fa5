//! The deterministic carousel: earliest deadline first over per-page windows.
//!
//! Seed 001_1ae7d23b6da2937a.txt ("Derandomizing the Optimal Random Policy") turns the optimal
//! random policy into a periodic "carousel" in which page `i` takes about a share `p_i` of the
//! slots, and names earliest-deadline-first as an efficient way to build it. Here the `j`-th
//! occurrence of page `i` (`j = 1, 2, …`) is
//!
//! ```text
//! released at (j − 1) / p_i and due at j / p_i   (slot units)                     (1)
//! ```
//!
//! and slot `t` (the interval `[t, t+1)`) serves, among occurrences released by `t`, the one
//! due first (ties by page index). Tijdeman's narrower windows are an option ([`Windows`]).
//! See the crate docs for the bounds these give.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::error::Result;
use crate::point::Point;
use crate::shares::Shares;
use crate::windows::{Scaled, Windows};

/// One fetch of the schedule: fetch `page` in slot `slot`, which starts at `time`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fetch {
    /// Index of the slot, from 0.
    pub slot: u64,
    /// Index of the page to fetch (its index in the rate slice).
    pub page: usize,
    /// Start of the slot, `slot / R`, in the time unit of the rates, from the start of slot 0.
    pub time: f64,
}

/// The earliest-deadline-first carousel of seed 001_1ae7d23b6da2937a.txt.
///
/// An endless iterator of page indices, one per slot of length `1/R`: it never idles, and
/// pages with rate zero never appear. Each slot costs `O(log n)` and allocates nothing;
/// memory is `O(n)`.
///
/// Each page with a positive share has exactly one occurrence queued: in a heap keyed by
/// release time until released, then in a heap keyed by deadline ([`Windows`]). Releases and deadlines
/// are compared exactly from integer occurrence counters (see `point.rs`), so nothing drifts
/// over long runs; slot indices are exact up to 2^53.
///
/// If no occurrence is released in a slot — impossible when the shares sum to exactly 1, and
/// possible only through rounding of the shares — the occurrence with the earliest release is
/// served early, so the slot is not wasted and slot `k` always starts at `k/R`.
///
/// ```
/// use freshet_schedule::Carousel;
///
/// let carousel = Carousel::new(&[2.0, 1.0, 1.0])?;
/// assert_eq!(carousel.take(8).collect::<Vec<_>>(), [0, 1, 0, 2, 0, 1, 0, 2]);
/// # Ok::<(), freshet_schedule::ScheduleError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Carousel {
    shares: Shares,
    /// Occurrences served so far, per page.
    served: Vec<u64>,
    /// Next occurrence of each page not yet released, keyed by release time.
    waiting: BinaryHeap<Reverse<Point>>,
    /// Released occurrences, keyed by deadline.
    released: BinaryHeap<Reverse<Point>>,
    /// Index of the next slot.
    slot: u64,
    windows: Scaled,
}

impl Carousel {
    /// The carousel for refresh rates `rates` (fetches per unit time, one per page).
    ///
    /// # Errors
    /// [`ScheduleError`](crate::ScheduleError) for an empty slice, a NaN, negative or infinite
    /// rate, all rates zero, or a total that overflows.
    pub fn new(rates: &[f64]) -> Result<Self> {
        Ok(Self::from_shares(Shares::new(rates)?))
    }

    /// The carousel over [`Windows::Full`] for already validated shares.
    pub fn from_shares(shares: Shares) -> Self {
        Self::with_windows(shares, Windows::Full)
    }

    /// The carousel over `windows` for already validated shares.
    pub fn with_windows(shares: Shares, windows: Windows) -> Self {
        let active = shares.positive_pages().count();
        let mut carousel = Self {
            served: vec![0; shares.page_count()],
            waiting: BinaryHeap::with_capacity(active),
            released: BinaryHeap::with_capacity(active),
            slot: 0,
            windows: Scaled::new(windows, active),
            shares,
        };
        for page in carousel.shares.positive_pages() {
            let release = carousel.point(carousel.windows.release(0), page);
            carousel.waiting.push(Reverse(release));
        }
        carousel
    }

    /// The shares being scheduled.
    pub fn shares(&self) -> &Shares {
        &self.shares
    }

    /// Length `1/R` of a slot, in the time unit of the rates.
    pub fn slot_length(&self) -> f64 {
        self.shares.slot_length()
    }

    /// Index of the next slot (the number of fetches produced so far).
    pub fn next_slot(&self) -> u64 {
        self.slot
    }

    /// How many times `page` has been fetched so far (0 for an unknown page).
    pub fn served(&self, page: usize) -> u64 {
        self.served.get(page).copied().unwrap_or(0)
    }

    /// The fetch of the next slot.
    pub fn next_fetch(&mut self) -> Fetch {
        let slot = self.slot;
        let page = self.serve(slot);
        self.slot += 1;
        Fetch { slot, page, time: self.shares.slot_start(slot) }
    }

    /// The instant `numerator / p_page`.
    fn point(&self, numerator: f64, page: usize) -> Point {
        Point::new(numerator, self.shares.as_slice()[page], page)
    }

    /// Serves slot `slot` and returns the page served.
    fn serve(&mut self, slot: u64) -> usize {
        let now = self.windows.now(slot);
        while let Some(Reverse(first)) = self.waiting.peek() {
            if !first.is_at_or_before(now) {
                break;
            }
            let page = first.page();
            self.waiting.pop();
            let deadline = self.point(self.windows.deadline(self.served[page]), page);
            self.released.push(Reverse(deadline));
        }
        let Some(Reverse(chosen)) = self.released.pop().or_else(|| self.waiting.pop()) else {
            // `from_shares` queues one occurrence per page with a positive share (there is at
            // least one: the largest share is ≥ 1/n) and each pop below is followed by a push.
            unreachable!("every page with a positive share has one occurrence queued")
        };
        let page = chosen.page();
        self.served[page] += 1;
        let release = self.point(self.windows.release(self.served[page]), page);
        self.waiting.push(Reverse(release));
        page
    }
}

impl Iterator for Carousel {
    type Item = usize;

    /// The page of the next slot; never `None`.
    fn next(&mut self) -> Option<usize> {
        Some(self.next_fetch().page)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (usize::MAX, None)
    }
}

impl std::iter::FusedIterator for Carousel {}
