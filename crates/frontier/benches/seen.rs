//! The seen-URL path at scale. Two parts, both fed by one synthetic link stream: URLs of 59–80
//! bytes (`https://www.site{h}.example.org/{section}/{year}/{month}/story-{i}.html`), 100 a host,
//! each new URL followed by `REPEATS` links to URLs seen before (drawn uniformly from all seen
//! so far: the cache's worst case; a real crawl's links favour popular pages), so each URL is
//! discovered ~`REPEATS + 1` times.
//!
//! 1. `index`: the in-memory [`SeenIndex`] alone at `SEEN_BENCH_INDEX_URLS` (default 10^8) new
//!    URLs: probes/s for new and for repeat discoveries (the URL strings are built outside the
//!    timed part, as the crawler gets them from link extraction), resident-set growth and peak
//!    per URL, and the time to rebuild the index (hash + insert of every URL, as
//!    `SeenFilter::open` does after reading each page from the engine).
//! 2. `store`: `SeenFilter<RedbStore>` (the crawler's store) against a bare `RedbStore` (the
//!    crawler's store before it) at `SEEN_BENCH_STORE_URLS` (default 10^6) new URLs, in the
//!    crawler's group commits: alternately a batch of `SEEN_BENCH_BATCH_NEW` (default 1,000) new
//!    URLs and one of `REPEATS` times as many repeats. Reports discoveries/s of each kind, the redb file's bytes
//!    per URL (discoveries only) and the time of `SeenFilter::open` (the resume rebuild).
//!
//! 3. `reopen` (only when named): opens the store `store` kept at `SEEN_BENCH_FILE`, in a
//!    process of its own so that its resident set is the resume's alone: `RedbStore::open`
//!    (rebuilds the seen-set entries held in memory) then `SeenFilter::open`, each timed
//!    (`SEEN_BENCH_TABLES=1`: also each table's bytes per URL, uncompacted).
//!
//! `cargo bench -p freshet-frontier --bench seen` (`-- index` or `-- store` for one part;
//! `SEEN_BENCH_STORES=filtered` or `bare` for one store of the store part;
//! `SEEN_BENCH_PROGRESS=n` reports the new URLs' rate, CPU, bytes written and slowest commit
//! every `n` new URLs; `SEEN_BENCH_FILE=path` with one store writes it there and keeps it, not
//! compacted, for `-- reopen`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use freshet_frontier::{Discovery, FrontierStore, Op, RedbStore, SeenFilter, SeenIndex, url_fingerprint};
use freshet_schedule::online::{HostId, PageId};

/// URLs per host (10^6 hosts at 10^8 URLs).
const URLS_PER_HOST: u64 = 100;
/// Links to already seen URLs per new URL.
const REPEATS: u64 = 6;
/// New URLs per block of the index part (and per commit of the store part).
const BLOCK_NEW: u64 = 10_000;
const SECTIONS: [&str; 8] = ["news", "sport", "culture", "business", "politics", "tech", "travel", "science"];

/// splitmix64: a fixed, fast mix for the synthetic stream.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Writes URL number `i` (of a stream on `hosts` hosts) into `out` and returns its host number.
fn url(i: u64, hosts: u64, out: &mut String) -> u64 {
    let m = mix(i);
    let host = m % hosts;
    out.clear();
    let section = SECTIONS[((m >> 24) % 8) as usize];
    write!(out, "https://www.site{host}.example.org/{section}/{}/story-{i}.html", 2000 + (m >> 40) % 26)
        .unwrap();
    host
}

fn host_key(host: u64) -> String {
    format!("https://www.site{host}.example.org")
}

fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let line = status.lines().find(|line| line.starts_with(field)).unwrap_or("");
    line.split_whitespace().nth(1).and_then(|kib| kib.parse().ok()).unwrap_or(0)
}

fn resident_bytes() -> u64 {
    status_kib("VmRSS:") * 1024
}

fn peak_resident_bytes() -> u64 {
    status_kib("VmHWM:") * 1024
}

/// The process's CPU time (user + system), from /proc/self/stat, in seconds.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after_name = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let ticks: f64 = [11, 12].iter().filter_map(|&at| fields.get(at)?.parse::<f64>().ok()).sum();
    ticks / 100.0
}

/// Bytes this process caused to be written to storage (`write_bytes` of /proc/self/io).
fn written_bytes() -> u64 {
    let io = std::fs::read_to_string("/proc/self/io").unwrap_or_default();
    let line = io.lines().find(|line| line.starts_with("write_bytes:")).unwrap_or("");
    line.split_whitespace().nth(1).and_then(|bytes| bytes.parse().ok()).unwrap_or(0)
}

fn per_s(count: u64, time: Duration) -> f64 {
    count as f64 / time.as_secs_f64()
}

fn index_part(urls: u64) {
    let host_count = (urls / URLS_PER_HOST).max(1);
    println!("## index: SeenIndex alone, {urls} new URLs, {REPEATS} repeats each, {host_count} hosts");
    let rss_before = resident_bytes();
    let cpu_before = cpu_seconds();
    let mut index = SeenIndex::new();
    let mut strings: Vec<String> =
        (0..BLOCK_NEW * (REPEATS + 1)).map(|_| String::with_capacity(96)).collect();
    let mut host_of = vec![0u64; strings.len()];
    let (mut new_time, mut repeat_time) = (Duration::ZERO, Duration::ZERO);
    let (mut new_count, mut repeat_count, mut url_bytes) = (0u64, 0u64, 0u64);
    let mut draw = 0u64;
    let mut next = 0u64;
    while next < urls {
        let fresh = BLOCK_NEW.min(urls - next);
        for k in 0..fresh {
            host_of[k as usize] = url(next + k, host_count, &mut strings[k as usize]);
            url_bytes += strings[k as usize].len() as u64;
        }
        let started = Instant::now();
        for k in 0..fresh {
            let string = &strings[k as usize];
            let fingerprint = url_fingerprint(string);
            if index.get(fingerprint).is_none() {
                index.insert(fingerprint, PageId((next + k) as u32), HostId(host_of[k as usize] as u32));
            }
        }
        new_time += started.elapsed();
        new_count += fresh;
        next += fresh;
        let repeats = fresh * REPEATS;
        for k in 0..repeats {
            draw += 1;
            let _ = url(mix(draw ^ 0x5eed) % next, host_count, &mut strings[k as usize]);
        }
        let started = Instant::now();
        let mut found = 0u64;
        for k in 0..repeats {
            found += u64::from(index.get(url_fingerprint(&strings[k as usize])).is_some());
        }
        repeat_time += started.elapsed();
        assert_eq!(found, repeats, "every repeat is found");
        repeat_count += repeats;
        if next % (urls / 10).max(1) < fresh {
            eprintln!("  {next} URLs, {:.0} s", (new_time + repeat_time).as_secs_f64());
        }
    }
    assert_eq!(index.len() as u64, urls);
    let rss_grown = resident_bytes().saturating_sub(rss_before);
    let peak = peak_resident_bytes().saturating_sub(rss_before);
    let cpu = cpu_seconds() - cpu_before;
    println!("| measure | value |");
    println!("|---|---|");
    println!("| mean URL length | {:.1} bytes |", url_bytes as f64 / urls as f64);
    println!(
        "| new discoveries (probe + insert) | {:.0}/s ({new_count} in {:.1} s) |",
        per_s(new_count, new_time),
        new_time.as_secs_f64()
    );
    println!(
        "| repeat discoveries (probe, hit) | {:.0}/s ({repeat_count} in {:.1} s) |",
        per_s(repeat_count, repeat_time),
        repeat_time.as_secs_f64()
    );
    println!(
        "| resident-set growth | {:.1} bytes/URL ({:.2} GiB) |",
        rss_grown as f64 / urls as f64,
        rss_grown as f64 / f64::from(1u32 << 30)
    );
    println!("| table from its capacity | {:.1} bytes/URL |", index.heap_bytes() as f64 / urls as f64);
    println!(
        "| peak resident set (growth, incl. the table doubling) | {:.1} bytes/URL |",
        peak as f64 / urls as f64
    );
    println!("| process CPU time, whole part | {cpu:.1} s |");
    drop(index);

    // The rebuild after a restart: every URL read from the engine is hashed and inserted, into
    // a table sized from the engine's counts (no doubling). Strings built outside the timer.
    let mut rebuilt = SeenIndex::with_capacity(urls as usize);
    let mut rebuild_time = Duration::ZERO;
    let mut next = 0u64;
    while next < urls {
        let fresh = BLOCK_NEW.min(urls - next);
        for k in 0..fresh {
            host_of[k as usize] = url(next + k, host_count, &mut strings[k as usize]);
        }
        let started = Instant::now();
        for k in 0..fresh {
            rebuilt.insert(
                url_fingerprint(&strings[k as usize]),
                PageId((next + k) as u32),
                HostId(host_of[k as usize] as u32),
            );
        }
        rebuild_time += started.elapsed();
        next += fresh;
    }
    println!(
        "| rebuild (hash + insert, presized) | {:.1} s ({:.0} URLs/s) |",
        rebuild_time.as_secs_f64(),
        per_s(urls, rebuild_time)
    );
    println!(
        "| presized table from its capacity | {:.1} bytes/URL |",
        rebuilt.heap_bytes() as f64 / urls as f64
    );
}

/// Discoveries of new URLs `first..first + count`.
fn new_batch(first: u64, count: u64, hosts: u64, buffer: &mut String) -> Vec<Op> {
    (first..first + count).map(|i| discovery(i, hosts, buffer)).collect()
}

fn discovery(i: u64, hosts: u64, buffer: &mut String) -> Op {
    let host = url(i, hosts, buffer);
    Op::Discover(Discovery {
        url: buffer.clone(),
        host: host_key(host),
        weight: 1.0,
        change_rate: 0.05,
        depth: 3,
        discovered_from: Some(PageId(0)),
        due: 0.0,
        redirect_trail: Vec::new(),
        metadata: Vec::new(),
    })
}

struct StoreFigures {
    new_per_s: f64,
    /// New URLs per second of process CPU time (user + system) spent in the new URLs' commits.
    new_per_cpu_s: f64,
    /// Bytes written to storage by the new URLs' commits, per new URL.
    new_written_per_url: f64,
    repeat_per_s: f64,
    all_per_s: f64,
    file_bytes: u64,
}

/// What one progress report (every `SEEN_BENCH_PROGRESS` new URLs) covers: the new URLs'
/// commits since the last report.
#[derive(Default)]
struct Interval {
    urls: u64,
    time: Duration,
    cpu: f64,
    written: u64,
    slowest: Duration,
}

/// One row of the store table; the compacted size is `–` for a store kept uncompacted.
fn print_store_row(filtered: bool, figures: &StoreFigures, urls: u64, compacted: Option<u64>) {
    let compacted =
        compacted.map_or_else(|| "–".to_owned(), |bytes| format!("{:.0}", bytes as f64 / urls as f64));
    println!(
        "| {} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} | {compacted} |",
        if filtered { "SeenFilter<RedbStore>" } else { "RedbStore" },
        figures.new_per_s,
        figures.new_per_cpu_s,
        figures.new_written_per_url,
        figures.repeat_per_s,
        figures.all_per_s,
        figures.file_bytes as f64 / urls as f64,
    );
}

fn store_run(
    store: &mut impl FrontierStore,
    urls: u64,
    batch_new: u64,
    file: &std::path::Path,
) -> StoreFigures {
    let hosts = (urls / URLS_PER_HOST).max(1);
    let progress_every = std::env::var("SEEN_BENCH_PROGRESS").ok().and_then(|n| n.parse::<u64>().ok());
    let run_started = Instant::now();
    let mut interval = Interval::default();
    let mut buffer = String::new();
    let (mut new_time, mut repeat_time) = (Duration::ZERO, Duration::ZERO);
    let (mut new_cpu, mut new_written) = (0.0, 0u64);
    let mut slowest = Duration::ZERO;
    let mut draw = 0u64;
    let mut next = 0u64;
    while next < urls {
        let fresh = batch_new.min(urls - next);
        let batch = new_batch(next, fresh, hosts, &mut buffer);
        let (cpu_before, written_before) = (cpu_seconds(), written_bytes());
        let started = Instant::now();
        let report = store.commit(&batch).unwrap();
        let took = started.elapsed();
        new_time += took;
        slowest = slowest.max(took);
        let (cpu, written) = (cpu_seconds() - cpu_before, written_bytes().saturating_sub(written_before));
        new_cpu += cpu;
        new_written += written;
        assert!(report.admissions.iter().all(|admission| admission.is_new));
        next += fresh;
        interval.urls += fresh;
        interval.time += took;
        interval.cpu += cpu;
        interval.written += written;
        interval.slowest = interval.slowest.max(took);
        if progress_every.is_some_and(|every| every > 0 && next % every < fresh) {
            eprintln!(
                "  {next} URLs at {:.0} s: {:.0} new/s, {:.0} new per CPU-s, {:.0} written bytes/new URL, slowest commit {:.3} s (since the last report); RSS {:.2} GB, file {:.2} GB ({:.0} bytes/URL)",
                run_started.elapsed().as_secs_f64(),
                per_s(interval.urls, interval.time),
                interval.urls as f64 / interval.cpu,
                interval.written as f64 / interval.urls as f64,
                interval.slowest.as_secs_f64(),
                resident_bytes() as f64 / 1e9,
                std::fs::metadata(file).map_or(0, |meta| meta.len()) as f64 / 1e9,
                std::fs::metadata(file).map_or(0, |meta| meta.len()) as f64 / next as f64,
            );
            interval = Interval::default();
        }
        let repeats: Vec<Op> = (0..fresh * REPEATS)
            .map(|_| {
                draw += 1;
                discovery(mix(draw ^ 0x5eed) % next, hosts, &mut buffer)
            })
            .collect();
        let started = Instant::now();
        let report = store.commit(&repeats).unwrap();
        repeat_time += started.elapsed();
        assert!(report.admissions.iter().all(|admission| !admission.is_new));
    }
    eprintln!("  slowest commit of new URLs: {:.3} s", slowest.as_secs_f64());
    StoreFigures {
        new_per_s: per_s(urls, new_time),
        new_per_cpu_s: urls as f64 / new_cpu,
        new_written_per_url: new_written as f64 / urls as f64,
        repeat_per_s: per_s(urls * REPEATS, repeat_time),
        all_per_s: per_s(urls * (REPEATS + 1), new_time + repeat_time),
        file_bytes: 0,
    }
}

fn store_part(urls: u64, batch_new: u64) {
    let hosts = (urls / URLS_PER_HOST).max(1);
    println!(
        "## store: {urls} new URLs in commits of {batch_new} new, then {} repeats, {hosts} hosts",
        batch_new * REPEATS
    );
    let dir = tempfile::tempdir_in(std::env::var("SEEN_BENCH_DIR").unwrap_or_else(|_| ".".into())).unwrap();
    println!(
        "| store | new discoveries/s | new per CPU-s | written bytes/new URL | repeat discoveries/s | all discoveries/s | redb file bytes/URL | after compact |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let mut rebuild = None;
    // `SEEN_BENCH_FILTERED_FIRST=1` swaps the order, to see what the order costs (the disk).
    // `SEEN_BENCH_STORES=filtered` (or `bare`) runs one store only, for the large sizes.
    let order =
        if std::env::var("SEEN_BENCH_FILTERED_FIRST").is_ok() { [true, false] } else { [false, true] };
    let only = std::env::var("SEEN_BENCH_STORES").ok();
    // `SEEN_BENCH_FILE=path` (with one store) writes the store there and keeps it, for `reopen`.
    let kept = std::env::var_os("SEEN_BENCH_FILE").map(std::path::PathBuf::from);
    assert!(kept.is_none() || only.is_some(), "SEEN_BENCH_FILE names one file: set SEEN_BENCH_STORES too");
    for filtered in order {
        if only.as_deref().is_some_and(|only| only != if filtered { "filtered" } else { "bare" }) {
            continue;
        }
        let path = kept
            .clone()
            .unwrap_or_else(|| dir.path().join(if filtered { "filtered.redb" } else { "bare.redb" }));
        let redb = RedbStore::open(&path).unwrap();
        let mut figures = if filtered {
            let mut store = SeenFilter::new(redb);
            let figures = store_run(&mut store, urls, batch_new, &path);
            drop(store);
            figures
        } else {
            let mut store = redb;
            store_run(&mut store, urls, batch_new, &path)
        };
        figures.file_bytes = std::fs::metadata(&path).unwrap().len();
        if kept.is_some() {
            // Kept for `-- reopen` in a process of its own (its resident set alone); no
            // compact (hours at 10^8 URLs on this machine, and measured at the smaller sizes).
            print_store_row(filtered, &figures, urls, None);
            println!("kept {} ({} bytes)", path.display(), figures.file_bytes);
            continue;
        }
        let mut redb = RedbStore::open(&path).unwrap();
        redb.compact().unwrap();
        let compacted = std::fs::metadata(&path).unwrap().len();
        let tables: Vec<String> = redb
            .table_bytes()
            .unwrap()
            .into_iter()
            .map(|(table, bytes)| format!("{table} {:.1}", bytes as f64 / urls as f64))
            .collect();
        eprintln!("  after compact, bytes/URL by table: {}", tables.join(", "));
        if filtered {
            let started = Instant::now();
            let store = SeenFilter::open(redb).unwrap();
            rebuild = Some((started.elapsed(), store.index().len()));
        } else {
            drop(redb);
        }
        std::fs::remove_file(&path).unwrap();
        print_store_row(filtered, &figures, urls, Some(compacted));
    }
    if let Some((time, len)) = rebuild {
        assert_eq!(len as u64, urls);
        println!(
            "SeenFilter::open (resume rebuild: scan + index) of {urls} URLs: {:.2} s ({:.0} URLs/s)",
            time.as_secs_f64(),
            per_s(urls, time)
        );
    }
}

/// Opens the store kept at `path` by `store` (`SEEN_BENCH_FILE`), as a resumed crawl does, in a
/// process of its own: `RedbStore::open` (which rebuilds the seen-set entries held in memory)
/// and then `SeenFilter::open` (the index), each timed, with the resident set after each.
fn reopen_part(path: &std::path::Path) {
    println!("## reopen: {}", path.display());
    let (rss_before, cpu_before) = (resident_bytes(), cpu_seconds());
    let started = Instant::now();
    let redb = RedbStore::open(path).unwrap();
    let redb_time = started.elapsed();
    let (rss_redb, cpu_redb) = (resident_bytes(), cpu_seconds());
    let held = redb.unmerged_urls();
    println!(
        "RedbStore::open: {:.2} s ({:.1} CPU-s), {held} seen-set entries held in memory, resident set {:.2} GB ({:.2} GB before)",
        redb_time.as_secs_f64(),
        cpu_redb - cpu_before,
        rss_redb as f64 / 1e9,
        rss_before as f64 / 1e9,
    );
    let started = Instant::now();
    let store = SeenFilter::open(redb).unwrap();
    let filter_time = started.elapsed();
    let urls = store.index().len();
    println!(
        "SeenFilter::open after it: {:.2} s ({:.1} CPU-s, {:.0} URLs/s) for {urls} URLs, resident set {:.2} GB, peak {:.2} GB",
        filter_time.as_secs_f64(),
        cpu_seconds() - cpu_redb,
        per_s(urls as u64, filter_time),
        resident_bytes() as f64 / 1e9,
        peak_resident_bytes() as f64 / 1e9,
    );
    if std::env::var("SEEN_BENCH_TABLES").is_ok() {
        let started = Instant::now();
        let tables: Vec<String> = store
            .store()
            .table_bytes()
            .unwrap()
            .into_iter()
            .map(|(table, bytes)| format!("{table} {:.1}", bytes as f64 / urls as f64))
            .collect();
        println!(
            "bytes/URL by table (not compacted): {} ({:.1} s)",
            tables.join(", "),
            started.elapsed().as_secs_f64()
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|arg| arg == "--list") {
        return; // `cargo test --benches` asks for the list of benches: there are none to list.
    }
    let which = |part: &str| {
        !args.iter().any(|arg| arg == "index" || arg == "store" || arg == "reopen")
            || args.iter().any(|arg| arg == part)
    };
    let env =
        |name: &str, default: u64| std::env::var(name).ok().and_then(|n| n.parse().ok()).unwrap_or(default);
    if which("store") {
        store_part(env("SEEN_BENCH_STORE_URLS", 1_000_000), env("SEEN_BENCH_BATCH_NEW", 1_000));
    }
    if args.iter().any(|arg| arg == "reopen") {
        let path =
            std::env::var_os("SEEN_BENCH_FILE").expect("`reopen` opens the file SEEN_BENCH_FILE names");
        reopen_part(std::path::Path::new(&path));
        return;
    }
    if which("index") {
        index_part(env("SEEN_BENCH_INDEX_URLS", 100_000_000));
    }
}
