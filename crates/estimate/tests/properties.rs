//! Property tests: the bounded-state estimators against brute-force twins over the full list
//! of intervals, identities, and invariants for any valid input.

// Tests panic on purpose when a fixture or an observation they build is wrong.
#![allow(clippy::expect_used)]

mod common;

use common::{SplitMix64, exact_bias_corrected, exact_mle, exact_root};
use freshet_estimate::{
    ChangeHistory, EstimateStatus, GammaPrior, bias_corrected_rate, improved_rate_regular,
    last_modified_rate, mle_rate, naive_rate,
};
use proptest::prelude::*;

fn history_of(observations: &[(f64, bool)]) -> ChangeHistory {
    let mut history = ChangeHistory::new();
    for &(interval, changed) in observations {
        history.observe(interval, changed, None).expect("valid observation");
    }
    history
}

/// Intervals log-uniform over [0.01, 100] (a ratio of 10^4), each changed or not.
fn observations() -> impl Strategy<Value = Vec<(f64, bool)>> {
    prop::collection::vec(((-2.0f64..2.0).prop_map(|e| 10f64.powf(e)), any::<bool>()), 1..80)
}

/// `λ̃ ≤ λ̂ ≤ r λ̃` with a little room for rounding.
fn within_bound(histogram: f64, exact: f64, bound: f64) -> bool {
    histogram <= exact * (1.0 + 1e-9) && exact <= bound * histogram * (1.0 + 1e-9)
}

proptest! {
    #[test]
    fn histogram_mle_is_within_its_documented_bound_of_the_exact_mle(obs in observations()) {
        let history = history_of(&obs);
        let estimate = mle_rate(&history);
        prop_assume!(estimate.status == EstimateStatus::Estimated);
        let exact = exact_mle(&obs);
        prop_assert!(
            within_bound(estimate.rate, exact, history.mle_error_bound()),
            "histogram {} exact {} bound {}", estimate.rate, exact, history.mle_error_bound()
        );
    }

    #[test]
    fn histogram_bias_corrected_is_within_its_bound(obs in observations()) {
        let history = history_of(&obs);
        let estimate = bias_corrected_rate(&history);
        prop_assume!(estimate.status == EstimateStatus::Estimated);
        let exact = exact_bias_corrected(&obs);
        prop_assert!(within_bound(estimate.rate, exact, history.mle_error_bound()));
    }

    #[test]
    fn histogram_posterior_mode_is_within_its_bound(
        obs in observations(),
        shape in 0.05f64..20.0,
        rate in 0.05f64..50.0,
    ) {
        let history = history_of(&obs);
        let prior = GammaPrior::new(shape, rate).expect("valid prior");
        let estimate = prior.posterior_from_intervals(&history);
        let changed: Vec<f64> = obs.iter().filter(|o| o.1).map(|o| o.0).collect();
        let unchanged: f64 = obs.iter().filter(|o| !o.1).map(|o| o.0).sum();
        let exact = exact_root(shape, &changed, rate + unchanged);
        prop_assert!(within_bound(estimate.rate, exact, history.mle_error_bound()));
    }

    #[test]
    fn at_most_four_distinct_lengths_give_the_exact_mle(
        obs in prop::collection::vec((prop::sample::select(vec![0.5, 1.0, 3.0, 7.0]), any::<bool>()), 1..60),
    ) {
        let history = history_of(&obs);
        let estimate = mle_rate(&history);
        prop_assume!(estimate.status == EstimateStatus::Estimated);
        let exact = exact_mle(&obs);
        prop_assert!((estimate.rate - exact).abs() <= 1e-12 * exact, "{} vs {}", estimate.rate, exact);
    }

    #[test]
    fn bias_corrected_equals_cho_on_equal_intervals(
        n in 1u32..300,
        changed_fraction in 0.0f64..=1.0,
        interval in 1e-3f64..1e3,
    ) {
        let x = ((f64::from(n) * changed_fraction).round() as u32).min(n);
        let history = history_of(&(0..n).map(|i| (interval, i < x)).collect::<Vec<_>>());
        let corrected = bias_corrected_rate(&history);
        let cho = improved_rate_regular(n, x, interval).expect("valid");
        prop_assert!((corrected.rate - cho.rate).abs() <= 1e-10 * cho.rate.max(1e-300),
            "{} vs {}", corrected.rate, cho.rate);
        prop_assert_eq!(corrected.status, cho.status);
        // And the plain MLE is the closed form of seed 000 when defined.
        if 0 < x && x < n {
            let closed = (f64::from(x) / f64::from(n - x)).ln_1p() / interval;
            prop_assert!((mle_rate(&history).rate - closed).abs() <= 1e-10 * closed);
        }
    }

    #[test]
    fn estimates_are_finite_and_non_negative_for_any_valid_input(
        obs in prop::collection::vec(
            ((-8.0f64..8.0).prop_map(|e| 10f64.powf(e)), any::<bool>(), prop::option::of(0.0f64..=1.0)),
            0..60,
        ),
        shape in 1e-3f64..1e3,
        rate in 1e-3f64..1e3,
    ) {
        let mut history = ChangeHistory::new();
        for &(interval, changed, fraction) in &obs {
            // A Last-Modified age consistent with the outcome: inside a changed interval,
            // at or beyond an unchanged one.
            let age = fraction.map(|f| if changed { f * interval } else { interval * (1.0 + f) });
            history.observe(interval, changed, age).expect("valid observation");
        }
        let prior = GammaPrior::new(shape, rate).expect("valid prior");
        for estimate in [
            naive_rate(&history),
            mle_rate(&history),
            bias_corrected_rate(&history),
            last_modified_rate(&history),
            prior.posterior_from_intervals(&history),
            prior.posterior_from_last_modified(&history),
        ] {
            prop_assert!(estimate.rate.is_finite() && estimate.rate >= 0.0, "{estimate:?}");
            prop_assert!(estimate.std_error >= 0.0, "{estimate:?}");
        }
        prop_assert!(history.mle_error_bound() >= 1.0 && history.mle_error_bound().is_finite());
    }

    #[test]
    fn rejected_observations_change_nothing(
        obs in observations(),
        bad in prop_oneof![
            Just((f64::NAN, true, None)),
            Just((-1.0, false, None)),
            Just((0.0, true, None)),
            Just((f64::INFINITY, false, None)),
            Just((1.0, true, Some(1.5))),
            Just((1.0, true, Some(f64::NAN))),
            Just((1.0, true, Some(-0.1))),
            Just((2.0, false, Some(1.0))),
        ],
    ) {
        let mut history = history_of(&obs);
        let before = history;
        prop_assert!(history.observe(bad.0, bad.1, bad.2).is_err());
        prop_assert_eq!(history, before);
    }
}

#[test]
fn state_stays_96_bytes_after_many_observations() {
    assert_eq!(std::mem::size_of::<ChangeHistory>(), 96);
    let mut rng = SplitMix64(7);
    let mut history = ChangeHistory::new();
    for _ in 0..100_000 {
        let interval = rng.log_uniform(1e-3, 1e3);
        history.observe(interval, rng.uniform() < 0.5, None).expect("valid");
    }
    assert_eq!(history.intervals(), 100_000);
    assert!(mle_rate(&history).rate.is_finite());
}

/// Typical (not worst-case) binning error: over random pages whose intervals spread over a
/// ratio of 10 and of 10^4, the relative error of the histogram MLE. Printed with
/// `--nocapture`; the asserted limits are what the crate documents.
#[test]
fn typical_binning_error_is_small() {
    let mut rng = SplitMix64(2024);
    for (spread, limit) in [(10.0f64, 0.005), (100.0, 0.05), (1e4, 0.35)] {
        let (mut worst, mut total, mut cases) = (0.0f64, 0.0, 0);
        for _ in 0..500 {
            let rate = rng.log_uniform(0.1, 10.0);
            let lo = 0.3 / rate / spread.sqrt();
            let obs: Vec<(f64, bool)> = (0..200)
                .map(|_| {
                    let interval = rng.log_uniform(lo, lo * spread);
                    (interval, common::fetch(&mut rng, rate, interval).0)
                })
                .collect();
            let estimate = mle_rate(&history_of(&obs));
            if estimate.status != EstimateStatus::Estimated {
                continue;
            }
            let error = 1.0 - estimate.rate / exact_mle(&obs);
            worst = worst.max(error);
            total += error;
            cases += 1;
        }
        println!(
            "spread {spread}: {cases} pages, mean relative error {:.2e}, worst {:.2e}",
            total / f64::from(cases),
            worst
        );
        assert!(cases > 400);
        assert!(worst < limit, "spread {spread}: worst {worst}");
    }
}
