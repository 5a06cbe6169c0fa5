//! `freshet focus`: a focused crawl of a known graph (seed `002_987a179045e4afb6.txt`, crate
//! `freshet-focus`): the pages an estimator (or a bandit over several) fetches, in order, with
//! the score each brings, so that estimators can be compared on one's own graph and scores.
//!
//! Inputs are tab-separated text, as web graphs are shipped (e.g. `../shared/data`'s
//! cnr-2000): LINKS has `from<TAB>to` lines of page ids (integers from 0; the graph has every
//! page up to the largest id; repeated links and self-links are dropped), SCORES has
//! `page<TAB>score` lines (`β`, pages not listed score 0), LINK_SCORES `from<TAB>to<TAB>score`
//! lines (`α`, links not listed score 0). Blank lines are skipped. Errors name the file, the
//! line and what is wrong; everything is read and checked before the crawl.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, bail};
use freshet_focus::{
    Bandit, Estimator, FocusConfig, ScoredGraph, Selector, Strategy, cumulative_scores, focused_crawl,
};
use freshet_rank::CsrGraph;

use crate::output::AtomicFile;

/// `freshet focus --help`, first part.
pub(crate) const LONG_ABOUT: &str = "\
Run a focused crawl on a known graph (seed 002: Gouriten, Maniu, Senellart) and print the pages
it fetches, in order, with the score each brings.

The crawl starts from --seeds (fetched first, outside the budget) and fetches --budget pages
more, each from the frontier (pages linked from those fetched), chosen by an estimator of the
unfetched pages' scores from what the fetched pages reveal: their scores and their links'.
Estimators: bfs, opic, fl_deg, fl_n, fl_e, fl_ne (sums over a page's fetched parents), sl_n,
sl_e, sl_ne (over the parents' fetched children), lr_fl, lr_sl (linear regressions on those
sums, refitted as pages are fetched), oracle (the true score). --bandit chooses among --arms at
each refresh of the estimates (every --refresh pages).

Writes CSV: step,page,score,total (the crawl's score so far), and on standard error the total
against the best possible (the sum of the budget's best scores of pages that are not seeds).";

/// Arguments of `freshet focus`.
#[derive(Debug, clap::Args)]
pub(crate) struct FocusArgs {
    /// The graph: `from<TAB>to` lines of page ids.
    #[arg(long, value_name = "FILE")]
    links: PathBuf,
    /// Page scores: `page<TAB>score` lines (unlisted pages score 0).
    #[arg(long, value_name = "FILE")]
    scores: PathBuf,
    /// Link scores: `from<TAB>to<TAB>score` lines (unlisted links score 0).
    #[arg(long, value_name = "FILE")]
    link_scores: Option<PathBuf>,
    /// Seed pages, comma-separated ids.
    #[arg(long, value_name = "ID,…", value_delimiter = ',', required = true)]
    seeds: Vec<u32>,
    /// Pages to fetch after the seeds.
    #[arg(long)]
    budget: usize,
    /// The estimator (without --bandit).
    #[arg(long, default_value = "fl_ne")]
    estimator: String,
    /// A bandit over --arms: epsilon-greedy, epsilon-first or var (epsilon-first reset every
    /// --reset refreshes).
    #[arg(long, value_name = "KIND")]
    bandit: Option<String>,
    /// The bandit's estimators, comma-separated.
    #[arg(long, value_name = "NAME,…", value_delimiter = ',', default_value = "fl_deg,fl_n,fl_e,fl_ne")]
    arms: Vec<String>,
    /// The bandit's exploration rate.
    #[arg(long, default_value_t = 0.1)]
    epsilon: f64,
    /// Refreshes between two resets of the var bandit.
    #[arg(long, default_value_t = 1000)]
    reset: usize,
    /// Pages fetched per refresh of the estimates.
    #[arg(long, default_value_t = 1)]
    refresh: usize,
    /// Altered greedy: Q,ZETA (the best with probability Q, else a page within ZETA of it).
    #[arg(long, value_name = "Q,ZETA", value_delimiter = ',', num_args = 2)]
    altered: Option<Vec<f64>>,
    /// Pages between two fits of a regression estimator.
    #[arg(long, default_value_t = 100)]
    refit_every: usize,
    /// Seed of the random draws (altered greedy, bandits).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Write the CSV here instead of standard output.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

/// Reads a file of tab-separated lines of `fields` columns, calling `each(line number,
/// fields)`; blank lines are skipped.
fn read_fields(
    path: &Path,
    fields: usize,
    mut each: impl FnMut(u64, &[&str]) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    for (index, line) in text.lines().enumerate() {
        let number = index as u64 + 1;
        if line.trim().is_empty() {
            continue;
        }
        let parts: Vec<&str> = line.split('\t').map(str::trim).collect();
        if parts.len() != fields {
            bail!(
                "{} line {number}: {} tab-separated fields, expected {fields}",
                path.display(),
                parts.len()
            );
        }
        each(number, &parts)?;
    }
    Ok(())
}

/// The largest page id taken: the crawl keeps ~100 bytes a page of the graph (its sums, its
/// frontier heaps), so 2^27 pages are ~13 GB; a larger id is more likely a typo than a graph.
const MAX_PAGE_ID: u32 = (1 << 27) - 1;

fn page_id(path: &Path, number: u64, text: &str) -> anyhow::Result<u32> {
    match text.parse::<u32>() {
        Ok(id) if id <= MAX_PAGE_ID => Ok(id),
        Ok(id) => bail!(
            "{} line {number}: page id {id} is past the {} pages this command handles",
            path.display(),
            u64::from(MAX_PAGE_ID) + 1
        ),
        Err(_) => bail!("{} line {number}: {text:?} is not a page id (an integer from 0)", path.display()),
    }
}

fn score(path: &Path, number: u64, text: &str) -> anyhow::Result<f64> {
    match text.parse::<f64>() {
        Ok(value) if value.is_finite() && value >= 0.0 => Ok(value),
        _ => bail!("{} line {number}: {text:?} is not a score (a finite number ≥ 0)", path.display()),
    }
}

fn estimator(name: &str) -> anyhow::Result<Estimator> {
    Estimator::from_name(name).with_context(|| {
        let known: Vec<&str> = Estimator::ALL.iter().map(|estimator| estimator.name()).collect();
        format!("unknown estimator {name:?} (known: {})", known.join(", "))
    })
}

/// Runs `freshet focus`.
pub(crate) fn run(args: &FocusArgs) -> anyhow::Result<ExitCode> {
    let selector = match args.bandit.as_deref() {
        None => Selector::One(estimator(&args.estimator)?),
        Some(kind) => {
            let arms = args.arms.iter().map(|name| estimator(name)).collect::<anyhow::Result<Vec<_>>>()?;
            let policy = match kind {
                "epsilon-greedy" => Bandit::EpsilonGreedy { epsilon: args.epsilon },
                "epsilon-first" => Bandit::EpsilonFirst { epsilon: args.epsilon },
                "var" => Bandit::VariableReset { epsilon: args.epsilon, reset: args.reset },
                other => bail!("unknown bandit {other:?} (known: epsilon-greedy, epsilon-first, var)"),
            };
            Selector::Bandit { arms, policy }
        }
    };
    let strategy = match args.altered.as_deref() {
        None => Strategy::Greedy,
        Some(&[q, zeta]) => Strategy::AlteredGreedy { q, zeta },
        Some(_) => bail!("--altered takes Q,ZETA"),
    };
    let config = FocusConfig {
        selector,
        strategy,
        refresh: args.refresh,
        refit_every: args.refit_every,
        seed: args.seed,
    };

    let mut links = Vec::new();
    read_fields(&args.links, 2, |number, fields| {
        links.push((page_id(&args.links, number, fields[0])?, page_id(&args.links, number, fields[1])?));
        Ok(())
    })?;
    let mut page_scores: Vec<(u32, f64, u64)> = Vec::new();
    read_fields(&args.scores, 2, |number, fields| {
        page_scores.push((
            page_id(&args.scores, number, fields[0])?,
            score(&args.scores, number, fields[1])?,
            number,
        ));
        Ok(())
    })?;
    if let Some(&seed) = args.seeds.iter().find(|&&seed| seed > MAX_PAGE_ID) {
        bail!(
            "--seeds: page id {seed} is past the {} pages this command handles",
            u64::from(MAX_PAGE_ID) + 1
        );
    }
    let pages = links
        .iter()
        .map(|&(from, to)| from.max(to))
        .chain(page_scores.iter().map(|&(page, _, _)| page))
        .chain(args.seeds.iter().copied())
        .max()
        .map_or(0, |largest| largest.saturating_add(1));
    let graph = CsrGraph::from_links(pages, &links).context("the graph")?;
    drop(links);
    let mut scores = vec![0.0; pages as usize];
    let mut seen_at: HashMap<u32, u64> = HashMap::new();
    for (page, value, number) in page_scores {
        if let Some(first) = seen_at.insert(page, number) {
            bail!("{} line {number}: page {page} has a score already (line {first})", args.scores.display());
        }
        scores[page as usize] = value;
    }
    let mut link_scores = vec![0.0; graph.link_count()];
    if let Some(path) = &args.link_scores {
        read_fields(path, 3, |number, fields| {
            let (from, to) = (page_id(path, number, fields[0])?, page_id(path, number, fields[1])?);
            let value = score(path, number, fields[2])?;
            let position = graph.out_links(from).binary_search(&to).ok();
            match position.map(|position| graph.link_ids(from).start + position) {
                Some(link) => link_scores[link] = value,
                None => bail!(
                    "{} line {number}: no link {from} → {to} in {}",
                    path.display(),
                    args.links.display()
                ),
            }
            Ok(())
        })?;
    }
    let best: f64 = {
        let mut others: Vec<f64> = scores
            .iter()
            .enumerate()
            .filter(|(page, _)| !args.seeds.contains(&(*page as u32)))
            .map(|(_, &value)| value)
            .collect();
        others.sort_unstable_by(|a, b| b.total_cmp(a));
        others.iter().take(args.budget).sum()
    };
    let scored = ScoredGraph::new(graph, scores, link_scores).context("the scores")?;
    let crawl = focused_crawl(&scored, &args.seeds, &config, args.budget).context("the crawl")?;
    let totals = cumulative_scores(&crawl.sequence, scored.page_scores());

    let mut file = args.out.as_deref().map(AtomicFile::create).transpose()?;
    let mut stdout = std::io::stdout().lock();
    let out: &mut dyn std::io::Write = match file.as_mut() {
        Some(file) => file.writer(),
        None => &mut stdout,
    };
    writeln!(out, "step,page,score,total")?;
    for (step, (&page, total)) in crawl.sequence.iter().zip(&totals).enumerate() {
        writeln!(out, "{},{page},{},{total}", step + 1, scored.page_score(page))?;
    }
    out.flush()?;
    if let Some(file) = file {
        file.commit()?;
    }
    let total = totals.last().copied().unwrap_or(0.0);
    eprintln!(
        "{} pages fetched after {} seeds; total score {total} ({:.1}% of {best}, the best {} pages' sum)",
        crawl.sequence.len(),
        args.seeds.len(),
        if best > 0.0 { 100.0 * total / best } else { 100.0 },
        args.budget
    );
    if let Selector::Bandit { arms, .. } = &config.selector {
        let pulls: Vec<String> =
            arms.iter().zip(&crawl.pulls).map(|(arm, pulls)| format!("{} {pulls}", arm.name())).collect();
        eprintln!("refreshes by arm: {}", pulls.join(", "));
    }
    Ok(ExitCode::SUCCESS)
}
