//! The windows `[release, deadline]` of each occurrence that the carousel schedules in.
//!
//! Occurrence `j` of page `i` (`j = 1, 2, …`) may be served in slot `t` (the interval
//! `[t, t+1)`, `t = 0, 1, …`) from its release on, and should be by its deadline. With
//! `N = j − 1` fetches of page `i` done, both ends are integer numerators over `p_i` on a time
//! axis scaled by an integer, so the carousel compares them exactly (see `point.rs`).

/// Which windows the [`Carousel`](crate::Carousel) runs earliest-deadline-first over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Windows {
    /// Occurrence `j` is released at `(j − 1)/p_i` and due at `j/p_i` (slot units): slot `t`
    /// may serve it once `t ≥ (j − 1)/p_i`. With exact shares summing to 1 every window is
    /// met, which gives `−(1 − p_i) ≤ T·p_i − N_i(T) < 1`.
    #[default]
    Full,
    /// Tijdeman's windows (seed 001_1ae7d23b6da2937a.txt, ref. 16, thm. 3: the chairman
    /// assignment theorem), with `σ = 1/(2n − 2)` for `n ≥ 2` pages of positive share: slot
    /// `t` may serve occurrence `j` once `(t + 1)·p_i − (j − 1) ≥ σ`, and the deadline is
    /// `(j − σ)/p_i`. The theorem gives `|T·p_i − N_i(T)| ≤ 1 − σ` for exact shares summing
    /// to 1. With a single page it is the same as [`Windows::Full`].
    Tijdeman,
}

/// [`Windows`] for a given number of pages, on an integer time axis.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Scaled {
    /// `1/σ = 2n − 2` for Tijdeman's windows, 1 for the full ones.
    scale: f64,
    tijdeman: bool,
}

impl Scaled {
    /// `windows` for `active` pages with a positive share.
    pub(crate) fn new(windows: Windows, active: usize) -> Self {
        match windows {
            Windows::Tijdeman if active >= 2 => Self { scale: (2 * active - 2) as f64, tijdeman: true },
            _ => Self { scale: 1.0, tijdeman: false },
        }
    }

    /// Numerator of the release of the next occurrence after `served` fetches.
    ///
    /// Full: `(j − 1)/p ≤ t`. Tijdeman: `(t + 1)p − (j − 1) ≥ σ ⟺ ((j − 1)m + 1)/p ≤ (t + 1)m`.
    pub(crate) fn release(&self, served: u64) -> f64 {
        let done = served as f64 * self.scale;
        if self.tijdeman { done + 1.0 } else { done }
    }

    /// Numerator of the deadline of the next occurrence after `served` fetches.
    ///
    /// Full: `j/p`. Tijdeman: `(j − σ)/p = (jm − 1)/(mp)`, ordered as `(jm − 1)/p`.
    /// (The carousel derives deadlines from releases, [`Scaled::deadline_of_release`]; this
    /// definition is kept for the reference carousel of its tests.)
    #[cfg(test)]
    pub(crate) fn deadline(&self, served: u64) -> f64 {
        let due = (served + 1) as f64 * self.scale;
        if self.tijdeman { due - 1.0 } else { due }
    }

    /// Numerator of the deadline of the occurrence released at numerator `release` (the
    /// page is not served in between): `deadline(N)` from `release(N)`, exactly (integers
    /// below 2^53).
    pub(crate) fn deadline_of_release(&self, release: f64) -> f64 {
        if self.tijdeman { release + (self.scale - 2.0) } else { release + 1.0 }
    }

    /// Numerator of the release of the occurrence due at numerator `deadline`: the inverse of
    /// [`Scaled::deadline_of_release`], exactly (integers below 2^53).
    pub(crate) fn release_of_deadline(&self, deadline: f64) -> f64 {
        if self.tijdeman { deadline - (self.scale - 2.0) } else { deadline - 1.0 }
    }

    /// Numerator of the next release after serving the occurrence due at numerator
    /// `deadline`: `release(N + 1)` from `deadline(N)`, exactly.
    pub(crate) fn release_after_deadline(&self, deadline: f64) -> f64 {
        if self.tijdeman { deadline + 2.0 } else { deadline }
    }

    /// Numerator of the next release after serving, early, the occurrence released at
    /// numerator `release`: `release(N + 1)` from `release(N)`, exactly.
    pub(crate) fn release_after_release(&self, release: f64) -> f64 {
        release + self.scale
    }

    /// The number of occurrences served before the occurrence released at numerator
    /// `release`: the `N` of `release(N)`, exactly.
    pub(crate) fn served_before_release(&self, release: f64) -> u64 {
        // `as` truncates; the quotient is an exact integer.
        (if self.tijdeman { (release - 1.0) / self.scale } else { release }) as u64
    }

    /// The number of occurrences served before the occurrence due at numerator `deadline`:
    /// the `N` of `deadline(N)`, exactly.
    pub(crate) fn served_before_deadline(&self, deadline: f64) -> u64 {
        // `as` truncates; the quotient is an exact integer.
        (if self.tijdeman { (deadline + 1.0) / self.scale - 1.0 } else { deadline - 1.0 }) as u64
    }

    /// The scaled instant that releases must not exceed for slot `slot` to serve them.
    pub(crate) fn now(&self, slot: u64) -> f64 {
        let slot = slot_to_f64(slot);
        if self.tijdeman { (slot + 1.0) * self.scale } else { slot }
    }

    /// The first slot that may serve an occurrence released at the scaled instant `release`
    /// (the inverse of [`Scaled::now`]), give or take a slot: the carousel settles it exactly.
    pub(crate) fn release_slot_guess(&self, release: f64) -> f64 {
        if self.tijdeman { release / self.scale - 1.0 } else { release }
    }

    /// The scaled instant `instant` in slots: non-decreasing in `instant`, so its integer part
    /// buckets deadlines in their order.
    pub(crate) fn in_slots(&self, instant: f64) -> f64 {
        if self.tijdeman { instant / self.scale } else { instant }
    }
}

/// `slot as f64` for a slot index below 2^53 (exact), through `i64`: the conversion from `u64`
/// takes several instructions on x86-64 without AVX-512, and this one runs a few times per
/// carousel slot.
#[inline]
pub(crate) fn slot_to_f64(slot: u64) -> f64 {
    debug_assert!(slot < 1 << 53);
    slot as i64 as f64
}

/// The integer part of `value`, for `0 ≤ value < 2^53` (a slot index), through `i64` (see
/// [`slot_to_f64`]); a negative value gives 0, as `as u64` would.
#[inline]
pub(crate) fn floor_to_slot(value: f64) -> u64 {
    debug_assert!(value < (1u64 << 53) as f64);
    (value as i64).max(0) as u64
}
