//! Recovery after `kill -9` (or a power cut): find the longest prefix of complete, valid records
//! in a file, and cut the torn tail that a writer killed mid-write leaves behind.
//!
//! A record is valid when its gzip member decompresses fully (CRC-32 and length trailer checked)
//! and holds exactly one WARC record whose `Content-Length` matches its block. The writer appends
//! whole records with one `write` call, so a killed writer leaves at most one partial member at
//! the end of the file; a power cut may also leave zeros there. Both are a *torn tail*: nothing
//! valid follows the first invalid byte. Damage followed by a valid record is something else
//! (a disk fault, a foreign tool), and recovery then refuses with
//! [`WarcError::CorruptBeforeEnd`] and truncates nothing, since that would lose stored records.

use std::fs::{File, OpenOptions};
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::error::{Result, WarcError, io_error};
use crate::reader::{CountingReader, read_member};
use crate::record_id::RecordId;

/// What a scan found in one file (nothing is changed by a scan).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileScan {
    /// The file.
    pub path: PathBuf,
    /// Complete, valid records at the start of the file.
    pub records: u64,
    /// Bytes those records take: where the first invalid byte, if any, begins.
    pub valid_len: u64,
    /// The file's length.
    pub file_len: u64,
    /// Why the member at `valid_len` is invalid, when `valid_len < file_len`.
    pub damage: Option<String>,
    /// `WARC-Type` and id of the first record (the writer puts a `warcinfo` there).
    pub first_record: Option<(String, Option<RecordId>)>,
}

/// What recovery did to one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileRecovery {
    /// The file.
    pub path: PathBuf,
    /// Complete, valid records kept.
    pub records_kept: u64,
    /// The file's length after recovery.
    pub valid_len: u64,
    /// Bytes cut from the end (0 when the file was whole).
    pub bytes_cut: u64,
    /// Records cut: 1 when the cut tail began with a gzip header (a record whose write was torn),
    /// 0 when nothing was cut or the tail held no record's start (zeros left by a power cut).
    pub records_cut: u64,
    /// Why the first cut byte was not a valid record, when something was cut.
    pub damage: Option<String>,
    /// `WARC-Type` and id of the first kept record.
    pub first_record: Option<(String, Option<RecordId>)>,
}

/// The gzip magic and the deflate method byte that open every member (RFC 1952 §2.3.1).
const GZIP_MEMBER_START: [u8; 3] = [0x1f, 0x8b, 0x08];

/// Reads `path` record by record and reports its longest valid prefix, changing nothing.
pub fn scan_file(path: &Path) -> Result<FileScan> {
    let file = File::open(path).map_err(io_error("open", path))?;
    let file_len = file.metadata().map_err(io_error("stat", path))?.len();
    let mut input = CountingReader::new(BufReader::with_capacity(64 * 1024, file));
    let mut records = 0;
    let mut first_record = None;
    let damage = loop {
        match read_member(&mut input) {
            Ok(Some(record)) => {
                if first_record.is_none() {
                    let record_type = record.header.record_type().unwrap_or_default().to_owned();
                    first_record = Some((record_type, record.header.record_id()));
                }
                records += 1;
            }
            Ok(None) => break None,
            Err(error) => break Some(error),
        }
    };
    let (valid_len, damage) = match damage {
        Some(error) => (error.offset, Some(error.reason)),
        None => (input.consumed, None),
    };
    Ok(FileScan { path: path.to_owned(), records, valid_len, file_len, damage, first_record })
}

/// Keeps the longest prefix of valid records of `path` and truncates the torn tail (then syncs
/// the file), or refuses with [`WarcError::CorruptBeforeEnd`] when a valid record follows the
/// damage.
pub fn recover_file(path: &Path) -> Result<FileRecovery> {
    let scan = scan_file(path)?;
    let bytes_cut = scan.file_len - scan.valid_len;
    let mut records_cut = 0;
    if bytes_cut > 0 {
        if let Some(next_valid_offset) = find_valid_member_after(path, scan.valid_len, scan.file_len)? {
            return Err(WarcError::CorruptBeforeEnd {
                path: path.to_owned(),
                offset: scan.valid_len,
                next_valid_offset,
            });
        }
        records_cut = u64::from(tail_starts_a_member(path, scan.valid_len)?);
        let file =
            OpenOptions::new().write(true).open(path).map_err(io_error("open for truncation", path))?;
        file.set_len(scan.valid_len).map_err(io_error("truncate", path))?;
        file.sync_all().map_err(io_error("sync", path))?;
    }
    Ok(FileRecovery {
        path: scan.path,
        records_kept: scan.records,
        valid_len: scan.valid_len,
        bytes_cut,
        records_cut,
        damage: scan.damage,
        first_record: scan.first_record,
    })
}

fn tail_starts_a_member(path: &Path, offset: u64) -> Result<bool> {
    let mut file = File::open(path).map_err(io_error("open", path))?;
    file.seek(SeekFrom::Start(offset)).map_err(io_error("seek", path))?;
    let mut first_byte = [0u8; 1];
    let read = file.read(&mut first_byte).map_err(io_error("read", path))?;
    Ok(read == 1 && first_byte[0] == GZIP_MEMBER_START[0])
}

/// The offset of the first valid record whose member starts after `damage_offset`, if any:
/// tries every place where a gzip member header begins.
fn find_valid_member_after(path: &Path, damage_offset: u64, file_len: u64) -> Result<Option<u64>> {
    let mut file = File::open(path).map_err(io_error("open", path))?;
    let mut chunk = vec![0u8; 1 << 20];
    let mut chunk_start = damage_offset + 1;
    while chunk_start < file_len {
        file.seek(SeekFrom::Start(chunk_start)).map_err(io_error("seek", path))?;
        let read = read_up_to(&mut file, &mut chunk).map_err(io_error("read", path))?;
        let data = &chunk[..read];
        for (index, window) in data.windows(GZIP_MEMBER_START.len()).enumerate() {
            if window == GZIP_MEMBER_START {
                let candidate = chunk_start + index as u64;
                if member_is_valid_at(path, candidate)? {
                    return Ok(Some(candidate));
                }
            }
        }
        if read < chunk.len() {
            break;
        }
        // Overlap by the header's length less one, so a header across two chunks is seen.
        chunk_start += (read - (GZIP_MEMBER_START.len() - 1)) as u64;
    }
    Ok(None)
}

fn member_is_valid_at(path: &Path, offset: u64) -> Result<bool> {
    let mut file = File::open(path).map_err(io_error("open", path))?;
    file.seek(SeekFrom::Start(offset)).map_err(io_error("seek", path))?;
    let mut input = CountingReader::new(BufReader::new(file));
    Ok(matches!(read_member(&mut input), Ok(Some(_))))
}

fn read_up_to(file: &mut File, buffer: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match file.read(&mut buffer[filled..])? {
            0 => break,
            read => filled += read,
        }
    }
    Ok(filled)
}
