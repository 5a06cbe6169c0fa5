//! A page's content signature: the exact hash of its main text, its SimHash, and its word
//! count, with a fixed 21-byte form for the frontier store.

use xxhash_rust::xxh3::Xxh3Default;

use crate::boilerplate::HostBoilerplate;
use crate::error::SignatureError;
use crate::simhash::ShingleHasher;
use crate::text::MainText;

/// What a page's main text is, in 21 bytes: enough to tell, at the next fetch, whether it
/// changed ([`crate::compare`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Signature {
    /// xxh3-64 of the normalised words (boilerplate blocks left out) joined by single spaces.
    /// Block boundaries do not enter it: re-wrapping text in other elements changes nothing.
    pub exact: u64,
    /// 64-bit SimHash over 3-word shingles of the same words ([`crate::simhash`]).
    pub simhash: u64,
    /// Number of words hashed (saturating at `u32::MAX`).
    pub tokens: u32,
}

impl Signature {
    /// Length of [`Signature::to_bytes`].
    pub const ENCODED_LEN: usize = 21;
    /// Format version, the first byte of [`Signature::to_bytes`]; bumped whenever what goes into
    /// the hashes (extraction, normalisation, shingles) changes, so that a store never compares
    /// signatures made by different rules.
    pub const FORMAT_VERSION: u8 = 1;

    /// The signature of a page's HTML (decoded to UTF-8): [`MainText::from_html`] then
    /// [`Signature::of_text`].
    #[must_use]
    pub fn of_html(html: &str, boilerplate: Option<&HostBoilerplate>) -> Self {
        Self::of_text(&MainText::from_html(html), boilerplate)
    }

    /// The signature of `text`, leaving out the blocks that `boilerplate` (the page's host's
    /// table, if any) holds for boilerplate.
    #[must_use]
    pub fn of_text(text: &MainText, boilerplate: Option<&HostBoilerplate>) -> Self {
        Self::of_text_without(text, |hash| boilerplate.is_some_and(|table| table.is_boilerplate(hash)))
    }

    /// The signature of `text` without the blocks whose hash `is_boilerplate` names: what
    /// [`Signature::of_text`] computes with a table, here with any set of block hashes (a
    /// [`crate::BoilerplateSet`] taken from a table, off the thread that owns it).
    #[must_use]
    pub fn of_text_without(text: &MainText, is_boilerplate: impl Fn(u64) -> bool) -> Self {
        let mut exact = Xxh3Default::new();
        let mut shingles = ShingleHasher::new();
        let mut tokens: u32 = 0;
        for block in text.blocks().iter().filter(|block| !is_boilerplate(block.hash())) {
            // A block's text is its words joined by single spaces, so hashing it whole (with a
            // space between blocks) hashes the words joined by single spaces.
            if tokens > 0 {
                exact.update(b" ");
            }
            exact.update(block.text().as_bytes());
            let words = shingles.push_words(block.text());
            tokens = tokens.saturating_add(u32::try_from(words).unwrap_or(u32::MAX));
        }
        Self { exact: exact.digest(), simhash: shingles.finish(), tokens }
    }

    /// The fixed byte form: [`Self::FORMAT_VERSION`], then `exact`, `simhash` and `tokens`
    /// little-endian (1 + 8 + 8 + 4 bytes).
    #[must_use]
    pub fn to_bytes(&self) -> [u8; Self::ENCODED_LEN] {
        let mut bytes = [0u8; Self::ENCODED_LEN];
        bytes[0] = Self::FORMAT_VERSION;
        bytes[1..9].copy_from_slice(&self.exact.to_le_bytes());
        bytes[9..17].copy_from_slice(&self.simhash.to_le_bytes());
        bytes[17..21].copy_from_slice(&self.tokens.to_le_bytes());
        bytes
    }

    /// Reads [`Self::to_bytes`]'s form back.
    ///
    /// # Errors
    /// [`SignatureError::WrongLength`] unless `bytes` is [`Self::ENCODED_LEN`] long;
    /// [`SignatureError::UnknownVersion`] if its first byte is not [`Self::FORMAT_VERSION`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, SignatureError> {
        let bytes: &[u8; Self::ENCODED_LEN] = bytes
            .try_into()
            .map_err(|_| SignatureError::WrongLength { expected: Self::ENCODED_LEN, found: bytes.len() })?;
        if bytes[0] != Self::FORMAT_VERSION {
            return Err(SignatureError::UnknownVersion { found: bytes[0], expected: Self::FORMAT_VERSION });
        }
        let [_, e0, e1, e2, e3, e4, e5, e6, e7, s0, s1, s2, s3, s4, s5, s6, s7, t0, t1, t2, t3] = *bytes;
        Ok(Self {
            exact: u64::from_le_bytes([e0, e1, e2, e3, e4, e5, e6, e7]),
            simhash: u64::from_le_bytes([s0, s1, s2, s3, s4, s5, s6, s7]),
            tokens: u32::from_le_bytes([t0, t1, t2, t3]),
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use xxhash_rust::xxh3::xxh3_64;

    #[test]
    fn exact_hash_is_xxh3_of_the_joined_words() {
        let signature = Signature::of_html("<p>Hello,  <b>World</b>!</p><div>again</div>", None);
        assert_eq!(signature.exact, xxh3_64(b"hello world again"));
        assert_eq!(signature.tokens, 3);
        assert_eq!(signature.simhash, crate::simhash::simhash_of_words(["hello", "world", "again"]));
    }

    #[test]
    fn a_snapshot_of_the_table_gives_the_table_s_signature_while_it_agrees() {
        let mut host = crate::HostBoilerplate::default();
        let page =
            |i: u32| MainText::from_html(&format!("<p>page {i} says {}</p><p>Example Corp</p>", i * 7));
        for i in 0..10 {
            host.learn(&page(i));
        }
        let snapshot = host.snapshot();
        let text = page(3);
        assert!(snapshot.agrees_with(&host, &text));
        let from_snapshot = Signature::of_text_without(&text, |hash| snapshot.contains(hash));
        assert_eq!(from_snapshot, Signature::of_text(&text, Some(&host)));
        assert_ne!(from_snapshot, Signature::of_text(&text, None), "the footer is left out");
        // Ten pages without the footer: it is no longer boilerplate, the snapshot disagrees.
        for i in 10..30 {
            host.learn(&MainText::from_html(&format!("<p>other {i}</p>")));
        }
        assert!(!snapshot.agrees_with(&host, &text));
        assert_eq!(Signature::of_text(&text, Some(&host)), Signature::of_text(&text, None));
    }

    #[test]
    fn bytes_round_trip() {
        let signature = Signature { exact: 0x0102_0304_0506_0708, simhash: u64::MAX - 5, tokens: 1234 };
        let bytes = signature.to_bytes();
        assert_eq!(bytes.len(), Signature::ENCODED_LEN);
        assert_eq!(bytes[0], Signature::FORMAT_VERSION);
        assert_eq!(bytes[1], 0x08, "little-endian");
        assert_eq!(Signature::from_bytes(&bytes).unwrap(), signature);
    }

    #[test]
    fn wrong_input_is_a_typed_error() {
        let bytes = Signature { exact: 1, simhash: 2, tokens: 3 }.to_bytes();
        assert_eq!(
            Signature::from_bytes(&bytes[..20]),
            Err(SignatureError::WrongLength { expected: 21, found: 20 })
        );
        assert_eq!(Signature::from_bytes(&[]), Err(SignatureError::WrongLength { expected: 21, found: 0 }));
        let mut longer = bytes.to_vec();
        longer.push(0);
        assert!(matches!(Signature::from_bytes(&longer), Err(SignatureError::WrongLength { found: 22, .. })));
        let mut other_version = bytes;
        other_version[0] = 2;
        let error = Signature::from_bytes(&other_version).unwrap_err();
        assert_eq!(error, SignatureError::UnknownVersion { found: 2, expected: 1 });
        assert!(error.to_string().contains("version 2"), "{error}");
    }
}
