//! Canonicalisation is idempotent, and equal canonical forms survive a round trip through text:
//! `canonicalize(canonicalize(x).as_str()) == canonicalize(x)` for URLs built from the awkward
//! parts every rule deals with (case, ports, dots, escapes, empty queries, fragments, IDNA);
//! and the host key cut from a canonical URL is its origin's serialization.
#![allow(clippy::unwrap_used)]

use freshet_url::{canonicalize, origin_key};
use proptest::prelude::*;

fn scheme() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["http", "HTTP", "https", "HtTpS"])
}

fn host() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "a.test",
        "A.Test",
        "a.test.",
        "www.example.co.uk",
        "Bücher.test",
        "xn--bcher-kva.test",
        "127.0.0.1",
        "0x7f.1",
        "[::1]",
        "[2001:DB8::a]",
        "[::ffff:10.0.0.1]",
    ])
}

fn port() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["", ":80", ":443", ":8080"])
}

fn segment() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "a", "B", ".", "..", "%2e", "%2E%2e", "%7e", "%41", "%2f", "%3A", "ツ", "a b", "%", "%zz", "x%4",
        "~", "", "100%25", "*", "$",
    ])
}

fn query() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["", "?", "?a=1", "?A=%41&b=%2f", "?q=ツ", "?%", "?x#", "#", "#frag", "?y=1#f"])
}

proptest! {
    #[test]
    fn canonicalisation_is_idempotent(
        scheme in scheme(),
        host in host(),
        port in port(),
        segments in prop::collection::vec(segment(), 0..6),
        query in query(),
    ) {
        let input = format!("{scheme}://{host}{port}/{}{query}", segments.join("/"));
        let once = canonicalize(&input).unwrap();
        let twice = canonicalize(once.as_str()).unwrap();
        prop_assert_eq!(once.as_str(), twice.as_str(), "input {}", input);
        prop_assert!(once.fragment().is_none());
        prop_assert!(once.query() != Some(""));
    }

    /// The host key taken as a slice of the URL is the origin's ASCII serialization, with
    /// user information (which the slice would carry) or without.
    #[test]
    fn the_origin_key_is_the_origin_serialization(
        scheme in scheme(),
        userinfo in prop::sample::select(vec!["", "user@", "user:pass@", ":pass@"]),
        host in host(),
        port in port(),
        segments in prop::collection::vec(segment(), 0..3),
        query in query(),
    ) {
        let input = format!("{scheme}://{userinfo}{host}{port}/{}{query}", segments.join("/"));
        let url = canonicalize(&input).unwrap();
        prop_assert_eq!(origin_key(&url), url.origin().ascii_serialization(), "input {}", input);
    }
}
