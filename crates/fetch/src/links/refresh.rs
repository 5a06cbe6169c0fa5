//! The URL in a `<meta http-equiv=refresh content="5; url=…">`, parsed as the HTML standard
//! says ("shared declarative refresh steps", HTML Living Standard §4.2.5.3).

/// The target of a refresh `content` value, or `None` when it only reloads the page or is
/// malformed. Accepts `5; url=/x`, `0;URL='/x'`, `1, /x` and `2 /x`.
pub(super) fn refresh_url(content: &str) -> Option<&str> {
    let rest = content.trim_start_matches(|c: char| c.is_ascii_whitespace());
    let after_time = rest.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
    if after_time.len() == rest.len() {
        return None; // no time
    }
    if after_time.starts_with(|c: char| !(c == ';' || c == ',' || c.is_ascii_whitespace())) {
        return None;
    }
    let rest = after_time.trim_start_matches(|c: char| c.is_ascii_whitespace());
    let rest = rest.strip_prefix([';', ',']).unwrap_or(rest);
    let mut url = rest.trim_start_matches(|c: char| c.is_ascii_whitespace());
    // `get`, not indexing: the third byte may be inside a character (`u\u{fffd}rl`).
    if let Some(after) =
        url.get(3..).filter(|_| url.get(..3).is_some_and(|word| word.eq_ignore_ascii_case("url")))
    {
        let after = after.trim_start_matches(|c: char| c.is_ascii_whitespace());
        if let Some(value) = after.strip_prefix('=') {
            url = value.trim_start_matches(|c: char| c.is_ascii_whitespace());
        }
    }
    if let Some(quote) = url.chars().next().filter(|c| *c == '"' || *c == '\'') {
        url = &url[1..];
        url = url.split(quote).next().unwrap_or(url);
    }
    let url = url.trim_end_matches(|c: char| c.is_ascii_whitespace());
    (!url.is_empty()).then_some(url)
}

#[cfg(test)]
mod tests {
    use super::refresh_url;

    #[test]
    fn the_usual_forms() {
        assert_eq!(refresh_url("5; url=/next"), Some("/next"));
        assert_eq!(refresh_url("0;URL='/quoted'"), Some("/quoted"));
        assert_eq!(refresh_url("0; url = \"/spaced\" "), Some("/spaced"));
        assert_eq!(refresh_url("1, /comma"), Some("/comma"));
        assert_eq!(refresh_url("2 /bare"), Some("/bare"));
        assert_eq!(refresh_url("3.5;url=http://b.test/"), Some("http://b.test/"));
    }

    #[test]
    fn reload_only_and_malformed() {
        assert_eq!(refresh_url("5"), None);
        assert_eq!(refresh_url("5; "), None);
        assert_eq!(refresh_url("url=/x"), None);
        assert_eq!(refresh_url("5x; url=/x"), None);
    }

    /// A character of several bytes across the third byte was sliced through and panicked
    /// (found by `freshet-hostile`'s mutations of `links`).
    #[test]
    fn a_character_across_the_third_byte_is_a_target() {
        assert_eq!(refresh_url("0; u\u{fffd}rl=/x"), Some("u\u{fffd}rl=/x"));
        assert_eq!(refresh_url("0; ur\u{e9}"), Some("ur\u{e9}"));
        assert_eq!(refresh_url("0; \u{e9}"), Some("\u{e9}"));
    }

    #[test]
    fn url_without_equals_is_part_of_the_target() {
        assert_eq!(refresh_url("0; urlish.html"), Some("urlish.html"));
    }
}
