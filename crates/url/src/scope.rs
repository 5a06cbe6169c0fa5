//! Registered domains (the public suffix list) and crawl scope: which discovered URLs a crawl
//! started from a seed may follow.

use std::net::IpAddr;

use url::{Host, Url};

/// The registered domain of a host name: its public suffix plus one label (`www.example.co.uk`
/// gives `example.co.uk`), from Mozilla's public suffix list (crate `psl`). Lower-case input
/// is expected (a canonical URL's host is). `None` for a public suffix itself (`co.uk`), for a
/// name the list cannot split, and for IP literals: those are checked first, because the list
/// would read `192.168.0.1` as the domain `0.1` under the "suffix" `1`.
///
/// A name under an unlisted top-level domain gets the list's default rule (`*`): the last
/// label is the suffix, so `h17.web.test` gives `web.test`.
///
/// ```
/// use freshet_url::registered_domain;
/// assert_eq!(registered_domain("www.example.co.uk"), Some("example.co.uk"));
/// assert_eq!(registered_domain("192.168.0.1"), None);
/// ```
pub fn registered_domain(host: &str) -> Option<&str> {
    let bare = host.strip_prefix('[').and_then(|inner| inner.strip_suffix(']')).unwrap_or(host);
    if bare.parse::<IpAddr>().is_ok() {
        return None;
    }
    psl::domain_str(host.trim_end_matches('.'))
}

/// How far a crawl may wander from a seed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Scope {
    /// The seed's host only (any scheme, any port): `www.a.test` does not reach `a.test`.
    #[default]
    Host,
    /// The seed's registered domain: `www.a.co.uk` reaches `blog.a.co.uk` but not `b.co.uk`.
    /// A seed without a registered domain (an IP literal, a bare public suffix) falls back to
    /// [`Scope::Host`].
    Domain,
    /// Anywhere on the web (`http` and `https`).
    Any,
}

impl Scope {
    /// Whether `candidate`, found during a crawl that started at `seed`, is in scope. Both are
    /// expected canonical (see [`crate::canonicalize`]); URLs with another scheme than `http`
    /// or `https`, or without a host, are never in scope.
    ///
    /// ```
    /// use freshet_url::{Scope, canonicalize};
    /// let seed = canonicalize("https://www.example.co.uk/").unwrap();
    /// let blog = canonicalize("http://blog.example.co.uk/post").unwrap();
    /// assert!(!Scope::Host.in_scope(&seed, &blog));
    /// assert!(Scope::Domain.in_scope(&seed, &blog));
    /// ```
    pub fn in_scope(self, seed: &Url, candidate: &Url) -> bool {
        if !matches!(candidate.scheme(), "http" | "https") {
            return false;
        }
        let (Some(seed_host), Some(candidate_host)) = (seed.host(), candidate.host()) else {
            return false;
        };
        match self {
            Self::Any => true,
            Self::Host => seed_host == candidate_host,
            Self::Domain => match (&seed_host, &candidate_host) {
                (Host::Domain(seed_name), Host::Domain(candidate_name)) => {
                    match (registered_domain(seed_name), registered_domain(candidate_name)) {
                        (Some(seed_domain), Some(candidate_domain)) => seed_domain == candidate_domain,
                        (None, _) => seed_host == candidate_host,
                        (Some(_), None) => false,
                    }
                }
                _ => seed_host == candidate_host,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::canonicalize;

    #[test]
    fn registered_domains() {
        assert_eq!(registered_domain("example.com"), Some("example.com"));
        assert_eq!(registered_domain("a.b.example.com"), Some("example.com"));
        assert_eq!(registered_domain("www.example.co.uk"), Some("example.co.uk"));
        assert_eq!(registered_domain("user.github.io"), Some("user.github.io"));
        assert_eq!(registered_domain("example.com."), Some("example.com"));
        assert_eq!(registered_domain("co.uk"), None);
        assert_eq!(registered_domain("com"), None);
        assert_eq!(registered_domain("h17.web.test"), Some("web.test"));
    }

    #[test]
    fn ip_literals_have_no_registered_domain() {
        assert_eq!(psl::domain_str("192.168.0.1"), Some("0.1"), "the reason for checking first");
        assert_eq!(registered_domain("192.168.0.1"), None);
        assert_eq!(registered_domain("[::1]"), None);
        assert_eq!(registered_domain("2001:db8::1"), None);
    }

    fn in_scope(scope: Scope, seed: &str, candidate: &str) -> bool {
        scope.in_scope(&canonicalize(seed).unwrap(), &canonicalize(candidate).unwrap())
    }

    #[test]
    fn host_scope_is_the_same_host_any_scheme_or_port() {
        assert!(in_scope(Scope::Host, "http://a.test/", "https://A.test:8443/x"));
        assert!(!in_scope(Scope::Host, "http://www.a.test/", "http://a.test/"));
        assert!(!in_scope(Scope::Host, "http://a.test/", "http://b.test/"));
        assert!(in_scope(Scope::Host, "http://127.0.0.1:8080/", "http://127.0.0.1:9090/"));
    }

    #[test]
    fn domain_scope_is_the_same_registered_domain() {
        assert!(in_scope(Scope::Domain, "http://www.a.co.uk/", "http://blog.a.co.uk/"));
        assert!(in_scope(Scope::Domain, "http://a.co.uk/", "http://x.y.a.co.uk/"));
        assert!(!in_scope(Scope::Domain, "http://www.a.co.uk/", "http://b.co.uk/"));
        assert!(!in_scope(Scope::Domain, "http://a.github.io/", "http://b.github.io/"));
        assert!(in_scope(Scope::Domain, "http://h1.web.test/", "http://h2.web.test/"));
    }

    #[test]
    fn domain_scope_falls_back_to_the_host_for_ip_literals() {
        assert!(in_scope(Scope::Domain, "http://192.168.0.1/", "http://192.168.0.1/a"));
        assert!(!in_scope(Scope::Domain, "http://192.168.0.1/", "http://10.0.0.1/"));
        assert!(!in_scope(Scope::Domain, "http://192.168.0.1/", "http://172.16.0.1/"));
        assert!(!in_scope(Scope::Domain, "http://a.test/", "http://127.0.0.1/"));
    }

    #[test]
    fn any_scope_is_any_web_url() {
        assert!(in_scope(Scope::Any, "http://a.test/", "https://b.example/"));
        let seed = canonicalize("http://a.test/").unwrap();
        let other = url::Url::parse("ftp://a.test/").unwrap();
        assert!(!Scope::Any.in_scope(&seed, &other));
        assert!(!Scope::Host.in_scope(&seed, &other));
    }
}
