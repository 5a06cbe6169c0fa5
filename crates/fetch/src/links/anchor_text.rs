//! The text of each `<a href>` ([`LinkOptions::anchor_text`](super::LinkOptions::anchor_text)):
//! the document's text chunks, read while an anchor is open, decoded and normalised into the
//! text of that anchor's raw link, within [`MAX_ANCHOR_TEXT`] bytes.
//!
//! Character references are decoded per text node, as the HTML tokenizer does (a reference
//! cut by a tag, `&am<b>p;`, is not one), and whitespace runs (Unicode's, so `&nbsp;` too)
//! become one space, none at either end.

use std::borrow::Cow;

use super::RawLink;

/// The most bytes of anchor text kept for one link, whether from one anchor or from all the
/// anchors to the same URL joined: a hostile page can hold a megabyte of text in one anchor,
/// or a million anchors to one URL. Texts are cut on a char boundary.
pub const MAX_ANCHOR_TEXT: usize = 1024;

/// Raw text of a node kept before it is decoded even if the node has not ended: a text node
/// can be as long as the page, and is decoded in pieces of about this size.
const DECODE_AT: usize = 4096;

/// The longest character reference decoded across a cut between two pieces of a text node
/// (the longest named one, `&CounterClockwiseContourIntegral;`, is 33 bytes).
const LONGEST_REFERENCE: usize = 64;

/// Reads the text chunks of the open anchor into the text of its raw link.
#[derive(Default)]
pub(super) struct AnchorTextReader {
    /// The raw link whose text is being read, if any chunk was read yet.
    link: Option<usize>,
    /// Raw text of the current text node not yet decoded.
    node: String,
    /// Whitespace came after the last character written: a space goes before the next one.
    space_pending: bool,
    /// A character did not fit in [`MAX_ANCHOR_TEXT`]: the text is cut there, nothing more is
    /// added (not even a later, shorter character).
    full: bool,
}

impl AnchorTextReader {
    /// Reads `chunk` of a text node (`last`: the node ends with it), part of the anchor whose
    /// raw link is `raw[open]`, or of none when `open` is `None`.
    pub(super) fn chunk(&mut self, open: Option<usize>, chunk: &str, last: bool, raw: &mut [RawLink]) {
        match open {
            Some(link) if self.link != Some(link) => {
                // A new anchor: whatever was read before belongs to the previous one.
                self.flush(raw);
                *self = Self { link: Some(link), node: std::mem::take(&mut self.node), ..Self::default() };
            }
            Some(_) => {}
            None => {
                self.flush(raw);
                return;
            }
        }
        if !self.full {
            self.node.push_str(chunk);
        }
        if last {
            self.flush(raw);
        } else if self.node.len() > DECODE_AT {
            self.decode_safe_prefix(raw);
        }
    }

    /// Decodes the node's raw text read so far into its link's text: at the end of a text
    /// node, when another anchor's text starts, and at the end of the page.
    pub(super) fn flush(&mut self, raw: &mut [RawLink]) {
        if self.node.is_empty() {
            return;
        }
        let node = std::mem::take(&mut self.node);
        self.decode_into(&node, raw);
        // The buffer is kept for the next node.
        self.node = node;
        self.node.clear();
    }

    /// Decodes the node's raw text up to a point where no character reference can be cut:
    /// before its last `&` if that is near the end, keeping the rest for the next chunk.
    fn decode_safe_prefix(&mut self, raw: &mut [RawLink]) {
        let cut = match self.node.rfind('&') {
            Some(at) if self.node.len() - at < LONGEST_REFERENCE => at,
            _ => self.node.len(),
        };
        let rest = self.node.split_off(cut);
        let node = std::mem::replace(&mut self.node, rest);
        self.decode_into(&node, raw);
    }

    /// Decodes the raw text `node` and writes it, normalised, to the link's text.
    fn decode_into(&mut self, node: &str, raw: &mut [RawLink]) {
        let Some(text) = self.link.and_then(|link| raw.get_mut(link)).map(|link| &mut link.text) else {
            return;
        };
        let decoded = if node.contains('&') { htmlize::unescape(node) } else { Cow::Borrowed(node) };
        self.full |= !write_normalised(text, &decoded, &mut self.space_pending);
    }
}

/// `text` normalised (module docs), its references already decoded, within
/// [`MAX_ANCHOR_TEXT`]: an `<area>`'s `alt`.
pub(super) fn normalised(text: &str) -> String {
    let mut normalised = String::new();
    write_normalised(&mut normalised, text, &mut false);
    normalised
}

/// Appends `decoded` to `text`, each whitespace run one space and none at the start of
/// `text`; `space_pending` carries a run across calls (a run at the end is written only
/// if a character follows). Whether all of it fitted in [`MAX_ANCHOR_TEXT`]: it stops at the
/// first character that does not.
fn write_normalised(text: &mut String, decoded: &str, space_pending: &mut bool) -> bool {
    for c in decoded.chars() {
        if c.is_whitespace() {
            *space_pending = !text.is_empty();
            continue;
        }
        let space = usize::from(*space_pending);
        if text.len() + space + c.len_utf8() > MAX_ANCHOR_TEXT {
            return false;
        }
        if *space_pending {
            text.push(' ');
            *space_pending = false;
        }
        text.push(c);
    }
    true
}

/// Appends `more` (another anchor's text to the same URL) to `text`, one space between them
/// unless either is empty, within [`MAX_ANCHOR_TEXT`], cut on a char boundary.
pub(super) fn join_capped(text: &mut String, more: &str) {
    if more.is_empty() {
        return;
    }
    let space = usize::from(!text.is_empty());
    let Some(room) = MAX_ANCHOR_TEXT.checked_sub(text.len() + space) else { return };
    let mut end = room.min(more.len());
    while !more.is_char_boundary(end) {
        end -= 1;
    }
    if end > 0 {
        if space == 1 {
            text.push(' ');
        }
        text.push_str(&more[..end]);
    }
}
