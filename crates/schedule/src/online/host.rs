//! Per-host state: the politeness slot, the emergent threshold `λ_i`, and the host's eligible
//! pages (those whose crawl value has reached `λ_0`) while they wait for its slot.

use std::cmp::Ordering;

use freshet_policy::Objective;

use super::Politeness;
use super::backlog::Backlog;
use super::keys::due_time;
use super::page::{PageEntry, PageSlot};

/// Weight of the latest fetch in the host's `λ_i` (an exponential moving average over about
/// this many fetches' inverse).
const HOST_LAMBDA_SMOOTHING: f64 = 1.0 / 16.0;

/// One host.
///
/// A host holds only its *eligible* pages (value at least `λ_0`); the others wait in the
/// scheduler's calendar. Among them it serves, whenever its slot opens, the one that reaches
/// its threshold `λ_0 + λ_i` first (the smallest key, then the lowest page id): the page of
/// highest crawl value for pages with equal `(w, λ)` (their curves are ordered by age, seed
/// 003_aad34b8e7abe1f9a.txt) and close to it otherwise. That page is its *offer*, in the
/// scheduler's ready queue while the slot is open; the others wait in `backlog`.
#[derive(Clone, Debug, Default)]
pub(super) struct HostState {
    pub(super) present: bool,
    /// The politeness gap between two starts (`Politeness::gap`).
    pub(super) gap: f64,
    /// Pages of the host that are present (in flight, queued or eligible).
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
    /// Fetches started on the host (saturating: 4·10^9 are 136 years at one a second).
    pub(super) fetches: u32,
    /// The page it offers now (its best eligible page, in the ready queue), if any.
    pub(super) offer: Option<PageEntry>,
    /// Its other eligible pages, keyed under `keyed_threshold`, smallest key first; may hold
    /// stale entries (dropped when they surface). Its flag `has_fetched()`: whether it may hold an
    /// entry of a page fetched before: only such a page's key depends on the threshold (a page
    /// never fetched is keyed at its add time, [`host_key`]), so without one
    /// [`HostState::refresh_keys`] has nothing to recompute.
    backlog: Backlog,
    /// The host threshold the backlog's keys were computed with.
    pub(super) keyed_threshold: f64,
    /// The time under which it waits in the scheduler's timer queue (`∞`: it does not).
    pub(super) timer_at: f64,
}

impl HostState {
    pub(super) fn new(politeness: Politeness) -> Self {
        Self {
            present: true,
            gap: politeness.gap(),
            last_start: f64::NEG_INFINITY,
            free_at: f64::NEG_INFINITY,
            timer_at: f64::INFINITY,
            ..Self::default()
        }
    }

    /// Changes the politeness; the next start still respects the new gap from the last one.
    pub(super) fn set_politeness(&mut self, politeness: Politeness) {
        let gap = politeness.gap();
        self.gap = gap;
        self.free_at = self.free_at.max(earliest_after(self.last_start, gap));
    }

    /// Whether it may start a fetch at `now` with at most `slots` in flight.
    pub(super) fn can_start(&self, now: f64, slots: u32) -> bool {
        self.present && u32::from(self.in_flight) < slots && self.free_at <= now
    }

    /// Its threshold `λ_0 + λ_i`.
    pub(super) fn threshold(&self, lambda0: f64) -> f64 {
        lambda0 + self.lambda
    }

    /// Folds the value of a page it serves into `λ_i`.
    pub(super) fn record_service(&mut self, value: f64, lambda0: f64) {
        let excess = (value - lambda0).max(0.0);
        self.lambda += HOST_LAMBDA_SMOOTHING * (excess - self.lambda);
    }

    /// Takes its offer out with its key in the host's order, computed now if the offer was made
    /// without competition (`UNKEYED`, a NaN key).
    pub(super) fn take_offer_keyed<O: Objective>(
        &mut self,
        objective: O,
        pages: &[PageSlot],
    ) -> Option<PageEntry> {
        let mut offer = self.offer.take()?;
        if offer.key.is_nan() {
            offer.key = pages
                .get(offer.page as usize)
                .map_or(f64::INFINITY, |slot| host_key(objective, slot, self.keyed_threshold));
        }
        Some(offer)
    }

    /// Queues `entry` in the backlog; `maybe_fetched`: unless its page is known never to have
    /// been fetched.
    #[inline]
    pub(super) fn push_backlog(&mut self, entry: PageEntry, maybe_fetched: bool) {
        if self.fetches == 0 && self.backlog.capacity() == 0 {
            // A host's first crawl: its pages (but the one it offers) may all come here at once;
            // room for them in one allocation, where the vector's doublings copied and faulted
            // in 160 MB at 10^7 pages, a quarter of the bench's first `next` (BENCHMARKS.md,
            // "Online scheduler").
            self.backlog.reserve_exact(self.live_pages.saturating_sub(1) as usize);
        }
        if maybe_fetched {
            self.backlog.set_has_fetched(true);
        }
        self.backlog.push(entry, !maybe_fetched);
    }

    /// The key of the backlog's last entry in memory (where the next push goes), to load it
    /// ahead.
    #[inline]
    pub(super) fn backlog_end_key(&self) -> Option<f64> {
        self.backlog.end_key()
    }

    /// The backlog's first entry in its order, live or stale.
    #[inline]
    pub(super) fn backlog_top(&self) -> Option<PageEntry> {
        self.backlog.peek()
    }

    /// The best live entry of the backlog, taken out (stale ones dropped on the way).
    pub(super) fn pop_backlog(&mut self, pages: &[PageSlot]) -> Option<PageEntry> {
        while let Some(entry) = self.backlog.pop() {
            if pages.get(entry.page as usize).is_some_and(|slot| slot.is_live(&entry)) {
                return Some(entry);
            }
        }
        None
    }

    #[inline]
    pub(super) fn backlog_is_empty(&self) -> bool {
        self.backlog.is_empty()
    }

    /// The backlog's entries, in no order (stale ones included).
    pub(super) fn backlog(&self) -> impl Iterator<Item = PageEntry> {
        self.backlog.iter()
    }

    pub(super) fn backlog_capacity(&self) -> usize {
        self.backlog.capacity()
    }

    /// Recomputes the backlog's keys (and the offer's) under `threshold` if it moved by more
    /// than `tolerance` (relative) since they were computed, dropping stale entries: `O(backlog)`
    /// if the backlog may hold a page fetched before, else `O(1)`. Returns whether it passed
    /// over the backlog.
    pub(super) fn refresh_keys<O: Objective>(
        &mut self,
        objective: O,
        pages: &[PageSlot],
        threshold: f64,
        tolerance: f64,
    ) -> bool {
        if self.backlog.is_empty() && self.offer.is_none() {
            self.keyed_threshold = threshold;
            return false;
        }
        if (threshold - self.keyed_threshold).abs() <= tolerance * self.keyed_threshold.abs() {
            return false;
        }
        let rekeyed = self.backlog.has_fetched();
        if rekeyed {
            // Each live entry keyed again; stale ones dropped on the way.
            let has_fetched = self.backlog.rekey(|entry| match pages.get(entry.page as usize) {
                Some(slot) if slot.is_live(entry) => {
                    Some((host_key(objective, slot, threshold), slot.was_fetched()))
                }
                _ => None,
            });
            self.backlog.set_has_fetched(has_fetched);
        }
        // Without a fetched page in the backlog its keys stand as they are: the pass above
        // would compute the same ones, and the stale entries it drops are dropped when they
        // surface. A first crawl, where a host's `λ_i` moves with every page it serves and its
        // backlog holds pages never fetched, passed over the whole backlog again and again
        // (BENCHMARKS.md, "Online scheduler").
        if let Some(offer) = &mut self.offer
            && let Some(slot) = pages.get(offer.page as usize)
        {
            offer.key = host_key(objective, slot, threshold);
        }
        self.keyed_threshold = threshold;
        rekeyed
    }

    /// Forgets its eligible pages (a rebuild queues every page again).
    pub(super) fn clear_eligible(&mut self) {
        self.backlog.clear();
        self.offer = None;
        self.timer_at = f64::INFINITY;
    }
}

/// A page's key in its host's order under the host threshold `threshold`: when its value
/// reaches the threshold (`last + τ*`). A page never fetched is keyed at its add time whatever
/// the threshold: it is eligible (its `V(∞)` reached `λ_0`, or it would not be here), its value
/// is its `V(∞)` already, and keyed `∞` under a host threshold above its `V(∞)` (a host whose
/// `λ_i` grew while it served its first crawl) it would wait behind every page fetched before,
/// worth less than it.
pub(super) fn host_key<O: Objective>(objective: O, slot: &PageSlot, threshold: f64) -> f64 {
    if slot.was_fetched() { due_time(objective, slot, threshold) } else { slot.last }
}

/// `start + gap`, rounded up so that `result − start ≥ gap` holds in floating point too.
pub(super) fn earliest_after(start: f64, gap: f64) -> f64 {
    let sum = start + gap;
    if sum - start < gap { sum + sum.abs() * f64::EPSILON } else { sum }
}

/// A page offered by its free host, in the ready queue, ordered by its crawl value when
/// offered (seed 003: tokens go to the pages worth most).
#[derive(Clone, Copy, Debug)]
pub(super) struct ReadyEntry {
    /// The value as an integer in `f64::total_cmp`'s order ([`total_order_key`]): the ready
    /// queue compares entries a few times per level of each sift, and the float comparison
    /// (`total_cmp`, then the page) was a call of ~25 instructions (BENCHMARKS.md, "Online
    /// scheduler"); the value is read back exactly ([`ReadyEntry::value`]).
    rank: i64,
    /// The clock at which the value was computed: an offer taken at that same clock (the usual
    /// case: a page surfaces, is offered and takes the token in one `next`) is worth that value
    /// still, and its value is not computed a second time (`Scheduler::still_worth_it`).
    pub(super) valued_at: f64,
    pub(super) page: u32,
    pub(super) generation: u32,
    pub(super) host: u32,
}

impl ReadyEntry {
    pub(super) fn new(value: f64, valued_at: f64, page: u32, generation: u32, host: u32) -> Self {
        Self { rank: total_order_key(value), valued_at, page, generation, host }
    }

    /// The crawl value it was offered at (or last re-ranked at).
    pub(super) fn value(&self) -> f64 {
        f64::from_bits(total_order_key_inverse(self.rank))
    }

    /// Values it again: `value` at `valued_at`.
    pub(super) fn set_value(&mut self, value: f64, valued_at: f64) {
        self.rank = total_order_key(value);
        self.valued_at = valued_at;
    }

    /// The key it is ordered by: the greater value, then the lower page, first.
    #[inline]
    fn order(&self) -> (i64, u32) {
        (self.rank, u32::MAX - self.page)
    }
}

/// `value`'s bits as an integer whose order is `f64::total_cmp`'s (the same transformation).
fn total_order_key(value: f64) -> i64 {
    let bits = value.to_bits() as i64;
    bits ^ (((bits >> 63) as u64) >> 1) as i64
}

/// The bits of the `f64` whose [`total_order_key`] is `key` (the transformation is its own
/// inverse: it keeps the sign bit, which decides it).
fn total_order_key_inverse(key: i64) -> u64 {
    (key ^ (((key >> 63) as u64) >> 1) as i64) as u64
}

impl PartialEq for ReadyEntry {
    fn eq(&self, other: &Self) -> bool {
        self.order() == other.order()
    }
}

impl Eq for ReadyEntry {}

impl PartialOrd for ReadyEntry {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }

    #[inline]
    fn lt(&self, other: &Self) -> bool {
        self.order() < other.order()
    }

    #[inline]
    fn le(&self, other: &Self) -> bool {
        self.order() <= other.order()
    }

    #[inline]
    fn gt(&self, other: &Self) -> bool {
        self.order() > other.order()
    }

    #[inline]
    fn ge(&self, other: &Self) -> bool {
        self.order() >= other.order()
    }
}

impl Ord for ReadyEntry {
    /// The highest value first, then the lowest page (`f64::total_cmp` on the values).
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        self.order().cmp(&other.order())
    }
}

/// A page whose `V(∞)` is below the threshold it was keyed under: it waits, by `V(∞)`, for
/// `λ_0` to fall below that.
#[derive(Clone, Copy, Debug)]
pub(super) struct HiddenPage {
    pub(super) level: f64,
    pub(super) page: u32,
    pub(super) generation: u32,
}

impl PartialEq for HiddenPage {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for HiddenPage {}

impl PartialOrd for HiddenPage {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for HiddenPage {
    /// The highest `V(∞)` first, then the lowest page.
    fn cmp(&self, other: &Self) -> Ordering {
        self.level.total_cmp(&other.level).then(other.page.cmp(&self.page))
    }
}

/// A host waiting for its slot to open at `at`, earliest first; stale if the host's `timer_at`
/// is no longer `at`.
#[derive(Clone, Copy, Debug)]
pub(super) struct TimerEntry {
    pub(super) at: f64,
    pub(super) host: u32,
}

impl PartialEq for TimerEntry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for TimerEntry {}

impl PartialOrd for TimerEntry {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for TimerEntry {
    /// Reversed, so that `BinaryHeap` yields the earliest time, then the lowest host.
    fn cmp(&self, other: &Self) -> Ordering {
        other.at.total_cmp(&self.at).then(other.host.cmp(&self.host))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::ReadyEntry;

    fn any_value() -> impl Strategy<Value = f64> {
        prop_oneof![
            any::<f64>(),
            Just(0.0),
            Just(-0.0),
            Just(f64::INFINITY),
            Just(f64::NEG_INFINITY),
            Just(f64::NAN),
            -1.0..1.0_f64,
        ]
    }

    proptest! {
        /// Entries are ordered as by `value.total_cmp`, then the lower page first, and keep
        /// their value bit for bit.
        #[test]
        fn ready_entries_order_as_total_cmp_then_page(
            (a, b) in (any_value(), any_value()),
            (page_a, page_b) in (0..4_u32, 0..4_u32),
        ) {
            let (x, y) = (ReadyEntry::new(a, 0.0, page_a, 0, 0), ReadyEntry::new(b, 0.0, page_b, 0, 0));
            prop_assert_eq!(x.value().to_bits(), a.to_bits());
            let expected = a.total_cmp(&b).then(page_b.cmp(&page_a));
            prop_assert_eq!(x.cmp(&y), expected);
            prop_assert_eq!(x < y, expected.is_lt());
            prop_assert_eq!(x <= y, expected.is_le());
            prop_assert_eq!(x > y, expected.is_gt());
            prop_assert_eq!(x >= y, expected.is_ge());
            prop_assert_eq!(x == y, expected.is_eq());
        }
    }
}
