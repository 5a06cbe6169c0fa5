//! freshet's revisit policy for URLFrontier clients, measured against the truth: a simulated
//! client fetches what the crawl serves, from pages that change by Poisson processes of known
//! rates and weights of Zipf's law (as in seed 001's Fig. 1), and reports each fetch with
//! `freshet.changed` and `freshet.weight`; the weighted freshness its copy keeps is compared
//! with a client that keeps one interval for every page at the same number of fetches, and with
//! the fluid optimum (the solver's, from the true rates).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;

use freshet_frontier::MemoryStore;
use freshet_policy::objective::Freshness;
use freshet_policy::{Page, Problem, solve};
use freshet_urlfrontier::crawl::{Crawl, GetRequest, Put, PutKind};
use freshet_urlfrontier::revisit::{RevisitOptions, Signals};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// A seeded stream of exponential variates (ChaCha12 through `StdRng`: the same run for the
/// same `rand` release).
struct Random(StdRng);

impl Random {
    fn exponential(&mut self, rate: f64) -> f64 {
        let uniform: f64 = self.0.random_range(f64::MIN_POSITIVE..1.0);
        -uniform.ln() / rate
    }
}

const PAGES: usize = 60;
const BUDGET: f64 = 0.06; // fetches a second: a page every 1,000 s on average
const HORIZON: f64 = 400_000.0;
const STEP: f64 = 5.0;

fn true_rates() -> Vec<f64> {
    // Log-uniform over 1e-4 .. 1e-2 changes a second: 0.1 to 10 changes per mean interval.
    (0..PAGES).map(|i| 1e-4 * 100f64.powf(i as f64 / (PAGES - 1) as f64)).collect()
}

/// Zipf weights `1/k`, dealt to the pages in an order unrelated to their rates.
fn weights() -> Vec<f64> {
    (0..PAGES).map(|i| 1.0 / (1 + (i * 37) % PAGES) as f64).collect()
}

struct Outcome {
    /// Time-averaged weighted freshness over the second half of the horizon.
    freshness: f64,
    /// Fetches a second over the second half.
    fetch_rate: f64,
    /// Fetches of each page over the second half.
    fetches: Vec<u32>,
}

/// Runs a client against a crawl: `revisit` lets freshet choose the dates; without it the
/// client asks for every page again `client_interval` after each fetch.
fn run(revisit: Option<RevisitOptions>, client_interval: f64, seed: u64) -> Outcome {
    let rates = true_rates();
    let weights = weights();
    let mut random = Random(StdRng::seed_from_u64(seed));
    let mut crawl = Crawl::open_with(Box::new(MemoryStore::new()), revisit).unwrap();
    let url = |i: usize| format!("http://h{}.test/{i}", i % 4);
    let key = |i: usize| format!("h{}.test", i % 4);
    let index: HashMap<String, usize> = (0..PAGES).map(|i| (url(i), i)).collect();
    let puts: Vec<Put> = (0..PAGES)
        .map(|i| Put {
            url: url(i),
            key: key(i),
            metadata: Vec::new(),
            kind: PutKind::Discovered,
            signals: Signals::default(),
        })
        .collect();
    crawl.put(&puts, 0.0).unwrap();
    // When each page's copy stops being fresh (its first change after the last fetch).
    let mut fresh_until = vec![f64::NEG_INFINITY; PAGES];
    let mut last_fetch = vec![f64::NAN; PAGES];
    let half = HORIZON / 2.0;
    let (mut fresh_time, mut fetches) = (0.0, vec![0u32; PAGES]);
    let everything = GetRequest { max_urls_per_queue: None, max_queues: None, key: None, lease: 60.0 };
    let mut now = 0.0;
    while now < HORIZON {
        let served = crawl.get(&everything, now).unwrap();
        let mut reports = Vec::new();
        for page in served {
            let i = index[&page.url];
            // Freshness accrued by the old copy since the last fetch, inside the measured half.
            if last_fetch[i].is_finite() {
                let (from, to) = (last_fetch[i].max(half), fresh_until[i].min(now));
                fresh_time += weights[i] * (to - from).max(0.0);
            }
            let changed = fresh_until[i] < now;
            fresh_until[i] = now + random.exponential(rates[i]);
            last_fetch[i] = now;
            if now >= half {
                fetches[i] += 1;
            }
            let signals = Signals { changed: Some(changed), weight: Some(weights[i]), ..Signals::default() };
            let kind = PutKind::Known { refetch: Some(now + client_interval) };
            reports.push(Put { url: page.url, key: page.key, metadata: Vec::new(), kind, signals });
        }
        if !reports.is_empty() {
            crawl.put(&reports, now).unwrap();
        }
        now += STEP;
    }
    for i in 0..PAGES {
        let (from, to) = (last_fetch[i].max(half), fresh_until[i].min(HORIZON));
        fresh_time += weights[i] * (to - from).max(0.0);
    }
    let measured = HORIZON - half;
    let total: u32 = fetches.iter().sum();
    Outcome {
        freshness: fresh_time / (measured * weights.iter().sum::<f64>()),
        fetch_rate: f64::from(total) / measured,
        fetches,
    }
}

/// The fluid optimum: the best time-averaged freshness any policy keeps at `budget` fetches a
/// second on these pages (seed 003's problem, solved exactly from the true rates).
fn optimum(budget: f64) -> f64 {
    let pages: Vec<Page> =
        weights().into_iter().zip(true_rates()).map(|(weight, rate)| Page::new(weight, rate)).collect();
    let solution = solve(Freshness, &Problem::budgeted(&pages, budget)).unwrap();
    let kept: f64 = pages
        .iter()
        .zip(&solution.rates)
        .map(|(page, &rate)| {
            if rate <= 0.0 {
                0.0
            } else {
                page.weight * (rate / page.change_rate) * (1.0 - (-page.change_rate / rate).exp())
            }
        })
        .sum();
    kept / pages.iter().map(|page| page.weight).sum::<f64>()
}

/// With `freshet.changed` and `freshet.weight` reports, freshet's dates spend the budget
/// (within 10%), reach 95% of the fluid optimum and most of its gain over one interval for
/// every page at the same fetch rate, and give the heaviest pages more fetches than the
/// lightest.
#[test]
fn freshet_s_dates_beat_one_interval_for_all_at_the_same_budget() {
    let options = RevisitOptions { budget: BUDGET, prior_rate: 1e-3 };
    let freshet = run(Some(options), 3_600.0, 7);
    let uniform_interval = PAGES as f64 / freshet.fetch_rate;
    let uniform = run(None, uniform_interval, 7);
    let best = optimum(freshet.fetch_rate);
    println!(
        "freshet {:.4} at {:.4} fetches/s; one interval ({uniform_interval:.0} s) {:.4} at {:.4}; optimum {best:.4}",
        freshet.freshness, freshet.fetch_rate, uniform.freshness, uniform.fetch_rate
    );
    assert!((freshet.fetch_rate / BUDGET - 1.0).abs() < 0.10, "{} fetches/s", freshet.fetch_rate);
    assert!((uniform.fetch_rate / freshet.fetch_rate - 1.0).abs() < 0.05, "same fetches");
    assert!(best > 1.05 * uniform.freshness, "the optimum's gain is worth testing");
    assert!(freshet.freshness > 0.95 * best, "{} vs optimum {best}", freshet.freshness);
    let gain = (freshet.freshness - uniform.freshness) / (best - uniform.freshness);
    assert!(gain > 0.75, "{gain:.2} of the optimum's gain over one interval");
    let by_weight = |heavy: bool| -> u32 {
        let weights = weights();
        (0..PAGES).filter(|&i| (weights[i] >= 1.0 / 6.0) == heavy).map(|i| freshet.fetches[i]).sum()
    };
    let (heavy, light) = (by_weight(true), by_weight(false));
    assert!(heavy * 9 > light, "the 6 heaviest pages {heavy} fetches, the 54 others {light}");
}

/// Without signals, or without the policy, every date is the client's.
#[test]
fn without_signals_the_client_s_dates_stand() {
    for revisit in [None, Some(RevisitOptions::with_budget(1.0))] {
        let mut crawl = Crawl::open_with(Box::new(MemoryStore::new()), revisit).unwrap();
        let put = |kind, signals| Put {
            url: "http://a.test/".into(),
            key: "a.test".into(),
            metadata: Vec::new(),
            kind,
            signals,
        };
        crawl.put(&[put(PutKind::Discovered, Signals::default())], 0.0).unwrap();
        crawl.put(&[put(PutKind::Known { refetch: Some(5_000.0) }, Signals::default())], 10.0).unwrap();
        assert_eq!(crawl.status("http://a.test/").unwrap().unwrap().next_due, Some(5_000.0));
        let changed = Signals { changed: Some(true), ..Signals::default() };
        crawl.put(&[put(PutKind::Known { refetch: Some(9_000.0) }, changed)], 20.0).unwrap();
        let due = crawl.status("http://a.test/").unwrap().unwrap().next_due.unwrap();
        if revisit.is_some() {
            assert!(due != 9_000.0 && due > 20.0, "freshet's date: {due}");
            assert_eq!(crawl.stats(None, 20.0).revisited, 1);
        } else {
            assert_eq!(due, 9_000.0);
        }
        // A report without a refetch date is done, whatever the signals.
        let changed = Signals { changed: Some(true), ..Signals::default() };
        crawl.put(&[put(PutKind::Known { refetch: None }, changed)], 30.0).unwrap();
        assert_eq!(crawl.status("http://a.test/").unwrap().unwrap().next_due, None);
        assert_eq!(crawl.stats(None, 30.0).revisited, 0);
    }
}

/// Signatures are compared with the previous report's: equal is unchanged, different is
/// changed; a page that keeps changing is revisited sooner than one that never does.
#[test]
fn signatures_stand_for_changed() {
    let options = RevisitOptions { budget: 0.01, prior_rate: 1e-3 };
    let mut crawl = Crawl::open_with(Box::new(MemoryStore::new()), Some(options)).unwrap();
    let put = |url: &str, kind, signature: String| Put {
        url: url.into(),
        key: "a.test".into(),
        metadata: Vec::new(),
        kind,
        signals: Signals { signature: Some(signature), ..Signals::default() },
    };
    let urls = ["http://a.test/static", "http://a.test/news"];
    for url in urls {
        crawl.put(&[put(url, PutKind::Discovered, String::new())], 0.0).unwrap();
    }
    let mut now = 0.0;
    for round in 0..40 {
        now += 100.0;
        let reports = vec![
            put(urls[0], PutKind::Known { refetch: Some(now + 1.0) }, "same".into()),
            put(urls[1], PutKind::Known { refetch: Some(now + 1.0) }, format!("edition {round}")),
        ];
        crawl.put(&reports, now).unwrap();
    }
    let due = |url| crawl.status(url).unwrap().unwrap().next_due.unwrap() - now;
    assert!(due(urls[1]) < due(urls[0]), "news in {} s, static in {} s", due(urls[1]), due(urls[0]));
}

/// The pages freshet revisits are taken back when the crawl is reopened: their history, rate
/// and weight are in the store, and the next report continues the history.
#[test]
fn revisits_survive_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crawl.redb");
    let options = RevisitOptions { budget: 0.01, prior_rate: 1e-3 };
    let open = || {
        let store = freshet_frontier::RedbStore::open(&path).unwrap();
        Crawl::open_with(Box::new(store), Some(options)).unwrap()
    };
    let put = |kind, changed| Put {
        url: "http://a.test/".into(),
        key: "a.test".into(),
        metadata: Vec::new(),
        kind,
        signals: Signals { changed, weight: Some(3.0), ..Signals::default() },
    };
    {
        let mut crawl = open();
        crawl.put(&[put(PutKind::Discovered, None)], 0.0).unwrap();
        crawl.put(&[put(PutKind::Known { refetch: Some(1e9) }, Some(true))], 100.0).unwrap();
        crawl.put(&[put(PutKind::Known { refetch: Some(1e9) }, Some(true))], 200.0).unwrap();
        assert_eq!(crawl.stats(None, 200.0).revisited, 1);
    }
    let mut crawl = open();
    assert_eq!(crawl.stats(None, 200.0).revisited, 1);
    let mut plain =
        Crawl::open(Box::new(freshet_frontier::RedbStore::open(dir.path().join("other.redb")).unwrap()))
            .unwrap();
    assert_eq!(plain.stats(None, 0.0).revisited, 0);
    crawl.put(&[put(PutKind::Known { refetch: Some(1e9) }, Some(true))], 300.0).unwrap();
    let due = crawl.status("http://a.test/").unwrap().unwrap().next_due.unwrap();
    assert!(due > 300.0 && due < 1e9, "{due}");
}
