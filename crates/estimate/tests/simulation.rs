//! Simulation: Poisson pages with known λ fetched at irregular intervals, with a seeded
//! SplitMix64; the estimators must recover λ (or be biased in the documented direction).

// Tests panic on purpose when a fixture or an observation they build is wrong.
#![allow(clippy::expect_used)]

mod common;

use common::{SplitMix64, fetch};
use freshet_estimate::{
    ChangeHistory, EstimateStatus, GammaPrior, bias_corrected_rate, last_modified_rate, mle_rate, naive_rate,
};

/// One page with `n` fetches at log-uniform intervals in `[lo, hi]`, every fetch with its
/// Last-Modified age.
fn simulate(rng: &mut SplitMix64, rate: f64, n: u32, lo: f64, hi: f64) -> ChangeHistory {
    let mut history = ChangeHistory::new();
    for _ in 0..n {
        let interval = rng.log_uniform(lo, hi);
        let (changed, age) = fetch(rng, rate, interval);
        history.observe(interval, changed, Some(age)).expect("valid observation");
    }
    history
}

#[test]
fn irregular_mle_and_last_modified_mle_recover_the_rate() {
    let mut rng = SplitMix64(0x5EED);
    // Intervals spread over a ratio of 8 (0.25/λ .. 2/λ), so λI runs from 0.25 to 2.
    for rate in [0.02, 0.3, 1.0, 7.0] {
        let history = simulate(&mut rng, rate, 5_000, 0.25 / rate, 2.0 / rate);
        let estimates = [
            ("mle", mle_rate(&history)),
            ("bias-corrected", bias_corrected_rate(&history)),
            ("last-modified", last_modified_rate(&history)),
        ];
        for (name, estimate) in estimates {
            let error = estimate.rate / rate - 1.0;
            println!(
                "λ = {rate}: {name} {:.4} ± {:.4} (relative error {error:+.4})",
                estimate.rate, estimate.std_error
            );
            assert_eq!(estimate.status, EstimateStatus::Estimated);
            assert!(error.abs() < 0.05, "λ = {rate}: {name} off by {error}");
            // The reported uncertainty is of the right size: within 4 standard errors.
            assert!((estimate.rate - rate).abs() < 4.0 * estimate.std_error, "{name}");
        }
    }
}

#[test]
fn naive_estimate_is_biased_low_when_rate_times_interval_is_large() {
    let mut rng = SplitMix64(42);
    for (rate, max_ratio) in [(2.0, 0.6), (10.0, 0.2)] {
        let history = simulate(&mut rng, rate, 5_000, 0.5, 2.0);
        let naive = naive_rate(&history).rate;
        let mle = mle_rate(&history).rate;
        println!("λ = {rate}: naive {naive:.3}, mle {mle:.3}");
        assert!(naive < max_ratio * rate, "naive {naive} not biased low enough for λ = {rate}");
        assert!(naive < mle);
    }
    // When λI is small almost every change is seen and the naive estimate is close.
    let history = simulate(&mut rng, 0.05, 200_000, 0.5, 2.0);
    let naive = naive_rate(&history).rate;
    println!("λ = 0.05: naive {naive:.4}");
    assert!(naive < 0.05 && naive > 0.9 * 0.05, "naive {naive}");
}

/// Mean over `pages` replicate pages of `k/E` and `(k − 1)/E`, relative to λ.
fn last_modified_bias(rate: f64, interval: f64, n: u32, pages: u32) -> (f64, f64) {
    let mut rng = SplitMix64(0xB1A5 + n as u64);
    let (mut mle, mut minus_one, mut used) = (0.0, 0.0, 0u32);
    for _ in 0..pages {
        let history = simulate(&mut rng, rate, n, interval, interval);
        let k = f64::from(history.last_modified_changes());
        let exposure = history.last_modified_exposure();
        if k < 2.0 {
            continue;
        }
        mle += k / exposure;
        minus_one += (k - 1.0) / exposure;
        used += 1;
    }
    let used = f64::from(used);
    (mle / used / rate, minus_one / used / rate)
}

#[test]
fn last_modified_mle_bias_depends_on_the_regime_as_documented() {
    // λI ≫ 1: every fetch sees a change, E ~ Gamma(n, λ): k/E is high by n/(n − 1) = 1.25,
    // (k − 1)/E is unbiased.
    let (mle, minus_one) = last_modified_bias(10.0, 1.0, 5, 40_000);
    println!("λI = 10, n = 5: E[k/E]/λ = {mle:.4}, E[(k-1)/E]/λ = {minus_one:.4}");
    assert!((mle - 1.25).abs() < 0.03);
    assert!((minus_one - 1.0).abs() < 0.03);
    // λI ≪ 1: exposure nearly fixed, k ~ Poisson: k/E nearly unbiased, (k − 1)/E low.
    let (mle, minus_one) = last_modified_bias(0.05, 1.0, 400, 20_000);
    println!("λI = 0.05, n = 400: E[k/E]/λ = {mle:.4}, E[(k-1)/E]/λ = {minus_one:.4}");
    assert!((mle - 1.0).abs() < 0.03);
    assert!(minus_one < 0.96);
}

#[test]
fn posterior_shrinks_a_short_history_toward_the_host_prior() {
    let mut rng = SplitMix64(99);
    let prior = GammaPrior::from_pool(0.5, 20.0).expect("valid prior");
    let (mut mle_error, mut posterior_error) = (0.0, 0.0);
    for _ in 0..2_000 {
        // Pages of the host have rates near the pool mean.
        let rate = rng.log_uniform(0.35, 0.7);
        let history = simulate(&mut rng, rate, 4, 1.0, 4.0);
        posterior_error += (prior.posterior_from_intervals(&history).rate - rate).powi(2);
        mle_error += (bias_corrected_rate(&history).rate - rate).powi(2);
    }
    println!(
        "4 fetches: rms error bias-corrected {:.3}, posterior {:.3}",
        (mle_error / 2000.0).sqrt(),
        (posterior_error / 2000.0).sqrt()
    );
    assert!(posterior_error < 0.5 * mle_error);
}
