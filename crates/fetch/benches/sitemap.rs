//! Sitemap parsing throughput on a full 50,000-URL urlset (the protocol's per-file maximum,
//! every entry with `lastmod`, `changefreq` and `priority`), plain and gzip, in MB/s of
//! uncompressed XML. `cargo bench -p freshet-fetch --bench sitemap`; figures in BENCHMARKS.md.

use std::hint::black_box;
use std::io::Write as _;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use freshet_fetch::sitemap::{SitemapOptions, parse_sitemap};

/// A deterministic urlset of `count` entries on `https://bench.test/`.
fn urlset(count: u32) -> String {
    let frequencies = ["hourly", "daily", "weekly", "monthly"];
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for i in 0..count {
        xml.push_str(&format!(
            "<url><loc>https://bench.test/articles/{}/{i}-some-article-title?ref=sitemap&amp;v={}</loc>\
             <lastmod>2025-{:02}-{:02}T{:02}:17:05+00:00</lastmod><changefreq>{}</changefreq>\
             <priority>0.{}</priority></url>\n",
            i % 97,
            i % 5,
            i % 12 + 1,
            i % 28 + 1,
            i % 24,
            frequencies[i as usize % 4],
            i % 10
        ));
    }
    xml.push_str("</urlset>\n");
    xml
}

fn bench(c: &mut Criterion) {
    let xml = urlset(50_000);
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(xml.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
    let gz = encoder.finish().unwrap_or_else(|e| panic!("{e}"));
    let at = freshet_url::canonicalize("https://bench.test/sitemap.xml").unwrap_or_else(|e| panic!("{e}"));
    let options = SitemapOptions::default();
    let kept = parse_sitemap(xml.as_bytes(), &at, &options).map(|s| s.urls.len()).unwrap_or(0);
    assert_eq!(kept, 50_000, "every entry is valid");
    let mut group = c.benchmark_group("sitemap");
    group.throughput(Throughput::Bytes(xml.len() as u64));
    group.sample_size(20);
    group.bench_function(format!("urlset_{}_bytes_{kept}_urls", xml.len()), |b| {
        b.iter(|| parse_sitemap(black_box(xml.as_bytes()), &at, &options))
    });
    group.bench_function(format!("urlset_gzip_{}_bytes_{kept}_urls", gz.len()), |b| {
        b.iter(|| parse_sitemap(black_box(&gz), &at, &options))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
