//! Link extraction throughput on a ~50 KB HTML page shaped like a real one (head with meta and
//! link tags, navigation, paragraphs with inline links, a script and a footer), in MB/s.
//! `cargo bench -p freshet-fetch --bench links`; figures in BENCHMARKS.md.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use freshet_fetch::links::{LinkOptions, extract_links};

#[path = "support/page.rs"]
mod bench_page;
use bench_page::page;

fn bench(c: &mut Criterion) {
    let html = page(50_000);
    let url =
        freshet_url::canonicalize("https://bench.test/articles/bench").unwrap_or_else(|e| panic!("{e}"));
    let options = LinkOptions::default();
    let links = extract_links(&url, Some("text/html; charset=utf-8"), html.as_bytes(), &options).links.len();
    let mut group = c.benchmark_group("links");
    group.throughput(Throughput::Bytes(html.len() as u64));
    group.bench_function(format!("extract_{}_bytes_{links}_links", html.len()), |b| {
        b.iter(|| {
            extract_links(
                black_box(&url),
                Some("text/html; charset=utf-8"),
                black_box(html.as_bytes()),
                &options,
            )
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
