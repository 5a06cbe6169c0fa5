//! Which media types a crawl wants (`content-types` in `freshet crawl`'s config): a page whose
//! 2xx answer declares another type is not downloaded — the fetcher stops after the response
//! head — and the crawler logs it as [`crate::Outcome::UnwantedContentType`].
//!
//! A pattern is a media type `type/subtype` (RFC 9110 §8.3.1), `type/*`, or `*/*`; matching is
//! case-insensitive and ignores parameters (`text/html; charset=utf-8` is `text/html`). An
//! answer without a `Content-Type` is taken: the link extractor sniffs it as HTML, as browsers
//! do (RFC 9110 §8.3 lets a recipient examine the data), and refusing it would lose the many
//! pages served without one. The empty list wants everything (the default).

use std::fmt;

use crate::error::FetchError;

/// The media types a crawl wants; empty: all.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ContentTypes {
    /// Lower-case `type/subtype`, `type/*` or `*/*`.
    patterns: Vec<String>,
}

impl ContentTypes {
    /// Every type (no filter).
    #[must_use]
    pub fn all() -> Self {
        Self::default()
    }

    /// The patterns given, checked: each must be `type/subtype`, `type/*` or `*/*` with RFC 9110
    /// token characters.
    ///
    /// ```
    /// use freshet_fetch::ContentTypes;
    /// let html = ContentTypes::parse(["text/html", "application/xhtml+xml", "image/*"]).unwrap();
    /// assert!(html.allows(Some("Text/HTML; charset=utf-8")));
    /// assert!(html.allows(Some("image/png")));
    /// assert!(!html.allows(Some("application/pdf")));
    /// assert!(html.allows(None));
    /// assert!(ContentTypes::parse(["html"]).is_err());
    /// ```
    ///
    /// # Errors
    /// [`FetchError::BadContentType`] naming the first bad pattern.
    pub fn parse<I, S>(patterns: I) -> Result<Self, FetchError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut checked = Vec::new();
        for pattern in patterns {
            let pattern = pattern.as_ref().trim().to_ascii_lowercase();
            let bad = || FetchError::BadContentType { given: pattern.clone() };
            let (kind, subtype) = pattern.split_once('/').ok_or_else(bad)?;
            let wildcard_type = kind == "*";
            if !(is_token(kind) || wildcard_type)
                || !(is_token(subtype) || subtype == "*")
                || (wildcard_type && subtype != "*")
            {
                return Err(bad());
            }
            checked.push(pattern);
        }
        Ok(Self { patterns: checked })
    }

    /// Whether every type is wanted.
    #[must_use]
    pub fn is_all(&self) -> bool {
        self.patterns.is_empty() || self.patterns.iter().any(|pattern| pattern == "*/*")
    }

    /// Whether an answer whose `Content-Type` header is `header` is wanted (see the module
    /// docs for a missing header).
    #[must_use]
    pub fn allows(&self, header: Option<&str>) -> bool {
        if self.is_all() {
            return true;
        }
        let Some(header) = header else { return true };
        let media_type = header.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
        let Some((kind, _)) = media_type.split_once('/') else { return false };
        self.patterns.iter().any(|pattern| match pattern.strip_suffix("/*") {
            Some(wanted_kind) => wanted_kind == kind,
            None => *pattern == media_type,
        })
    }
}

impl fmt::Display for ContentTypes {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_all() {
            return formatter.write_str("*/*");
        }
        formatter.write_str(&self.patterns.join(", "))
    }
}

/// RFC 9110 §5.6.2 `token`.
fn is_token(text: &str) -> bool {
    !text.is_empty()
        && text.bytes().all(|byte| byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte))
        && text != "*"
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_list_and_star_star_take_everything() {
        for types in [ContentTypes::all(), ContentTypes::parse(["*/*", "text/html"]).unwrap()] {
            assert!(types.is_all());
            assert!(types.allows(Some("application/octet-stream")));
            assert!(types.allows(Some("garbage")));
        }
    }

    #[test]
    fn exact_and_wildcard_patterns_match_the_media_type_only() {
        let types = ContentTypes::parse(["text/html", "image/*"]).unwrap();
        assert!(types.allows(Some(" text/html ;charset=latin1")));
        assert!(types.allows(Some("IMAGE/webp")));
        assert!(!types.allows(Some("text/plain")));
        assert!(!types.allows(Some("text/html-sandboxed")));
        assert!(!types.allows(Some("imagex/png")));
        assert!(!types.allows(Some("")));
        assert!(!types.allows(Some("nonsense")));
        assert_eq!(types.to_string(), "text/html, image/*");
    }

    #[test]
    fn bad_patterns_are_named() {
        for bad in ["", "html", "text/", "/html", "*/html", "text/ht ml", "te(xt/html", "text/html/x"] {
            let error = ContentTypes::parse([bad]).unwrap_err();
            assert!(error.to_string().contains(&format!("{:?}", bad.to_ascii_lowercase())), "{error}");
        }
    }
}
