//! Content signature throughput on a ~50 KB HTML page, in MB/s: the whole
//! `Signature::of_html`, and its two parts, main-text extraction (`MainText::from_html`, the
//! `lol_html` pass and normalisation) and hashing (`Signature::of_text`: xxh3 of the words and
//! the 3-word-shingle SimHash). The page is the one `crates/fetch/benches/links.rs` measures
//! link extraction on (same generator, same 50,156 bytes), so the two figures compare directly.
//! A second input is a page shaped like the crawl bench's static site
//! (`experiments/static-site/gen_site.py`: about 10 KB, a header and a navigation list of
//! 31 links, a heading, then paragraphs of 40 to 90 words from a 64-word vocabulary): what
//! the crawler's `Analysis::of` meets page after page there.
//! Last, a full host boilerplate table learning one more page.
//! `cargo bench -p freshet-content --bench signature`; figures in BENCHMARKS.md.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use freshet_content::{HostBoilerplate, MainText, Signature};

// The same page as `crates/fetch/benches/links.rs`, so the two figures compare.
#[path = "../../fetch/benches/support/page.rs"]
mod bench_page;
use bench_page::page;

/// The words `gen_site.py` draws its paragraphs from.
const SITE_WORDS: &str = "crawler frontier politeness robots sitemap archive record digest revisit change rate \
    freshness importance host page link anchor scheduler budget queue fetch response header \
    status content body charset encoding canonical fragment query path scheme port origin \
    delay backoff retry timeout stream parser token element attribute value text block \
    signature shingle hash estimate interval poisson periodic bursty model truth web test";

/// Page `i` of an `n`-page static site as `gen_site.py` writes it (same markup and sizes; a
/// splitmix sequence stands in for Python's `random`, so the words differ).
fn static_site_page(i: u64, n: u64) -> String {
    let words: Vec<&str> = SITE_WORDS.split_whitespace().collect();
    let mut state = i;
    let mut next = move |below: u64| {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % below
    };
    let url = |j: u64| if j == 0 { "/".to_owned() } else { format!("/p/{j:05}.html") };
    let mut links: Vec<u64> = (20 * i + 1..=20 * i + 20).filter(|&c| c < n).collect();
    links.extend((0..10).map(|_| next(n)));
    let nav: String =
        links.iter().map(|&j| format!("<li><a href=\"{}\">page {j}</a></li>\n", url(j))).collect();
    let head = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>Page {i}</title></head>\n<body>\n<header><a href=\"/\">home</a></header>\n\
         <nav><ul>\n{nav}</ul></nav>\n<main>\n<h1>Page {i}</h1>\n"
    );
    let tail = "</main>\n<footer>static bench site</footer>\n</body></html>\n";
    let mut body = String::new();
    while head.len() + body.len() + tail.len() < 10 * 1024 {
        let count = 40 + next(50);
        let mut paragraph: Vec<String> =
            (0..count).map(|_| words[next(words.len() as u64) as usize].to_owned()).collect();
        if let Some(first) = paragraph.first_mut() {
            *first = first[..1].to_uppercase() + &first[1..];
        }
        body.push_str(&format!("<p>{}.</p>\n", paragraph.join(" ")));
    }
    head + &body + tail
}

fn bench(c: &mut Criterion) {
    bench_page(c, "signature", &page(50_000));
    bench_page(c, "signature_static_site", &static_site_page(123, 20_000));
    bench_learning(c);
}

/// A host table (default capacity, 4,096 blocks) learning one more page of 20 blocks seen
/// nowhere else and 2 template blocks, once full: what the crawler does for every page it
/// fetches first (`HostBoilerplate::learn`, on its control task).
fn bench_learning(c: &mut Criterion) {
    let mut host = HostBoilerplate::default();
    let mut next_block = 1_000u64;
    let mut page = || {
        let unique = (next_block..next_block + 20).map(|block| block.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        next_block += 20;
        unique.chain([1, 2]).collect::<Vec<u64>>()
    };
    for _ in 0..1_000 {
        host.learn_hashes(page());
    }
    c.bench_function("boilerplate_learn_page_22_blocks_full_table", |b| {
        b.iter_batched(&mut page, |blocks| host.learn_hashes(blocks), criterion::BatchSize::SmallInput)
    });
}

fn bench_page(c: &mut Criterion, group_name: &str, html: &str) {
    let html = html.to_owned();
    let text = MainText::from_html(&html);
    // A host table that has learned this page's blocks (none is boilerplate yet: one page):
    // measures the per-block lookups on the hashing path.
    let mut host = HostBoilerplate::default();
    host.learn(&text);
    let mut group = c.benchmark_group(group_name);
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
