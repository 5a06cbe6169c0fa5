//! The calendar queues of [`Point`]s keyed by slot of the [`Carousel`](crate::Carousel).
//!
//! The carousel queues each page's next occurrence under a slot key (the slot that releases
//! it, or the slot of its deadline) and takes the keys out one by one in increasing order. The
//! first version kept one linked list per slot, threaded through the pages' records: every
//! push wrote a random ring head and page record, every take walked records at random, one
//! dependent cache miss after another (`BENCHMARKS.md`, "The simulator": with 10^5 pages,
//! megabytes of state against an L2 of 512 KB). Above [`LINKED_SPAN`] slots nothing is
//! reached through a page index; the queue has two levels:
//!
//! - the keys of the current *window* of `F = 2^k` slots sit in `F` small per-slot vectors
//!   (a few tens of kilobytes in all: they stay in cache);
//! - the keys of the next windows, up to a *span* of many windows, are appended, with their
//!   slot in the window ([`Parked`]), to one vector per window (a push writes the end of
//!   one of about a hundred vectors, sequentially), and a window's vector is spread over the
//!   per-slot vectors when the window begins, read front to back;
//! - keys beyond the span wait in a binary heap and join their window's vector as the span
//!   reaches them.
//!
//! With a span of at most [`LINKED_SPAN`] slots (up to a few thousand pages) everything is in
//! cache anyway, and the queue is one ring of per-slot lists linked through one node per page
//! that holds the page's point: a point is written once, not copied from window to slot, and
//! the lists take tens of kilobytes where per-slot vectors took hundreds (at 10^3 pages,
//! measured a few per cent faster than one level of per-slot vectors, within the noise of a
//! shared machine).
//!
//! The points of one key come out in no particular order: the carousel orders them itself
//! (released occurrences by exact deadline in a heap; the earliest release by
//! [`Wheel::remove_min`]), so the schedule does not depend on it.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::point::Point;

/// Slots per window of the two-level queue: `2^WINDOW_BITS`, at most half the span.
const WINDOW_BITS: u32 = 10;

/// The largest span kept as one ring of linked lists.
const LINKED_SPAN: usize = 1 << 12;

/// End of a linked list.
const NIL: usize = usize::MAX;

/// The calendar queue (see the module docs).
#[derive(Debug, Clone)]
pub(crate) struct Wheel {
    store: Store,
    /// Linked: the next key to take (the ring holds keys `base .. base + span`). Windows:
    /// the first key of the current window (a multiple of its length).
    base: u64,
    span: u64,
    /// Points in the ring (not far).
    in_ring: usize,
    /// Points with keys at or beyond `base + span` when they were queued.
    far: BinaryHeap<Reverse<(u64, Point)>>,
}

#[derive(Debug, Clone)]
enum Store {
    /// One ring of `span` per-slot lists, by `key & (span − 1)`, linked through one node per
    /// page (a page has one point queued at most).
    Linked { heads: Vec<usize>, nodes: Vec<(Point, usize)> },
    /// `slots`: the points of the current window's keys `base .. base + F`, by
    /// `key & (F − 1)`; `windows`: the points of keys in `base + F .. base + span`, each with
    /// its key's slot in the window ([`Parked`]), one vector per window, by
    /// `(key >> window_bits) & (windows − 1)`.
    Windows { window_bits: u32, slots: Vec<Vec<Point>>, windows: Vec<Vec<Parked>> },
}

/// A point parked in a window's vector until the window begins: its numerator, share, page
/// and the slot of its key within the window, in 24 bytes where `(key, Point)` took 40.
///
/// Every point passes through two windows' vectors (its release, then its deadline), which
/// with 10^5 pages hold megabytes against an L2 of 2 MB (`BENCHMARKS.md`, "The simulator":
/// their reads were the largest source of cache misses). The rounded quotient is not kept:
/// [`Parked::point`] divides again, which gives the same `f64`, so the order is unchanged.
#[derive(Debug, Clone, Copy)]
struct Parked {
    count: f64,
    share: f64,
    /// `page << WINDOW_BITS | slot in the window` (pages stay far below 2^54: a page's share
    /// alone takes 8 bytes).
    page_and_slot: u64,
}

impl Parked {
    #[inline]
    fn new(count: f64, share: f64, page: usize, slot_in_window: u64) -> Self {
        debug_assert!(slot_in_window < 1 << WINDOW_BITS && (page as u64) < 1 << (64 - WINDOW_BITS));
        Self { count, share, page_and_slot: ((page as u64) << WINDOW_BITS) | slot_in_window }
    }

    /// The slot of the key within its window.
    #[inline]
    fn slot_in_window(&self) -> usize {
        (self.page_and_slot & ((1 << WINDOW_BITS) - 1)) as usize
    }

    /// The point parked (the same point, bit for bit).
    #[inline]
    fn point(&self) -> Point {
        Point::new(self.count, self.share, (self.page_and_slot >> WINDOW_BITS) as usize)
    }
}

impl Wheel {
    /// A queue of points of pages `0..pages` whose span covers at least `slots` keys ahead
    /// (at least 64).
    pub(crate) fn new(slots: usize, pages: usize) -> Self {
        let span = slots.clamp(64, 1 << 24).next_power_of_two();
        let store = if span <= LINKED_SPAN {
            Store::Linked { heads: vec![NIL; span], nodes: vec![(Point::new(0.0, 1.0, 0), NIL); pages] }
        } else {
            let window_bits = WINDOW_BITS.min(span.trailing_zeros() - 1);
            Store::Windows {
                window_bits,
                slots: vec![Vec::new(); 1 << window_bits],
                windows: vec![Vec::new(); span >> window_bits],
            }
        };
        Self { store, base: 0, span: span as u64, in_ring: 0, far: BinaryHeap::new() }
    }

    /// Whether nothing but far points (or nothing at all) is queued.
    pub(crate) fn ring_is_empty(&self) -> bool {
        self.in_ring == 0
    }

    /// Queues `point` under `key`; `key` must be after every key already taken.
    ///
    /// Inlined, with only the ring of linked lists on its fast path: a call saved and
    /// restored more registers than the push itself uses (`BENCHMARKS.md`, "The simulator").
    #[inline(always)]
    pub(crate) fn push(&mut self, key: u64, point: Point) {
        debug_assert!(key >= self.base);
        if let Store::Linked { heads, nodes } = &mut self.store
            && key.wrapping_sub(self.base) < self.span
            && let Some(head) = heads.get_mut((key & (self.span - 1)) as usize)
            && let Some(node) = nodes.get_mut(point.page())
        {
            *node = (point, *head);
            *head = point.page();
            self.in_ring += 1;
        } else {
            self.push_beyond_slots(key, point.approx(), point.count(), point.share(), point.page());
        }
    }

    /// [`Wheel::push`] of a key beyond the ring of linked lists: to its slot or window, or far.
    ///
    /// The point comes in its parts, in registers: passed whole it went through memory, and
    /// reading it back here stalled behind the caller's stores (this function took 15% of
    /// the simulator's time at 10^5 pages in `perf`, 62% of that on the first read of the
    /// point; 7% once passed in registers: `BENCHMARKS.md`, "The simulator").
    #[inline(never)]
    fn push_beyond_slots(&mut self, key: u64, approx: f64, count: f64, share: f64, page: usize) {
        match &mut self.store {
            Store::Windows { window_bits, slots, .. } if key >> *window_bits == self.base >> *window_bits => {
                slots[(key & ((1 << *window_bits) - 1)) as usize]
                    .push(Point::from_parts(approx, count, share, page));
                self.in_ring += 1;
            }
            Store::Windows { window_bits, windows, .. } if key < self.base.saturating_add(self.span) => {
                let window = ((key >> *window_bits) as usize) & (windows.len() - 1);
                windows[window].push(Parked::new(count, share, page, key & ((1 << *window_bits) - 1)));
                self.in_ring += 1;
            }
            _ => self.far.push(Reverse((key, Point::from_parts(approx, count, share, page)))),
        }
    }

    /// Moves the far points that the span now covers into the ring.
    #[inline(never)]
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

    /// Takes out the points of `key` and hands each to `each`. Keys are taken one after
    /// another, `0, 1, 2, …`, or at least never skipping a key that has points.
    #[inline]
    pub(crate) fn take(&mut self, key: u64, mut each: impl FnMut(Point)) {
        debug_assert!(key >= self.base);
        match &mut self.store {
            Store::Linked { .. } => {
                // The ring now covers `key .. key + span`: far points in it join it, `key`'s too.
                self.base = key;
                if self.far.peek().is_some_and(|Reverse((first, _))| *first < key.saturating_add(self.span)) {
                    self.pull_near();
                }
                if let Store::Linked { heads, nodes } = &mut self.store {
                    let mut page = std::mem::replace(&mut heads[(key & (self.span - 1)) as usize], NIL);
                    while let Some(&(point, next)) = nodes.get(page) {
                        self.in_ring -= 1;
                        each(point);
                        page = next;
                    }
                }
                self.base = key + 1;
            }
            Store::Windows { window_bits, .. } => {
                let bits = *window_bits;
                while key >> bits != self.base >> bits {
                    self.next_window();
                }
                if let Store::Windows { window_bits, slots, .. } = &mut self.store {
                    let slot = &mut slots[(key & ((1 << *window_bits) - 1)) as usize];
                    self.in_ring -= slot.len();
                    for &point in slot.iter() {
                        each(point);
                    }
                    slot.clear();
                }
            }
        }
    }

    /// Two levels: moves on to the next window and spreads its points over the slots.
    #[inline(never)]
    fn next_window(&mut self) {
        let Store::Windows { window_bits, .. } = self.store else { return };
        self.base += 1 << window_bits;
        // Far points within the new span go to their windows (not to the one beginning now:
        // the span is at least two windows, and far points were pulled up to the old span's
        // end at the previous window).
        self.pull_near();
        if let Store::Windows { window_bits, slots, windows } = &mut self.store {
            debug_assert!(slots.iter().all(Vec::is_empty), "a key was skipped");
            let window = ((self.base >> *window_bits) as usize) & (windows.len() - 1);
            for parked in &windows[window] {
                slots[parked.slot_in_window()].push(parked.point());
            }
            windows[window].clear();
        }
    }

    /// The point of `page`, if queued here. Linear in the queue's size.
    pub(crate) fn find(&self, page: usize) -> Option<Point> {
        let of_page = |point: &&Point| point.page() == page;
        let far = || self.far.iter().map(|Reverse((_, point))| point).find(of_page).copied();
        match &self.store {
            Store::Linked { heads, nodes } => heads
                .iter()
                .find_map(|&head| {
                    let mut node = head;
                    while let Some(&(point, next)) = nodes.get(node) {
                        if node == page {
                            return Some(point);
                        }
                        node = next;
                    }
                    None
                })
                .or_else(far),
            Store::Windows { slots, windows, .. } => slots
                .iter()
                .flatten()
                .find(of_page)
                .copied()
                .or_else(|| windows.iter().flatten().map(Parked::point).find(|point| point.page() == page))
                .or_else(far),
        }
    }

    /// Removes and returns the point with the smallest `(key, point)` (ties of keys by the
    /// points' order); `None` when empty. Linear in the queued points: only for the rare slot
    /// that nothing is released in.
    pub(crate) fn remove_min(&mut self) -> Option<Point> {
        if self.in_ring == 0 {
            return self.far.pop().map(|Reverse((_, point))| point);
        }
        let base = self.base;
        let found = match &mut self.store {
            Store::Linked { heads, nodes } => {
                // The first non-empty list from `base` holds the smallest key.
                let mask = heads.len() - 1;
                let slot = (0..heads.len())
                    .map(|offset| (base as usize + offset) & mask)
                    .find(|&slot| heads[slot] != NIL)?;
                let mut best: Option<Point> = None;
                let mut page = heads[slot];
                while let Some(&(point, next)) = nodes.get(page) {
                    if best.is_none_or(|best| point < best) {
                        best = Some(point);
                    }
                    page = next;
                }
                let best = best?;
                // Relink the list without it.
                let mut page = std::mem::replace(&mut heads[slot], NIL);
                while let Some(&(_, next)) = nodes.get(page) {
                    if page != best.page()
                        && let Some(node) = nodes.get_mut(page)
                    {
                        node.1 = heads[slot];
                        heads[slot] = page;
                    }
                    page = next;
                }
                Some(best)
            }
            Store::Windows { window_bits, slots, windows } => {
                // The slots hold the smallest keys, in slot order; then the windows after
                // the current one, in order.
                if let Some(points) = slots.iter_mut().find(|points| !points.is_empty()) {
                    let index = min_index(points.iter())?;
                    Some(points.swap_remove(index))
                } else {
                    let first = (base >> *window_bits) as usize;
                    let mask = windows.len() - 1;
                    (1..windows.len()).find_map(|offset| {
                        let points = &mut windows[(first + offset) & mask];
                        // One window: the smallest key has the smallest slot in it.
                        let slot = points.iter().map(Parked::slot_in_window).min()?;
                        let index = points
                            .iter()
                            .enumerate()
                            .filter(|(_, parked)| parked.slot_in_window() == slot)
                            .min_by(|(_, a), (_, b)| a.point().cmp(&b.point()))
                            .map(|(index, _)| index)?;
                        Some(points.swap_remove(index).point())
                    })
                }
            }
        };
        if found.is_some() {
            self.in_ring -= 1;
        }
        found
    }
}

/// Index of the smallest point.
fn min_index<'a>(points: impl Iterator<Item = &'a Point>) -> Option<usize> {
    points.enumerate().min_by(|(_, a), (_, b)| a.cmp(b)).map(|(index, _)| index)
}
