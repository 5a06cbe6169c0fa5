//! Per-page state (24 bytes) and the 16-byte entries of the per-host priority queues.

use std::cmp::Ordering;

use freshet_policy::Page;

/// Bit set while the slot holds a page.
const PRESENT: u32 = 1 << 31;
/// Bit set once the page has been fetched (else `last` is its add time and `τ = ∞`).
const FETCHED_ONCE: u32 = 1 << 30;
/// Bit set while a fetch of the page is in flight.
const IN_FLIGHT: u32 = 1 << 29;
/// Bit set while a page fetched before waits with `τ = ∞` because its copy was found stale
/// (`Scheduler::mark_stale`): its next fetch is a revisit, not a first fetch.
const STALE_COPY: u32 = 1 << 28;
/// The low bits: the generation of the page's live queue entry.
const GENERATION: u32 = STALE_COPY - 1;

/// One page's scheduling state.
///
/// Weight and change rate are kept as `f32`: their relative rounding (6e-8) moves `τ*` by about
/// as much, far below the error of any change-rate estimate; time stays `f64`.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct PageSlot {
    pub(super) weight: f32,
    pub(super) change_rate: f32,
    /// Start of the last fetch, or the add time if never fetched.
    pub(super) last: f64,
    pub(super) host: u32,
    /// Flags (present, fetched once, in flight, stale copy) and the live entry's generation.
    state: u32,
}

impl PageSlot {
    pub(super) fn new(weight: f32, change_rate: f32, added_at: f64, host: u32, generation: u32) -> Self {
        Self { weight, change_rate, last: added_at, host, state: PRESENT | (generation & GENERATION) }
    }

    pub(super) fn page(&self) -> Page {
        Page::new(f64::from(self.weight), f64::from(self.change_rate))
    }

    pub(super) fn is_present(&self) -> bool {
        self.state & PRESENT != 0
    }

    pub(super) fn was_fetched(&self) -> bool {
        self.state & FETCHED_ONCE != 0
    }

    /// Whether there is a copy of the page (fetched before, even if marked stale since): the
    /// budget's controller counts the fetches of pages without one apart (`budget.rs`).
    pub(super) fn has_copy(&self) -> bool {
        self.state & (FETCHED_ONCE | STALE_COPY) != 0
    }

    /// Marks a page re-added as never fetched (`τ = ∞`) as one that has a stale copy.
    pub(super) fn mark_stale_copy(&mut self) {
        self.state |= STALE_COPY;
    }

    pub(super) fn in_flight(&self) -> bool {
        self.state & IN_FLIGHT != 0
    }

    pub(super) fn generation(&self) -> u32 {
        self.state & GENERATION
    }

    /// Invalidates every queue entry of the page and returns the new generation.
    pub(super) fn bump_generation(&mut self) -> u32 {
        let next = (self.generation() + 1) & GENERATION;
        self.state = (self.state & !GENERATION) | next;
        next
    }

    pub(super) fn set_in_flight(&mut self, in_flight: bool) {
        if in_flight { self.state |= IN_FLIGHT } else { self.state &= !IN_FLIGHT }
    }

    pub(super) fn mark_fetched(&mut self, started: f64) {
        self.last = started;
        self.state = (self.state | FETCHED_ONCE) & !STALE_COPY;
    }

    /// Empties the slot, keeping the generation (so old entries stay stale if it is reused) and
    /// the in-flight bit (so the fetch under way can still be reported).
    pub(super) fn clear(&mut self) {
        self.state &= GENERATION | IN_FLIGHT;
    }

    /// Whether `entry` is this page's live entry.
    pub(super) fn is_live(&self, entry: &PageEntry) -> bool {
        self.is_present() && !self.in_flight() && self.generation() == entry.generation
    }
}

/// A page in its host's queue, ordered by `key` (the time its crawl value reaches the host's
/// threshold), earliest first in a `BinaryHeap`. Stale entries (older generation) are dropped
/// when they surface.
#[derive(Clone, Copy, Debug)]
pub(super) struct PageEntry {
    pub(super) key: f64,
    pub(super) page: u32,
    pub(super) generation: u32,
}

impl PartialEq for PageEntry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for PageEntry {}

impl PartialOrd for PageEntry {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for PageEntry {
    /// Reversed, so that `BinaryHeap` (a max-heap) yields the earliest key, then the lowest page.
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.total_cmp(&self.key).then(other.page.cmp(&self.page))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_page_memory_is_40_bytes() {
        assert_eq!(size_of::<PageSlot>(), 24);
        assert_eq!(size_of::<PageEntry>(), 16);
    }

    #[test]
    fn generation_wraps_and_keeps_flags() {
        let mut slot = PageSlot::new(1.0, 1.0, 0.0, 3, GENERATION);
        slot.set_in_flight(true);
        assert_eq!(slot.bump_generation(), 0);
        assert!(slot.is_present() && slot.in_flight() && !slot.was_fetched());
        slot.clear();
        assert!(!slot.is_present());
    }
}
