//! Seed `002_987a179045e4afb6.txt`'s experiment on a real web graph with planted topics: how
//! much of the relevant pages' score each estimator, bandit, strategy and refresh rate gathers,
//! relative to the oracle (the greedy crawl that knows every page's score).
//!
//! The graph: `from<TAB>to` lines of page ids, e.g. cnr-2000 (325,557 pages of the .cnr.it
//! domain crawled in 2000, numbered in URL order, so that a run of ids is mostly one site's
//! pages), unpacked by `zcat ../shared/data/cnr-2000.arcs.tsv.gz > /tmp/cnr-2000.tsv`. The scores are planted, since the
//! graph has no text: a topic is a set of *sites* (blocks of [`BLOCK`] consecutive ids, each
//! on-topic with probability `sites`), whose pages are relevant with probability `inside`
//! (`outside` elsewhere); a relevant page's score `β` is its count of the topic's word,
//! `1 + ⌊Exp(mean 1.5)⌋`; a link's `α` (the word in its anchor) is `1 + ⌊Exp(mean 1)⌋` with
//! probability 1/2 when it points to a relevant page and 1 with probability 1/50 otherwise.
//! Five topics, from 0.6% to 20% relevant pages (the slides' datasets: 0.6% to 19.2%).
//!
//! As in the slides: per topic, `SETS` seed sets of 50 pages drawn among the relevant ones; a
//! crawl's score after `n` pages is the sum of their `β`; the relative score is its ratio to a
//! baseline, averaged (arithmetic) over the seed sets, then over the topics (geometric). The
//! baseline here is the bound no crawl can beat, the sum of the `n` highest `β` of the graph's
//! pages other than the seeds (the oracle, greedy with the true scores, is not optimal and is
//! beaten: it is a row of the first table). Prints Markdown tables.
//!
//! `cargo run --release -p freshet-focus --example focus -- FILE [SETS] [BUDGET]`
//! (defaults 10 and 100,000; `docs/focus/README.md` holds a run).

use std::time::Instant;

use freshet_focus::{
    Bandit, Estimator, FocusConfig, ScoredGraph, Selector, Strategy, cumulative_scores, focused_crawl,
};
use freshet_rank::CsrGraph;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// Consecutive ids that make a planted "site".
const BLOCK: u32 = 256;
/// Seeds per seed set.
const SEEDS: usize = 50;
/// The steps the tables report.
const STEPS: [usize; 4] = [100, 1_000, 10_000, 100_000];

/// A planted topic: the share of on-topic sites, and the chance a page is relevant in one and
/// outside.
struct Topic {
    name: &'static str,
    sites: f64,
    inside: f64,
    outside: f64,
}

const TOPICS: [Topic; 5] = [
    Topic { name: "rare", sites: 0.02, inside: 0.3, outside: 0.001 },
    Topic { name: "sparse", sites: 0.05, inside: 0.4, outside: 0.002 },
    Topic { name: "medium", sites: 0.10, inside: 0.5, outside: 0.005 },
    Topic { name: "common", sites: 0.20, inside: 0.5, outside: 0.01 },
    Topic { name: "broad", sites: 0.30, inside: 0.6, outside: 0.02 },
];

fn exponential(rng: &mut StdRng, mean: f64) -> f64 {
    -mean * (1.0 - rng.random::<f64>()).ln()
}

/// The graph with topic `topic`'s scores, planted with `seed`.
fn plant(graph: &CsrGraph, topic: &Topic, seed: u64) -> Result<ScoredGraph, freshet_focus::FocusError> {
    let mut rng = StdRng::seed_from_u64(seed);
    let pages = graph.page_count();
    let blocks: Vec<bool> = (0..pages.div_ceil(BLOCK)).map(|_| rng.random::<f64>() < topic.sites).collect();
    let page_scores: Vec<f64> = (0..pages)
        .map(|page| {
            let chance = if blocks[(page / BLOCK) as usize] { topic.inside } else { topic.outside };
            if rng.random::<f64>() < chance { 1.0 + exponential(&mut rng, 1.5).floor() } else { 0.0 }
        })
        .collect();
    let mut link_scores = vec![0.0; graph.link_count()];
    for page in 0..pages {
        for (link, &to) in graph.link_ids(page).zip(graph.out_links(page)) {
            link_scores[link] = if page_scores[to as usize] > 0.0 {
                if rng.random::<f64>() < 0.5 { 1.0 + exponential(&mut rng, 1.0).floor() } else { 0.0 }
            } else if rng.random::<f64>() < 0.02 {
                1.0
            } else {
                0.0
            };
        }
    }
    ScoredGraph::new(graph.clone(), page_scores, link_scores)
}

/// What is compared: a name and a configuration.
struct Contender {
    name: String,
    config: FocusConfig,
}

fn one(estimator: Estimator) -> Contender {
    Contender { name: estimator.name().to_owned(), config: FocusConfig::greedy(estimator) }
}

/// Per contender, per step of `steps`: the relative score (to the bound: the sum of the `n`
/// highest scores), geometric mean over the topics of the arithmetic mean over the seed sets;
/// and the mean time a fetched page took.
struct Table {
    rows: Vec<(String, Vec<f64>, f64)>,
}

fn run(
    topics: &[(ScoredGraph, Vec<Vec<u32>>)],
    contenders: &[Contender],
    budget: usize,
    steps: &[usize],
) -> Result<Table, Box<dyn std::error::Error>> {
    // The bound after each step, per topic and seed set: the `n` highest scores of the pages
    // that are not seeds, which no crawl of `n` pages can beat.
    let mut bounds = Vec::new();
    for (graph, sets) in topics {
        let mut by_score: Vec<(f64, u32)> = (0..graph.page_count())
            .map(|page| (graph.page_score(page), page))
            .filter(|&(score, _)| score > 0.0)
            .collect();
        by_score.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
        let mut per_set = Vec::new();
        for seeds in sets {
            let best: Vec<u32> = by_score
                .iter()
                .filter(|(_, page)| !seeds.contains(page))
                .map(|&(_, page)| page)
                .take(budget)
                .collect();
            per_set.push(cumulative_scores(&best, graph.page_scores()));
        }
        bounds.push(per_set);
    }
    let mut rows = Vec::new();
    for contender in contenders {
        let mut log_sums = vec![0.0; steps.len()];
        let (mut seconds, mut pages) = (0.0, 0usize);
        for ((graph, sets), bound_sets) in topics.iter().zip(&bounds) {
            let mut sums = vec![0.0; steps.len()];
            for (seeds, bound) in sets.iter().zip(bound_sets) {
                let start = Instant::now();
                let crawl = focused_crawl(graph, seeds, &contender.config, budget)?;
                seconds += start.elapsed().as_secs_f64();
                pages += crawl.sequence.len();
                let scores = cumulative_scores(&crawl.sequence, graph.page_scores());
                for (sum, &step) in sums.iter_mut().zip(steps) {
                    let at = |scores: &[f64]| scores.get(step - 1).or(scores.last()).copied().unwrap_or(0.0);
                    let best = at(bound);
                    *sum += if best > 0.0 { at(&scores) / best } else { 1.0 };
                }
            }
            for (log_sum, sum) in log_sums.iter_mut().zip(sums) {
                *log_sum += (sum / sets.len() as f64).max(1e-12).ln();
            }
        }
        let relative: Vec<f64> = log_sums.iter().map(|sum| (sum / topics.len() as f64).exp()).collect();
        eprintln!("{}: {relative:.3?}", contender.name);
        rows.push((contender.name.clone(), relative, seconds / pages.max(1) as f64));
    }
    Ok(Table { rows })
}

fn print(table: &Table, steps: &[usize], first_column: &str) {
    let header: Vec<String> = steps.iter().map(|step| format!("{step} pages")).collect();
    println!("| {first_column} | {} | µs a page |", header.join(" | "));
    println!("|---|{}---|", "---|".repeat(steps.len()));
    for (name, relative, seconds) in &table.rows {
        let cells: Vec<String> = relative.iter().map(|value| format!("{value:.3}")).collect();
        println!("| {name} | {} | {:.1} |", cells.join(" | "), seconds * 1e6);
    }
    println!();
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: focus FILE [SETS] [BUDGET]")?;
    let set_count: usize = args.next().map(|arg| arg.parse()).transpose()?.unwrap_or(10);
    let budget: usize = args.next().map(|arg| arg.parse()).transpose()?.unwrap_or(100_000);
    let steps: Vec<usize> = STEPS.iter().copied().filter(|&step| step <= budget).collect();
    let text = std::fs::read_to_string(&path)?;
    let mut links = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let mut fields = line.split('\t');
        let (Some(from), Some(to)) = (fields.next(), fields.next()) else {
            return Err(format!("{path}:{}: not from<TAB>to", number + 1).into());
        };
        links.push((from.trim().parse::<u32>()?, to.trim().parse::<u32>()?));
    }
    let pages = links.iter().map(|&(from, to)| from.max(to) + 1).max().unwrap_or(0);
    let graph = CsrGraph::from_links(pages, &links)?;
    drop(links);
    println!(
        "{path}: {pages} pages, {} links; {set_count} seed sets of {SEEDS} per topic\n",
        graph.link_count()
    );
    println!("| topic | sites on topic | relevant inside / outside | relevant pages | total β |");
    println!("|---|---|---|---|---|");
    let mut topics = Vec::new();
    for (index, topic) in TOPICS.iter().enumerate() {
        let scored = plant(&graph, topic, 1000 + index as u64)?;
        let relevant: Vec<u32> = (0..pages).filter(|&page| scored.page_score(page) > 0.0).collect();
        let total: f64 = scored.page_scores().iter().sum();
        println!(
            "| {} | {:.0}% | {} / {} | {} ({:.1}%) | {total:.0} |",
            topic.name,
            topic.sites * 100.0,
            topic.inside,
            topic.outside,
            relevant.len(),
            100.0 * relevant.len() as f64 / f64::from(pages)
        );
        let mut rng = StdRng::seed_from_u64(2000 + index as u64);
        let sets: Vec<Vec<u32>> = (0..set_count)
            .map(|_| (0..SEEDS).map(|_| relevant[rng.random_range(0..relevant.len())]).collect())
            .collect();
        topics.push((scored, sets));
    }
    println!();

    println!("### Every estimator (greedy, refresh 1; relative score: 1 = the n best pages)\n");
    let estimators: Vec<Contender> = Estimator::ALL.iter().copied().map(one).collect();
    print(&run(&topics, &estimators, budget, &steps)?, &steps, "estimator");

    println!("### Bandits over the first-level estimators (fl_deg, fl_n, fl_e, fl_ne)\n");
    let first_level = vec![
        Estimator::FirstDegree,
        Estimator::FirstNodes,
        Estimator::FirstEdges,
        Estimator::FirstNodesEdges,
    ];
    let bandits: Vec<Contender> = [
        Bandit::EpsilonGreedy { epsilon: 0.1 },
        Bandit::EpsilonFirst { epsilon: 0.1 },
        Bandit::VariableReset { epsilon: 0.1, reset: 1000 },
        Bandit::VariableReset { epsilon: 0.2, reset: 200 },
    ]
    .into_iter()
    .map(|policy| Contender {
        name: policy.name(),
        config: FocusConfig {
            selector: Selector::Bandit { arms: first_level.clone(), policy },
            ..FocusConfig::greedy(Estimator::FirstNodesEdges)
        },
    })
    .collect();
    print(&run(&topics, &bandits, budget, &steps)?, &steps, "bandit");

    println!("### Refresh rate (fl_ne, greedy): pages taken per refresh of the estimates\n");
    let refreshes: Vec<Contender> = [1, 2, 8, 32, 128, 1024]
        .into_iter()
        .map(|refresh| Contender {
            name: format!("r = {refresh}"),
            config: FocusConfig { refresh, ..FocusConfig::greedy(Estimator::FirstNodesEdges) },
        })
        .collect();
    print(&run(&topics, &refreshes, budget, &steps)?, &steps, "refresh");

    println!("### Altered greedy (fl_ne): the best with probability q, else a page within ζ of it\n");
    let altered: Vec<Contender> = [(1.0, 0.0), (0.9, 0.1), (0.5, 0.1), (0.9, 0.5), (0.5, 0.5)]
        .into_iter()
        .map(|(q, zeta)| Contender {
            name: if q == 1.0 { "greedy".to_owned() } else { format!("q = {q}, ζ = {zeta}") },
            config: FocusConfig {
                strategy: if q == 1.0 { Strategy::Greedy } else { Strategy::AlteredGreedy { q, zeta } },
                seed: 7,
                ..FocusConfig::greedy(Estimator::FirstNodesEdges)
            },
        })
        .collect();
    print(&run(&topics, &altered, budget, &steps)?, &steps, "strategy");
    Ok(())
}
