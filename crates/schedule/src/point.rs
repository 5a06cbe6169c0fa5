//! Points `j / p` on the slot axis (releases and deadlines), ordered exactly.
//!
//! The carousel compares release times `(j−1)/p_i` and deadlines `j/p_i` of different pages.
//! Rounded quotients can tie or fall on the wrong side of a slot boundary; a release missed by
//! rounding shrinks a window by a whole slot, which can break the bound of the carousel. So a
//! [`Point`] keeps its numerator and share and settles near-ties exactly, with fused
//! multiply-add: the shares are then the only inexact numbers in the schedule.

use std::cmp::Ordering;

/// The instant `count / share` of one page, `share > 0`, in slots or scaled slots.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Point {
    /// `count / share`, rounded: used first, since a strict `<` between rounded quotients
    /// implies the same between exact ones (rounding is monotone).
    approx: f64,
    /// An integer numerator built from the occurrence counter, exact below 2^53.
    count: f64,
    share: f64,
    page: usize,
}

impl Point {
    /// The instant `count / share` for page `page`; `count` is a non-negative integer.
    pub(crate) fn new(count: f64, share: f64, page: usize) -> Self {
        Self { approx: count / share, count, share, page }
    }

    /// The point whose parts are these, `approx` being `count / share` as [`Point::new`]
    /// computed it: a point taken apart to be passed in registers, put together again.
    #[inline]
    pub(crate) fn from_parts(approx: f64, count: f64, share: f64, page: usize) -> Self {
        debug_assert!(approx.to_bits() == (count / share).to_bits());
        Self { approx, count, share, page }
    }

    /// The page this point belongs to.
    pub(crate) fn page(&self) -> usize {
        self.page
    }

    /// The numerator `count`.
    pub(crate) fn count(&self) -> f64 {
        self.count
    }

    /// The page's share `p`, the denominator.
    pub(crate) fn share(&self) -> f64 {
        self.share
    }

    /// The instant `count / share` of the same page (same share).
    pub(crate) fn moved_to(&self, count: f64) -> Self {
        Self::new(count, self.share, self.page)
    }

    /// `count / share`, rounded: a non-decreasing function of the exact instant, so anything
    /// monotone computed from it (a bucket index) orders points consistently with [`Ord`].
    pub(crate) fn approx(&self) -> f64 {
        self.approx
    }

    /// Whether `count / share ≤ slot`, decided exactly (`slot` an integer below 2^53).
    pub(crate) fn is_at_or_before(&self, slot: f64) -> bool {
        match cmp_f64(self.approx, slot) {
            Ordering::Less => true,
            Ordering::Greater => false,
            Ordering::Equal => self.is_at_or_before_exactly(slot),
        }
    }

    /// [`Point::is_at_or_before`] when the rounded quotient equals `slot`. Not inlined: the
    /// fused multiply-add is a library call on the default x86-64 target, and inlined the
    /// compiler computed it on every comparison, not only on ties (measured: 2 calls per
    /// slot of the simulator's bench, `BENCHMARKS.md`, "The simulator").
    #[cold]
    #[inline(never)]
    fn is_at_or_before_exactly(&self, slot: f64) -> bool {
        // count/share ≤ slot ⟺ slot·share − count ≥ 0; the fused multiply-add rounds the
        // exact difference once, which keeps its sign.
        slot.mul_add(self.share, -self.count) >= 0.0
    }
}

impl Ord for Point {
    /// Earlier instant first; equal instants by page index.
    fn cmp(&self, other: &Self) -> Ordering {
        cmp_f64(self.approx, other.approx)
            .then_with(|| {
                // a/p < b/q ⟺ a·q < b·p for p, q > 0.
                cmp_exact_products(self.count, other.share, other.count, self.share)
            })
            .then_with(|| self.page.cmp(&other.page))
    }
}

impl PartialOrd for Point {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Point {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Point {}

/// Orders two non-NaN floats; `-0.0` equals `+0.0`.
fn cmp_f64(a: f64, b: f64) -> Ordering {
    if a < b {
        Ordering::Less
    } else if a > b {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}

/// Compares the exact products `a·b` and `c·d` of finite floats.
///
/// Each product is split into its rounded value and the exact rounding error (the
/// "two-product" of Dekker, by fused multiply-add); comparing the pairs lexicographically
/// compares the exact products, barring underflow of the error term (shares below ~1e-290).
/// Not inlined, for the reason given at [`Point::is_at_or_before_exactly`].
#[cold]
#[inline(never)]
fn cmp_exact_products(a: f64, b: f64, c: f64, d: f64) -> Ordering {
    let left = a * b;
    let right = c * d;
    cmp_f64(left, right).then_with(|| cmp_f64(a.mul_add(b, -left), c.mul_add(d, -right)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_products_break_rounded_ties() {
        // 0.1·3 and 0.3·1 round to different doubles, but 3·0.1 rounds up past 0.3.
        assert_eq!(cmp_exact_products(3.0, 0.1, 1.0, 0.3), Ordering::Greater);
        // 1/3 rounded down: 3 · share < 1 exactly, though the product rounds to 1.
        let third = 1.0 / 3.0;
        assert_eq!(3.0 * third, 1.0);
        assert_eq!(cmp_exact_products(3.0, third, 1.0, 1.0), Ordering::Less);
    }

    #[test]
    fn release_on_a_slot_boundary_is_exact() {
        let third = 1.0 / 3.0; // slightly below 1/3, so 1/third is slightly above 3
        let release = Point::new(1.0, third, 0);
        assert!(!release.is_at_or_before(3.0 - 1e-12));
        // 1/third rounds to 3.0 exactly, but the exact instant is after slot 3.
        assert_eq!(1.0 / third, 3.0);
        assert!(!release.is_at_or_before(3.0));
        assert!(release.is_at_or_before(4.0));
        let half = Point::new(1.0, 0.5, 1);
        assert!(half.is_at_or_before(2.0));
        assert!(!half.is_at_or_before(1.0));
    }

    #[test]
    fn ties_go_to_the_lower_page() {
        let a = Point::new(1.0, 0.25, 3);
        let b = Point::new(2.0, 0.5, 1);
        assert!(b < a);
        assert!(Point::new(1.0, 0.5, 0) < b);
        assert!(Point::new(4.0, 1.0, 0) < a);
    }
}
