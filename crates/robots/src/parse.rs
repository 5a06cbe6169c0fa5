//! The lines of a robots.txt file, read into records (RFC 9309 §2.1, §2.2).
//!
//! - A UTF-8 byte order mark at the start is skipped, and so is any prefix of one (`EF`,
//!   `EF BB`), as Google's parser does; a BOM anywhere else is part of its line.
//! - Lines end at CR, LF or CR LF (§2.2: `EOL = %x0D / %x0A / %x0D.0A`).
//! - Only the first [`PARSE_LIMIT_BYTES`] are read (§2.5: "parsers MUST be able to parse at
//!   least 500 kibibytes"; content beyond "may be ignored"). When a file is longer, the line
//!   cut by the limit is dropped too: a truncated `Allow: /private/ok$` would read as the wider
//!   `Allow: /private/o`.
//! - `#` starts a comment that runs to the end of the line; keys are case-insensitive; white
//!   space around keys and values is trimmed.
//! - Accepted mistakes, as Google's parser accepts them: a missing colon
//!   (`Disallow /private`) and a few misspelt keys (`useragent`, `user agent`, `dissallow`,
//!   `dissalow`, `disalow`, `diasllow`, `disallaw`, `site-map`). Each can only make the file
//!   say what its author evidently meant.

/// How many leading octets of a robots.txt file are parsed: 500 KiB (RFC 9309 §2.5).
pub const PARSE_LIMIT_BYTES: usize = 500 * 1024;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The directive a line holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Key {
    /// `User-agent`: starts (or extends) a group.
    UserAgent,
    /// `Allow`: a group rule.
    Allow,
    /// `Disallow`: a group rule.
    Disallow,
    /// `Crawl-delay`: not in the RFC; read as a group member (seconds between requests).
    CrawlDelay,
    /// `Sitemap`: not in the RFC's groups (§2.2.4 names it as an example of "other records");
    /// applies to the whole file wherever it stands.
    Sitemap,
}

impl Key {
    /// Reads a key, case-insensitively. `None` for keys this parser does not know.
    fn parse(key: &[u8]) -> Option<Self> {
        const NAMES: &[(&[u8], Key)] = &[
            (b"user-agent", Key::UserAgent),
            (b"useragent", Key::UserAgent),
            (b"user agent", Key::UserAgent),
            (b"allow", Key::Allow),
            (b"disallow", Key::Disallow),
            (b"dissallow", Key::Disallow),
            (b"dissalow", Key::Disallow),
            (b"disalow", Key::Disallow),
            (b"diasllow", Key::Disallow),
            (b"disallaw", Key::Disallow),
            (b"crawl-delay", Key::CrawlDelay),
            (b"sitemap", Key::Sitemap),
            (b"site-map", Key::Sitemap),
        ];
        NAMES.iter().find(|(name, _)| key.eq_ignore_ascii_case(name)).map(|&(_, key)| key)
    }
}

/// One `key: value` line that this parser understands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Record<'a> {
    /// The directive.
    pub(crate) key: Key,
    /// The value, trimmed, comment removed (may be empty).
    pub(crate) value: &'a [u8],
}

/// The part of `body` that is parsed: without a leading (partial) BOM, at most
/// [`PARSE_LIMIT_BYTES`] long, ending at a line end when it was cut. Also says whether it was cut.
pub(crate) fn parsed_part(body: &[u8]) -> (&[u8], bool) {
    let bom_prefix = body.iter().zip(BOM).take_while(|(octet, bom)| octet == bom).count();
    let body = &body[bom_prefix..];
    if body.len() <= PARSE_LIMIT_BYTES {
        return (body, false);
    }
    let head = &body[..PARSE_LIMIT_BYTES];
    // The octet just past the limit may itself end the line.
    if matches!(body[PARSE_LIMIT_BYTES], b'\n' | b'\r') {
        return (head, true);
    }
    let end = memchr::memrchr2(b'\n', b'\r', head).map_or(0, |line_end| line_end + 1);
    (&head[..end], true)
}

/// The lines of `text` (CR, LF and CR LF all end a line).
fn lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        match memchr::memchr2(b'\n', b'\r', rest) {
            Some(end) => {
                let line = &rest[..end];
                let skip = if rest[end] == b'\r' && rest.get(end + 1) == Some(&b'\n') { 2 } else { 1 };
                rest = &rest[end + skip..];
                Some(line)
            }
            None => {
                let line = rest;
                rest = &[];
                Some(line)
            }
        }
    })
}

/// `bytes` without leading and trailing ASCII white space.
pub(crate) fn trim(bytes: &[u8]) -> &[u8] {
    let start = bytes.iter().position(|octet| !octet.is_ascii_whitespace()).unwrap_or(bytes.len());
    let end = bytes.iter().rposition(|octet| !octet.is_ascii_whitespace()).map_or(start, |last| last + 1);
    &bytes[start..end]
}

/// Reads one line into a record, if it holds a known directive.
fn record(line: &[u8]) -> Option<Record<'_>> {
    let line = match memchr::memchr(b'#', line) {
        Some(comment) => &line[..comment],
        None => line,
    };
    let line = trim(line);
    if line.is_empty() {
        return None;
    }
    let (key, value) = match memchr::memchr(b':', line) {
        Some(colon) => (trim(&line[..colon]), trim(&line[colon + 1..])),
        None => {
            // A missing colon: `key value`, split at the first white space.
            let gap = line.iter().position(u8::is_ascii_whitespace)?;
            (&line[..gap], trim(&line[gap..]))
        }
    };
    let key = Key::parse(key).or_else(|| {
        // `user agent: x` with the colon: the key holds a space.
        let squeezed: Vec<u8> = key.iter().copied().filter(|octet| !octet.is_ascii_whitespace()).collect();
        (squeezed.len() != key.len()).then(|| Key::parse(&squeezed)).flatten()
    })?;
    Some(Record { key, value })
}

/// The records of the parsed part of a robots.txt body, in file order.
pub(crate) fn records(text: &[u8]) -> impl Iterator<Item = Record<'_>> {
    lines(text).filter_map(record)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn all(text: &str) -> Vec<(Key, String)> {
        records(text.as_bytes()).map(|r| (r.key, String::from_utf8(r.value.to_vec()).unwrap())).collect()
    }

    #[test]
    fn every_line_ending_ends_a_line() {
        let got: Vec<&[u8]> = lines(b"a\nb\r\nc\rd\n\ne").collect();
        assert_eq!(got, [&b"a"[..], b"b", b"c", b"d", b"", b"e"]);
    }

    #[test]
    fn keys_are_case_insensitive_and_values_trimmed() {
        assert_eq!(
            all("USER-AGENT:  FooBot \n\tdIsAlLoW :/x # comment\nallow:\n"),
            [(Key::UserAgent, "FooBot".into()), (Key::Disallow, "/x".into()), (Key::Allow, "".into())]
        );
    }

    #[test]
    fn unknown_keys_and_comments_are_skipped() {
        assert_eq!(all("foo: FooBot\n# Disallow: /\nbar: /\n"), []);
    }

    #[test]
    fn accepted_mistakes() {
        assert_eq!(
            all("user-agent FooBot\ndisallow /\nuser agent: x\ndisalow: /y\nsite-map: http://a/s.xml"),
            [
                (Key::UserAgent, "FooBot".into()),
                (Key::Disallow, "/".into()),
                (Key::UserAgent, "x".into()),
                (Key::Disallow, "/y".into()),
                (Key::Sitemap, "http://a/s.xml".into()),
            ]
        );
    }

    #[test]
    fn a_value_may_hold_colons() {
        assert_eq!(all("Sitemap: https://a.test/s.xml"), [(Key::Sitemap, "https://a.test/s.xml".into())]);
    }

    #[test]
    fn a_bom_or_its_prefix_is_skipped_at_the_start_only() {
        assert_eq!(parsed_part(b"\xEF\xBB\xBFab"), (&b"ab"[..], false));
        assert_eq!(parsed_part(b"\xEF\xBBab"), (&b"ab"[..], false));
        assert_eq!(parsed_part(b"\xEFab"), (&b"ab"[..], false));
        assert_eq!(parsed_part(b"\xEF\x11\xBFab"), (&b"\x11\xBFab"[..], false));
    }

    #[test]
    fn the_limit_drops_the_cut_line() {
        let mut body = b"Disallow: /a\n".repeat(PARSE_LIMIT_BYTES / 13);
        let kept = body.len();
        body.extend_from_slice(b"Disallow: /abcdef\n");
        assert!(body.len() > PARSE_LIMIT_BYTES);
        let (part, cut) = parsed_part(&body);
        assert!(cut);
        assert_eq!(part.len(), kept);
        assert!(part.ends_with(b"\n"));
    }

    #[test]
    fn the_limit_keeps_a_line_that_ends_exactly_there() {
        let mut body = vec![b'x'; PARSE_LIMIT_BYTES];
        body.extend_from_slice(b"\nDisallow: /");
        let (part, cut) = parsed_part(&body);
        assert!(cut);
        assert_eq!(part.len(), PARSE_LIMIT_BYTES);
    }
}
