//! Frontier store throughput at 10^6 URLs, per engine: discoveries per second (batches of
//! 10,000 with the seen-set check, one in five already seen), completions ("mark fetched") per
//! second with full records, a resume scan, and the bytes per URL (redb: file size; memory: the
//! growth of the process's resident set; Redis: the server's `used_memory` and its append-only
//! file), on a server of its own on 127.0.0.1 syncing every write (`appendfsync always`), as
//! `RedisStore::open` requires (`redis-server` on the `PATH`, or `FRESHET_REDIS_SERVER`).
//!
//! `cargo bench -p freshet-frontier --bench store` (set `FRONTIER_BENCH_URLS` for another size).
//! A bench binary rather than criterion: each figure is one pass over 10^6 URLs, which criterion
//! would repeat dozens of times on a 2-core machine.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use freshet_frontier::conformance::RedisServer;

use freshet_frontier::{
    Completion, Discovery, FrontierStore, MemoryStore, Op, RedbStore, RedisOptions, RedisStore,
};
use freshet_schedule::online::PageId;

const BATCH: usize = 10_000;
/// Of each discovery batch, this many are URLs seen in an earlier batch.
const SEEN_PER_BATCH: usize = 2_000;
const HOSTS: usize = 10_000;

/// A URL of realistic length (about 60 bytes) on one of `HOSTS` hosts.
fn url(i: usize) -> (String, String) {
    let host = format!("www.h{}.example.com", i % HOSTS);
    (format!("https://{host}/section/{}/article-{i}.html", (i / HOSTS) % 97), host)
}

fn discovery(i: usize) -> Op {
    let (url, host) = url(i);
    Op::Discover(Discovery {
        url,
        host,
        weight: 1.0,
        change_rate: 0.05,
        depth: 3,
        discovered_from: Some(PageId(0)),
        due: 0.0,
        redirect_trail: Vec::new(),
        metadata: Vec::new(),
    })
}

fn completion(page: u32) -> Op {
    Op::Complete(Completion {
        page: PageId(page),
        fetched_at: 1_800_000_000.0,
        weight: 0.5,
        change_rate: 0.01,
        next_due: Some(1_800_086_400.0),
        etag: Some("\"5f3c-1a2b3c4d5e6f\"".to_owned()),
        last_modified: Some("Tue, 15 Nov 1994 12:45:26 GMT".to_owned()),
        fingerprint: vec![0xab; 20],
        estimator: vec![0x11; 96],
    })
}

fn resident_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm.split_whitespace().nth(1).and_then(|field| field.parse().ok()).unwrap_or(0);
    pages * 4096
}

struct Figures {
    discoveries_per_s: f64,
    new_urls_per_s: f64,
    completions_per_s: f64,
    scan_pages_per_s: f64,
}

fn run(store: &mut impl FrontierStore, urls: usize) -> Figures {
    let started = Instant::now();
    let mut next_new = 0;
    let mut discoveries = 0;
    while next_new < urls {
        let fresh = (BATCH - SEEN_PER_BATCH).min(urls - next_new);
        let mut batch: Vec<Op> = (next_new..next_new + fresh).map(discovery).collect();
        if next_new > 0 {
            // Already seen: spread over everything discovered so far.
            batch.extend((0..SEEN_PER_BATCH).map(|j| discovery((j * 7919 + next_new) % next_new)));
        }
        discoveries += batch.len();
        let report = store.commit(&batch).unwrap();
        assert_eq!(report.admissions.iter().filter(|admission| admission.is_new).count(), fresh);
        next_new += fresh;
    }
    let discover_s = started.elapsed().as_secs_f64();

    let started = Instant::now();
    let pages = u32::try_from(urls).unwrap();
    for first in (0..pages).step_by(BATCH) {
        let batch: Vec<Op> = (first..pages.min(first + BATCH as u32)).map(completion).collect();
        store.commit(&batch).unwrap();
    }
    let complete_s = started.elapsed().as_secs_f64();

    let started = Instant::now();
    let mut after = None;
    let mut chunks = 0;
    while let Some(last) = store.pages(after, BATCH).unwrap().last().map(|page| page.id) {
        after = Some(last);
        chunks += 1;
    }
    let scan_s = started.elapsed().as_secs_f64();
    assert_eq!(chunks, urls.div_ceil(BATCH));
    assert_eq!(store.counts().unwrap().fetched, urls as u64);
    Figures {
        discoveries_per_s: discoveries as f64 / discover_s,
        new_urls_per_s: urls as f64 / discover_s,
        completions_per_s: urls as f64 / complete_s,
        scan_pages_per_s: urls as f64 / scan_s,
    }
}

fn print(engine: &str, figures: &Figures, bytes: &str) {
    println!(
        "| {engine} | {:.0} | {:.0} | {:.0} | {:.0} | {bytes} |",
        figures.discoveries_per_s,
        figures.new_urls_per_s,
        figures.completions_per_s,
        figures.scan_pages_per_s
    );
}

fn main() {
    if std::env::args().any(|arg| arg == "--list") {
        return; // `cargo test --benches` asks for the list of benches: there are none to list.
    }
    let urls: usize =
        std::env::var("FRONTIER_BENCH_URLS").ok().and_then(|n| n.parse().ok()).unwrap_or(1_000_000);
    println!("{urls} URLs, batches of {BATCH} ({SEEN_PER_BATCH} already seen), {HOSTS} hosts");
    println!("| engine | discoveries/s | new URLs/s | completions/s | scan pages/s | bytes per URL |");
    println!("|---|---|---|---|---|---|");

    let before = resident_bytes();
    let mut memory = MemoryStore::new();
    let figures = run(&mut memory, urls);
    let grown = resident_bytes().saturating_sub(before);
    print("memory", &figures, &format!("{:.0} (resident set growth)", grown as f64 / urls as f64));
    drop(memory);

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("frontier.redb");
    let mut redb = RedbStore::open(&path).unwrap();
    let figures = run(&mut redb, urls);
    let size = std::fs::metadata(&path).unwrap().len();
    redb.compact().unwrap();
    let compacted = std::fs::metadata(&path).unwrap().len();
    let tables: Vec<String> = redb
        .table_bytes()
        .unwrap()
        .into_iter()
        .map(|(table, bytes)| format!("{table} {:.1}", bytes as f64 / urls as f64))
        .collect();
    eprintln!("redb after compact, bytes/URL by table: {}", tables.join(", "));
    let bytes =
        format!("{:.0} file, {:.0} after compact", size as f64 / urls as f64, compacted as f64 / urls as f64);
    print("redb", &figures, &bytes);
    drop(redb);
    redis(urls);
}

/// The Redis engine on a server of its own (the conformance feature's `RedisServer`).
fn redis(urls: usize) {
    let server = RedisServer::start();
    let mut connection = server.connect().unwrap();
    let used = |connection: &mut redis::Connection| -> u64 {
        let info: String = redis::cmd("INFO").arg("memory").query(connection).unwrap();
        info.lines().find_map(|line| line.strip_prefix("used_memory:")?.trim().parse().ok()).unwrap_or(0)
    };
    let before = used(&mut connection);
    let mut store = RedisStore::open(RedisOptions::new(server.url.clone())).unwrap();
    let figures = run(&mut store, urls);
    let grown = used(&mut connection).saturating_sub(before);
    let aof: u64 = std::fs::read_dir(server.dir().join("appendonlydir"))
        .map(|entries| {
            entries.flatten().filter_map(|entry| entry.metadata().ok()).map(|meta| meta.len()).sum()
        })
        .unwrap_or(0);
    let bytes = format!(
        "{:.0} server memory, {:.0} append-only file",
        grown as f64 / urls as f64,
        aof as f64 / urls as f64
    );
    print("redis", &figures, &bytes);
}
