//! Property tests of the documented bounds, against a brute-force check of every prefix.

mod common;

use common::{TOL, lag_extremes};
use freshet_schedule::{Carousel, CreditCarousel, DiscrepancyMeter, Shares, Windows};
use proptest::prelude::*;

/// Rates spanning eight orders of magnitude, with some zeros and some exact small integers.
fn rates() -> impl Strategy<Value = Vec<f64>> {
    let rate = prop_oneof![
        1 => Just(0.0),
        6 => (-4.0f64..4.0).prop_map(|e| 10f64.powf(e)),
        2 => (1u32..=10).prop_map(f64::from),
    ];
    prop::collection::vec(rate, 1..=300).prop_map(|mut rates| {
        if rates.iter().all(|&r| r == 0.0) {
            rates[0] = 1.0;
        }
        rates
    })
}

/// A few dominant pages over a Zipf-like tail.
fn skewed_rates() -> impl Strategy<Value = Vec<f64>> {
    (1usize..=300, 0.5f64..2.5, 0usize..=3, 1.0f64..1000.0).prop_map(|(n, s, heavy, weight)| {
        (1..=n)
            .map(|k| {
                let zipf = (k as f64).powf(-s);
                if k <= heavy { zipf * weight } else { zipf }
            })
            .collect()
    })
}

fn horizon(shares: &Shares) -> usize {
    4 * shares.page_count() + 16
}

fn active(shares: &Shares) -> usize {
    shares.as_slice().iter().filter(|&&p| p > 0.0).count()
}

/// Full windows: `−(1 − p_i) ≤ T·p_i − N_i(T) < 1`, within `TOL`, and zero shares never served.
fn check_full_windows(rates: &[f64]) -> Result<(), TestCaseError> {
    let shares = Shares::new(rates)?;
    let pages: Vec<usize> = Carousel::from_shares(shares.clone()).take(horizon(&shares)).collect();
    for (i, &(min, max)) in lag_extremes(&shares, &pages).iter().enumerate() {
        let p = shares.as_slice()[i];
        prop_assert!(max < 1.0 + TOL, "page {i} fell behind by {max}");
        prop_assert!(min >= p - 1.0 - TOL, "page {i} (p={p}) ran ahead by {}", -min);
    }
    prop_assert!(pages.iter().all(|&page| shares.as_slice()[page] > 0.0));
    Ok(())
}

/// Tijdeman's windows: `|T·p_i − N_i(T)| ≤ 1 − 1/(2n − 2)` (n ≥ 2 pages of positive share).
fn check_tijdeman_windows(rates: &[f64]) -> Result<(), TestCaseError> {
    let shares = Shares::new(rates)?;
    let n = active(&shares);
    let bound = if n >= 2 { 1.0 - 1.0 / (2 * n - 2) as f64 } else { 0.0 };
    let carousel = Carousel::with_windows(shares.clone(), Windows::Tijdeman);
    let pages: Vec<usize> = carousel.take(horizon(&shares)).collect();
    for (i, &(min, max)) in lag_extremes(&shares, &pages).iter().enumerate() {
        prop_assert!(max <= bound + TOL, "page {i} fell behind by {max} > {bound}");
        prop_assert!(-min <= bound + TOL, "page {i} ran ahead by {} > {bound}", -min);
    }
    prop_assert!(pages.iter().all(|&page| shares.as_slice()[page] > 0.0));
    Ok(())
}

proptest! {
    #[test]
    fn full_windows_keep_every_page_within_one(rates in rates()) {
        check_full_windows(&rates)?;
    }

    #[test]
    fn full_windows_bound_holds_for_skewed_rates(rates in skewed_rates()) {
        check_full_windows(&rates)?;
    }

    #[test]
    fn tijdeman_windows_meet_tijdemans_bound(rates in rates()) {
        check_tijdeman_windows(&rates)?;
    }

    #[test]
    fn tijdeman_bound_holds_for_skewed_rates(rates in skewed_rates()) {
        check_tijdeman_windows(&rates)?;
    }

    /// The `O(1)`-per-slot meter agrees with the brute-force check, on Algorithm 3 (whose
    /// deviations exceed 1) and on arbitrary sequences with idle slots.
    #[test]
    fn meter_matches_brute_force(
        rates in rates(),
        noise in prop::collection::vec(0usize..400, 0..500),
    ) {
        let shares = Shares::new(&rates)?;
        let credit: Vec<usize> = CreditCarousel::from_shares(shares.clone())
            .take(horizon(&shares))
            .collect();
        for pages in [credit, noise] {
            let mut meter = DiscrepancyMeter::new(&shares);
            pages.iter().for_each(|&page| meter.record(page));
            let extremes = lag_extremes(&shares, &pages);
            let behind = extremes.iter().map(|e| e.1).fold(0.0, f64::max);
            let ahead = extremes.iter().map(|e| -e.0).fold(0.0, f64::max);
            let measured = meter.discrepancy();
            prop_assert!((measured.behind - behind).abs() < 1e-9);
            prop_assert!((measured.ahead - ahead).abs() < 1e-9);
            prop_assert_eq!(meter.slots(), pages.len() as u64);
        }
    }
}
