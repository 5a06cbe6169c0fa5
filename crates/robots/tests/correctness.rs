//! Every case of the robots.txt spec suite (google/robotstxt-spec-test, `CTC/correctness`;
//! `tests/data/robotstxt-correctness.jsonl`, source in `tests/data/SOURCE.md`), with the cases
//! where this crate follows RFC 9309 rather than the suite listed explicitly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use freshet_robots::RobotsTxt;

/// The suite's cases where RFC 9309 and the suite disagree, by line number in the jsonl file
/// (1-based), with the reason. The crate docs (`lib.rs`) list the same four.
const EXPECTED_DIFFERENCES: &[(usize, &str)] = &[
    (38, "GOOGLE_SPECIFIC: Google reads a final `index.html` in a pattern as `/`; RFC 9309 has no such rule"),
    (111, "RFC 9309 §2.2.2: the raw UTF-8 URL is percent-encoded before comparison, so it matches"),
    (113, "RFC 9309 §2.2.2: the raw UTF-8 URL is percent-encoded before comparison, so it matches"),
    (114, "RFC 9309 §2.2.2: %62%61%7A is unreserved, decoded to `baz` before comparison, so it matches"),
];

#[derive(serde::Deserialize)]
struct Case {
    file: String,
    robotstxt_b64: String,
    url: String,
    useragent: String,
    expected: String,
    kind: String,
}

/// Decodes standard base64 (the suite's bodies); small enough not to need a crate.
fn base64(text: &str) -> Vec<u8> {
    let value = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        }
    };
    let digits: Vec<u8> = text.bytes().filter(|&c| c != b'=').collect();
    let mut out = Vec::new();
    for chunk in digits.chunks(4) {
        let mut bits = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            bits |= value(c) << (18 - 6 * i);
        }
        let bytes = bits.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    out
}

/// The path and query of a case's URL, as a crawler hands it to the matcher: parsed by the
/// `url` crate (which percent-encodes non-ASCII characters). The suite's one URL that is not
/// a URL, the empty string, is passed as the empty path, which the matcher reads as `/` (as
/// Google's matcher does for an empty URL).
fn path_and_query(url: &str) -> String {
    if url.is_empty() {
        return String::new();
    }
    let parsed = url::Url::parse(url).unwrap_or_else(|error| panic!("{url}: {error}"));
    let mut path = parsed.path().to_owned();
    if let Some(query) = parsed.query() {
        path.push('?');
        path.push_str(query);
    }
    path
}

#[test]
fn the_spec_suite_passes_except_the_listed_differences() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/robotstxt-correctness.jsonl"
    ))
    .unwrap();
    let mut cases = 0;
    let mut unexpected = Vec::new();
    let mut differences = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line_number = index + 1;
        let case: Case = serde_json::from_str(line).unwrap();
        cases += 1;
        let robots = RobotsTxt::parse(&base64(&case.robotstxt_b64));
        let allowed = robots.is_allowed(&case.useragent, &path_and_query(&case.url));
        let expected = match case.expected.as_str() {
            "ALLOWED" => true,
            "DISALLOWED" => false,
            other => panic!("line {line_number}: unknown expectation {other}"),
        };
        let listed = EXPECTED_DIFFERENCES.iter().any(|&(number, _)| number == line_number);
        let describe = || {
            format!(
                "line {line_number} ({}, {}): agent {:?}, URL {:?}: expected {}, got {}",
                case.file,
                case.kind,
                case.useragent,
                case.url,
                case.expected,
                if allowed { "ALLOWED" } else { "DISALLOWED" }
            )
        };
        match (allowed == expected, listed) {
            (true, false) => {}
            (false, true) => differences.push(line_number),
            (false, false) => unexpected.push(describe()),
            (true, true) => unexpected.push(format!("listed as a difference but passes: {}", describe())),
        }
    }
    assert_eq!(cases, 146, "the suite has 146 cases");
    assert!(unexpected.is_empty(), "{} unexpected results:\n{}", unexpected.len(), unexpected.join("\n"));
    assert_eq!(differences.len(), EXPECTED_DIFFERENCES.len());
}

#[test]
fn the_rfc_reading_of_the_differences_holds_both_ways() {
    // The differences are about equivalence, so each must hold in both directions.
    let robots = RobotsTxt::parse("User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n".as_bytes());
    assert!(robots.is_allowed("FooBot", "/foo/bar/%E3%83%84"));
    assert!(robots.is_allowed("FooBot", "/foo/bar/ツ"));
    let robots = RobotsTxt::parse(b"User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n");
    assert!(robots.is_allowed("FooBot", "/foo/bar/baz"));
    assert!(robots.is_allowed("FooBot", "/foo/bar/%62%61%7A"));
    let robots = RobotsTxt::parse(b"User-agent: FooBot\nDisallow: /foo/bar/baz\n");
    assert!(!robots.is_allowed("FooBot", "/foo/bar/%62%61%7a"));
}
