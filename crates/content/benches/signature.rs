//! Content signature throughput on a ~50 KB HTML page, in MB/s: the whole
//! `Signature::of_html`, and its two parts, main-text extraction (`MainText::from_html`, the
//! `lol_html` pass and normalisation) and hashing (`Signature::of_text`: xxh3 of the words and
//! the 3-word-shingle SimHash). The page is the one `crates/fetch/benches/links.rs` measures
//! link extraction on (same generator, same 50,156 bytes), so the two figures compare directly.
//! `cargo bench -p freshet-content --bench signature`; figures in BENCHMARKS.md.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use freshet_content::{HostBoilerplate, MainText, Signature};

/// A deterministic page of about `target` bytes, as in `crates/fetch/benches/links.rs`.
fn page(target: usize) -> String {
    let mut html = String::from(
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><title>Bench page</title>\n\
         <meta name=viewport content=\"width=device-width\"><link rel=stylesheet href=/s.css>\n\
         <link rel=canonical href=/articles/bench><link rel=alternate hreflang=fr href=/fr/articles/bench>\n\
         <script>window.dataLayer = []; function f(a) { return a < 3 && '<a href=x>'; }</script></head>\n\
         <body><nav><ul>",
    );
    for i in 0..40 {
        html.push_str(&format!("<li><a href=\"/section/{i}/\" class=\"nav-item\">Section {i}</a></li>"));
    }
    html.push_str("</ul></nav>\n<main>");
    let mut n = 0u64;
    while html.len() < target {
        n += 1;
        html.push_str(&format!(
            "<p class=\"para\">Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod \
             <a href=\"../articles/{n}?ref=bench&amp;page={}\" title=\"Article {n}\">article {n}</a> tempor \
             incididunt ut labore et dolore magna aliqua. <em>Ut enim</em> ad minim veniam.</p>\n",
            n % 7
        ));
    }
    html.push_str(
        "</main><footer><a href=\"https://other.test/\" rel=nofollow>x</a></footer></body></html>\n",
    );
    html
}

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
