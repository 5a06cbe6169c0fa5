//! Percent-encoding normalisation of URL paths and rule patterns before they are compared
//! (RFC 9309 §2.2.2).
//!
//! The RFC asks for two things, on both sides of the comparison:
//!
//! 1. "Octets in the URI and robots.txt paths outside the range of the ASCII coded character
//!    set […] MUST be percent-encoded": a raw `ツ` becomes `%E3%83%84`. We also encode ASCII
//!    control octets, space and DEL, which cannot appear raw in a URI either.
//! 2. "If a percent-encoded ASCII octet is encountered in the URI, it MUST be unencoded prior to
//!    comparison, unless it is a reserved character": `%62%61%7A` becomes `baz`, `%2F` stays
//!    `%2F` (RFC 3986 §2.2: decoding a reserved character changes the URI). Escapes that stay
//!    are written with upper-case hex digits (RFC 3986 §6.2.2.1), so `%2f` and `%2F` compare
//!    equal.
//!
//! Two further choices:
//!
//! - `%2A` and `%24` are decoded to `*` and `$` (both reserved). In a pattern they are the way
//!   to write a literal `*` or `$` rather than the wildcard or the end anchor (RFC 9309 §2.2.3:
//!   "If crawlers match special characters verbatim in the URI, crawlers SHOULD use "%"
//!   encoding"), so `Disallow: /a%2A` must block `/a*`; decoding them in the path as well makes
//!   `/a*` and `/a%2A` equal, which is what a site writing `%2A` means.
//! - The RFC's example table also percent-encodes the reserved characters inside a query value
//!   (`?baz=https://foo.bar` to `?baz=https%3A%2F%2Ffoo.bar`). Doing that mechanically needs to
//!   know which `&`, `=`, `/` and `?` are delimiters, which robots.txt does not say; we compare
//!   reserved characters as written (raw with raw, escaped with escaped). Crawlers that pass
//!   URLs from the `url` crate, as freshet does, never mix the two forms for one URL.

use std::borrow::Cow;

/// One unit of a normalised path or pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Piece {
    /// An octet as written. In a pattern a raw `*` is the wildcard and a final raw `$` the
    /// end anchor.
    Raw(u8),
    /// An octet decoded from `%XX`: always literal, even `*` and `$`.
    Decoded(u8),
}

/// Whether `octet` is an RFC 3986 §2.3 unreserved character (`ALPHA / DIGIT / - . _ ~`).
const fn is_unreserved(octet: u8) -> bool {
    octet.is_ascii_alphanumeric() || matches!(octet, b'-' | b'.' | b'_' | b'~')
}

/// Whether a `%XX` escape of `octet` is decoded for comparison (see the module docs).
const fn decodes(octet: u8) -> bool {
    is_unreserved(octet) || matches!(octet, b'*' | b'$')
}

/// Whether a raw `octet` must be percent-encoded: non-ASCII, control, space or DEL.
const fn needs_encoding(octet: u8) -> bool {
    octet <= b' ' || octet >= 0x7F
}

/// The value of one hexadecimal digit.
const fn hex_value(digit: u8) -> Option<u8> {
    match digit {
        b'0'..=b'9' => Some(digit - b'0'),
        b'a'..=b'f' => Some(digit - b'a' + 10),
        b'A'..=b'F' => Some(digit - b'A' + 10),
        _ => None,
    }
}

const UPPER_HEX: &[u8; 16] = b"0123456789ABCDEF";

/// Calls `emit` with every piece of the normalised form of `input`.
pub(crate) fn for_each_piece(input: &[u8], mut emit: impl FnMut(Piece)) {
    let mut index = 0;
    while index < input.len() {
        let octet = input[index];
        if octet == b'%' {
            let escaped = input.get(index + 1).and_then(|&high| hex_value(high)).and_then(|high| {
                input.get(index + 2).and_then(|&low| hex_value(low)).map(|low| high << 4 | low)
            });
            if let Some(value) = escaped {
                if decodes(value) {
                    emit(Piece::Decoded(value));
                } else {
                    emit(Piece::Raw(b'%'));
                    emit(Piece::Raw(UPPER_HEX[usize::from(value >> 4)]));
                    emit(Piece::Raw(UPPER_HEX[usize::from(value & 0x0F)]));
                }
                index += 3;
                continue;
            }
            // A `%` that starts no escape is kept as it is, on both sides alike.
        }
        if needs_encoding(octet) {
            emit(Piece::Raw(b'%'));
            emit(Piece::Raw(UPPER_HEX[usize::from(octet >> 4)]));
            emit(Piece::Raw(UPPER_HEX[usize::from(octet & 0x0F)]));
        } else {
            emit(Piece::Raw(octet));
        }
        index += 1;
    }
}

/// The octets of a URL's path and query as they are compared with patterns: cut at a `#`
/// (a fragment is never sent to a server), `/` when empty (RFC 3986 §6.2.3: an empty path of
/// an `http` URI is `/`), then normalised. Borrows when nothing changes, as for every URL that
/// the `url` crate produced without escapes of unreserved characters.
pub(crate) fn normalize_path(path_and_query: &str) -> Cow<'_, [u8]> {
    let bytes = path_and_query.as_bytes();
    let bytes = match memchr::memchr(b'#', bytes) {
        Some(end) => &bytes[..end],
        None => bytes,
    };
    if bytes.is_empty() {
        return Cow::Borrowed(b"/");
    }
    if !bytes.iter().any(|&octet| octet == b'%' || needs_encoding(octet)) {
        return Cow::Borrowed(bytes);
    }
    let mut normalized = Vec::with_capacity(bytes.len() + 8);
    for_each_piece(bytes, |piece| match piece {
        Piece::Raw(octet) | Piece::Decoded(octet) => normalized.push(octet),
    });
    Cow::Owned(normalized)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn normalized(path: &str) -> String {
        String::from_utf8(normalize_path(path).into_owned()).unwrap()
    }

    #[test]
    fn non_ascii_is_percent_encoded_in_upper_case() {
        assert_eq!(normalized("/foo/bar/ツ"), "/foo/bar/%E3%83%84");
    }

    #[test]
    fn escaped_unreserved_characters_are_decoded() {
        assert_eq!(normalized("/foo/bar/%62%61%7A"), "/foo/bar/baz");
        assert_eq!(normalized("/%7Euser/%2d%2E%5f"), "/~user/-._");
    }

    #[test]
    fn escaped_reserved_characters_stay_escaped_in_upper_case() {
        assert_eq!(normalized("/a%2fb%3a"), "/a%2Fb%3A");
        assert_eq!(normalized("/a%E3%83%84"), "/a%E3%83%84");
    }

    #[test]
    fn escaped_star_and_dollar_are_decoded() {
        assert_eq!(normalized("/a%2A%24"), "/a*$");
    }

    #[test]
    fn a_stray_percent_is_kept() {
        assert_eq!(normalized("/100%"), "/100%");
        assert_eq!(normalized("/100%zz"), "/100%zz");
        assert_eq!(normalized("/100%4"), "/100%4");
    }

    #[test]
    fn controls_and_spaces_are_encoded() {
        assert_eq!(normalized("/a b\t\u{7f}"), "/a%20b%09%7F");
    }

    #[test]
    fn empty_path_is_root_and_fragment_is_cut() {
        assert_eq!(normalized(""), "/");
        assert_eq!(normalized("#top"), "/");
        assert_eq!(normalized("/a?b#c"), "/a?b");
    }

    #[test]
    fn clean_paths_are_borrowed() {
        assert!(matches!(normalize_path("/a/b?c=d&e"), Cow::Borrowed(_)));
    }
}
