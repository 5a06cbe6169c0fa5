//! What a robots.txt fetch's HTTP status means (RFC 9309 §2.3.1), and the redirect count.
//!
//! The caller does the I/O: it fetches `/robots.txt`, passes the status to [`classify`], follows
//! redirects while [`Redirects::follow`] allows, and hands the end result to
//! [`crate::RobotsEntry`] as a [`FetchOutcome`].

/// The maximum number of consecutive redirects followed for a robots.txt file: "crawlers SHOULD
/// follow at least five consecutive redirects, even across authorities" (RFC 9309 §2.3.1.2).
pub const MAX_REDIRECTS: u8 = 5;

/// What to do with a robots.txt response, by its status code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatusClass {
    /// 2xx: parse the body (§2.3.1.1).
    Parse,
    /// 304 Not Modified to a conditional request: the cached copy is still current.
    NotModified,
    /// 3xx (but 304): follow the `Location` (§2.3.1.2), if [`Redirects::follow`] allows.
    Redirect,
    /// 4xx (but 429): the file is unavailable, every path may be crawled (§2.3.1.3).
    Unavailable,
    /// 5xx, 429, or anything else: the file is unreachable, nothing may be crawled (§2.3.1.4).
    Unreachable,
}

/// Classifies a robots.txt response status.
///
/// 429 Too Many Requests is a 4xx code, but it says "slow down", not "there is no file":
/// reading it as "crawl everything" would answer a request for restraint with a crawl. We read
/// it as unreachable, as Google does. 1xx and codes outside 100–599 are unreachable too.
pub fn classify(status: u16) -> StatusClass {
    match status {
        200..=299 => StatusClass::Parse,
        304 => StatusClass::NotModified,
        300..=399 => StatusClass::Redirect,
        429 => StatusClass::Unreachable,
        400..=499 => StatusClass::Unavailable,
        _ => StatusClass::Unreachable,
    }
}

/// Counts the redirects of one robots.txt fetch.
///
/// ```
/// use freshet_robots::Redirects;
/// let mut redirects = Redirects::default();
/// for _ in 0..5 {
///     assert!(redirects.follow());
/// }
/// // A sixth redirect: give up and treat the file as unavailable (RFC 9309 §2.3.1.2).
/// assert!(!redirects.follow());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Redirects {
    followed: u8,
    max: u8,
}

impl Default for Redirects {
    fn default() -> Self {
        Self::new(MAX_REDIRECTS)
    }
}

impl Redirects {
    /// A count that allows `max` redirects.
    pub fn new(max: u8) -> Self {
        Self { followed: 0, max }
    }

    /// Records one more redirect; `false` when it is one too many. Then "crawlers MAY assume
    /// that the robots.txt file is unavailable" (RFC 9309 §2.3.1.2): pass
    /// [`FetchOutcome::Unavailable`]. A redirect loop ends the same way. So does a redirect
    /// without a usable `Location`: the file cannot be reached by following it.
    pub fn follow(&mut self) -> bool {
        if self.followed >= self.max {
            return false;
        }
        self.followed += 1;
        true
    }

    /// How many redirects were followed.
    pub fn followed(&self) -> u8 {
        self.followed
    }
}

/// How a robots.txt fetch ended, after redirects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FetchOutcome<'a> {
    /// A 2xx response with this body (the first [`crate::PARSE_LIMIT_BYTES`] suffice).
    Fetched(&'a [u8]),
    /// 304 to a conditional request.
    NotModified,
    /// A 4xx response (but 429), too many redirects, or a redirect without a usable `Location`.
    Unavailable,
    /// A 5xx or 429 response, a network error, a timeout.
    Unreachable,
}

impl<'a> FetchOutcome<'a> {
    /// The outcome of a final (non-redirect) response. A 3xx here (one that was not followed)
    /// counts as [`FetchOutcome::Unavailable`].
    pub fn from_status(status: u16, body: &'a [u8]) -> Self {
        match classify(status) {
            StatusClass::Parse => Self::Fetched(body),
            StatusClass::NotModified => Self::NotModified,
            StatusClass::Redirect | StatusClass::Unavailable => Self::Unavailable,
            StatusClass::Unreachable => Self::Unreachable,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn status_classes() {
        assert_eq!(classify(200), StatusClass::Parse);
        assert_eq!(classify(204), StatusClass::Parse);
        assert_eq!(classify(301), StatusClass::Redirect);
        assert_eq!(classify(308), StatusClass::Redirect);
        assert_eq!(classify(304), StatusClass::NotModified);
        assert_eq!(classify(401), StatusClass::Unavailable);
        assert_eq!(classify(403), StatusClass::Unavailable);
        assert_eq!(classify(404), StatusClass::Unavailable);
        assert_eq!(classify(410), StatusClass::Unavailable);
        assert_eq!(classify(429), StatusClass::Unreachable);
        assert_eq!(classify(500), StatusClass::Unreachable);
        assert_eq!(classify(503), StatusClass::Unreachable);
        assert_eq!(classify(100), StatusClass::Unreachable);
        assert_eq!(classify(0), StatusClass::Unreachable);
        assert_eq!(classify(600), StatusClass::Unreachable);
    }

    #[test]
    fn five_redirects_are_followed_not_six() {
        let mut redirects = Redirects::default();
        assert!((0..5).all(|_| redirects.follow()));
        assert_eq!(redirects.followed(), 5);
        assert!(!redirects.follow());
        assert_eq!(redirects.followed(), 5);
    }

    #[test]
    fn outcomes_from_final_statuses() {
        assert_eq!(FetchOutcome::from_status(200, b"x"), FetchOutcome::Fetched(b"x"));
        assert_eq!(FetchOutcome::from_status(302, b""), FetchOutcome::Unavailable);
        assert_eq!(FetchOutcome::from_status(404, b""), FetchOutcome::Unavailable);
        assert_eq!(FetchOutcome::from_status(503, b""), FetchOutcome::Unreachable);
        assert_eq!(FetchOutcome::from_status(304, b""), FetchOutcome::NotModified);
    }
}
