//! The calendar's entries whose bucket has come, earliest key first: a short sorted vector in
//! front of a binary heap.
//!
//! In a steady state a bucket hands out a few entries (its width is a few token intervals), so
//! the queue holds a handful: a sorted vector of at most [`SORTED_CAPACITY`] entries takes them
//! with a short shift and gives the earliest from its end. A `BinaryHeap` of the same few entries
//! paid a sift down to the bottom and back up per pop, and a sift per push: about a tenth of a
//! `next`/`fetched` pair's instructions in `benches/online.rs` (BENCHMARKS.md, "Online
//! scheduler"). Entries beyond the vector's capacity (a first crawl, a rebuild: every page due
//! at once) go to the heap, and a pop takes the earlier of the two fronts, so the order is the
//! heap's alone would give: `PageEntry`'s order (the earliest key, then the lowest page).

use std::collections::BinaryHeap;

use super::calendar::shrink_if_sparse;
use super::page::PageEntry;

/// Entries the sorted vector holds at most; the rest wait in the heap.
const SORTED_CAPACITY: usize = 32;

/// See the module docs.
#[derive(Clone, Debug, Default)]
pub(super) struct DueQueue {
    /// Ascending in `PageEntry`'s order, which puts the earliest key last.
    sorted: Vec<PageEntry>,
    /// Entries that found the vector full.
    overflow: BinaryHeap<PageEntry>,
}

impl DueQueue {
    pub(super) fn push(&mut self, entry: PageEntry) {
        if self.sorted.len() < SORTED_CAPACITY {
            // New entries are usually the latest (the next bucket's), which go first.
            let position =
                self.sorted.iter().position(|queued| *queued >= entry).unwrap_or(self.sorted.len());
            self.sorted.insert(position, entry);
        } else {
            self.overflow.push(entry);
        }
    }

    /// The earliest entry (the greatest in `PageEntry`'s order).
    pub(super) fn peek(&self) -> Option<&PageEntry> {
        match (self.sorted.last(), self.overflow.peek()) {
            (Some(sorted), Some(overflow)) => Some(if overflow > sorted { overflow } else { sorted }),
            (front, None) | (None, front) => front,
        }
    }

    /// Takes the earliest entry if its key is at or before `now`.
    pub(super) fn pop_until(&mut self, now: f64) -> Option<PageEntry> {
        let from_overflow = match (self.sorted.last(), self.overflow.peek()) {
            (Some(sorted), Some(overflow)) => overflow > sorted,
            (Some(_), None) => false,
            (None, Some(_)) => true,
            (None, None) => return None,
        };
        if from_overflow {
            if self.overflow.peek().is_some_and(|entry| entry.key <= now) {
                let entry = self.overflow.pop();
                shrink_if_sparse(&mut self.overflow);
                return entry;
            }
            return None;
        }
        if self.sorted.last().is_some_and(|entry| entry.key <= now) {
            return self.sorted.pop();
        }
        None
    }

    pub(super) fn len(&self) -> usize {
        self.sorted.len() + self.overflow.len()
    }

    pub(super) fn clear(&mut self) {
        self.sorted.clear();
        self.overflow.clear();
    }

    pub(super) fn retain(&mut self, mut keep: impl FnMut(&PageEntry) -> bool) {
        self.sorted.retain(&mut keep);
        self.overflow.retain(&mut keep);
    }

    /// Every entry, in no order.
    pub(super) fn iter(&self) -> impl Iterator<Item = &PageEntry> {
        self.sorted.iter().chain(self.overflow.iter())
    }

    pub(super) fn capacity(&self) -> usize {
        self.sorted.capacity() + self.overflow.capacity()
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

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
            let (mut queue, mut heap) = (DueQueue::default(), BinaryHeap::new());
            for (step, &now) in steps.iter().zip(nows.iter().cycle()) {
                match *step {
                    Some((key, page)) => {
                        let entry = PageEntry { key, page, generation: 0 };
                        queue.push(entry);
                        heap.push(entry);
                    }
                    None => {
                        let expected = if heap.peek().is_some_and(|entry: &PageEntry| entry.key <= now) {
                            heap.pop()
                        } else {
                            None
                        };
                        let got = queue.pop_until(now);
                        prop_assert_eq!(got.map(|entry| (entry.key, entry.page)), expected.map(|entry| (entry.key, entry.page)));
                    }
                }
                prop_assert_eq!(queue.len(), heap.len());
                prop_assert_eq!(queue.peek().map(|entry| (entry.key, entry.page)), heap.peek().map(|entry| (entry.key, entry.page)));
            }
            while let Some(expected) = heap.pop() {
                let got = queue.pop_until(f64::INFINITY);
                prop_assert_eq!(got.map(|entry| (entry.key, entry.page)), Some((expected.key, expected.page)));
            }
            prop_assert!(queue.pop_until(f64::INFINITY).is_none());
        }
    }
}
