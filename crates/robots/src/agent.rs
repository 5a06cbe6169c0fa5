//! Product tokens: the names that `User-agent` lines give and that crawlers match on
//! (RFC 9309 §2.2.1).
//!
//! "Crawlers set their own name, which is called a product token, to find relevant groups. The
//! product token MUST contain only uppercase and lowercase letters ("a-z" and "A-Z"),
//! underscores ("_"), and hyphens ("-")." and "Crawlers MUST use case-insensitive matching to
//! find the group that matches the product token".

/// Whether `octet` may appear in a product token.
const fn is_token_octet(octet: u8) -> bool {
    octet.is_ascii_alphabetic() || matches!(octet, b'_' | b'-')
}

/// The product token at the start of a `User-Agent` header or a `User-agent:` line value:
/// its leading run of letters, `_` and `-`. `"freshet/0.1 (+https://example.org/bot)"` gives
/// `"freshet"`, `"FooBot/1.2"` gives `"FooBot"`, and `"Foo Bar"` gives `"Foo"` (Google's parser
/// reads `User-agent:` values the same way). Empty when the value starts with anything else.
///
/// ```
/// assert_eq!(freshet_robots::product_token("freshet/0.1 (+https://example.org/bot)"), "freshet");
/// ```
pub fn product_token(user_agent: &str) -> &str {
    let end = user_agent.bytes().position(|octet| !is_token_octet(octet)).unwrap_or(user_agent.len());
    &user_agent[..end]
}

/// Whether `name` is a product token: non-empty, letters, `_` and `-` only.
pub fn is_product_token(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(is_token_octet)
}

/// What a `User-agent:` line names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum AgentLine {
    /// `*`: the group for every crawler that no other group names. Like Google, a `*`
    /// followed by white space and more text is still `*`.
    Global,
    /// A product token, lower-cased.
    Token(Box<str>),
    /// A value that starts with no product token (`User-agent: /bot`): it names no crawler.
    Nobody,
}

impl AgentLine {
    /// Reads a `User-agent:` line value (already trimmed).
    pub(crate) fn parse(value: &[u8]) -> Self {
        match value {
            [b'*'] => return Self::Global,
            [b'*', next, ..] if next.is_ascii_whitespace() => return Self::Global,
            _ => {}
        }
        let end = value.iter().position(|&octet| !is_token_octet(octet)).unwrap_or(value.len());
        if end == 0 {
            return Self::Nobody;
        }
        // Every octet before `end` is ASCII, so this is valid UTF-8.
        let token: String =
            value[..end].iter().map(|&octet| char::from(octet.to_ascii_lowercase())).collect();
        Self::Token(token.into_boxed_str())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn product_token_is_the_leading_name() {
        assert_eq!(product_token("FooBot/1.2"), "FooBot");
        assert_eq!(product_token("Foo Bar"), "Foo");
        assert_eq!(product_token("foo_bar-baz"), "foo_bar-baz");
        assert_eq!(product_token("/x"), "");
        assert_eq!(product_token(""), "");
    }

    #[test]
    fn product_tokens_are_letters_underscores_and_hyphens() {
        assert!(is_product_token("Foo-Bot_x"));
        assert!(!is_product_token("Foo Bar"));
        assert!(!is_product_token("bot2"));
        assert!(!is_product_token(""));
        assert!(!is_product_token("*"));
    }

    #[test]
    fn agent_lines() {
        assert_eq!(AgentLine::parse(b"*"), AgentLine::Global);
        assert_eq!(AgentLine::parse(b"* x"), AgentLine::Global);
        assert_eq!(AgentLine::parse(b"*bot"), AgentLine::Nobody);
        assert_eq!(AgentLine::parse(b"FooBot/1.2"), AgentLine::Token("foobot".into()));
        assert_eq!(AgentLine::parse(b"FOO BAR"), AgentLine::Token("foo".into()));
        assert_eq!(AgentLine::parse(b"2bot"), AgentLine::Nobody);
    }
}
