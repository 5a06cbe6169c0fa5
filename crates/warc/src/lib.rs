//! WARC/1.1 output for the crawler: what it fetched, byte for byte, in files that web-archive
//! tools read (the WARC 1.1 specification of the IIPC; ISO 28500:2017).
//!
//! # Main types
//! - [`WarcWriter`]: appends [`Capture`]s (a request and the answer to it) to numbered
//!   `PREFIX-NNNNN.warc.gz` files, one gzip member per record, each file starting with a
//!   `warcinfo` record; rotates before a file would pass [`WriterOptions::max_file_bytes`].
//!   An answer is a `response` record (the HTTP message as received), or a `revisit` record:
//!   profile *identical-payload-digest* when the body is the same as an earlier capture's (only
//!   the HTTP headers are stored), *server-not-modified* for a `304`.
//! - [`CaptureEncoder`] ([`WarcWriter::encoder`]) and [`WarcWriter::write_encoded`]: a capture
//!   encoded on another thread (the gzip members and SHA-1 digests, the costly part, with
//!   random record ids and the `WARC-Warcinfo-ID` of the file the writer was on), appended by
//!   the writer with one write; refused (nothing written) when the writer has moved to
//!   another file or would have to for it, for the caller to write it with
//!   [`WarcWriter::write_capture`]: every record names the `warcinfo` of its own file.
//! - [`WarcDate`]: `WARC-Date`, always passed in by the caller: this crate never reads the clock.
//! - [`Digest`]: `WARC-Block-Digest` and `WARC-Payload-Digest`, `sha1:` + base32.
//! - [`WarcReader`]: iterates the records of a `.warc.gz`, member by member.
//! - [`recover_file`], [`scan_file`]: the longest valid prefix of a file, and the cut of a torn
//!   tail; [`WarcWriter::open`] runs them on the files a killed writer left, and continues;
//!   [`recover_dir`] recovers and finishes them, for a crawl that will not resume.
//!
//! # Crash safety and the order the crawler must follow
//! A file being written is `PREFIX-NNNNN.warc.gz.open`; it is renamed to `PREFIX-NNNNN.warc.gz`
//! once synced and complete, so a file with the final name is always whole. Each capture goes
//! to the file with a single `write`. After `kill -9` the `.open` file may end in a torn
//! record; [`WarcWriter::open`] keeps its longest prefix of complete records (each gzip member
//! decompresses with a good CRC, and its `Content-Length` matches its block), truncates the
//! rest, reports the cut ([`Recovery`]), and appends after it.
//!
//! The crawler's order, for no fetched page to be acknowledged without its record:
//! 1. [`WarcWriter::write_capture`] or [`WarcWriter::write_encoded`] (the records are now in
//!    the OS: they survive `kill -9`);
//! 2. [`WarcWriter::sync`] (now they survive a power cut; batch several captures per sync to
//!    save `fdatasync`s: group commit);
//! 3. only then mark the URLs of those captures fetched in the frontier.
//!
//! A crash between 2 and 3 leaves a record whose URL the frontier still holds in flight: it is
//! fetched again and stored twice, which WARC allows; the other order could lose a page. The
//! writer keeps no buffer of its own, so there is no `flush` step: `write_capture` has already
//! handed the bytes to the OS when it returns.
//!
//! # Why written by hand
//! The `warc` crate (0.4) cannot be used: it compresses a whole file as one gzip member (warcio
//! rejects that as "non-chunked gzip"), writes WARC/1.0, computes no digests, its writer does not
//! truncate a torn record, and `WarcReader::from_path` fails (see `shared/CRATES.md`). What is
//! left is small: header text, one gzip member per record (`flate2`'s raw deflate with the
//! zlib-rs backend, its state reused from member to member, with the RFC 1952 header and trailer
//! around it: `gzip.rs` says why), `sha1` digests in `data-encoding`'s base32. Record ids are
//! `uuid` v4s; dates are formatted by `humantime`.
//! The files are checked by `warcio check` and `warcio index` (PyPI) in `tests/warcio.rs`.
//!
//! # Example
//! ```
//! use freshet_warc::{Capture, CaptureResponse, WarcDate, WarcReader, WarcWriter, WriterOptions};
//!
//! let dir = tempfile::tempdir()?;
//! let (mut writer, recovery) = WarcWriter::open(dir.path(), WriterOptions::default())?;
//! assert_eq!(recovery.bytes_cut(), 0);
//! let written = writer.write_capture(&Capture {
//!     target_uri: "http://h1.web.test/",
//!     date: WarcDate::from_unix(1_700_000_000, 0)?,
//!     ip_address: Some("127.0.0.1".parse()?),
//!     request: b"GET / HTTP/1.1\r\nHost: h1.web.test\r\n\r\n",
//!     response: CaptureResponse::Full {
//!         message: b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
//!         truncated: None,
//!     },
//! })?;
//! writer.sync()?; // durable: now the frontier may mark the URL fetched
//! let path = writer.finish()?.expect("a file was written");
//!
//! let types: Vec<String> = WarcReader::open(&path)?
//!     .map(|record| record.map(|r| r.header.record_type().unwrap_or_default().to_owned()))
//!     .collect::<Result<_, _>>()?;
//! assert_eq!(types, ["warcinfo", "response", "request"]);
//! assert_eq!(written.response.file, path);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod date;
mod digest;
mod error;
mod gzip;
mod reader;
mod record;
mod record_id;
mod recover;
mod writer;

pub use date::WarcDate;
pub use digest::Digest;
pub use error::{Result, WarcError};
pub use reader::{Record, WarcReader};
pub use record::{WARC_VERSION, WarcHeader};
pub use record_id::{RecordId, RecordIds};
pub use recover::{FileRecovery, FileScan, recover_file, scan_file};
pub use writer::{
    Capture, CaptureEncoder, CaptureResponse, CaptureWritten, DEFAULT_MAX_FILE_BYTES, EncodedCapture,
    PROFILE_IDENTICAL_PAYLOAD_DIGEST, PROFILE_SERVER_NOT_MODIFIED, Recovery, RefersTo, Truncation,
    WarcWriter, WriterOptions, WrittenRecord, recover_dir,
};
