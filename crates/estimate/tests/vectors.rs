//! Worked examples from `tests/data/change-rate-estimators.json` (seeds 000 and 004, Cho &
//! Garcia-Molina 2003) and the edge cases it names.

// Tests panic on purpose when a fixture or an observation they build is wrong.
#![allow(clippy::expect_used)]

use freshet_estimate::{
    ChangeHistory, EstimateStatus, GammaPrior, bias_corrected_rate, improved_rate_regular,
    last_modified_rate, mle_rate, naive_rate,
};
use serde_json::Value;

fn cases() -> Vec<Value> {
    let text = include_str!("data/change-rate-estimators.json");
    let doc: Value = serde_json::from_str(text).expect("vector file is valid JSON");
    doc["cases"].as_array().expect("cases is an array").clone()
}

fn num(case: &Value, key: &str) -> Option<f64> {
    case.get(key).and_then(Value::as_f64)
}

/// Regular fetches: `changes` of `visits` intervals saw a change.
fn regular_history(visits: u32, changes: u32, interval: f64) -> ChangeHistory {
    let mut history = ChangeHistory::new();
    for i in 0..visits {
        history.observe(interval, i < changes, None).expect("valid observation");
    }
    history
}

#[test]
fn every_vector_case_matches_within_its_tolerance() {
    let cases = cases();
    assert_eq!(cases.len(), 3, "the vector file changed; review this test");
    let mut checked = 0;
    for case in &cases {
        let name = case["name"].as_str().expect("name");
        let visits = case["visits"].as_u64().expect("visits") as u32;
        let changes = case["changes_seen"].as_u64().expect("changes_seen") as u32;
        let interval = num(case, "interval").expect("interval");
        let tolerance = num(case, "tolerance").expect("tolerance");
        let history = regular_history(visits, changes, interval);
        if let Some(expected) = num(case, "naive_X_over_T") {
            let got = naive_rate(&history).rate;
            assert!((got - expected).abs() <= tolerance, "{name}: naive {got} vs {expected}");
            checked += 1;
        }
        if let Some(expected) = num(case, "improved_log_estimator") {
            let got = improved_rate_regular(visits, changes, interval).expect("valid").rate;
            assert!((got - expected).abs() <= tolerance, "{name}: improved {got} vs {expected}");
            let corrected = bias_corrected_rate(&history).rate;
            assert!((corrected - expected).abs() <= tolerance, "{name}: corrected {corrected}");
            checked += 2;
        }
        if let Some(expected) = num(case, "mle") {
            let got = mle_rate(&history);
            assert_eq!(got.status, EstimateStatus::Estimated, "{name}");
            assert!((got.rate - expected).abs() <= tolerance, "{name}: mle {} vs {expected}", got.rate);
            checked += 1;
        }
    }
    assert_eq!(checked, 7, "2 naive + 2×2 improved + 1 MLE values");
}

#[test]
fn slide_004_improved_estimator_rounds_to_0_34() {
    let got = improved_rate_regular(10, 3, 1.0).expect("valid").rate;
    assert_eq!(format!("{got:.2}"), "0.34");
}

#[test]
fn all_visits_changed_caps_the_mle_and_says_so() {
    let history = regular_history(10, 10, 2.0);
    let mle = mle_rate(&history);
    assert_eq!(mle.status, EstimateStatus::Capped);
    assert!(mle.rate.is_finite() && mle.rate > 0.0);
    // The cap is the bias-corrected rate, ln(2n + 1) / I for equal intervals.
    assert!((mle.rate - 21f64.ln() / 2.0).abs() < 1e-12);
    assert!(mle.std_error.is_infinite());
    let cho = improved_rate_regular(10, 10, 2.0).expect("valid");
    assert_eq!(cho.status, EstimateStatus::Estimated);
    assert!((cho.rate - mle.rate).abs() < 1e-12);
}

#[test]
fn no_visit_changed_gives_zero_and_a_prior_keeps_the_page_schedulable() {
    let history = regular_history(10, 0, 1.0);
    for estimate in [mle_rate(&history), bias_corrected_rate(&history), naive_rate(&history)] {
        assert_eq!((estimate.rate, estimate.status), (0.0, EstimateStatus::NoChangeSeen));
    }
    let prior = GammaPrior::new(2.0, 4.0).expect("valid prior");
    let posterior = prior.posterior_from_intervals(&history);
    assert_eq!(posterior.status, EstimateStatus::Estimated);
    assert!(posterior.rate > 0.0 && posterior.rate < prior.mean());
    // No change in T = 10: the log-scale mode solves α/λ = β + T, λ = 2 / 14.
    assert!((posterior.rate - 2.0 / 14.0).abs() < 1e-12);
}

#[test]
fn empty_history_reports_no_data_and_the_prior_mean() {
    let history = ChangeHistory::new();
    for estimate in [
        mle_rate(&history),
        bias_corrected_rate(&history),
        naive_rate(&history),
        last_modified_rate(&history),
    ] {
        assert_eq!((estimate.rate, estimate.status), (0.0, EstimateStatus::NoData));
    }
    let prior = GammaPrior::from_pool(0.5, 6.0).expect("valid");
    for estimate in [prior.posterior_from_intervals(&history), prior.posterior_from_last_modified(&history)] {
        assert_eq!(estimate.status, EstimateStatus::NoData);
        assert!((estimate.rate - 0.5).abs() < 1e-15);
        assert!((estimate.std_error - 3f64.sqrt() / 6.0).abs() < 1e-15);
    }
}
