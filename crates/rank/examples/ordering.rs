//! How fast each crawl order gathers the important pages of the test web (`freshet_rank::ordering`;
//! seeds `004_e0cda6b04941d422.txt` and `002_987a179045e4afb6.txt`): for test webs of `PAGES`
//! pages on `HOSTS` hosts (seeds `1..=WEBS`), a first crawl from `h0.web.test/` in each order,
//! and the share of the web's total importance (PageRank of the whole graph, which the crawl
//! never sees) held after 1%, 5%, 10%, 20% and 50% of the pages, and on average over the whole
//! crawl (the area under the coverage curve). Prints a Markdown table per web, then the means.
//!
//! `cargo run --release -p freshet-rank --example ordering -- [PAGES] [HOSTS] [WEBS]`
//! (defaults 10000 100 3; `docs/ordering/README.md` holds a run).
//!
//! Or a real graph, its links as `from<TAB>to` lines of page ids, crawled from each page of
//! `STARTS` (comma-separated, default 0) in turn, its importance the PageRank of the whole
//! graph; a table per start, then the means:
//! `cargo run --release -p freshet-rank --example ordering -- --arcs FILE [STARTS]`
//! (e.g. `zcat ../shared/data/cnr-2000.arcs.tsv.gz > /tmp/cnr-2000.tsv` first).

use freshet_rank::CsrGraph;
use freshet_rank::ordering::{CrawlOrder, coverage, crawl_sequence};
use freshet_testweb::{Web, WebConfig};

const SHARES: [f64; 5] = [0.01, 0.05, 0.10, 0.20, 0.50];

/// One row per order: the coverage at each of `SHARES` of the pages and over the whole crawl.
fn compare(
    graph: &CsrGraph,
    start: u32,
    importance: &[f64],
) -> Result<Vec<[f64; 6]>, Box<dyn std::error::Error>> {
    let pages = graph.page_count();
    let every = (pages as usize / 100).max(1);
    let orderings = [
        CrawlOrder::Bfs,
        CrawlOrder::InDegree,
        CrawlOrder::Opic,
        CrawlOrder::PartialPageRank { every },
        CrawlOrder::Oracle(importance),
    ];
    let mut rows = Vec::new();
    for ordering in orderings {
        let sequence = crawl_sequence(graph, &[start], ordering, pages as usize)?;
        let shares = coverage(&sequence, importance)?;
        let at = |share: f64| {
            let index = ((share * f64::from(pages)).ceil() as usize).max(1) - 1;
            shares.get(index).or(shares.last()).copied().unwrap_or(0.0)
        };
        let mean = shares.iter().sum::<f64>() / shares.len().max(1) as f64;
        let mut row = [0.0; 6];
        for (cell, value) in row.iter_mut().zip(SHARES.iter().map(|&share| at(share)).chain([mean])) {
            *cell = value;
        }
        rows.push(row);
        eprintln!("{} pages reached", sequence.len());
    }
    Ok(rows)
}

fn print_table(names: &[&str], rows: &[[f64; 6]]) {
    println!("| order | 1% | 5% | 10% | 20% | 50% | mean over the crawl |");
    println!("|---|---|---|---|---|---|---|");
    for (name, row) in names.iter().zip(rows) {
        let cells: Vec<String> = row.iter().map(|value| format!("{value:.3}")).collect();
        println!("| {name} | {} |", cells.join(" | "));
    }
}

/// A real graph from `from<TAB>to` lines, crawled from each of `starts`.
fn real_graph(path: &str, starts: &[u32], names: &[&str]) -> Result<(), Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(path)?;
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
    let importance = freshet_rank::pagerank(&graph, 0.85, 1e-10)?;
    let mut sums = vec![[0.0; SHARES.len() + 1]; names.len()];
    for &start in starts {
        println!(
            "\n{path}: {pages} pages, {} links; from page {start}, partial PageRank every {} pages\n",
            links.len(),
            (pages as usize / 100).max(1)
        );
        let rows = compare(&graph, start, &importance)?;
        print_table(names, &rows);
        for (sum, row) in sums.iter_mut().zip(&rows) {
            for (total, value) in sum.iter_mut().zip(row) {
                *total += value / starts.len() as f64;
            }
        }
    }
    println!("\nmean over the {} starts\n", starts.len());
    print_table(names, &sums);
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let names = ["bfs", "in-degree", "opic", "partial-pagerank", "oracle"];
    let mut args = std::env::args().skip(1).peekable();
    if args.peek().map(String::as_str) == Some("--arcs") {
        args.next();
        let path = args.next().ok_or("--arcs FILE")?;
        let starts = args.next().unwrap_or_else(|| "0".into());
        let starts: Vec<u32> = starts.split(',').map(str::parse).collect::<Result<_, _>>()?;
        return real_graph(&path, &starts, &names);
    }
    let pages: u32 = args.next().map(|arg| arg.parse()).transpose()?.unwrap_or(10_000);
    let hosts: u32 = args.next().map(|arg| arg.parse()).transpose()?.unwrap_or(100);
    let webs: u64 = args.next().map(|arg| arg.parse()).transpose()?.unwrap_or(3);
    let mut sums = vec![[0.0; SHARES.len() + 1]; names.len()];
    for seed in 1..=webs {
        let web = Web::new(WebConfig { seed, hosts, pages, ..WebConfig::default() })?;
        let links: Vec<(u32, u32)> =
            (0..pages).flat_map(|from| web.links(from).iter().map(move |&to| (from, to))).collect();
        let graph = CsrGraph::from_links(pages, &links)?;
        let importance: Vec<f64> = web.pages().iter().map(|page| page.importance).collect();
        println!(
            "\nweb seed {seed}: {pages} pages on {hosts} hosts, from h0's root (partial PageRank every {} pages)\n",
            (pages as usize / 100).max(1)
        );
        let rows = compare(&graph, web.root(0), &importance)?;
        print_table(&names, &rows);
        for (sum, row) in sums.iter_mut().zip(&rows) {
            for (total, value) in sum.iter_mut().zip(row) {
                *total += value / webs as f64;
            }
        }
    }
    println!("\nmean over the {webs} webs\n");
    print_table(&names, &sums);
    Ok(())
}
