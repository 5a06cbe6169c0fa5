//! What one sitemap entry says: its URL, `changefreq` as an approximate rate, `priority`, and
//! where a listed URL may live (the protocol's location rule and its cross-submit allowance).

use freshet_url::Url;

use super::datetime::LastModified;

/// The protocol's default `priority` when an entry gives none (sitemaps.org, "XML tag
/// definitions").
pub const DEFAULT_PRIORITY: f64 = 0.5;

/// A `<changefreq>` value: how often the site says a page changes. The protocol calls it "a
/// hint and not a command", so [`ChangeFrequency::rate_per_second`] is a prior for the change
/// estimators, not an observation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChangeFrequency {
    /// Changes each time it is accessed.
    Always,
    /// About once an hour.
    Hourly,
    /// About once a day.
    Daily,
    /// About once a week.
    Weekly,
    /// About once a month.
    Monthly,
    /// About once a year.
    Yearly,
    /// Archived: never changes again.
    Never,
}

/// Seconds in a mean Gregorian year (365.2425 days).
const YEAR_SECONDS: f64 = 365.2425 * 86_400.0;

impl ChangeFrequency {
    /// Parses a `changefreq` value (ASCII case-insensitive, whitespace trimmed).
    ///
    /// ```
    /// use freshet_fetch::sitemap::ChangeFrequency;
    /// assert_eq!(ChangeFrequency::parse(" Daily "), Some(ChangeFrequency::Daily));
    /// assert_eq!(ChangeFrequency::parse("fortnightly"), None);
    /// ```
    #[must_use]
    pub fn parse(value: &str) -> Option<Self> {
        let value = value.trim();
        [
            ("always", Self::Always),
            ("hourly", Self::Hourly),
            ("daily", Self::Daily),
            ("weekly", Self::Weekly),
            ("monthly", Self::Monthly),
            ("yearly", Self::Yearly),
            ("never", Self::Never),
        ]
        .into_iter()
        .find_map(|(name, frequency)| value.eq_ignore_ascii_case(name).then_some(frequency))
    }

    /// The change rate the value stands for, in changes per second: one over the period
    /// (a month is a twelfth of a mean Gregorian year, 30.436875 days); `0` for `never`;
    /// `None` for `always`, whose rate is unbounded (every fetch sees a new version, so a rate
    /// estimate means nothing).
    ///
    /// ```
    /// use freshet_fetch::sitemap::ChangeFrequency;
    /// assert_eq!(ChangeFrequency::Daily.rate_per_second(), Some(1.0 / 86_400.0));
    /// assert_eq!(ChangeFrequency::Never.rate_per_second(), Some(0.0));
    /// assert_eq!(ChangeFrequency::Always.rate_per_second(), None);
    /// ```
    #[must_use]
    pub fn rate_per_second(self) -> Option<f64> {
        let period = match self {
            Self::Always => return None,
            Self::Never => return Some(0.0),
            Self::Hourly => 3_600.0,
            Self::Daily => 86_400.0,
            Self::Weekly => 7.0 * 86_400.0,
            Self::Monthly => YEAR_SECONDS / 12.0,
            Self::Yearly => YEAR_SECONDS,
        };
        Some(1.0 / period)
    }
}

/// One `<url>` of a urlset, or one line of a text sitemap.
#[derive(Clone, Debug, PartialEq)]
pub struct SitemapUrl {
    /// `<loc>`, canonicalised (`freshet_url::canonicalize`).
    pub url: Url,
    /// `<lastmod>`, when given and valid.
    pub last_modified: Option<LastModified>,
    /// `<changefreq>`, when given and valid.
    pub change_frequency: Option<ChangeFrequency>,
    /// `<priority>` in `[0, 1]`; [`DEFAULT_PRIORITY`] when absent or invalid.
    pub priority: f64,
    /// Whether `priority` was given (and valid), rather than the default.
    pub priority_given: bool,
}

/// One `<sitemap>` of a sitemap index: another sitemap file to fetch.
#[derive(Clone, Debug, PartialEq)]
pub struct SitemapRef {
    /// `<loc>`, canonicalised.
    pub url: Url,
    /// `<lastmod>`: when that sitemap file last changed, when given and valid.
    pub last_modified: Option<LastModified>,
}

/// Which URLs a sitemap may list. The protocol ("Sitemap file location") says a sitemap at
/// `http://example.com/catalog/sitemap.xml` may list only URLs that start with
/// `http://example.com/catalog/` (same scheme, host and port, under the sitemap's directory),
/// and a sitemap index only sitemaps "on the same site"; but a sitemap named in a host's
/// robots.txt may list URLs of that host, wherever the sitemap itself lives ("Sitemaps &
/// Cross Submits"). A URL outside the rule is an entry problem, not kept.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum LocationRule {
    /// The protocol's default: URLs under the sitemap's directory on its origin; index
    /// entries anywhere on the index's origin.
    #[default]
    SitemapDirectory,
    /// The sitemap (or the index that led to it) was named by the robots.txt at this URL:
    /// anything on that robots.txt's origin (scheme, host, port: RFC 9309 §2.3 scopes a
    /// robots.txt to one origin) is allowed, as well as what [`Self::SitemapDirectory`] allows.
    /// Pass the same rule when fetching the sitemaps an index names.
    ListedInRobotsTxt(Url),
    /// Everything: the caller applies its own scope.
    Any,
}

impl LocationRule {
    /// Whether a `<url>` entry `url` may appear in the sitemap at `sitemap`.
    ///
    /// ```
    /// use freshet_fetch::sitemap::LocationRule;
    /// let url = |s| freshet_url::canonicalize(s).unwrap();
    /// let sitemap = url("http://a.test/catalog/sitemap.xml");
    /// let rule = LocationRule::SitemapDirectory;
    /// assert!(rule.allows_page(&sitemap, &url("http://a.test/catalog/shoes")));
    /// assert!(!rule.allows_page(&sitemap, &url("http://a.test/about")));
    /// let robots = LocationRule::ListedInRobotsTxt(url("http://a.test/robots.txt"));
    /// assert!(robots.allows_page(&sitemap, &url("http://a.test/about")));
    /// assert!(!robots.allows_page(&sitemap, &url("https://a.test/about")));
    /// ```
    #[must_use]
    pub fn allows_page(&self, sitemap: &Url, url: &Url) -> bool {
        let under_directory = || {
            let path = sitemap.path();
            let directory = &path[..path.rfind('/').map_or(0, |slash| slash + 1)];
            url.origin() == sitemap.origin() && url.path().starts_with(directory)
        };
        match self {
            Self::Any => true,
            Self::SitemapDirectory => under_directory(),
            Self::ListedInRobotsTxt(robots) => url.origin() == robots.origin() || under_directory(),
        }
    }

    /// Whether a `<sitemap>` entry `url` may appear in the sitemap index at `index`.
    #[must_use]
    pub fn allows_sitemap(&self, index: &Url, url: &Url) -> bool {
        match self {
            Self::Any => true,
            Self::SitemapDirectory => url.origin() == index.origin(),
            Self::ListedInRobotsTxt(robots) => {
                url.origin() == index.origin() || url.origin() == robots.origin()
            }
        }
    }
}
