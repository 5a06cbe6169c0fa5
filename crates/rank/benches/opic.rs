//! How many `Opic::fetched` calls per second on a 10^6-page power-law graph, and how many heap
//! bytes a page costs (from capacities, printed once).
//!
//! The graph is seeded (StdRng, seed 42) and shaped like the test web's: out-degree
//! `min(40, ⌊2·U^(−1/1.5)⌋)` (Pareto α = 1.5, mean ≈ 5), targets Zipf-like `⌊(n+1)^U⌋ − 1`, so
//! in-degrees follow a power law. Two link orders: sorted and distinct (a store's sets: the O(k)
//! path) and as drawn, with repeats (a link extractor's document order: the sorting path).
//! The estimator is warmed by one full pass, so the calls measured allocate nothing.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use freshet_rank::{InDegree, Opic};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

const PAGES: u32 = 1_000_000;
/// Fetches per measured iteration: a slice of a round-robin pass.
const BATCH: u32 = 100_000;

/// Out-links in CSR form: page `i` links to `targets[offsets[i]..offsets[i + 1]]`.
struct Graph {
    offsets: Vec<usize>,
    targets: Vec<u32>,
}

impl Graph {
    fn power_law(pages: u32, seed: u64, sorted: bool) -> Self {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut offsets = Vec::with_capacity(pages as usize + 1);
        let mut targets = Vec::with_capacity(pages as usize * 5);
        offsets.push(0);
        for _ in 0..pages {
            let u: f64 = 1.0 - rng.random::<f64>();
            let degree = (2.0 * u.powf(-1.0 / 1.5)).floor().min(40.0) as usize;
            let start = targets.len();
            for _ in 0..degree {
                let zipf = (f64::from(pages) + 1.0).powf(rng.random::<f64>()).floor() - 1.0;
                targets.push((zipf.max(0.0) as u32).min(pages - 1));
            }
            if sorted {
                targets[start..].sort_unstable();
                let mut kept = start;
                for i in start..targets.len() {
                    if i == start || targets[i] != targets[kept - 1] {
                        targets[kept] = targets[i];
                        kept += 1;
                    }
                }
                targets.truncate(kept);
            }
            offsets.push(targets.len());
        }
        Self { offsets, targets }
    }

    fn links(&self, page: u32) -> &[u32] {
        &self.targets[self.offsets[page as usize]..self.offsets[page as usize + 1]]
    }
}

fn fetched(criterion: &mut Criterion) {
    let mut group = criterion.benchmark_group("opic-fetched-1e6-pages");
    group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4));
    group.throughput(Throughput::Elements(u64::from(BATCH)));
    for (name, sorted) in [("sorted-links", true), ("document-order-links", false)] {
        let graph = Graph::power_law(PAGES, 42, sorted);
        let mut opic = Opic::new();
        let mut degree = InDegree::new();
        for page in 0..PAGES {
            opic.fetched(page, graph.links(page));
            degree.fetched(page, graph.links(page));
        }
        eprintln!(
            "{name}: {} links; Opic heap {:.2} bytes/page, InDegree heap {:.2} bytes/page",
            graph.targets.len(),
            opic.heap_bytes() as f64 / f64::from(opic.page_count()),
            degree.heap_bytes() as f64 / f64::from(degree.page_count()),
        );
        let mut next = 0u32;
        group.bench_function(name, |bencher| {
            bencher.iter(|| {
                for _ in 0..BATCH {
                    opic.fetched(next, graph.links(next));
                    next = (next + 1) % PAGES;
                }
                black_box(opic.scaled_importance(next))
            });
        });
    }
    group.finish();
}

criterion_group!(benches, fetched);
criterion_main!(benches);
