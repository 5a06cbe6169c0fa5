//! URL canonicalisation: one spelling per resource, for the seen-set and the frontier.
//!
//! Two URLs that a server cannot tell apart should be one entry in the seen-set, or the crawler
//! fetches the same page twice; two URLs that a server may tell apart must stay two, or a page
//! is lost. Every rule below is of the first kind by RFC 3986 §6 (or, for the fragment, because
//! it is never sent), and each has a test named after it.
//!
//! | rule | example | done by |
//! |---|---|---|
//! | scheme lower-cased | `HTTP://a.test/` → `http://a.test/` | `url` (WHATWG parsing) |
//! | host lower-cased | `http://A.Test/` → `http://a.test/` | `url` |
//! | IDNA: Unicode host to punycode (UTS 46) | `http://Bücher.test/` → `http://xn--bcher-kva.test/` | `url` |
//! | IPv4 literals in any WHATWG form to dotted decimal | `http://0x7f.1/` → `http://127.0.0.1/` | `url` |
//! | IPv6 literals compressed, lower-case | `http://[0:0::1]/` → `http://[::1]/` | `url` |
//! | default port removed | `http://a.test:80/`, `https://a.test:443/` → no port | `url` |
//! | empty path is `/` | `http://a.test` → `http://a.test/` | `url` |
//! | dot segments removed (also `%2e`) | `/a/./b/../c` → `/a/c` | `url` |
//! | characters that may not appear raw are percent-encoded | `/a b/ツ` → `/a%20b/%E3%83%84` | `url` |
//! | escapes of unreserved characters decoded, but a hex digit right after a stray `%` | `/%7Euser/%61` → `/~user/a`; `/%%41f` stays | here |
//! | remaining escapes upper-cased | `/a%2fb` → `/a%2Fb` | here |
//! | fragment dropped | `/a#top` → `/a` | here |
//! | empty query removed | `/a?` → `/a` | here |
//! | well-known session parameters removed | `/a?sid=f00&b=1`, `/a;jsessionid=F00?b=1` → `/a?b=1` | here |
//! | trailing dot of the host removed | `http://a.test./` → `http://a.test/` | here |
//! | only `http` and `https` | `ftp://a.test/` is an error | here |
//!
//! Session parameters are the one exception to "never remove what a server may read": a
//! session token names the visitor, not the resource, and a site that puts one in every link
//! hands a crawler a new URL for every page at every fetch (an infinite URL space, as the test
//! web's noisy pages do). The query parameters named in [`SESSION_PARAMETERS`] (any case; and
//! `aspsessionid…`, and the `;jsessionid=` path parameter) are dropped, as Heritrix's
//! `StripSessionIDs` rule does by default.
//!
//! Canonicalisation is idempotent: a canonical URL canonicalises to itself (`fuzz/`'s `url`
//! target checks it, and found the stray-`%` case above: `%` `%41` `f` decoded to `%Af`, an
//! escape that the next pass upper-cased).
//!
//! Not done, on purpose: escapes of reserved characters are never decoded (`%2F` is not `/`,
//! RFC 3986 §2.2); query parameters are not sorted and no other is removed (a server may read
//! `?a=1&b=2` and `?b=2&a=1` differently); `www.` is not stripped; path case is kept; user
//! information is kept.

use url::Url;

use crate::error::UrlError;

/// Parses `input` as an absolute URL and canonicalises it.
///
/// ```
/// let url = freshet_url::canonicalize("HTTP://Bücher.Test.:80/a/./b/../%7Ec?#top").unwrap();
/// assert_eq!(url.as_str(), "http://xn--bcher-kva.test/a/~c");
/// ```
pub fn canonicalize(input: &str) -> Result<Url, UrlError> {
    let url = Url::parse(input).map_err(|source| UrlError::Parse { input: input.to_owned(), source })?;
    canonicalize_url(url)
}

/// Resolves `reference` (an `href`, absolute or relative) against `base` and canonicalises it.
///
/// ```
/// let base = freshet_url::canonicalize("https://a.test/dir/page.html").unwrap();
/// let url = freshet_url::resolve(&base, "../other.html#part").unwrap();
/// assert_eq!(url.as_str(), "https://a.test/other.html");
/// ```
pub fn resolve(base: &Url, reference: &str) -> Result<Url, UrlError> {
    let url =
        base.join(reference).map_err(|source| UrlError::Parse { input: reference.to_owned(), source })?;
    canonicalize_url(url)
}

/// Canonicalises an already parsed URL (the rules of this module beyond what `url` did while
/// parsing). Idempotent: canonicalising a canonical URL changes nothing.
pub fn canonicalize_url(mut url: Url) -> Result<Url, UrlError> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err(UrlError::UnsupportedScheme { url: url.to_string(), scheme: url.scheme().to_owned() });
    }
    url.set_fragment(None);
    if let Some(url::Host::Domain(domain)) = url.host()
        && domain.ends_with('.')
    {
        let trimmed = domain.trim_end_matches('.').to_owned();
        if trimmed.is_empty() {
            return Err(UrlError::NoHost { url: url.to_string() });
        }
        url.set_host(Some(&trimmed)).map_err(|source| UrlError::Parse { input: url.to_string(), source })?;
    }
    if let Some(path) = normalize_escapes(url.path()) {
        url.set_path(&path);
    }
    if let Some(path) = strip_jsessionid(url.path()) {
        url.set_path(&path);
    }
    match url.query() {
        Some("") => url.set_query(None),
        Some(query) => {
            let query = normalize_escapes(query).unwrap_or_else(|| query.to_owned());
            let kept = strip_session_parameters(&query);
            url.set_query((!kept.is_empty()).then_some(kept.as_str()));
        }
        None => {}
    }
    Ok(url)
}

/// Query parameter names that carry a session token, not a resource (compared ignoring ASCII
/// case; any name starting with `aspsessionid` too).
pub const SESSION_PARAMETERS: &[&str] =
    &["jsessionid", "phpsessid", "sid", "sessionid", "session_id", "sessid", "cfid", "cftoken"];

fn is_session_parameter(name: &str) -> bool {
    SESSION_PARAMETERS.iter().any(|known| name.eq_ignore_ascii_case(known))
        || name.get(..12).is_some_and(|prefix| prefix.eq_ignore_ascii_case("aspsessionid"))
}

/// The query without its session parameters, the others in their order.
fn strip_session_parameters(query: &str) -> String {
    query
        .split('&')
        .filter(|pair| {
            let name = pair.split('=').next().unwrap_or_default();
            !pair.is_empty() && !is_session_parameter(name)
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// The path without a `;jsessionid=…` parameter (Java servlets put it in the path), if it has
/// one.
fn strip_jsessionid(path: &str) -> Option<String> {
    // Most paths hold no `;` at all: answered by one byte search, without the lower-case copy.
    if !path.contains(';') {
        return None;
    }
    let lower = path.to_ascii_lowercase();
    let start = lower.find(";jsessionid=")?;
    let end = path[start + 1..].find(['/', ';']).map_or(path.len(), |at| start + 1 + at);
    Some(format!("{}{}", &path[..start], &path[end..]))
}

/// The path and query of `url` (`/a/b?c=d`), as robots.txt rules are matched against and as
/// an HTTP/1.1 request line names the resource.
pub fn path_and_query(url: &Url) -> &str {
    &url[url::Position::BeforePath..url::Position::AfterQuery]
}

/// The ASCII serialization of `url`'s origin (`http://a.test:8080`, no default port), the
/// frontier's host key: what `url.origin().ascii_serialization()` gives, taken as a slice of
/// the URL itself when it has no user information (an `http`/`https` URL's text starts with
/// exactly that: its host is already ASCII and a default port already left out), so that the
/// crawler does not build an `Origin` for every link it follows.
#[must_use]
pub fn origin_key(url: &Url) -> String {
    if matches!(url.scheme(), "http" | "https") && url.username().is_empty() && url.password().is_none() {
        url[..url::Position::AfterPort].to_owned()
    } else {
        url.origin().ascii_serialization()
    }
}

/// Whether `octet` is an RFC 3986 §2.3 unreserved character.
const fn is_unreserved(octet: u8) -> bool {
    octet.is_ascii_alphanumeric() || matches!(octet, b'-' | b'.' | b'_' | b'~')
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

/// `text` with escapes of unreserved characters decoded and the other escapes upper-cased
/// (RFC 3986 §6.2.2.1, §6.2.2.2); `None` when nothing changes.
fn normalize_escapes(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let needs_work = bytes.windows(3).any(|window| {
        window[0] == b'%'
            && matches!((hex_value(window[1]), hex_value(window[2])), (Some(high), Some(low))
                if is_unreserved(high << 4 | low) || window[1].is_ascii_lowercase() || window[2].is_ascii_lowercase())
    });
    if !needs_work {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut index = 0;
    while index < bytes.len() {
        let escape = (bytes[index] == b'%')
            .then(|| Some((hex_value(*bytes.get(index + 1)?)?, hex_value(*bytes.get(index + 2)?)?)))
            .flatten();
        match escape {
            Some((high, low)) => {
                let value = high << 4 | low;
                if is_unreserved(value) && !completes_an_escape(&out, value) {
                    out.push(char::from(value));
                } else {
                    out.push('%');
                    out.push(char::from(bytes[index + 1].to_ascii_uppercase()));
                    out.push(char::from(bytes[index + 2].to_ascii_uppercase()));
                }
                index += 3;
            }
            None => {
                // Copy up to the next `%` (char boundaries: `%` is ASCII).
                let next = bytes[index + 1..]
                    .iter()
                    .position(|&octet| octet == b'%')
                    .map_or(bytes.len(), |p| index + 1 + p);
                out.push_str(&text[index..next]);
                index = next;
            }
        }
    }
    Some(out)
}

/// Whether pushing the octet `value` (a hexadecimal digit or not) onto `out` could make an
/// escape out of a `%` before it that is none (a `%` not followed by two hexadecimal digits is
/// copied as it is): `%` then a decoded `%41` (`A`) then `f` would read as `%Af` the next time,
/// and canonicalising twice would not give the same URL. Such an escape stays an escape.
fn completes_an_escape(out: &str, value: u8) -> bool {
    if !value.is_ascii_hexdigit() {
        return false;
    }
    match out.as_bytes() {
        [.., b'%'] => true,
        [.., b'%', digit] => digit.is_ascii_hexdigit(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn canonical(input: &str) -> String {
        canonicalize(input).unwrap().to_string()
    }

    #[test]
    fn scheme_is_lower_cased() {
        assert_eq!(canonical("HTTP://a.test/"), "http://a.test/");
        assert_eq!(canonical("HtTpS://a.test/"), "https://a.test/");
    }

    #[test]
    fn host_is_lower_cased() {
        assert_eq!(canonical("http://WWW.A.Test/Path"), "http://www.a.test/Path");
    }

    #[test]
    fn idna_host_becomes_punycode() {
        assert_eq!(canonical("http://Bücher.test/"), "http://xn--bcher-kva.test/");
        assert_eq!(canonical("http://xn--bcher-kva.test/"), "http://xn--bcher-kva.test/");
        assert_eq!(canonical("http://ＥＸＡＭＰＬＥ.test/"), "http://example.test/");
    }

    #[test]
    fn ipv4_literals_become_dotted_decimal() {
        assert_eq!(canonical("http://0x7f.1/"), "http://127.0.0.1/");
        assert_eq!(canonical("http://2130706433/"), "http://127.0.0.1/");
        assert_eq!(canonical("http://0177.0.0.1/"), "http://127.0.0.1/");
    }

    #[test]
    fn ipv6_literals_are_compressed_and_lower_cased() {
        assert_eq!(canonical("http://[0:0:0:0:0:0:0:1]/"), "http://[::1]/");
        assert_eq!(canonical("http://[2001:DB8::A]:8080/"), "http://[2001:db8::a]:8080/");
        assert_eq!(canonical("http://[::FFFF:127.0.0.1]/"), "http://[::ffff:7f00:1]/");
    }

    #[test]
    fn default_ports_are_removed() {
        assert_eq!(canonical("http://a.test:80/"), "http://a.test/");
        assert_eq!(canonical("https://a.test:443/"), "https://a.test/");
        assert_eq!(canonical("http://a.test:443/"), "http://a.test:443/");
        assert_eq!(canonical("https://a.test:8443/"), "https://a.test:8443/");
    }

    #[test]
    fn empty_path_is_slash() {
        assert_eq!(canonical("http://a.test"), "http://a.test/");
        assert_eq!(canonical("http://a.test?x=1"), "http://a.test/?x=1");
    }

    #[test]
    fn dot_segments_are_removed() {
        assert_eq!(canonical("http://a.test/a/./b/../c"), "http://a.test/a/c");
        assert_eq!(canonical("http://a.test/a/%2e%2E/c"), "http://a.test/c");
        assert_eq!(canonical("http://a.test/../../c"), "http://a.test/c");
    }

    #[test]
    fn raw_characters_are_percent_encoded() {
        assert_eq!(canonical("http://a.test/a b/ツ"), "http://a.test/a%20b/%E3%83%84");
    }

    #[test]
    fn escapes_of_unreserved_characters_are_decoded() {
        assert_eq!(canonical("http://a.test/%7Euser/%61%2D%5f%2e"), "http://a.test/~user/a-_.");
        assert_eq!(canonical("http://a.test/p?q=%41%42"), "http://a.test/p?q=AB");
    }

    #[test]
    fn remaining_escapes_are_upper_cased_never_decoded() {
        assert_eq!(canonical("http://a.test/a%2fb%3a"), "http://a.test/a%2Fb%3A");
        assert_eq!(canonical("http://a.test/p?u=http%3a%2f%2fx"), "http://a.test/p?u=http%3A%2F%2Fx");
        assert_eq!(canonical("http://a.test/100%25"), "http://a.test/100%25");
        assert_eq!(canonical("http://a.test/%e3%83%84"), "http://a.test/%E3%83%84");
    }

    #[test]
    fn a_stray_percent_is_kept() {
        assert_eq!(canonical("http://a.test/100%/x%4"), "http://a.test/100%/x%4");
        // A decoded escape never makes an escape of a stray `%` before it (found by fuzzing,
        // `fuzz/`): canonicalising again gives the same URL.
        for (input, expected) in [
            ("http://a.test/%%41f", "http://a.test/%%41f"),
            ("http://a.test/%4%31", "http://a.test/%4%31"),
            ("http://a.test/%%7e", "http://a.test/%~"),
            ("http://a.test/%%41%42", "http://a.test/%%41B"),
            ("http://a.test/h/&:%%/%%%%%%%%%41f-|", "http://a.test/h/&:%%/%%%%%%%%%41f-|"),
        ] {
            assert_eq!(canonical(input), expected, "{input}");
            assert_eq!(canonical(expected), expected, "{expected}");
        }
    }

    #[test]
    fn fragment_is_dropped() {
        assert_eq!(canonical("http://a.test/a#top"), "http://a.test/a");
        assert_eq!(canonical("http://a.test/a?b#"), "http://a.test/a?b");
    }

    #[test]
    fn empty_query_is_removed() {
        assert_eq!(canonical("http://a.test/a?"), "http://a.test/a");
        assert_eq!(canonical("http://a.test/a?#x"), "http://a.test/a");
        assert_eq!(canonical("http://a.test/a?x"), "http://a.test/a?x");
    }

    #[test]
    fn trailing_dot_of_the_host_is_removed() {
        assert_eq!(canonical("http://a.test./"), "http://a.test/");
        assert_eq!(canonical("http://a.test..:8080/"), "http://a.test:8080/");
    }

    #[test]
    fn only_http_and_https() {
        assert!(matches!(canonicalize("ftp://a.test/"), Err(UrlError::UnsupportedScheme { .. })));
        assert!(matches!(canonicalize("mailto:a@b.test"), Err(UrlError::UnsupportedScheme { .. })));
        assert!(matches!(canonicalize("javascript:alert(1)"), Err(UrlError::UnsupportedScheme { .. })));
    }

    #[test]
    fn bad_input_names_itself() {
        let error = canonicalize("not a url").unwrap_err();
        assert!(error.to_string().contains("\"not a url\""), "{error}");
        assert!(matches!(canonicalize("http://"), Err(UrlError::Parse { .. })));
    }

    #[test]
    fn well_known_session_parameters_are_removed() {
        assert_eq!(canonical("http://a.test/a?sid=f00&b=1"), "http://a.test/a?b=1");
        assert_eq!(canonical("http://a.test/a?b=1&PHPSESSID=x&c"), "http://a.test/a?b=1&c");
        assert_eq!(canonical("http://a.test/a?sid=1"), "http://a.test/a");
        assert_eq!(canonical("http://a.test/a?ASPSESSIONIDQQ=1&x=2"), "http://a.test/a?x=2");
        assert_eq!(canonical("http://a.test/a;jsessionid=F00?b=1"), "http://a.test/a?b=1");
        assert_eq!(canonical("http://a.test/a;jsessionid=F00/b"), "http://a.test/a/b");
        // Names that only contain a session name, and values, are kept.
        assert_eq!(canonical("http://a.test/a?sidebar=1&q=sid"), "http://a.test/a?sidebar=1&q=sid");
    }

    #[test]
    fn query_and_path_case_are_kept() {
        assert_eq!(canonical("http://a.test/A/B?X=Y&a=b"), "http://a.test/A/B?X=Y&a=b");
    }

    #[test]
    fn resolve_joins_then_canonicalises() {
        let base = canonicalize("https://a.test/dir/page.html").unwrap();
        assert_eq!(resolve(&base, "x.html").unwrap().as_str(), "https://a.test/dir/x.html");
        assert_eq!(resolve(&base, "/%7Ex?").unwrap().as_str(), "https://a.test/~x");
        assert_eq!(resolve(&base, "//B.test/").unwrap().as_str(), "https://b.test/");
        assert_eq!(resolve(&base, "#frag").unwrap().as_str(), "https://a.test/dir/page.html");
        assert!(resolve(&base, "mailto:x@a.test").is_err());
    }

    #[test]
    fn path_and_query_of_a_url() {
        let url = canonicalize("http://a.test/a/b?c=d#e").unwrap();
        assert_eq!(path_and_query(&url), "/a/b?c=d");
        let url = canonicalize("http://a.test").unwrap();
        assert_eq!(path_and_query(&url), "/");
    }
}
