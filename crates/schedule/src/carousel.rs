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
use crate::wheel::Wheel;
use crate::windows::{Scaled, Windows, floor_to_slot, slot_to_f64};

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
/// pages with rate zero never appear. Memory is `O(n)`; nothing is allocated per slot
/// except when a heap grows.
///
/// Each page with a positive share has exactly one occurrence queued: waiting for its release,
/// or released and waiting for service by deadline ([`Windows`]). Releases and deadlines
/// are compared exactly from integer occurrence counters (see `point.rs`), so nothing drifts
/// over long runs; slot indices are exact up to 2^53.
///
/// If no occurrence is released in a slot — impossible when the shares sum to exactly 1, and
/// possible only through rounding of the shares — the occurrence with the earliest release is
/// served early, so the slot is not wasted and slot `k` always starts at `k/R`.
///
/// **Queues.** Both queues are bucketed by slot (calendar queues), which is what made the
/// simulator fast (`BENCHMARKS.md`, "The simulator": two binary heaps of 32-byte entries took
/// 73% of its time and fell out of cache at 10^5 pages):
/// - occurrences by the slot of their deadline (their deadline points, `Wheel`), released or
///   not: the next occurrence of a page served goes here at once, and is checked for its
///   release only when its deadline's slot comes up; only the occurrences due in the earliest
///   non-empty slots are in a small binary heap that orders them exactly (ties by page index);
/// - occurrences found not released then, or due so soon that their slot has come up
///   already (their release points), by the exact slot in which they are released, in a
///   second one; released, they join the first.
///
/// So an occurrence whose page waits long between fetches passes through one queue, not
/// two (first by release, then by deadline): at 10^5 pages the two queues' window vectors
/// took 2.7·10^6 of the simulator's 6.0·10^6 simulated last-level misses in 2·10^6 fetches
/// (`BENCHMARKS.md`, "The simulator").
///
/// The queues hold the points themselves, and a point carries all that the next one needs
/// (its page, share and numerator: a deadline follows from a release, the next release from
/// a deadline), so a slot reads and writes no per-page record: with 10^5 pages such records
/// are out of cache, and each access was a cache miss on the simulator's critical path (see
/// `wheel.rs` for the queues' layout). Occurrences more than the queue's span ahead (pages
/// served less than once per span, the span being about as many slots as there are pages)
/// wait in a binary heap beside it. The order served is exactly that of earliest deadline
/// first with exact comparisons (tests compare it with a plain two-heap implementation); a
/// slot costs `O(1)` amortised when occurrences are spread over slots, and `O(log n)` when
/// many fall due in the same slot (equal rates).
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
    /// Occurrences not released (their release points), by the slot that releases them:
    /// every page's first at the start, then those that `pop_released` finds not released
    /// and the next occurrences of pages served whose deadline's slot is `due_slot` or
    /// earlier.
    waiting: Wheel,
    /// Occurrences due in a slot after `due_slot` (their deadlines), released or not, by
    /// that slot; its span is twice the number of pages, since a deadline is a whole period
    /// ahead of the fetch that queues it (with a span of once the pages, the binary heap
    /// beyond it took 13% of the simulator's time at 10^5 pages: `BENCHMARKS.md`, "The
    /// simulator").
    due_later: Wheel,
    /// Released occurrences due in slot `due_slot` or earlier, keyed by deadline.
    due_soon: DueSoon,
    /// Every released occurrence due after this slot is in `due_later`, and every other
    /// released one in `due_soon`.
    due_slot: u64,
    /// Index of the next slot.
    slot: u64,
    windows: Scaled,
}

/// Slot keys at or beyond this are never reached (slot indices are exact below 2^53).
const NEVER: u64 = u64::MAX;

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
            waiting: Wheel::new(active, shares.page_count()),
            due_later: Wheel::new(2 * active, shares.page_count()),
            due_soon: DueSoon::default(),
            due_slot: 0,
            slot: 0,
            windows: Scaled::new(windows, active),
            shares,
        };
        let positive: Vec<usize> = carousel.shares.positive_pages().collect();
        for page in positive {
            let share = carousel.shares.as_slice()[page];
            let release = Point::new(carousel.windows.release(0), share, page);
            let slot = release_slot(&carousel.windows, &release, 0);
            carousel.waiting.push(slot, release);
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
    ///
    /// Linear in the number of pages: the count is read off the page's queued occurrence.
    /// The carousel keeps no per-page counter, whose update would be a cache miss in every
    /// slot with many pages (`BENCHMARKS.md`, "The simulator").
    pub fn served(&self, page: usize) -> u64 {
        if let Some(release) = self.waiting.find(page) {
            return self.windows.served_before_release(release.count());
        }
        let due_soon = || self.due_soon.iter().find(|point| point.page() == page);
        self.due_later
            .find(page)
            .or_else(due_soon)
            .map_or(0, |deadline| self.windows.served_before_deadline(deadline.count()))
    }

    /// The fetch of the next slot.
    #[inline]
    pub fn next_fetch(&mut self) -> Fetch {
        let slot = self.slot;
        let page = self.serve(slot);
        self.slot += 1;
        // `Shares::slot_start`, with the cheaper conversion of a slot index (`windows.rs`).
        Fetch { slot, page, time: slot_to_f64(slot) / self.shares.total_rate() }
    }

    /// The occurrence released by slot `slot` and due first, taken out of the queue; `None`
    /// when none is released (`due_later` is then empty: every occurrence not released waits
    /// in `waiting`).
    ///
    /// `due_later` also holds occurrences not yet released ([`Carousel::serve`]): each is
    /// checked as its deadline's slot joins `due_soon`, and one not released by `slot` goes to
    /// `waiting` under the slot that releases it.
    fn pop_released(&mut self, slot: u64) -> Option<Point> {
        let now = self.windows.now(slot);
        loop {
            if let Some(first) = self.due_soon.pop() {
                return Some(first);
            }
            if self.due_later.ring_is_empty() {
                // Only far deadlines are left, all after everything else: the first released.
                let deadline = self.due_later.remove_min()?;
                let release = release_of(&self.windows, &deadline);
                if release.is_at_or_before(now) {
                    return Some(deadline);
                }
                let key = release_slot(&self.windows, &release, slot + 1);
                self.waiting.push(key, release);
                continue;
            }
            // Move the next slot's deadlines into the heap (the ring is not empty, so one of
            // the next slots has some), or to `waiting` those not released yet. The first of
            // them released is kept aside and served at once (`due_soon` is empty): a point
            // written to `due_soon` and read straight back stalled the loop, its read waiting
            // for the write to reach the cache (`BENCHMARKS.md`, "The simulator").
            self.due_slot += 1;
            let (windows, due_soon, waiting) = (&self.windows, &mut self.due_soon, &mut self.waiting);
            let mut first: Option<Point> = None;
            self.due_later.take(self.due_slot, |deadline| {
                let release = release_of(windows, &deadline);
                if !release.is_at_or_before(now) {
                    waiting.push(release_slot(windows, &release, slot + 1), release);
                } else if let Some(earlier) = first.as_mut() {
                    if deadline < *earlier {
                        due_soon.push(std::mem::replace(earlier, deadline));
                    } else {
                        due_soon.push(deadline);
                    }
                } else {
                    first = Some(deadline);
                }
            });
            if first.is_some() {
                return first;
            }
        }
    }

    /// Serves slot `slot` and returns the page served.
    fn serve(&mut self, slot: u64) -> usize {
        let (windows, due_slot, due_soon, due_later) =
            (&self.windows, self.due_slot, &mut self.due_soon, &mut self.due_later);
        self.waiting.take(slot, |release| {
            // The page is not served while it waits, so its deadline follows from its release.
            let deadline = release.moved_to(windows.deadline_of_release(release.count()));
            let key = due_key(windows, &deadline);
            if key <= due_slot {
                due_soon.push(deadline);
            } else {
                due_later.push(key, deadline);
            }
        });
        // The occurrence due first; if nothing is released (possible only through rounding
        // of the shares), the one released first is served early (the smallest release has
        // the smallest key, and points order by instant). Either way the next occurrence's
        // release follows from the point served, with no look at the page's record.
        let (chosen, next_release) = if let Some(deadline) = self.pop_released(slot) {
            (deadline, self.windows.release_after_deadline(deadline.count()))
        } else if let Some(release) = self.waiting.remove_min() {
            (release, self.windows.release_after_release(release.count()))
        } else {
            // `from_shares` queues one occurrence per page with a positive share (there is at
            // least one: the largest share is ≥ 1/n) and each pop below is followed by a push.
            unreachable!("every page with a positive share has one occurrence queued")
        };
        let page = chosen.page();
        // The next occurrence goes straight to `due_later` under its deadline's slot, released
        // or not, if that slot is after `due_slot`: it is checked for its release when the
        // slot joins `due_soon` (`pop_released`; see "Queues" above). Otherwise it waits in
        // `waiting` for its release. With full windows the next release is the deadline
        // served: the same point.
        let release = if next_release == chosen.count() { chosen } else { chosen.moved_to(next_release) };
        let deadline = release.moved_to(self.windows.deadline_of_release(next_release));
        let key = due_key(&self.windows, &deadline);
        if key > self.due_slot {
            self.due_later.push(key, deadline);
        } else {
            let release_key = release_slot(&self.windows, &release, slot + 1);
            self.waiting.push(release_key, release);
        }
        page
    }
}

/// The release of the occurrence due at `deadline`.
#[inline]
fn release_of(windows: &Scaled, deadline: &Point) -> Point {
    deadline.moved_to(windows.release_of_deadline(deadline.count()))
}

/// The first slot from `earliest` on that may serve an occurrence released at `release`
/// (exact; [`NEVER`] beyond 2^53).
#[inline]
fn release_slot(windows: &Scaled, release: &Point, earliest: u64) -> u64 {
    let guess = windows.release_slot_guess(release.approx());
    if guess >= (1u64 << 53) as f64 {
        return NEVER;
    }
    let released_by = |slot: u64| release.is_at_or_before(windows.now(slot));
    // `guess` is within a slot or so of the answer (`as` truncates, and saturates at 0):
    // settle it with exact comparisons.
    let mut slot = floor_to_slot(guess).max(earliest);
    while slot > earliest && released_by(slot - 1) {
        slot -= 1;
    }
    while !released_by(slot) {
        slot += 1;
    }
    slot
}

/// The slot bucket of a deadline: non-decreasing in the deadline's order.
#[inline]
fn due_key(windows: &Scaled, deadline: &Point) -> u64 {
    let slot = windows.in_slots(deadline.approx());
    if slot >= (1u64 << 53) as f64 { NEVER } else { floor_to_slot(slot) }
}

/// Sorted vectors up to this length; a binary heap beyond.
const SORTED_DUE: usize = 16;

/// The released occurrences due soonest, by deadline: a few at a time in the usual case (the
/// deadlines of one slot), kept in a vector sorted by decreasing deadline, so that taking the
/// first is a `pop` (a binary heap's pop and push were 15% of the simulator's instructions:
/// `BENCHMARKS.md`, "The simulator"); when more than [`SORTED_DUE`] are due together (equal
/// rates), a binary heap until it empties. Points are totally ordered (ties by page), so
/// both give the same order.
#[derive(Debug, Clone, Default)]
struct DueSoon {
    /// Decreasing; empty while `heap` is not.
    sorted: Vec<Point>,
    heap: BinaryHeap<Reverse<Point>>,
}

impl DueSoon {
    #[inline]
    fn push(&mut self, point: Point) {
        if self.heap.is_empty() && self.sorted.len() < SORTED_DUE {
            // Insert from the end: the new point is usually due after the first (the end).
            let mut index = self.sorted.len();
            while index > 0 && self.sorted[index - 1] < point {
                index -= 1;
            }
            self.sorted.insert(index, point);
        } else {
            self.push_to_heap(point);
        }
    }

    #[inline(never)]
    fn push_to_heap(&mut self, point: Point) {
        self.heap.extend(self.sorted.drain(..).map(Reverse));
        self.heap.push(Reverse(point));
    }

    #[inline]
    fn pop(&mut self) -> Option<Point> {
        match self.sorted.pop() {
            Some(point) => Some(point),
            // Most slots find the queue empty once (`Carousel::pop_released`): no call then.
            None if self.heap.is_empty() => None,
            None => self.heap.pop().map(|Reverse(point)| point),
        }
    }

    /// Every point, in no particular order.
    fn iter(&self) -> impl Iterator<Item = Point> + '_ {
        self.sorted.iter().copied().chain(self.heap.iter().map(|Reverse(point)| *point))
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

#[cfg(test)]
mod tests {
    //! The bucketed queues against the plain two-heap earliest-deadline-first carousel they
    //! replaced: the same pages, slot for slot.

    use super::*;
    use proptest::prelude::*;

    /// The carousel as first written: all waiting occurrences in one binary heap by release,
    /// all released ones in another by deadline.
    struct TwoHeaps {
        shares: Shares,
        served: Vec<u64>,
        waiting: BinaryHeap<Reverse<Point>>,
        released: BinaryHeap<Reverse<Point>>,
        slot: u64,
        windows: Scaled,
    }

    impl TwoHeaps {
        fn new(shares: Shares, windows: Windows) -> Self {
            let active = shares.positive_pages().count();
            let windows = Scaled::new(windows, active);
            let waiting = shares
                .positive_pages()
                .map(|page| Reverse(Point::new(windows.release(0), shares.as_slice()[page], page)))
                .collect();
            let served = vec![0; shares.page_count()];
            Self { shares, served, waiting, released: BinaryHeap::new(), slot: 0, windows }
        }

        fn point(&self, numerator: f64, page: usize) -> Point {
            Point::new(numerator, self.shares.as_slice()[page], page)
        }

        fn next(&mut self) -> Option<usize> {
            let now = self.windows.now(self.slot);
            self.slot += 1;
            while let Some(Reverse(first)) = self.waiting.peek() {
                if !first.is_at_or_before(now) {
                    break;
                }
                let page = first.page();
                self.waiting.pop();
                let deadline = self.point(self.windows.deadline(self.served[page]), page);
                self.released.push(Reverse(deadline));
            }
            let Reverse(chosen) = self.released.pop().or_else(|| self.waiting.pop())?;
            let page = chosen.page();
            self.served[page] += 1;
            let release = self.point(self.windows.release(self.served[page]), page);
            self.waiting.push(Reverse(release));
            Some(page)
        }
    }

    fn agree(rates: &[f64], slots: usize) -> std::result::Result<(), TestCaseError> {
        let shares = Shares::new(rates)?;
        for windows in [Windows::Full, Windows::Tijdeman] {
            let mut reference = TwoHeaps::new(shares.clone(), windows);
            let mut carousel = Carousel::with_windows(shares.clone(), windows);
            for slot in 0..slots {
                let expected = reference.next();
                prop_assert_eq!(Some(carousel.next_fetch().page), expected, "slot {} {:?}", slot, windows);
            }
            // The counts read off the queued occurrences are the counts served.
            for (page, &served) in reference.served.iter().enumerate() {
                prop_assert_eq!(carousel.served(page), served, "page {} {:?}", page, windows);
            }
        }
        Ok(())
    }

    /// Rates over eight orders of magnitude (periods far beyond the ring), zeros, small
    /// integers (ties), and equal rates (everything due in the same slot).
    fn rates() -> impl Strategy<Value = Vec<f64>> {
        let rate = prop_oneof![
            1 => Just(0.0),
            6 => (-4.0f64..4.0).prop_map(|e| 10f64.powf(e)),
            2 => (1u32..=10).prop_map(f64::from),
        ];
        let mixed = prop::collection::vec(rate, 1..=200);
        let equal = (1usize..=200, 0.1f64..10.0).prop_map(|(n, rate)| vec![rate; n]);
        prop_oneof![4 => mixed, 1 => equal].prop_map(|mut rates| {
            if rates.iter().all(|&r| r == 0.0) {
                rates[0] = 1.0;
            }
            rates
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn same_order_as_two_heaps(rates in rates()) {
            // Several turns of the ring (64 to 256 slots for these sizes).
            agree(&rates, 20 * rates.len() + 600)?;
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(6))]
        #[test]
        fn same_order_as_two_heaps_with_two_level_queues(
            rates in prop::collection::vec(
                prop_oneof![1 => Just(0.0), 8 => (-4.0f64..4.0).prop_map(|e| 10f64.powf(e))],
                5_000..=6_000,
            ),
        ) {
            // More than 4,096 pages: both queues have windows (`wheel.rs`); several windows,
            // pages due beyond the span, a few turns of the span.
            agree(&rates, 40_000)?;
        }
    }

    #[test]
    fn same_order_as_two_heaps_on_long_runs() -> std::result::Result<(), TestCaseError> {
        // Zipf-like shares with a dominant page and a tail of pages served rarely.
        let zipf: Vec<f64> = (1..=300).map(|k| f64::from(k).powf(-1.5)).collect();
        agree(&zipf, 100_000)?;
        let geometric: Vec<f64> = (0..40).map(|k| 0.7f64.powi(k)).collect();
        agree(&geometric, 50_000)
    }
}
