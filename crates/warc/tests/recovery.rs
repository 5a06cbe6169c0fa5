//! Recovery of a torn tail: a file cut at every offset of its last write (what `kill -9` during
//! the write leaves) recovers to exactly the records before the torn one, reads back cleanly,
//! and takes new records after them; zeros (a power cut) are cut too; damage followed by valid
//! records is refused, with nothing truncated.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;

use freshet_warc::{
    CaptureWritten, RecordIds, WarcError, WarcReader, WarcWriter, WriterOptions, recover_file,
};
use rand::{RngExt, SeedableRng};

fn options() -> WriterOptions {
    WriterOptions { record_ids: RecordIds::Seeded(9), ..WriterOptions::default() }
}

/// An `.open` file of three captures, as a killed writer leaves it, with what the writer said.
fn open_file_of_three_pages() -> (tempfile::TempDir, Vec<u8>, Vec<CaptureWritten>) {
    let dir = common::scratch_dir();
    let (mut writer, _) = WarcWriter::open(dir.path(), options()).unwrap();
    let written: Vec<CaptureWritten> =
        (1..=3).map(|seed| common::write_page(&mut writer, seed, 1500)).collect();
    drop(writer);
    let bytes = std::fs::read(dir.path().join("freshet-00000.warc.gz.open")).unwrap();
    (dir, bytes, written)
}

fn read_records(path: &Path) -> Vec<freshet_warc::Record> {
    WarcReader::open(path).unwrap().collect::<Result<Vec<_>, _>>().unwrap()
}

#[test]
fn a_cut_at_every_offset_of_the_last_write_loses_only_the_torn_record() {
    let (_dir, bytes, written) = open_file_of_three_pages();
    let last = &written[2];
    let (response_start, request_start) = (last.response.offset, last.request.offset);
    assert_eq!(last.request.offset + last.request.member_len, bytes.len() as u64);
    let scratch = common::scratch_dir();
    let path = scratch.path().join("cut.warc.gz.open");

    for cut in response_start..bytes.len() as u64 {
        std::fs::write(&path, &bytes[..cut as usize]).unwrap();
        let recovery = recover_file(&path).unwrap();
        let (valid_len, records) =
            if cut >= request_start { (request_start, 6) } else { (response_start, 5) };
        assert_eq!(recovery.valid_len, valid_len, "cut at {cut}");
        assert_eq!(recovery.records_kept, records, "cut at {cut}");
        assert_eq!(recovery.bytes_cut, cut - valid_len, "cut at {cut}");
        assert_eq!(recovery.records_cut, u64::from(cut > valid_len), "cut at {cut}");
        assert_eq!(recovery.damage.is_some(), cut > valid_len, "cut at {cut}");
        let after = std::fs::read(&path).unwrap();
        assert_eq!(after, bytes[..valid_len as usize], "cut at {cut}: the kept prefix is untouched");
        assert_eq!(read_records(&path).len() as u64, records, "cut at {cut}");
    }
}

#[test]
fn a_writer_resumes_after_a_cut_anywhere_in_the_last_two_writes() {
    let (_dir, bytes, written) = open_file_of_three_pages();
    let first_cut = written[1].response.offset;
    // Every 7th offset keeps this test quick; the test above covers every offset of recovery.
    for cut in (first_cut..bytes.len() as u64).step_by(7) {
        let dir = common::scratch_dir();
        std::fs::write(dir.path().join("freshet-00000.warc.gz.open"), &bytes[..cut as usize]).unwrap();
        let (mut writer, recovery) = WarcWriter::open(dir.path(), options()).unwrap();
        let kept = recovery.files[0].records_kept;
        let new = common::write_page(&mut writer, 99, 300);
        assert_eq!(new.response.offset, recovery.files[0].valid_len, "cut at {cut}");
        writer.finish().unwrap();
        let records = read_records(&dir.path().join("freshet-00000.warc.gz"));
        assert_eq!(records.len() as u64, kept + 2, "cut at {cut}");
        let warcinfo_id = common::record_id(&records[0]).to_string();
        let last = &records[records.len() - 2];
        assert_eq!(last.header.get("WARC-Target-URI"), Some("http://h1.web.test/p99"));
        assert_eq!(last.header.get("WARC-Warcinfo-ID"), Some(warcinfo_id.as_str()));
    }
}

#[test]
fn a_cut_inside_the_first_write_leaves_an_empty_file_that_is_removed_and_rewritten() {
    let (_dir, bytes, written) = open_file_of_three_pages();
    let warcinfo_end = written[0].response.offset;
    for cut in [1, 10, warcinfo_end - 1] {
        let dir = common::scratch_dir();
        let path = dir.path().join("freshet-00000.warc.gz.open");
        std::fs::write(&path, &bytes[..cut as usize]).unwrap();
        let (mut writer, recovery) = WarcWriter::open(dir.path(), options()).unwrap();
        assert_eq!(recovery.removed, std::slice::from_ref(&path), "cut at {cut}");
        assert_eq!(recovery.records_cut(), 1);
        assert_eq!(recovery.bytes_cut(), cut);
        common::write_page(&mut writer, 5, 100);
        let records = read_records(&writer.finish().unwrap().unwrap());
        assert_eq!(
            records.iter().map(common::record_type).collect::<Vec<_>>(),
            ["warcinfo", "response", "request"]
        );
    }
}

#[test]
fn garbage_after_a_random_cut_is_cut_away() {
    let (_dir, bytes, written) = open_file_of_three_pages();
    let scratch = common::scratch_dir();
    let path = scratch.path().join("garbage.warc.gz.open");
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    let last_start = written[2].response.offset;
    for _ in 0..200 {
        let cut = rng.random_range(last_start..bytes.len() as u64);
        let mut damaged = bytes[..cut as usize].to_vec();
        let garbage_len = rng.random_range(1..3000);
        damaged.extend((0..garbage_len).map(|_| rng.random::<u8>()));
        std::fs::write(&path, &damaged).unwrap();
        let recovery = recover_file(&path).unwrap();
        let expected = if cut >= written[2].request.offset { written[2].request.offset } else { last_start };
        assert!(recovery.valid_len == expected, "cut at {cut} + {garbage_len} garbage: {recovery:?}");
        assert_eq!(std::fs::metadata(&path).unwrap().len(), expected);
    }
}

#[test]
fn zeros_after_the_last_record_are_cut_as_a_power_cut_leaves_them() {
    let (dir, mut bytes, _) = open_file_of_three_pages();
    let whole_len = bytes.len() as u64;
    bytes.extend([0u8; 4096]);
    let path = dir.path().join("freshet-00000.warc.gz.open");
    std::fs::write(&path, &bytes).unwrap();
    let recovery = recover_file(&path).unwrap();
    assert_eq!((recovery.valid_len, recovery.bytes_cut, recovery.records_cut), (whole_len, 4096, 0));
    assert_eq!(recovery.records_kept, 7);
}

#[test]
fn damage_followed_by_valid_records_is_refused_and_nothing_is_truncated() {
    let (dir, mut bytes, written) = open_file_of_three_pages();
    let damaged_at = written[0].response.offset + 40; // inside the first response's deflate data
    bytes[damaged_at as usize] ^= 0x55;
    let path = dir.path().join("freshet-00000.warc.gz.open");
    std::fs::write(&path, &bytes).unwrap();

    let error = recover_file(&path).unwrap_err();
    match &error {
        WarcError::CorruptBeforeEnd { offset, next_valid_offset, .. } => {
            assert_eq!(*offset, written[0].response.offset);
            assert_eq!(*next_valid_offset, written[0].request.offset);
        }
        other => panic!("expected CorruptBeforeEnd, got {other}"),
    }
    assert!(matches!(WarcWriter::open(dir.path(), options()), Err(WarcError::CorruptBeforeEnd { .. })));
    assert_eq!(std::fs::read(&path).unwrap(), bytes, "nothing was truncated");

    // The reader stops at the damage and names the file and offset.
    let results: Vec<_> = WarcReader::open(&path).unwrap().collect();
    assert_eq!(results.len(), 2);
    let message = results[1].as_ref().unwrap_err().to_string();
    assert!(
        message.contains("freshet-00000.warc.gz.open")
            && message.contains(&format!("byte {}", written[0].response.offset)),
        "{message}"
    );
}
