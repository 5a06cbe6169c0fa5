//! `Digest`: a SHA-1 digest written as WARC tools expect, `sha1:` followed by the 32-character
//! RFC 4648 base32 of the 20 bytes (WARC 1.1 §5.8–5.9; the form Heritrix, wget and warcio write).

use std::fmt;

use sha1::{Digest as _, Sha1};

/// A SHA-1 digest of a record block or an HTTP payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Digest([u8; 20]);

impl Digest {
    /// The SHA-1 of `bytes`.
    pub fn sha1(bytes: &[u8]) -> Self {
        Self(Sha1::digest(bytes).into())
    }

    /// The SHA-1 of the concatenation of `parts`, without copying them together.
    pub fn sha1_of_parts(parts: &[&[u8]]) -> Self {
        let mut hasher = Sha1::new();
        for part in parts {
            hasher.update(part);
        }
        Self(hasher.finalize().into())
    }

    /// The 20 raw bytes.
    pub fn bytes(&self) -> [u8; 20] {
        self.0
    }

    /// The digest whose raw bytes are `bytes` (as [`Digest::bytes`] gave them).
    pub fn from_bytes(bytes: [u8; 20]) -> Self {
        Self(bytes)
    }

    /// The `WARC-Payload-Digest` a `response` record of this HTTP message gets: the SHA-1 of
    /// the bytes after its header block, exactly as the writer computes it, so that a caller
    /// can tell an identical payload before it writes anything. `None` when the message has no
    /// end of header block (the writer refuses it too).
    pub fn of_http_payload(message: &[u8]) -> Option<Self> {
        crate::record::http_head_len(message).map(|head_len| Self::sha1(&message[head_len..]))
    }

    /// Parses `sha1:BASE32` (the form this crate writes); `None` for anything else.
    pub fn parse(text: &str) -> Option<Self> {
        let encoded = text.strip_prefix("sha1:")?;
        let decoded = data_encoding::BASE32.decode(encoded.as_bytes()).ok()?;
        Some(Self(decoded.try_into().ok()?))
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "sha1:{}", data_encoding::BASE32.encode(&self.0))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn empty_input_has_the_well_known_base32_digest() {
        // SHA-1("") = da39a3ee5e6b4b0d3255bfef95601890afd80709, whose base32 is this.
        assert_eq!(Digest::sha1(b"").to_string(), "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ");
    }

    #[test]
    fn the_http_payload_is_what_follows_the_header_block() {
        let message = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nhello";
        assert_eq!(Digest::of_http_payload(message), Some(Digest::sha1(b"hello")));
        assert_eq!(Digest::of_http_payload(b"HTTP/1.1 200 OK\n\nbare"), Some(Digest::sha1(b"bare")));
        assert_eq!(Digest::of_http_payload(b"HTTP/1.1 200 OK\r\nno end"), None);
        let digest = Digest::sha1(b"x");
        assert_eq!(Digest::from_bytes(digest.bytes()), digest);
    }

    #[test]
    fn parts_hash_as_their_concatenation_and_the_text_round_trips() {
        let whole = Digest::sha1(b"hello world");
        assert_eq!(Digest::sha1_of_parts(&[b"hello", b" ", b"world"]), whole);
        assert_eq!(Digest::parse(&whole.to_string()), Some(whole));
        assert_eq!(Digest::parse("md5:AAAA"), None);
    }
}
