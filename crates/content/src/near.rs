//! Near-duplicates across pages: which page already fetched says (nearly) what a new page says,
//! by its main text's SimHash within Hamming distance [`DEFAULT_THRESHOLD`] `= 3` of 64 bits
//! (Manku, Jain, Das Sarma, "Detecting near-duplicates for web crawling", WWW 2007; seed
//! `004_e0cda6b04941d422.txt`, "Detecting duplicate pages": mirrors, session identifiers,
//! pages that differ only in ads or formatting).
//!
//! Manku et al.'s tables, with the fewest blocks that work for 3 bits: the 64-bit SimHash is cut
//! into four 16-bit blocks, and two fingerprints that differ in at most 3 bits agree on at
//! least one block (pigeonhole: 3 differing bits touch at most 3 of the 4 blocks). So each
//! block has a table, block value → the entries holding it; a query reads the entries of its
//! four block values and checks each by popcount. With `n` entries of well-mixed hashes a
//! bucket holds about `n / 65,536`: at 10^6 pages some 60 candidates a query.
//!
//! A text shorter than [`MIN_TOKENS_FOR_NEAR_DUPLICATE`] words is neither indexed nor looked
//! for: its SimHash is too coarse for distances to mean anything (see [`crate::verdict`]).
//! The index is bounded: past `max_entries` it stops taking entries (and counts those it
//! refused), so its memory is known in advance. Each table is a list per block value threaded
//! through the entries (a head per value, a next link per entry): 12 bytes an entry, 4 per
//! entry in each of the four tables (28 in all), and 4 × 65,536 heads (1 MiB, allocated with
//! the first entry). A table of `HashMap`s of vectors cost ~300 bytes a page at 20,000 pages
//! (an allocation per bucket and the maps' slots; BENCHMARKS.md, "Near-duplicates").
//!
//! Written by hand: the tables are thirty lines over `Vec`s, and no maintained crate offers
//! Hamming-distance lookup of 64-bit fingerprints with a bounded size.

use crate::signature::Signature;
use crate::simhash::hamming_distance;
use crate::verdict::{DEFAULT_THRESHOLD, MIN_TOKENS_FOR_NEAR_DUPLICATE};

/// Blocks the SimHash is cut into: `DEFAULT_THRESHOLD + 1`.
const BLOCKS: usize = 4;
const BLOCK_BITS: u32 = 64 / BLOCKS as u32;
/// The end of a list.
const NONE: u32 = u32::MAX;

/// An indexed page near a query: its id and the Hamming distance of the SimHashes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NearMatch {
    /// The page, as it was inserted.
    pub page: u32,
    /// Bits on which the SimHashes differ (`≤` [`DEFAULT_THRESHOLD`]).
    pub distance: u32,
}

/// Pages' SimHashes, found again within [`DEFAULT_THRESHOLD`] bits (see the module docs).
#[derive(Debug, Clone, Default)]
pub struct NearDuplicateIndex {
    /// `(simhash, page)` in insertion order.
    entries: Vec<(u64, u32)>,
    /// Per block: the latest entry holding each block value (`NONE`: none), 65,536 of them
    /// once an entry is indexed.
    heads: [Vec<u32>; BLOCKS],
    /// Per block, per entry: the entry before it with the same block value (`NONE`: none).
    next: [Vec<u32>; BLOCKS],
    max_entries: usize,
    unindexed: u64,
}

/// Block `block` of `simhash`.
fn block(simhash: u64, block: usize) -> u16 {
    (simhash >> (BLOCK_BITS * block as u32)) as u16
}

impl NearDuplicateIndex {
    /// An empty index that takes at most `max_entries` pages (0: none, so nothing is ever
    /// found). `max_entries` is bounded by `u32::MAX`.
    #[must_use]
    pub fn new(max_entries: usize) -> Self {
        // `NONE` is not an entry.
        Self { max_entries: max_entries.min(NONE as usize), ..Self::default() }
    }

    /// The indexed page whose SimHash is nearest `signature`'s, if one is within
    /// [`DEFAULT_THRESHOLD`] bits (the first inserted among equals); `None` for a text shorter
    /// than [`MIN_TOKENS_FOR_NEAR_DUPLICATE`] words.
    #[must_use]
    pub fn find(&self, signature: &Signature) -> Option<NearMatch> {
        if signature.tokens < MIN_TOKENS_FOR_NEAR_DUPLICATE {
            return None;
        }
        let simhash = signature.simhash;
        let mut best: Option<(u32, u32)> = None;
        for (index, (heads, next)) in self.heads.iter().zip(&self.next).enumerate() {
            let mut entry = heads.get(usize::from(block(simhash, index))).copied().unwrap_or(NONE);
            while let Some(&(other, _)) = self.entries.get(entry as usize) {
                let distance = hamming_distance(simhash, other);
                // An entry sharing several blocks is met several times: the same distance.
                if distance <= DEFAULT_THRESHOLD && best.is_none_or(|best| (distance, entry) < best) {
                    best = Some((distance, entry));
                }
                entry = next.get(entry as usize).copied().unwrap_or(NONE);
            }
        }
        best.and_then(|(distance, entry)| {
            self.entries.get(entry as usize).map(|&(_, page)| NearMatch { page, distance })
        })
    }

    /// Indexes `page`'s `signature`. Returns `false` (and indexes nothing) for a text shorter
    /// than [`MIN_TOKENS_FOR_NEAR_DUPLICATE`] words, or when the index is full (counted in
    /// [`Self::unindexed`]).
    pub fn insert(&mut self, signature: &Signature, page: u32) -> bool {
        if signature.tokens < MIN_TOKENS_FOR_NEAR_DUPLICATE {
            return false;
        }
        if self.entries.len() >= self.max_entries {
            self.unindexed += 1;
            return false;
        }
        let entry = self.entries.len() as u32;
        self.entries.push((signature.simhash, page));
        for (index, (heads, next)) in self.heads.iter_mut().zip(&mut self.next).enumerate() {
            if heads.is_empty() {
                *heads = vec![NONE; 1 << BLOCK_BITS];
            }
            let head = &mut heads[usize::from(block(signature.simhash, index))];
            next.push(*head);
            *head = entry;
        }
        true
    }

    /// Pages indexed.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no page is indexed.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Pages not indexed because the index was full.
    #[must_use]
    pub fn unindexed(&self) -> u64 {
        self.unindexed
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use proptest::prelude::*;

    use super::*;

    fn signature(simhash: u64, tokens: u32) -> Signature {
        Signature { exact: simhash.rotate_left(7), simhash, tokens }
    }

    #[test]
    fn finds_within_three_bits_in_any_blocks_and_not_beyond() {
        let mut index = NearDuplicateIndex::new(10);
        let base = 0x0123_4567_89ab_cdef_u64;
        assert!(index.insert(&signature(base, 100), 7));
        // Three bits, each in a different block: only the fourth block agrees.
        let three = base ^ (1 << 3) ^ (1 << 20) ^ (1 << 40);
        assert_eq!(index.find(&signature(three, 100)), Some(NearMatch { page: 7, distance: 3 }));
        // Four bits, one in each block: no block agrees, and 4 > 3 anyway.
        let four = three ^ (1 << 60);
        assert_eq!(index.find(&signature(four, 100)), None);
        // The nearest wins.
        assert!(index.insert(&signature(base ^ 1, 100), 8));
        assert_eq!(index.find(&signature(base ^ 1, 100)), Some(NearMatch { page: 8, distance: 0 }));
        // Short texts are neither indexed nor looked for.
        assert!(!index.insert(&signature(!base, 5), 9));
        assert_eq!(index.find(&signature(base, MIN_TOKENS_FOR_NEAR_DUPLICATE - 1)), None);
    }

    #[test]
    fn a_full_index_refuses_and_counts() {
        let mut index = NearDuplicateIndex::new(1);
        assert!(index.insert(&signature(1, 100), 1));
        assert!(!index.insert(&signature(u64::MAX, 100), 2));
        assert_eq!((index.len(), index.unindexed()), (1, 1));
        assert_eq!(index.find(&signature(u64::MAX, 100)), None);
        let off = NearDuplicateIndex::new(0);
        assert!(off.is_empty());
    }

    proptest! {
        /// The tables find what a scan of every entry finds: the nearest entry within 3 bits,
        /// the first inserted among equals. Entries are drawn near a few centres, so that
        /// near ones are common.
        #[test]
        fn it_finds_what_a_scan_finds(
            centres in proptest::collection::vec(any::<u64>(), 1..4),
            inserted in proptest::collection::vec((0..4_usize, proptest::collection::vec(0..64_u32, 0..5)), 0..60),
            queries in proptest::collection::vec((0..4_usize, proptest::collection::vec(0..64_u32, 0..6)), 1..30),
        ) {
            let near = |(centre, flips): &(usize, Vec<u32>)| {
                flips.iter().fold(centres[centre % centres.len()], |hash, bit| hash ^ (1 << bit))
            };
            let mut index = NearDuplicateIndex::new(usize::MAX);
            let mut all = Vec::new();
            for (page, spec) in inserted.iter().enumerate() {
                let hash = near(spec);
                prop_assert!(index.insert(&signature(hash, 50), page as u32));
                all.push((hash, page as u32));
            }
            for query in &queries {
                let hash = near(query);
                let expected = all
                    .iter()
                    .map(|&(other, page)| (hamming_distance(hash, other), page))
                    .filter(|&(distance, _)| distance <= DEFAULT_THRESHOLD)
                    .min()
                    .map(|(distance, page)| NearMatch { page, distance });
                prop_assert_eq!(index.find(&signature(hash, 50)), expected);
            }
        }
    }
}
