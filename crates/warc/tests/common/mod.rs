//! Shared by the integration tests: captures of every kind the writer records, and helpers to
//! read a directory of WARC files back.
#![allow(dead_code, unreachable_pub, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use freshet_warc::{
    Capture, CaptureResponse, CaptureWritten, Digest, Record, RecordId, RefersTo, Truncation, WarcDate,
    WarcReader, WarcWriter,
};

/// The HTTP request the tests send for `path` on host `h1.web.test`.
pub fn request(path: &str) -> Vec<u8> {
    format!("GET {path} HTTP/1.1\r\nHost: h1.web.test\r\nUser-Agent: freshet-test\r\nAccept: */*\r\n\r\n")
        .into_bytes()
}

/// A 200 response whose body is `body`.
pub fn ok_response(body: &[u8]) -> Vec<u8> {
    let mut message = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nETag: \"v1\"\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    message.extend_from_slice(body);
    message
}

/// A page body of about `len` bytes, different for each `seed`.
pub fn page_body(seed: u64, len: usize) -> Vec<u8> {
    let mut body =
        format!("<!doctype html><html><head><title>page {seed}</title></head><body>\n").into_bytes();
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    while body.len() < len {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        body.extend_from_slice(
            format!("<p><a href=\"/p{}\">link {}</a> text {}</p>\n", state % 1000, state % 97, state % 13)
                .as_bytes(),
        );
    }
    body.extend_from_slice(b"</body></html>\n");
    body
}

pub fn date(seconds: u64) -> WarcDate {
    WarcDate::from_unix(1_700_000_000 + seconds, 0).unwrap()
}

/// Writes one capture of each kind: a plain 200, a truncated 200 with a binary body over IPv6,
/// an identical-payload revisit of the first and a 304 revisit. Returns what the writer said.
pub fn write_every_kind(writer: &mut WarcWriter) -> Vec<CaptureWritten> {
    write_every_kind_with(writer, |writer, capture| writer.write_capture(capture).unwrap())
}

/// Writes the capture as the crawler does: encoded by the writer's encoder (as a fetch task
/// would), appended by `write_encoded`, else (another file by now, seeded ids) written by
/// `write_capture`. The flag says whether the encoding was appended.
pub fn write_encoded_or_capture(writer: &mut WarcWriter, capture: &Capture<'_>) -> (CaptureWritten, bool) {
    let encoded = writer.encoder().encode(capture).unwrap();
    // What a caller can compute before writing is what the record gets.
    let expected = match &capture.response {
        CaptureResponse::Full { message, .. } | CaptureResponse::IdenticalPayload { message, .. } => {
            Digest::of_http_payload(message)
        }
        CaptureResponse::NotModified { .. } => None,
    };
    if !encoded.is_empty() {
        assert_eq!(encoded.payload_digest(), expected);
    }
    match writer.write_encoded(&encoded).unwrap() {
        Some(written) => {
            assert_eq!(encoded.payload_digest(), written.response.payload_digest);
            (written, true)
        }
        None => (writer.write_capture(capture).unwrap(), false),
    }
}

/// [`write_every_kind`], each capture written by `write`.
pub fn write_every_kind_with(
    writer: &mut WarcWriter,
    mut write: impl FnMut(&mut WarcWriter, &Capture<'_>) -> CaptureWritten,
) -> Vec<CaptureWritten> {
    let body = page_body(1, 2000);
    let first_request = request("/");
    let first_response = ok_response(&body);
    let first = write(
        writer,
        &Capture {
            target_uri: "http://h1.web.test/",
            date: date(0),
            ip_address: Some("127.0.0.1".parse().unwrap()),
            request: &first_request,
            response: CaptureResponse::Full { message: &first_response, truncated: None },
        },
    );

    let binary: Vec<u8> = (0..=255u8).cycle().take(3000).collect();
    let mut binary_response =
        b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 10000\r\n\r\n"
            .to_vec();
    binary_response.extend_from_slice(&binary);
    let binary_request = request("/big.bin");
    let truncated = write(
        writer,
        &Capture {
            target_uri: "http://h1.web.test/big.bin",
            date: WarcDate::from_unix(1_700_000_001, 250_000).unwrap(),
            ip_address: Some("::1".parse().unwrap()),
            request: &binary_request,
            response: CaptureResponse::Full {
                message: &binary_response,
                truncated: Some(Truncation::Length),
            },
        },
    );

    let refers_to = RefersTo {
        target_uri: "http://h1.web.test/",
        date: date(0),
        record_id: Some(first.response.record_id),
    };
    let again_request = request("/");
    let identical = write(
        writer,
        &Capture {
            target_uri: "http://h1.web.test/",
            date: date(60),
            ip_address: Some("127.0.0.1".parse().unwrap()),
            request: &again_request,
            response: CaptureResponse::IdenticalPayload { message: &first_response, refers_to },
        },
    );

    let conditional_request =
        b"GET / HTTP/1.1\r\nHost: h1.web.test\r\nIf-None-Match: \"v1\"\r\n\r\n".to_vec();
    let not_modified_response = b"HTTP/1.1 304 Not Modified\r\nETag: \"v1\"\r\n\r\n".to_vec();
    let not_modified = write(
        writer,
        &Capture {
            target_uri: "http://h1.web.test/",
            date: date(120),
            ip_address: None,
            request: &conditional_request,
            response: CaptureResponse::NotModified { message: &not_modified_response, refers_to },
        },
    );
    vec![first, truncated, identical, not_modified]
}

/// Writes a plain 200 capture of page `seed`.
pub fn write_page(writer: &mut WarcWriter, seed: u64, body_len: usize) -> CaptureWritten {
    let uri = format!("http://h1.web.test/p{seed}");
    let request = request(&format!("/p{seed}"));
    let response = ok_response(&page_body(seed, body_len));
    writer
        .write_capture(&Capture {
            target_uri: &uri,
            date: date(seed),
            ip_address: Some("127.0.0.1".parse().unwrap()),
            request: &request,
            response: CaptureResponse::Full { message: &response, truncated: None },
        })
        .unwrap()
}

/// The WARC files in `dir` (final and `.open`), sorted by name.
pub fn warc_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.to_string_lossy().contains(".warc.gz"))
        .collect();
    files.sort();
    files
}

/// Every record of the file, panicking on a bad one.
pub fn read_all(path: &Path) -> Vec<Record> {
    WarcReader::open(path).unwrap().collect::<Result<Vec<_>, _>>().unwrap()
}

pub fn record_type(record: &Record) -> &str {
    record.header.record_type().unwrap()
}

pub fn record_id(record: &Record) -> RecordId {
    record.header.record_id().unwrap()
}

/// A temporary directory on tmpfs (`/dev/shm`) when there is one, else in the usual place: the
/// recovery tests cut and recover files about a thousand times, each ending in an `fsync` that
/// tmpfs makes free; durability itself is not what they test.
pub fn scratch_dir() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    match shm.is_dir().then(|| tempfile::tempdir_in(shm)) {
        Some(Ok(dir)) => dir,
        _ => tempfile::tempdir().unwrap(),
    }
}
