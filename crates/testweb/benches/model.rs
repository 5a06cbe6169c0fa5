//! The model's cost per request: building a web, a page's version at a late time (walking
//! from 0 vs. the server's cursor), and rendering a page.
//!
//! `cargo bench -p freshet-testweb --bench model`.

#![allow(missing_docs, clippy::unwrap_used)]

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use freshet_testweb::render::{RenderContext, page_html};
use freshet_testweb::{VersionCursor, Web, WebConfig};

fn bench(c: &mut Criterion) {
    let config = WebConfig { hosts: 100, pages: 100_000, ..WebConfig::default() };
    let mut group = c.benchmark_group("testweb");
    group.sample_size(10);
    group.throughput(Throughput::Elements(100_000));
    group.bench_function("build/100k-pages", |b| b.iter(|| Web::new(config.clone()).unwrap()));

    let web = Web::new(config).unwrap();
    let ids: Vec<u32> = (0..1000).map(|i| i * 97).collect();
    group.throughput(Throughput::Elements(ids.len() as u64));
    // Model day 1000: e.g. 17 minutes at --time-scale 1, or 17 s at 60.
    group.bench_function("version/walk-from-0/t=1000", |b| {
        b.iter(|| ids.iter().map(|&id| web.changes(id).version_and_last_change(1000.0).0).sum::<u64>())
    });
    let mut cursors: Vec<VersionCursor> = ids.iter().map(|&id| VersionCursor::new(web.changes(id))).collect();
    let mut t = 1000.0;
    for cursor in &mut cursors {
        cursor.version_at(t);
    }
    // A crawler revisiting: each request a little later than the previous one.
    group.bench_function("version/cursor/t=1000+", |b| {
        b.iter(|| {
            t += 0.01;
            cursors.iter_mut().map(|cursor| cursor.version_at(t).0).sum::<u64>()
        })
    });
    let context = RenderContext { port: 8080, ..RenderContext::default() };
    let bytes: usize = ids.iter().map(|&id| page_html(&web, id, 3, &context).len()).sum();
    println!("mean page: {} bytes", bytes / ids.len());
    group.bench_function("render/page_html", |b| {
        b.iter(|| ids.iter().map(|&id| page_html(&web, id, 3, &context).len()).sum::<usize>())
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
