//! The calendar's entries whose bucket has come, earliest key first: a short sorted vector in
//! front of a run of entries that came in order and a binary heap.
//!
//! In a steady state a bucket hands out a few entries (its width is a few token intervals), so
//! the queue holds a handful: a sorted vector of at most [`SORTED_CAPACITY`] entries takes them
//! with a short shift and gives the earliest from its end. A `BinaryHeap` of the same few entries
//! paid a sift down to the bottom and back up per pop, and a sift per push: about a tenth of a
//! `next`/`fetched` pair's instructions in `benches/online.rs` (BENCHMARKS.md, "Online
//! scheduler"). Entries beyond the vector's capacity (a first crawl, a rebuild: every page due
//! at once) go to the run or the heap, and a pop takes the earliest of the fronts, so the order
//! is the one a heap alone would give: `PageEntry`'s order (the earliest key, then the lowest
//! page).
//!
//! A first crawl or a rebuild queues the pages in id order, every one with the same key (its
//! add time): each entry comes out after all those before it. Such entries go to `run`, a
//! deque in order, at its back, and are taken from its front: `O(1)` each and read in
//! sequence, where the heap (10^7 entries, 160 MB) paid a sift through memory per pop, and the
//! first `next` of the bench's first crawl took 7.9 s of its 19.4 (BENCHMARKS.md, "Online
//! scheduler"). A pop takes the earliest of the three fronts.

use std::collections::{BinaryHeap, VecDeque};

use super::calendar::{SHRINK_FLOOR, shrink_if_sparse};
use super::page::PageEntry;

/// Entries the sorted vector holds at most; the rest wait in the heap.
const SORTED_CAPACITY: usize = 32;

/// See the module docs.
#[derive(Clone, Debug, Default)]
pub(super) struct DueQueue {
    /// Ascending in `PageEntry`'s order, which puts the earliest key last.
    sorted: Vec<PageEntry>,
    /// Entries that found the vector full and come out after every entry of `run`: in
    /// order, the earliest (the greatest in `PageEntry`'s order) at the front.
    run: VecDeque<PageEntry>,
    /// Entries that found the vector full and fit neither.
    overflow: BinaryHeap<PageEntry>,
}

/// Which of the three fronts is the earliest entry.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Front {
    Sorted,
    Run,
    Overflow,
}

impl DueQueue {
    pub(super) fn push(&mut self, entry: PageEntry) {
        if self.sorted.len() < SORTED_CAPACITY {
            // New entries are usually the latest (the next bucket's), which go first.
            let position =
                self.sorted.iter().position(|queued| *queued >= entry).unwrap_or(self.sorted.len());
            self.sorted.insert(position, entry);
        } else if self.run.back().is_none_or(|last| *last >= entry) {
            self.run.push_back(entry);
        } else {
            self.overflow.push(entry);
        }
    }

    /// Whether only the sorted vector holds entries (the steady state's case).
    #[inline]
    fn only_sorted(&self) -> bool {
        self.run.is_empty() && self.overflow.is_empty()
    }

    /// The front holding the earliest entry, and that entry.
    fn front(&self) -> Option<(Front, &PageEntry)> {
        let mut best: Option<(Front, &PageEntry)> = self.sorted.last().map(|entry| (Front::Sorted, entry));
        for (front, entry) in [(Front::Run, self.run.front()), (Front::Overflow, self.overflow.peek())] {
            if let Some(entry) = entry
                && best.is_none_or(|(_, best)| entry > best)
            {
                best = Some((front, entry));
            }
        }
        best
    }

    /// The earliest entry (the greatest in `PageEntry`'s order).
    pub(super) fn peek(&self) -> Option<&PageEntry> {
        if self.only_sorted() {
            return self.sorted.last();
        }
        self.front().map(|(_, entry)| entry)
    }

    /// Takes the earliest entry if its key is at or before `now`.
    #[inline]
    pub(super) fn pop_until(&mut self, now: f64) -> Option<PageEntry> {
        if self.only_sorted() {
            return if self.sorted.last().is_some_and(|entry| entry.key <= now) {
                self.sorted.pop()
            } else {
                None
            };
        }
        self.pop_from_fronts(now)
    }

    /// [`DueQueue::pop_until`] with entries beyond the sorted vector.
    #[inline(never)]
    fn pop_from_fronts(&mut self, now: f64) -> Option<PageEntry> {
        let (front, entry) = self.front()?;
        if entry.key > now {
            return None;
        }
        match front {
            Front::Sorted => self.sorted.pop(),
            Front::Run => {
                let entry = self.run.pop_front();
                let capacity = self.run.capacity();
                if capacity > SHRINK_FLOOR && self.run.len() < capacity / 4 {
                    self.run.shrink_to(capacity / 2);
                }
                entry
            }
            Front::Overflow => {
                let entry = self.overflow.pop();
                shrink_if_sparse(&mut self.overflow);
                entry
            }
        }
    }

    pub(super) fn len(&self) -> usize {
        self.sorted.len() + self.run.len() + self.overflow.len()
    }

    /// Whether the run holds entries.
    #[inline]
    pub(super) fn has_run(&self) -> bool {
        !self.run.is_empty()
    }

    /// The first `count` entries of the run, the next it hands out while its front is the
    /// earliest (a first crawl surfacing every page at once).
    pub(super) fn run_ahead(&self, count: usize) -> impl Iterator<Item = &PageEntry> {
        self.run.iter().take(count)
    }

    pub(super) fn clear(&mut self) {
        self.sorted.clear();
        self.run.clear();
        self.overflow.clear();
    }

    pub(super) fn retain(&mut self, mut keep: impl FnMut(&PageEntry) -> bool) {
        self.sorted.retain(&mut keep);
        self.run.retain(&mut keep);
        self.overflow.retain(&mut keep);
    }

    /// Every entry, in no order.
    pub(super) fn iter(&self) -> impl Iterator<Item = &PageEntry> {
        self.sorted.iter().chain(self.run.iter()).chain(self.overflow.iter())
    }

    pub(super) fn capacity(&self) -> usize {
        self.sorted.capacity() + self.run.capacity() + self.overflow.capacity()
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// A push (`Some`) or a pop at a time (`None`), applied to `queue` and to `heap` alike,
    /// then both drained: the queue must hand out what the heap hands out, in the same order.
    fn replays_as_the_heap(
        mut queue: DueQueue,
        mut heap: BinaryHeap<PageEntry>,
        steps: impl IntoIterator<Item = (Option<PageEntry>, f64)>,
    ) -> Result<(), TestCaseError> {
        let key_and_page = |entry: &PageEntry| (entry.key, entry.page);
        for (step, now) in steps {
            match step {
                Some(entry) => {
                    queue.push(entry);
                    heap.push(entry);
                }
                None => {
                    let expected =
                        if heap.peek().is_some_and(|entry| entry.key <= now) { heap.pop() } else { None };
                    let got = queue.pop_until(now);
                    prop_assert_eq!(got.as_ref().map(key_and_page), expected.as_ref().map(key_and_page));
                }
            }
            prop_assert_eq!(queue.len(), heap.len());
            prop_assert_eq!(queue.peek().map(key_and_page), heap.peek().map(key_and_page));
        }
        while let Some(expected) = heap.pop() {
            let got = queue.pop_until(f64::INFINITY);
            prop_assert_eq!(got.as_ref().map(key_and_page), Some(key_and_page(&expected)));
        }
        prop_assert!(queue.pop_until(f64::INFINITY).is_none());
        Ok(())
    }

    proptest! {
        /// Pushes and pops in any interleaving, few entries or many (past the vector's
        /// capacity), ties of key included: the queue hands out what a plain `BinaryHeap`
        /// hands out, in the same order.
        #[test]
        fn it_pops_as_a_binary_heap_does(
            steps in proptest::collection::vec(prop_oneof![
                3 => (0..8_u32, 0..6_u32).prop_map(|(key, page)| Some((f64::from(key), page))),
                1 => Just(None),
            ], 1..400),
            nows in proptest::collection::vec(0.0..9.0_f64, 1..400),
        ) {
            let steps = steps.iter().zip(nows.iter().cycle()).map(|(step, &now)| {
                (step.map(|(key, page)| PageEntry { key, page, generation: 0 }), now)
            });
            replays_as_the_heap(DueQueue::default(), BinaryHeap::new(), steps)?;
        }

        /// A bulk of entries in order (a first crawl: one key, pages in id order; or keys
        /// rising), then pushes and pops in any interleaving: the run, the heap and the vector
        /// together hand out what a plain `BinaryHeap` hands out.
        #[test]
        fn a_bulk_in_order_then_anything_pops_as_a_binary_heap_does(
            bulk in 0..300_u32,
            key_step in 0..3_u32,
            steps in proptest::collection::vec(prop_oneof![
                2 => (0..400_u32, 0..400_u32).prop_map(|(key, page)| Some((f64::from(key) / 4.0, page))),
                3 => Just(None),
            ], 0..300),
            now in 0.0..100.0_f64,
        ) {
            let (mut queue, mut heap) = (DueQueue::default(), BinaryHeap::new());
            for page in 0..bulk {
                let entry = PageEntry { key: f64::from(page * key_step) / 4.0, page, generation: 0 };
                queue.push(entry);
                heap.push(entry);
            }
            prop_assert!(bulk <= SORTED_CAPACITY as u32 || !queue.run.is_empty());
            let steps = steps.iter().map(|step| (step.map(|(key, page)| PageEntry { key, page, generation: 1 }), now));
            replays_as_the_heap(queue, heap, steps)?;
        }
    }
}
