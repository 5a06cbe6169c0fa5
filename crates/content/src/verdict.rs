//! The changed/unchanged verdict between two signatures of the same page.
//!
//! Equal exact hashes mean the main text did not change. Otherwise the SimHashes decide: at
//! Hamming distance `≤` [`DEFAULT_THRESHOLD`] `= 3` of 64 bits the page is a near-duplicate of
//! its previous version, Manku, Jain & Das Sarma's `k = 3` (WWW 2007), chosen there for 64-bit
//! SimHash on 8 billion pages. By `E[d] = 64·θ/π` ([`crate::simhash`], eq. 2), `d = 3` is an
//! angle `θ ≈ 0.147` rad, `cos θ ≈ 0.989`: with equal shingle weights, about 1 % of the
//! shingles replaced. So, on average, an edit of more than about 1 % of the shingles (0.4 % of
//! the words, each word being in 3 shingles) reads as a change, and less reads as noise.
//!
//! Short texts: below [`MIN_TOKENS_FOR_NEAR_DUPLICATE`] words on either side the SimHash is not
//! consulted and only the exact hash decides (`Same` or `Changed`). With fewer than ~22
//! shingles each bit of (1) is a vote of a handful of features, one feature is more than 4 %
//! of the text, and any edit of a text that short is material: calling it noise would hide
//! real changes from the estimators.

use crate::signature::Signature;
use crate::simhash::hamming_distance;

/// Default near-duplicate threshold: Hamming distance `≤ 3` of 64 bits (Manku et al. 2007).
pub const DEFAULT_THRESHOLD: u32 = 3;

/// Fewest words both texts need for a near-duplicate verdict; shorter texts compare exactly.
pub const MIN_TOKENS_FOR_NEAR_DUPLICATE: u32 = 24;

/// How the current main text relates to the previous one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Same words (equal exact hash and word count).
    Same,
    /// Different words, but SimHashes within the threshold: noise, not a change.
    NearDuplicate {
        /// Hamming distance of the SimHashes.
        distance: u32,
    },
    /// Changed.
    Changed {
        /// Hamming distance of the SimHashes (informative even for short texts).
        distance: u32,
    },
}

impl Verdict {
    /// Whether the page changed: what a change-rate estimator records for this fetch.
    #[must_use]
    pub fn changed(&self) -> bool {
        matches!(self, Self::Changed { .. })
    }
}

/// The verdict between a page's `previous` and `current` signatures at Hamming `threshold`.
#[must_use]
pub fn compare(previous: &Signature, current: &Signature, threshold: u32) -> Verdict {
    if previous.exact == current.exact && previous.tokens == current.tokens {
        return Verdict::Same;
    }
    let distance = hamming_distance(previous.simhash, current.simhash);
    let long_enough = previous.tokens.min(current.tokens) >= MIN_TOKENS_FOR_NEAR_DUPLICATE;
    if long_enough && distance <= threshold {
        Verdict::NearDuplicate { distance }
    } else {
        Verdict::Changed { distance }
    }
}

/// Whether the page changed between `previous` and `current`, at [`DEFAULT_THRESHOLD`].
#[must_use]
pub fn changed(previous: &Signature, current: &Signature) -> bool {
    compare(previous, current, DEFAULT_THRESHOLD).changed()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signature(exact: u64, simhash: u64, tokens: u32) -> Signature {
        Signature { exact, simhash, tokens }
    }

    #[test]
    fn exact_equal_is_same() {
        let a = signature(1, 0b1111, 100);
        assert_eq!(compare(&a, &a, DEFAULT_THRESHOLD), Verdict::Same);
        assert!(!changed(&a, &a));
    }

    #[test]
    fn threshold_is_inclusive() {
        let a = signature(1, 0, 100);
        assert_eq!(compare(&a, &signature(2, 0b111, 100), 3), Verdict::NearDuplicate { distance: 3 });
        assert_eq!(compare(&a, &signature(2, 0b1111, 100), 3), Verdict::Changed { distance: 4 });
        assert_eq!(compare(&a, &signature(2, 0b1111, 100), 4), Verdict::NearDuplicate { distance: 4 });
        assert!(changed(&a, &signature(2, 0b1111, 100)));
        assert!(!changed(&a, &signature(2, 0, 100)));
    }

    #[test]
    fn short_texts_compare_exactly() {
        let short = MIN_TOKENS_FOR_NEAR_DUPLICATE - 1;
        let a = signature(1, 0, short);
        assert_eq!(compare(&a, &signature(2, 0, short), 3), Verdict::Changed { distance: 0 });
        assert_eq!(compare(&a, &signature(2, 0, 100), 3), Verdict::Changed { distance: 0 });
        assert_eq!(compare(&a, &a, 3), Verdict::Same);
        let long = signature(1, 0, MIN_TOKENS_FOR_NEAR_DUPLICATE);
        assert_eq!(
            compare(&long, &signature(2, 1, MIN_TOKENS_FOR_NEAR_DUPLICATE), 3),
            Verdict::NearDuplicate { distance: 1 }
        );
    }
}
