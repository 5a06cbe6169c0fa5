//! Checks per second against a 1,000-rule robots.txt (BENCHMARKS.md, "robots.txt checks").
//!
//! The file is generated from a fixed seed: a `*` group of 1,000 rules (literal directory
//! prefixes, file allows, `*` wildcards, `$` anchors, query parameters) behind three small named
//! groups, so a check also pays for group selection. 1,000 paths from the same words are
//! checked in turn, a third of them built on some rule's prefix (the bench prints how many
//! are disallowed, and how many rules are distinct).
//!
//! `cargo bench -p freshet-robots --bench is_allowed`
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use freshet_robots::RobotsTxt;

const WORDS: &[&str] = &[
    "news", "archive", "private", "tmp", "search", "user", "cart", "img", "static", "blog", "docs", "api",
    "v1", "v2", "en", "fr", "de", "shop", "item", "tag", "page", "login", "admin", "feed", "media", "css",
    "js", "print", "share", "compare", "wiki", "forum",
];
const EXTENSIONS: &[&str] = &["html", "php", "pdf", "jpg", "json", "xml"];
const PARAMETERS: &[&str] = &["sessionid", "sort", "ref", "utm_source", "replytocom", "page"];

/// SplitMix64: a fixed, dependency-free sequence.
struct Sequence(u64);

impl Sequence {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }
}

fn robots_file(rules: usize, sequence: &mut Sequence) -> String {
    let mut text = String::from(
        "User-agent: Googlebot\nDisallow: /nogoogle/\n\nUser-agent: Bingbot\nCrawl-delay: 5\n\
         Disallow: /nobing/\n\nUser-agent: otherbot\nDisallow: /\n\nUser-agent: *\n",
    );
    for _ in 0..rules {
        let (a, b, c) = (sequence.pick(WORDS), sequence.pick(WORDS), sequence.pick(WORDS));
        let n = sequence.next() % 10;
        let line = match sequence.next() % 20 {
            0..=11 => format!("Disallow: /{a}/{b}{n}/\n"),
            12..=14 => format!("Allow: /{a}/{b}{n}/{c}.{}\n", sequence.pick(EXTENSIONS)),
            15 => format!("Disallow: /*{c}{n}.{}$\n", sequence.pick(EXTENSIONS)),
            16 => format!("Disallow: /{a}/*/{b}{n}\n"),
            17 => format!("Disallow: /*?{}={c}{n}\n", sequence.pick(PARAMETERS)),
            18 => format!("Disallow: /{a}/{b}{n}/{c}$\n"),
            _ => format!("Allow: /{a}/*{c}{n}.{}\n", sequence.pick(EXTENSIONS)),
        };
        text.push_str(&line);
    }
    text.push_str("\nSitemap: https://example.com/sitemap.xml\n");
    text
}

fn paths(count: usize, text: &str, sequence: &mut Sequence) -> Vec<String> {
    let prefixes: Vec<&str> = text.lines().filter_map(|line| line.strip_prefix("Disallow: /")).collect();
    (0..count)
        .map(|_| {
            if sequence.next().is_multiple_of(3) {
                // A third of the paths start like some rule (a wildcard one may not match).
                return format!("/{}page.html", prefixes[(sequence.next() % prefixes.len() as u64) as usize]);
            }
            let (a, b, c) = (sequence.pick(WORDS), sequence.pick(WORDS), sequence.pick(WORDS));
            let (n, m) = (sequence.next() % 10, sequence.next() % 10);
            let extension = sequence.pick(EXTENSIONS);
            match sequence.next() % 4 {
                0 => format!("/{a}/{b}{n}/{c}{m}.{extension}"),
                1 => format!("/{a}/{b}{n}/{c}.{extension}?{}={c}{m}", sequence.pick(PARAMETERS)),
                2 => format!("/{a}/{b}{n}/{c}/index.{extension}"),
                _ => format!("/{a}/{c}-{b}-{}", sequence.next() % 1000),
            }
        })
        .collect()
}

fn bench(criterion: &mut Criterion) {
    let mut sequence = Sequence(42);
    let text = robots_file(1000, &mut sequence);
    let paths = paths(1000, &text, &mut sequence);
    let robots = RobotsTxt::parse(text.as_bytes());
    let distinct = robots.group("freshet").len();
    let disallowed = paths.iter().filter(|path| !robots.is_allowed("freshet", path)).count();
    eprintln!(
        "1,000-rule file: {} bytes, {distinct} distinct rules; {disallowed} of {} paths disallowed",
        text.len(),
        paths.len()
    );

    let mut group = criterion.benchmark_group("robots-1000-rules");
    group.throughput(Throughput::Elements(paths.len() as u64));
    group.bench_function("is_allowed", |bencher| {
        bencher.iter(|| paths.iter().filter(|path| robots.is_allowed(black_box("freshet"), path)).count())
    });
    let rules = robots.group("freshet");
    group.bench_function("group-is_allowed", |bencher| {
        bencher.iter(|| paths.iter().filter(|path| rules.is_allowed(black_box(path))).count())
    });
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("parse", |bencher| bencher.iter(|| RobotsTxt::parse(black_box(text.as_bytes()))));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
