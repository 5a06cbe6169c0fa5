//! The machine's cost of a cache miss at the sizes of the online scheduler's arrays, for the
//! bound its throughput target meets (BENCHMARKS.md, "Online scheduler"): every
//! `next`/`fetched` pair must at least touch the fetched page's slot, and its host's next page
//! (a queue entry, then that page's slot), in arrays far beyond the caches at 10^7 pages, one
//! load depending on the one before. This bench chases a random cycle through arrays of the
//! scheduler's record sizes (24-byte page slots, 16-byte queue entries, 128-byte host records),
//! one dependent load at a time, and reports nanoseconds per load: `10^9 / (misses per pair ×
//! ns per miss)` bounds the pairs per second of any design with that many misses per pair.
//! Independent loads (a gather over random indices) are given too: what memory-level
//! parallelism buys where loads do not depend on each other.
//!
//! `cargo bench -p freshet-schedule --bench memory_latency`
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::time::Instant;

use cpu_time::ThreadTime;

/// SplitMix64: a seeded generator, so the cycle is the same on every run.
struct SplitMix(u64);

impl SplitMix {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, bound: usize) -> usize {
        (self.next_u64() % bound as u64) as usize
    }
}

/// A record of `BYTES` bytes whose first word is the index of the next record on the cycle.
#[derive(Clone, Copy)]
#[repr(C)]
struct Record<const WORDS: usize> {
    words: [u64; WORDS],
}

/// Nanoseconds (wall, CPU) per dependent load chasing one random cycle through `count` records
/// of `8·WORDS` bytes, and per independent load gathering from random records.
fn chase<const WORDS: usize>(count: usize, loads: usize) -> ((f64, f64), (f64, f64)) {
    let mut rng = SplitMix(7);
    // Sattolo's algorithm: a uniformly random single cycle through all records.
    let mut order: Vec<u32> = (0..count as u32).collect();
    for i in (1..count).rev() {
        let j = rng.below(i);
        order.swap(i, j);
    }
    let mut records = vec![Record::<WORDS> { words: [0; WORDS] }; count];
    for (i, &next) in order.iter().enumerate() {
        records[i].words[0] = u64::from(next);
    }
    drop(order);
    let timed = |work: &mut dyn FnMut() -> u64| {
        let (wall, cpu) = (Instant::now(), ThreadTime::try_now().ok());
        black_box(work());
        let cpu = cpu.and_then(|cpu| cpu.try_elapsed().ok()).map_or(f64::NAN, |cpu| cpu.as_secs_f64());
        (wall.elapsed().as_secs_f64() * 1e9 / loads as f64, cpu * 1e9 / loads as f64)
    };
    let dependent = timed(&mut || {
        let mut at = 0_usize;
        for _ in 0..loads {
            at = records[at].words[0] as usize;
        }
        at as u64
    });
    let indices: Vec<u32> = (0..loads).map(|_| rng.below(count) as u32).collect();
    let independent = timed(&mut || indices.iter().map(|&index| records[index as usize].words[0]).sum());
    (dependent, independent)
}

fn report<const WORDS: usize>(what: &str, count: usize) {
    let loads = 20_000_000;
    let ((wall, cpu), (gather_wall, gather_cpu)) = chase::<WORDS>(count, loads);
    let bytes = count * 8 * WORDS;
    println!(
        "{what}: {count} records of {} B ({:.1} MB): dependent load {wall:.1} ns ({cpu:.1} ns per CPU), \
         independent {gather_wall:.1} ns ({gather_cpu:.1} ns per CPU)",
        8 * WORDS,
        bytes as f64 / 1e6
    );
}

fn main() {
    // `cargo bench` passes `--bench`; nothing to parse.
    report::<3>("page slots at 10^7 pages", 10_000_000);
    report::<2>("queue entries at 10^7 pages", 10_000_000);
    report::<16>("host records at 10^5 hosts", 100_000);
    report::<2>("global queue entries at 10^5 hosts", 100_000);
    report::<3>("page slots at 10^6 pages", 1_000_000);
}
