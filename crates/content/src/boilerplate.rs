//! Host boilerplate: text blocks repeated across a host's pages (a site name, a copyright
//! line, a "subscribe" box) are the template, not what a page says.
//!
//! [`HostBoilerplate`] counts, per block hash, on how many of the host's pages the block was
//! seen; a block seen on at least [`BoilerplateConfig::min_pages`] pages **and** on at least
//! [`BoilerplateConfig::min_fraction`] of the pages learned is boilerplate. This is seed
//! `004_e0cda6b04941d422.txt`'s advice for near-duplicate detection ("eliminating very common
//! shingles — common headers, footers, etc."), applied per host and per block.
//!
//! Memory is bounded with the Space-Saving algorithm (Metwally, Agrawal & El Abbadi,
//! "Efficient computation of frequent and top-k elements in data streams", ICDT 2005): a new
//! hash in a full table evicts the least counted entry (ties: the smallest hash, for
//! determinism) and inherits its count `c_min` + 1 with an error bound `c_min`. Each entry's
//! `count − error` is then a lower bound on its true page count, and the decision uses that
//! bound, so an evicted-and-readmitted block is never taken for boilerplate on inherited
//! counts. Space-Saving keeps every block whose true count exceeds `N / k`, `k` the entries
//! held and `N` the blocks counted (each page's distinct blocks, summed over the pages), and no
//! entry's error exceeds `N / k`; a template block, counted from the host's first pages on, is
//! never the least counted and keeps an exact count.
//!
//! How many entries a table holds, `k`, follows from that bound and the host's pages: with `B`
//! the most distinct blocks a page of the host had, `N ≤ B · P` over `P` pages, so
//! `k = 2 B / min_fraction` keeps every block on more than half the fraction of the pages that
//! makes boilerplate, with an error of at most half that fraction. That, rounded up to a power
//! of two (the map's buckets are then twice its entries: half full, where evictions leave empty
//! buckets rather than tombstones, and it does not grow), at least
//! [`BoilerplateConfig::min_capacity`] and at most [`BoilerplateConfig::capacity`], is the
//! table's [`capacity`](HostBoilerplate::capacity); it grows as larger pages come. Pages hold
//! ~20 blocks (the static site's 21.5 on average, a sample of the Rust docs' 19: BENCHMARKS.md),
//! so most hosts' tables stop at the floor, 128 entries, ~9 KiB, where a table of the ceiling's
//! 2,048 entries takes ~117 KiB: at 10^5 hosts, ~0.9 GB instead of ~12 GB.
//!
//! A caution for callers: the table changes as it learns, so a block can become boilerplate
//! between two fetches of a page, and the page's signature then changes once although the page
//! did not. Learning a host's pages before comparing (the crawler sees a host's pages in its
//! first crawl cycle), or [`BoilerplateConfig::min_pages`] high enough that the set settles,
//! keeps this rare.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use nohash_hasher::BuildNoHashHasher;

use crate::text::MainText;

/// When a block counts as boilerplate, and how much the table remembers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoilerplateConfig {
    /// Most block hashes kept (Space-Saving entries); default 2,048. A full table holds about
    /// 120 KiB ([`HostBoilerplate::allocated_bytes`]): the map ~68 KiB (4,096 buckets of 16
    /// bytes and a control byte each: at half load, the removals of evicted entries leave
    /// empty buckets, not tombstones, and the map does not grow) and the heap of `(count,
    /// hash)` pairs, stale pairs included, up to one and a half times the entries (~49 KiB). A
    /// table is per host: at the former default of 4,096 a full one held ~250 KiB (heaptrack
    /// on the 100,000-page test web, BENCHMARKS.md "Crawl throughput"), 2.5 GB for 10^4 large
    /// hosts. The ceiling of a table's [`capacity`](HostBoilerplate::capacity), which follows
    /// the host's pages (module docs).
    pub capacity: usize,
    /// The floor of a table's [`capacity`](HostBoilerplate::capacity); default 128 (~9 KiB
    /// full).
    pub min_capacity: usize,
    /// Fewest pages a block must be seen on; default 5: on fewer pages, a shared block is as
    /// likely a coincidence (two pages quoting the same sentence) as a template.
    pub min_pages: u32,
    /// Least fraction of the learned pages a block must be seen on; default 0.5: a block on
    /// half of a host's pages is the template's, not a page's.
    pub min_fraction: f64,
}

impl Default for BoilerplateConfig {
    fn default() -> Self {
        Self { capacity: 2048, min_capacity: 128, min_pages: 5, min_fraction: 0.5 }
    }
}

/// A Space-Saving entry: `count` pages counted, of which up to `error` were inherited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    count: u32,
    error: u32,
}

/// Per-host counts of text blocks over the host's pages; see the module docs.
#[derive(Debug, Clone)]
pub struct HostBoilerplate {
    config: BoilerplateConfig,
    pages: u32,
    /// The most distinct blocks one learned page had: what the capacity follows.
    largest_page: usize,
    /// Entries held at most now ([`HostBoilerplate::capacity`]).
    capacity: usize,
    /// Keyed by block hash, hashed to itself (`nohash_hasher`): the keys are already xxh3-64,
    /// uniform, and SipHash over them again was most of the table's instructions. A site that
    /// made its blocks' hashes collide on purpose would slow only its own host's table, which
    /// holds at most [`BoilerplateConfig::capacity`] entries.
    entries: HashMap<u64, Entry, BuildNoHashHasher<u64>>,
    /// A min-heap of `(count, hash)` holding every entry's current pair, and stale pairs
    /// (an entry's earlier counts, evicted entries) that [`HostBoilerplate::pop_least`] skips.
    /// An ordered set kept exact (`BTreeSet`, a removal and an insertion per count) cost more
    /// than the rest of a page's learning: ~2.6% of a static-site crawl's CPU, on the crawl's
    /// control task; pushes onto one array are cheaper, and the heap is rebuilt from
    /// `entries` when stale pairs outnumber live ones.
    by_count: BinaryHeap<Reverse<(u32, u64)>>,
}

impl Default for HostBoilerplate {
    fn default() -> Self {
        Self::new(BoilerplateConfig::default())
    }
}

impl HostBoilerplate {
    /// An empty table. A capacity of 0 is taken as 1, and a floor above the ceiling as the
    /// ceiling.
    #[must_use]
    pub fn new(config: BoilerplateConfig) -> Self {
        let capacity = config.capacity.max(1);
        let config =
            BoilerplateConfig { capacity, min_capacity: config.min_capacity.clamp(1, capacity), ..config };
        Self {
            config,
            pages: 0,
            largest_page: 0,
            capacity: config.min_capacity,
            entries: HashMap::default(),
            by_count: BinaryHeap::new(),
        }
    }

    /// Entries the table holds at most now: `2 B / min_fraction` for the most distinct blocks
    /// `B` a learned page had, rounded up to a power of two, within
    /// [`BoilerplateConfig::min_capacity`] and
    /// [`BoilerplateConfig::capacity`] (module docs). It only grows (a larger page raises it;
    /// nothing is evicted for it).
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The settings.
    #[must_use]
    pub fn config(&self) -> &BoilerplateConfig {
        &self.config
    }

    /// Counts one page of the host: each distinct block of `text` once.
    pub fn learn(&mut self, text: &MainText) {
        self.learn_hashes(text.blocks().iter().map(crate::TextBlock::hash));
    }

    /// Counts one page given by its block hashes (repeats within the page count once).
    pub fn learn_hashes(&mut self, block_hashes: impl IntoIterator<Item = u64>) {
        let mut hashes: Vec<u64> = block_hashes.into_iter().collect();
        hashes.sort_unstable();
        hashes.dedup();
        self.pages = self.pages.saturating_add(1);
        if hashes.len() > self.largest_page {
            self.largest_page = hashes.len();
            // A `min_fraction` of 0 (or not a number) needs every block: the ceiling.
            let wanted = 2.0 * hashes.len() as f64 / self.config.min_fraction;
            let wanted = if wanted.is_finite() { wanted.ceil() as usize } else { usize::MAX };
            let wanted = wanted.checked_next_power_of_two().unwrap_or(usize::MAX);
            self.capacity = self.capacity.max(wanted.clamp(self.config.min_capacity, self.config.capacity));
        }
        for hash in hashes {
            self.count(hash);
        }
    }

    fn count(&mut self, hash: u64) {
        if let Some(entry) = self.entries.get_mut(&hash) {
            entry.count = entry.count.saturating_add(1);
            let count = entry.count;
            self.push_pair(count, hash);
            return;
        }
        let mut entry = Entry { count: 1, error: 0 };
        if self.entries.len() >= self.capacity
            && let Some((least, evicted)) = self.pop_least()
        {
            self.entries.remove(&evicted);
            entry = Entry { count: least.saturating_add(1), error: least };
        }
        self.entries.insert(hash, entry);
        self.push_pair(entry.count, hash);
    }

    /// Records `(count, hash)`, an entry's new pair; rebuilds the heap from the entries when
    /// it holds more than one and a half times as many pairs as there are entries (and more
    /// than a few): a rebuild every half table's worth of pushes at least, `O(1)` amortised.
    fn push_pair(&mut self, count: u32, hash: u64) {
        let len = self.by_count.len();
        if len == self.by_count.capacity() {
            // Grow toward the most pairs the heap holds before a rebuild, not past it (a
            // doubling would leave up to a third of it unused).
            let most = self.capacity.saturating_add(self.capacity / 2).saturating_add(65);
            self.by_count.reserve_exact(len.max(8).min(most.saturating_sub(len)).max(1));
        }
        self.by_count.push(Reverse((count, hash)));
        if self.by_count.len() > self.entries.len() + self.entries.len() / 2 + 64 {
            // In place: the buffer keeps its size.
            let mut pairs = std::mem::take(&mut self.by_count).into_vec();
            pairs.clear();
            pairs.extend(self.entries.iter().map(|(&hash, entry)| Reverse((entry.count, hash))));
            self.by_count = BinaryHeap::from(pairs);
        }
    }

    /// The least `(count, hash)` of the entries (ties: the smallest hash), taken off the heap;
    /// stale pairs met on the way are dropped. A pair is live when its hash is held with that
    /// count; every entry's current pair is on the heap, so the first live pair is the least.
    fn pop_least(&mut self) -> Option<(u32, u64)> {
        while let Some(Reverse((count, hash))) = self.by_count.pop() {
            if self.entries.get(&hash).is_some_and(|entry| entry.count == count) {
                return Some((count, hash));
            }
        }
        None
    }

    /// Pages learned.
    #[must_use]
    pub fn pages(&self) -> u32 {
        self.pages
    }

    /// Block hashes held (at most the [`capacity`](Self::capacity)).
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Bytes the table holds on the heap, from its buffers' capacities: the map's buckets
    /// (a key, an entry and a control byte each; hashbrown keeps at most 7/8 of its buckets
    /// full) and the heap of pairs.
    #[must_use]
    pub fn allocated_bytes(&self) -> usize {
        let buckets = if self.entries.capacity() == 0 {
            0
        } else {
            (self.entries.capacity() * 8 / 7).next_power_of_two()
        };
        buckets * (size_of::<(u64, Entry)>() + 1)
            + self.by_count.capacity() * size_of::<Reverse<(u32, u64)>>()
    }

    /// Whether nothing was learned.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// A lower bound on the number of learned pages holding the block `hash` (exact while the
    /// table never evicted); 0 if not held.
    #[must_use]
    pub fn pages_with(&self, hash: u64) -> u32 {
        self.entries.get(&hash).map_or(0, |entry| entry.count - entry.error)
    }

    /// Whether the block `hash` is boilerplate: on at least `min_pages` pages and at least
    /// `min_fraction` of the pages learned (by the lower bound [`Self::pages_with`]).
    #[must_use]
    pub fn is_boilerplate(&self, hash: u64) -> bool {
        let seen = self.pages_with(hash);
        seen >= self.config.min_pages && f64::from(seen) >= self.config.min_fraction * f64::from(self.pages)
    }

    /// The block hashes that are boilerplate now: a copy to read on another thread (a fetch
    /// task computing its page's signature) while the table goes on learning. It may be out of
    /// date by the time it is read; [`BoilerplateSet::agrees_with`] tells, for a page's blocks.
    #[must_use]
    pub fn snapshot(&self) -> BoilerplateSet {
        let mut hashes: Vec<u64> =
            self.entries.keys().copied().filter(|&hash| self.is_boilerplate(hash)).collect();
        hashes.sort_unstable();
        BoilerplateSet { hashes }
    }
}

/// The boilerplate block hashes of a [`HostBoilerplate`] at one moment
/// ([`HostBoilerplate::snapshot`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BoilerplateSet {
    /// Sorted.
    hashes: Vec<u64>,
}

impl BoilerplateSet {
    /// Whether the block `hash` was boilerplate.
    #[must_use]
    pub fn contains(&self, hash: u64) -> bool {
        self.hashes.binary_search(&hash).is_ok()
    }

    /// Whether `table` says the same as this set about every block of `text`: then
    /// `Signature::of_text_without(text, |h| set.contains(h))` equals
    /// `Signature::of_text(text, Some(table))`.
    #[must_use]
    pub fn agrees_with(&self, table: &HostBoilerplate, text: &MainText) -> bool {
        text.blocks().iter().all(|block| self.contains(block.hash()) == table.is_boilerplate(block.hash()))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// Space-Saving as it was first written here: an exact ordered set of `(count, hash)`, a
    /// removal and an insertion per count. The reference for the heap with stale pairs.
    #[derive(Default)]
    struct Reference {
        pages: u32,
        entries: HashMap<u64, Entry>,
        by_count: BTreeSet<(u32, u64)>,
    }

    impl Reference {
        fn learn_hashes(&mut self, capacity: usize, block_hashes: &[u64]) {
            let mut hashes = block_hashes.to_vec();
            hashes.sort_unstable();
            hashes.dedup();
            self.pages += 1;
            for hash in hashes {
                if let Some(entry) = self.entries.get_mut(&hash) {
                    self.by_count.remove(&(entry.count, hash));
                    entry.count += 1;
                    self.by_count.insert((entry.count, hash));
                    continue;
                }
                let mut entry = Entry { count: 1, error: 0 };
                if self.entries.len() >= capacity
                    && let Some((least, evicted)) = self.by_count.pop_first()
                {
                    self.entries.remove(&evicted);
                    entry = Entry { count: least + 1, error: least };
                }
                self.entries.insert(hash, entry);
                self.by_count.insert((entry.count, hash));
            }
        }
    }

    /// A table's entries by hash, to compare two tables.
    fn sorted_entries<S>(entries: &HashMap<u64, Entry, S>) -> Vec<(u64, Entry)> {
        let mut held: Vec<(u64, Entry)> = entries.iter().map(|(&hash, &entry)| (hash, entry)).collect();
        held.sort_unstable_by_key(|&(hash, _)| hash);
        held
    }

    proptest::proptest! {
        /// The heap with stale pairs (and its rebuilds) keeps exactly the entries, counts and
        /// errors of the exact ordered set, page after page: the same evictions, ties
        /// included. Few distinct hashes and small tables, so that most pages evict.
        #[test]
        fn the_heap_counts_as_the_ordered_set(
            capacity in 1usize..12,
            pages in proptest::collection::vec(proptest::collection::vec(0u64..40, 0..10), 0..200),
        ) {
            // The floor at the ceiling: a table of one fixed capacity.
            let config = BoilerplateConfig { capacity, min_capacity: capacity, min_pages: 2, min_fraction: 0.1 };
            let mut table = HostBoilerplate::new(config);
            let mut reference = Reference::default();
            for page in &pages {
                table.learn_hashes(page.iter().copied());
                reference.learn_hashes(capacity, page);
                proptest::prop_assert_eq!(sorted_entries(&table.entries), sorted_entries(&reference.entries));
                proptest::prop_assert_eq!(table.pages(), reference.pages);
                proptest::prop_assert!(table.by_count.len() <= 2 * table.entries.len() + 64);
            }
        }

        /// The capacity that follows the pages: the same entries as the ordered set given, page
        /// by page, `2 B / min_fraction` rounded up to a power of two, within the floor and the
        /// ceiling (`B` the most distinct
        /// blocks a page so far had), computed here on its own; it never shrinks and never
        /// passes the ceiling.
        #[test]
        fn the_capacity_follows_the_largest_page(
            ceiling in 1usize..40,
            floor in 1usize..40,
            min_fraction in proptest::sample::select(vec![0.0, 0.25, 0.5, 1.0, 4.0]),
            pages in proptest::collection::vec(proptest::collection::vec(0u64..60, 0..12), 0..150),
        ) {
            let config = BoilerplateConfig { capacity: ceiling, min_capacity: floor, min_pages: 2, min_fraction };
            let mut table = HostBoilerplate::new(config);
            let mut reference = Reference::default();
            let (mut largest, mut capacity) = (0usize, floor.min(ceiling));
            for page in &pages {
                let mut distinct = page.clone();
                distinct.sort_unstable();
                distinct.dedup();
                if distinct.len() > largest {
                    largest = distinct.len();
                    let wanted = if min_fraction == 0.0 {
                        ceiling
                    } else {
                        (((2 * largest) as f64 / min_fraction).ceil() as usize).next_power_of_two()
                    };
                    capacity = capacity.max(wanted.clamp(floor.min(ceiling), ceiling));
                }
                let before = table.capacity();
                table.learn_hashes(page.iter().copied());
                reference.learn_hashes(capacity, page);
                proptest::prop_assert_eq!(table.capacity(), capacity);
                proptest::prop_assert!(before <= table.capacity() && table.capacity() <= ceiling);
                proptest::prop_assert!(table.len() <= capacity);
                proptest::prop_assert_eq!(sorted_entries(&table.entries), sorted_entries(&reference.entries));
            }
        }
    }

    #[test]
    fn a_block_on_enough_pages_is_boilerplate() {
        let mut table = HostBoilerplate::default();
        for page in 0..4u64 {
            table.learn_hashes([7, 100 + page, 7]);
        }
        assert_eq!(table.pages_with(7), 4, "repeats within a page count once");
        assert!(!table.is_boilerplate(7), "4 pages < min_pages 5");
        table.learn_hashes([7]);
        assert!(table.is_boilerplate(7));
        assert!(!table.is_boilerplate(100));
        // Fraction: 5 of 11 pages < 0.5.
        for page in 0..6u64 {
            table.learn_hashes([200 + page]);
        }
        assert_eq!(table.pages(), 11);
        assert!(!table.is_boilerplate(7));
    }

    #[test]
    fn a_full_table_evicts_the_least_counted_and_bounds_the_newcomer() {
        let config = BoilerplateConfig { capacity: 3, min_capacity: 3, min_pages: 2, min_fraction: 0.0 };
        let mut table = HostBoilerplate::new(config);
        table.learn_hashes([1, 2, 3]);
        table.learn_hashes([1, 2]);
        // 3 has the least count (1): hash 4 evicts it, counts 2 with error 1.
        table.learn_hashes([4]);
        assert_eq!(table.len(), 3);
        assert_eq!(table.pages_with(3), 0);
        assert_eq!(table.pages_with(4), 1);
        assert!(!table.is_boilerplate(4), "inherited counts are not evidence");
        table.learn_hashes([4]);
        assert_eq!(table.pages_with(4), 2);
        assert!(table.is_boilerplate(4));
        assert!(table.is_boilerplate(1));
    }

    #[test]
    fn template_blocks_survive_a_stream_of_unique_blocks_in_a_small_table() {
        // 1,000 pages of 20 unique blocks each churn through 64 entries; the two template
        // blocks (on every page) are never the least counted once counted twice, so they stay,
        // with exact counts, while the table never grows past its capacity.
        let config = BoilerplateConfig { capacity: 64, ..BoilerplateConfig::default() };
        let mut table = HostBoilerplate::new(config);
        for page in 0..1000u64 {
            let unique = (0..20).map(|k| 1_000_000 + page * 20 + k);
            table.learn_hashes(unique.chain([1, 2]));
            assert!(table.len() <= 64);
        }
        assert_eq!(table.pages(), 1000);
        assert_eq!(table.pages_with(1), 1000);
        assert_eq!(table.pages_with(2), 1000);
        assert!(table.is_boilerplate(1) && table.is_boilerplate(2));
        assert!(!table.is_boilerplate(1_000_000 + 999 * 20));
    }

    /// `pages` pages of `unique` blocks each (never seen again) and a template of three through
    /// a table at the defaults: its entries at the end and the most bytes it held.
    fn stream_through_a_default_table(pages: u64, unique: u64) -> (HostBoilerplate, usize) {
        let mut table = HostBoilerplate::default();
        let mut largest = 0;
        for page in 0..pages {
            let blocks = (0..unique).map(|k| 0x9E37_79B9_7F4A_7C15_u64.wrapping_mul(1 + page * unique + k));
            table.learn_hashes(blocks.chain([1, 2, 3]));
            largest = largest.max(table.allocated_bytes());
        }
        assert!(table.is_boilerplate(1) && table.is_boilerplate(2) && table.is_boilerplate(3));
        assert_eq!(table.pages_with(3), pages as u32);
        (table, largest)
    }

    #[test]
    fn a_full_table_at_the_defaults_stays_within_its_documented_size() {
        // Pages of 33 blocks (the usual ~20, and more): 2 · 33 / 0.5 = 132, so 256 entries,
        // 60,000 evictions through them; the map (512 buckets) and the heap of pairs stay
        // within ~16 KiB. At the floor (pages of up to 32 blocks), half that.
        let (table, largest) = stream_through_a_default_table(2000, 30);
        assert_eq!((table.capacity(), table.len()), (256, 256));
        assert!(largest <= 16 * 1024, "the table took {largest} bytes");
        let (table, largest) = stream_through_a_default_table(2000, 20);
        assert_eq!((table.capacity(), table.len()), (128, 128));
        assert!(largest <= 9 * 1024, "the table took {largest} bytes");
        // Pages of 1,003 blocks reach the ceiling, 2,048 entries: the map must not grow past
        // 4,096 buckets (no tombstones piling up) nor the heap past one and a half times the
        // entries.
        let (table, largest) = stream_through_a_default_table(60, 1000);
        assert_eq!((table.capacity(), table.len()), (2048, 2048));
        assert!(largest <= 125 * 1024, "the table took {largest} bytes");
    }

    #[test]
    fn small_pages_keep_the_floor_and_a_larger_page_raises_the_capacity() {
        let mut table = HostBoilerplate::default();
        assert_eq!(table.capacity(), 128);
        table.learn_hashes(0..20);
        assert_eq!(table.capacity(), 128, "2 · 20 / 0.5 = 80, under the floor");
        table.learn_hashes(100..200);
        assert_eq!(table.capacity(), 512, "2 · 100 / 0.5 = 400, rounded up");
        table.learn_hashes(1000..1010);
        assert_eq!(table.capacity(), 512, "a smaller page does not lower it");
        table.learn_hashes(0..5000);
        assert_eq!(table.capacity(), 2048, "the ceiling");
    }

    #[test]
    fn a_snapshot_holds_the_boilerplate_of_its_moment() {
        let mut table = HostBoilerplate::default();
        for page in 0..5u64 {
            table.learn_hashes([7, 8, 100 + page]);
        }
        let snapshot = table.snapshot();
        assert!(snapshot.contains(7) && snapshot.contains(8));
        assert!(!snapshot.contains(100) && !snapshot.contains(9));
        // Six pages without 8: it falls under half of the pages, the snapshot does not know.
        for page in 0..6u64 {
            table.learn_hashes([7, 200 + page]);
        }
        assert!(!table.is_boilerplate(8) && table.is_boilerplate(7));
        assert!(snapshot.contains(8));
        assert!(!table.snapshot().contains(8));
    }

    #[test]
    fn eviction_ties_go_to_the_smallest_hash() {
        let config = BoilerplateConfig { capacity: 2, ..BoilerplateConfig::default() };
        let mut table = HostBoilerplate::new(config);
        table.learn_hashes([9, 5]);
        table.learn_hashes([6]);
        assert_eq!(table.pages_with(5), 0);
        assert_eq!(table.pages_with(9), 1);
        assert_eq!(table.len(), 2);
    }
}
