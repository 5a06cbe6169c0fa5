//! Write speed of `WarcWriter::write_capture`: captures (a request and a 200 response of a
//! ~10 KB HTML page, two gzip members) per second and uncompressed MB per second, at gzip levels
//! 1 and 6, into real files in a temporary directory (no `sync`: the OS page cache takes them).
//! The pages are 64 different seeded pages (`tests/common`), so compression sees varied text.
//!
//! `cargo bench -p freshet-warc --bench write`; figures in BENCHMARKS.md.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "../tests/common/mod.rs"]
mod common;

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use flate2::Compression;
use flate2::write::GzEncoder;
use freshet_warc::{Capture, CaptureResponse, Digest, WarcWriter, WriterOptions};
use std::io::Write;

const PAGE_BYTES: usize = 10_000;

fn write_capture(criterion: &mut Criterion) {
    let pages: Vec<(String, Vec<u8>, Vec<u8>)> = (0..64)
        .map(|seed| {
            let uri = format!("http://h1.web.test/p{seed}");
            (
                uri,
                common::request(&format!("/p{seed}")),
                common::ok_response(&common::page_body(seed, PAGE_BYTES)),
            )
        })
        .collect();
    let capture_bytes = pages[0].1.len() + pages[0].2.len();
    let mut group = criterion.benchmark_group("write_capture");
    group.throughput(Throughput::Bytes(capture_bytes as u64));
    group.measurement_time(Duration::from_secs(5));
    for level in [1, 6] {
        let dir = tempfile::tempdir().unwrap();
        let options =
            WriterOptions { gzip_level: level, max_file_bytes: 100_000_000, ..WriterOptions::default() };
        let (mut writer, _) = WarcWriter::open(dir.path(), options).unwrap();
        let mut next = 0usize;
        group.bench_function(format!("10KB-page/gzip-{level}"), |bencher| {
            bencher.iter(|| {
                let (uri, request, response) = &pages[next % pages.len()];
                next += 1;
                black_box(
                    writer
                        .write_capture(&Capture {
                            target_uri: uri,
                            date: common::date(next as u64),
                            ip_address: Some("127.0.0.1".parse().unwrap()),
                            request,
                            response: CaptureResponse::Full { message: response, truncated: None },
                        })
                        .unwrap(),
                )
            })
        });
        let written: u64 =
            common::warc_files(dir.path()).iter().map(|file| file.metadata().unwrap().len()).sum();
        eprintln!(
            "gzip-{level}: {next} captures, {written} bytes on disk, {:.1} bytes per capture",
            written as f64 / next as f64
        );
        writer.finish().unwrap();
    }
    group.finish();
}

/// The two costs inside a capture, alone: SHA-1 of the response (block digest) and gzip of it.
fn parts(criterion: &mut Criterion) {
    let response = common::ok_response(&common::page_body(7, PAGE_BYTES));
    let request = common::request("/p7");
    let mut group = criterion.benchmark_group("parts");
    group.throughput(Throughput::Bytes(response.len() as u64));
    group.measurement_time(Duration::from_secs(3));
    group.bench_function("sha1/10KB-page", |bencher| bencher.iter(|| Digest::sha1(black_box(&response))));
    for level in [1, 6] {
        for (name, message) in [("10KB-page", &response), ("request", &request)] {
            group.bench_function(format!("gzip-{level}/{name}"), |bencher| {
                let mut out = Vec::with_capacity(message.len());
                bencher.iter(|| {
                    out.clear();
                    let mut encoder = GzEncoder::new(&mut out, Compression::new(level));
                    encoder.write_all(black_box(message)).unwrap();
                    encoder.finish().unwrap();
                    black_box(out.len())
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, write_capture, parts);
criterion_main!(benches);
