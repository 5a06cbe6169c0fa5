//! A `D`-ary max-heap of small `Copy` entries: what `std::collections::BinaryHeap` does, with
//! `D` children a node and the comparison inlined.
//!
//! The ready queue holds an offer per free host (10^5 in the bench's first crawl, 3.2 MB of 32-byte
//! entries, past the L2 cache): a pop of the binary heap sifted through ~17 levels, a cache miss at
//! most of the deeper ones, and its comparison was a call (`ReadyEntry::partial_cmp`, 8% of the
//! time of the bench's first crawl at 10^7 pages after its first `next`, BENCHMARKS.md, "Online
//! scheduler"). With four children a node the heap is half as deep, and the four children of a node
//! are adjacent in memory. Entries come out in the same order as from a `BinaryHeap`: the greatest
//! first; entries equal in `Ord` in some order (proptested below).

/// See the module docs.
#[derive(Clone, Debug)]
pub(super) struct Heap<T, const D: usize> {
    entries: Vec<T>,
}

impl<T, const D: usize> Default for Heap<T, D> {
    fn default() -> Self {
        Self { entries: Vec::new() }
    }
}

impl<T: Ord + Copy, const D: usize> Heap<T, D> {
    /// A heap of `entries`, in any order.
    pub(super) fn from_vec(mut entries: Vec<T>) -> Self {
        heapify::<T, D>(&mut entries);
        Self { entries }
    }

    /// The entries, in no order.
    pub(super) fn into_vec(self) -> Vec<T> {
        self.entries
    }

    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(super) fn capacity(&self) -> usize {
        self.entries.capacity()
    }

    /// The greatest entry.
    #[inline]
    pub(super) fn peek(&self) -> Option<&T> {
        self.entries.first()
    }

    #[inline]
    pub(super) fn push(&mut self, entry: T) {
        let position = self.entries.len();
        self.entries.push(entry);
        sift_up::<T, D>(&mut self.entries, 0, position);
    }

    /// Takes the greatest entry out.
    #[inline]
    pub(super) fn pop(&mut self) -> Option<T> {
        let mut last = self.entries.pop()?;
        if let Some(top) = self.entries.first_mut() {
            std::mem::swap(&mut last, top);
            sift_down_to_bottom::<T, D>(&mut self.entries, 0);
        }
        Some(last)
    }

    pub(super) fn clear(&mut self) {
        self.entries.clear();
    }
}

/// Whether every entry of `entries` is at most its parent.
#[cfg(test)]
fn is_heap<T: Ord, const D: usize>(entries: &[T]) -> bool {
    (1..entries.len()).all(|child| entries[child] <= entries[(child - 1) / D])
}

/// Moves `entries[position]` up toward `top` while it is greater than its parent.
#[inline]
pub(super) fn sift_up<T: Ord + Copy, const D: usize>(entries: &mut [T], top: usize, mut position: usize) {
    let Some(&entry) = entries.get(position) else { return };
    while position > top {
        let parent = (position - 1) / D;
        let parent_entry = entries[parent];
        if entry <= parent_entry {
            break;
        }
        entries[position] = parent_entry;
        position = parent;
    }
    entries[position] = entry;
}

/// The greatest of the children `first..first + D` of a node that are in `entries` (at least
/// one is).
#[inline]
fn greatest_child<T: Ord + Copy, const D: usize>(entries: &[T], first: usize) -> usize {
    if D == 4
        && let Some(&[a, b, c, d]) = entries.get(first..first + 4)
    {
        // A node with all four children (all but the last of a heap): two independent
        // comparisons, then one.
        let left = if b > a { first + 1 } else { first };
        let right = if d > c { first + 3 } else { first + 2 };
        let (left_entry, right_entry) = (if b > a { b } else { a }, if d > c { d } else { c });
        return if right_entry > left_entry { right } else { left };
    }
    let end = (first + D).min(entries.len());
    let mut best = first;
    for child in first + 1..end {
        if entries[child] > entries[best] {
            best = child;
        }
    }
    best
}

/// Moves `entries[start]` down to a leaf along the greatest children, then up to its place (as
/// `BinaryHeap::pop` does: the entry moved to the top, the last one, is usually among the
/// least).
#[inline]
pub(super) fn sift_down_to_bottom<T: Ord + Copy, const D: usize>(entries: &mut [T], start: usize) {
    let Some(&entry) = entries.get(start) else { return };
    let mut position = start;
    loop {
        let first = D * position + 1;
        if first >= entries.len() {
            break;
        }
        let child = greatest_child::<T, D>(entries, first);
        entries[position] = entries[child];
        position = child;
    }
    entries[position] = entry;
    sift_up::<T, D>(entries, start, position);
}

/// Makes `entries` a heap (bottom up).
pub(super) fn heapify<T: Ord + Copy, const D: usize>(entries: &mut [T]) {
    if entries.len() < 2 {
        return;
    }
    for start in (0..=(entries.len() - 2) / D).rev() {
        let entry = entries[start];
        let mut position = start;
        loop {
            let first = D * position + 1;
            if first >= entries.len() {
                break;
            }
            let child = greatest_child::<T, D>(entries, first);
            if entry >= entries[child] {
                break;
            }
            entries[position] = entries[child];
            position = child;
        }
        entries[position] = entry;
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BinaryHeap;

    use proptest::prelude::*;

    use super::*;

    /// Pushes (`Some`) and pops (`None`) applied to a `Heap` and a `BinaryHeap` alike, the
    /// `Heap` rebuilt from its entries every 50 steps: the same entries come out in the same
    /// order.
    fn replays<const D: usize>(steps: &[Option<(u8, u8)>]) -> Result<(), TestCaseError> {
        let (mut heap, mut expected) = (Heap::<(u8, u8), D>::default(), BinaryHeap::new());
        for (index, step) in steps.iter().enumerate() {
            match *step {
                Some(entry) => {
                    heap.push(entry);
                    expected.push(entry);
                }
                None => prop_assert_eq!(heap.pop(), expected.pop()),
            }
            if index % 50 == 49 {
                heap = Heap::from_vec(heap.into_vec());
            }
            prop_assert!(is_heap::<_, D>(&heap.entries));
            prop_assert_eq!(heap.peek(), expected.peek());
            prop_assert_eq!(heap.len(), expected.len());
        }
        while let Some(entry) = expected.pop() {
            prop_assert_eq!(heap.pop(), Some(entry));
        }
        prop_assert!(heap.pop().is_none());
        Ok(())
    }

    proptest! {
        /// Any interleaving of pushes and pops, ties included: the heap hands out what
        /// `BinaryHeap` hands out, for two and four children a node.
        #[test]
        fn it_pops_as_a_binary_heap_does(
            steps in proptest::collection::vec(prop_oneof![
                3 => (0..20_u8, 0..4_u8).prop_map(Some),
                2 => Just(None),
            ], 0..500),
        ) {
            replays::<2>(&steps)?;
            replays::<4>(&steps)?;
        }

        /// Built from any vector, it is a heap and hands its entries out greatest first.
        #[test]
        fn from_vec_makes_a_heap(entries in proptest::collection::vec(any::<u16>(), 0..300)) {
            let heap = Heap::<u16, 4>::from_vec(entries.clone());
            prop_assert!(is_heap::<_, 4>(&heap.entries));
            let mut sorted = entries;
            sorted.sort_unstable_by(|a, b| b.cmp(a));
            let mut heap = heap;
            let popped: Vec<u16> = std::iter::from_fn(|| heap.pop()).collect();
            prop_assert_eq!(popped, sorted);
        }
    }
}
