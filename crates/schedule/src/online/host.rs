//! Per-host state: politeness slot, emergent threshold `λ_i`, and the queue of its pages.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use freshet_policy::Objective;

use super::Politeness;
use super::keys::due_time;
use super::page::{PageEntry, PageSlot};

/// The live head of a host's queue, with a copy of its page's slot (from the host record's
/// cache or from the page vector: the same values either way).
#[derive(Clone, Copy, Debug)]
pub(super) struct HeadView {
    /// Its key in the host's queue.
    pub(super) key: f64,
    pub(super) page: u32,
    /// The page's weight, change rate, last fetch (or add time) and fetched-once flag (from
    /// the cache, its host and generation fields are not the page's: only the formulas of
    /// `keys.rs` read it).
    pub(super) slot: PageSlot,
}

/// Weight of the latest fetch in the host's `λ_i` (an exponential moving average over about
/// this many fetches' inverse).
const HOST_LAMBDA_SMOOTHING: f64 = 1.0 / 16.0;

/// A fall of the host threshold past this fraction re-keys the host's queue when it next
/// surfaces, paid for or not (its keys are late then). It was 25%, for rises too; at 25% for
/// falls alone, keys stayed late through the fall of `λ_0` after a first crawl of 10^7 pages
/// (the fetch rate fell from 0.772 to 0.745 of the budget there, the expected freshness from
/// 0.9826 to 0.9810 of the optimum); at 10% it is 0.777 and 0.9830 (BENCHMARKS.md, "Online
/// scheduler").
const LARGE_DRIFT: f64 = 0.1;

/// How many heads a host re-keys one by one before it re-keys its whole queue.
const HEAD_REFRESHES: u32 = 16;

/// One host.
///
/// 128 bytes, aligned to 128: a look at a host (every `next`/`fetched` pair looks at several, in
/// no order) reads one aligned pair of cache lines, which the adjacent-line prefetcher fetches
/// together, instead of up to three lines for a record straddling them.
#[derive(Clone, Debug, Default)]
#[repr(align(128))]
pub(super) struct HostState {
    pub(super) present: bool,
    /// The politeness gap between two starts (`Politeness::gap`).
    pub(super) gap: f64,
    /// Its pages (not in flight), earliest key first; may hold stale entries. Changed only
    /// through the methods below, which keep the head cache (`head_*`) true.
    queue: BinaryHeap<PageEntry>,
    /// Pages of the host that are present (in flight or queued).
    pub(super) live_pages: u32,
    /// Its fetches in flight: at most the scheduler's `host_slots` (one by default, at most
    /// `u16::MAX`).
    pub(super) in_flight: u16,
    /// Start of the latest fetch (`-∞` before the first).
    pub(super) last_start: f64,
    /// Earliest start allowed by the gap and any back-off (the slot is also closed while in
    /// flight).
    pub(super) free_at: f64,
    /// `λ_i`: moving average of `max(0, V − λ_0)` of the pages the host served.
    pub(super) lambda: f64,
    /// The threshold its queue keys were computed with at the last rebuild.
    pub(super) keyed_threshold: f64,
    /// Key of its live entry in the global queue (`∞` when it has none).
    pub(super) ready_key: f64,
    /// Generation of its live entry in the global queue.
    pub(super) generation: u32,
    /// Fetches started on the host (saturating: 4·10^9 are 136 years at one a second).
    pub(super) fetches: u32,
    /// Pages pushed on its queue since the last re-keying.
    pub(super) pushes_since_rekey: u32,
    /// The largest `V(∞)` of a page keyed `∞` (worth less than the threshold at any age): once
    /// the threshold falls below it, that page's key is wrong, so the pages keyed `∞` are
    /// keyed again (`reveal_hidden`).
    pub(super) hidden_ceiling: f64,
    /// Cache of the queue's live head (the entry `head` returns) and of its page's slot, so that
    /// a look at a host whose queue and head page have not changed since the last look reads
    /// this record only, not the queue's buffer and then the page's slot (two dependent cache
    /// misses: most of a look's cost, BENCHMARKS.md "Online scheduler"). Valid while
    /// `head_weight != 0` (weights are positive normal numbers). Forgotten whenever the queue
    /// loses its head or is re-keyed, and by the scheduler when the head page is removed;
    /// replaced when a pushed entry goes before it.
    head_key: f64,
    /// The head page's last fetch (or add time).
    head_last: f64,
    head_page: u32,
    /// The head page's weight; negative for a page never fetched; 0 while nothing is cached.
    head_weight: f32,
    head_change_rate: f32,
}

impl HostState {
    pub(super) fn new(politeness: Politeness) -> Self {
        Self {
            present: true,
            gap: politeness.gap(),
            last_start: f64::NEG_INFINITY,
            free_at: f64::NEG_INFINITY,
            ready_key: f64::INFINITY,
            ..Self::default()
        }
    }

    /// Changes the politeness; the next start still respects the new gap from the last one.
    pub(super) fn set_politeness(&mut self, politeness: Politeness) {
        let gap = politeness.gap();
        self.gap = gap;
        let earliest = self.last_start + gap;
        let earliest = if earliest - self.last_start < gap {
            earliest + earliest.abs() * f64::EPSILON
        } else {
            earliest
        };
        self.free_at = self.free_at.max(earliest);
    }

    /// The live entry at the head of the queue, dropping stale ones on the way: from the cache
    /// when it holds one, else from the queue and the page vector (then cached).
    pub(super) fn head(&mut self, pages: &[PageSlot]) -> Option<HeadView> {
        if let Some(cached) = self.cached_head() {
            return Some(cached);
        }
        while let Some(entry) = self.queue.peek().copied() {
            match pages.get(entry.page as usize) {
                Some(slot) if slot.is_live(&entry) => {
                    self.remember_head(&entry, slot);
                    return Some(HeadView { key: entry.key, page: entry.page, slot: *slot });
                }
                _ => {
                    self.queue.pop();
                }
            }
        }
        None
    }

    /// The cached head, if one is cached.
    fn cached_head(&self) -> Option<HeadView> {
        if self.head_weight == 0.0 {
            return None;
        }
        let slot = PageSlot::detached(
            self.head_weight.abs(),
            self.head_change_rate,
            self.head_last,
            self.head_weight > 0.0,
        );
        Some(HeadView { key: self.head_key, page: self.head_page, slot })
    }

    fn remember_head(&mut self, entry: &PageEntry, slot: &PageSlot) {
        self.head_key = entry.key;
        self.head_page = entry.page;
        self.head_last = slot.last;
        self.head_change_rate = slot.change_rate;
        self.head_weight = if slot.was_fetched() { slot.weight } else { -slot.weight };
    }

    /// Drops the head cache (the next `head` reads the queue).
    pub(super) fn forget_head(&mut self) {
        self.head_weight = 0.0;
    }

    /// Drops the head cache if it holds `page` (a page removed or changed).
    pub(super) fn forget_head_if(&mut self, page: u32) {
        if self.head_page == page {
            self.forget_head();
        }
    }

    /// Pushes `entry` (of the page in `slot`) on the queue. The cache follows: the new entry is
    /// the head if it goes before the cached one; a new entry of the cached head's page makes
    /// the cached entry stale.
    pub(super) fn push(&mut self, entry: PageEntry, slot: &PageSlot) {
        let cached = self.head_weight != 0.0;
        if cached && entry.key.total_cmp(&self.head_key).then(entry.page.cmp(&self.head_page)).is_lt() {
            self.remember_head(&entry, slot);
        } else if entry.page == self.head_page {
            self.forget_head();
        }
        self.queue.push(entry);
    }

    /// Pops the queue's head (the one `head` returned).
    pub(super) fn pop_head(&mut self) {
        self.queue.pop();
        self.forget_head();
    }

    /// The queue's entries (live and stale), in no order.
    pub(super) fn queued(&self) -> impl Iterator<Item = &PageEntry> {
        self.queue.iter()
    }

    /// Bytes held by the queue's buffer.
    pub(super) fn queue_capacity(&self) -> usize {
        self.queue.capacity()
    }

    /// The live head of the queue with its key fresh under `threshold`: a head keyed under a
    /// lower threshold than now is due later than its key says (or never, when its `V(∞)` is
    /// below `threshold`), so it is pushed back with its fresh key and the next head looked at,
    /// up to `HEAD_REFRESHES` times, after which the whole queue is re-keyed. Without this, a
    /// head keyed `ε` below its `V(∞)` parks a host whose other pages are due, and a head keyed
    /// early holds back pages that are due before it. `O(log n_i)` per stale head. Also returns
    /// the head's due time under `threshold` (computed anyway: callers whose eligibility
    /// threshold is the same, a host with `λ_i = 0`, save a Lambert W evaluation).
    pub(super) fn fresh_head<O: Objective>(
        &mut self,
        objective: O,
        pages: &[PageSlot],
        threshold: f64,
    ) -> Option<FreshHead> {
        for _ in 0..HEAD_REFRESHES {
            let head = self.head(pages)?;
            let fresh = due_time(objective, &head.slot, threshold);
            if fresh <= head.key {
                return Some(FreshHead { head, due: fresh, rekeyed: false });
            }
            // The head is the queue's top entry: its key moves later in place (a sift down).
            // If it stays on top (a host whose other pages are due later still), it stays
            // cached with its new key: the page's slot is not read again.
            self.forget_head();
            let mut moved = None;
            if let Some(mut top) = self.queue.peek_mut() {
                top.key = fresh;
                moved = Some(*top);
            }
            if let (Some(moved), Some(top)) = (moved, self.queue.peek())
                && top.page == moved.page
                && top.generation == moved.generation
            {
                let top = *top;
                self.remember_head(&top, &head.slot);
            }
            if fresh == f64::INFINITY {
                self.hidden_ceiling = self.hidden_ceiling.max(objective.marginal_at_zero(head.slot.page()));
            }
        }
        self.rekey(objective, pages, threshold);
        let head = self.head(pages)?;
        // Re-keyed under `threshold`: every key is its page's due time under it.
        Some(FreshHead { head, due: head.key, rekeyed: true })
    }

    /// Folds a served page's value into `λ_i`.
    pub(super) fn record_service(&mut self, value: f64, lambda0: f64) {
        let excess = (value - lambda0).max(0.0);
        self.lambda += HOST_LAMBDA_SMOOTHING * (excess - self.lambda);
    }

    /// Recomputes every live key with `threshold` and drops stale entries: `O(n_i)`.
    pub(super) fn rekey<O: Objective>(&mut self, objective: O, pages: &[PageSlot], threshold: f64) {
        self.recompute_keys(objective, pages, threshold, false);
        self.keyed_threshold = threshold;
        self.pushes_since_rekey = 0;
    }

    /// Recomputes the keys with `threshold` (only those now `∞` if `hidden_only`), drops the
    /// stale entries among them, and sets `hidden_ceiling` from the pages still keyed `∞`.
    fn recompute_keys<O: Objective>(
        &mut self,
        objective: O,
        pages: &[PageSlot],
        threshold: f64,
        hidden_only: bool,
    ) {
        self.forget_head();
        let mut entries = std::mem::take(&mut self.queue).into_vec();
        let mut hidden_ceiling = 0.0_f64;
        entries.retain_mut(|entry| {
            if hidden_only && entry.key != f64::INFINITY {
                return true;
            }
            match pages.get(entry.page as usize) {
                Some(slot) if slot.is_live(entry) => {
                    entry.key = due_time(objective, slot, threshold);
                    if entry.key == f64::INFINITY {
                        hidden_ceiling = hidden_ceiling.max(objective.marginal_at_zero(slot.page()));
                    }
                    true
                }
                _ => false,
            }
        });
        self.hidden_ceiling = hidden_ceiling;
        self.queue = BinaryHeap::from(entries);
    }

    /// Brings the queue's keys up to date before a look under `threshold`: the whole queue is
    /// re-keyed if `needs_rekey` says so, else the pages keyed `∞` are keyed again if the
    /// threshold fell below the `V(∞)` of one of them. Returns whether the whole queue was
    /// re-keyed.
    pub(super) fn refresh_keys<O: Objective>(
        &mut self,
        objective: O,
        pages: &[PageSlot],
        threshold: f64,
    ) -> bool {
        if self.needs_rekey(threshold, super::scheduler::REKEY_TOLERANCE) {
            self.rekey(objective, pages, threshold);
            true
        } else {
            if threshold < self.hidden_ceiling {
                self.reveal_hidden(objective, pages, threshold);
            }
            false
        }
    }

    /// Keys again, under `threshold`, the pages keyed `∞` (their `V(∞)` was below the threshold
    /// they were keyed under), and drops the stale ones among them; the other keys stay. A pass
    /// over the queue's buffer (sequential), reading the page slots of the hidden pages only, and
    /// a heapify: `O(n_i)` but far cheaper than `rekey`, which reads every page's slot and
    /// inverts every page's value curve. The threshold crosses the `V(∞)` of hidden pages often:
    /// after a first crawl at 10^7 pages (13% of the pages are worth nothing at `λ_0`, and
    /// `λ_0` falls by a tenth), 0.14 per `next`/`fetched` pair, each a full re-keying of a
    /// 100-page queue (BENCHMARKS.md, "Online scheduler").
    pub(super) fn reveal_hidden<O: Objective>(&mut self, objective: O, pages: &[PageSlot], threshold: f64) {
        self.recompute_keys(objective, pages, threshold, true);
    }

    /// True when the threshold drifted past `tolerance` from the one the keys were computed with,
    /// and enough pages were pushed since the last re-keying to pay for another (`O(1)`
    /// amortised per push); or fell past `LARGE_DRIFT` below it: then keys are late (a page is
    /// due before its key says, and a host whose head is not due may hold pages that are), so
    /// pay nothing back, until it is re-keyed. A threshold that rose leaves keys early instead:
    /// `fresh_head` pushes each early head back to its fresh key before the host is judged, so
    /// the head it returns is the page due first (keys computed under a lower threshold are at
    /// or before their pages' due times now, and at or after the head's), at `O(log n_i)` per page instead of `O(n_i)`
    /// per drift. Re-keying on a large rise too (the first version) re-keyed 3·10^6 queues of
    /// 100 pages in the first crawl of 10^7 pages, where each host's `λ_i` climbs fetch by fetch
    /// (BENCHMARKS.md, "Online scheduler"). `λ_0` moves that far only in transients.
    pub(super) fn needs_rekey(&self, threshold: f64, tolerance: f64) -> bool {
        let ratio = threshold / self.keyed_threshold;
        let paid = 2 * self.pushes_since_rekey as usize >= self.live_pages as usize;
        ((ratio - 1.0).abs() > tolerance && paid) || ratio < 1.0 - LARGE_DRIFT || self.needs_compaction()
    }

    /// True when stale entries outnumber live ones enough to be worth a sweep.
    pub(super) fn needs_compaction(&self) -> bool {
        self.queue.len() > 2 * self.live_pages as usize + 16
    }
}

/// What [`HostState::fresh_head`] finds: the live head, its due time under the threshold asked
/// for, and whether the whole queue was re-keyed on the way.
#[derive(Clone, Copy, Debug)]
pub(super) struct FreshHead {
    pub(super) head: HeadView,
    pub(super) due: f64,
    pub(super) rekeyed: bool,
}

/// A host that may serve within one token interval, waiting for a budget token: tokens go to the
/// host whose head page is worth most (seed 003 serves pages in order of crawl value), not to
/// the one that surfaced first.
#[derive(Clone, Copy, Debug)]
pub(super) struct Contender {
    /// The crawl value of its head page when it may serve (or now, if later).
    pub(super) value: f64,
    /// When it may serve: its slot is open and its head page is worth `λ_0`.
    pub(super) ready_at: f64,
    pub(super) host: u32,
    pub(super) generation: u32,
}

impl PartialEq for Contender {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Contender {}

impl PartialOrd for Contender {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Contender {
    /// The highest value first, then the earliest ready, then the lowest host.
    fn cmp(&self, other: &Self) -> Ordering {
        self.value
            .total_cmp(&other.value)
            .then(other.ready_at.total_cmp(&self.ready_at))
            .then(other.host.cmp(&self.host))
    }
}

/// A host none of whose pages is worth a fetch while `λ_0 ≥ level` (its best page's `V(∞)`).
#[derive(Clone, Copy, Debug)]
pub(super) struct ParkedHost {
    pub(super) level: f64,
    pub(super) host: u32,
    pub(super) generation: u32,
}

impl PartialEq for ParkedHost {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for ParkedHost {}

impl PartialOrd for ParkedHost {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ParkedHost {
    /// The highest level first (`BinaryHeap` is a max-heap).
    fn cmp(&self, other: &Self) -> Ordering {
        self.level.total_cmp(&other.level).then(other.host.cmp(&self.host))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use proptest::prelude::*;

    use freshet_policy::Objective;
    use freshet_policy::objective::Freshness;

    use super::HostState;
    use crate::online::keys::due_time;
    use crate::online::page::{PageEntry, PageSlot};
    use crate::online::{Budget, Decision, HostId, Outcome, PageId, Politeness, Scheduler};

    /// What the driver does at one step.
    #[derive(Clone, Debug)]
    enum Operation {
        Add {
            page: u32,
            host: u32,
            weight: u16,
            rate: u16,
        },
        Update {
            page: u32,
            weight: u16,
            rate: u16,
        },
        Remove(u32),
        /// `next`, and `fetched` at once for a fetch it starts (with a back-off when true).
        Step(bool),
        Advance(u8),
    }

    fn operation() -> impl Strategy<Value = Operation> {
        prop_oneof![
            3 => (0..48_u32, 0..4_u32, 1..1000_u16, 1..1000_u16)
                .prop_map(|(page, host, weight, rate)| Operation::Add { page, host, weight, rate }),
            1 => (0..48_u32, 1..1000_u16, 1..1000_u16)
                .prop_map(|(page, weight, rate)| Operation::Update { page, weight, rate }),
            1 => (0..48_u32).prop_map(Operation::Remove),
            6 => any::<bool>().prop_map(Operation::Step),
            2 => any::<u8>().prop_map(Operation::Advance),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// The head a host record caches is, after any sequence of verbs, the head its queue and
        /// the page vector give (the cache changes no decision).
        #[test]
        fn the_cached_head_is_the_queue_head(operations in proptest::collection::vec(operation(), 0..300)) {
            let mut scheduler = Scheduler::freshness(Budget::new(2.0)).unwrap();
            for host in 0..4 {
                scheduler.set_host(HostId(host), Politeness::rate(1.0 + f64::from(host))).unwrap();
            }
            let mut now = 0.0;
            let mut in_flight: Vec<PageId> = Vec::new();
            for operation in operations {
                match operation {
                    Operation::Add { page, host, weight, rate } => {
                        let _ = scheduler.add(PageId(page), HostId(host), f64::from(weight), f64::from(rate) / 100.0, now);
                    }
                    Operation::Update { page, weight, rate } => {
                        let _ = scheduler.update(PageId(page), f64::from(weight), f64::from(rate) / 100.0);
                    }
                    Operation::Remove(page) => {
                        let _ = scheduler.remove(PageId(page));
                    }
                    Operation::Step(back_off) => {
                        if let Decision::Fetch { page, .. } = scheduler.next(now) {
                            in_flight.push(page);
                        }
                        if let Some(page) = in_flight.pop() {
                            let outcome =
                                if back_off { Outcome::BackOff { retry_after: 0.5 } } else { Outcome::Fetched };
                            scheduler.fetched(page, outcome, now).unwrap();
                        }
                    }
                    Operation::Advance(step) => now += f64::from(step) / 64.0,
                }
                for host in &scheduler.hosts {
                    if let Some(cached) = host.cached_head() {
                        let mut uncached = host.clone();
                        uncached.forget_head();
                        let expected = uncached.head(&scheduler.pages);
                        prop_assert!(expected.is_some(), "a head is cached for an empty queue");
                        if let Some(expected) = expected {
                            let slot = &scheduler.pages[expected.page as usize];
                            prop_assert_eq!(cached.page, expected.page);
                            prop_assert_eq!(cached.key.to_bits(), expected.key.to_bits());
                            prop_assert_eq!(cached.slot.weight, slot.weight);
                            prop_assert_eq!(cached.slot.change_rate, slot.change_rate);
                            prop_assert_eq!(cached.slot.last.to_bits(), slot.last.to_bits());
                            prop_assert_eq!(cached.slot.was_fetched(), slot.was_fetched());
                        }
                    }
                }
            }
        }
    }

    /// A page of a generated host: weight, change rate, last fetch (`None`: never fetched).
    type GeneratedPage = (f32, f32, Option<f64>);

    fn generated_pages() -> impl Strategy<Value = Vec<GeneratedPage>> {
        proptest::collection::vec(
            (0.1_f32..10.0, 0.01_f32..1.0, proptest::option::weighted(0.8, -50.0_f64..0.0)),
            1..60,
        )
    }

    /// The generated pages in a page vector, and a host holding them all, keyed under
    /// `threshold`.
    fn keyed_host(generated: &[GeneratedPage], threshold: f64) -> (HostState, Vec<PageSlot>) {
        let mut host = HostState::new(Politeness::default());
        let mut pages = Vec::new();
        for (index, &(weight, change_rate, last)) in generated.iter().enumerate() {
            let mut slot = PageSlot::new(weight, change_rate, -60.0, 0, 1);
            if let Some(last) = last {
                slot.mark_fetched(last);
            }
            pages.push(slot);
            let key = due_time(Freshness, &slot, threshold);
            host.push(PageEntry { key, page: index as u32, generation: slot.generation() }, &slot);
            host.live_pages += 1;
        }
        host.rekey(Freshness, &pages, threshold);
        (host, pages)
    }

    proptest! {
        /// Revealing the hidden pages under a lower threshold keys them as a re-key would, keeps
        /// every other key, and leaves the ceiling of the pages still hidden.
        #[test]
        fn revealing_keys_the_hidden_pages_as_a_rekey_would(
            generated in generated_pages(),
            threshold in 0.05_f64..50.0,
            fall in 0.3_f64..1.0,
        ) {
            let (mut host, pages) = keyed_host(&generated, threshold);
            let lower = threshold * fall;
            host.reveal_hidden(Freshness, &pages, lower);
            let mut seen = vec![false; pages.len()];
            let mut ceiling = 0.0_f64;
            for entry in host.queued() {
                let slot = &pages[entry.page as usize];
                let before = due_time(Freshness, slot, threshold);
                let expected = if before == f64::INFINITY { due_time(Freshness, slot, lower) } else { before };
                prop_assert_eq!(entry.key.to_bits(), expected.to_bits(), "page {}", entry.page);
                if entry.key == f64::INFINITY {
                    ceiling = ceiling.max(Freshness.marginal_at_zero(slot.page()));
                }
                prop_assert!(!seen[entry.page as usize], "page {} twice", entry.page);
                seen[entry.page as usize] = true;
            }
            prop_assert!(seen.iter().all(|&present| present), "a page was lost");
            prop_assert_eq!(host.hidden_ceiling.to_bits(), ceiling.to_bits());
            // And the heap order holds: the head is the smallest key.
            let smallest = host.queued().map(|entry| entry.key).fold(f64::INFINITY, f64::min);
            let head = host.head(&pages).map(|head| head.key);
            prop_assert_eq!(head.map(f64::to_bits), Some(smallest.to_bits()));
        }

        /// After the threshold rose, with no re-key, the head `fresh_head` returns is a page due
        /// first under the new threshold (keys computed under a lower one are early).
        #[test]
        fn after_a_rise_the_fresh_head_is_due_first(
            generated in generated_pages(),
            threshold in 0.05_f64..50.0,
            rise in 1.0_f64..4.0,
        ) {
            let (mut host, pages) = keyed_host(&generated, threshold);
            let higher = threshold * rise;
            let earliest = pages
                .iter()
                .map(|slot| due_time(Freshness, slot, higher))
                .fold(f64::INFINITY, f64::min);
            match host.fresh_head(Freshness, &pages, higher) {
                Some(fresh) => {
                    let due = due_time(Freshness, &pages[fresh.head.page as usize], higher);
                    prop_assert_eq!(due.to_bits(), earliest.to_bits());
                    prop_assert_eq!(fresh.due.to_bits(), earliest.to_bits());
                }
                None => prop_assert!(false, "no head"),
            }
        }
    }

    #[test]
    fn a_host_is_one_aligned_pair_of_cache_lines() {
        assert_eq!(size_of::<HostState>(), 128);
        assert_eq!(align_of::<HostState>(), 128);
    }
}
