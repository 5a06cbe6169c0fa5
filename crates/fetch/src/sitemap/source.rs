//! The bytes a sitemap parser reads: gzip recognised by its magic bytes (RFC 1952 §2.3.1:
//! `1f 8b`), never by the file name, inflated as a stream by `flate2`; and every byte, raw or
//! inflated, counted against the uncompressed cap, so a gzip bomb ends at the cap after
//! inflating at most the cap, with nothing larger ever allocated.

use std::io::{self, Read};

use flate2::read::MultiGzDecoder;

/// The gzip magic bytes (RFC 1952 §2.3.1, ID1 and ID2).
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The body as a stream of uncompressed bytes.
pub(super) enum Body<'a> {
    /// Not compressed.
    Plain(&'a [u8]),
    /// A gzip file (one or more members, RFC 1952 §2.2).
    Gzip(Box<MultiGzDecoder<&'a [u8]>>),
}

impl<'a> Body<'a> {
    /// Wraps `body`, inflating it if it starts with the gzip magic bytes.
    pub(super) fn new(body: &'a [u8]) -> Self {
        if body.starts_with(&GZIP_MAGIC) {
            Self::Gzip(Box::new(MultiGzDecoder::new(body)))
        } else {
            Self::Plain(body)
        }
    }

    /// Whether the body is gzip.
    pub(super) fn is_gzip(&self) -> bool {
        matches!(self, Self::Gzip(_))
    }
}

impl Read for Body<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Self::Plain(bytes) => bytes.read(buf),
            Self::Gzip(decoder) => decoder.read(buf),
        }
    }
}

/// A reader that ends after `limit` bytes and remembers whether more were there (probed by
/// reading one byte past the limit, never more).
pub(super) struct CappedReader<R> {
    inner: R,
    remaining: u64,
    /// Bytes handed out so far.
    pub(super) read: u64,
    /// Whether the input went on past the limit.
    pub(super) exceeded: bool,
    /// The first read error of the inner reader (for gzip: corrupt data or a bad trailer).
    pub(super) failed: Option<String>,
}

impl<R: Read> CappedReader<R> {
    pub(super) fn new(inner: R, limit: u64) -> Self {
        Self { inner, remaining: limit, read: 0, exceeded: false, failed: None }
    }
}

impl<R: Read> Read for CappedReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() || self.exceeded || self.failed.is_some() {
            return Ok(0);
        }
        if self.remaining == 0 {
            let mut probe = [0u8; 1];
            match self.inner.read(&mut probe) {
                Ok(0) => {}
                Ok(_) => self.exceeded = true,
                Err(error) => self.failed = Some(error.to_string()),
            }
            return Ok(0);
        }
        let want = buf.len().min(usize::try_from(self.remaining).unwrap_or(usize::MAX));
        match self.inner.read(&mut buf[..want]) {
            Ok(n) => {
                self.remaining -= n as u64;
                self.read += n as u64;
                Ok(n)
            }
            // Interrupted is retried by the callers' read loops; anything else ends the input
            // here and is reported as how the file stopped.
            Err(error) if error.kind() == io::ErrorKind::Interrupted => Err(error),
            Err(error) => {
                self.failed = Some(error.to_string());
                Ok(0)
            }
        }
    }
}

/// What the first bytes of a file look like, after a UTF-8 byte order mark and whitespace.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Sniffed {
    /// Starts with `<` (or is only whitespace so far): XML, HTML, or a feed.
    Markup,
    /// Starts with `http://` or `https://` (any case): the plain-text format.
    TextUrls,
    /// Nothing at all.
    Empty,
    /// Control bytes or invalid UTF-8.
    Binary,
    /// Text that is neither markup nor a URL: the first characters.
    OtherText(String),
}

/// Classifies the first buffered bytes of a file.
pub(super) fn sniff(head: &[u8]) -> Sniffed {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let start = head.iter().position(|b| !b.is_ascii_whitespace());
    let Some(start) = start else { return if head.is_empty() { Sniffed::Empty } else { Sniffed::Markup } };
    let rest = &head[start..];
    if rest[0] == b'<' {
        return Sniffed::Markup;
    }
    let starts_with =
        |prefix: &[u8]| rest.len() >= prefix.len() && rest[..prefix.len()].eq_ignore_ascii_case(prefix);
    if starts_with(b"http://") || starts_with(b"https://") {
        return Sniffed::TextUrls;
    }
    let sample = &rest[..rest.len().min(512)];
    let text = match std::str::from_utf8(sample) {
        Ok(text) => text,
        // A sequence cut at the sample's end is not binary.
        Err(error) if error.error_len().is_none() => {
            std::str::from_utf8(&sample[..error.valid_up_to()]).unwrap_or("")
        }
        Err(_) => return Sniffed::Binary,
    };
    if text.chars().any(|c| c.is_control() && !c.is_ascii_whitespace()) {
        return Sniffed::Binary;
    }
    Sniffed::OtherText(text.chars().take(40).collect())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::io::Write as _;

    use super::*;

    #[test]
    fn gzip_is_recognised_by_magic_bytes_only() {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(b"<urlset/>").unwrap();
        let gz = encoder.finish().unwrap();
        let mut body = Body::new(&gz);
        assert!(body.is_gzip());
        let mut text = String::new();
        body.read_to_string(&mut text).unwrap();
        assert_eq!(text, "<urlset/>");
        assert!(!Body::new(b"<urlset/>").is_gzip());
        assert!(!Body::new(b"\x1f").is_gzip());
    }

    #[test]
    fn the_cap_stops_reading_and_says_there_was_more() {
        let mut capped = CappedReader::new(&b"0123456789"[..], 4);
        let mut out = Vec::new();
        capped.read_to_end(&mut out).unwrap();
        assert_eq!((out.as_slice(), capped.read, capped.exceeded), (&b"0123"[..], 4, true));
        let mut exact = CappedReader::new(&b"0123"[..], 4);
        out.clear();
        exact.read_to_end(&mut out).unwrap();
        assert_eq!((out.len(), exact.exceeded), (4, false));
    }

    #[test]
    fn sniffing() {
        assert_eq!(sniff(b""), Sniffed::Empty);
        assert_eq!(sniff(b"  \n"), Sniffed::Markup);
        assert_eq!(sniff(b"\xEF\xBB\xBF <?xml"), Sniffed::Markup);
        assert_eq!(sniff(b"\nHTTPS://a.test/\n"), Sniffed::TextUrls);
        assert_eq!(sniff(b"\x00\x00\x00"), Sniffed::Binary);
        assert_eq!(sniff(b"\xff\xfe<\x00"), Sniffed::Binary);
        assert_eq!(sniff(b"User-agent: *"), Sniffed::OtherText("User-agent: *".into()));
    }
}
