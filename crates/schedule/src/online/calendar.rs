//! The calendar queue of pages not yet worth a fetch, keyed by the time their crawl value
//! reaches `λ_0` (R. Brown, "Calendar queues", CACM 31(10), 1988, with a far level of epochs
//! as in hierarchical timing wheels).
//!
//! Time is cut into buckets of a fixed width (a few token intervals `1/k_0`, so that a bucket
//! holds a few entries). The bucket of a key is `⌊key / width⌋`; `2^NEAR_BITS` buckets make an
//! *epoch*. Three levels:
//! - the **near ring**: one vector per bucket of the current epoch;
//! - the **coarse ring**: one vector per epoch for the next [`COARSE`] epochs; when an epoch
//!   begins, its vector is spread over the near ring (read front to back);
//! - the **overflow**: keys further out, spread again whenever the coarse ring turns.
//!
//! A push appends to the end of one of a few thousand vectors; a pop of the next bucket reads it
//! front to back. The binary heap at the 10^5-host scale that the scheduler used before cost a
//! cache miss per level of every sift (`BENCHMARKS.md`, "Online scheduler"). Entries of the
//! buckets up to the cursor are handed out in a batch ([`Calendar::advance`]) so that the
//! caller can read their pages' slots one after another, with their cache misses overlapping,
//! and then wait in `due`, a small queue by key (`due.rs`), until the clock reaches them.
//!
//! The queue neither knows nor checks whether an entry is stale: the scheduler drops entries
//! whose generation is not their page's.

use std::collections::BinaryHeap;

use super::due::DueQueue;
use super::page::PageEntry;

/// Buckets per epoch: `2^NEAR_BITS`.
const NEAR_BITS: u32 = 14;
const NEAR: usize = 1 << NEAR_BITS;
/// Epochs in the coarse ring.
const COARSE: usize = 1 << 12;
/// Buckets as far out as a key may go (`±2^62`), so that bucket arithmetic never overflows.
const BUCKET_LIMIT: f64 = 4.6e18;
/// Entries' room a near bucket keeps for its next epoch once emptied; one whose buffer grew
/// past it (a burst of pages due at one time) gives the buffer back. Each of the `NEAR` buckets
/// otherwise keeps the most it ever held: a few entries each, ~3.5 MB once the cursor has swept
/// the ring (heaptrack of a revisiting crawl, BENCHMARKS.md "Memory over a 21-minute revisiting
/// crawl"), but a burst's buffer for ever.
const BUCKET_KEPT: usize = 64;

/// See the module docs.
#[derive(Clone, Debug)]
pub(super) struct Calendar {
    /// Time per bucket (positive).
    width: f64,
    /// The latest bucket handed out: entries of buckets up to it are in `due` or `fresh`.
    cursor: i64,
    near: Vec<Vec<PageEntry>>,
    /// Entries in the near ring.
    near_len: usize,
    coarse: Vec<Vec<PageEntry>>,
    /// Entries in the coarse ring.
    coarse_len: usize,
    overflow: Vec<PageEntry>,
    /// Entries of buckets up to the cursor, earliest key first.
    due: DueQueue,
    /// Entries handed out by `advance` and not yet given to `due` (see [`Calendar::settle_fresh`]).
    fresh: Vec<PageEntry>,
}

impl Calendar {
    /// An empty queue whose buckets are `width` long, its cursor at the bucket of `now`.
    pub(super) fn new(width: f64, now: f64) -> Self {
        let width = if width.is_finite() && width > 0.0 { width } else { 1.0 };
        let mut calendar = Self {
            width,
            cursor: 0,
            near: (0..NEAR).map(|_| Vec::new()).collect(),
            near_len: 0,
            coarse: (0..COARSE).map(|_| Vec::new()).collect(),
            coarse_len: 0,
            overflow: Vec::new(),
            due: DueQueue::default(),
            fresh: Vec::new(),
        };
        calendar.cursor = calendar.bucket(now);
        calendar
    }

    /// Empties the queue and puts its cursor at the bucket of `now`, keeping its vectors'
    /// capacity for the entries that come back.
    pub(super) fn reset(&mut self, now: f64) {
        self.near.iter_mut().for_each(Vec::clear);
        self.coarse.iter_mut().for_each(Vec::clear);
        self.overflow.clear();
        self.due.clear();
        self.fresh.clear();
        self.near_len = 0;
        self.coarse_len = 0;
        self.cursor = self.bucket(now);
    }

    fn bucket(&self, key: f64) -> i64 {
        let quotient = key / self.width;
        if quotient.is_nan() {
            return i64::MAX / 2;
        }
        // Saturating: keys beyond ±2^62 buckets share the last one (their order is kept by `due`).
        let quotient = quotient.clamp(-BUCKET_LIMIT, BUCKET_LIMIT);
        // `⌊quotient⌋` by truncation, one down for a negative non-integer: `f64::floor` is a
        // call into the runtime's `floor` on this target (no SSE4.1), ~100 instructions a pair.
        let truncated = quotient as i64;
        if truncated as f64 > quotient { truncated - 1 } else { truncated }
    }

    /// Queues `entry` under its key.
    pub(super) fn push(&mut self, entry: PageEntry) {
        let bucket = self.bucket(entry.key);
        if bucket <= self.cursor {
            self.due.push(entry);
            return;
        }
        let epoch = bucket >> NEAR_BITS;
        let current = self.cursor >> NEAR_BITS;
        if epoch == current {
            self.near[index(bucket, NEAR)].push(entry);
            self.near_len += 1;
        } else if epoch - current < COARSE as i64 {
            push_compact(&mut self.coarse[index(epoch, COARSE)], entry);
            self.coarse_len += 1;
        } else {
            push_compact(&mut self.overflow, entry);
        }
    }

    /// Moves the cursor to the bucket of `now`, handing the entries of the buckets passed to
    /// `fresh` (then [`settle_fresh`](Self::settle_fresh)). Empty epochs are skipped whole.
    pub(super) fn advance(&mut self, now: f64) {
        let target = self.bucket(now);
        while self.cursor < target {
            if self.near_len == 0 {
                // Nothing left in this epoch: jump to the last bucket before the next one (or
                // to the target).
                let epoch_end = ((self.cursor >> NEAR_BITS) + 1) << NEAR_BITS;
                if target < epoch_end {
                    self.cursor = target;
                    return;
                }
                self.cursor = epoch_end - 1;
                if self.coarse_len == 0 && target - self.cursor > (COARSE as i64) << NEAR_BITS {
                    // Far past everything in the rings: spread the overflow again from the
                    // target's epoch.
                    self.cursor = (target >> NEAR_BITS << NEAR_BITS) - 1;
                    self.respread_overflow();
                }
            }
            self.cursor += 1;
            if self.cursor & (NEAR as i64 - 1) == 0 {
                self.enter_epoch();
            }
            let bucket = &mut self.near[index(self.cursor, NEAR)];
            self.near_len -= bucket.len();
            self.fresh.append(bucket);
            if bucket.capacity() > BUCKET_KEPT {
                *bucket = Vec::new();
            }
        }
    }

    /// The entries `advance` handed out, for the caller to look at (and read their pages) in
    /// one pass; then [`settle_fresh`](Self::settle_fresh) queues them by key.
    pub(super) fn fresh(&self) -> &[PageEntry] {
        &self.fresh
    }

    /// Queues the entries handed out by key, in `due`.
    pub(super) fn settle_fresh(&mut self) {
        for entry in self.fresh.drain(..) {
            self.due.push(entry);
        }
    }

    /// The cursor has just entered a new epoch: spread its coarse vector over the near ring
    /// (and, once per turn of the coarse ring, the overflow over both rings).
    fn enter_epoch(&mut self) {
        let epoch = self.cursor >> NEAR_BITS;
        if index(epoch, COARSE) == 0 {
            self.respread_overflow();
        }
        let moving = std::mem::take(&mut self.coarse[index(epoch, COARSE)]);
        self.coarse_len -= moving.len();
        for entry in moving {
            let bucket = self.bucket(entry.key);
            if bucket <= self.cursor {
                self.fresh.push(entry);
            } else {
                self.near[index(bucket, NEAR)].push(entry);
                self.near_len += 1;
            }
        }
    }

    fn respread_overflow(&mut self) {
        for entry in std::mem::take(&mut self.overflow) {
            let bucket = self.bucket(entry.key);
            if bucket <= self.cursor {
                self.fresh.push(entry);
            } else {
                self.push(entry);
            }
        }
    }

    /// Whether `due` holds a run of entries in order (a bulk: a first crawl, a rebuild).
    #[inline]
    pub(super) fn in_bulk(&self) -> bool {
        self.due.has_run()
    }

    /// Entries `due` will hand out next in a bulk (see [`DueQueue::run_ahead`]).
    pub(super) fn due_run_ahead(&self, count: usize) -> impl Iterator<Item = &PageEntry> {
        self.due.run_ahead(count)
    }

    /// The entry due first if its key is at or before `now`.
    pub(super) fn pop_due(&mut self, now: f64) -> Option<PageEntry> {
        self.due.pop_until(now)
    }

    /// A time at or before the earliest key queued, if any: the first key in `due`, else the
    /// start of the first non-empty bucket or epoch, else the earliest key of the overflow.
    pub(super) fn next_time(&self) -> Option<f64> {
        if let Some(entry) = self.due.peek() {
            return Some(entry.key);
        }
        if self.near_len > 0 {
            let epoch_end = ((self.cursor >> NEAR_BITS) + 1) << NEAR_BITS;
            let first =
                (self.cursor + 1..epoch_end).find(|&bucket| !self.near[index(bucket, NEAR)].is_empty());
            return first.map(|bucket| bucket as f64 * self.width);
        }
        if self.coarse_len > 0 {
            let current = self.cursor >> NEAR_BITS;
            let first = (current + 1..current + COARSE as i64)
                .find(|&epoch| !self.coarse[index(epoch, COARSE)].is_empty());
            return first.map(|epoch| (epoch << NEAR_BITS) as f64 * self.width);
        }
        self.overflow.iter().map(|entry| entry.key).min_by(f64::total_cmp)
    }

    /// Entries queued (stale ones included).
    pub(super) fn len(&self) -> usize {
        self.due.len() + self.fresh.len() + self.near_len + self.coarse_len + self.overflow.len()
    }

    /// Keeps only the entries `keep` accepts (the scheduler drops stale ones).
    pub(super) fn retain(&mut self, mut keep: impl FnMut(&PageEntry) -> bool) {
        for bucket in &mut self.near {
            bucket.retain(&mut keep);
        }
        for epoch in &mut self.coarse {
            epoch.retain(&mut keep);
        }
        self.near_len = self.near.iter().map(Vec::len).sum();
        self.coarse_len = self.coarse.iter().map(Vec::len).sum();
        self.overflow.retain(&mut keep);
        self.fresh.retain(&mut keep);
        self.due.retain(&mut keep);
    }

    /// The entries keyed at or before `now`, in no order (what `advance(now)` would hand out,
    /// and the entries already due): only the buckets up to `now`'s are read.
    pub(super) fn entries_until(&self, now: f64) -> impl Iterator<Item = &PageEntry> {
        let target = self.bucket(now);
        let epoch_end = ((self.cursor >> NEAR_BITS) + 1) << NEAR_BITS;
        let near_end = target.min(epoch_end - 1);
        let near = (self.cursor + 1..=near_end).flat_map(move |bucket| &self.near[index(bucket, NEAR)]);
        let current = self.cursor >> NEAR_BITS;
        let coarse_end = (target >> NEAR_BITS).min(current + COARSE as i64 - 1);
        let coarse = (current + 1..=coarse_end).flat_map(move |epoch| &self.coarse[index(epoch, COARSE)]);
        self.due
            .iter()
            .chain(&self.fresh)
            .chain(near)
            .chain(coarse)
            // The overflow holds keys past the coarse ring of the cursor at their push, which
            // may be near now: read whole (it is spread again once per turn of the ring).
            .chain(&self.overflow)
            .filter(move |entry| entry.key <= now)
    }

    /// Every entry queued, in no order.
    #[cfg(test)]
    pub(super) fn entries(&self) -> impl Iterator<Item = &PageEntry> {
        self.due
            .iter()
            .chain(&self.fresh)
            .chain(self.near.iter().flatten())
            .chain(self.coarse.iter().flatten())
            .chain(&self.overflow)
    }

    pub(super) fn allocated_bytes(&self) -> usize {
        let vectors: usize = self.near.iter().chain(&self.coarse).map(Vec::capacity).sum::<usize>()
            + self.overflow.capacity()
            + self.due.capacity()
            + self.fresh.capacity();
        vectors * size_of::<PageEntry>() + (NEAR + COARSE) * size_of::<Vec<PageEntry>>()
    }
}

/// Appends, growing a full vector by a quarter rather than doubling it: the coarse vectors and
/// the overflow hold most pages' entries, and doubling left a third of their memory unused on
/// average (allocated bytes per page above the 64 at 10^7 pages, `benches/online.rs`);
/// growth stays geometric, so a push is still `O(1)` amortised.
fn push_compact(vector: &mut Vec<PageEntry>, entry: PageEntry) {
    if vector.len() == vector.capacity() {
        vector.reserve_exact((vector.len() / 4).max(16));
    }
    vector.push(entry);
}

/// Gives back most of a heap's buffer once it holds under a quarter of its capacity (at least
/// 4,096 entries' worth): after a first crawl, every page passed through `due` (16 bytes a
/// page at 10^7 pages) and a host's backlog, and their buffers would otherwise stay at that
/// peak.
pub(super) fn shrink_if_sparse<T: Ord>(heap: &mut BinaryHeap<T>) {
    let capacity = heap.capacity();
    if capacity > SHRINK_FLOOR && heap.len() < capacity / 4 {
        heap.shrink_to(capacity / 2);
    }
}

/// Heaps of at most this many entries' capacity are never shrunk.
pub(super) const SHRINK_FLOOR: usize = 4_096;

/// The ring index of a bucket or epoch (`ring` a power of two; negative numbers wrap too).
fn index(position: i64, ring: usize) -> usize {
    (position as usize) & (ring - 1)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn drain_until(calendar: &mut Calendar, now: f64, out: &mut Vec<(f64, u32)>) {
        calendar.advance(now);
        calendar.settle_fresh();
        while let Some(entry) = calendar.pop_due(now) {
            out.push((entry.key, entry.page));
        }
    }

    #[test]
    fn an_emptied_bucket_keeps_a_small_buffer_and_gives_a_burst_back() {
        let mut calendar = Calendar::new(1.0, 0.0);
        let bytes_empty = calendar.allocated_bytes();
        for page in 0..3 {
            calendar.push(PageEntry { key: 5.5, page, generation: 0 });
        }
        for page in 0..1000 {
            calendar.push(PageEntry { key: 9.5, page, generation: 0 });
        }
        let burst = calendar.allocated_bytes() - bytes_empty;
        assert!(burst >= 1003 * size_of::<PageEntry>(), "{burst}");
        let mut out = Vec::new();
        drain_until(&mut calendar, 20.0, &mut out);
        assert_eq!(out.len(), 1003);
        // The three-entry bucket's buffer stays for its next epoch; the burst's is freed (the
        // entries now sit in `due`'s and `fresh`'s buffers, counted apart).
        assert_eq!(calendar.near[index(5, NEAR)].capacity(), 4);
        assert_eq!(calendar.near[index(9, NEAR)].capacity(), 0);
    }

    proptest! {
        /// Whatever the keys (near, far, beyond the coarse ring, in the past) and however the
        /// clock moves, every entry comes out once, in key order, when the clock reaches it,
        /// and `next_time` never lies past the earliest key.
        #[test]
        fn entries_come_out_in_key_order_when_their_time_comes(
            keys in proptest::collection::vec(prop_oneof![
                0.0..10.0_f64,
                0.0..1.0e4_f64,
                -5.0..0.0_f64,
                1.0e6..1.0e9_f64,
            ], 1..300),
            steps in proptest::collection::vec(prop_oneof![0.0..0.01_f64, 0.0..50.0, 0.0..1.0e8], 1..60),
            width in prop_oneof![Just(1.0e-3), Just(0.37), Just(64.0)],
        ) {
            let mut calendar = Calendar::new(width, 0.0);
            for (page, &key) in keys.iter().enumerate() {
                calendar.push(PageEntry { key, page: page as u32, generation: 0 });
            }
            let mut out = Vec::new();
            let mut now = 0.0;
            for step in steps.iter().chain(std::iter::once(&2.0e9)) {
                let earliest = keys.iter().enumerate()
                    .filter(|(page, _)| !out.iter().any(|&(_, done)| done == *page as u32))
                    .map(|(_, &key)| key).min_by(f64::total_cmp);
                if let Some(earliest) = earliest {
                    let hint = calendar.next_time();
                    prop_assert!(hint.is_some_and(|hint| hint <= earliest), "{hint:?} > {earliest}");
                }
                now += step;
                let mut until: Vec<u32> = calendar.entries_until(now).map(|entry| entry.page).collect();
                let mut expected: Vec<u32> =
                    calendar.entries().filter(|entry| entry.key <= now).map(|entry| entry.page).collect();
                until.sort_unstable();
                expected.sort_unstable();
                prop_assert_eq!(until, expected);
                let before = out.len();
                drain_until(&mut calendar, now, &mut out);
                for &(key, _) in &out[before..] {
                    prop_assert!(key <= now);
                }
                prop_assert_eq!(calendar.len(), keys.len() - out.len());
            }
            let mut expected: Vec<(f64, u32)> =
                keys.iter().enumerate().map(|(page, &key)| (key, page as u32)).collect();
            expected.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let mut sorted = out.clone();
            sorted.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            prop_assert_eq!(&sorted, &expected);
            // Handed out in key order, across drains too (a drain at `now` hands out no key
            // after `now`, and every later key waits for a later drain).
            for pair in out.windows(2) {
                prop_assert!(pair[0].0 <= pair[1].0, "{:?}", pair);
            }
        }
    }

    #[test]
    fn a_key_pushed_behind_the_cursor_is_due_at_once() {
        let mut calendar = Calendar::new(1.0, 100.0);
        calendar.push(PageEntry { key: 3.0, page: 7, generation: 0 });
        assert_eq!(calendar.pop_due(100.0).map(|entry| entry.page), Some(7));
    }
}
