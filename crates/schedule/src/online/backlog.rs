//! A host's backlog: its eligible pages that wait for its slot, the first in the host's order
//! (the earliest key, then the lowest page) served first.
//!
//! A binary heap serves any order of pushes. But the pages of a first crawl (every page new, all
//! keyed at their add time 0) reach their host in id order, each after all those before it in the
//! host's order, and leave it in that order: a heap paid a sift down through the host's entries per
//! page served, about a tenth of the bench's first crawl at 10^7 pages after its first `next`
//! (BENCHMARKS.md, "Online scheduler"). So the backlog is kept **in order** (a run read from `head`
//! on, pushes at the end) as long as each push goes after every entry before it, and turns into a
//! binary heap at the first push that does not (or a re-keying that breaks the order), until it is
//! empty again. The order of the entries it hands out is the heap's in either form (`PageEntry`'s
//! order; entries equal in it are the same page under the same key, of which at most one is live);
//! proptested against `BinaryHeap` below.
//!
//! An entry pushed for a page known never to have been fetched is **marked** so (a bit of its
//! stored generation, which `page.rs` keeps to 29 bits; taken off whatever the backlog hands
//! out): its key is the page's add time under any host threshold (`host::host_key`) for as long
//! as it is live, so [`Backlog::rekey`] passes over it without reading its page. In the bench's
//! first crawl the passes over backlogs that also held a page fetched since read 10^8 pages'
//! slots at random, 93% of them never fetched (BENCHMARKS.md, "Online scheduler"). A marked
//! entry that went stale stays until it surfaces (a pass drops the others), which changes no
//! decision: a stale entry is dropped wherever it is taken or looked at.

use super::heap::{heapify, sift_down_to_bottom, sift_up};
use super::page::PageEntry;

/// `head` of a backlog in its heap form.
const HEAP: u32 = u32::MAX;

/// The mark of an entry of a page never fetched, in its stored generation (above the 29 bits
/// of a page's generation).
const NEVER_FETCHED: u32 = 1 << 31;

/// `entry` as it was pushed, its mark taken off.
fn unmarked(entry: &PageEntry) -> PageEntry {
    PageEntry { generation: entry.generation & !NEVER_FETCHED, ..*entry }
}

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

    /// Makes room for `additional` more entries.
    pub(super) fn reserve_exact(&mut self, additional: usize) {
        self.entries.reserve_exact(additional);
    }

    /// Index of the first queued entry in `entries`.
    fn start(&self) -> usize {
        if self.head == HEAP { 0 } else { self.head as usize }
    }

    /// The entries queued, in no order.
    pub(super) fn iter(&self) -> impl Iterator<Item = PageEntry> {
        self.entries.iter().skip(self.start()).map(unmarked)
    }

    /// The first entry in the host's order.
    pub(super) fn peek(&self) -> Option<PageEntry> {
        self.entries.get(self.start()).map(unmarked)
    }

    /// The key of the last entry in memory (where the next push goes), to load it ahead.
    pub(super) fn end_key(&self) -> Option<f64> {
        self.entries.last().map(|entry| entry.key)
    }

    /// Queues `entry`; `never_fetched`: its page is known never to have been fetched (see the
    /// module docs).
    pub(super) fn push(&mut self, entry: PageEntry, never_fetched: bool) {
        let entry = if never_fetched {
            PageEntry { generation: entry.generation | NEVER_FETCHED, ..entry }
        } else {
            entry
        };
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
            let position = self.entries.len();
            self.entries.push(entry);
            sift_up::<_, 2>(&mut self.entries, 0, position);
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
        Some(unmarked(&entry))
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

    /// Keys every entry again but the marked ones (their key stands, see the module docs):
    /// `rekey` gives an entry's new key and whether its page was fetched, or `None` for a stale
    /// entry (dropped). Returns whether one is of a page fetched before. Stays in order if the
    /// new keys keep it so, else becomes a heap.
    pub(super) fn rekey(&mut self, mut rekey: impl FnMut(&PageEntry) -> Option<(f64, bool)>) -> bool {
        self.compact();
        let mut has_fetched = false;
        self.entries.retain_mut(|entry| {
            if entry.generation & NEVER_FETCHED != 0 {
                return true;
            }
            match rekey(entry) {
                Some((key, fetched)) => {
                    entry.key = key;
                    has_fetched |= fetched;
                    true
                }
                None => false,
            }
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
        /// Key and page; the pages of even number are never fetched (their entries marked), so
        /// that entries equal in the order (same key and page) are equal in everything.
        Push(f64, u32),
        Pop,
        /// Keys every entry again: `key · factor` (factor 1: unchanged), pages above `drop`
        /// dropped.
        Rekey(f64, u32),
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            4 => (0..6_u32, 0..80_u32).prop_map(|(key, page)| Step::Push(f64::from(key), page)),
            3 => Just(Step::Pop),
            1 => (prop_oneof![Just(1.0), Just(-1.0), 0.5..2.0_f64], 0..80_u32)
                .prop_map(|(factor, drop)| Step::Rekey(factor, drop)),
        ]
    }

    fn key_and_page(entry: PageEntry) -> (f64, u32) {
        (entry.key, entry.page)
    }

    /// The whole entry, its generation (the mark) included: the steps never push two entries
    /// equal in the order that differ in it.
    fn entire(entry: PageEntry) -> (f64, u32, u32) {
        (entry.key, entry.page, entry.generation)
    }

    proptest! {
        /// A bulk in order (a first crawl), then pushes, pops and re-keyings in any order: the
        /// backlog hands out what a plain `BinaryHeap` hands out, in the same order, and holds
        /// the same entries, where a re-keying leaves the entries pushed as never fetched as
        /// they are (generation 2 in the heap) and the others' generation is unchanged.
        #[test]
        fn it_serves_as_a_binary_heap_does(
            bulk in 0..100_u32,
            steps in proptest::collection::vec(step(), 0..300),
        ) {
            let (mut backlog, mut heap) = (Backlog::default(), BinaryHeap::new());
            for page in (0..bulk).map(|page| 2 * page) {
                backlog.push(PageEntry { key: 0.0, page, generation: 2 }, true);
                heap.push(PageEntry { key: 0.0, page, generation: 2 });
            }
            prop_assert!(backlog.head != HEAP);
            for step in steps {
                match step {
                    Step::Push(key, page) => {
                        let never_fetched = page % 2 == 0;
                        let entry = PageEntry { key, page, generation: if never_fetched { 2 } else { 1 } };
                        backlog.push(entry, never_fetched);
                        heap.push(entry);
                    }
                    Step::Pop => {
                        let (got, expected) = (backlog.pop(), heap.pop());
                        prop_assert_eq!(got.map(entire), expected.map(entire));
                    }
                    Step::Rekey(factor, drop) => {
                        let rekey = |entry: &PageEntry| {
                            prop_assert_eq!(entry.generation, 1);
                            Ok((entry.page <= drop).then_some((entry.key * factor, false)))
                        };
                        let mut failed = None;
                        backlog.rekey(|entry| rekey(entry).unwrap_or_else(|error| { failed = Some(error); None }));
                        if let Some(error) = failed {
                            return Err(error);
                        }
                        let mut entries = std::mem::take(&mut heap).into_vec();
                        entries.retain_mut(|entry| {
                            if entry.generation == 2 {
                                return true;
                            }
                            match entry.page <= drop {
                                true => { entry.key *= factor; true }
                                false => false,
                            }
                        });
                        heap = BinaryHeap::from(entries);
                    }
                }
                prop_assert_eq!(backlog.len(), heap.len());
                prop_assert_eq!(backlog.peek().map(key_and_page), heap.peek().copied().map(key_and_page));
                let mut held: Vec<(f64, u32, u32)> = backlog.iter().map(entire).collect();
                let mut expected: Vec<(f64, u32, u32)> = heap.iter().copied().map(entire).collect();
                held.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
                expected.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
                prop_assert_eq!(held, expected);
            }
            while let Some(expected) = heap.pop() {
                prop_assert_eq!(backlog.pop().map(key_and_page), Some(key_and_page(expected)));
            }
            prop_assert!(backlog.pop().is_none());
        }
    }

    #[test]
    fn a_first_crawl_stays_in_order_and_is_served_without_a_heap() {
        let mut backlog = Backlog::default();
        for page in 0..1_000 {
            backlog.push(PageEntry { key: 0.0, page, generation: 0 }, true);
        }
        // A page fetched since, keyed later: still in order.
        backlog.push(PageEntry { key: 3.0, page: 5, generation: 1 }, false);
        for page in 0..1_000 {
            assert_eq!(backlog.pop().map(|entry| entry.page), Some(page));
            assert!(backlog.head != HEAP);
        }
        assert_eq!(backlog.pop().map(|entry| entry.page), Some(5));
        assert!(backlog.pop().is_none() && backlog.capacity() <= 16);
    }
}
