//! PageRank against a published worked example: Langville & Meyer's six-page graph with a
//! dangling page, as networkx's own tests have it (`tests/data/pagerank-langville-meyer.tsv`,
//! copied from shared/vectors). OPIC on the same graph must reach the same ranks.
#![allow(clippy::unwrap_used)]

use freshet_rank::{CsrGraph, Opic, pagerank};

const FIXTURE: &str = include_str!("data/pagerank-langville-meyer.tsv");

/// The edges (node numbers from 1, as in the file, turned into ids from 0) and the expected
/// ranks at α = 0.9 (the `# node1 … node6` line after the "alpha=0.9" comment).
fn fixture() -> (Vec<(u32, u32)>, Vec<f64>) {
    let mut edges = Vec::new();
    let mut expected = Vec::new();
    let mut lines = FIXTURE.lines();
    while let Some(line) = lines.next() {
        if line.starts_with("# expected pagerank, alpha=0.9") {
            let values = lines.next().unwrap();
            expected = values
                .split_whitespace()
                .filter(|word| !word.starts_with("node") && *word != "#")
                .map(|word| word.parse::<f64>().unwrap())
                .collect();
        } else if !line.starts_with('#') && !line.trim().is_empty() {
            let (from, to) = line.split_once('\t').unwrap();
            edges.push((from.parse::<u32>().unwrap() - 1, to.parse::<u32>().unwrap() - 1));
        }
    }
    (edges, expected)
}

#[test]
fn pagerank_matches_langville_meyer_at_alpha_0_9() {
    let (edges, expected) = fixture();
    assert_eq!((edges.len(), expected.len()), (10, 6));
    let graph = CsrGraph::from_links(6, &edges).unwrap();
    assert!(graph.out_links(1).is_empty(), "node 2 is the dangling one");
    let rank = pagerank(&graph, 0.9, 1e-12).unwrap();
    assert!((rank.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    for (node, (got, want)) in rank.iter().zip(&expected).enumerate() {
        // networkx stopped at tol = 1e-8 and the file gives 8 decimals.
        assert!((got - want).abs() < 1e-7, "node {}: {got} vs {want}", node + 1);
    }
}

#[test]
fn opic_converges_to_the_same_ranks() {
    let (edges, expected) = fixture();
    let graph = CsrGraph::from_links(6, &edges).unwrap();
    let mut opic = Opic::with_damping(0.9).unwrap();
    for _ in 0..20_000 {
        for page in 0..6 {
            opic.fetched(page, graph.out_links(page));
        }
    }
    opic.check().unwrap();
    for (node, want) in expected.iter().enumerate() {
        let got = opic.scaled_importance(node as u32) / 6.0;
        assert!((got - want).abs() < 1e-4, "node {}: {got} vs {want}", node + 1);
    }
}
