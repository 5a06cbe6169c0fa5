//! Which character encoding a fetched HTML page is in, decided before parsing it.
//!
//! The order is the HTML standard's encoding sniffing algorithm (HTML Living Standard
//! §13.2.3.2, "Determining the character encoding"), minus the parts that need a browser:
//!
//! 1. a byte order mark (UTF-8, UTF-16LE, UTF-16BE) wins over everything;
//! 2. the `charset` parameter of the HTTP `Content-Type` header;
//! 3. a `<meta charset=…>` or `<meta http-equiv=Content-Type content="…; charset=…">` in the
//!    first 1,024 bytes (the standard's "prescan", simplified: see [`prescan_meta`]);
//! 4. a page that is valid UTF-8 is UTF-8 (a cheap check that spares the detector);
//! 5. otherwise `chardetng` (Firefox's detector) guesses from the first 64 KiB.
//!
//! Labels are mapped with `encoding_rs` (the WHATWG Encoding Standard's label table), so
//! `latin1` and `iso-8859-1` are windows-1252, as in every browser. A declared `utf-16` in a
//! `<meta>` means UTF-8 (the standard's rule: a page whose bytes a parser could read to find the
//! meta tag is not UTF-16).

use encoding_rs::Encoding;

/// How many bytes the `<meta>` prescan looks at (HTML standard: 1,024).
const PRESCAN_BYTES: usize = 1024;
/// How many bytes `chardetng` reads when nothing declares the encoding.
const SNIFF_BYTES: usize = 64 << 10;

/// Where the encoding of a page came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CharsetSource {
    /// A byte order mark.
    ByteOrderMark,
    /// The HTTP `Content-Type` header's `charset`.
    HttpHeader,
    /// A `<meta>` tag in the first 1,024 bytes.
    MetaTag,
    /// The page is valid UTF-8 and nothing declared otherwise.
    ValidUtf8,
    /// Guessed by `chardetng`.
    Sniffed,
}

/// Decides the encoding of `body`, given the HTTP `Content-Type` header if there was one
/// (see the module docs for the order).
///
/// ```
/// use freshet_fetch::links::{CharsetSource, detect_charset};
/// let (encoding, source) = detect_charset(Some("text/html; charset=ISO-8859-1"), b"caf\xe9");
/// assert_eq!((encoding.name(), source), ("windows-1252", CharsetSource::HttpHeader));
/// let (encoding, source) = detect_charset(None, b"<meta charset=koi8-r><p>\xf0\xd2");
/// assert_eq!((encoding.name(), source), ("KOI8-R", CharsetSource::MetaTag));
/// ```
pub fn detect_charset(content_type: Option<&str>, body: &[u8]) -> (&'static Encoding, CharsetSource) {
    if let Some((encoding, _)) = Encoding::for_bom(body) {
        return (encoding, CharsetSource::ByteOrderMark);
    }
    if let Some(encoding) =
        content_type.and_then(charset_parameter).and_then(|label| Encoding::for_label(label.as_bytes()))
    {
        return (encoding, CharsetSource::HttpHeader);
    }
    if let Some(encoding) = prescan_meta(&body[..body.len().min(PRESCAN_BYTES)]) {
        return (encoding, CharsetSource::MetaTag);
    }
    if std::str::from_utf8(body).is_ok() {
        return (encoding_rs::UTF_8, CharsetSource::ValidUtf8);
    }
    let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
    detector.feed(&body[..body.len().min(SNIFF_BYTES)], body.len() <= SNIFF_BYTES);
    (detector.guess(None, chardetng::Utf8Detection::Allow), CharsetSource::Sniffed)
}

/// The `charset` parameter of a `Content-Type` value (`text/html; charset="utf-8"` → `utf-8`).
pub(crate) fn charset_parameter(content_type: &str) -> Option<&str> {
    content_type.split(';').skip(1).find_map(|parameter| {
        let (name, value) = parameter.split_once('=')?;
        name.trim().eq_ignore_ascii_case("charset").then(|| value.trim().trim_matches(['"', '\'']))
    })
}

/// The encoding a `<meta>` tag in `head` declares, if any.
///
/// Simplified from the HTML standard's prescan: every `<meta` tag (case-insensitive) up to its
/// `>` is read for a `charset` attribute, or for `http-equiv="content-type"` with a `content`
/// holding `charset=`; the first that names a known label wins. Comments are skipped. The
/// standard's full attribute tokenizer is not reproduced (an unquoted value containing `>` is
/// cut there), which no real page relies on.
fn prescan_meta(head: &[u8]) -> Option<&'static Encoding> {
    let mut rest = head;
    while let Some(start) = find_ascii_case_insensitive(rest, b"<") {
        rest = &rest[start..];
        if rest.starts_with(b"<!--") {
            let end = find_ascii_case_insensitive(&rest[4..], b"-->")?;
            rest = &rest[4 + end + 3..];
            continue;
        }
        let is_meta = rest.len() > 5
            && rest[1..5].eq_ignore_ascii_case(b"meta")
            && matches!(rest[5], b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'/');
        let end = rest.iter().position(|&b| b == b'>').unwrap_or(rest.len());
        if is_meta && let Some(encoding) = meta_tag_charset(&rest[5..end]) {
            return Some(if encoding == encoding_rs::UTF_16BE || encoding == encoding_rs::UTF_16LE {
                encoding_rs::UTF_8
            } else {
                encoding
            });
        }
        rest = &rest[end.min(rest.len()).max(1)..];
    }
    None
}

/// The charset declared by the attributes of one `<meta …>` tag.
fn meta_tag_charset(attributes: &[u8]) -> Option<&'static Encoding> {
    let text = String::from_utf8_lossy(attributes);
    let mut charset = None;
    let mut http_equiv_content_type = false;
    let mut content = None;
    for (name, value) in attribute_pairs(&text) {
        if name.eq_ignore_ascii_case("charset") {
            charset = charset.or(Some(value));
        } else if name.eq_ignore_ascii_case("http-equiv") {
            http_equiv_content_type = value.trim().eq_ignore_ascii_case("content-type");
        } else if name.eq_ignore_ascii_case("content") {
            content = Some(value);
        }
    }
    if let Some(label) = charset {
        return Encoding::for_label(label.trim().as_bytes());
    }
    let content = content.filter(|_| http_equiv_content_type)?;
    Encoding::for_label(charset_parameter(&format!("x;{content}"))?.as_bytes())
}

/// `name=value` pairs of a tag's attribute text (quoted or not); attributes without a value
/// are skipped.
fn attribute_pairs(text: &str) -> Vec<(&str, &str)> {
    let mut pairs = Vec::new();
    let mut rest = text.trim_start_matches(|c: char| c.is_ascii_whitespace() || c == '/');
    while let Some(equals) = rest.find('=') {
        let name = rest[..equals].trim();
        // A bare attribute before this one (`<meta foo charset=x>`): keep the last word.
        let name = name.rsplit(|c: char| c.is_ascii_whitespace() || c == '/').next().unwrap_or(name);
        let after = rest[equals + 1..].trim_start();
        let (value, next) = match after.chars().next() {
            Some(quote @ ('"' | '\'')) => match after[1..].find(quote) {
                Some(close) => (&after[1..1 + close], &after[close + 2..]),
                None => (&after[1..], ""),
            },
            _ => {
                let end = after.find(|c: char| c.is_ascii_whitespace()).unwrap_or(after.len());
                (after[..end].trim_end_matches('/'), &after[end..])
            }
        };
        pairs.push((name, value));
        rest = next;
    }
    pairs
}

/// The index of the first occurrence of `needle` in `haystack`, ignoring ASCII case.
fn find_ascii_case_insensitive(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|window| window.eq_ignore_ascii_case(needle))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detect(content_type: Option<&str>, body: &[u8]) -> (&'static str, CharsetSource) {
        let (encoding, source) = detect_charset(content_type, body);
        (encoding.name(), source)
    }

    #[test]
    fn byte_order_mark_wins_over_header_and_meta() {
        let body = b"\xef\xbb\xbf<meta charset=koi8-r>";
        assert_eq!(detect(Some("text/html; charset=latin1"), body), ("UTF-8", CharsetSource::ByteOrderMark));
        assert_eq!(detect(None, b"\xff\xfe<\x00"), ("UTF-16LE", CharsetSource::ByteOrderMark));
    }

    #[test]
    fn header_charset_wins_over_meta() {
        let body = b"<meta charset=koi8-r>";
        assert_eq!(
            detect(Some("text/html;charset=\"Shift_JIS\""), body),
            ("Shift_JIS", CharsetSource::HttpHeader)
        );
        // An unknown label in the header is ignored.
        assert_eq!(detect(Some("text/html; charset=bogus"), body), ("KOI8-R", CharsetSource::MetaTag));
    }

    #[test]
    fn meta_charset_and_http_equiv_forms() {
        assert_eq!(
            detect(None, b"<html><head><META CHARSET='iso-8859-2'>"),
            ("ISO-8859-2", CharsetSource::MetaTag)
        );
        let body = b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1251\">";
        assert_eq!(detect(None, body), ("windows-1251", CharsetSource::MetaTag));
        // `content` without `http-equiv=content-type` declares nothing.
        let body = b"<meta name=x content=\"text/html; charset=windows-1251\">\xe9";
        assert_eq!(detect(None, body).1, CharsetSource::Sniffed);
    }

    #[test]
    fn meta_in_a_comment_or_after_1024_bytes_is_ignored() {
        assert_eq!(detect(None, b"<!-- <meta charset=koi8-r> --><p>hi").1, CharsetSource::ValidUtf8);
        let mut body = vec![b' '; 1100];
        body.extend_from_slice(b"<meta charset=koi8-r>");
        assert_eq!(detect(None, &body).1, CharsetSource::ValidUtf8);
    }

    #[test]
    fn meta_utf16_means_utf8() {
        assert_eq!(detect(None, b"<meta charset=utf-16>"), ("UTF-8", CharsetSource::MetaTag));
    }

    #[test]
    fn valid_utf8_needs_no_guess_and_latin1_is_sniffed() {
        assert_eq!(detect(None, "<p>naïve café</p>".as_bytes()), ("UTF-8", CharsetSource::ValidUtf8));
        let latin1 = b"<p>Le caf\xe9 est tr\xe8s bon, la cr\xe8me br\xfbl\xe9e aussi, d\xe9j\xe0 vu.</p>";
        assert_eq!(detect(None, latin1), ("windows-1252", CharsetSource::Sniffed));
    }

    #[test]
    fn charset_parameter_forms() {
        assert_eq!(charset_parameter("text/html; charset=UTF-8"), Some("UTF-8"));
        assert_eq!(charset_parameter("text/html;CHARSET = 'x' ; q=1"), Some("x"));
        assert_eq!(charset_parameter("text/html"), None);
    }
}
