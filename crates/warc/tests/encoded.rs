//! Captures encoded off the writer (`CaptureEncoder`, as a crawler's fetch tasks do) and
//! appended by `WarcWriter::write_encoded`: the records read back as the writer reported them,
//! each pointing at the `warcinfo` record of its own file, and an encoding meant for a file the
//! writer has left (or would leave for it) is refused with nothing written.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use freshet_warc::{Capture, CaptureResponse, RecordIds, WarcWriter, WriterOptions};

fn options(max_file_bytes: u64) -> WriterOptions {
    WriterOptions { max_file_bytes, record_ids: RecordIds::Random, ..WriterOptions::default() }
}

/// Checks every file of `dir`: each starts with a warcinfo record that every other record
/// names in `WARC-Warcinfo-ID`; returns the records read, in order.
fn records_pointing_at_their_own_warcinfo(dir: &std::path::Path) -> Vec<freshet_warc::Record> {
    let mut all = Vec::new();
    for file in common::warc_files(dir) {
        let records = common::read_all(&file);
        assert_eq!(common::record_type(&records[0]), "warcinfo", "{}", file.display());
        let warcinfo_id = common::record_id(&records[0]).to_string();
        for record in &records[1..] {
            assert_eq!(
                record.header.get("WARC-Warcinfo-ID"),
                Some(warcinfo_id.as_str()),
                "{}",
                file.display()
            );
        }
        all.extend(records);
    }
    all
}

#[test]
fn encoded_captures_read_back_where_the_writer_said() {
    let dir = tempfile::tempdir().unwrap();
    let (mut writer, _) = WarcWriter::open(dir.path(), options(u64::MAX)).unwrap();
    let mut written = Vec::new();
    for seed in 0..20 {
        let uri = format!("http://h1.web.test/p{seed}");
        let request = common::request(&format!("/p{seed}"));
        let response = common::ok_response(&common::page_body(seed, 3000));
        let capture = Capture {
            target_uri: &uri,
            date: common::date(seed),
            ip_address: None,
            request: &request,
            response: CaptureResponse::Full { message: &response, truncated: None },
        };
        let (capture_written, appended) = common::write_encoded_or_capture(&mut writer, &capture);
        assert!(appended, "capture {seed} was encoded for the one file");
        written.push(capture_written);
    }
    writer.finish().unwrap();
    let records = records_pointing_at_their_own_warcinfo(dir.path());
    assert_eq!(records.len(), 41);
    for (capture, pair) in written.iter().zip(records[1..].chunks(2)) {
        for (reported, record) in [(&capture.response, &pair[0]), (&capture.request, &pair[1])] {
            assert_eq!(common::record_id(record), reported.record_id);
            assert_eq!((record.offset, record.member_len), (reported.offset, reported.member_len));
        }
        assert_eq!(pair[0].header.payload_digest(), capture.response.payload_digest);
        assert_eq!(
            pair[0].header.get("WARC-Concurrent-To"),
            Some(capture.request.record_id.to_string().as_str())
        );
    }
}

/// `len` bytes that deflate cannot shrink (xorshift).
fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect()
}

#[test]
fn an_encoding_for_a_file_the_writer_left_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    // Pages of 2,000 incompressible bytes: about 3.5 KB a file with its warcinfo (the request
    // stored, not compressed), so one page a file, with room for a small page (~1.4 KB) beside one.
    let (mut writer, _) = WarcWriter::open(dir.path(), options(5200)).unwrap();
    let write_noise_page = |writer: &mut WarcWriter, seed: u64| {
        let response = common::ok_response(&noise(seed, 2000));
        let request = common::request("/noise");
        writer
            .write_capture(&Capture {
                target_uri: "http://h1.web.test/noise",
                date: common::date(seed),
                ip_address: None,
                request: &request,
                response: CaptureResponse::Full { message: &response, truncated: None },
            })
            .unwrap()
    };
    write_noise_page(&mut writer, 1);
    // Made now, for file 0; then the next page does not fit in file 0 and opens file 1.
    let stale_encoder = writer.encoder();
    let second = write_noise_page(&mut writer, 2);
    assert!(second.response.file.ends_with("freshet-00001.warc.gz"));
    let request = common::request("/p2");
    let response = common::ok_response(&common::page_body(2, 100));
    let capture = Capture {
        target_uri: "http://h1.web.test/p2",
        date: common::date(2),
        ip_address: None,
        request: &request,
        response: CaptureResponse::Full { message: &response, truncated: None },
    };
    let stale = stale_encoder.encode(&capture).unwrap();
    let files_before: Vec<u64> =
        common::warc_files(dir.path()).iter().map(|file| std::fs::metadata(file).unwrap().len()).collect();
    assert_eq!(writer.write_encoded(&stale).unwrap(), None);
    let files_after: Vec<u64> =
        common::warc_files(dir.path()).iter().map(|file| std::fs::metadata(file).unwrap().len()).collect();
    assert_eq!(files_before, files_after, "nothing written");
    // A fresh encoding is for file 1 and appended there; one that would not fit is refused.
    let fresh = writer.encoder().encode(&capture).unwrap();
    assert!(writer.write_encoded(&fresh).unwrap().is_some());
    // An encoding that would take the file past its limit is refused too; `write_capture` then
    // moves to the next file.
    let big_response = common::ok_response(&noise(3, 5000));
    let big_capture =
        Capture { response: CaptureResponse::Full { message: &big_response, truncated: None }, ..capture };
    let big = writer.encoder().encode(&big_capture).unwrap();
    assert!(big.len() > 4500);
    assert_eq!(writer.write_encoded(&big).unwrap(), None);
    let moved = writer.write_capture(&big_capture).unwrap();
    assert!(moved.response.file.ends_with("freshet-00002.warc.gz"), "{}", moved.response.file.display());
    writer.finish().unwrap();
    let records = records_pointing_at_their_own_warcinfo(dir.path());
    assert_eq!(records.len(), 3 + 5 + 3, "three files: page 1; page 2 and p2; the big page");
}

#[test]
fn an_encoding_made_before_the_first_file_opens_it_with_its_warcinfo() {
    let dir = tempfile::tempdir().unwrap();
    let (mut writer, _) = WarcWriter::open(dir.path(), options(u64::MAX)).unwrap();
    let request = common::request("/");
    let response = common::ok_response(b"hello");
    let capture = Capture {
        target_uri: "http://h1.web.test/",
        date: common::date(0),
        ip_address: None,
        request: &request,
        response: CaptureResponse::Full { message: &response, truncated: None },
    };
    let encoded = writer.encoder().encode(&capture).unwrap();
    let written = writer.write_encoded(&encoded).unwrap().expect("for the file about to open");
    assert!(written.response.offset > 0, "after the warcinfo record");
    writer.finish().unwrap();
    let records = records_pointing_at_their_own_warcinfo(dir.path());
    let types: Vec<&str> = records.iter().map(common::record_type).collect();
    assert_eq!(types, ["warcinfo", "response", "request"]);
    assert_eq!(records[1].offset, written.response.offset);
}

#[test]
fn seeded_ids_leave_every_encoding_to_the_writer() {
    let dir = tempfile::tempdir().unwrap();
    let seeded = WriterOptions { record_ids: RecordIds::Seeded(3), ..WriterOptions::default() };
    let (mut writer, _) = WarcWriter::open(dir.path(), seeded).unwrap();
    let written = common::write_every_kind_with(&mut writer, |writer, capture| {
        let (written, appended) = common::write_encoded_or_capture(writer, capture);
        assert!(!appended, "seeded ids depend on the record's place");
        written
    });
    assert_eq!(written.len(), 4);
    writer.finish().unwrap();
    records_pointing_at_their_own_warcinfo(dir.path());
}
