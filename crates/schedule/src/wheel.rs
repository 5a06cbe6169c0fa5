//! A two-level calendar queue of [`Point`]s keyed by slot, for the [`Carousel`](crate::Carousel).
//!
//! The carousel queues each page's next occurrence under a slot key (the slot that releases
//! it, or the slot of its deadline) and takes the keys out one by one in increasing order. The
//! first version kept one linked list per slot, threaded through the pages' records: every
//! push wrote a random ring head and page record, every take walked records at random, one
//! dependent cache miss after another (`BENCHMARKS.md`, "The simulator": 10^5 pages, about
//! 9 MB of state against 2 MB of L2). Here nothing is reached through a page index:
//!
//! - the keys of the current *window* of `F = 2^k` slots sit in `F` small per-slot vectors
//!   (a few tens of kilobytes in all: they stay in cache);
//! - the keys of the next windows, up to a *span* of many windows, are appended, with their
//!   key, to one vector per window (a push writes the end of one of a few hundred vectors,
//!   whose last cache lines stay in cache), and a window's vector is spread over the
//!   per-slot vectors when the window begins, read front to back;
//! - keys beyond the span wait in a binary heap and join their window's vector as the span
//!   reaches them.
//!
//! The points of one key come out in no particular order: the carousel orders them itself
//! (released occurrences by exact deadline in a heap; the earliest release by
//! [`Wheel::remove_min`]), so the schedule does not depend on it.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::point::Point;

/// Slots per window: `2^WINDOW_BITS`, at most half the span.
const WINDOW_BITS: u32 = 10;

/// The two-level calendar queue (see the module docs).
#[derive(Debug, Clone)]
pub(crate) struct Wheel {
    /// log2 of the window length `F`.
    window_bits: u32,
    /// The points of the current window's keys `base .. base + F`, by `key & (F − 1)`.
    slots: Vec<Vec<Point>>,
    /// The points of keys in `base + F .. base + span`, with their keys, one vector per
    /// window, by `(key >> window_bits) & window_mask`.
    windows: Vec<Vec<(u64, Point)>>,
    window_mask: u64,
    /// First key of the current window (a multiple of `F`).
    base: u64,
    /// `F · windows.len()`.
    span: u64,
    /// Points in `slots` and `windows`.
    in_ring: usize,
    /// Points with keys at or beyond `base + span` when they were queued.
    far: BinaryHeap<Reverse<(u64, Point)>>,
}

impl Wheel {
    /// A queue whose span covers at least `slots` keys ahead (at least 64).
    pub(crate) fn new(slots: usize) -> Self {
        let span = slots.clamp(64, 1 << 24).next_power_of_two();
        let window_bits = WINDOW_BITS.min(span.trailing_zeros() - 1);
        let window_count = span >> window_bits;
        Self {
            window_bits,
            slots: vec![Vec::new(); 1 << window_bits],
            windows: vec![Vec::new(); window_count],
            window_mask: window_count as u64 - 1,
            base: 0,
            span: span as u64,
            in_ring: 0,
            far: BinaryHeap::new(),
        }
    }

    fn window_len(&self) -> u64 {
        1 << self.window_bits
    }

    /// Whether nothing but far points (or nothing at all) is queued.
    pub(crate) fn ring_is_empty(&self) -> bool {
        self.in_ring == 0
    }

    /// Queues `point` under `key`; `key` must be after every key already taken.
    #[inline]
    pub(crate) fn push(&mut self, key: u64, point: Point) {
        debug_assert!(key >= self.base);
        if key < self.base + self.window_len() {
            let slot = (key & (self.window_len() - 1)) as usize;
            self.slots[slot].push(point);
        } else if key < self.base.saturating_add(self.span) {
            let window = ((key >> self.window_bits) & self.window_mask) as usize;
            self.windows[window].push((key, point));
        } else {
            self.far.push(Reverse((key, point)));
            return;
        }
        self.in_ring += 1;
    }

    /// Moves the far points that the span now covers into their windows.
    #[inline]
    fn pull_near(&mut self) {
        let end = self.base.saturating_add(self.span);
        while let Some(&Reverse((key, point))) = self.far.peek() {
            if key >= end {
                break;
            }
            self.far.pop();
            self.push(key, point);
        }
    }

    /// Swaps the points of `key` into `out` (which must be empty; it gets the slot's vector
    /// and the slot gets `out`'s, so no capacity is lost). Keys are taken one after another,
    /// `0, 1, 2, …`, or at least never skipping a key that has points.
    #[inline]
    pub(crate) fn take(&mut self, key: u64, out: &mut Vec<Point>) {
        debug_assert!(out.is_empty() && key >= self.base);
        while key >= self.base + self.window_len() {
            debug_assert!(self.slots.iter().all(Vec::is_empty), "a key was skipped");
            self.base += self.window_len();
            // Far points within the new span go to their windows (not to the one beginning
            // now: the span is at least two windows, and far points were pulled up to the old
            // span's end at the previous window).
            self.pull_near();
            let window = ((self.base >> self.window_bits) & self.window_mask) as usize;
            let mut points = std::mem::take(&mut self.windows[window]);
            let slot_mask = self.window_len() - 1;
            for (key, point) in points.drain(..) {
                self.slots[(key & slot_mask) as usize].push(point);
            }
            self.windows[window] = points;
        }
        let slot = (key & (self.window_len() - 1)) as usize;
        std::mem::swap(&mut self.slots[slot], out);
        self.in_ring -= out.len();
    }

    /// Removes and returns the point with the smallest `(key, point)` (ties of keys by the
    /// points' order); `None` when empty. Linear in the queued points: only for the rare slot
    /// that nothing is released in.
    pub(crate) fn remove_min(&mut self) -> Option<Point> {
        if self.in_ring == 0 {
            return self.far.pop().map(|Reverse((_, point))| point);
        }
        // The current window's slots hold the smallest keys, in slot order from `base`.
        if let Some(slot) = self.slots.iter().position(|points| !points.is_empty()) {
            let points = &mut self.slots[slot];
            let index = min_index(points.iter())?;
            self.in_ring -= 1;
            return Some(points.swap_remove(index));
        }
        // Then the windows after it, in order.
        let first = self.base >> self.window_bits;
        for offset in 1..=self.window_mask {
            let window = ((first + offset) & self.window_mask) as usize;
            let points = &mut self.windows[window];
            let Some(&(key, _)) = points.iter().min_by_key(|(key, _)| *key) else { continue };
            let index = points
                .iter()
                .enumerate()
                .filter(|(_, (k, _))| *k == key)
                .min_by(|(_, (_, a)), (_, (_, b))| a.cmp(b))
                .map(|(index, _)| index)?;
            self.in_ring -= 1;
            return Some(points.swap_remove(index).1);
        }
        None
    }
}

/// Index of the smallest point.
fn min_index<'a>(points: impl Iterator<Item = &'a Point>) -> Option<usize> {
    points.enumerate().min_by(|(_, a), (_, b)| a.cmp(b)).map(|(index, _)| index)
}
