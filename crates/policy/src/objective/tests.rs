//! Consistency of every objective: value, marginal, inverse and slope agree with each other.

use super::*;
use proptest::prelude::*;

/// Central difference of `value` in log-spaced steps.
fn numeric_marginal<O: Objective>(objective: O, page: Page, rate: f64) -> f64 {
    let step = rate * 1e-5;
    (objective.value(page, rate + step) - objective.value(page, rate - step)) / (2.0 * step)
}

fn check_objective<O: Objective>(objective: O, page: Page, rate: f64) -> Result<(), TestCaseError> {
    let marginal = objective.marginal(page, rate);
    prop_assert!(marginal.is_finite() && marginal >= 0.0, "marginal {marginal}");
    let numeric = numeric_marginal(objective, page, rate);
    let value_scale = objective.value(page, rate).abs() / rate;
    prop_assert!(
        (numeric - marginal).abs() <= 1e-5 * marginal.abs().max(value_scale),
        "{}: numeric {numeric} vs marginal {marginal} at rate {rate}",
        objective.name()
    );
    // Decreasing marginal (concavity).
    prop_assert!(objective.marginal(page, rate * 1.01) <= marginal * (1.0 + 1e-14));
    prop_assert!(objective.marginal_at_zero(page) >= marginal);
    // The inverse of the marginal round-trips.
    // Near the cutoff the marginal is flat to within rounding (C'(f) → C'(0) exponentially), so
    // the inverse is only defined where the marginal is distinguishable from C'(0).
    let distinguishable = marginal < objective.marginal_at_zero(page) * (1.0 - 1e-6);
    if marginal > 0.0 && rate < objective.max_rate(page) && distinguishable {
        let inverse = objective.rate_at_marginal(page, marginal);
        prop_assert!(
            (inverse.rate / rate - 1.0).abs() < 1e-7,
            "{}: inverse {} vs rate {rate}",
            objective.name(),
            inverse.rate
        );
        // df/dμ against a difference quotient.
        // Near the cutoff the inverse is sharply curved on the scale of C'(0) − C'(f); a step of
        // 1e-6 of that scale left the quotient to rounding (regression: λ = 50.9, f = 3.06,
        // where C'(0) − C'(f) is 1e-6 of C'(f)).
        let room = objective.marginal_at_zero(page) - marginal;
        let step = 1e-4 * marginal.min(room);
        let up = objective.rate_at_marginal(page, marginal + step).rate;
        let down = objective.rate_at_marginal(page, marginal - step).rate;
        let numeric_slope = (up - down) / (2.0 * step);
        prop_assert!(
            (numeric_slope - inverse.slope).abs() <= 1e-4 * inverse.slope.abs(),
            "{}: slope {} vs numeric {numeric_slope}",
            objective.name(),
            inverse.slope
        );
    }
    Ok(())
}

proptest! {
    #[test]
    fn objectives_are_consistent(
        log_weight in -6.0_f64..6.0,
        log_change in -4.0_f64..3.0,
        log_ratio in -3.0_f64..3.0,
    ) {
        let weight = 10f64.powf(log_weight);
        let change_rate = 10f64.powf(log_change);
        let page = Page::new(weight, change_rate);
        let rate = change_rate * 10f64.powf(log_ratio);
        check_objective(Freshness, page, rate)?;
        check_objective(Changes, page, rate)?;
        check_objective(FreshnessPoisson, page, rate)?;
        check_objective(Age, page, rate)?;
        check_objective(Delay, page, rate)?;
        let discrete_page = Page::new(weight, change_rate / (1.0 + change_rate));
        check_objective(FreshnessDiscrete, discrete_page, rate.min(0.9) * 0.99)?;
    }
}

#[test]
fn thresholds_at_or_above_the_first_marginal_give_rate_zero() {
    let page = Page::new(2.0, 0.5);
    for objective in [Freshness.marginal_at_zero(page), FreshnessPoisson.marginal_at_zero(page)] {
        assert_eq!(objective, 4.0);
    }
    assert_eq!(Freshness.rate_at_marginal(page, 4.0).rate, 0.0);
    assert_eq!(FreshnessPoisson.rate_at_marginal(page, 4.0).rate, 0.0);
    assert_eq!(Changes.rate_at_marginal(page, 2.0).rate, 0.0);
    assert!(Age.rate_at_marginal(page, 1e12).rate > 0.0);
    assert!(Delay.rate_at_marginal(page, 1e12).rate > 0.0);
}

#[test]
fn changes_is_freshness_with_weight_times_change_rate() {
    let page = Page::new(3.0, 0.7);
    let scaled = Page::new(3.0 * 0.7, 0.7);
    for rate in [0.01, 0.3, 1.0, 7.0] {
        let changes = Changes.value(page, rate);
        let freshness = Freshness.value(scaled, rate);
        assert!((changes / freshness - 1.0).abs() < 1e-14);
    }
}

#[test]
fn names_round_trip() {
    for kind in ObjectiveKind::ALL {
        assert_eq!(kind.name().parse::<ObjectiveKind>(), Ok(kind));
    }
    assert!("fresh".parse::<ObjectiveKind>().is_err());
}

#[test]
fn cho_fixed_order_formulas() {
    // shared/vectors/cho-5-elements.json, formulas_fixed_order: freshness (1 − e^(−r))/r and age
    // (1/f)(1/2 − 1/r + (1 − e^(−r))/r²) with r = λ/f.
    let page = Page::new(1.0, 2.0);
    let rate = 1.358;
    let r: f64 = 2.0 / rate;
    let freshness = (1.0 - (-r).exp()) / r;
    let age = (1.0 / rate) * (0.5 - 1.0 / r + (1.0 - (-r).exp()) / (r * r));
    assert!((Freshness.value(page, rate) - freshness).abs() < 1e-15);
    assert!((Age::expected_age(page, rate) - age).abs() < 1e-15);
}

#[test]
fn discrete_rejects_change_probabilities_outside_the_unit_interval() {
    assert!(FreshnessDiscrete.check_page(3, Page::new(1.0, 1.0)).is_err());
    assert!(FreshnessDiscrete.check_page(3, Page::new(1.0, 0.5)).is_ok());
    assert!(Freshness.check_page(3, Page::new(1.0, 5.0)).is_ok());
    assert!(matches!(
        Freshness.check_page(3, Page::new(f64::NAN, 5.0)),
        Err(PolicyError::InvalidWeight { page: 3, .. })
    ));
    assert!(matches!(
        Delay.check_page(4, Page::new(1.0, 0.0)),
        Err(PolicyError::InvalidChangeRate { page: 4, .. })
    ));
}
