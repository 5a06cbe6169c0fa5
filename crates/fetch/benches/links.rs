//! Link extraction throughput on a ~50 KB HTML page shaped like a real one (head with meta and
//! link tags, navigation, paragraphs with inline links, a script and a footer), in MB/s.
//! `cargo bench -p freshet-fetch --bench links`; figures in BENCHMARKS.md.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use freshet_fetch::links::{LinkOptions, extract_links};

/// A deterministic page of about `target` bytes with one link per ~120 bytes of text.
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
