//! `WarcReader`: iterates the records of a `.warc.gz` member by member, with each record's parsed
//! header, its block, and where its gzip member lies in the file. Small on purpose: for tests,
//! recovery and the future `freshet` tools, not a general WARC library (no uncompressed WARC, no
//! ARC, no multi-record members).

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use flate2::bufread::GzDecoder;

use crate::error::{Result, WarcError, io_error};
use crate::record::{WarcHeader, http_head_len, parse_record};

/// One record read back.
#[derive(Clone, Debug)]
pub struct Record {
    /// The WARC header.
    pub header: WarcHeader,
    /// The block: `Content-Length` bytes (for `response`, the HTTP message as received).
    pub block: Vec<u8>,
    /// Offset of the record's gzip member in the compressed file.
    pub offset: u64,
    /// Length of the gzip member in the compressed file.
    pub member_len: u64,
}

impl Record {
    /// For an `application/http` block, the HTTP header block (status or request line, headers
    /// and the blank line); `None` when the block has no blank line.
    pub fn http_head(&self) -> Option<&[u8]> {
        http_head_len(&self.block).map(|len| &self.block[..len])
    }

    /// For an `application/http` block, the bytes after the HTTP header block (the payload the
    /// `WARC-Payload-Digest` covers); `None` when the block has no blank line.
    pub fn http_payload(&self) -> Option<&[u8]> {
        http_head_len(&self.block).map(|len| &self.block[len..])
    }
}

/// Iterates the records of a gzip-per-record WARC file; stops after the first error.
pub struct WarcReader<R> {
    input: CountingReader<BufReader<R>>,
    path: Option<PathBuf>,
    failed: bool,
}

impl WarcReader<File> {
    /// Reads the file at `path`; errors name it.
    pub fn open(path: &Path) -> Result<Self> {
        let file = File::open(path).map_err(io_error("open", path))?;
        let mut reader = Self::new(file);
        reader.path = Some(path.to_owned());
        Ok(reader)
    }
}

impl<R: Read> WarcReader<R> {
    /// Reads records from `input`, whose first byte is the first byte of a gzip member.
    pub fn new(input: R) -> Self {
        Self {
            input: CountingReader::new(BufReader::with_capacity(64 * 1024, input)),
            path: None,
            failed: false,
        }
    }

    /// Compressed bytes consumed so far: the end of the last record read.
    pub fn offset(&self) -> u64 {
        self.input.consumed
    }
}

impl<R: Read> Iterator for WarcReader<R> {
    type Item = Result<Record>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        match read_member(&mut self.input) {
            Ok(Some(record)) => Some(Ok(record)),
            Ok(None) => None,
            Err(MemberError { offset, reason }) => {
                self.failed = true;
                Some(Err(WarcError::BadRecord { path: self.path.clone(), offset, reason }))
            }
        }
    }
}

/// Why the member at `offset` is not a valid record.
#[derive(Debug)]
pub(crate) struct MemberError {
    pub(crate) offset: u64,
    pub(crate) reason: String,
}

/// Reads one gzip member at the reader's position and checks it holds one valid record; `None`
/// at a clean end of input. On success the reader stands exactly at the next member.
pub(crate) fn read_member<R: BufRead>(
    input: &mut CountingReader<R>,
) -> std::result::Result<Option<Record>, MemberError> {
    let offset = input.consumed;
    let fail = |reason: String| MemberError { offset, reason };
    match input.fill_buf() {
        Ok([]) => return Ok(None),
        Ok(_) => {}
        Err(error) => return Err(fail(format!("read failed: {error}"))),
    }
    let mut bytes = Vec::new();
    // `bufread::GzDecoder` decodes one member and consumes exactly its bytes, checking its CRC-32
    // and length trailer, so a torn member is an error here, never a short record.
    GzDecoder::new(&mut *input)
        .read_to_end(&mut bytes)
        .map_err(|error| fail(format!("gzip member does not decode: {error}")))?;
    let (header, block) = parse_record(bytes).map_err(fail)?;
    Ok(Some(Record { header, block, offset, member_len: input.consumed - offset }))
}

/// A buffered reader that counts the bytes its consumer has taken.
pub(crate) struct CountingReader<R> {
    inner: R,
    pub(crate) consumed: u64,
}

impl<R> CountingReader<R> {
    pub(crate) fn new(inner: R) -> Self {
        Self { inner, consumed: 0 }
    }
}

impl<R: BufRead> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let read = self.inner.read(buf)?;
        self.consumed += read as u64;
        Ok(read)
    }
}

impl<R: BufRead> BufRead for CountingReader<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amount: usize) {
        self.consumed += amount as u64;
        self.inner.consume(amount);
    }
}
