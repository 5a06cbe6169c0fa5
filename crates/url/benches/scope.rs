//! Links checked for scope against many seeds (BENCHMARKS.md, "Scope from many seeds"): the
//! pass over the seeds (`seeds.iter().any(|seed| scope.in_scope(seed, url))`, what the crawler
//! did) against [`SeedScope`]'s sets, side by side in one run.
//!
//! Seeds `http://www.site{i}.{tld}/` for `i < SEEDS` (five top-level domains, two of them
//! two-label public suffixes); 1,000 links, half on a seed's own host or a subdomain of it, half
//! on hosts outside every seed.
//!
//! `cargo bench -p freshet-url --bench scope`
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use freshet_url::{Scope, SeedScope, Url, canonicalize};

const TLDS: [&str; 5] = ["com", "co.uk", "org", "com.au", "test"];

fn seeds(count: usize) -> Vec<Url> {
    (0..count)
        .map(|i| canonicalize(&format!("http://www.site{i}.{}/", TLDS[i % TLDS.len()])).unwrap())
        .collect()
}

fn links(seed_count: usize) -> Vec<Url> {
    (0..1_000)
        .map(|i| {
            let site = (i * 7_919) % seed_count;
            let tld = TLDS[site % TLDS.len()];
            let url = match i % 4 {
                0 => format!("http://www.site{site}.{tld}/page/{i}"),
                1 => format!("https://blog.site{site}.{tld}/post/{i}"),
                2 => format!("http://www.elsewhere{i}.{tld}/"),
                _ => format!("http://10.0.{}.{}/x", i / 256, i % 256),
            };
            canonicalize(&url).unwrap()
        })
        .collect()
}

fn scope(c: &mut Criterion) {
    let mut group = c.benchmark_group("scope");
    group.throughput(Throughput::Elements(1_000));
    for count in [1_000, 100_000] {
        let seeds = seeds(count);
        let links = links(count);
        for scope in [Scope::Host, Scope::Domain] {
            let mut set = SeedScope::new(scope);
            for seed in &seeds {
                set.add(seed);
            }
            let in_scope = links.iter().filter(|link| set.contains(link)).count();
            let passed =
                links.iter().filter(|link| seeds.iter().any(|seed| scope.in_scope(seed, link))).count();
            assert_eq!(in_scope, passed);
            let label = format!("{scope:?}/{count} seeds");
            group.bench_function(BenchmarkId::new("set", &label), |b| {
                b.iter(|| links.iter().filter(|link| set.contains(black_box(link))).count());
            });
            if count <= 1_000 || scope == Scope::Host {
                group.bench_function(BenchmarkId::new("pass", &label), |b| {
                    b.iter(|| {
                        links
                            .iter()
                            .filter(|link| seeds.iter().any(|seed| scope.in_scope(seed, black_box(link))))
                            .count()
                    });
                });
            }
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = scope
}
criterion_main!(benches);
