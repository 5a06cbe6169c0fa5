//! The literal Algorithm 3 of seed 001_1ae7d23b6da2937a.txt: largest accumulated credit first.
//!
//! As printed (the OCR is partly garbled; steps 4–5 are lost and rebuilt from steps 3 and 6):
//!
//! ```text
//! 1. s_k ← 0 for k = 1, …, n.
//! 2. for t = 1 to T do
//! 3.     s_k ← s_k + p_k for k = 1, …, n.
//! 4–5.   k0 ← argmax_k s_k.
//! 6.     w_t ← k0 and s_k0 ← s_k0 − 1.
//! 7. Return (w_1, …, w_T).
//! ```
//!
//! This is also known as "smooth weighted round robin". The initial credit does not matter
//! (a common offset does not move the argmax); the OCR reads it as either 1.0 or 0.
//!
//! Two deliberate departures, neither changing the sequence in exact arithmetic:
//! the credit before step 6 of slot `t` is computed in closed form,
//! `s_k = t·p_k − N_k(t − 1)`, with one fused multiply-add from integer counters, instead
//! of by repeated addition, so it does not drift; and pages with share zero are never chosen
//! (by rounding, every positive credit could be slightly negative).

use crate::error::Result;
use crate::shares::Shares;

/// Algorithm 3 of seed 001_1ae7d23b6da2937a.txt, as printed; for comparison with
/// [`Carousel`](crate::Carousel).
///
/// An endless iterator of page indices, one per slot; ties go to the lowest page index.
/// Each slot costs `O(n)`: fine for tests and small `n`.
///
/// ```
/// use freshet_schedule::CreditCarousel;
///
/// let pages: Vec<usize> = CreditCarousel::new(&[2.0, 1.0, 1.0])?.take(4).collect();
/// assert_eq!(pages, [0, 1, 2, 0]);
/// # Ok::<(), freshet_schedule::ScheduleError>(())
/// ```
#[derive(Debug, Clone)]
pub struct CreditCarousel {
    shares: Shares,
    /// Pages with a positive share, in increasing order.
    active: Vec<usize>,
    served: Vec<u64>,
    slot: u64,
}

impl CreditCarousel {
    /// Algorithm 3 for refresh rates `rates` (fetches per unit time, one per page).
    ///
    /// # Errors
    /// [`ScheduleError`](crate::ScheduleError) for an empty slice, a NaN, negative or infinite
    /// rate, all rates zero, or a total that overflows.
    pub fn new(rates: &[f64]) -> Result<Self> {
        Ok(Self::from_shares(Shares::new(rates)?))
    }

    /// Algorithm 3 for already validated shares.
    pub fn from_shares(shares: Shares) -> Self {
        Self {
            active: shares.positive_pages().collect(),
            served: vec![0; shares.page_count()],
            shares,
            slot: 0,
        }
    }

    /// The shares being scheduled.
    pub fn shares(&self) -> &Shares {
        &self.shares
    }

    /// The credit `s_k` of `page` after step 3 of the next slot.
    fn credit(&self, page: usize) -> f64 {
        let elapsed = (self.slot + 1) as f64;
        elapsed.mul_add(self.shares.as_slice()[page], -(self.served[page] as f64))
    }
}

impl Iterator for CreditCarousel {
    type Item = usize;

    /// The page of the next slot; never `None`.
    fn next(&mut self) -> Option<usize> {
        let mut best: Option<(usize, f64)> = None;
        for &page in &self.active {
            let credit = self.credit(page);
            if best.is_none_or(|(_, top)| credit > top) {
                best = Some((page, credit));
            }
        }
        // `active` is not empty: `Shares` has at least one positive share.
        let (page, _) = best?;
        self.served[page] += 1;
        self.slot += 1;
        Some(page)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (usize::MAX, None)
    }
}
