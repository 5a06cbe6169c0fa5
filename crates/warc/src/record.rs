//! The WARC record itself: its header (version line and named fields, WARC 1.1 §4 and §5), the
//! block, and their encoding as one gzip member (WARC 1.1 Annex D.2: "each record … in its own
//! gzip member"), plus the parser that checks a decompressed member holds exactly one record.

use crate::digest::Digest;
use crate::gzip::MemberEncoder;
use crate::record_id::RecordId;

/// The version line this crate writes.
pub const WARC_VERSION: &str = "WARC/1.1";

/// The parsed header of a record: its version line and its fields in file order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WarcHeader {
    version: String,
    fields: Vec<(String, String)>,
}

impl WarcHeader {
    /// The version line, e.g. `WARC/1.1`.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// Every field as `(name, value)`, in file order, continuation lines joined.
    pub fn fields(&self) -> &[(String, String)] {
        &self.fields
    }

    /// The first field named `name` (field names are case-insensitive, WARC 1.1 §4).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(field, _)| field.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// Every value of the fields named `name` (WARC-Concurrent-To may repeat).
    pub fn get_all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.fields
            .iter()
            .filter(move |(field, _)| field.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// `WARC-Type` (`warcinfo`, `request`, `response`, `revisit`, …).
    pub fn record_type(&self) -> Option<&str> {
        self.get("WARC-Type")
    }

    /// `WARC-Record-ID`, when present and well-formed.
    pub fn record_id(&self) -> Option<RecordId> {
        self.get("WARC-Record-ID").and_then(RecordId::parse)
    }

    /// `Content-Length`, when present and a number.
    pub fn content_length(&self) -> Option<u64> {
        self.get("Content-Length").and_then(|value| value.trim().parse().ok())
    }

    /// `WARC-Payload-Digest`, when present and `sha1:BASE32`.
    pub fn payload_digest(&self) -> Option<Digest> {
        self.get("WARC-Payload-Digest").and_then(Digest::parse)
    }
}

/// Appends one gzip member holding the record `fields` + `block` to `out`. The field values have
/// been checked by the caller (no line breaks); `Content-Length` is the last field written.
pub(crate) fn encode_member(
    fields: &[(&str, String)],
    block: &[&[u8]],
    encoder: &mut MemberEncoder,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    let block_len: usize = block.iter().map(|part| part.len()).sum();
    let mut header = String::with_capacity(512);
    header.push_str(WARC_VERSION);
    header.push_str("\r\n");
    for (name, value) in fields {
        header.push_str(name);
        header.push_str(": ");
        header.push_str(value);
        header.push_str("\r\n");
    }
    header.push_str("Content-Length: ");
    header.push_str(&block_len.to_string());
    header.push_str("\r\n\r\n");

    let mut parts: Vec<&[u8]> = Vec::with_capacity(block.len() + 2);
    parts.push(header.as_bytes());
    parts.extend_from_slice(block);
    parts.push(b"\r\n\r\n");
    encoder.encode(&parts, out)
}

/// Splits a decompressed member into its header and block, checking that it holds exactly one
/// record: a `WARC/` version line, `name: value` fields, a blank line, `Content-Length` bytes of
/// block, then the record's closing `\r\n\r\n` and nothing else.
pub(crate) fn parse_record(mut bytes: Vec<u8>) -> Result<(WarcHeader, Vec<u8>), String> {
    let header_end = find(&bytes, b"\r\n\r\n").ok_or("no blank line ends the WARC header")?;
    let header_text = std::str::from_utf8(&bytes[..header_end])
        .map_err(|error| format!("WARC header is not UTF-8: {error}"))?;
    let mut lines = header_text.split("\r\n");
    let version = lines.next().unwrap_or_default();
    if !version.starts_with("WARC/1.") {
        return Err(format!("version line is {:?}, not WARC/1.x", truncate_for_message(version)));
    }
    let mut fields: Vec<(String, String)> = Vec::new();
    for line in lines {
        if line.starts_with([' ', '\t']) {
            let (_, value) = fields.last_mut().ok_or("continuation line before any field")?;
            value.push(' ');
            value.push_str(line.trim());
        } else {
            let (name, value) = line
                .split_once(':')
                .ok_or_else(|| format!("header line {:?} has no colon", truncate_for_message(line)))?;
            fields.push((name.trim().to_owned(), value.trim().to_owned()));
        }
    }
    let header = WarcHeader { version: version.to_owned(), fields };
    let content_length = header.content_length().ok_or("no numeric Content-Length")?;
    let block_start = header_end + 4;
    let available = (bytes.len() - block_start) as u64;
    if available < content_length + 4 {
        return Err(format!(
            "Content-Length is {content_length} but the member holds {available} bytes after the header \
             (block plus the closing CRLF CRLF)"
        ));
    }
    // Both fit in usize: they are within `bytes`.
    let block_end = block_start + content_length as usize;
    if &bytes[block_end..] != b"\r\n\r\n" {
        return Err(format!(
            "the block is not followed by exactly CRLF CRLF ({} bytes follow it)",
            bytes.len() - block_end
        ));
    }
    bytes.truncate(block_end);
    bytes.drain(..block_start);
    Ok((header, bytes))
}

/// Length of the HTTP header block of `message`: up to and including the first blank line,
/// `\r\n\r\n` or a bare `\n\n` (RFC 9112 §2.2 lets recipients accept bare LF). `None` when there
/// is no blank line.
pub(crate) fn http_head_len(message: &[u8]) -> Option<usize> {
    let mut position = 0;
    while let Some(newline) = message[position..].iter().position(|&byte| byte == b'\n') {
        let after = position + newline + 1;
        match &message[after..] {
            [b'\n', ..] => return Some(after + 1),
            [b'\r', b'\n', ..] => return Some(after + 2),
            _ => position = after,
        }
    }
    None
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|window| window == needle)
}

fn truncate_for_message(text: &str) -> &str {
    match text.char_indices().nth(80) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::io::Read;

    use super::*;

    fn decompress(member: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(member).read_to_end(&mut out).unwrap();
        out
    }

    #[test]
    fn encodes_the_exact_record_text_and_parses_it_back() {
        let mut member = Vec::new();
        encode_member(
            &[("WARC-Type", "resource".into())],
            &[b"ab", b"c"],
            &mut MemberEncoder::new(6),
            &mut member,
        )
        .unwrap();
        let text = decompress(&member);
        assert_eq!(text, b"WARC/1.1\r\nWARC-Type: resource\r\nContent-Length: 3\r\n\r\nabc\r\n\r\n");
        let (header, block) = parse_record(text).unwrap();
        assert_eq!(header.version(), "WARC/1.1");
        assert_eq!(header.record_type(), Some("resource"));
        assert_eq!(header.get("content-length"), Some("3"));
        assert_eq!(block, b"abc");
    }

    #[test]
    fn joins_continuation_lines() {
        let text = b"WARC/1.1\r\nX-Long: one\r\n  two\r\nContent-Length: 0\r\n\r\n\r\n\r\n".to_vec();
        let (header, block) = parse_record(text).unwrap();
        assert_eq!(header.get("x-long"), Some("one two"));
        assert!(block.is_empty());
    }

    #[test]
    fn refuses_a_wrong_length_trailing_data_or_a_bad_version() {
        let cases: [&[u8]; 4] = [
            b"WARC/1.1\r\nContent-Length: 5\r\n\r\nabc\r\n\r\n",
            b"WARC/1.1\r\nContent-Length: 1\r\n\r\nabc\r\n\r\n",
            b"HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc\r\n\r\n",
            b"WARC/1.1\r\nContent-Length: x\r\n\r\nabc\r\n\r\n",
        ];
        for case in cases {
            assert!(parse_record(case.to_vec()).is_err(), "{}", String::from_utf8_lossy(case));
        }
    }

    #[test]
    fn finds_the_end_of_http_headers_with_crlf_or_bare_lf() {
        assert_eq!(http_head_len(b"HTTP/1.1 200 OK\r\nA: b\r\n\r\nbody"), Some(25));
        assert_eq!(http_head_len(b"HTTP/1.1 200 OK\nA: b\n\nbody"), Some(22));
        assert_eq!(http_head_len(b"HTTP/1.1 200 OK\r\n\r\n"), Some(19));
        assert_eq!(http_head_len(b"HTTP/1.1 200 OK\r\nA: b\r\n"), None);
    }
}
