//! Address-safe name resolution: the resolver reqwest calls before every new connection.
//!
//! The check is on the resolved address, not the URL's host name, and the connection goes to
//! exactly the address checked: reqwest's connector connects to the addresses this resolver
//! returns and nothing else, so a name that answers "public" to the check and "private" to the
//! connect (DNS rebinding) cannot slip through, as it could if we resolved, checked, and let the
//! client resolve again. Addresses that `freshet_url::classify` does not call public are
//! dropped unless private addresses are allowed; a name left with none fails with
//! [`AddressRefused`], which the fetcher turns into [`crate::Outcome::AddressRefused`].
//!
//! Overrides (`--resolve HOST=IP`, as curl's option; `*.web.test=IP` gives every name under
//! `web.test` that address, as a wildcard DNS record does) are applied here too, not with reqwest's
//! own `ClientBuilder::resolve`, whose overrides bypass a custom resolver's checks: an override
//! to `127.0.0.1` still needs `allow_private`.
//!
//! Resolution itself is tokio's `lookup_host` (the system resolver, `getaddrinfo`, on the
//! blocking pool): no second resolver to configure, and `/etc/hosts` works. Its answers are
//! kept for [`CACHE_TTL`] (the system resolver gives no record TTLs), because the per-IP limit
//! ([`crate::ip_limit`]) needs a host's address before every request, not only before a new
//! connection. The cache holds only addresses that passed the check, and the connection still
//! goes to exactly those: caching does not reopen the rebinding hole.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use freshet_url::{AddressClass, classify};
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// Every address of a host name was refused by the address-safety check.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{host}: every address is refused ({})", describe(.addresses))]
pub struct AddressRefused {
    /// The host name.
    pub host: String,
    /// Its addresses and their classes.
    pub addresses: Vec<(IpAddr, AddressClass)>,
}

fn describe(addresses: &[(IpAddr, AddressClass)]) -> String {
    addresses.iter().map(|(ip, class)| format!("{ip} is {class:?}")).collect::<Vec<_>>().join(", ")
}

/// The name did not resolve.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{host}: name resolution failed: {message}")]
pub struct ResolveFailed {
    /// The host name.
    pub host: String,
    /// What the system resolver said.
    pub message: String,
}

/// The resolver: overrides, then the system resolver, then the address-safety filter.
#[derive(Clone, Debug, Default)]
pub(crate) struct SafeResolver {
    /// Lower-case host name → addresses, as `--resolve` gave them.
    overrides: Arc<HashMap<String, Vec<IpAddr>>>,
    /// Whether non-public addresses are allowed.
    allow_private: bool,
    /// Lower-case host name → its allowed addresses and when they were resolved.
    cache: Arc<Mutex<HashMap<String, Resolved>>>,
}

/// A name's allowed addresses and when they were resolved.
type Resolved = (Arc<[IpAddr]>, Instant);

/// How long a resolved name's addresses are reused.
pub(crate) const CACHE_TTL: Duration = Duration::from_secs(60);

/// The cache is emptied when it holds more names than this (a crawl of very many hosts).
const CACHE_NAMES: usize = 100_000;

impl SafeResolver {
    pub(crate) fn new(overrides: &[(String, IpAddr)], allow_private: bool) -> Self {
        let mut map: HashMap<String, Vec<IpAddr>> = HashMap::new();
        for (host, ip) in overrides {
            map.entry(host.to_ascii_lowercase()).or_default().push(*ip);
        }
        Self { overrides: Arc::new(map), allow_private, cache: Arc::default() }
    }

    /// The check applied to an address, also used for IP-literal URLs, which reqwest's
    /// connector never passes to a resolver.
    pub(crate) fn refuses(&self, address: IpAddr) -> bool {
        !self.allow_private && !classify(address).is_public()
    }

    /// Resolves `host` and filters its addresses (see the module docs), from the cache when
    /// it was resolved less than [`CACHE_TTL`] ago.
    pub(crate) async fn lookup(&self, host: &str) -> Result<Arc<[IpAddr]>, ResolveError> {
        let name = host.to_ascii_lowercase();
        if let Some((addresses, at)) = self.cache.lock().unwrap_or_else(PoisonError::into_inner).get(&name)
            && at.elapsed() < CACHE_TTL
        {
            return Ok(Arc::clone(addresses));
        }
        let allowed: Arc<[IpAddr]> = self.lookup_uncached(host).await?.into();
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        if cache.len() >= CACHE_NAMES {
            cache.clear();
        }
        cache.insert(name, (Arc::clone(&allowed), Instant::now()));
        Ok(allowed)
    }

    /// The addresses an override gives `name` (lower-case): its own entry, else that of the
    /// nearest wildcard above it (`*.web.test` gives `a.b.web.test` and `b.web.test` their
    /// addresses, not `web.test`), as a wildcard DNS record does.
    fn overridden(&self, name: &str) -> Option<&Vec<IpAddr>> {
        if self.overrides.is_empty() {
            return None;
        }
        self.overrides.get(name).or_else(|| {
            name.match_indices('.').find_map(|(dot, _)| self.overrides.get(&format!("*{}", &name[dot..])))
        })
    }

    async fn lookup_uncached(&self, host: &str) -> Result<Vec<IpAddr>, ResolveError> {
        let addresses = match self.overridden(&host.to_ascii_lowercase()) {
            Some(addresses) => addresses.clone(),
            None => tokio::net::lookup_host((host, 0))
                .await
                .map_err(|error| {
                    ResolveError::Failed(ResolveFailed { host: host.to_owned(), message: error.to_string() })
                })?
                .map(|socket| socket.ip())
                .collect(),
        };
        let (allowed, refused): (Vec<IpAddr>, Vec<IpAddr>) =
            addresses.into_iter().partition(|address| !self.refuses(*address));
        if allowed.is_empty() {
            if refused.is_empty() {
                return Err(ResolveError::Failed(ResolveFailed {
                    host: host.to_owned(),
                    message: "no addresses".to_owned(),
                }));
            }
            let addresses = refused.into_iter().map(|ip| (ip, classify(ip))).collect();
            return Err(ResolveError::Refused(AddressRefused { host: host.to_owned(), addresses }));
        }
        Ok(allowed)
    }
}

/// Why [`SafeResolver::lookup`] gave no address.
#[derive(Clone, Debug, thiserror::Error)]
pub(crate) enum ResolveError {
    #[error(transparent)]
    Refused(AddressRefused),
    #[error(transparent)]
    Failed(ResolveFailed),
}

impl Resolve for SafeResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let resolver = self.clone();
        Box::pin(async move {
            // The concrete error types go into the box, so the fetcher can find them among the
            // causes of reqwest's error.
            let addresses = resolver.lookup(name.as_str()).await.map_err(
                |error| -> Box<dyn std::error::Error + Send + Sync> {
                    match error {
                        ResolveError::Refused(refused) => Box::new(refused),
                        ResolveError::Failed(failed) => Box::new(failed),
                    }
                },
            )?;
            // Port 0: the connector puts the URL's port in.
            let addrs: Addrs =
                Box::new(addresses.iter().map(|ip| SocketAddr::new(*ip, 0)).collect::<Vec<_>>().into_iter());
            Ok(addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[tokio::test]
    async fn loopback_is_refused_unless_allowed() {
        let loopback: IpAddr = "127.0.0.1".parse().unwrap();
        let strict = SafeResolver::new(&[("a.test".into(), loopback)], false);
        match strict.lookup("A.Test").await {
            Err(ResolveError::Refused(refused)) => {
                assert_eq!(refused.addresses, [(loopback, AddressClass::Loopback)]);
                assert!(refused.to_string().contains("127.0.0.1 is Loopback"), "{refused}");
            }
            other => panic!("{other:?}"),
        }
        let open = SafeResolver::new(&[("a.test".into(), loopback)], true);
        assert_eq!(*open.lookup("a.test").await.unwrap(), [loopback]);
    }

    /// A wildcard override answers every name under it, the nearest wildcard winning, and
    /// never the name it stands under; an exact override beats it.
    #[tokio::test]
    async fn a_wildcard_override_answers_the_names_under_it() {
        let [one, two, three]: [IpAddr; 3] =
            ["10.0.0.1", "10.0.0.2", "10.0.0.3"].map(|ip| ip.parse().unwrap());
        let resolver = SafeResolver::new(
            &[("*.web.test".into(), one), ("*.trap.web.test".into(), two), ("x.web.test".into(), three)],
            true,
        );
        for (name, ip) in
            [("a.web.test", one), ("A.B.Web.Test", one), ("w7.trap.web.test", two), ("x.web.test", three)]
        {
            assert_eq!(*resolver.lookup(name).await.unwrap(), [ip], "{name}");
        }
        assert_eq!(resolver.overridden("trap.web.test"), Some(&vec![one]));
        assert_eq!(resolver.overridden("web.test"), None);
        assert_eq!(resolver.overridden("aweb.test"), None);
    }

    #[tokio::test]
    async fn only_the_public_addresses_of_a_mixed_answer_are_kept() {
        let public: IpAddr = "93.184.215.14".parse().unwrap();
        let private: IpAddr = "10.0.0.1".parse().unwrap();
        let resolver = SafeResolver::new(&[("m.test".into(), private), ("m.test".into(), public)], false);
        assert_eq!(*resolver.lookup("m.test").await.unwrap(), [public]);
    }

    #[tokio::test]
    async fn system_resolution_of_localhost_is_checked_too() {
        let resolver = SafeResolver::new(&[], false);
        assert!(matches!(resolver.lookup("localhost").await, Err(ResolveError::Refused(_))));
    }
}
