//! Registered domains (the public suffix list) and crawl scope: which discovered URLs a crawl
//! started from a seed may follow.

use std::collections::HashSet;
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

/// The scope of a crawl from many seeds: whether a URL is in [`Scope::in_scope`] of *any* seed,
/// answered by hash lookups instead of a pass over the seeds.
///
/// A crawl checks every link it finds; a seed list of 10^5 hosts (a crawl of the top sites)
/// made that pass cost 10^5 comparisons per link, and a public-suffix lookup per seed per link
/// for [`Scope::Domain`] (BENCHMARKS.md, "Scope from many seeds"). The seeds' hosts (and, for
/// `Domain`, their registered domains) are kept in sets, so a link costs one host lookup and at
/// most one registered-domain lookup. [`SeedScope::contains`] answers exactly what
/// `seeds.iter().any(|seed| scope.in_scope(seed, url))` answers (a property test checks it).
///
/// ```
/// use freshet_url::{Scope, SeedScope, canonicalize};
/// let mut scope = SeedScope::new(Scope::Domain);
/// scope.add(&canonicalize("https://www.example.co.uk/").unwrap());
/// assert!(scope.contains(&canonicalize("http://blog.example.co.uk/post").unwrap()));
/// assert!(!scope.contains(&canonicalize("http://other.co.uk/").unwrap()));
/// ```
#[derive(Clone, Debug, Default)]
pub struct SeedScope {
    scope: Scope,
    /// Some seed has a host (all that [`Scope::Any`] asks of the seeds).
    any_host: bool,
    /// The host names that a URL's own host may be: every seed's for [`Scope::Host`]; for
    /// [`Scope::Domain`], those of the seeds without a registered domain (public suffixes),
    /// which fall back to their host.
    names: HashSet<String>,
    /// The same for the seeds whose host is an IP literal (kept apart from the names, so that
    /// a lookup borrows the URL's name and allocates nothing).
    addresses: HashSet<Host<String>>,
    /// [`Scope::Domain`]: the seeds' registered domains.
    domains: HashSet<String>,
}

impl SeedScope {
    /// No seeds yet: nothing is in scope.
    #[must_use]
    pub fn new(scope: Scope) -> Self {
        Self { scope, ..Self::default() }
    }

    /// Adds a seed (canonical, see [`crate::canonicalize`]); one without a host adds nothing,
    /// as it puts nothing in scope.
    pub fn add(&mut self, seed: &Url) {
        let Some(host) = seed.host() else { return };
        self.any_host = true;
        match (self.scope, &host) {
            (Scope::Any, _) => {}
            (Scope::Domain, Host::Domain(name)) if registered_domain(name).is_some() => {
                if let Some(domain) = registered_domain(name) {
                    self.domains.insert(domain.to_owned());
                }
            }
            (Scope::Host | Scope::Domain, Host::Domain(name)) => {
                self.names.insert((*name).to_owned());
            }
            (Scope::Host | Scope::Domain, _) => {
                self.addresses.insert(host.to_owned());
            }
        }
    }

    /// Whether `candidate` (canonical) is in scope of some seed added.
    #[must_use]
    pub fn contains(&self, candidate: &Url) -> bool {
        if !matches!(candidate.scheme(), "http" | "https") {
            return false;
        }
        let Some(host) = candidate.host() else { return false };
        let same_host = || match &host {
            Host::Domain(name) => self.names.contains(*name),
            Host::Ipv4(_) | Host::Ipv6(_) => self.addresses.contains(&host.to_owned()),
        };
        match self.scope {
            Scope::Any => self.any_host,
            Scope::Host => same_host(),
            Scope::Domain => {
                let same_domain = match &host {
                    Host::Domain(name) if !self.domains.is_empty() => {
                        registered_domain(name).is_some_and(|domain| self.domains.contains(domain))
                    }
                    _ => false,
                };
                same_domain || same_host()
            }
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

    /// Hosts that meet every rule of [`Scope::in_scope`]: subdomains, public suffixes, the
    /// private suffix `github.io`, unlisted top-level domains, IP literals, other ports.
    const URLS: [&str; 19] = [
        "http://a.test/",
        "https://www.a.test:8443/x",
        "http://b.a.test/",
        "http://co.uk/",
        "http://www.x.co.uk/",
        "https://y.x.co.uk/",
        "http://127.0.0.1/",
        "http://127.0.0.1:81/",
        "http://[::1]/",
        "http://10.0.0.1/",
        "http://a.github.io/",
        "http://b.github.io/",
        "http://github.io/",
        "http://localhost/",
        "http://h1.web.test/",
        "http://h2.web.test/",
        "http://web.test/",
        "http://test/",
        "ftp://a.test/",
    ];

    fn parse(index: usize) -> Url {
        // The last is not canonical (another scheme): parsed as it is.
        canonicalize(URLS[index]).unwrap_or_else(|_| Url::parse(URLS[index]).unwrap())
    }

    proptest::proptest! {
        /// The sets answer what the pass over the seeds answers, for every scope.
        #[test]
        fn a_seed_scope_is_the_pass_over_its_seeds(
            seeds in proptest::collection::vec(0..URLS.len(), 0..6),
            candidate in 0..URLS.len(),
            scope in proptest::sample::select(vec![Scope::Host, Scope::Domain, Scope::Any]),
        ) {
            let seeds: Vec<Url> = seeds.into_iter().map(parse).collect();
            let mut set = SeedScope::new(scope);
            for seed in &seeds {
                set.add(seed);
            }
            let candidate = parse(candidate);
            let expected = seeds.iter().any(|seed| scope.in_scope(seed, &candidate));
            proptest::prop_assert_eq!(set.contains(&candidate), expected, "{} {:?}", candidate, seeds);
        }
    }
}
