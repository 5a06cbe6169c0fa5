//! Property tests of the empirical-Bayes priors ([`RateMixture`], [`PooledPrior`]) and the
//! posteriors they give: the invariants a scheduler relies on, for any prior the fit can
//! produce and any history.

// Tests panic on purpose when a fixture or an observation they build is wrong.
#![allow(clippy::expect_used)]

use freshet_estimate::{ChangeHistory, PoolSettings, PooledPrior, RateMixture, RatePosterior};
use proptest::prelude::*;

fn history_of(observations: &[(f64, bool)]) -> ChangeHistory {
    let mut history = ChangeHistory::new();
    for &(interval, changed) in observations {
        history.observe(interval, changed, None).expect("valid observation");
    }
    history
}

/// Intervals log-uniform over [0.01, 100], each changed or not.
fn observations(max: usize) -> impl Strategy<Value = Vec<(f64, bool)>> {
    prop::collection::vec(((-2.0f64..2.0).prop_map(|e| 10f64.powf(e)), any::<bool>()), 0..max)
}

/// One of four intervals spread over [0.01, 100]: the changed intervals of a history then fill
/// at most the histogram's four entries and are kept exactly (no merging, which replaces
/// intervals by their mean and so may move the likelihood of earlier observations).
fn exact_interval() -> impl Strategy<Value = f64> {
    prop::sample::select(vec![0.013, 0.31, 4.7, 83.0])
}

fn exact_observations(max: usize) -> impl Strategy<Value = Vec<(f64, bool)>> {
    prop::collection::vec((exact_interval(), any::<bool>()), 0..max)
}

/// A prior fitted to 1..40 random pages on 1..4 hosts, and the host to use.
fn fitted_prior() -> impl Strategy<Value = (PooledPrior, usize)> {
    (prop::collection::vec((0usize..4, observations(12)), 1..40), 0usize..5).prop_map(|(pages, host)| {
        let settings = PoolSettings::around(1.0).expect("valid settings");
        let histories: Vec<(usize, ChangeHistory)> =
            pages.iter().map(|(host, obs)| (*host, history_of(obs))).collect();
        let prior = PooledPrior::fit(&settings, histories.iter().map(|(h, p)| (*h, p))).expect("valid grid");
        (prior, host)
    })
}

const EPS: f64 = 1e-9;

fn check_posterior(posterior: &RatePosterior, grid: &[f64]) -> Result<(), TestCaseError> {
    let total: f64 = posterior.probabilities.iter().sum();
    prop_assert!((total - 1.0).abs() < 1e-9, "probabilities sum to {total}");
    prop_assert!(posterior.probabilities.iter().all(|&p| p >= 0.0));
    let (low, high) = (grid[0], grid[grid.len() - 1]);
    prop_assert!(posterior.mean >= low * (1.0 - EPS) && posterior.mean <= high * (1.0 + EPS));
    prop_assert!(posterior.harmonic_mean >= low * (1.0 - EPS));
    prop_assert!(posterior.harmonic_mean <= posterior.mean * (1.0 + EPS), "harmonic above mean");
    let quantiles: Vec<f64> =
        [0.0, 0.05, 0.5, 0.95, 1.0].iter().map(|&q| posterior.quantile(grid, q)).collect();
    prop_assert!(quantiles.windows(2).all(|pair| pair[0] <= pair[1]), "quantiles {quantiles:?}");
    prop_assert!(quantiles[0] >= low && quantiles[4] <= high);
    Ok(())
}

proptest! {
    // Each case fits a prior (EM over up to 40 pages): fewer cases than the default 256.
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn priors_are_distributions_and_posteriors_stay_on_the_grid(
        (prior, host) in fitted_prior(),
        obs in observations(30),
    ) {
        for mixture in [prior.global(), prior.host(host)] {
            let total: f64 = mixture.weights().iter().sum();
            prop_assert!((total - 1.0).abs() < 1e-9, "weights sum to {total}");
            prop_assert!(mixture.weights().iter().all(|&w| w > 0.0), "a rate became impossible");
        }
        let posterior = prior.posterior(host, &history_of(&obs));
        check_posterior(&posterior, prior.host(host).rates())?;
    }

    /// No observation: the posterior is the host's prior.
    #[test]
    fn a_new_page_gets_its_hosts_prior((prior, host) in fitted_prior()) {
        let posterior = prior.posterior(host, &ChangeHistory::new());
        prop_assert!((posterior.mean - prior.host(host).mean()).abs() <= EPS * posterior.mean);
        for (p, w) in posterior.probabilities.iter().zip(prior.host(host).weights()) {
            prop_assert!((p - w).abs() <= EPS * w, "{p} against the prior's {w}");
        }
    }

    /// A changed interval instead of an unchanged one of the same length never lowers the
    /// posterior (mean or harmonic mean): its likelihood ratio `e^{λI} − 1` grows with `λ`, so the
    /// posterior moves up in likelihood-ratio order, and so do its quantiles. (Exact histories:
    /// see `exact_interval`.)
    #[test]
    fn posterior_is_monotone_in_observed_changes(
        (prior, host) in fitted_prior(),
        obs in exact_observations(30),
        flip in any::<prop::sample::Index>(),
        interval in exact_interval(),
    ) {
        let mut unchanged = obs.clone();
        let mut changed = obs;
        let at = flip.index(unchanged.len() + 1);
        unchanged.insert(at, (interval, false));
        changed.insert(at, (interval, true));
        let low = prior.posterior(host, &history_of(&unchanged));
        let high = prior.posterior(host, &history_of(&changed));
        prop_assert!(high.mean >= low.mean * (1.0 - EPS), "{} < {}", high.mean, low.mean);
        prop_assert!(high.harmonic_mean >= low.harmonic_mean * (1.0 - EPS));
        // Likelihood-ratio order moves every quantile up too (up to rounding at a grid step).
        let grid = prior.host(host).rates();
        for level in [0.05, 0.5] {
            let (q_low, q_high) = (low.quantile(grid, level - 1e-9), high.quantile(grid, level + 1e-9));
            prop_assert!(q_high >= q_low, "quantile {level}: {q_high} < {q_low}");
        }
    }

    /// Between prior and data: a page seen changed at every fetch (MLE `+∞`) has a posterior
    /// mean at or above its prior's, one never seen changed (MLE 0) at or below it; more such
    /// observations move it further.
    #[test]
    fn posterior_lies_between_the_prior_and_one_sided_data(
        (prior, host) in fitted_prior(),
        intervals in prop::collection::vec(exact_interval(), 1..20),
    ) {
        let prior_mean = prior.host(host).mean();
        let all = |changed: bool, count: usize| {
            let obs: Vec<(f64, bool)> = intervals.iter().take(count).map(|&i| (i, changed)).collect();
            prior.posterior(host, &history_of(&obs)).mean
        };
        let n = intervals.len();
        prop_assert!(all(true, n) >= prior_mean * (1.0 - EPS));
        prop_assert!(all(false, n) <= prior_mean * (1.0 + EPS));
        prop_assert!(all(true, n) >= all(true, n - 1) * (1.0 - EPS));
        prop_assert!(all(false, n) <= all(false, n - 1) * (1.0 + EPS));
    }
}

/// The EM fit never lowers the marginal likelihood `Σ_i ln Σ_g π_g L_ig` (without smoothing,
/// the plain EM step of `RateMixture::fit`).
#[test]
fn em_raises_the_marginal_likelihood() {
    let mut runner = proptest::test_runner::TestRunner::default();
    let pages = prop::collection::vec(observations(15), 1..30);
    runner
        .run(&pages, |pages| {
            let histories: Vec<ChangeHistory> = pages.iter().map(|obs| history_of(obs)).collect();
            let marginal = |mixture: &RateMixture| -> f64 {
                histories
                    .iter()
                    .filter(|h| h.intervals() > 0)
                    .map(|h| {
                        mixture
                            .rates()
                            .iter()
                            .zip(mixture.weights())
                            .map(|(&rate, w)| w * h.log_likelihood(rate).exp())
                            .sum::<f64>()
                            .ln()
                    })
                    .sum()
            };
            let mut mixture = RateMixture::log_uniform(1e-3, 1e3, 4).expect("valid grid");
            let mut before = marginal(&mixture);
            for _ in 0..5 {
                mixture.fit(&histories, 1, None, 0.0);
                let after = marginal(&mixture);
                prop_assert!(after >= before - 1e-9 * before.abs().max(1.0), "{after} < {before}");
                before = after;
            }
            Ok(())
        })
        .expect("EM is monotone");
}

/// The posterior concentrates near the true rate with many informative observations, and a
/// host's prior follows its own pages.
#[test]
fn pooled_posteriors_find_the_rates_of_two_hosts() {
    let settings = PoolSettings::around(1.0).expect("valid settings");
    // Host 0 pages change at rate 2, host 1 at rate 0.1, observed at interval 1 (the same
    // pattern of changes every page: 40 intervals, the expected share changed).
    let pattern = |rate: f64| -> ChangeHistory {
        let changed = (40.0 * (1.0 - (-rate).exp())).round() as usize;
        history_of(&(0..40).map(|i| (1.0, i < changed)).collect::<Vec<_>>())
    };
    let pages: Vec<(usize, ChangeHistory)> =
        (0..100).map(|i| if i % 2 == 0 { (0, pattern(2.0)) } else { (1, pattern(0.1)) }).collect();
    let prior = PooledPrior::fit(&settings, pages.iter().map(|(h, p)| (*h, p))).expect("valid grid");
    let fast = prior.posterior(0, &pages[0].1).mean;
    let slow = prior.posterior(1, &pages[1].1).mean;
    assert!((fast / 2.0 - 1.0).abs() < 0.25, "fast page estimated at {fast}");
    assert!((slow / 0.1 - 1.0).abs() < 0.25, "slow page estimated at {slow}");
    // A new page on each host: its host's rates, not the all-pages mix (most of the prior's mass
    // on its side of 0.5; means are dominated by the smoothing's upper tail).
    let slow_mass = |host: usize| -> f64 {
        let mixture = prior.host(host);
        mixture.rates().iter().zip(mixture.weights()).filter(|&(&r, _)| r < 0.5).map(|(_, w)| w).sum()
    };
    assert!(slow_mass(0) < 0.2 && slow_mass(1) > 0.8, "{} {}", slow_mass(0), slow_mass(1));
}
