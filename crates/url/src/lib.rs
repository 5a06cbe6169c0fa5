//! URLs for a crawler: canonical forms for the seen-set and the frontier, registered domains
//! and crawl scope, and the address-safety check after DNS resolution.
//!
//! # Main items
//! - [`canonicalize`], [`resolve`], [`canonicalize_url`]: one spelling per resource, built on
//!   the `url` crate (WHATWG URL parsing, which already does IDNA, case, ports, dot segments
//!   and IP literals); the `canonical` module's table lists every rule, who applies it, and
//!   the test that pins it. [`path_and_query`] gives what robots.txt rules match against.
//! - [`registered_domain`] (Mozilla's public suffix list, crate `psl`, IP literals checked
//!   first) and [`Scope`] (`Host`, `Domain`, `Any`) with [`Scope::in_scope`].
//! - [`classify`] and [`AddressClass`]: loopback, private, link-local, unique-local,
//!   unspecified, multicast, documentation, CGNAT…, for IPv6 addresses carrying IPv4 ones too;
//!   [`is_refused_by_default`] for the crawler's connect-time check.
//!
//! Pure: no I/O (DNS is the caller's), no clock.
//!
//! ```
//! use freshet_url::{Scope, canonicalize, resolve};
//! let seed = canonicalize("https://Example.com:443/docs/").unwrap();
//! let link = resolve(&seed, "./a/../intro.html#top").unwrap();
//! assert_eq!(link.as_str(), "https://example.com/docs/intro.html");
//! assert!(Scope::Host.in_scope(&seed, &link));
//! ```

mod address;
mod canonical;
mod error;
mod scope;

pub use address::{AddressClass, classify, is_refused_by_default};
pub use canonical::{
    SESSION_PARAMETERS, canonicalize, canonicalize_url, origin_key, path_and_query, resolve,
};
pub use error::UrlError;
pub use scope::{Scope, SeedScope, registered_domain};
pub use url::Url;
