//! How fast each crawl order gathers the important pages of the test web (`freshet_rank::ordering`;
//! seeds `004_e0cda6b04941d422.txt` and `002_987a179045e4afb6.txt`): for test webs of `PAGES`
//! pages on `HOSTS` hosts (seeds `1..=WEBS`), a first crawl from `h0.web.test/` in each order,
//! and the share of the web's total importance (PageRank of the whole graph, which the crawl
//! never sees) held after 1%, 5%, 10%, 20% and 50% of the pages, and on average over the whole
//! crawl (the area under the coverage curve). Prints a Markdown table per web, then the means.
//!
//! `cargo run --release -p freshet-rank --example ordering -- [PAGES] [HOSTS] [WEBS]`
//! (defaults 10000 100 3; `docs/ordering/README.md` holds a run).

use freshet_rank::CsrGraph;
use freshet_rank::ordering::{Ordering, coverage, crawl_sequence};
use freshet_testweb::{Web, WebConfig};

const SHARES: [f64; 5] = [0.01, 0.05, 0.10, 0.20, 0.50];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let pages: u32 = args.next().map(|arg| arg.parse()).transpose()?.unwrap_or(10_000);
    let hosts: u32 = args.next().map(|arg| arg.parse()).transpose()?.unwrap_or(100);
    let webs: u64 = args.next().map(|arg| arg.parse()).transpose()?.unwrap_or(3);
    let names = ["bfs", "in-degree", "opic", "partial-pagerank", "oracle"];
    let mut sums = vec![[0.0; SHARES.len() + 1]; names.len()];
    for seed in 1..=webs {
        let web = Web::new(WebConfig { seed, hosts, pages, ..WebConfig::default() })?;
        let links: Vec<(u32, u32)> =
            (0..pages).flat_map(|from| web.links(from).iter().map(move |&to| (from, to))).collect();
        let graph = CsrGraph::from_links(pages, &links)?;
        let importance: Vec<f64> = web.pages().iter().map(|page| page.importance).collect();
        let every = (pages as usize / 100).max(1);
        let orderings = [
            Ordering::Bfs,
            Ordering::InDegree,
            Ordering::Opic,
            Ordering::PartialPageRank { every },
            Ordering::Oracle(&importance),
        ];
        println!(
            "\nweb seed {seed}: {pages} pages on {hosts} hosts, from h0's root (partial PageRank every {every} pages)\n"
        );
        println!("| order | 1% | 5% | 10% | 20% | 50% | mean over the crawl | pages reached |");
        println!("|---|---|---|---|---|---|---|---|");
        for ((name, ordering), sum) in names.iter().zip(orderings).zip(&mut sums) {
            let sequence = crawl_sequence(&graph, &[web.root(0)], ordering, pages as usize)?;
            let shares = coverage(&sequence, &importance)?;
            let at = |share: f64| {
                let index = ((share * f64::from(pages)).ceil() as usize).max(1) - 1;
                shares.get(index).or(shares.last()).copied().unwrap_or(0.0)
            };
            let mean = shares.iter().sum::<f64>() / shares.len().max(1) as f64;
            let row: Vec<f64> = SHARES.iter().map(|&share| at(share)).chain([mean]).collect();
            for (total, value) in sum.iter_mut().zip(&row) {
                *total += value / webs as f64;
            }
            let cells: Vec<String> = row.iter().map(|value| format!("{value:.3}")).collect();
            println!("| {name} | {} | {} |", cells.join(" | "), sequence.len());
        }
    }
    println!("\nmean over the {webs} webs\n");
    println!("| order | 1% | 5% | 10% | 20% | 50% | mean over the crawl |");
    println!("|---|---|---|---|---|---|---|");
    for (name, sum) in names.iter().zip(&sums) {
        let cells: Vec<String> = sum.iter().map(|value| format!("{value:.3}")).collect();
        println!("| {name} | {} |", cells.join(" | "));
    }
    Ok(())
}
