//! What the writer writes reads back exactly: headers, blocks, digests, links between records,
//! offsets; files rotate by size, each starting with its own `warcinfo`; a reopened directory
//! continues where it stopped.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::HashMap;

use freshet_warc::{Capture, CaptureResponse, Digest, RecordIds, WarcError, WarcWriter, WriterOptions};

fn seeded(max_file_bytes: u64) -> WriterOptions {
    WriterOptions { max_file_bytes, record_ids: RecordIds::Seeded(42), ..WriterOptions::default() }
}

#[test]
fn every_record_reads_back_with_its_fields_digests_and_links() {
    let dir = tempfile::tempdir().unwrap();
    let (mut writer, _) = WarcWriter::open(dir.path(), seeded(u64::MAX)).unwrap();
    let written = common::write_every_kind(&mut writer);
    let path = writer.finish().unwrap().unwrap();
    assert_eq!(common::warc_files(dir.path()), std::slice::from_ref(&path));

    let records = common::read_all(&path);
    let types: Vec<&str> = records.iter().map(common::record_type).collect();
    assert_eq!(
        types,
        [
            "warcinfo", "response", "request", "response", "request", "revisit", "request", "revisit",
            "request"
        ]
    );
    let warcinfo = &records[0];
    assert_eq!(warcinfo.header.get("WARC-Filename"), Some("freshet-00000.warc.gz"));
    assert_eq!(warcinfo.header.get("Content-Type"), Some("application/warc-fields"));
    assert!(String::from_utf8_lossy(&warcinfo.block).contains("format: WARC File Format 1.1\r\n"));

    let by_id: HashMap<_, _> = records.iter().map(|record| (common::record_id(record), record)).collect();
    for record in &records {
        assert_eq!(record.header.version(), "WARC/1.1");
        assert_eq!(record.header.content_length(), Some(record.block.len() as u64));
        let block_digest = Digest::parse(record.header.get("WARC-Block-Digest").unwrap()).unwrap();
        assert_eq!(block_digest, Digest::sha1(&record.block));
        if common::record_type(record) == "warcinfo" {
            continue;
        }
        assert_eq!(
            record.header.get("WARC-Warcinfo-ID"),
            Some(common::record_id(warcinfo).to_string().as_str())
        );
        // Request and answer point at each other.
        let partner =
            by_id[&freshet_warc::RecordId::parse(record.header.get("WARC-Concurrent-To").unwrap()).unwrap()];
        assert_eq!(partner.header.get("WARC-Concurrent-To").unwrap(), common::record_id(record).to_string());
        assert_eq!(partner.header.get("WARC-Target-URI"), record.header.get("WARC-Target-URI"));
        assert_eq!(partner.header.get("WARC-Date"), record.header.get("WARC-Date"));
    }

    let first_response = &records[1];
    assert_eq!(first_response.header.get("Content-Type"), Some("application/http;msgtype=response"));
    assert_eq!(first_response.header.get("WARC-IP-Address"), Some("127.0.0.1"));
    assert_eq!(first_response.block, common::ok_response(&common::page_body(1, 2000)));
    assert_eq!(first_response.http_payload().unwrap(), common::page_body(1, 2000));
    assert_eq!(first_response.header.payload_digest(), Some(Digest::sha1(&common::page_body(1, 2000))));
    assert_eq!(records[2].header.get("Content-Type"), Some("application/http;msgtype=request"));
    assert_eq!(records[2].block, common::request("/"));

    let truncated = &records[3];
    assert_eq!(truncated.header.get("WARC-Truncated"), Some("length"));
    assert_eq!(truncated.header.get("WARC-IP-Address"), Some("::1"));
    assert_eq!(truncated.header.get("WARC-Date"), Some("2023-11-14T22:13:21.250000Z"));
    assert_eq!(truncated.http_payload().unwrap().len(), 3000);

    let identical = &records[5];
    assert_eq!(identical.header.get("WARC-Profile"), Some(freshet_warc::PROFILE_IDENTICAL_PAYLOAD_DIGEST));
    assert_eq!(identical.header.payload_digest(), first_response.header.payload_digest());
    assert_eq!(
        identical.header.get("WARC-Refers-To"),
        Some(common::record_id(first_response).to_string().as_str())
    );
    assert_eq!(identical.header.get("WARC-Refers-To-Target-URI"), Some("http://h1.web.test/"));
    assert_eq!(identical.header.get("WARC-Refers-To-Date"), Some("2023-11-14T22:13:20Z"));
    assert_eq!(identical.block, first_response.http_head().unwrap(), "only the HTTP headers are stored");

    let not_modified = &records[7];
    assert_eq!(not_modified.header.get("WARC-Profile"), Some(freshet_warc::PROFILE_SERVER_NOT_MODIFIED));
    assert_eq!(not_modified.header.get("WARC-Payload-Digest"), None);
    assert_eq!(not_modified.header.get("WARC-IP-Address"), None);
    assert!(not_modified.block.starts_with(b"HTTP/1.1 304 Not Modified\r\n"));

    // The writer's account of each record is where the reader found it.
    let by_offset: HashMap<u64, _> = records.iter().map(|record| (record.offset, record)).collect();
    for capture in &written {
        for place in [&capture.response, &capture.request] {
            let record = by_offset[&place.offset];
            assert_eq!(place.file, path);
            assert_eq!(common::record_id(record), place.record_id);
            assert_eq!(record.member_len, place.member_len);
            assert_eq!(record.header.payload_digest(), place.payload_digest);
        }
    }
}

#[test]
fn seeded_ids_make_the_same_bytes_twice() {
    let bytes: Vec<Vec<u8>> = (0..2)
        .map(|_| {
            let dir = tempfile::tempdir().unwrap();
            let (mut writer, _) = WarcWriter::open(dir.path(), seeded(u64::MAX)).unwrap();
            common::write_every_kind(&mut writer);
            std::fs::read(writer.finish().unwrap().unwrap()).unwrap()
        })
        .collect();
    assert_eq!(bytes[0], bytes[1]);
}

#[test]
fn files_rotate_by_size_and_each_starts_with_its_own_warcinfo() {
    let dir = tempfile::tempdir().unwrap();
    let limit = 8_000;
    let (mut writer, _) = WarcWriter::open(dir.path(), seeded(limit)).unwrap();
    let mut written = Vec::new();
    for seed in 0..40 {
        written.push(common::write_page(&mut writer, seed, 3000));
    }
    // A capture bigger than the limit gets a file of its own rather than an error.
    written.push(common::write_page(&mut writer, 1000, 200_000));
    writer.finish().unwrap();

    let files = common::warc_files(dir.path());
    assert!(files.len() > 5, "{files:?}");
    let mut captures = 0;
    for (number, file) in files.iter().enumerate() {
        let name = format!("freshet-{number:05}.warc.gz");
        assert_eq!(file.file_name().unwrap().to_str().unwrap(), name);
        let records = common::read_all(file);
        assert_eq!(common::record_type(&records[0]), "warcinfo");
        assert_eq!(records[0].header.get("WARC-Filename"), Some(name.as_str()));
        assert!(records[1..].iter().all(|record| common::record_type(record) != "warcinfo"));
        let len = std::fs::metadata(file).unwrap().len();
        let pages = (records.len() - 1) / 2;
        assert!(len <= limit || pages == 1, "{name}: {len} bytes with {pages} pages");
        captures += pages;
    }
    assert_eq!(captures, written.len());
    assert_eq!(written.last().unwrap().response.file, *files.last().unwrap());
}

#[test]
fn a_reopened_directory_continues_the_open_file_and_numbers_after_the_last() {
    let dir = tempfile::tempdir().unwrap();
    let (mut writer, _) = WarcWriter::open(dir.path(), seeded(u64::MAX)).unwrap();
    common::write_page(&mut writer, 1, 500);
    drop(writer); // no finish: the file stays .open, as after a crash
    let open_name = dir.path().join("freshet-00000.warc.gz.open");
    assert!(open_name.exists());

    let (mut writer, recovery) = WarcWriter::open(dir.path(), seeded(u64::MAX)).unwrap();
    assert_eq!(recovery.bytes_cut(), 0);
    assert_eq!(recovery.files.len(), 1);
    assert_eq!(recovery.files[0].records_kept, 3);
    let second = common::write_page(&mut writer, 2, 500);
    assert_eq!(second.response.file, dir.path().join("freshet-00000.warc.gz"));
    writer.finish().unwrap();

    let records = common::read_all(&dir.path().join("freshet-00000.warc.gz"));
    let types: Vec<&str> = records.iter().map(common::record_type).collect();
    assert_eq!(types, ["warcinfo", "response", "request", "response", "request"]);
    let warcinfo_id = common::record_id(&records[0]).to_string();
    assert!(
        records[1..].iter().all(|record| record.header.get("WARC-Warcinfo-ID") == Some(warcinfo_id.as_str()))
    );

    // A finished directory gets a new file, numbered after the last.
    let (mut writer, recovery) = WarcWriter::open(dir.path(), seeded(u64::MAX)).unwrap();
    assert!(recovery.files.is_empty());
    let third = common::write_page(&mut writer, 3, 500);
    assert_eq!(third.response.file, dir.path().join("freshet-00001.warc.gz"));
    // Files of another prefix in the same directory are left alone.
    let other = WriterOptions { prefix: "other".into(), ..seeded(u64::MAX) };
    let (mut other_writer, _) = WarcWriter::open(dir.path(), other).unwrap();
    assert_eq!(
        common::write_page(&mut other_writer, 4, 10).response.file,
        dir.path().join("other-00000.warc.gz")
    );
}

#[test]
fn older_open_files_are_finished_and_empty_ones_removed() {
    let dir = tempfile::tempdir().unwrap();
    let (mut writer, _) = WarcWriter::open(dir.path(), seeded(u64::MAX)).unwrap();
    common::write_page(&mut writer, 1, 500);
    drop(writer);
    // As if a later run had also crashed, after creating its file: two .open files.
    std::fs::copy(
        dir.path().join("freshet-00000.warc.gz.open"),
        dir.path().join("freshet-00001.warc.gz.open"),
    )
    .unwrap();
    std::fs::write(dir.path().join("freshet-00002.warc.gz.open"), b"").unwrap();

    let (writer, recovery) = WarcWriter::open(dir.path(), seeded(u64::MAX)).unwrap();
    assert_eq!(
        recovery.finalized,
        [dir.path().join("freshet-00000.warc.gz"), dir.path().join("freshet-00001.warc.gz")]
    );
    assert_eq!(recovery.removed, [dir.path().join("freshet-00002.warc.gz.open")]);
    assert_eq!(writer.current_file(), None);
    assert_eq!(
        common::warc_files(dir.path()),
        [dir.path().join("freshet-00000.warc.gz"), dir.path().join("freshet-00001.warc.gz")]
    );
}

#[test]
fn bad_captures_are_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let (mut writer, _) = WarcWriter::open(dir.path(), seeded(u64::MAX)).unwrap();
    let good_request = common::request("/");
    let good_response = common::ok_response(b"x");
    let capture = |uri, request, message| Capture {
        target_uri: uri,
        date: common::date(0),
        ip_address: None,
        request,
        response: CaptureResponse::Full { message, truncated: None },
    };
    let cases = [
        capture("http://h1.web.test/a b", &good_request, &good_response),
        capture("http://h1.web.test/\r\nWARC-Type: x", &good_request, &good_response),
        capture("http://h1.web.test/", b"GET / HTTP/1.1\r\nHost: h1", &good_response),
        capture("http://h1.web.test/", &good_request, b"HTTP/1.1 200 OK\r\nno end"),
    ];
    for case in &cases {
        let error = writer.write_capture(case).unwrap_err();
        assert!(
            matches!(error, WarcError::InvalidField { .. } | WarcError::NoHttpHeaderEnd { .. }),
            "{error}"
        );
    }
    assert_eq!(writer.current_file(), None, "no file was started for refused captures");
    assert!(common::warc_files(dir.path()).is_empty());
}

#[test]
fn recover_dir_gives_every_file_its_final_name() {
    let dir = tempfile::tempdir().unwrap();
    let (mut writer, _) = WarcWriter::open(dir.path(), seeded(u64::MAX)).unwrap();
    common::write_page(&mut writer, 1, 500);
    drop(writer);
    let mut bytes = std::fs::read(dir.path().join("freshet-00000.warc.gz.open")).unwrap();
    let whole = bytes.len();
    bytes.extend_from_slice(&[0x1f, 0x8b, 0x08, 0, 1, 2]); // the start of a torn record
    std::fs::write(dir.path().join("freshet-00000.warc.gz.open"), &bytes).unwrap();

    let recovery = freshet_warc::recover_dir(dir.path(), "freshet").unwrap();
    assert_eq!((recovery.bytes_cut(), recovery.records_cut()), (6, 1));
    let final_path = dir.path().join("freshet-00000.warc.gz");
    assert_eq!(recovery.finalized, std::slice::from_ref(&final_path));
    assert_eq!(common::warc_files(dir.path()), std::slice::from_ref(&final_path));
    assert_eq!(std::fs::metadata(&final_path).unwrap().len(), whole as u64);
    assert_eq!(common::read_all(&final_path).len(), 3);
}
