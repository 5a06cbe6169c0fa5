//! A host's backlog: its eligible pages that wait for its slot, the first in the host's order
//! (the earliest key, then the lowest page) served first.
//!
//! A binary heap serves any order of pushes. But the pages of a first crawl (every page new, all
//! keyed at their add time 0) reach their host in id order, each after all those before it in
//! the host's order, and leave it in that order: a heap paid a sift down through the host's
//! entries per page served, a tenth of the bench's first crawl at 10^7 pages (BENCHMARKS.md,
//! "Online scheduler"). So the backlog is kept **in order** (a run read from `head` on, pushes at
//! the end) as long as each push goes after every entry before it, and turns into a binary heap
//! at the first push that does not (or a re-keying that breaks the order), until it is empty
//! again. The order of the entries it hands out is the heap's in either form (`PageEntry`'s
//! order; entries equal in it are the same page under the same key, of which at most one is
//! live); proptested against `BinaryHeap` below.

use super::heap::{heapify, sift_down_to_bottom, sift_up};
use super::page::PageEntry;

/// `head` of a backlog in its heap form.
const HEAP: u32 = u32::MAX;

/// See the module docs.
#[derive(Clone, Debug, Default)]
pub(super) struct Backlog {
    /// In order (`head` ≠ [`HEAP`]): `entries[head..]`, the first to serve at `head`; the entries
    /// before `head` were served and are dropped when the vector is compacted. As a heap: a
    /// binary heap in `PageEntry`'s order (the greatest, the first to serve, at 0).
    entries: Vec<PageEntry>,
    head: u32,
    /// Whether it may hold an entry of a page fetched before (see `HostState::refresh_keys`).
    pub(super) has_fetched: bool,
}

impl Backlog {
    /// Entries queued, stale ones included.
    pub(super) fn len(&self) -> usize {
        self.entries.len() - self.start()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(super) fn capacity(&self) -> usize {
        self.entries.capacity()
    }

    /// Index of the first queued entry in `entries`.
    fn start(&self) -> usize {
        if self.head == HEAP { 0 } else { self.head as usize }
    }

    /// The entries queued, in no order.
    pub(super) fn iter(&self) -> impl Iterator<Item = &PageEntry> {
        self.entries.iter().skip(self.start())
    }

    /// The first entry in the host's order.
    pub(super) fn peek(&self) -> Option<&PageEntry> {
        self.entries.get(self.start())
    }

    /// The last entry in memory (where the next push goes), to load it ahead.
    pub(super) fn end(&self) -> Option<&PageEntry> {
        self.entries.last()
    }

    pub(super) fn push(&mut self, entry: PageEntry) {
        if self.head == HEAP {
            let position = self.entries.len();
            self.entries.push(entry);
            sift_up::<_, 2>(&mut self.entries, 0, position);
            return;
        }
        if self.is_empty() {
            self.entries.clear();
            self.head = 0;
        } else if self.entries.last().is_some_and(|last| *last < entry) {
            // Before the last one: the order ends here.
            self.make_heap();
            self.push(entry);
            return;
        } else if self.entries.len() == self.entries.capacity()
            && self.head as usize >= self.entries.len() / 2
        {
            // Full, at least half of it served: make room rather than grow (`O(1)` a push
            // amortised, each entry moved once per half of the vector served).
            self.compact();
        }
        self.entries.push(entry);
    }

    /// Takes the first entry in the host's order out.
    pub(super) fn pop(&mut self) -> Option<PageEntry> {
        let entry = if self.head == HEAP {
            let mut last = self.entries.pop()?;
            if let Some(top) = self.entries.first_mut() {
                std::mem::swap(&mut last, top);
                sift_down_to_bottom::<_, 2>(&mut self.entries, 0);
            } else {
                // Empty: in order again.
                self.head = 0;
            }
            last
        } else {
            let entry = *self.entries.get(self.head as usize)?;
            self.head += 1;
            entry
        };
        self.shrink_if_sparse();
        Some(entry)
    }

    /// Gives back most of the buffer once it holds under a quarter of it (a first crawl puts
    /// every page of the host here at once).
    fn shrink_if_sparse(&mut self) {
        let capacity = self.entries.capacity();
        if capacity > 8 && self.len() < capacity / 4 {
            self.compact();
            self.entries.shrink_to(capacity / 2);
        }
    }

    /// Drops the served entries before `head`.
    fn compact(&mut self) {
        if self.head != HEAP && self.head > 0 {
            self.entries.drain(..self.head as usize);
            self.head = 0;
        }
    }

    /// Turns the run into a heap: entries in the host's order, the first at 0, are a heap
    /// already (every entry comes after its parent).
    fn make_heap(&mut self) {
        self.compact();
        self.head = HEAP;
    }

    /// Keys every entry again: `rekey` gives an entry's new key and whether its page was
    /// fetched, or `None` for a stale entry (dropped). Returns whether one is of a page fetched
    /// before. Stays in order if the new keys keep it so, else becomes a heap.
    pub(super) fn rekey(&mut self, mut rekey: impl FnMut(&PageEntry) -> Option<(f64, bool)>) -> bool {
        self.compact();
        let mut has_fetched = false;
        self.entries.retain_mut(|entry| match rekey(entry) {
            Some((key, fetched)) => {
                entry.key = key;
                has_fetched |= fetched;
                true
            }
            None => false,
        });
        if self.head == HEAP || !self.entries.is_sorted_by(|a, b| a >= b) {
            self.head = HEAP;
            heapify::<_, 2>(&mut self.entries);
            if self.entries.is_empty() {
                self.head = 0;
            }
        }
        has_fetched
    }

    pub(super) fn clear(&mut self) {
        self.entries.clear();
        self.head = 0;
        self.has_fetched = false;
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BinaryHeap;

    use proptest::prelude::*;

    use super::*;

    /// A step applied to a backlog and a `BinaryHeap` alike.
    #[derive(Clone, Debug)]
    enum Step {
        Push(f64, u32),
        Pop,
        /// Keys every entry again: `key · factor` (factor 1: unchanged), pages above `drop`
        /// dropped.
        Rekey(f64, u32),
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            4 => (0..6_u32, 0..40_u32).prop_map(|(key, page)| Step::Push(f64::from(key), page)),
            3 => Just(Step::Pop),
            1 => (prop_oneof![Just(1.0), Just(-1.0), 0.5..2.0_f64], 0..40_u32)
                .prop_map(|(factor, drop)| Step::Rekey(factor, drop)),
        ]
    }

    fn key_and_page(entry: &PageEntry) -> (f64, u32) {
        (entry.key, entry.page)
    }

    proptest! {
        /// A bulk in order (a first crawl), then pushes, pops and re-keyings in any order: the
        /// backlog hands out what a plain `BinaryHeap` hands out, in the same order, and holds
        /// the same entries.
        #[test]
        fn it_serves_as_a_binary_heap_does(
            bulk in 0..100_u32,
            steps in proptest::collection::vec(step(), 0..300),
        ) {
            let (mut backlog, mut heap) = (Backlog::default(), BinaryHeap::new());
            for page in 0..bulk {
                let entry = PageEntry { key: 0.0, page, generation: 0 };
                backlog.push(entry);
                heap.push(entry);
            }
            prop_assert!(backlog.head != HEAP);
            for step in steps {
                match step {
                    Step::Push(key, page) => {
                        let entry = PageEntry { key, page, generation: 1 };
                        backlog.push(entry);
                        heap.push(entry);
                    }
                    Step::Pop => {
                        let (got, expected) = (backlog.pop(), heap.pop());
                        prop_assert_eq!(got.as_ref().map(key_and_page), expected.as_ref().map(key_and_page));
                    }
                    Step::Rekey(factor, drop) => {
                        let rekey = |entry: &PageEntry| (entry.page <= drop).then_some((entry.key * factor, false));
                        backlog.rekey(rekey);
                        let mut entries = std::mem::take(&mut heap).into_vec();
                        entries.retain_mut(|entry| match rekey(entry) {
                            Some((key, _)) => { entry.key = key; true }
                            None => false,
                        });
                        heap = BinaryHeap::from(entries);
                    }
                }
                prop_assert_eq!(backlog.len(), heap.len());
                prop_assert_eq!(backlog.peek().map(key_and_page), heap.peek().map(key_and_page));
                let mut held: Vec<(f64, u32)> = backlog.iter().map(key_and_page).collect();
                let mut expected: Vec<(f64, u32)> = heap.iter().map(key_and_page).collect();
                held.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                expected.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                prop_assert_eq!(held, expected);
            }
            while let Some(expected) = heap.pop() {
                prop_assert_eq!(backlog.pop().as_ref().map(key_and_page), Some(key_and_page(&expected)));
            }
            prop_assert!(backlog.pop().is_none());
        }
    }

    #[test]
    fn a_first_crawl_stays_in_order_and_is_served_without_a_heap() {
        let mut backlog = Backlog::default();
        for page in 0..1_000 {
            backlog.push(PageEntry { key: 0.0, page, generation: 0 });
        }
        // A page fetched since, keyed later: still in order.
        backlog.push(PageEntry { key: 3.0, page: 5, generation: 1 });
        for page in 0..1_000 {
            assert_eq!(backlog.pop().map(|entry| entry.page), Some(page));
            assert!(backlog.head != HEAP);
        }
        assert_eq!(backlog.pop().map(|entry| entry.page), Some(5));
        assert!(backlog.pop().is_none() && backlog.capacity() <= 16);
    }
}
