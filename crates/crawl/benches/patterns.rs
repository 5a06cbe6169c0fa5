//! `include`/`exclude` patterns against links (BENCHMARKS.md, "Scope from many seeds"): one
//! regex after another, as the crawler did, against one `regex::RegexSet`, as it does now,
//! side by side in one run. Patterns `/trap{i}/|\?(print|share{i})=`; 10,000 article URLs,
//! none matching (the common case: every pattern is tried).
//!
//! `cargo bench -p freshet-crawl --bench patterns`
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

fn patterns(c: &mut Criterion) {
    let urls: Vec<String> = (0..10_000)
        .map(|i| {
            format!("https://www.site{}.example.com/news/2026/11/article-{i}.html?page={}", i % 100, i % 7)
        })
        .collect();
    let mut group = c.benchmark_group("patterns");
    group.throughput(Throughput::Elements(urls.len() as u64));
    for count in [3, 10, 100] {
        let sources: Vec<String> = (0..count).map(|i| format!(r"/trap{i}/|\?(print|share{i})=")).collect();
        let list: Vec<regex::Regex> =
            sources.iter().map(|source| regex::Regex::new(source).unwrap()).collect();
        let set = regex::RegexSet::new(&sources).unwrap();
        group.bench_function(BenchmarkId::new("one after another", count), |b| {
            b.iter(|| {
                urls.iter().filter(|url| list.iter().any(|pattern| pattern.is_match(black_box(url)))).count()
            });
        });
        group.bench_function(BenchmarkId::new("set", count), |b| {
            b.iter(|| urls.iter().filter(|url| set.is_match(black_box(url))).count());
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = patterns
}
criterion_main!(benches);
