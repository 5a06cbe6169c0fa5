//! Generates a synthetic pages CSV (and optionally a hosts CSV) for benchmarking `freshet solve`.
//!
//! ```text
//! cargo run --release -p freshet --example gen_pages -- N HOSTS SEED [--hosts-out FILE] > pages.csv
//! ```
//!
//! Writes `id,weight,change_rate,host` for `N` pages: ids `https://h{host}.example/p/{i}`,
//! Zipf-like weights `1/r^0.9` with `r` uniform in `1..=N`, change rates log-uniform in
//! `[1e-3, 1e1]` per unit time, and hosts `h0..h{HOSTS-1}` drawn log-uniformly (host `h0` gets
//! the most pages, the tail few). With `--hosts-out FILE`, writes `host,capacity` with
//! capacity `0.05 × (pages on the host)` for even hosts and `inf` for odd ones, so that with a
//! budget above about `0.05·N` (e.g. `--budget N/10`) the caps of the big even hosts bind.
//! Deterministic for a given seed (an inline splitmix64; no `rand` dependency).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

/// splitmix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number generators", 2014).
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1), 53 bits.
    fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1_u64 << 53) as f64)
    }
}

fn usage() -> ExitCode {
    eprintln!("usage: gen_pages N HOSTS SEED [--hosts-out FILE] > pages.csv");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (positional, hosts_out) = match args.iter().position(|arg| arg == "--hosts-out") {
        Some(at) if at + 1 < args.len() => {
            let mut positional = args.clone();
            let file = positional.remove(at + 1);
            positional.remove(at);
            (positional, Some(file))
        }
        Some(_) => return usage(),
        None => (args, None),
    };
    let [n, hosts, seed] = positional.as_slice() else { return usage() };
    let (Ok(n), Ok(hosts), Ok(seed)) = (n.parse::<u64>(), hosts.parse::<u64>(), seed.parse::<u64>()) else {
        return usage();
    };
    if hosts == 0 {
        return usage();
    }
    match generate(n, hosts, seed, hosts_out.as_deref()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("gen_pages: {error}");
            ExitCode::FAILURE
        }
    }
}

fn generate(n: u64, hosts: u64, seed: u64, hosts_out: Option<&str>) -> io::Result<()> {
    let mut rng = SplitMix64(seed);
    let mut pages_per_host = vec![0_u64; hosts as usize];
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    writeln!(out, "id,weight,change_rate,host")?;
    for page in 0..n {
        let rank = 1 + (rng.next_f64() * n as f64) as u64;
        let weight = (rank as f64).powf(-0.9);
        let change_rate = 10_f64.powf(-3.0 + 4.0 * rng.next_f64());
        // Log-uniform in [1, hosts + 1): P(host = h) ∝ ln((h + 2)/(h + 1)).
        let host = (((hosts + 1) as f64).powf(rng.next_f64()) as u64).saturating_sub(1).min(hosts - 1);
        pages_per_host[host as usize] += 1;
        writeln!(out, "https://h{host}.example/p/{page},{weight},{change_rate},h{host}")?;
    }
    out.flush()?;
    if let Some(path) = hosts_out {
        let mut file = BufWriter::new(File::create(path)?);
        writeln!(file, "host,capacity")?;
        for (host, &count) in pages_per_host.iter().enumerate() {
            if host % 2 == 0 {
                writeln!(file, "h{host},{}", 0.05 * count.max(1) as f64)?;
            } else {
                writeln!(file, "h{host},inf")?;
            }
        }
        file.flush()?;
    }
    Ok(())
}
