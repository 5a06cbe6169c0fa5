//! A 4-ary max-heap for the global host queue: `std::collections::BinaryHeap`'s semantics
//! (greatest element first under `Ord`) in half the depth.
//!
//! With 10^5 hosts and lazily dropped stale entries the global queue holds up to `2·10^5`
//! 16-byte entries (3.2 MB, beyond the L2 cache), and each `next`/`fetched` pair pops one: in
//! `benches/online.rs` at 10^6 pages the binary heap's `pop` took 17% of the time, nearly all of
//! it in cache misses while sifting down 17 levels. Four children share one or two cache lines,
//! so a 4-ary heap sifts 9 levels for the same misses per level. Written by hand: a few dozen
//! lines, not worth a dependency for this one queue. Pop order is
//! the same as `BinaryHeap`'s for a total order with no equal elements, which `HostEntry` has up
//! to the generation of a host's stale entries (only one of which is ever live).

/// Children per node.
const ARITY: usize = 4;

/// A max-heap with four children per node.
#[derive(Clone, Debug)]
pub(super) struct QuadHeap<T> {
    items: Vec<T>,
}

impl<T> Default for QuadHeap<T> {
    fn default() -> Self {
        Self { items: Vec::new() }
    }
}

impl<T: Ord + Copy> QuadHeap<T> {
    pub(super) fn len(&self) -> usize {
        self.items.len()
    }

    pub(super) fn capacity(&self) -> usize {
        self.items.capacity()
    }

    pub(super) fn clear(&mut self) {
        self.items.clear();
    }

    /// The greatest element.
    pub(super) fn peek(&self) -> Option<&T> {
        self.items.first()
    }

    pub(super) fn push(&mut self, item: T) {
        let mut hole = self.items.len();
        self.items.push(item);
        while hole > 0 {
            let parent = (hole - 1) / ARITY;
            let above = self.items[parent];
            if item <= above {
                break;
            }
            self.items[hole] = above;
            hole = parent;
        }
        self.items[hole] = item;
    }

    /// Removes and returns the greatest element.
    pub(super) fn pop(&mut self) -> Option<T> {
        let last = self.items.pop()?;
        let Some(&top) = self.items.first() else { return Some(last) };
        let len = self.items.len();
        let mut hole = 0;
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
                if item > best_item {
                    best = child;
                    best_item = item;
                }
            }
            if best_item <= last {
                break;
            }
            self.items[hole] = best_item;
            hole = best;
        }
        self.items[hole] = last;
        Some(top)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BinaryHeap;

    use super::QuadHeap;

    #[test]
    fn pops_in_the_order_of_a_binary_heap() {
        let mut quad = QuadHeap::default();
        let mut binary = BinaryHeap::new();
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        for round in 0..5_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let item = (state % 1_000, round);
            quad.push(item);
            binary.push(item);
            if state.is_multiple_of(3) {
                assert_eq!(quad.pop(), binary.pop());
            }
            assert_eq!(quad.peek(), binary.peek());
            assert_eq!(quad.len(), binary.len());
        }
        while let Some(item) = binary.pop() {
            assert_eq!(quad.pop(), Some(item));
        }
        assert_eq!(quad.pop(), None);
    }
}
