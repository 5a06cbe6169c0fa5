//! The focused crawl against a reference that recomputes every estimate from scratch at every
//! step (seed `002_987a179045e4afb6.txt`'s definitions, read literally), and the properties of
//! any crawl sequence: only pages of the frontier, each once, as many as the budget allows.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;

use freshet_focus::{
    Bandit, Estimator, FocusConfig, FocusError, ScoredGraph, Selector, Strategy, cumulative_scores,
    focused_crawl,
};
use freshet_rank::CsrGraph;
use proptest::prelude::*;
use proptest::strategy::Strategy as _;

/// A graph as the tests write it: links, page scores, one score per link (in `links`' order).
#[derive(Debug, Clone)]
struct Case {
    pages: u32,
    links: Vec<(u32, u32, f64)>,
    page_scores: Vec<f64>,
    seeds: Vec<u32>,
}

impl Case {
    /// The scored graph: `from_links` drops self-links and repeats and sorts the rest, so the
    /// link scores are matched to the graph's link ids by `(from, to)`.
    fn scored(&self) -> ScoredGraph {
        let pairs: Vec<(u32, u32)> = self.links.iter().map(|&(from, to, _)| (from, to)).collect();
        let graph = CsrGraph::from_links(self.pages, &pairs).unwrap();
        let mut link_scores = vec![0.0; graph.link_count()];
        for page in 0..self.pages {
            for (link, &to) in graph.link_ids(page).zip(graph.out_links(page)) {
                link_scores[link] = self.link_score(page, to);
            }
        }
        ScoredGraph::new(graph, self.page_scores.clone(), link_scores).unwrap()
    }

    fn link_score(&self, from: u32, to: u32) -> f64 {
        self.links.iter().find(|&&(f, t, _)| f == from && t == to).map_or(0.0, |&(_, _, score)| score)
    }

    /// The distinct links, as the graph holds them.
    fn distinct_links(&self) -> BTreeSet<(u32, u32)> {
        self.links.iter().filter(|&&(from, to, _)| from != to).map(|&(from, to, _)| (from, to)).collect()
    }
}

/// Seed 002's estimators from their definitions, recomputed for every frontier page at every
/// step; the greedy crawl with refresh 1 (ties to the smaller id).
fn reference_crawl(case: &Case, estimator: Estimator, budget: usize) -> Vec<u32> {
    let links = case.distinct_links();
    let beta = |page: u32| case.page_scores[page as usize];
    let alpha = |from: u32, to: u32| case.link_score(from, to);
    let mut crawled: Vec<u32> = Vec::new();
    let mut is_crawled = vec![false; case.pages as usize];
    let mut seeds = case.seeds.clone();
    seeds.sort_unstable();
    seeds.dedup();
    // OPIC's cash and breadth first's depth follow the crawl's history; the sums do not.
    let mut cash = vec![0.0; case.pages as usize];
    let mut depth: Vec<Option<u32>> = vec![None; case.pages as usize];
    for &seed in &seeds {
        cash[seed as usize] = 1.0 / seeds.len() as f64;
        depth[seed as usize] = Some(0);
    }
    let fetch = |page: u32,
                 crawled: &mut Vec<u32>,
                 is_crawled: &mut Vec<bool>,
                 cash: &mut Vec<f64>,
                 depth: &mut Vec<Option<u32>>| {
        let out: Vec<u32> = links.iter().filter(|&&(from, _)| from == page).map(|&(_, to)| to).collect();
        let share = if out.is_empty() { 0.0 } else { cash[page as usize] / out.len() as f64 };
        cash[page as usize] = 0.0;
        for &to in &out {
            if !is_crawled[to as usize] {
                cash[to as usize] += share;
                if depth[to as usize].is_none() {
                    depth[to as usize] = Some(depth[page as usize].unwrap_or(0) + 1);
                }
            }
        }
        is_crawled[page as usize] = true;
        crawled.push(page);
    };
    for &seed in &case.seeds {
        if !is_crawled[seed as usize] {
            fetch(seed, &mut crawled, &mut is_crawled, &mut cash, &mut depth);
        }
    }
    let mut sequence = Vec::new();
    while sequence.len() < budget {
        let parents = |page: u32| -> Vec<u32> {
            crawled.iter().copied().filter(|&u| links.contains(&(u, page))).collect()
        };
        let children = |page: u32| -> Vec<u32> {
            crawled.iter().copied().filter(|&w| w != page && links.contains(&(page, w))).collect()
        };
        let frontier: Vec<u32> =
            (0..case.pages).filter(|&v| !is_crawled[v as usize] && !parents(v).is_empty()).collect();
        // `+ 0.0`: an empty sum is −0, which `total_cmp` puts below 0.
        let score = |v: u32| -> f64 {
            let p = parents(v);
            0.0 + match estimator {
                Estimator::Bfs => 1.0 / (f64::from(depth[v as usize].unwrap_or(0)) + 1.0),
                Estimator::Opic => cash[v as usize],
                Estimator::FirstDegree => p.len() as f64,
                Estimator::FirstNodes => p.iter().map(|&u| beta(u)).sum(),
                Estimator::FirstEdges => p.iter().map(|&u| alpha(u, v)).sum(),
                Estimator::FirstNodesEdges => p.iter().map(|&u| beta(u) * alpha(u, v)).sum(),
                Estimator::SecondNodes => {
                    p.iter().map(|&u| children(u).iter().map(|&w| beta(w)).sum::<f64>()).sum()
                }
                Estimator::SecondEdges => {
                    p.iter().map(|&u| children(u).iter().map(|&w| alpha(u, w)).sum::<f64>()).sum()
                }
                Estimator::SecondNodesEdges => {
                    p.iter().map(|&u| children(u).iter().map(|&w| beta(w) * alpha(u, w)).sum::<f64>()).sum()
                }
                Estimator::Oracle => beta(v),
                _ => unreachable!("the regressions are tested apart"),
            }
        };
        let Some(best) =
            frontier.iter().copied().max_by(|&a, &b| score(a).total_cmp(&score(b)).then_with(|| b.cmp(&a)))
        else {
            break;
        };
        fetch(best, &mut crawled, &mut is_crawled, &mut cash, &mut depth);
        sequence.push(best);
    }
    sequence
}

/// Checks that `sequence` is a crawl sequence of `case` (each page linked from the seeds or an
/// earlier page, none twice, no seed) of the length the budget and the reachable pages allow.
fn assert_crawl_sequence(case: &Case, sequence: &[u32], budget: usize) -> Result<(), TestCaseError> {
    let links = case.distinct_links();
    let mut known: BTreeSet<u32> = case.seeds.iter().copied().collect();
    for &page in sequence {
        prop_assert!(!known.contains(&page), "{page} fetched twice, or a seed");
        prop_assert!(known.iter().any(|&u| links.contains(&(u, page))), "{page} was not in the frontier");
        known.insert(page);
    }
    // The reachable pages beyond the seeds.
    let mut reachable: BTreeSet<u32> = case.seeds.iter().copied().collect();
    let mut stack: Vec<u32> = reachable.iter().copied().collect();
    while let Some(page) = stack.pop() {
        for &(_, to) in links.range((page, 0)..=(page, u32::MAX)) {
            if reachable.insert(to) {
                stack.push(to);
            }
        }
    }
    let seeds: BTreeSet<u32> = case.seeds.iter().copied().collect();
    prop_assert_eq!(sequence.len(), budget.min(reachable.len() - seeds.len()));
    Ok(())
}

fn cases() -> impl proptest::strategy::Strategy<Value = Case> {
    (2..24_u32).prop_flat_map(|pages| {
        (
            Just(pages),
            proptest::collection::vec((0..pages, 0..pages, 0..3_u8), 0..(3 * pages as usize)),
            proptest::collection::vec(prop_oneof![3 => Just(0_u8), 2 => 1..4_u8], pages as usize),
            proptest::collection::vec(0..pages, 1..4),
        )
            .prop_map(|(pages, links, scores, seeds)| Case {
                pages,
                links: links.into_iter().map(|(from, to, score)| (from, to, f64::from(score))).collect(),
                page_scores: scores.into_iter().map(f64::from).collect(),
                seeds,
            })
    })
}

const REFERENCE_ESTIMATORS: [Estimator; 10] = [
    Estimator::Bfs,
    Estimator::Opic,
    Estimator::FirstDegree,
    Estimator::FirstNodes,
    Estimator::FirstEdges,
    Estimator::FirstNodesEdges,
    Estimator::SecondNodes,
    Estimator::SecondEdges,
    Estimator::SecondNodesEdges,
    Estimator::Oracle,
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// The incremental estimates rank as the definitions do, page after page, for every
    /// estimator but the regressions (integer scores, so that sums in any order are exact).
    #[test]
    fn each_estimator_crawls_as_its_definition_does(case in cases(), budget in 0..30_usize) {
        let scored = case.scored();
        for estimator in REFERENCE_ESTIMATORS {
            let crawl = focused_crawl(&scored, &case.seeds, &FocusConfig::greedy(estimator), budget).unwrap();
            let expected = reference_crawl(&case, estimator, budget);
            prop_assert_eq!(&crawl.sequence, &expected, "{}", estimator.name());
        }
    }

    /// Any estimator, strategy, refresh rate or bandit yields a crawl sequence, and the same
    /// one for the same seed.
    #[test]
    fn every_configuration_yields_a_crawl_sequence(
        case in cases(),
        budget in 0..30_usize,
        estimator in proptest::sample::select(Estimator::ALL.to_vec()),
        refresh in 1..5_usize,
        altered in proptest::option::of((0.0..=1.0_f64, 0.0..=1.0_f64)),
        bandit in proptest::option::of(0..3_u8),
        seed in 0..1000_u64,
    ) {
        let scored = case.scored();
        let selector = match bandit {
            None => Selector::One(estimator),
            Some(kind) => Selector::Bandit {
                arms: vec![estimator, Estimator::FirstNodesEdges, Estimator::RegressionSecond],
                policy: match kind {
                    0 => Bandit::EpsilonGreedy { epsilon: 0.2 },
                    1 => Bandit::EpsilonFirst { epsilon: 0.2 },
                    _ => Bandit::VariableReset { epsilon: 0.2, reset: 4 },
                },
            },
        };
        let strategy = altered.map_or(Strategy::Greedy, |(q, zeta)| Strategy::AlteredGreedy { q, zeta });
        let config = FocusConfig { selector, strategy, refresh, refit_every: 3, seed };
        let crawl = focused_crawl(&scored, &case.seeds, &config, budget).unwrap();
        assert_crawl_sequence(&case, &crawl.sequence, budget)?;
        // A refresh takes `refresh` pages, fewer when the frontier runs dry (its fetches may
        // fill it again), and at least one.
        let pulls = crawl.pulls.iter().sum::<u64>();
        prop_assert!(pulls >= crawl.sequence.len().div_ceil(refresh) as u64 && pulls <= crawl.sequence.len() as u64);
        prop_assert_eq!(&focused_crawl(&scored, &case.seeds, &config, budget).unwrap(), &crawl);
    }

    /// Altered greedy that always takes the best (`q = 1`), and a bandit of one arm, are the
    /// greedy crawl.
    #[test]
    fn degenerate_strategies_are_greedy(case in cases(), budget in 0..30_usize, zeta in 0.0..=1.0_f64) {
        let scored = case.scored();
        let greedy = focused_crawl(&scored, &case.seeds, &FocusConfig::greedy(Estimator::FirstNodesEdges), budget).unwrap();
        let always_best = FocusConfig {
            strategy: Strategy::AlteredGreedy { q: 1.0, zeta },
            ..FocusConfig::greedy(Estimator::FirstNodesEdges)
        };
        prop_assert_eq!(&focused_crawl(&scored, &case.seeds, &always_best, budget).unwrap().sequence, &greedy.sequence);
        let one_arm = FocusConfig {
            selector: Selector::Bandit {
                arms: vec![Estimator::FirstNodesEdges],
                policy: Bandit::EpsilonGreedy { epsilon: 0.5 },
            },
            ..FocusConfig::greedy(Estimator::FirstNodesEdges)
        };
        prop_assert_eq!(&focused_crawl(&scored, &case.seeds, &one_arm, budget).unwrap().sequence, &greedy.sequence);
    }
}

/// A star of pages whose score is exactly 3 × their parents' summed scores + 1: once fitted,
/// `lr_fl` ranks as the truth does, where `fl_deg` (its ranking before any fit) does not.
#[test]
fn a_regression_learns_a_linear_relation() {
    // Layer 1: pages 1..=20 from seed 0, scores 0..19 in a shuffled order. Layer 2: page 21 + i
    // has the single parent 1 + i, and β(21 + i) = 3 β(1 + i) + 1.
    let mut links = Vec::new();
    let mut scores = vec![0.0; 41];
    for i in 0..20_u32 {
        links.push((0, 1 + i));
        links.push((1 + i, 21 + i));
        scores[1 + i as usize] = f64::from((i * 7) % 20);
        scores[21 + i as usize] = 3.0 * scores[1 + i as usize] + 1.0;
    }
    let graph = CsrGraph::from_links(41, &links).unwrap();
    let link_count = graph.link_count();
    let scored = ScoredGraph::new(graph, scores.clone(), vec![0.0; link_count]).unwrap();
    let config = FocusConfig { refit_every: 5, ..FocusConfig::greedy(Estimator::RegressionFirst) };
    let crawl = focused_crawl(&scored, &[0], &config, 40).unwrap();
    let oracle = focused_crawl(&scored, &[0], &FocusConfig::greedy(Estimator::Oracle), 40).unwrap();
    // Layer 2's pages, in the order the crawl took them once the fit had data: by score.
    let layer_two: Vec<f64> =
        crawl.sequence.iter().filter(|&&page| page > 20).map(|&page| scores[page as usize]).collect();
    let tail = &layer_two[layer_two.len() / 2..];
    assert!(tail.windows(2).all(|pair| pair[0] >= pair[1]), "{layer_two:?}");
    let by_degree = focused_crawl(&scored, &[0], &FocusConfig::greedy(Estimator::FirstDegree), 40).unwrap();
    let area = |sequence: &[u32]| cumulative_scores(sequence, &scores).iter().sum::<f64>();
    assert!(area(&crawl.sequence) > area(&by_degree.sequence), "the fit must beat its starting ranking");
    assert!(area(&crawl.sequence) <= area(&oracle.sequence));
}

#[test]
fn bad_configurations_are_refused() {
    let graph = CsrGraph::from_links(3, &[(0, 1), (1, 2)]).unwrap();
    let scored = ScoredGraph::new(graph, vec![0.0; 3], vec![0.0; 2]).unwrap();
    let greedy = FocusConfig::greedy(Estimator::Bfs);
    assert_eq!(
        focused_crawl(&scored, &[3], &greedy, 1).unwrap_err(),
        FocusError::PageOutOfRange { page: 3, page_count: 3 }
    );
    let refused = |config: FocusConfig| focused_crawl(&scored, &[0], &config, 1).unwrap_err();
    assert!(matches!(
        refused(FocusConfig { refresh: 0, ..greedy.clone() }),
        FocusError::InvalidParameter { name: "refresh", .. }
    ));
    assert!(matches!(
        refused(FocusConfig { strategy: Strategy::AlteredGreedy { q: 1.5, zeta: 0.1 }, ..greedy.clone() }),
        FocusError::InvalidParameter { name: "q", .. }
    ));
    assert_eq!(
        refused(FocusConfig {
            selector: Selector::Bandit { arms: vec![], policy: Bandit::EpsilonFirst { epsilon: 0.1 } },
            ..greedy.clone()
        }),
        FocusError::NoArms
    );
    assert!(matches!(
        refused(FocusConfig {
            selector: Selector::Bandit {
                arms: vec![Estimator::Bfs],
                policy: Bandit::VariableReset { epsilon: 0.1, reset: 0 }
            },
            ..greedy
        }),
        FocusError::InvalidParameter { name: "reset", .. }
    ));
    for estimator in Estimator::ALL {
        assert_eq!(Estimator::from_name(estimator.name()), Some(estimator));
    }
}
