//! `WarcWriter`: appends captures (a request and its response or revisit) to numbered
//! `.warc.gz` files in a directory, one gzip member per record, starting each file with a
//! `warcinfo` record and moving to the next file when the size limit would be passed.
//!
//! A file being written is named `PREFIX-NNNNN.warc.gz.open`; it gets its final name
//! `PREFIX-NNNNN.warc.gz` once it is complete and synced (on rotation or [`WarcWriter::finish`]).
//! So a file with the final name is always whole, and only an `.open` file can end in a torn
//! record, which [`WarcWriter::open`] cuts away before appending to it again.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::net::IpAddr;
use std::path::{Path, PathBuf};

use crate::date::WarcDate;
use crate::digest::Digest;
use crate::error::{Result, WarcError, io_error};
use crate::gzip::{MemberEncoder, with_thread_encoder};
use crate::record::{encode_member, http_head_len};
use crate::record_id::{RecordId, RecordIds};
use crate::recover::{FileRecovery, recover_file};

/// `WARC-Profile` of a revisit whose payload is identical to an earlier capture's (WARC 1.1 §6.7.2).
pub const PROFILE_IDENTICAL_PAYLOAD_DIGEST: &str =
    "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest";
/// `WARC-Profile` of a revisit recording a `304 Not Modified` answer (WARC 1.1 §6.7.3).
pub const PROFILE_SERVER_NOT_MODIFIED: &str = "http://netpreserve.org/warc/1.1/revisit/server-not-modified";

/// The IIPC's recommended largest file size (WARC 1.1 Annex C): 1 GB.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 1_000_000_000;

/// How the writer names, sizes and compresses its files.
#[derive(Clone, Debug)]
pub struct WriterOptions {
    /// Files are `PREFIX-00000.warc.gz`, `PREFIX-00001.warc.gz`, …: ASCII letters, digits, `-`,
    /// `_` and `.` only. One writer per directory and prefix at a time.
    pub prefix: String,
    /// A file is closed before a write would take it past this many bytes (compressed), unless it
    /// holds only its `warcinfo`: a capture bigger than the limit gets a file of its own.
    pub max_file_bytes: u64,
    /// gzip level, 0 (store) to 9 (smallest); see BENCHMARKS.md for the speed of each.
    pub gzip_level: u32,
    /// Where record ids come from.
    pub record_ids: RecordIds,
    /// Fields of each file's `warcinfo` record (`operator`, `hostname`, `robots`, `isPartOf`,
    /// …; WARC 1.1 Annex B.1), after `software`, `format` and `conformsTo`, which a field of
    /// the same name here replaces.
    pub warcinfo_fields: Vec<(String, String)>,
}

impl Default for WriterOptions {
    fn default() -> Self {
        Self {
            prefix: "freshet".into(),
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            gzip_level: 6,
            record_ids: RecordIds::Random,
            warcinfo_fields: Vec::new(),
        }
    }
}

/// One HTTP fetch to record: the request as sent and what came back.
#[derive(Clone, Debug)]
pub struct Capture<'a> {
    /// The URI fetched (`WARC-Target-URI`).
    pub target_uri: &'a str,
    /// When the fetch began (`WARC-Date` of both records, WARC 1.1 §5.4).
    pub date: WarcDate,
    /// The server's address (`WARC-IP-Address`), when known.
    pub ip_address: Option<IpAddr>,
    /// The HTTP request message as sent: request line, headers, blank line, body.
    pub request: &'a [u8],
    /// The answer, and how to record it.
    pub response: CaptureResponse<'a>,
}

/// How the answer to a capture is recorded.
#[derive(Clone, Debug)]
pub enum CaptureResponse<'a> {
    /// A `response` record holding the HTTP message as received: status line, headers, blank
    /// line, body. `WARC-Payload-Digest` covers the bytes after the blank line exactly as given:
    /// a body still in chunked transfer coding is digested chunked, which is what `warcio check`
    /// recomputes; a crawler whose HTTP client removed the transfer coding should also drop the
    /// `Transfer-Encoding` header line, so that readers do not try to de-chunk the body.
    Full {
        /// The message.
        message: &'a [u8],
        /// Set when the body was cut short (`WARC-Truncated`, WARC 1.1 §5.13).
        truncated: Option<Truncation>,
    },
    /// A `revisit` record (profile identical-payload-digest): the payload is the same as an
    /// earlier capture's, so only the HTTP header block of `message` is stored, with the
    /// payload's digest and the earlier capture it duplicates.
    IdenticalPayload {
        /// The whole message as received (its body gives the digest; it is not stored).
        message: &'a [u8],
        /// The earlier capture with the same payload.
        refers_to: RefersTo<'a>,
    },
    /// A `revisit` record (profile server-not-modified) holding a `304 Not Modified` message.
    NotModified {
        /// The 304 message as received.
        message: &'a [u8],
        /// The earlier capture the conditional request was about.
        refers_to: RefersTo<'a>,
    },
}

/// The earlier capture a revisit points to (WARC 1.1 §5.11, §5.12, §5.13).
#[derive(Clone, Copy, Debug)]
pub struct RefersTo<'a> {
    /// Its `WARC-Target-URI` (`WARC-Refers-To-Target-URI`).
    pub target_uri: &'a str,
    /// Its `WARC-Date` (`WARC-Refers-To-Date`).
    pub date: WarcDate,
    /// Its record id (`WARC-Refers-To`), when known.
    pub record_id: Option<RecordId>,
}

/// Why a body was cut short (`WARC-Truncated` values, WARC 1.1 §5.13).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Truncation {
    /// The size cap was reached.
    Length,
    /// The time limit was reached.
    Time,
    /// The connection dropped.
    Disconnect,
    /// Another reason.
    Unspecified,
}

impl Truncation {
    fn as_str(self) -> &'static str {
        match self {
            Truncation::Length => "length",
            Truncation::Time => "time",
            Truncation::Disconnect => "disconnect",
            Truncation::Unspecified => "unspecified",
        }
    }
}

/// Where a record went: enough for an index (CDX) line or the crawl log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WrittenRecord {
    /// Its `WARC-Record-ID`.
    pub record_id: RecordId,
    /// The file, under its final name (it may still be `.open` on disk).
    pub file: PathBuf,
    /// Offset of its gzip member in the file.
    pub offset: u64,
    /// Length of its gzip member.
    pub member_len: u64,
    /// Its `WARC-Payload-Digest`, when it has one: keep it to detect identical payloads later.
    pub payload_digest: Option<Digest>,
}

/// The two records of a capture, written together.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureWritten {
    /// The `response` or `revisit` record.
    pub response: WrittenRecord,
    /// The `request` record.
    pub request: WrittenRecord,
}

/// What [`WarcWriter::open`] found and repaired in the directory.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recovery {
    /// Every `.open` file found, oldest first, as recovery left it.
    pub files: Vec<FileRecovery>,
    /// `.open` files given their final name (all but the newest, which the writer continues).
    pub finalized: Vec<PathBuf>,
    /// `.open` files removed because no valid record was left in them.
    pub removed: Vec<PathBuf>,
}

impl Recovery {
    /// Total bytes cut from torn tails.
    pub fn bytes_cut(&self) -> u64 {
        self.files.iter().map(|file| file.bytes_cut).sum()
    }

    /// Total records cut (torn records).
    pub fn records_cut(&self) -> u64 {
        self.files.iter().map(|file| file.records_cut).sum()
    }
}

struct OpenFile {
    file: File,
    number: u32,
    open_path: PathBuf,
    final_path: PathBuf,
    len: u64,
    /// Records other than the file's `warcinfo`.
    captures: u64,
    warcinfo_id: Option<RecordId>,
}

/// Appends captures to rotating `.warc.gz` files; see the crate docs for the durability contract.
pub struct WarcWriter {
    dir: PathBuf,
    options: WriterOptions,
    current: Option<OpenFile>,
    next_number: u32,
    /// The `warcinfo` record id of the next file opened, drawn in advance so that a
    /// [`CaptureEncoder`] made before the file exists can point at it.
    next_warcinfo_id: RecordId,
    poisoned: Option<PathBuf>,
    buffer: Vec<u8>,
    encoder: MemberEncoder,
}

/// Encodes captures away from the writer (in a fetch task, on another thread), for
/// [`WarcWriter::write_encoded`] to append with one write: the gzip compression and the SHA-1
/// digests, the costly part of a capture, then run where the writer's thread is not.
///
/// It encodes for the file the writer would append to when it was made ([`WarcWriter::encoder`]):
/// the records' `WARC-Warcinfo-ID` names that file's `warcinfo` record. If the writer has moved
/// to another file meanwhile (rotation), the encoding is refused and the caller writes the
/// capture with [`WarcWriter::write_capture`], which encodes it again for the new file: every
/// record keeps pointing at the `warcinfo` record of its own file.
#[derive(Clone, Debug)]
pub struct CaptureEncoder {
    gzip_level: u32,
    /// The file number and `warcinfo` record id of the file the encoding is for; `None` with
    /// seeded record ids, which depend on the record's place in its file, known only to the
    /// writer (so every capture is then encoded by the writer).
    for_file: Option<(u32, Option<RecordId>)>,
}

/// A capture encoded by a [`CaptureEncoder`]: its two gzip members (the response or revisit,
/// then the request) ready to append, with their ids and digests.
#[derive(Clone, Debug)]
pub struct EncodedCapture {
    bytes: Vec<u8>,
    response_len: usize,
    response_id: RecordId,
    request_id: RecordId,
    payload_digest: Option<Digest>,
    date: WarcDate,
    for_file: Option<(u32, Option<RecordId>)>,
}

impl EncodedCapture {
    /// Bytes of the two gzip members.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether nothing was encoded (an encoding left to the writer: seeded record ids).
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The response's `WARC-Payload-Digest` (a `response` or identical-payload `revisit`
    /// record); `None` for a server-not-modified revisit, and when nothing was encoded.
    pub fn payload_digest(&self) -> Option<Digest> {
        self.payload_digest
    }
}

impl CaptureEncoder {
    /// Encodes the capture's two records, as [`WarcWriter::write_capture`] would for the file
    /// this encoder is for, with random record ids. Uses a deflate state kept per thread.
    ///
    /// # Errors
    /// The capture's checks ([`WarcError::InvalidField`], [`WarcError::NoHttpHeaderEnd`]) and
    /// [`WarcError::Compress`].
    pub fn encode(&self, capture: &Capture<'_>) -> Result<EncodedCapture> {
        let response_head_len = validate_capture(capture)?;
        let ids = RecordIds::Random;
        let (response_id, request_id) = (ids.next(0, 0, 0), ids.next(0, 0, 1));
        let mut encoded = EncodedCapture {
            bytes: Vec::new(),
            response_len: 0,
            response_id,
            request_id,
            payload_digest: None,
            date: capture.date,
            for_file: self.for_file,
        };
        let Some((_, warcinfo_id)) = self.for_file else { return Ok(encoded) };
        let records = Records { capture, response_head_len, warcinfo_id, response_id, request_id };
        let (payload_digest, response_len) = with_thread_encoder(self.gzip_level, |encoder| {
            encoded.bytes.reserve(capture.request.len() / 2 + response_len_hint(capture) + 1024);
            records.encode(encoder, &mut encoded.bytes)
        })?;
        encoded.payload_digest = payload_digest;
        encoded.response_len = response_len;
        Ok(encoded)
    }
}

/// A guess at the compressed size of a capture's response record, to allocate once.
fn response_len_hint(capture: &Capture<'_>) -> usize {
    let message = match &capture.response {
        CaptureResponse::Full { message, .. }
        | CaptureResponse::IdenticalPayload { message, .. }
        | CaptureResponse::NotModified { message, .. } => message,
    };
    message.len() / 2
}

impl WarcWriter {
    /// Opens `dir` (created if missing) for appending: recovers every `.open` file of the prefix
    /// (cutting torn tails), gives all but the newest their final name, and continues the newest;
    /// new files are numbered after the highest number present.
    pub fn open(dir: &Path, options: WriterOptions) -> Result<(Self, Recovery)> {
        validate_options(&options)?;
        fs::create_dir_all(dir).map_err(io_error("create directory", dir))?;
        let (open_numbers, highest) = list_files(dir, &options.prefix)?;
        let mut recovery = Recovery::default();
        let mut current = None;
        for (index, &number) in open_numbers.iter().enumerate() {
            let (open_path, final_path) = file_paths(dir, &options.prefix, number);
            let file_recovery = recover_file(&open_path)?;
            let is_newest = index + 1 == open_numbers.len();
            if file_recovery.records_kept == 0 {
                fs::remove_file(&open_path).map_err(io_error("remove", &open_path))?;
                recovery.removed.push(open_path);
            } else if is_newest {
                let file =
                    OpenOptions::new().append(true).open(&open_path).map_err(io_error("open", &open_path))?;
                let warcinfo_id = match &file_recovery.first_record {
                    Some((record_type, id)) if record_type == "warcinfo" => *id,
                    _ => None,
                };
                current = Some(OpenFile {
                    file,
                    number,
                    open_path,
                    final_path,
                    len: file_recovery.valid_len,
                    captures: file_recovery.records_kept - u64::from(warcinfo_id.is_some()),
                    warcinfo_id,
                });
            } else {
                rename_to_final(&open_path, &final_path, dir)?;
                recovery.finalized.push(final_path);
            }
            recovery.files.push(file_recovery);
        }
        sync_dir(dir)?;
        let next_number = highest.map_or(Ok(0), |number: u32| {
            number.checked_add(1).ok_or(WarcError::InvalidOption {
                option: "prefix",
                reason: format!("file numbers of {:?} are exhausted", options.prefix),
            })
        })?;
        let encoder = MemberEncoder::new(options.gzip_level);
        let next_warcinfo_id = options.record_ids.next(next_number, 0, 0);
        let writer = Self {
            dir: dir.to_owned(),
            options,
            current,
            next_number,
            next_warcinfo_id,
            poisoned: None,
            buffer: Vec::new(),
            encoder,
        };
        Ok((writer, recovery))
    }

    /// Appends the capture's two records (the response or revisit, then the request, each
    /// pointing at the other with `WARC-Concurrent-To`) with one write. When this returns, the
    /// records are in the operating system's hands: they survive the process being killed, but
    /// not a power cut until [`WarcWriter::sync`] returns.
    pub fn write_capture(&mut self, capture: &Capture<'_>) -> Result<CaptureWritten> {
        if let Some(path) = &self.poisoned {
            return Err(WarcError::Poisoned { path: path.clone() });
        }
        let response_head_len = validate_capture(capture)?;
        let mut written = self.encode_into_current(capture, response_head_len)?;
        let needs_rotation = self.current.as_ref().is_some_and(|current| {
            current.captures > 0 && current.len + self.buffer.len() as u64 > self.options.max_file_bytes
        });
        if needs_rotation {
            // Encoded again for the new file: its warcinfo record comes first and the ids and
            // offsets depend on the file.
            finish_file(self.current.take(), &self.dir)?;
            written = self.encode_into_current(capture, response_head_len)?;
        }
        let current = ensure_file(
            &mut self.current,
            &self.dir,
            &self.options,
            &mut self.next_number,
            &mut self.next_warcinfo_id,
        )?;
        append(current, &self.buffer, &mut self.poisoned)?;
        current.len += self.buffer.len() as u64;
        current.captures += 1;
        Ok(written)
    }

    /// Encodes `capture` into the buffer for the current file (opened if needed).
    fn encode_into_current(
        &mut self,
        capture: &Capture<'_>,
        response_head_len: usize,
    ) -> Result<CaptureWritten> {
        let current = ensure_file(
            &mut self.current,
            &self.dir,
            &self.options,
            &mut self.next_number,
            &mut self.next_warcinfo_id,
        )?;
        encode_capture(
            current,
            &self.options,
            capture,
            response_head_len,
            &mut self.encoder,
            &mut self.buffer,
        )
    }

    /// An encoder for the file the next write goes to (see [`CaptureEncoder`]): cheap, and
    /// `Send`, to be moved into a fetch task.
    pub fn encoder(&self) -> CaptureEncoder {
        let for_file = match self.options.record_ids {
            RecordIds::Seeded(_) => None,
            RecordIds::Random => Some(match &self.current {
                Some(current) => (current.number, current.warcinfo_id),
                None => (self.next_number, Some(self.next_warcinfo_id)),
            }),
        };
        CaptureEncoder { gzip_level: self.options.gzip_level, for_file }
    }

    /// Appends a capture encoded by [`WarcWriter::encoder`]'s encoder with one write (after the
    /// file's `warcinfo` record, in the same write, if the file is new), with the same
    /// durability as [`WarcWriter::write_capture`]. `None`, with nothing written, when the
    /// encoding is not for the file the capture would go to (the writer moved to another file,
    /// or would have to for this capture, or its ids are seeded): write it with
    /// [`WarcWriter::write_capture`] then.
    pub fn write_encoded(&mut self, encoded: &EncodedCapture) -> Result<Option<CaptureWritten>> {
        if let Some(path) = &self.poisoned {
            return Err(WarcError::Poisoned { path: path.clone() });
        }
        let Some(for_file) = encoded.for_file else { return Ok(None) };
        let fits = match &self.current {
            Some(current) => {
                (current.number, current.warcinfo_id) == for_file
                    && (current.captures == 0
                        || current.len + encoded.bytes.len() as u64 <= self.options.max_file_bytes)
            }
            None => for_file == (self.next_number, Some(self.next_warcinfo_id)),
        };
        if !fits {
            return Ok(None);
        }
        let warcinfo_fields = &self.options.warcinfo_fields;
        let current = ensure_file(
            &mut self.current,
            &self.dir,
            &self.options,
            &mut self.next_number,
            &mut self.next_warcinfo_id,
        )?;
        let warcinfo_len = if current.len == 0 {
            self.buffer.clear();
            encode_warcinfo(current, warcinfo_fields, encoded.date, &mut self.encoder, &mut self.buffer)?;
            let warcinfo_len = self.buffer.len();
            self.buffer.extend_from_slice(&encoded.bytes);
            warcinfo_len
        } else {
            0
        };
        let bytes = if warcinfo_len > 0 { &self.buffer } else { &encoded.bytes };
        append(current, bytes, &mut self.poisoned)?;
        let response_offset = current.len + warcinfo_len as u64;
        let request_offset = response_offset + encoded.response_len as u64;
        let written = CaptureWritten {
            response: WrittenRecord {
                record_id: encoded.response_id,
                file: current.final_path.clone(),
                offset: response_offset,
                member_len: encoded.response_len as u64,
                payload_digest: encoded.payload_digest,
            },
            request: WrittenRecord {
                record_id: encoded.request_id,
                file: current.final_path.clone(),
                offset: request_offset,
                member_len: (encoded.bytes.len() - encoded.response_len) as u64,
                payload_digest: None,
            },
        };
        current.len += bytes.len() as u64;
        current.captures += 1;
        Ok(Some(written))
    }

    /// Makes every record written so far durable (`fdatasync` of the current file). The crawler
    /// calls this before it marks the captured URLs fetched in its frontier.
    pub fn sync(&mut self) -> Result<()> {
        if let Some(current) = &self.current {
            current.file.sync_data().map_err(io_error("sync", &current.open_path))?;
        }
        Ok(())
    }

    /// Syncs the current file and gives it its final name; returns that name, if a file was open.
    /// Dropping a writer without calling this leaves an `.open` file, which the next
    /// [`WarcWriter::open`] continues.
    pub fn finish(mut self) -> Result<Option<PathBuf>> {
        if let Some(path) = &self.poisoned {
            return Err(WarcError::Poisoned { path: path.clone() });
        }
        let current = self.current.take();
        let final_path = current.as_ref().map(|current| current.final_path.clone());
        finish_file(current, &self.dir)?;
        Ok(final_path)
    }

    /// The final name of the file being written, if one is open.
    pub fn current_file(&self) -> Option<&Path> {
        self.current.as_ref().map(|current| current.final_path.as_path())
    }
}

/// Recovers the `.open` files of `prefix` in `dir` as [`WarcWriter::open`] does, then gives the
/// newest its final name too: for a crawl that stopped and will not resume, so that every file
/// has its final name and ends with a whole record.
pub fn recover_dir(dir: &Path, prefix: &str) -> Result<Recovery> {
    let options = WriterOptions { prefix: prefix.to_owned(), ..WriterOptions::default() };
    let (writer, mut recovery) = WarcWriter::open(dir, options)?;
    if let Some(final_path) = writer.finish()? {
        recovery.finalized.push(final_path);
    }
    Ok(recovery)
}

/// Checks what the capture will write into header lines and finds the end of the response's
/// HTTP header block.
fn validate_capture(capture: &Capture<'_>) -> Result<usize> {
    validate_uri("WARC-Target-URI", capture.target_uri)?;
    if http_head_len(capture.request).is_none() {
        return Err(WarcError::NoHttpHeaderEnd { which: "request", len: capture.request.len() });
    }
    let message = match &capture.response {
        CaptureResponse::Full { message, .. } => message,
        CaptureResponse::IdenticalPayload { message, refers_to }
        | CaptureResponse::NotModified { message, refers_to } => {
            validate_uri("WARC-Refers-To-Target-URI", refers_to.target_uri)?;
            message
        }
    };
    http_head_len(message).ok_or(WarcError::NoHttpHeaderEnd { which: "response", len: message.len() })
}

/// Appends whole records to `current`; on a failed write, cuts the file back to its last whole
/// record, and if even that fails marks the writer `poisoned` (the file's end is unknown).
fn append(current: &mut OpenFile, bytes: &[u8], poisoned: &mut Option<PathBuf>) -> Result<()> {
    if let Err(source) = current.file.write_all(bytes) {
        if current.file.set_len(current.len).is_err() {
            *poisoned = Some(current.open_path.clone());
        }
        return Err(WarcError::Io { action: "write", path: current.open_path.clone(), source });
    }
    Ok(())
}

/// The file being written, opening the next one when none is.
fn ensure_file<'a>(
    current: &'a mut Option<OpenFile>,
    dir: &Path,
    options: &WriterOptions,
    next_number: &mut u32,
    next_warcinfo_id: &mut RecordId,
) -> Result<&'a mut OpenFile> {
    if let Some(current) = current {
        return Ok(current);
    }
    let prefix = &options.prefix;
    let number = *next_number;
    let (open_path, final_path) = file_paths(dir, prefix, number);
    if final_path.exists() {
        return Err(WarcError::Io {
            action: "create",
            path: final_path,
            source: std::io::Error::new(std::io::ErrorKind::AlreadyExists, "a finished file has this number"),
        });
    }
    let file = OpenOptions::new()
        .append(true)
        .create_new(true)
        .open(&open_path)
        .map_err(io_error("create", &open_path))?;
    sync_dir(dir)?;
    *next_number = number.checked_add(1).ok_or(WarcError::InvalidOption {
        option: "prefix",
        reason: format!("file numbers of {prefix:?} are exhausted"),
    })?;
    let warcinfo_id = std::mem::replace(next_warcinfo_id, options.record_ids.next(*next_number, 0, 0));
    Ok(current.insert(OpenFile {
        file,
        number,
        open_path,
        final_path,
        len: 0,
        captures: 0,
        warcinfo_id: Some(warcinfo_id),
    }))
}

/// Syncs a finished file and gives it its final name.
fn finish_file(current: Option<OpenFile>, dir: &Path) -> Result<()> {
    if let Some(current) = current {
        current.file.sync_all().map_err(io_error("sync", &current.open_path))?;
        rename_to_final(&current.open_path, &current.final_path, dir)?;
    }
    Ok(())
}

/// Encodes the capture into `buffer` (cleared first), preceded by the file's `warcinfo` when
/// the file is empty, with the ids and offsets it will have once appended to `current`.
fn encode_capture(
    current: &mut OpenFile,
    options: &WriterOptions,
    capture: &Capture<'_>,
    response_head_len: usize,
    encoder: &mut MemberEncoder,
    buffer: &mut Vec<u8>,
) -> Result<CaptureWritten> {
    buffer.clear();
    let ids = options.record_ids;
    let mut index_in_write = 0;
    if current.len == 0 {
        encode_warcinfo(current, &options.warcinfo_fields, capture.date, encoder, buffer)?;
        index_in_write += 1;
    }
    let response_id = ids.next(current.number, current.len, index_in_write);
    let request_id = ids.next(current.number, current.len, index_in_write + 1);
    let response_offset = current.len + buffer.len() as u64;
    let records =
        Records { capture, response_head_len, warcinfo_id: current.warcinfo_id, response_id, request_id };
    let (payload_digest, response_len) = records.encode(encoder, buffer)?;
    let request_offset = response_offset + response_len as u64;
    let end = current.len + buffer.len() as u64;

    let record = |record_id, offset, member_len, payload_digest| WrittenRecord {
        record_id,
        file: current.final_path.clone(),
        offset,
        member_len,
        payload_digest,
    };
    Ok(CaptureWritten {
        response: record(response_id, response_offset, request_offset - response_offset, payload_digest),
        request: record(request_id, request_offset, end - request_offset, None),
    })
}

/// Appends the `warcinfo` record that opens `current` (a new file: it has its id) to `buffer`.
fn encode_warcinfo(
    current: &OpenFile,
    warcinfo_fields: &[(String, String)],
    date: WarcDate,
    encoder: &mut MemberEncoder,
    buffer: &mut Vec<u8>,
) -> Result<()> {
    let Some(warcinfo_id) = current.warcinfo_id else {
        // A continued file always holds records, so only a new file is empty, and a new file
        // is given its warcinfo id when created.
        return Err(WarcError::Compress { reason: "an empty file without a warcinfo id".into() });
    };
    let block = warcinfo_block(warcinfo_fields);
    let fields = vec![
        ("WARC-Type", "warcinfo".to_owned()),
        ("WARC-Record-ID", warcinfo_id.to_string()),
        ("WARC-Date", date.to_string()),
        ("WARC-Filename", file_name(&current.final_path)),
        ("WARC-Block-Digest", Digest::sha1(block.as_bytes()).to_string()),
        ("Content-Type", "application/warc-fields".to_owned()),
    ];
    encode_member(&fields, &[block.as_bytes()], encoder, buffer).map_err(compress_error)
}

/// A capture's two records, with their ids: what both the writer and a [`CaptureEncoder`]
/// encode.
struct Records<'a> {
    capture: &'a Capture<'a>,
    response_head_len: usize,
    warcinfo_id: Option<RecordId>,
    response_id: RecordId,
    request_id: RecordId,
}

impl Records<'_> {
    /// Appends the response (or revisit) member, then the request member, to `out`; returns
    /// the payload digest, if any, and the response member's length.
    fn encode(&self, encoder: &mut MemberEncoder, out: &mut Vec<u8>) -> Result<(Option<Digest>, usize)> {
        let common = CommonFields { capture: self.capture, warcinfo_id: self.warcinfo_id };
        let start = out.len();
        let payload_digest = encode_response(
            &common,
            self.response_id,
            self.request_id,
            self.response_head_len,
            encoder,
            out,
        )?;
        let response_len = out.len() - start;
        let mut request_fields = common.fields("request", self.request_id, self.response_id);
        request_fields.push(("WARC-Block-Digest", Digest::sha1(self.capture.request).to_string()));
        request_fields.push(("Content-Type", "application/http;msgtype=request".to_owned()));
        encode_member(&request_fields, &[self.capture.request], encoder, out).map_err(compress_error)?;
        Ok((payload_digest, response_len))
    }
}

fn compress_error(reason: String) -> WarcError {
    WarcError::Compress { reason }
}

/// The fields every request, response and revisit record carries, in the order written.
struct CommonFields<'a> {
    capture: &'a Capture<'a>,
    warcinfo_id: Option<RecordId>,
}

impl CommonFields<'_> {
    fn fields(
        &self,
        record_type: &str,
        id: RecordId,
        concurrent_to: RecordId,
    ) -> Vec<(&'static str, String)> {
        let mut fields = vec![("WARC-Type", record_type.to_owned()), ("WARC-Record-ID", id.to_string())];
        if let Some(warcinfo_id) = self.warcinfo_id {
            fields.push(("WARC-Warcinfo-ID", warcinfo_id.to_string()));
        }
        fields.push(("WARC-Concurrent-To", concurrent_to.to_string()));
        fields.push(("WARC-Target-URI", self.capture.target_uri.to_owned()));
        fields.push(("WARC-Date", self.capture.date.to_string()));
        if let Some(ip_address) = self.capture.ip_address {
            fields.push(("WARC-IP-Address", ip_address.to_string()));
        }
        fields
    }
}

/// Appends the response or revisit record; returns its payload digest, if it has one.
fn encode_response(
    common: &CommonFields<'_>,
    id: RecordId,
    request_id: RecordId,
    head_len: usize,
    encoder: &mut MemberEncoder,
    out: &mut Vec<u8>,
) -> Result<Option<Digest>> {
    let content_type = ("Content-Type", "application/http;msgtype=response".to_owned());
    match &common.capture.response {
        CaptureResponse::Full { message, truncated } => {
            let payload_digest = Digest::sha1(&message[head_len..]);
            let mut fields = common.fields("response", id, request_id);
            fields.push(("WARC-Block-Digest", Digest::sha1(message).to_string()));
            fields.push(("WARC-Payload-Digest", payload_digest.to_string()));
            if let Some(truncation) = truncated {
                fields.push(("WARC-Truncated", truncation.as_str().to_owned()));
            }
            fields.push(content_type);
            encode_member(&fields, &[message], encoder, out).map_err(compress_error)?;
            Ok(Some(payload_digest))
        }
        CaptureResponse::IdenticalPayload { message, refers_to } => {
            let head = &message[..head_len];
            let payload_digest = Digest::sha1(&message[head_len..]);
            let mut fields = common.fields("revisit", id, request_id);
            fields.push(("WARC-Profile", PROFILE_IDENTICAL_PAYLOAD_DIGEST.to_owned()));
            push_refers_to(&mut fields, refers_to);
            fields.push(("WARC-Block-Digest", Digest::sha1(head).to_string()));
            fields.push(("WARC-Payload-Digest", payload_digest.to_string()));
            fields.push(content_type);
            encode_member(&fields, &[head], encoder, out).map_err(compress_error)?;
            Ok(Some(payload_digest))
        }
        CaptureResponse::NotModified { message, refers_to } => {
            let mut fields = common.fields("revisit", id, request_id);
            fields.push(("WARC-Profile", PROFILE_SERVER_NOT_MODIFIED.to_owned()));
            push_refers_to(&mut fields, refers_to);
            fields.push(("WARC-Block-Digest", Digest::sha1(message).to_string()));
            fields.push(content_type);
            encode_member(&fields, &[message], encoder, out).map_err(compress_error)?;
            Ok(None)
        }
    }
}

fn push_refers_to(fields: &mut Vec<(&'static str, String)>, refers_to: &RefersTo<'_>) {
    if let Some(record_id) = refers_to.record_id {
        fields.push(("WARC-Refers-To", record_id.to_string()));
    }
    fields.push(("WARC-Refers-To-Target-URI", refers_to.target_uri.to_owned()));
    fields.push(("WARC-Refers-To-Date", refers_to.date.to_string()));
}

/// The `application/warc-fields` block of a `warcinfo` record (WARC 1.1 Annex B.1).
fn warcinfo_block(extra_fields: &[(String, String)]) -> String {
    let defaults = [
        ("software", concat!("freshet-warc/", env!("CARGO_PKG_VERSION"))),
        ("format", "WARC File Format 1.1"),
        ("conformsTo", "http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"),
    ];
    let mut block = String::new();
    for (name, value) in defaults {
        if !extra_fields.iter().any(|(extra, _)| extra.eq_ignore_ascii_case(name)) {
            block.push_str(&format!("{name}: {value}\r\n"));
        }
    }
    for (name, value) in extra_fields {
        block.push_str(&format!("{name}: {value}\r\n"));
    }
    block
}

fn validate_options(options: &WriterOptions) -> Result<()> {
    let prefix_ok = !options.prefix.is_empty()
        && !options.prefix.starts_with('.')
        && options.prefix.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !prefix_ok {
        return Err(WarcError::InvalidOption {
            option: "prefix",
            reason: format!("{:?}: use ASCII letters, digits, '-', '_' and '.' (not first)", options.prefix),
        });
    }
    if options.gzip_level > 9 {
        return Err(WarcError::InvalidOption {
            option: "gzip_level",
            reason: format!("{} is not in 0..=9", options.gzip_level),
        });
    }
    if options.max_file_bytes == 0 {
        return Err(WarcError::InvalidOption { option: "max_file_bytes", reason: "must be positive".into() });
    }
    for (name, value) in &options.warcinfo_fields {
        let name_ok = !name.is_empty() && name.chars().all(|c| c.is_ascii_graphic() && c != ':');
        if !name_ok {
            return Err(WarcError::InvalidOption {
                option: "warcinfo_fields",
                reason: format!("field name {name:?} must be printable ASCII without ':' or spaces"),
            });
        }
        if value.contains(['\r', '\n']) {
            return Err(WarcError::InvalidOption {
                option: "warcinfo_fields",
                reason: format!("value of {name:?} contains a line break"),
            });
        }
    }
    Ok(())
}

/// A URI written in a header field: non-empty, with no whitespace or control character (which
/// would break or inject header lines; WARC 1.1 §5.2 writes URIs bare, without angle brackets).
fn validate_uri(field: &'static str, uri: &str) -> Result<()> {
    if uri.is_empty() {
        return Err(WarcError::InvalidField { field, reason: "empty".into() });
    }
    if let Some(bad) = uri.chars().find(|c| c.is_whitespace() || c.is_control()) {
        return Err(WarcError::InvalidField {
            field,
            reason: format!("{uri:?} contains {bad:?}; percent-encode it"),
        });
    }
    Ok(())
}

/// `PREFIX-NNNNN.warc.gz.open` and `PREFIX-NNNNN.warc.gz`.
fn file_paths(dir: &Path, prefix: &str, number: u32) -> (PathBuf, PathBuf) {
    let final_name = format!("{prefix}-{number:05}.warc.gz");
    (dir.join(format!("{final_name}.open")), dir.join(final_name))
}

fn file_name(path: &Path) -> String {
    path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default()
}

/// The numbers of the prefix's `.open` files (ascending) and the highest number of any file.
fn list_files(dir: &Path, prefix: &str) -> Result<(Vec<u32>, Option<u32>)> {
    let mut open_numbers = Vec::new();
    let mut highest: Option<u32> = None;
    for entry in fs::read_dir(dir).map_err(io_error("read directory", dir))? {
        let entry = entry.map_err(io_error("read directory", dir))?;
        let name = entry.file_name();
        let Some((number, is_open)) = name.to_str().and_then(|name| parse_file_name(name, prefix)) else {
            continue;
        };
        highest = highest.max(Some(number));
        if is_open {
            open_numbers.push(number);
        }
    }
    open_numbers.sort_unstable();
    Ok((open_numbers, highest))
}

/// `Some((number, is_open))` when `name` is one of the prefix's files.
fn parse_file_name(name: &str, prefix: &str) -> Option<(u32, bool)> {
    let rest = name.strip_prefix(prefix)?.strip_prefix('-')?;
    let (digits, is_open) = match rest.strip_suffix(".warc.gz.open") {
        Some(digits) => (digits, true),
        None => (rest.strip_suffix(".warc.gz")?, false),
    };
    if digits.len() < 5 || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    Some((digits.parse().ok()?, is_open))
}

fn rename_to_final(open_path: &Path, final_path: &Path, dir: &Path) -> Result<()> {
    if final_path.exists() {
        return Err(WarcError::Io {
            action: "rename",
            path: open_path.to_owned(),
            source: std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                format!("{} exists already", final_path.display()),
            ),
        });
    }
    fs::rename(open_path, final_path).map_err(io_error("rename", open_path))?;
    sync_dir(dir)
}

/// Makes a directory's entries (a new file, a rename) durable.
fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir).and_then(|handle| handle.sync_all()).map_err(io_error("sync directory", dir))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn parses_only_the_prefix_s_file_names() {
        assert_eq!(parse_file_name("crawl-00012.warc.gz", "crawl"), Some((12, false)));
        assert_eq!(parse_file_name("crawl-123456.warc.gz.open", "crawl"), Some((123_456, true)));
        assert_eq!(parse_file_name("crawl-12.warc.gz", "crawl"), None);
        assert_eq!(parse_file_name("crawl-x-00012.warc.gz", "crawl"), None);
        assert_eq!(parse_file_name("other-00012.warc.gz", "crawl"), None);
        assert_eq!(parse_file_name("crawl-00012.warc", "crawl"), None);
    }

    #[test]
    fn refuses_bad_options() {
        let bad = [
            WriterOptions { prefix: "a/b".into(), ..WriterOptions::default() },
            WriterOptions { prefix: String::new(), ..WriterOptions::default() },
            WriterOptions { gzip_level: 10, ..WriterOptions::default() },
            WriterOptions { max_file_bytes: 0, ..WriterOptions::default() },
            WriterOptions {
                warcinfo_fields: vec![("a".into(), "x\r\ny".into())],
                ..WriterOptions::default()
            },
            WriterOptions { warcinfo_fields: vec![("a b".into(), "x".into())], ..WriterOptions::default() },
        ];
        for options in bad {
            assert!(
                matches!(validate_options(&options), Err(WarcError::InvalidOption { .. })),
                "{options:?}"
            );
        }
    }

    #[test]
    fn refuses_uris_that_would_break_a_header_line() {
        assert!(validate_uri("WARC-Target-URI", "http://a.test/x?y=1").is_ok());
        for bad in ["", "http://a.test/ x", "http://a.test/\r\nX: y", "http://a.test/\t"] {
            assert!(
                matches!(validate_uri("WARC-Target-URI", bad), Err(WarcError::InvalidField { .. })),
                "{bad:?}"
            );
        }
    }
}
