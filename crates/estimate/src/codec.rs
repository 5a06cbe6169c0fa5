//! A fixed byte form of [`ChangeHistory`], so a crawler can keep it in its store between runs
//! (the frontier stores the estimator's state as opaque bytes).
//!
//! Layout, little-endian, [`ChangeHistory::ENCODED_LEN`] bytes: a format byte (1), then the
//! four histogram entries (`lo: i16, hi: i16, count: u32, sum: f64` each), then
//! `unchanged_time: f64`, `last_modified_exposure: f64`, `unchanged_count: u32`,
//! `last_modified_intervals: u32`, `last_modified_changes: u32`. Decoding checks every
//! invariant [`ChangeHistory::observe`] keeps (entries filled first and sorted, counts
//! consistent, times finite and non-negative), so a corrupt record is an error, not a
//! nonsense estimate.

use crate::error::{Error, Result};
use crate::histogram::{BINS, Bin, ChangedIntervals};
use crate::history::ChangeHistory;

/// The format byte of the current layout.
const FORMAT: u8 = 1;
const BIN_LEN: usize = 16;

impl ChangeHistory {
    /// Length of [`to_bytes`](Self::to_bytes).
    pub const ENCODED_LEN: usize = 1 + BINS * BIN_LEN + 8 + 8 + 4 + 4 + 4;

    /// The history as [`ENCODED_LEN`](Self::ENCODED_LEN) bytes (see the module docs).
    #[must_use]
    pub fn to_bytes(&self) -> [u8; Self::ENCODED_LEN] {
        let mut out = [0u8; Self::ENCODED_LEN];
        let mut at = 0;
        let mut put = |bytes: &[u8]| {
            out[at..at + bytes.len()].copy_from_slice(bytes);
            at += bytes.len();
        };
        put(&[FORMAT]);
        for bin in self.changed_intervals().bins() {
            put(&bin.lo.to_le_bytes());
            put(&bin.hi.to_le_bytes());
            put(&bin.count.to_le_bytes());
            put(&bin.sum.to_le_bytes());
        }
        put(&self.unchanged_time().to_le_bytes());
        put(&self.last_modified_exposure().to_le_bytes());
        put(&(self.intervals() - self.changes()).to_le_bytes());
        put(&self.last_modified_intervals().to_le_bytes());
        put(&self.last_modified_changes().to_le_bytes());
        out
    }

    /// Reads what [`to_bytes`](Self::to_bytes) wrote.
    ///
    /// # Errors
    /// [`Error::Corrupt`] naming what is wrong: the length, the format byte, or a broken
    /// invariant.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        if bytes.len() != Self::ENCODED_LEN {
            return Err(Error::Corrupt("length is not ChangeHistory::ENCODED_LEN"));
        }
        if bytes[0] != FORMAT {
            return Err(Error::Corrupt("unknown format byte"));
        }
        let mut reader = Reader { bytes, at: 1 };
        let mut bins = [Bin::default(); BINS];
        for bin in &mut bins {
            *bin = Bin { lo: reader.i16(), hi: reader.i16(), count: reader.u32(), sum: reader.f64() };
        }
        let changed = ChangedIntervals::from_bins(bins)?;
        let unchanged_time = reader.f64();
        let last_modified_exposure = reader.f64();
        let unchanged_count = reader.u32();
        let last_modified_intervals = reader.u32();
        let last_modified_changes = reader.u32();
        let finite = |value: f64| value.is_finite() && value >= 0.0;
        if !(finite(unchanged_time) && finite(last_modified_exposure)) {
            return Err(Error::Corrupt("a time is negative or not finite"));
        }
        if (unchanged_count == 0) != (unchanged_time == 0.0) {
            return Err(Error::Corrupt("unchanged count and time disagree"));
        }
        let intervals = u64::from(unchanged_count) + u64::from(changed.count());
        if intervals >= u64::from(u32::MAX)
            || last_modified_changes > last_modified_intervals
            || u64::from(last_modified_intervals) > intervals
            || last_modified_changes > changed.count()
        {
            return Err(Error::Corrupt("counts are inconsistent"));
        }
        Ok(Self {
            changed,
            unchanged_time,
            last_modified_exposure,
            unchanged_count,
            last_modified_intervals,
            last_modified_changes,
        })
    }
}

/// Little-endian reads at a moving offset; the caller checked the total length.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0u8; N];
        out.copy_from_slice(&self.bytes[self.at..self.at + N]);
        self.at += N;
        out
    }
    fn i16(&mut self) -> i16 {
        i16::from_le_bytes(self.take())
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }
    fn f64(&mut self) -> f64 {
        f64::from_le_bytes(self.take())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn a_history_survives_its_bytes(
            observations in proptest::collection::vec((1e-3f64..1e4, any::<bool>(), proptest::option::of(0.0f64..1.0)), 0..60)
        ) {
            let mut history = ChangeHistory::new();
            for (interval, changed, age_fraction) in observations {
                // An age consistent with the observation: inside a changed interval, beyond
                // an unchanged one.
                let age = age_fraction.map(|f| if changed { f * interval } else { interval * (1.0 + f) });
                history.observe(interval, changed, age).unwrap();
            }
            let decoded = ChangeHistory::from_bytes(&history.to_bytes()).unwrap();
            prop_assert_eq!(decoded, history);
        }
    }

    #[test]
    fn corrupt_bytes_are_named() {
        let mut history = ChangeHistory::new();
        history.observe(2.0, true, None).unwrap();
        history.observe(3.0, false, None).unwrap();
        let good = history.to_bytes();
        assert!(matches!(ChangeHistory::from_bytes(&good[1..]), Err(Error::Corrupt(_))));
        let mut bad = good;
        bad[0] = 9;
        assert_eq!(ChangeHistory::from_bytes(&bad), Err(Error::Corrupt("unknown format byte")));
        // The first entry's count set to 0 leaves a filled entry behind an empty one... or an
        // empty entry with a sum: either way not what observe writes.
        let mut bad = good;
        bad[5..9].copy_from_slice(&0u32.to_le_bytes());
        assert!(matches!(ChangeHistory::from_bytes(&bad), Err(Error::Corrupt(_))));
        // A negative unchanged time.
        let mut bad = good;
        let at = 1 + BINS * BIN_LEN;
        bad[at..at + 8].copy_from_slice(&(-1.0f64).to_le_bytes());
        assert!(matches!(ChangeHistory::from_bytes(&bad), Err(Error::Corrupt(_))));
        assert_eq!(ChangeHistory::from_bytes(&ChangeHistory::new().to_bytes()), Ok(ChangeHistory::new()));
    }
}
