//! A host's backlog: its eligible pages that wait for its slot, the first in the host's order
//! (the earliest key, then the lowest page) served first.
//!
//! A binary heap serves any order of pushes. But the pages of a first crawl (every page new, all
//! keyed at their add time 0) reach their host in id order, each after all those before it in the
//! host's order, and leave it in that order: a heap paid a sift down through the host's entries per
//! page served, about a tenth of the bench's first crawl at 10^7 pages after its first `next`
//! (BENCHMARKS.md, "Online scheduler"). So those pages are kept **in order** (a run read from
//! its first on, pushes at the end), and the other entries in a binary heap beside it (below).
//! The order of the entries it hands out is a heap's (`PageEntry`'s order; entries equal in it
//! are the same page under the same key, of which at most one is live); proptested against
//! `BinaryHeap` below.
//!
//! An entry pushed for a page known never to have been fetched is **marked** so (a bit of its
//! stored generation, which `page.rs` keeps to 28 bits; taken off whatever the backlog hands
//! out): its key is the page's add time under any host threshold (`host::host_key`) for as long
//! as it is live, so [`Backlog::rekey`] leaves it as it is.
//!
//! **One vector, two queues.** The run holds only such entries, and a push that would break
//! its order (or of a page that may have been fetched) goes to a binary heap kept at the front
//! of the same vector: `[0, heap)` the heap, `[heap, run)` free slots (served entries of the
//! run), `[run, len)` the run, served from `run` on; the first entry is the greater of the
//! heap's top and the run's first. A re-keying passes over the heap only. When the run was
//! turned into a heap instead, the re-keyings of the bench's first crawl passed over 1.05·10^8
//! entries, 91% of them of pages never fetched, after compacting the run: 1.07 times its pairs
//! per CPU second now, the same decisions (BENCHMARKS.md, "A host backlog in two queues"). Two
//! vectors a host cost `HostState` 40 bytes and the first `next` the gain. A heap push takes a
//! free slot, or, when there is none, moves the run up by one. A marked entry that went stale
//! stays until it surfaces (a pass drops the others), which changes no decision: a stale entry
//! is dropped wherever it is taken or looked at.

use super::heap::{heapify, sift_down_to_bottom, sift_up};
use super::page::PageEntry;

/// The mark of an entry of a page never fetched, in its stored generation (above the 28 bits
/// of a page's generation and its stale-copy bit).
const NEVER_FETCHED: u32 = 1 << 31;

/// The flag `has_fetched`, in `heap`'s top bit (a host's heap holds fewer than 2^31 entries).
const HAS_FETCHED: u32 = 1 << 31;

/// `entry` as it was pushed, its mark taken off.
fn unmarked(entry: &PageEntry) -> PageEntry {
    PageEntry { generation: entry.generation & !NEVER_FETCHED, ..*entry }
}

/// See the module docs.
#[derive(Clone, Debug, Default)]
pub(super) struct Backlog {
    /// `[0, heap)`: a binary heap in `PageEntry`'s order (the greatest, the first to serve, at
    /// 0); `[heap, run)`: free; `[run, len)`: the run, in order, its first to serve at `run`.
    entries: Vec<PageEntry>,
    /// The heap's length, and in its top bit the flag [`HAS_FETCHED`]: whether the heap may
    /// hold an entry of a page fetched before (see `HostState::refresh_keys`).
    heap: u32,
    /// Where the run starts (`entries.len()` when it is empty).
    run: u32,
}

impl Backlog {
    #[inline]
    fn heap_len(&self) -> usize {
        (self.heap & !HAS_FETCHED) as usize
    }

    fn set_heap_len(&mut self, len: usize) {
        debug_assert!(len < HAS_FETCHED as usize, "a host's heap of 2^31 entries");
        self.heap = (self.heap & HAS_FETCHED) | (len as u32 & !HAS_FETCHED);
    }

    /// Whether it may hold an entry of a page fetched before.
    #[inline]
    pub(super) fn has_fetched(&self) -> bool {
        self.heap & HAS_FETCHED != 0
    }

    /// Notes that an entry pushed may be of a page fetched before.
    pub(super) fn set_has_fetched(&mut self, has_fetched: bool) {
        self.heap = (self.heap & !HAS_FETCHED) | if has_fetched { HAS_FETCHED } else { 0 };
    }

    /// Entries queued, stale ones included.
    #[inline]
    pub(super) fn len(&self) -> usize {
        self.heap_len() + self.entries.len() - self.run as usize
    }

    #[inline]
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

    /// The entries queued, in no order.
    pub(super) fn iter(&self) -> impl Iterator<Item = PageEntry> {
        let (heap, run) = (self.heap_len(), self.run as usize);
        self.entries[..heap].iter().chain(&self.entries[run..]).map(unmarked)
    }

    /// The first entry in the host's order: the greater of the heap's top and the run's first.
    #[inline]
    pub(super) fn peek(&self) -> Option<PageEntry> {
        let top = (self.heap_len() > 0).then(|| self.entries[0]);
        let first = self.entries.get(self.run as usize).copied();
        match (top, first) {
            (Some(top), Some(first)) => Some(unmarked(if top > first { &top } else { &first })),
            (Some(only), None) | (None, Some(only)) => Some(unmarked(&only)),
            (None, None) => None,
        }
    }

    /// The key of the last entry in memory (where the next push goes), to load it ahead.
    #[inline]
    pub(super) fn end_key(&self) -> Option<f64> {
        self.entries.last().map(|entry| entry.key)
    }

    /// Queues `entry`; `never_fetched`: its page is known never to have been fetched (see the
    /// module docs).
    #[inline]
    pub(super) fn push(&mut self, entry: PageEntry, never_fetched: bool) {
        let entry = if never_fetched {
            PageEntry { generation: entry.generation | NEVER_FETCHED, ..entry }
        } else {
            entry
        };
        let run_empty = self.run as usize == self.entries.len();
        if never_fetched && (run_empty || self.entries.last().is_some_and(|last| *last >= entry)) {
            if run_empty {
                // Free slots at the end are dropped with an empty run: it starts after the heap.
                self.entries.truncate(self.heap_len());
                self.run = self.heap_len() as u32;
            } else if self.entries.len() == self.entries.capacity()
                && self.run as usize - self.heap_len() >= self.entries.len() / 2
            {
                // Full, at least half of it free: make room rather than grow (`O(1)` a push
                // amortised, each entry moved once per half of the vector served).
                self.compact();
            }
            self.entries.push(entry);
            return;
        }
        let position = self.heap_len();
        if position < self.run as usize {
            self.entries[position] = entry;
        } else if run_empty {
            self.entries.push(entry);
            self.run += 1;
        } else {
            // No free slot: the run moves up by one.
            self.entries.insert(position, entry);
            self.run += 1;
        }
        self.set_heap_len(position + 1);
        sift_up::<_, 2>(&mut self.entries[..=position], 0, position);
    }

    /// Takes the first entry in the host's order out.
    pub(super) fn pop(&mut self) -> Option<PageEntry> {
        let heap = self.heap_len();
        let from_heap = match (heap > 0, self.entries.get(self.run as usize)) {
            (true, Some(first)) => self.entries[0] > *first,
            (true, None) => true,
            (false, Some(_)) => false,
            (false, None) => return None,
        };
        let entry = if from_heap {
            let last = heap - 1;
            self.entries.swap(0, last);
            let entry = self.entries[last];
            self.set_heap_len(last);
            sift_down_to_bottom::<_, 2>(&mut self.entries[..last], 0);
            if self.run as usize == self.entries.len() {
                // No run: the slot is not free but past the end.
                self.entries.truncate(last);
                self.run = last as u32;
            }
            entry
        } else {
            let entry = self.entries[self.run as usize];
            self.run += 1;
            if self.run as usize == self.entries.len() {
                self.entries.truncate(self.heap_len());
                self.run = self.heap_len() as u32;
            }
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

    /// Drops the free slots between the heap and the run.
    fn compact(&mut self) {
        let heap = self.heap_len();
        if (self.run as usize) > heap {
            self.entries.drain(heap..self.run as usize);
            self.run = heap as u32;
        }
    }

    /// Keys every entry of the heap again but the marked ones (their key stands, see the
    /// module docs; the run holds only such entries): `rekey` gives an entry's new key and
    /// whether its page was fetched, or `None` for a stale entry (dropped). Returns whether one
    /// is of a page fetched before.
    pub(super) fn rekey(&mut self, mut rekey: impl FnMut(&PageEntry) -> Option<(f64, bool)>) -> bool {
        let heap = self.heap_len();
        let mut has_fetched = false;
        let mut kept = 0;
        for index in 0..heap {
            let mut entry = self.entries[index];
            if entry.generation & NEVER_FETCHED == 0 {
                match rekey(&entry) {
                    Some((key, fetched)) => {
                        entry.key = key;
                        has_fetched |= fetched;
                    }
                    None => continue,
                }
            }
            self.entries[kept] = entry;
            kept += 1;
        }
        // The slots of dropped entries are free now (between the heap and the run), or past
        // the end without a run.
        if self.run as usize == self.entries.len() {
            self.entries.truncate(kept);
            self.run = kept as u32;
        }
        self.set_heap_len(kept);
        heapify::<_, 2>(&mut self.entries[..kept]);
        has_fetched
    }

    pub(super) fn clear(&mut self) {
        self.entries.clear();
        self.heap = 0;
        self.run = 0;
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
            prop_assert_eq!(backlog.heap_len(), 0, "a bulk in order is a run");
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
        // A page fetched since, keyed later: it waits in the heap (the run moved up by one for
        // it, no slot being free), the run stays one.
        backlog.push(PageEntry { key: 3.0, page: 5, generation: 1 }, false);
        assert_eq!((backlog.heap_len(), backlog.run), (1, 1));
        for page in 0..1_000 {
            assert_eq!(backlog.pop().map(|entry| entry.page), Some(page));
            assert_eq!(backlog.heap_len(), 1);
        }
        assert_eq!(backlog.pop().map(|entry| entry.page), Some(5));
        assert!(backlog.pop().is_none() && backlog.capacity() <= 16);
    }
}
