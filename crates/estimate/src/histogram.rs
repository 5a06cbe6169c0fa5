//! Fixed-size, log-binned summary of the intervals in which a change was seen.
//!
//! The irregular-interval MLE (seed 000_df0cf756c1e6fcc1.txt) needs every changed interval
//! `I_i` through `Σ_U I_i / (e^{λ I_i} − 1)`. Keeping the list would grow without bound, so
//! intervals are grouped into at most [`BINS`] entries of (key span, count, sum); an entry
//! stands for `count` copies of its mean interval `sum / count`.
//!
//! Keys are `round(16 · log2 I)`, so one key spans a ratio of `2^(1/16) ≈ 1.044`. An interval
//! whose key falls in an entry's span joins it; otherwise it opens a new entry, and if all
//! entries are taken, the two adjacent entries whose merged key span is narrowest are merged.
//!
//! Error (proved in `ChangeHistory::mle_error_bound`): if every entry's members lie within a
//! ratio `r` of each other, the histogram root `λ̃` and the exact root `λ̂` satisfy
//! `λ̃ ≤ λ̂ ≤ r · λ̃`.

/// Number of entries; 4 keeps `ChangeHistory` at 96 bytes.
pub(crate) const BINS: usize = 4;

/// Keys per doubling of the interval.
const KEYS_PER_OCTAVE: f64 = 16.0;

/// One entry: `count` changed intervals with keys in `lo..=hi` summing to `sum`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct Bin {
    pub(crate) lo: i16,
    pub(crate) hi: i16,
    pub(crate) count: u32,
    pub(crate) sum: f64,
}

/// The changed intervals, as at most [`BINS`] entries: filled entries first, sorted by key.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct ChangedIntervals {
    bins: [Bin; BINS],
}

/// The log-bin key of a finite positive interval. `log2` of a positive finite f64 lies in
/// `[-1074, 1024]`, so `16 · log2` fits an `i16` and the cast cannot saturate.
fn key(interval: f64) -> i16 {
    (interval.log2() * KEYS_PER_OCTAVE).round() as i16
}

impl ChangedIntervals {
    /// The entries as stored (filled first, sorted by key), for the byte form.
    pub(crate) fn bins(&self) -> &[Bin; BINS] {
        &self.bins
    }

    /// Entries read back from the byte form, checked: filled entries first, each with
    /// `lo ≤ hi`, a positive count and a finite positive sum, keys strictly increasing; empty
    /// entries all zero.
    pub(crate) fn from_bins(bins: [Bin; BINS]) -> crate::error::Result<Self> {
        let corrupt = crate::error::Error::Corrupt;
        let filled = bins.iter().take_while(|b| b.count > 0).count();
        if bins[filled..].iter().any(|b| *b != Bin::default()) {
            return Err(corrupt("an empty histogram entry is not zero, or precedes a filled one"));
        }
        for (j, bin) in bins[..filled].iter().enumerate() {
            if bin.lo > bin.hi || !(bin.sum.is_finite() && bin.sum > 0.0) {
                return Err(corrupt("a histogram entry has a bad key span or sum"));
            }
            if j > 0 && bins[j - 1].hi >= bin.lo {
                return Err(corrupt("histogram entries are not sorted by key"));
            }
        }
        if bins[..filled].iter().map(|b| u64::from(b.count)).sum::<u64>() >= u64::from(u32::MAX) {
            return Err(corrupt("histogram counts overflow"));
        }
        Ok(Self { bins })
    }

    fn filled(&self) -> usize {
        self.bins.iter().take_while(|b| b.count > 0).count()
    }

    /// Number of changed intervals (the caller keeps it below `u32::MAX`).
    pub(crate) fn count(&self) -> u32 {
        self.bins.iter().map(|b| b.count).sum()
    }

    /// Sum of the changed intervals.
    pub(crate) fn total(&self) -> f64 {
        self.bins.iter().map(|b| b.sum).sum()
    }

    /// `(count, mean interval)` of each filled entry.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        self.bins[..self.filled()].iter().map(|b| (f64::from(b.count), b.sum / f64::from(b.count)))
    }

    /// Largest ratio between two intervals that may share an entry: `2^((hi − lo + 1)/16)`.
    pub(crate) fn spread_ratio(&self) -> f64 {
        let widest = self.bins[..self.filled()].iter().map(|b| i32::from(b.hi) - i32::from(b.lo) + 1).max();
        widest.map_or(1.0, |w| (f64::from(w) / KEYS_PER_OCTAVE).exp2())
    }

    /// Adds one changed interval (finite, positive; checked by the caller).
    pub(crate) fn insert(&mut self, interval: f64) {
        let k = key(interval);
        let filled = self.filled();
        if let Some(bin) = self.bins[..filled].iter_mut().find(|b| b.lo <= k && k <= b.hi) {
            bin.count += 1;
            bin.sum += interval;
            return;
        }
        let fresh = Bin { lo: k, hi: k, count: 1, sum: interval };
        let mut all = [Bin::default(); BINS + 1];
        let pos = self.bins[..filled].iter().position(|b| b.lo > k).unwrap_or(filled);
        all[..pos].copy_from_slice(&self.bins[..pos]);
        all[pos] = fresh;
        all[pos + 1..=filled].copy_from_slice(&self.bins[pos..filled]);
        let len = filled + 1;
        if len > BINS {
            let j =
                (0..len - 1).min_by_key(|&j| i32::from(all[j + 1].hi) - i32::from(all[j].lo)).unwrap_or(0);
            all[j] = Bin {
                lo: all[j].lo,
                hi: all[j + 1].hi,
                count: all[j].count + all[j + 1].count,
                sum: all[j].sum + all[j + 1].sum,
            };
            all.copy_within(j + 2..len, j + 1);
            all[len - 1] = Bin::default();
        }
        self.bins.copy_from_slice(&all[..BINS]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_intervals_share_one_exact_entry() {
        let mut h = ChangedIntervals::default();
        for _ in 0..5 {
            h.insert(2.0);
        }
        let entries: Vec<_> = h.entries().collect();
        assert_eq!(entries, vec![(5.0, 2.0)]);
    }

    #[test]
    fn full_histogram_merges_the_narrowest_adjacent_pair() {
        let mut h = ChangedIntervals::default();
        for i in [1.0, 100.0, 10_000.0, 1e6, 1.1] {
            h.insert(i);
        }
        assert_eq!(h.filled(), BINS);
        assert_eq!(h.count(), 5);
        let first: Vec<_> = h.entries().take(1).collect();
        assert_eq!(first, vec![(2.0, 1.05)]);
        assert!((h.total() - 1_010_102.1).abs() < 1e-6);
    }
}
