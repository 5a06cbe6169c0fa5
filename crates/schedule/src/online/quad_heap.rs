//! The global host queue: an indexed 4-ary min-heap of hosts keyed by the earliest time each may
//! serve, at most one entry per host, with its key changed or removed in place.
//!
//! With 10^5 hosts the queue is beyond the L2 cache, and each `next`/`fetched` pair pops at least
//! one host: in `benches/online.rs` at 10^6 pages a binary heap's `pop` took 17% of the time,
//! nearly all of it in cache misses while sifting. Four children share one or two cache lines, so
//! a 4-ary heap sifts half as many levels. The first version (a plain 4-ary heap, commit
//! 58ea262) invalidated a host's entry by a generation counter and dropped it lazily, so the heap
//! held up to `2·hosts` entries and popped a stale one for about every live one; this one keeps
//! each host's position (`positions`, 4 bytes per host) and moves or removes its entry at once,
//! so it holds at most `hosts` entries and every pop is live. Written by hand: a few dozen lines,
//! not worth a dependency for this one queue. The order is total (key, then host id), so the
//! pop order is the one the lazy heap had for its live entries.

/// Children per node.
const ARITY: usize = 4;
/// `positions` value of a host with no entry.
const ABSENT: u32 = u32::MAX;

/// A host and the time it may serve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct HostEntry {
    pub(super) key: f64,
    pub(super) host: u32,
}

impl HostEntry {
    /// Earlier key first, then the lower host.
    #[inline]
    fn before(&self, other: &Self) -> bool {
        self.key.total_cmp(&other.key).then(self.host.cmp(&other.host)).is_lt()
    }
}

/// An indexed min-heap of [`HostEntry`], four children per node, one entry per host.
#[derive(Clone, Debug, Default)]
pub(super) struct HostQueue {
    items: Vec<HostEntry>,
    /// Index in `items` of each host's entry, `ABSENT` if none.
    positions: Vec<u32>,
}

impl HostQueue {
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.items.len()
    }

    /// Bytes held (capacities).
    pub(super) fn allocated_bytes(&self) -> usize {
        self.items.capacity() * size_of::<HostEntry>() + self.positions.capacity() * size_of::<u32>()
    }

    pub(super) fn clear(&mut self) {
        for entry in &self.items {
            if let Some(position) = self.positions.get_mut(entry.host as usize) {
                *position = ABSENT;
            }
        }
        self.items.clear();
    }

    /// The entry with the earliest key.
    pub(super) fn peek(&self) -> Option<HostEntry> {
        self.items.first().copied()
    }

    /// Removes and returns the entry with the earliest key.
    pub(super) fn pop(&mut self) -> Option<HostEntry> {
        let top = self.peek()?;
        self.remove_at(0);
        Some(top)
    }

    /// Whether `host` has an entry.
    #[cfg(test)]
    pub(super) fn contains(&self, host: u32) -> bool {
        self.positions.get(host as usize).is_some_and(|&position| position != ABSENT)
    }

    /// Gives `host` the key `key`: inserts its entry, or moves the one it has.
    pub(super) fn set(&mut self, host: u32, key: f64) {
        let entry = HostEntry { key, host };
        let index = host as usize;
        if self.positions.len() <= index {
            self.positions.resize(index + 1, ABSENT);
        }
        let position = self.positions[index];
        if position == ABSENT {
            let hole = self.items.len();
            self.items.push(entry);
            self.sift_up(hole, entry);
        } else {
            let hole = position as usize;
            let old = self.items[hole];
            if entry.before(&old) {
                self.sift_up(hole, entry);
            } else {
                self.sift_down(hole, entry);
            }
        }
    }

    /// Removes `host`'s entry, if it has one.
    pub(super) fn remove(&mut self, host: u32) {
        if let Some(&position) = self.positions.get(host as usize)
            && position != ABSENT
        {
            self.remove_at(position as usize);
        }
    }

    fn remove_at(&mut self, hole: usize) {
        let Some(removed) = self.items.get(hole).copied() else { return };
        self.positions[removed.host as usize] = ABSENT;
        let Some(last) = self.items.pop() else { return };
        if hole == self.items.len() {
            return;
        }
        if last.before(&removed) {
            self.sift_up(hole, last);
        } else {
            self.sift_down(hole, last);
        }
    }

    /// Puts `entry` at `hole` or above it, moving the parents it precedes down.
    fn sift_up(&mut self, mut hole: usize, entry: HostEntry) {
        while hole > 0 {
            let parent = (hole - 1) / ARITY;
            let above = self.items[parent];
            if !entry.before(&above) {
                break;
            }
            self.place(hole, above);
            hole = parent;
        }
        self.place(hole, entry);
    }

    /// Puts `entry` at `hole` or below it, moving the children that precede it up.
    fn sift_down(&mut self, mut hole: usize, entry: HostEntry) {
        let len = self.items.len();
        loop {
            let first = ARITY * hole + 1;
            if first >= len {
                break;
            }
            let end = (first + ARITY).min(len);
            let mut best = first;
            let mut best_item = self.items[first];
            for child in first + 1..end {
                let item = self.items[child];
                if item.before(&best_item) {
                    best = child;
                    best_item = item;
                }
            }
            if !best_item.before(&entry) {
                break;
            }
            self.place(hole, best_item);
            hole = best;
        }
        self.place(hole, entry);
    }

    #[inline]
    fn place(&mut self, hole: usize, entry: HostEntry) {
        self.items[hole] = entry;
        self.positions[entry.host as usize] = hole as u32;
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::collections::{BTreeSet, HashMap};

    use proptest::prelude::*;

    use super::HostQueue;

    /// Keys as integers so that the oracle (a sorted set of `(key, host)`) orders them as the heap.
    #[derive(Clone, Debug)]
    enum Operation {
        Set(u32, u16),
        Remove(u32),
        Pop,
    }

    fn operation() -> impl Strategy<Value = Operation> {
        prop_oneof![
            3 => (0..64_u32, any::<u16>()).prop_map(|(host, key)| Operation::Set(host, key)),
            1 => (0..64_u32).prop_map(Operation::Remove),
            2 => Just(Operation::Pop),
        ]
    }

    proptest! {
        #[test]
        fn behaves_as_a_sorted_set_with_one_entry_per_host(
            operations in proptest::collection::vec(operation(), 0..400)
        ) {
            let mut queue = HostQueue::default();
            let mut oracle: BTreeSet<(u16, u32)> = BTreeSet::new();
            let mut keys: HashMap<u32, u16> = HashMap::new();
            for operation in operations {
                match operation {
                    Operation::Set(host, key) => {
                        queue.set(host, f64::from(key));
                        if let Some(old) = keys.insert(host, key) {
                            oracle.remove(&(old, host));
                        }
                        oracle.insert((key, host));
                    }
                    Operation::Remove(host) => {
                        queue.remove(host);
                        if let Some(old) = keys.remove(&host) {
                            oracle.remove(&(old, host));
                        }
                    }
                    Operation::Pop => {
                        let popped = queue.pop().map(|entry| (entry.key as u16, entry.host));
                        let expected = oracle.pop_first();
                        if let Some((_, host)) = expected {
                            keys.remove(&host);
                        }
                        prop_assert_eq!(popped, expected);
                    }
                }
                prop_assert_eq!(queue.len(), oracle.len());
                prop_assert_eq!(queue.peek().map(|entry| (entry.key as u16, entry.host)), oracle.first().copied());
                for host in 0..64 {
                    prop_assert_eq!(queue.contains(host), keys.contains_key(&host));
                }
            }
            queue.clear();
            prop_assert_eq!(queue.len(), 0);
            prop_assert!((0..64).all(|host| !queue.contains(host)));
        }
    }
}
