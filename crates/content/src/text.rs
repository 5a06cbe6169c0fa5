//! The main text of a page as normalised words in blocks, and the normalisation itself.
//!
//! Normalised means: character references decoded (`&amp;` → `&`, by `htmlize`, the HTML
//! tokenizer's rules for text, per text node in [`crate::extract`]), lower-cased with Unicode's full case mapping
//! (`char::to_lowercase`), cut into words at every character that is not alphanumeric
//! (`char::is_alphanumeric`, Unicode-aware: `Straße`, `Ελλάδα` and `東京` are words), and the
//! words joined by one space. Punctuation and whitespace thus never count, and neither does
//! the source's line wrapping.
//!
//! A limitation: scripts written without spaces (Chinese, Japanese, Thai) become one "word"
//! per run of letters, which makes their shingles coarse; segmenting them (UAX #29 or a
//! dictionary) is left for when such pages matter.

use xxhash_rust::xxh3::xxh3_64;

use crate::extract;

/// The text of one block-level element (a paragraph, a list item, a heading…), normalised, and
/// its 64-bit hash: the unit the host boilerplate table counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextBlock {
    text: String,
    hash: u64,
}

impl TextBlock {
    /// The block of `text` (character references decoded) normalised; `None` if it holds no
    /// word.
    #[cfg(test)]
    pub(crate) fn from_text(text: &str) -> Option<Self> {
        Self::from_normalised(normalise(text))
    }

    /// The block whose text `text` is already normalised; `None` if it is empty.
    pub(crate) fn from_normalised(text: String) -> Option<Self> {
        if text.is_empty() {
            return None;
        }
        let hash = xxh3_64(text.as_bytes());
        Some(Self { text, hash })
    }

    /// The normalised text: lower-case words joined by single spaces.
    #[must_use]
    pub fn text(&self) -> &str {
        &self.text
    }

    /// xxh3-64 of [`TextBlock::text`].
    #[must_use]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The block's words in order.
    pub fn words(&self) -> impl Iterator<Item = &str> {
        Words { rest: self.text.as_str() }
    }
}

/// The words of a block's text (never empty, single spaces between words): `split(' ')`, with
/// a plain byte loop, quicker than `split`'s `memchr` on words a few bytes long.
struct Words<'a> {
    rest: &'a str,
}

impl<'a> Iterator for Words<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if self.rest.is_empty() {
            return None;
        }
        match self.rest.bytes().position(|byte| byte == b' ') {
            Some(space) => {
                let (word, rest) = (&self.rest[..space], &self.rest[space + 1..]);
                self.rest = rest;
                Some(word)
            }
            None => Some(std::mem::take(&mut self.rest)),
        }
    }
}

/// What a page says: the normalised text of its blocks in document order, noise elements
/// removed (see [`crate::extract`]'s lists). Made by [`MainText::from_html`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MainText {
    blocks: Vec<TextBlock>,
    parse_error: Option<String>,
}

impl MainText {
    pub(crate) fn new(blocks: Vec<TextBlock>, parse_error: Option<String>) -> Self {
        Self { blocks, parse_error }
    }

    /// The main text of `html` (a whole page or a fragment, already decoded to UTF-8): one
    /// streaming pass of `lol_html`; see the crate docs for what is dropped.
    #[must_use]
    pub fn from_html(html: &str) -> Self {
        extract::main_text(html)
    }

    /// The blocks, in document order; none is empty.
    #[must_use]
    pub fn blocks(&self) -> &[TextBlock] {
        &self.blocks
    }

    /// All words, in document order.
    pub fn words(&self) -> impl Iterator<Item = &str> {
        self.blocks.iter().flat_map(TextBlock::words)
    }

    /// Number of words.
    #[must_use]
    pub fn word_count(&self) -> usize {
        self.blocks.iter().map(|block| block.words().count()).sum()
    }

    /// The words joined by single spaces (what the exact fingerprint hashes when no block is
    /// boilerplate).
    #[must_use]
    pub fn joined(&self) -> String {
        let mut joined = String::new();
        for word in self.words() {
            if !joined.is_empty() {
                joined.push(' ');
            }
            joined.push_str(word);
        }
        joined
    }

    /// Why the parser stopped early, if it did (the text read until then is kept). `lol_html`
    /// runs non-strict here, so this is rare: a memory limit or an internal error.
    #[must_use]
    pub fn parse_error(&self) -> Option<&str> {
        self.parse_error.as_deref()
    }
}

/// `text` lower-cased and cut into words at non-alphanumeric characters, joined by one space.
#[must_use]
pub fn normalise(text: &str) -> String {
    let mut out = Vec::with_capacity(text.len());
    let mut in_word = false;
    normalise_into(text, &mut out, &mut in_word);
    end_normalised(&mut out);
    // `normalise_into` appends whole characters' UTF-8 encodings only, so nothing is replaced
    // here (and nothing copied: a valid vector becomes the string).
    String::from_utf8(out).unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned())
}

/// For each ASCII byte: itself lower-cased if it is a letter or a digit (a word's byte), else 0
/// (a separator).
const ASCII_WORD_BYTES: [u8; 128] = {
    let mut table = [0u8; 128];
    let mut byte = 0;
    while byte < 128 {
        let b = byte as u8;
        if b.is_ascii_alphanumeric() {
            table[byte] = b.to_ascii_lowercase();
        }
        byte += 1;
    }
    table
};

/// Appends the normalised `text` to `out` (UTF-8 bytes); `in_word` says whether `out` ends
/// inside a word that `text` may continue. The first separator after a word is written as a
/// space at once (so `out` may end in one space: [`end_normalised`] takes it off), later ones
/// are not. Normalising `a` then `b` with the same `out` and `in_word`, then ending, gives what
/// normalising `a + b` gives, since a word boundary depends on nothing but the characters: the
/// extractor normalises a block text node by text node, without first copying the nodes
/// together.
///
/// Runs of ASCII (most of most pages) are copied whole, then lower-cased and compacted in
/// place without a branch per byte (a table look-up, an unconditional write, an index step of
/// 0 or 1); other characters are decoded and go through Unicode's rules
/// (`char::is_alphanumeric`, `char::to_lowercase`).
pub(crate) fn normalise_into(text: &str, out: &mut Vec<u8>, in_word: &mut bool) {
    let bytes = text.as_bytes();
    let mut position = 0;
    while position < bytes.len() {
        let rest = &bytes[position..];
        // Most text is ASCII to its end, which `is_ascii` (a word at a time) finds quickest.
        let run = if rest.is_ascii() {
            rest.len()
        } else {
            rest.iter().position(|byte| !byte.is_ascii()).unwrap_or(rest.len())
        };
        if run > 0 {
            ascii_into(&bytes[position..position + run], out, in_word);
            position += run;
            continue;
        }
        // Not ASCII: a multi-byte character starts here (`position` is always on a character
        // boundary), decoded whole.
        let Some(ch) = text[position..].chars().next() else { break };
        if ch.is_alphanumeric() {
            let mut encoded = [0u8; 4];
            for lower in ch.to_lowercase() {
                out.extend_from_slice(lower.encode_utf8(&mut encoded).as_bytes());
            }
            *in_word = true;
        } else {
            if *in_word {
                out.push(b' ');
            }
            *in_word = false;
        }
        position += ch.len_utf8();
    }
}

/// [`normalise_into`] for a run of ASCII bytes: each byte gives at most one, so the run is
/// copied to the end of `out` and rewritten there from left to right (the write index never
/// passes the read index), then the tail cut off.
///
/// Eight bytes at a time where it can (SWAR, "SIMD within a register"): a chunk in which no
/// separator follows a separator (nor starts the chunk outside a word) keeps all its bytes,
/// so it is lower-cased and its separators made spaces in one `u64` and written whole; that
/// is most chunks of prose (words and single spaces). Other chunks, and the last bytes, go
/// byte by byte (a table look-up, an unconditional write, an index step of 0 or 1).
fn ascii_into(run: &[u8], out: &mut Vec<u8>, in_word: &mut bool) {
    let start = out.len();
    out.extend_from_slice(run);
    let mut written = start;
    let mut word = *in_word;
    let mut chunks = run.chunks_exact(8);
    for chunk in &mut chunks {
        // `chunks_exact(8)` gives 8-byte chunks only: the conversion cannot fail.
        let bytes = u64::from_le_bytes(<[u8; 8]>::try_from(chunk).unwrap_or([0; 8]));
        let letters = bytes_in_range(bytes | SWAR_SPACES, b'a', b'z');
        let word_bytes = letters | bytes_in_range(bytes, b'0', b'9');
        let separators = !word_bytes & SWAR_HIGH;
        // Byte `i` of `after_separator` is flagged when byte `i − 1` (little-endian: the one
        // before it in memory) is a separator, or, for byte 0, when no word is open.
        let after_separator = (separators << 8) | if word { 0 } else { 0x80 };
        if separators & after_separator == 0 {
            // Every byte is kept: letters get the lower-case bit, separators become spaces.
            let word_byte_mask = (word_bytes >> 7) * 0xff;
            let mapped = ((bytes | (letters >> 2)) & word_byte_mask) | (SWAR_SPACES & !word_byte_mask);
            out[written..written + 8].copy_from_slice(&mapped.to_le_bytes());
            written += 8;
            word = word_bytes >> 63 != 0;
        } else {
            for &byte in chunk {
                ascii_byte_into(byte, out, &mut written, &mut word);
            }
        }
    }
    for &byte in chunks.remainder() {
        ascii_byte_into(byte, out, &mut written, &mut word);
    }
    out.truncate(written);
    *in_word = word;
}

/// One ASCII byte of [`ascii_into`]'s rewrite, written at `written` (at or before the byte's
/// own place in `out`).
#[inline]
fn ascii_byte_into(byte: u8, out: &mut [u8], written: &mut usize, word: &mut bool) {
    let mapped = ASCII_WORD_BYTES[usize::from(byte & 0x7f)];
    let is_word = mapped != 0;
    out[*written] = if is_word { mapped } else { b' ' };
    // A word byte is kept, and so is the first separator after a word (as a space).
    *written += usize::from(is_word | *word);
    *word = is_word;
}

/// One in every byte of a `u64`.
const SWAR_ONES: u64 = 0x0101_0101_0101_0101;
/// A space (`0x20`, also ASCII's lower-case bit) in every byte of a `u64`.
const SWAR_SPACES: u64 = SWAR_ONES * 0x20;
/// The high bit of every byte of a `u64`.
const SWAR_HIGH: u64 = 0x8080_8080_8080_8080;

/// For eight ASCII bytes (each below `0x80`) in `bytes`: the high bit of each byte that lies in
/// `low..=high` (`1 ≤ low ≤ high < 0x80`). No addition carries out of its byte: a byte plus
/// `0x80 − low` is at most `0xff`, plus `0x7f − high` below `0xff`.
fn bytes_in_range(bytes: u64, low: u8, high: u8) -> u64 {
    let at_least_low = bytes + SWAR_ONES * u64::from(0x80 - low);
    let above_high = bytes + SWAR_ONES * u64::from(0x7f - high);
    at_least_low & !above_high & SWAR_HIGH
}

/// Ends a text [`normalise_into`] wrote: takes off the space a last separator left.
pub(crate) fn end_normalised(out: &mut Vec<u8>) {
    if out.last() == Some(&b' ') {
        out.pop();
    }
}

/// `normalise` as it was first written, char by char: the property test holds the fast one
/// to it.
#[cfg(test)]
fn normalise_by_chars(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_word = false;
    for ch in text.chars() {
        if ch.is_ascii_alphanumeric() {
            if !in_word && !out.is_empty() {
                out.push(' ');
            }
            out.push(ch.to_ascii_lowercase());
            in_word = true;
        } else if !ch.is_ascii() && ch.is_alphanumeric() {
            if !in_word && !out.is_empty() {
                out.push(' ');
            }
            out.extend(ch.to_lowercase());
            in_word = true;
        } else {
            in_word = false;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn normalise_lowercases_and_splits_on_non_alphanumerics() {
        assert_eq!(normalise("  Hello,   World!\n\tIt's 2026 "), "hello world it s 2026");
        assert_eq!(normalise("Straße ΕΛΛΆΔΑ naïve"), "straße ελλάδα naïve");
        assert_eq!(normalise("a—b–c…d"), "a b c d");
        assert_eq!(normalise(" \n\t"), "");
    }

    proptest::proptest! {
        #[test]
        fn normalise_equals_the_char_by_char_rules(text in "[a-zA-Z0-9 ,.&;İßΣσé東京\\-_\t\n\u{300}\u{a0}]{0,80}") {
            proptest::prop_assert_eq!(normalise(&text), normalise_by_chars(&text));
        }

        #[test]
        fn normalising_in_pieces_equals_normalising_the_whole(
            pieces in proptest::collection::vec("[a-zA-Z0-9 ,.&;İßΣσé東京\\-_\t\n\u{300}\u{a0}]{0,12}", 0..6),
        ) {
            let mut out = Vec::new();
            let mut in_word = false;
            for piece in &pieces {
                normalise_into(piece, &mut out, &mut in_word);
            }
            end_normalised(&mut out);
            proptest::prop_assert_eq!(String::from_utf8(out).unwrap(), normalise_by_chars(&pieces.concat()));
        }

        #[test]
        fn normalise_equals_the_char_by_char_rules_on_long_ascii(text in "[a-zA-Z0-9 ,.\\-_\t\n@\\[`{~\x7f\x00/:]{0,200}") {
            proptest::prop_assert_eq!(normalise(&text), normalise_by_chars(&text));
        }

        #[test]
        fn normalise_equals_the_char_by_char_rules_on_any_text(text in proptest::prelude::any::<String>()) {
            proptest::prop_assert_eq!(normalise(&text), normalise_by_chars(&text));
        }
    }

    #[test]
    fn unicode_lowercase_may_grow_a_word() {
        // U+0130 LATIN CAPITAL LETTER I WITH DOT ABOVE lower-cases to `i` + U+0307; the
        // combining mark stays in the word it belongs to.
        assert_eq!(normalise("İstanbul"), "i\u{307}stanbul");
    }

    #[test]
    fn blocks_hash_their_normalised_text() {
        let block = TextBlock::from_text("Fish & Chips <b> café A").unwrap();
        assert_eq!(block.text(), "fish chips b café a");
        assert_eq!(block.hash(), xxh3_64(b"fish chips b caf\xc3\xa9 a"));
        assert_eq!(block.words().collect::<Vec<_>>(), ["fish", "chips", "b", "café", "a"]);
        assert!(TextBlock::from_text(" \u{a0} ").is_none());
    }
}
