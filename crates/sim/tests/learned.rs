//! `threshold` with learned rates against known rates (issue 3 §4: "with learned rates, at least
//! 95% of the known-rate result once every page has been fetched ~20 times"), on instances small
//! enough for a debug build. The horizon is `40·n/R` (the budget of 40 fetches per page) and the
//! second half is measured, as in `experiments/learned.sh`, which runs the full Fig. 1 sets and
//! a host-capped set of 10^5 pages (results in `docs/learned/`). The bounds sit below what the
//! release runs of the same instances gave on seeds 1–3 (quoted per test), so that a learner
//! that stops exploring, or a scheduler that stops spending its budget, fails them.

mod common;

use freshet_sim::{Config, Host, PolicyKind, RatesMode, SimPage, SimRng, simulate};

/// Weighted freshness of `threshold`, learned over known, and the learned run's fetch rate.
fn learned_over_known(config: &Config, seed: u64) -> (f64, f64) {
    let run = |rates| {
        simulate(config, PolicyKind::Threshold, rates, seed).unwrap_or_else(|e| panic!("{rates:?}: {e}"))
    };
    let (known, learned) = (run(RatesMode::Known), run(RatesMode::Learned));
    assert_eq!(learned.violations.total(), 0, "{:?}", learned.violations);
    let ratio = learned.weighted_freshness / known.weighted_freshness;
    println!(
        "learned {:.4} / known {:.4} = {ratio:.4}; fetch rate {:.3} (budget {})",
        learned.weighted_freshness, known.weighted_freshness, learned.fetch_rate, config.budget
    );
    (ratio, learned.fetch_rate)
}

/// The first `pages` pages of a Fig. 1 set at budget `budget`, horizon `40·n/R`, second half
/// measured.
fn fig1(file: &str, pages: usize, budget: f64) -> Config {
    let pages: Vec<(f64, f64)> = common::load_pages(file).into_iter().take(pages).collect();
    let mut config = common::config(&pages, budget, 40.0 * pages.len() as f64 / budget);
    config.warmup_fraction = 0.5;
    config
}

/// Zipf utilities: the valuable pages are few and fetched often, so their observations are
/// informative. Release, seeds 1–3: 0.995–1.009 at R = 1, 0.988–1.005 at R = 5.
#[test]
fn threshold_learns_the_zipf_set_to_95_percent_of_known() {
    let (ratio, fetch_rate) = learned_over_known(&fig1("azar-fig1-zipf.csv", 200, 1.0), 1);
    assert!(ratio >= 0.95, "learned/known {ratio:.4}");
    assert!((fetch_rate - 1.0).abs() < 0.02, "fetch rate {fetch_rate} against a budget of 1");
}

/// Uniform utilities and rates: the optimum fetches only the few pages with the largest `w/λ`,
/// and a uniform pass (every page once per `n/R`) sees every page changed, so the slow ones must
/// be found by exploring. Release, seeds 1–3: 0.920–0.950 at R = 1. Before this learner (the
/// posterior mean, re-estimated in doubling epochs, no exploration): 0.21–0.29 on the full set.
#[test]
fn threshold_finds_the_slow_pages_of_the_uniform_set() {
    let (ratio, fetch_rate) = learned_over_known(&fig1("azar-fig1-uniform.csv", 200, 1.0), 1);
    assert!(ratio >= 0.88, "learned/known {ratio:.4}");
    assert!((fetch_rate - 1.0).abs() < 0.02, "fetch rate {fetch_rate} against a budget of 1");
}

/// 400 pages on 8 hosts, Zipf weights, rates log-uniform over [10^−3, 10]; the even hosts are
/// capped at 2 fetches per unit against an even share of 5; budget 40. Per-host priors learn
/// each host's rates.
fn host_capped() -> Config {
    let mut rng = SimRng::new(7);
    let hosts = 8u32;
    let pages = (0..400u32)
        .map(|i| {
            let rate = 10f64.powf(-3.0 + 4.0 * rng.uniform());
            SimPage { host: i % hosts, ..SimPage::poisson(1.0 / f64::from(i + 1), rate) }
        })
        .collect();
    let mut config = Config::new(pages, 40.0, 400.0);
    config.hosts = (0..hosts)
        .map(|h| if h % 2 == 0 { Host { capacity: 2.0, min_delay: 0.0 } } else { Host::UNLIMITED })
        .collect();
    config.warmup_fraction = 0.5;
    config
}

#[test]
fn threshold_learns_a_host_capped_set() {
    let (ratio, fetch_rate) = learned_over_known(&host_capped(), 1);
    assert!(ratio >= 0.95, "learned/known {ratio:.4}");
    assert!(fetch_rate <= 40.0 * 1.02, "fetch rate {fetch_rate} against a budget of 40");
}

/// With an exploration phase (`Config::explore_fetches`): every page first fetched about 20
/// times at intervals chosen to tell its rate, within the first half (the budget of 20 fetches
/// per page), then `threshold` takes over; the second half is measured. This is the target's
/// condition, "once every page has been fetched ~20 times".
fn explored(mut config: Config) -> Config {
    config.explore_fetches = 20;
    config
}

/// The uniform set, where the learner alone gets 0.91 here (0.88–0.96 on the full set): with
/// the phase every page's rate is known to its chain's precision before the window. Seeds 1–3:
/// 0.980–0.989.
#[test]
fn after_exploring_threshold_reaches_95_percent_on_the_uniform_set() {
    for seed in 1..=3 {
        let (ratio, fetch_rate) =
            learned_over_known(&explored(fig1("azar-fig1-uniform.csv", 200, 1.0)), seed);
        assert!(ratio >= 0.95, "seed {seed}: learned/known {ratio:.4}");
        assert!(
            (fetch_rate - 1.0).abs() < 0.02,
            "seed {seed}: fetch rate {fetch_rate} against a budget of 1"
        );
    }
}

/// The host-capped set: the phase keeps every host's politeness (no violation, checked by
/// `learned_over_known`), and the scheduler takes over without breaking it. Seed 1: 0.971
/// (the learner alone: 0.985).
#[test]
fn after_exploring_threshold_reaches_95_percent_on_a_host_capped_set() {
    let (ratio, fetch_rate) = learned_over_known(&explored(host_capped()), 1);
    assert!(ratio >= 0.95, "learned/known {ratio:.4}");
    assert!(fetch_rate <= 40.0 * 1.02, "fetch rate {fetch_rate} against a budget of 40");
}

/// Only `threshold` has the phase: asking it of another policy is an error, not a silent no-op.
#[test]
fn an_exploration_phase_before_another_policy_is_refused() {
    let config = explored(fig1("azar-fig1-uniform.csv", 50, 1.0));
    let error = simulate(&config, PolicyKind::PeriodicOptimal, RatesMode::Learned, 1).err();
    assert!(error.as_ref().is_some_and(|e| e.to_string().contains("exploration phase")), "{error:?}");
}
