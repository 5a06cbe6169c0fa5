//! 64-bit SimHash (Charikar 2002) over word shingles, and the Hamming distance between two.
//!
//! Charikar, "Similarity estimation techniques from rounding algorithms", STOC 2002: for
//! features with hashes `h_j` (64 bits each) and weights `w_j`, bit `i` of the SimHash is
//!
//! ```text
//! s_i = 1  if  Σ_j w_j · (2·bit_i(h_j) − 1) > 0,  else 0                     (1)
//! ```
//!
//! so two feature vectors at angle `θ` disagree on each bit with probability `θ/π`, and the
//! expected Hamming distance is
//!
//! ```text
//! E[d] = 64 · θ/π                                                            (2)
//! ```
//!
//! Manku, Jain & Das Sarma, "Detecting near-duplicates for web crawling", WWW 2007, use 64-bit
//! SimHash over 8 billion pages and call two pages near-duplicates at Hamming distance `≤ k = 3`.
//!
//! Features here are word **shingles** (seed `004_e0cda6b04941d422.txt`, "Shingling": a
//! `w`-shingle is a contiguous run of `w` words) of [`SHINGLE_WORDS`] `= 3` words, each with
//! weight 1 per occurrence (a bag, as the seed allows). Why 3: a one-word edit disturbs only 3
//! shingles, so noise of a few words moves few features; and unlike single words (`w = 1`),
//! word order counts, so two different texts written from the same small vocabulary (the
//! test web draws every page from 64 words) are not near-duplicates. With equal weights and
//! `m` of `n` shingles replaced, `cos θ ≈ 1 − m/n`, and (2) says how far that moves the hash.
//!
//! The feature hash of a shingle is xxh3-64 of its words' xxh3-64 hashes (24 bytes, in
//! order): xxh3 passes SMHasher's avalanche tests, so each of the 64 bits is an independent
//! fair coin per shingle, which (1) assumes; hashing word hashes rather than text lets each
//! word be hashed once although it is in three shingles.

use xxhash_rust::xxh3::xxh3_64;

/// Words per shingle (`w` in seed 004's "Shingling").
pub const SHINGLE_WORDS: usize = 3;

/// The number of bits on which `a` and `b` differ.
#[must_use]
pub fn hamming_distance(a: u64, b: u64) -> u32 {
    (a ^ b).count_ones()
}

/// Builds a SimHash from feature hashes, each of weight 1: equation (1).
///
/// The 64 counters of (1) are kept in byte lanes first: `lanes[j]` holds, in its byte `k`,
/// how many features had bit `8k + j` set, so that adding a feature is eight shifts, masks and
/// additions with no branch (`lanes[j] += (hash >> j) & 0x0101…01`), which the compiler turns
/// into a few vector instructions. A byte counts to 255 at most, so every
/// `LANE_CAPACITY` features the lanes are added into the 64 full counters and cleared.
#[derive(Debug, Clone)]
pub struct SimHasher {
    lanes: [u64; 8],
    /// Features counted in `lanes` since they were last emptied.
    in_lanes: u32,
    /// Per bit, how many features had it set, not counting those still in `lanes`.
    counts: [u64; 64],
    features: u32,
}

/// Features a byte lane can count before it must be emptied (a byte holds up to 255).
const LANE_CAPACITY: u32 = 255;

/// One in the low bit of every byte.
const LOW_BITS: u64 = 0x0101_0101_0101_0101;

impl Default for SimHasher {
    fn default() -> Self {
        Self::new()
    }
}

impl SimHasher {
    /// A SimHash of no features yet.
    #[must_use]
    pub fn new() -> Self {
        Self { lanes: [0; 8], in_lanes: 0, counts: [0; 64], features: 0 }
    }

    /// Adds one feature by its 64-bit hash.
    pub fn add(&mut self, feature_hash: u64) {
        for (shift, lane) in self.lanes.iter_mut().enumerate() {
            *lane += (feature_hash >> shift) & LOW_BITS;
        }
        self.in_lanes += 1;
        if self.in_lanes == LANE_CAPACITY {
            self.empty_lanes();
        }
        self.features += 1;
    }

    /// Adds the byte lanes into the full counters and clears them.
    fn empty_lanes(&mut self) {
        for bit in 0..64 {
            self.counts[bit] += self.in_lane(bit);
        }
        self.lanes = [0; 8];
        self.in_lanes = 0;
    }

    /// How many of the features still in the lanes had bit `bit` set.
    fn in_lane(&self, bit: usize) -> u64 {
        (self.lanes[bit % 8] >> (8 * (bit / 8))) & 0xff
    }

    /// How many features had bit `bit` set.
    fn ones(&self, bit: usize) -> u64 {
        self.counts[bit] + self.in_lane(bit)
    }

    /// Number of features added.
    #[must_use]
    pub fn features(&self) -> u32 {
        self.features
    }

    /// The SimHash: bit `i` is set where more than half the features had it set (the sum in
    /// (1) is positive); a tie gives 0. No feature gives 0.
    #[must_use]
    pub fn finish(&self) -> u64 {
        let mut simhash = 0;
        for bit in 0..64 {
            if 2 * self.ones(bit) > u64::from(self.features) {
                simhash |= 1 << bit;
            }
        }
        simhash
    }
}

/// Streams words into shingles of [`SHINGLE_WORDS`] and the shingles into a [`SimHasher`].
#[derive(Debug, Clone, Default)]
pub struct ShingleHasher {
    window: [u64; SHINGLE_WORDS],
    words: u64,
    simhash: SimHasher,
}

impl ShingleHasher {
    /// No words yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the next word (already normalised).
    pub fn push(&mut self, word: &str) {
        self.push_bytes(word.as_bytes());
    }

    /// Adds the words of `text`, normalised text (words joined by single spaces), in order;
    /// returns how many. What `push` of each word does, without cutting the words out first.
    pub fn push_words(&mut self, text: &str) -> usize {
        let bytes = text.as_bytes();
        if bytes.is_empty() {
            return 0;
        }
        let mut words = 1;
        let mut start = 0;
        for (position, &byte) in bytes.iter().enumerate() {
            if byte == b' ' {
                self.push_bytes(&bytes[start..position]);
                start = position + 1;
                words += 1;
            }
        }
        self.push_bytes(&bytes[start..]);
        words
    }

    fn push_bytes(&mut self, word: &[u8]) {
        self.window.rotate_left(1);
        self.window[SHINGLE_WORDS - 1] = xxh3_64(word);
        self.words += 1;
        if self.words >= SHINGLE_WORDS as u64 {
            self.simhash.add(shingle_hash(&self.window));
        }
    }

    /// The SimHash of the words pushed. A text shorter than one shingle is one feature made
    /// of all its words; an empty text gives 0.
    #[must_use]
    pub fn finish(&self) -> u64 {
        let words = self.words as usize;
        if (1..SHINGLE_WORDS).contains(&words) {
            let mut short = self.simhash.clone();
            short.add(shingle_hash(&self.window[SHINGLE_WORDS - words..]));
            return short.finish();
        }
        self.simhash.finish()
    }
}

/// The feature hash of a shingle from its words' hashes, in order.
fn shingle_hash(word_hashes: &[u64]) -> u64 {
    let mut bytes = [0u8; 8 * SHINGLE_WORDS];
    for (slot, hash) in bytes.chunks_exact_mut(8).zip(word_hashes) {
        slot.copy_from_slice(&hash.to_le_bytes());
    }
    xxh3_64(&bytes[..8 * word_hashes.len()])
}

/// The SimHash of `words` (normalised) over [`SHINGLE_WORDS`]-word shingles.
pub fn simhash_of_words<'a>(words: impl IntoIterator<Item = &'a str>) -> u64 {
    let mut hasher = ShingleHasher::new();
    for word in words {
        hasher.push(word);
    }
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` pseudo-random words from a vocabulary of 5,000 (a splitmix-style sequence).
    fn words(n: usize, seed: u64) -> Vec<String> {
        let mut state = seed;
        (0..n)
            .map(|_| {
                state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
                let mut z = state;
                z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                format!("w{}", (z ^ (z >> 31)) % 5000)
            })
            .collect()
    }

    fn simhash(words: &[String]) -> u64 {
        simhash_of_words(words.iter().map(String::as_str))
    }

    #[test]
    fn identical_texts_are_at_distance_zero() {
        let text = words(1000, 1);
        assert_eq!(hamming_distance(simhash(&text), simhash(&text.clone())), 0);
    }

    #[test]
    fn one_word_in_a_thousand_moves_few_bits() {
        // 3 of 998 shingles change: cos θ ≈ 0.997, E[d] = 64·θ/π ≈ 1.6 by (2). Over 20 texts
        // the mean must be near that and every distance within the near-duplicate threshold
        // most of the time.
        let mut total = 0;
        let mut within_three = 0;
        for seed in 0..20 {
            let text = words(1000, seed);
            let mut edited = text.clone();
            edited[500] = "edited".to_owned();
            let distance = hamming_distance(simhash(&text), simhash(&edited));
            total += distance;
            within_three += u32::from(distance <= 3);
        }
        let mean = f64::from(total) / 20.0;
        assert!(mean > 0.3 && mean < 3.5, "mean distance {mean}");
        assert!(within_three >= 16, "{within_three} of 20 within 3 bits");
    }

    #[test]
    fn unrelated_texts_are_about_half_the_bits_apart() {
        // Independent hashes: d ~ Binomial(64, 1/2), mean 32, sd 4.
        let distances: Vec<u32> = (0..20)
            .map(|seed| hamming_distance(simhash(&words(500, seed)), simhash(&words(500, seed + 100))))
            .collect();
        let mean = f64::from(distances.iter().sum::<u32>()) / 20.0;
        assert!((mean - 32.0).abs() < 4.0, "mean distance {mean}");
        assert!(distances.iter().all(|&d| d > 12), "{distances:?}");
    }

    #[test]
    fn word_order_counts() {
        let text = words(300, 7);
        let mut reversed = text.clone();
        reversed.reverse();
        assert!(hamming_distance(simhash(&text), simhash(&reversed)) > 12);
    }

    #[test]
    fn short_texts_are_one_feature() {
        assert_eq!(simhash_of_words([]), 0);
        let one = simhash_of_words(["river"]);
        assert_eq!(one, shingle_hash(&[xxh3_64(b"river")]));
        assert_ne!(simhash_of_words(["river", "flood"]), simhash_of_words(["flood", "river"]));
        assert_eq!(
            simhash_of_words(["a", "b", "c"]),
            shingle_hash(&[xxh3_64(b"a"), xxh3_64(b"b"), xxh3_64(b"c")])
        );
    }

    /// Equation (1) with 64 plain counters, as the bit-sliced [`SimHasher`] must compute it.
    fn simhash_by_counters(hashes: &[u64]) -> u64 {
        let mut ones = [0u64; 64];
        for hash in hashes {
            for (bit, count) in ones.iter_mut().enumerate() {
                *count += (hash >> bit) & 1;
            }
        }
        let mut simhash = 0;
        for (bit, &count) in ones.iter().enumerate() {
            if 2 * count > hashes.len() as u64 {
                simhash |= 1 << bit;
            }
        }
        simhash
    }

    proptest::proptest! {
        #[test]
        fn bit_sliced_counts_equal_plain_counters(
            hashes in proptest::collection::vec(proptest::prelude::any::<u64>(), 0..600),
            skew in 0u64..4,
        ) {
            // Skewed hashes (bits set far more often than half the time) carry far up the planes.
            let hashes: Vec<u64> = hashes.iter().map(|&h| (0..skew).fold(h, |h, k| h | h.rotate_left(7 + k as u32))).collect();
            let mut hasher = SimHasher::new();
            for &hash in &hashes {
                hasher.add(hash);
            }
            proptest::prop_assert_eq!(hasher.finish(), simhash_by_counters(&hashes));
            proptest::prop_assert_eq!(hasher.features() as usize, hashes.len());
        }
    }

    proptest::proptest! {
        #[test]
        fn pushing_a_text_s_words_equals_pushing_each(words in proptest::collection::vec("[a-z0-9é]{1,6}", 0..40)) {
            let mut whole = ShingleHasher::new();
            let pushed = whole.push_words(&words.join(" "));
            let mut one_by_one = ShingleHasher::new();
            for word in &words {
                one_by_one.push(word);
            }
            proptest::prop_assert_eq!(pushed, words.len());
            proptest::prop_assert_eq!(whole.finish(), one_by_one.finish());
        }
    }

    #[test]
    fn many_equal_features_count_exactly() {
        let mut hasher = SimHasher::new();
        for _ in 0..70_000 {
            hasher.add(0xffff_0000_ffff_0000);
        }
        for _ in 0..69_999 {
            hasher.add(0x0000_ffff_ffff_0000);
        }
        assert_eq!(hasher.ones(63), 70_000);
        assert_eq!(hasher.ones(16), 139_999);
        assert_eq!(hasher.ones(0), 0);
        assert_eq!(hasher.finish(), 0xffff_0000_ffff_0000 | 0x0000_0000_ffff_0000);
    }

    #[test]
    fn ties_give_zero_bits() {
        let mut hasher = SimHasher::new();
        hasher.add(u64::MAX);
        hasher.add(0);
        assert_eq!(hasher.finish(), 0);
        hasher.add(0b1010);
        assert_eq!(hasher.finish(), 0b1010);
        assert_eq!(hasher.features(), 3);
    }
}
