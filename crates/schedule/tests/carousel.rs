//! Worked examples and regression tests of the carousels.

mod common;

use common::TOL;
use freshet_schedule::{Carousel, CreditCarousel, DiscrepancyMeter, Fetch, ScheduleError, Shares, Windows};

type TestResult = Result<(), ScheduleError>;

fn take(carousel: Carousel, slots: usize) -> Vec<usize> {
    carousel.take(slots).collect()
}

#[test]
fn equal_rates_give_round_robin() -> TestResult {
    for n in [1, 2, 3, 7, 10, 100] {
        let rates = vec![2.5; n];
        let expected: Vec<usize> = (0..5 * n).map(|t| t % n).collect();
        assert_eq!(take(Carousel::new(&rates)?, 5 * n), expected, "n = {n}");
        let tijdeman = Carousel::with_windows(Shares::new(&rates)?, Windows::Tijdeman);
        assert_eq!(take(tijdeman, 5 * n), expected, "n = {n}");
        let credit: Vec<usize> = CreditCarousel::new(&rates)?.take(5 * n).collect();
        assert_eq!(credit, expected, "n = {n}");
    }
    Ok(())
}

#[test]
fn half_quarter_quarter_has_period_four() -> TestResult {
    for rates in [[0.5, 0.25, 0.25], [2.0, 1.0, 1.0]] {
        let pages = take(Carousel::new(&rates)?, 400);
        assert_eq!(pages[..4], [0, 1, 0, 2]);
        for (t, &page) in pages.iter().enumerate() {
            assert_eq!(page, pages[t % 4], "slot {t}");
        }
        // Tijdeman's narrower windows delay page 0's second occurrence: another period-4
        // pattern, still with page 0 in two slots of every four.
        let tijdeman = Carousel::with_windows(Shares::new(&rates)?, Windows::Tijdeman);
        let pages = take(tijdeman, 400);
        assert_eq!(pages[..4], [0, 1, 2, 0]);
        for (t, &page) in pages.iter().enumerate() {
            assert_eq!(page, pages[t % 4], "slot {t}");
        }
    }
    Ok(())
}

/// Algorithm 3 as printed does not put page 0 in every other slot for (½, ¼, ¼).
#[test]
fn algorithm_3_on_half_quarter_quarter() -> TestResult {
    let pages: Vec<usize> = CreditCarousel::new(&[0.5, 0.25, 0.25])?.take(8).collect();
    assert_eq!(pages, [0, 1, 2, 0, 0, 1, 2, 0]);
    Ok(())
}

#[test]
fn zero_rate_pages_never_appear() -> TestResult {
    let rates = [0.0, 3.0, 0.0, 1e-3, 0.0, 7.0, -0.0];
    let zero = |page: usize| rates[page] == 0.0;
    let shares = Shares::new(&rates)?;
    for windows in [Windows::Full, Windows::Tijdeman] {
        let carousel = Carousel::with_windows(shares.clone(), windows);
        assert!(carousel.take(20_000).all(|page| !zero(page)));
    }
    assert!(CreditCarousel::new(&rates)?.take(20_000).all(|page| !zero(page)));
    Ok(())
}

#[test]
fn output_is_deterministic() -> TestResult {
    let rates: Vec<f64> = (1..=200).map(|k| 1.0 / f64::from(k).sqrt()).collect();
    for windows in [Windows::Full, Windows::Tijdeman] {
        let run = || -> Result<Vec<usize>, ScheduleError> {
            Ok(take(Carousel::with_windows(Shares::new(&rates)?, windows), 5_000))
        };
        assert_eq!(run()?, run()?);
        // A clone mid-run continues identically.
        let mut first = Carousel::with_windows(Shares::new(&rates)?, windows);
        first.by_ref().take(777).for_each(drop);
        let second = first.clone();
        assert_eq!(take(first, 3_000), take(second, 3_000));
    }
    Ok(())
}

#[test]
fn fetches_carry_slot_and_time() -> TestResult {
    let mut carousel = Carousel::new(&[3.0, 1.0])?;
    assert_eq!(carousel.slot_length(), 0.25);
    let fetches: Vec<Fetch> = (0..4).map(|_| carousel.next_fetch()).collect();
    let times: Vec<f64> = fetches.iter().map(|f| f.time).collect();
    let slots: Vec<u64> = fetches.iter().map(|f| f.slot).collect();
    assert_eq!(times, [0.0, 0.25, 0.5, 0.75]);
    assert_eq!(slots, [0, 1, 2, 3]);
    assert_eq!(carousel.next_slot(), 4);
    assert_eq!(carousel.served(0), 3);
    assert_eq!(carousel.served(1), 1);
    assert_eq!(carousel.served(9), 0);
    Ok(())
}

#[test]
fn single_page_takes_every_slot() -> TestResult {
    for windows in [Windows::Full, Windows::Tijdeman] {
        let carousel = Carousel::with_windows(Shares::new(&[0.0, 4.2, 0.0])?, windows);
        assert!(take(carousel, 100).iter().all(|&page| page == 1));
    }
    Ok(())
}

/// 10^6 slots over shares that are not exact in binary: no drift, the bound holds at the end
/// and over every prefix (by the meter).
#[test]
fn million_slots_show_no_drift() -> TestResult {
    const SLOTS: u64 = 1_000_000;
    let rates: Vec<f64> = (1..=97)
        .map(|k| {
            let k = f64::from(k);
            10f64.powf((k * 0.618_033_988_7).fract() * 4.0 - 2.0)
        })
        .collect();
    let shares = Shares::new(&rates)?;
    let n = rates.len();
    let tijdeman_bound = 1.0 - 1.0 / (2 * n - 2) as f64;
    for (windows, bound) in [(Windows::Full, 1.0), (Windows::Tijdeman, tijdeman_bound)] {
        let mut carousel = Carousel::with_windows(shares.clone(), windows);
        let mut meter = DiscrepancyMeter::new(&shares);
        for _ in 0..SLOTS {
            meter.record(carousel.next_fetch().page);
        }
        assert_eq!(carousel.next_slot(), SLOTS);
        for (page, &p) in shares.as_slice().iter().enumerate() {
            let expected = SLOTS as f64 * p;
            let deviation = (carousel.served(page) as f64 - expected).abs();
            assert!(deviation < bound + TOL, "{windows:?} page {page}: {deviation}");
        }
        let worst = meter.discrepancy().worst();
        assert!(worst < bound + TOL, "{windows:?}: {worst}");
    }
    Ok(())
}

/// Shares like 1/3 whose releases fall on slot boundaries only up to rounding: releases are
/// decided exactly, so no slot idles and no window is lost.
#[test]
fn releases_on_rounded_slot_boundaries() -> TestResult {
    for rates in [vec![1.0; 3], vec![1.0, 1.0, 1.0, 3.0, 3.0], vec![0.1, 0.2, 0.3, 0.4]] {
        let shares = Shares::new(&rates)?;
        let mut meter = DiscrepancyMeter::new(&shares);
        for page in Carousel::from_shares(shares.clone()).take(100_000) {
            meter.record(page);
        }
        assert!(meter.discrepancy().worst() < 1.0 + TOL, "{rates:?}");
    }
    Ok(())
}

/// Regression: the literal Algorithm 3 falls behind by more than 1 on (1, 1, 1, 11, 11)
/// (found by exhaustive search over small integer rates); both carousels stay within bound.
#[test]
fn algorithm_3_exceeds_one_where_edf_does_not() -> TestResult {
    let rates = [1.0, 1.0, 1.0, 11.0, 11.0];
    let shares = Shares::new(&rates)?;
    let measure = |pages: &mut dyn Iterator<Item = usize>| {
        let mut meter = DiscrepancyMeter::new(&shares);
        pages.take(100).for_each(|page| meter.record(page));
        meter.discrepancy()
    };
    let credit = measure(&mut CreditCarousel::from_shares(shares.clone()));
    assert!(credit.behind > 1.03, "{credit:?}");
    let full = measure(&mut Carousel::from_shares(shares.clone()));
    assert!(full.worst() < 1.0, "{full:?}");
    let tijdeman = measure(&mut Carousel::with_windows(shares.clone(), Windows::Tijdeman));
    assert!(tijdeman.worst() <= 1.0 - 1.0 / 8.0 + TOL, "{tijdeman:?}");
    Ok(())
}

#[test]
fn bad_rates_are_typed_errors() {
    assert_eq!(Carousel::new(&[]).err(), Some(ScheduleError::Empty));
    assert_eq!(CreditCarousel::new(&[0.0, 0.0]).err(), Some(ScheduleError::AllZero { pages: 2 }));
    assert_eq!(Carousel::new(&[1.0, f64::NAN]).err(), Some(ScheduleError::NotANumber { page: 1 }));
}
