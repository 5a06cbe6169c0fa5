//! Redirect chains, hop by hop: the fetcher never follows a redirect by itself, because each
//! hop is a new URL that the crawler must check (robots.txt, scope, politeness) before
//! fetching, and record. [`RedirectChain`] is the bookkeeping: the hop limit and loop detection
//! on canonical URLs. Pure.

use std::collections::HashSet;

use freshet_url::Url;

/// Why a redirect chain stops before reaching a page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RedirectStop {
    /// The next hop is a URL the chain already visited.
    Loop {
        /// The URL seen twice.
        url: Url,
    },
    /// More hops than allowed.
    TooManyHops {
        /// The limit.
        max_hops: usize,
    },
    /// The caller refused the next hop (robots.txt, scope…).
    Refused {
        /// The URL refused.
        url: Url,
    },
}

/// The URLs of one redirect chain so far.
///
/// ```
/// use freshet_fetch::{RedirectChain, RedirectStop};
/// let url = |s: &str| freshet_url::canonicalize(s).unwrap();
/// let mut chain = RedirectChain::new(url("http://a.test/loop/a"), 5);
/// assert_eq!(chain.hop(url("http://a.test/loop/b")), Ok(()));
/// assert_eq!(chain.hop(url("http://a.test/loop/a")), Err(RedirectStop::Loop { url: url("http://a.test/loop/a") }));
/// ```
#[derive(Clone, Debug)]
pub struct RedirectChain {
    seen: HashSet<Url>,
    hops: usize,
    max_hops: usize,
}

impl RedirectChain {
    /// A chain starting at `start`, allowing at most `max_hops` redirects.
    pub fn new(start: Url, max_hops: usize) -> Self {
        Self { seen: HashSet::from([start]), hops: 0, max_hops }
    }

    /// Records a redirect to `next`, or says why the chain must stop there.
    pub fn hop(&mut self, next: Url) -> Result<(), RedirectStop> {
        if self.seen.contains(&next) {
            return Err(RedirectStop::Loop { url: next });
        }
        if self.hops == self.max_hops {
            return Err(RedirectStop::TooManyHops { max_hops: self.max_hops });
        }
        self.hops += 1;
        self.seen.insert(next);
        Ok(())
    }

    /// Redirects taken so far.
    pub fn hops(&self) -> usize {
        self.hops
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn url(s: &str) -> Url {
        freshet_url::canonicalize(s).unwrap()
    }

    #[test]
    fn a_self_redirect_is_a_loop() {
        let mut chain = RedirectChain::new(url("http://a.test/self"), 10);
        assert_eq!(
            chain.hop(url("http://a.test/self")),
            Err(RedirectStop::Loop { url: url("http://a.test/self") })
        );
    }

    #[test]
    fn an_endless_chain_stops_at_the_limit() {
        let mut chain = RedirectChain::new(url("http://a.test/chain/0"), 3);
        for n in 1..=3 {
            assert_eq!(chain.hop(url(&format!("http://a.test/chain/{n}"))), Ok(()));
        }
        assert_eq!(chain.hop(url("http://a.test/chain/4")), Err(RedirectStop::TooManyHops { max_hops: 3 }));
        assert_eq!(chain.hops(), 3);
    }
}
