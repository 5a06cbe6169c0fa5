//! Content signature throughput on a ~50 KB HTML page, in MB/s: the whole
//! `Signature::of_html`, and its two parts, main-text extraction (`MainText::from_html`, the
//! `lol_html` pass and normalisation) and hashing (`Signature::of_text`: xxh3 of the words and
//! the 3-word-shingle SimHash). The page is the one `crates/fetch/benches/links.rs` measures
//! link extraction on (same generator, same 50,156 bytes), so the two figures compare directly.
//! `cargo bench -p freshet-content --bench signature`; figures in BENCHMARKS.md.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use freshet_content::{HostBoilerplate, MainText, Signature};

// The same page as `crates/fetch/benches/links.rs`, so the two figures compare.
#[path = "../../fetch/benches/support/page.rs"]
mod bench_page;
use bench_page::page;

fn bench(c: &mut Criterion) {
    let html = page(50_000);
    let text = MainText::from_html(&html);
    // A host table that has learned this page's blocks (none is boilerplate yet: one page):
    // measures the per-block lookups on the hashing path.
    let mut host = HostBoilerplate::default();
    host.learn(&text);
    let mut group = c.benchmark_group("signature");
    group.throughput(Throughput::Bytes(html.len() as u64));
    let label = format!("{}_bytes_{}_words_{}_blocks", html.len(), text.word_count(), text.blocks().len());
    group.bench_function(format!("of_html_{label}"), |b| {
        b.iter(|| Signature::of_html(black_box(&html), None))
    });
    group.bench_function(format!("extract_{label}"), |b| b.iter(|| MainText::from_html(black_box(&html))));
    group.bench_function(format!("hash_{label}"), |b| b.iter(|| Signature::of_text(black_box(&text), None)));
    group.bench_function(format!("hash_with_host_table_{label}"), |b| {
        b.iter(|| Signature::of_text(black_box(&text), Some(&host)))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
