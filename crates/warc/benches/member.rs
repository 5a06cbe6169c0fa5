//! One gzip member per response record, side by side for the deflate implementations a WARC
//! writer could use: time per member (criterion) and bytes out (printed once per method).
//!
//! Each member is what the writer encodes for a ~10 KB page's response record: a WARC header
//! (~420 bytes), the HTTP response (head and body) and the closing `\r\n\r\n`, as three parts.
//! The methods:
//! - `zlib-rs-reset`: flate2's raw `Compress` (zlib-rs backend) reset per member, gzip header and
//!   trailer written around it: what `MemberEncoder` does for members over 1 KiB.
//! - `zlib-rs-reset-only`: the `Compress::reset` alone (its 128 KiB hash-table clear).
//! - `libdeflate`: `libdeflater::Compressor::gzip_compress` of the parts joined into one reused
//!   buffer.
//! - `miniz_oxide-reset`: miniz_oxide's `CompressorOxide` (flate2's `rust_backend`) reset per
//!   member, raw deflate, header and trailer around it.
//!
//! The pages are the static-site bench's when `FRESHET_BENCH_PAGES` names its `p/` directory
//! (the first 64 files), else 64 seeded pages (`tests/common`).
//!
//! ```text
//! FRESHET_BENCH_PAGES=/tmp/bench-site/site/p \
//!     cargo bench -p freshet-warc --features compare-deflate --bench member
//! ```
//! `FRESHET_BENCH_LEVELS=1,2,6` picks the levels (default 1 and 6), `FRESHET_BENCH_NO_MINIZ=1`
//! leaves miniz_oxide out. `FRESHET_BENCH_CPU_ROUNDS=11` runs instead a comparison in thread CPU
//! time, the methods taking turns (see [`cpu_rounds`]), with zlib-rs at a 16 KiB window besides.
//! Figures in BENCHMARKS.md ("Other deflate encoders"). Built only with the `compare-deflate`
//! feature, so that the crate's tests do not build libdeflate's C.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "../tests/common/mod.rs"]
mod common;

use std::hint::black_box;
use std::io::Read;
use std::time::Duration;

use cpu_time::ThreadTime;
use criterion::{Criterion, Throughput, criterion_group};
use flate2::{Compress, Compression, Crc, FlushCompress, Status};
use miniz_oxide::deflate::core::{CompressorOxide, TDEFLFlush, TDEFLStatus, compress as miniz_compress};

const PAGE_BYTES: usize = 10_000;
const GZIP_HEADER: [u8; 10] = [0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff];

/// The response records' parts: (WARC header, HTTP response).
fn records() -> Vec<(Vec<u8>, Vec<u8>)> {
    let bodies: Vec<Vec<u8>> = match std::env::var_os("FRESHET_BENCH_PAGES") {
        Some(dir) => {
            let mut paths: Vec<_> = std::fs::read_dir(dir)
                .unwrap()
                .map(|entry| entry.unwrap().path())
                .filter(|path| path.is_file())
                .collect();
            paths.sort();
            paths.iter().take(64).map(|path| std::fs::read(path).unwrap()).collect()
        }
        None => (0..64).map(|seed| common::page_body(seed, PAGE_BYTES)).collect(),
    };
    bodies
        .iter()
        .enumerate()
        .map(|(index, body)| {
            let response = common::ok_response(body);
            let header = format!(
                "WARC/1.1\r\nWARC-Type: response\r\n\
                 WARC-Record-ID: <urn:uuid:8f0c6a2e-5b1d-4c3e-9a7f-{index:012}>\r\n\
                 WARC-Date: 2026-11-24T16:00:00Z\r\n\
                 WARC-Target-URI: http://127.0.0.1:8080/p/{index:05}.html\r\n\
                 WARC-IP-Address: 127.0.0.1\r\n\
                 WARC-Warcinfo-ID: <urn:uuid:1b2c3d4e-5f60-4718-8293-a4b5c6d7e8f9>\r\n\
                 WARC-Concurrent-To: <urn:uuid:2b2c3d4e-5f60-4718-8293-a4b5c6d7e8f9>\r\n\
                 WARC-Block-Digest: sha1:ABCDEFGHIJKLMNOPQRSTUVWXYZ234567\r\n\
                 WARC-Payload-Digest: sha1:ABCDEFGHIJKLMNOPQRSTUVWXYZ234567\r\n\
                 Content-Type: application/http;msgtype=response\r\nContent-Length: {}\r\n\r\n",
                response.len()
            );
            (header.into_bytes(), response)
        })
        .collect()
}

fn write_trailer(crc: &Crc, out: &mut Vec<u8>) {
    out.extend_from_slice(&crc.sum().to_le_bytes());
    out.extend_from_slice(&crc.amount().to_le_bytes());
}

fn zlib_rs_member(compress: &mut Compress, parts: &[&[u8]], out: &mut Vec<u8>) {
    out.extend_from_slice(&GZIP_HEADER);
    compress.reset();
    let mut crc = Crc::new();
    for (index, part) in parts.iter().enumerate() {
        crc.update(part);
        let flush = if index + 1 == parts.len() { FlushCompress::Finish } else { FlushCompress::None };
        let mut input = *part;
        loop {
            out.reserve(input.len() / 2 + 4096);
            let before = compress.total_in();
            let status = compress.compress_vec(input, out, flush).unwrap();
            input = &input[(compress.total_in() - before) as usize..];
            match status {
                Status::StreamEnd => break,
                _ if flush == FlushCompress::None && input.is_empty() => break,
                _ => {}
            }
        }
    }
    write_trailer(&crc, out);
}

fn libdeflate_member(
    compressor: &mut libdeflater::Compressor,
    joined: &mut Vec<u8>,
    parts: &[&[u8]],
    out: &mut Vec<u8>,
) {
    joined.clear();
    for part in parts {
        joined.extend_from_slice(part);
    }
    let start = out.len();
    out.resize(start + compressor.gzip_compress_bound(joined.len()), 0);
    let written = compressor.gzip_compress(joined, &mut out[start..]).unwrap();
    out.truncate(start + written);
}

fn miniz_member(compressor: &mut CompressorOxide, parts: &[&[u8]], out: &mut Vec<u8>) {
    out.extend_from_slice(&GZIP_HEADER);
    compressor.reset();
    let mut crc = Crc::new();
    for (index, part) in parts.iter().enumerate() {
        crc.update(part);
        let flush = if index + 1 == parts.len() { TDEFLFlush::Finish } else { TDEFLFlush::None };
        let mut input = *part;
        loop {
            let start = out.len();
            out.resize(start + input.len() / 2 + 4096, 0);
            let (status, consumed, produced) = miniz_compress(compressor, input, &mut out[start..], flush);
            out.truncate(start + produced);
            input = &input[consumed..];
            match status {
                TDEFLStatus::Done => break,
                TDEFLStatus::Okay if input.is_empty() && flush == TDEFLFlush::None => break,
                TDEFLStatus::Okay => {}
                other => panic!("miniz_oxide: {other:?}"),
            }
        }
    }
    write_trailer(&crc, out);
}

fn check_decodes(member: &[u8], parts: &[&[u8]]) {
    let mut decoded = Vec::new();
    flate2::read::GzDecoder::new(member).read_to_end(&mut decoded).unwrap();
    assert_eq!(decoded, parts.concat());
}

fn members(criterion: &mut Criterion) {
    let records = records();
    let record_parts: Vec<[&[u8]; 3]> =
        records.iter().map(|(header, response)| [&header[..], &response[..], b"\r\n\r\n"]).collect();
    let input_bytes: usize =
        record_parts.iter().map(|parts| parts.iter().map(|p| p.len()).sum::<usize>()).sum();
    eprintln!(
        "{} records, {:.1} bytes each on average",
        record_parts.len(),
        input_bytes as f64 / record_parts.len() as f64
    );
    let mut group = criterion.benchmark_group("member");
    group.throughput(Throughput::Bytes((input_bytes / record_parts.len()) as u64));
    group.measurement_time(Duration::from_secs(4));

    {
        let mut compress = Compress::new(Compression::new(6), false);
        group.bench_function("zlib-rs-reset-only", |bencher| {
            bencher.iter(|| {
                compress.reset();
                black_box(&mut compress);
            })
        });
    }
    let levels: Vec<u32> = std::env::var("FRESHET_BENCH_LEVELS")
        .map(|list| list.split(',').map(|level| level.trim().parse().unwrap()).collect())
        .unwrap_or_else(|_| vec![1, 6]);
    let with_miniz = std::env::var_os("FRESHET_BENCH_NO_MINIZ").is_none();
    for level in levels {
        let mut out = Vec::with_capacity(1 << 16);
        let report = |name: &str, encode: &mut Encode<'_>| {
            let mut total = 0usize;
            for parts in &record_parts {
                let mut member = Vec::new();
                encode(parts, &mut member);
                check_decodes(&member, parts);
                total += member.len();
            }
            eprintln!(
                "{name}/level-{level}: {total} bytes for {} members, {:.1} per member ({:.4} of the input)",
                record_parts.len(),
                total as f64 / record_parts.len() as f64,
                total as f64 / input_bytes as f64
            );
        };

        let mut compress = Compress::new(Compression::new(level), false);
        report("zlib-rs-reset", &mut |parts, out| zlib_rs_member(&mut compress, parts, out));
        let mut next = 0usize;
        group.bench_function(format!("zlib-rs-reset/level-{level}"), |bencher| {
            bencher.iter(|| {
                out.clear();
                zlib_rs_member(&mut compress, &record_parts[next % record_parts.len()], &mut out);
                next += 1;
                black_box(out.len())
            })
        });

        let mut compressor =
            libdeflater::Compressor::new(libdeflater::CompressionLvl::new(level as i32).unwrap());
        let mut joined = Vec::new();
        report("libdeflate", &mut |parts, out| libdeflate_member(&mut compressor, &mut joined, parts, out));
        group.bench_function(format!("libdeflate/level-{level}"), |bencher| {
            bencher.iter(|| {
                out.clear();
                libdeflate_member(
                    &mut compressor,
                    &mut joined,
                    &record_parts[next % record_parts.len()],
                    &mut out,
                );
                next += 1;
                black_box(out.len())
            })
        });

        if !with_miniz {
            continue;
        }
        let mut miniz = CompressorOxide::new(miniz_oxide::deflate::core::create_comp_flags_from_zip_params(
            level as i32,
            -15,
            0,
        ));
        report("miniz_oxide-reset", &mut |parts, out| miniz_member(&mut miniz, parts, out));
        group.bench_function(format!("miniz_oxide-reset/level-{level}"), |bencher| {
            bencher.iter(|| {
                out.clear();
                miniz_member(&mut miniz, &record_parts[next % record_parts.len()], &mut out);
                next += 1;
                black_box(out.len())
            })
        });
    }
    group.finish();
}

/// Appends one member holding the parts to the buffer.
type Encode<'a> = dyn FnMut(&[&[u8]], &mut Vec<u8>) + 'a;

/// One way of encoding a member, by name, for [`cpu_rounds`].
type Method<'a> = (String, Box<Encode<'a>>);

/// The methods [`cpu_rounds`] compares at `level`: zlib-rs reset per member (the reference),
/// zlib-rs with a 16 KiB window (`window_bits` 14: a smaller window and chain table, the same
/// 128 KiB hash table) and libdeflate.
fn methods<'a>(level: u32, joined: &'a mut Vec<u8>) -> Vec<Method<'a>> {
    let mut compress = Compress::new(Compression::new(level), false);
    let mut small_window = Compress::new_with_window_bits(Compression::new(level), false, 14);
    let mut compressor =
        libdeflater::Compressor::new(libdeflater::CompressionLvl::new(level as i32).unwrap());
    vec![
        ("zlib-rs-reset".to_owned(), Box::new(move |parts, out| zlib_rs_member(&mut compress, parts, out))),
        (
            "zlib-rs-window-14".to_owned(),
            Box::new(move |parts, out| zlib_rs_member(&mut small_window, parts, out)),
        ),
        (
            "libdeflate".to_owned(),
            Box::new(move |parts, out| libdeflate_member(&mut compressor, joined, parts, out)),
        ),
    ]
}

/// The CPU-time comparison (`FRESHET_BENCH_CPU_ROUNDS=N`): per level, the [`methods`] take
/// turns, each encoding every record `REPEATS` times per round; the median over the rounds of
/// the CPU nanoseconds per member is printed with its ratio to the first method's, and the
/// bytes out. `FRESHET_BENCH_ONLY=NAME` runs that method alone (for instruction counts under
/// `valgrind --tool=callgrind`).
fn cpu_rounds(rounds: usize) {
    const REPEATS: usize = 16;
    let records = records();
    let record_parts: Vec<[&[u8]; 3]> =
        records.iter().map(|(header, response)| [&header[..], &response[..], b"\r\n\r\n"]).collect();
    let levels: Vec<u32> = std::env::var("FRESHET_BENCH_LEVELS")
        .map(|list| list.split(',').map(|level| level.trim().parse().unwrap()).collect())
        .unwrap_or_else(|_| vec![1, 6]);
    let only = std::env::var("FRESHET_BENCH_ONLY").ok();
    let members = (REPEATS * record_parts.len()) as f64;
    let input_bytes: usize =
        record_parts.iter().map(|parts| parts.iter().map(|p| p.len()).sum::<usize>()).sum();
    let mut out = Vec::with_capacity(1 << 16);
    let mut joined = Vec::new();
    for level in levels {
        let mut methods = methods(level, &mut joined);
        methods.retain(|(name, _)| only.as_ref().is_none_or(|only| only == name));
        let mut bytes = vec![0usize; methods.len()];
        let mut nanoseconds = vec![Vec::new(); methods.len()];
        for (method, bytes) in methods.iter_mut().zip(&mut bytes).filter(|_| only.is_none()) {
            for parts in &record_parts {
                out.clear();
                (method.1)(parts, &mut out);
                check_decodes(&out, parts);
                *bytes += out.len();
            }
        }
        for _ in 0..rounds {
            for ((_, encode), nanoseconds) in methods.iter_mut().zip(&mut nanoseconds) {
                let start = ThreadTime::now();
                for _ in 0..REPEATS {
                    for parts in &record_parts {
                        out.clear();
                        encode(parts, &mut out);
                        black_box(out.len());
                    }
                }
                nanoseconds.push(start.elapsed().as_nanos() as f64 / members);
            }
        }
        let mut reference = None;
        for (((name, _), nanoseconds), bytes) in methods.iter().zip(&mut nanoseconds).zip(&bytes) {
            nanoseconds.sort_by(f64::total_cmp);
            let median = nanoseconds[rounds / 2];
            let (reference_ns, reference_bytes) = *reference.get_or_insert((median, *bytes));
            println!(
                "level {level} {name:>18}: {:6.1} us/member (rounds {:.1}..{:.1}), {:.3}x; \
                 {bytes} bytes out of {input_bytes} ({:.4}), {:.4}x",
                median / 1e3,
                nanoseconds[0] / 1e3,
                nanoseconds[rounds - 1] / 1e3,
                median / reference_ns,
                *bytes as f64 / input_bytes as f64,
                *bytes as f64 / reference_bytes as f64,
            );
        }
    }
}

criterion_group!(benches, members);

fn main() {
    if let Some(rounds) = std::env::var_os("FRESHET_BENCH_CPU_ROUNDS") {
        cpu_rounds(rounds.to_str().unwrap().parse().unwrap());
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
