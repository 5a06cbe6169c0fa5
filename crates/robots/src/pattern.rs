//! A compiled `allow`/`disallow` path pattern and its match against a normalised path
//! (RFC 9309 §2.2.2 and §2.2.3).
//!
//! A pattern is cut at its wildcards into literal pieces, `p0 * p1 * … * pk`, with an optional
//! end anchor (a final `$`). It matches a path when `p0` is a prefix of the path and the other
//! pieces follow in order; with the anchor, `pk` must end the path. Placing each middle piece at
//! its leftmost occurrence is optimal (it leaves the most room for the rest), so matching is
//! one scan of the path: no backtracking, no regular expression.

use memchr::memmem::Finder;

use crate::normalize::{Piece, for_each_piece};

/// A compiled path pattern.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Pattern {
    /// The literal pieces between wildcards; one piece when there is no wildcard.
    pieces: Box<[Box<[u8]>]>,
    /// Whether the pattern ended in `$`: the path must end where the pattern does.
    anchored: bool,
    /// How specific the pattern is: its octets once normalised, wildcards and anchor included
    /// ("The most specific match is the match that has the most octets", RFC 9309 §2.2.2).
    specificity: usize,
    /// A searcher for each piece after the first that is longer than [`SHORT_PIECE`] (see
    /// [`find`]), built once here rather than per search.
    searchers: Searchers,
}

/// The `memmem` searchers of a pattern's long pieces, in the order of the pieces after the
/// first (`None` for a short one). Derived from the pieces, so they take no part in comparing
/// patterns.
#[derive(Clone, Debug, Default)]
struct Searchers(Box<[Option<Finder<'static>>]>);

impl PartialEq for Searchers {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for Searchers {}

impl PartialOrd for Searchers {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Searchers {
    fn cmp(&self, _: &Self) -> std::cmp::Ordering {
        std::cmp::Ordering::Equal
    }
}

impl Pattern {
    /// Compiles the value of an `allow`/`disallow` line. `None` for an empty value, which
    /// matches nothing (an empty `Disallow:` allows everything; RFC 9309 §2.2.2 and the
    /// spec suite's `most-specific-match` cases).
    pub(crate) fn compile(value: &[u8]) -> Option<Self> {
        if value.is_empty() {
            return None;
        }
        let mut pieces = Vec::new();
        let mut current = Vec::with_capacity(value.len());
        let mut anchored = false;
        let mut specificity = 0;
        let mut normalized = Vec::with_capacity(value.len());
        for_each_piece(value, |piece| normalized.push(piece));
        let last = normalized.len().saturating_sub(1);
        for (index, piece) in normalized.iter().enumerate() {
            specificity += 1;
            match *piece {
                Piece::Raw(b'*') => pieces.push(std::mem::take(&mut current).into_boxed_slice()),
                Piece::Raw(b'$') if index == last => anchored = true,
                Piece::Raw(octet) | Piece::Decoded(octet) => current.push(octet),
            }
        }
        pieces.push(current.into_boxed_slice());
        let searchers = pieces
            .iter()
            .skip(1)
            .map(|piece| (piece.len() > SHORT_PIECE).then(|| Finder::new(&piece[..]).into_owned()))
            .collect();
        Some(Self {
            pieces: pieces.into_boxed_slice(),
            anchored,
            specificity,
            searchers: Searchers(searchers),
        })
    }

    /// How specific the pattern is (its normalised length in octets).
    pub(crate) fn specificity(&self) -> usize {
        self.specificity
    }

    /// The octet after the pattern's leading `/`, when the pattern starts with `/` and a
    /// literal octet: every path it matches starts with those two octets.
    pub(crate) fn octet_after_slash(&self) -> Option<u8> {
        match self.pieces.first().map(|piece| &piece[..]) {
            Some([b'/', octet, ..]) => Some(*octet),
            _ => None,
        }
    }

    /// Whether the pattern matches the normalised `path` (from its first octet).
    #[cfg(test)]
    pub(crate) fn matches(&self, path: &[u8]) -> bool {
        let mut unlimited = usize::MAX;
        self.matches_within(path, &mut unlimited).unwrap_or(false)
    }

    /// Whether the pattern matches the normalised `path`, charging `budget` the octets of the
    /// path a wildcard lets it scan; `None`, with nothing scanned, when they are more than
    /// what is left of `budget`. A pattern without a wildcard compares its own octets only
    /// and is never charged.
    #[inline]
    pub(crate) fn matches_within(&self, path: &[u8], budget: &mut usize) -> Option<bool> {
        let Some((first, rest)) = self.pieces.split_first() else {
            return Some(false);
        };
        if !path.starts_with(first) {
            return Some(false);
        }
        let Some((last, middle)) = rest.split_last() else {
            return Some(!self.anchored || path.len() == first.len());
        };
        // With the anchor, the last piece must end the path: the cheapest test, done first.
        if self.anchored && !path.ends_with(last) {
            return Some(false);
        }
        *budget = budget.checked_sub(path.len() - first.len())?;
        Some(self.pieces_follow(path, first.len(), middle, last))
    }

    /// Whether the pieces after the first, `middle` then `last`, follow one another in `path`
    /// from `position` on (the last at the end, if anchored).
    fn pieces_follow(&self, path: &[u8], position: usize, middle: &[Box<[u8]>], last: &[u8]) -> bool {
        let searcher = |index: usize| self.searchers.0.get(index).and_then(Option::as_ref);
        let mut position = position;
        for (index, piece) in middle.iter().enumerate() {
            match find(&path[position..], piece, searcher(index)) {
                Some(offset) => position += offset + piece.len(),
                None => return false,
            }
        }
        if self.anchored {
            path.len() >= position + last.len()
        } else {
            find(&path[position..], last, searcher(middle.len())).is_some()
        }
    }
}

/// Octets compared per octet of the path, at most, before [`find`] hands the rest of the path
/// to the piece's searcher: a piece of at most this many octets never gets that far, so only
/// longer ones have a searcher.
const SHORT_PIECE: usize = 8;

/// The first occurrence of `needle` in `haystack`, in time linear in the haystack.
///
/// Pieces and paths are short, so a piece is looked for by its first octet with `memchr` and
/// the rest compared at each position where that octet occurs, with no searcher to start. That
/// costs the piece's length at each such position: a hostile `Disallow: /*aaaa…ab` against a
/// path of `a`s cost its length at every position (a 500 KiB file of such rules took 0.7 s of
/// CPU to check one 8 KB path). So the octets compared are counted, and past
/// [`SHORT_PIECE`] times the path's length the rest of the path goes to the piece's `memmem`
/// searcher (`searcher`, two-way, linear whatever the piece). Handing every long piece to its
/// searcher at once made ordinary checks ~1.3× slower (BENCHMARKS.md, "robots.txt checks").
#[inline]
fn find(haystack: &[u8], needle: &[u8], searcher: Option<&Finder<'_>>) -> Option<usize> {
    let Some((&first, rest)) = needle.split_first() else {
        return Some(0);
    };
    let last_start = haystack.len().checked_sub(needle.len())?;
    let mut allowance = SHORT_PIECE.saturating_mul(haystack.len());
    for start in memchr::memchr_iter(first, &haystack[..=last_start]) {
        let Some(left) = allowance.checked_sub(rest.len()) else {
            return find_from(haystack, start, needle, searcher);
        };
        allowance = left;
        if haystack[start + 1..].starts_with(rest) {
            return Some(start);
        }
    }
    None
}

/// The first occurrence of `needle` in `haystack` at or after `from`, by `searcher` (or a
/// `memmem` search started here without one).
#[inline(never)]
fn find_from(haystack: &[u8], from: usize, needle: &[u8], searcher: Option<&Finder<'_>>) -> Option<usize> {
    let rest_of_path = haystack.get(from..)?;
    let found = match searcher {
        Some(searcher) => searcher.find(rest_of_path),
        None => memchr::memmem::find(rest_of_path, needle),
    };
    found.map(|offset| from + offset)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn matches(pattern: &str, path: &str) -> bool {
        Pattern::compile(pattern.as_bytes()).unwrap().matches(path.as_bytes())
    }

    #[test]
    fn a_literal_pattern_is_a_prefix() {
        assert!(matches("/fish", "/fish"));
        assert!(matches("/fish", "/fish.html"));
        assert!(matches("/fish", "/fishheads/yummy.html"));
        assert!(!matches("/fish", "/Fish.asp"));
        assert!(!matches("/fish", "/catfish"));
        assert!(!matches("/fish/", "/fish"));
    }

    #[test]
    fn a_wildcard_matches_any_run_of_octets() {
        assert!(matches("/*.php", "/folder/filename.php?parameters"));
        assert!(matches("/*.php", "//folder/any.php.file.html"));
        assert!(!matches("/*.php", "/windows.PHP"));
        assert!(matches("/fish*.php", "/fishheads/catfish.php?parameters"));
        assert!(matches("/fish*", "/fish"));
        assert!(matches("*", "/anything"));
        assert!(matches("/a**b", "/ab"));
        assert!(matches("/foo/*/qux", "/foo//qux"));
        assert!(!matches("/foo/*/qux", "/foo/qux"));
    }

    #[test]
    fn a_final_dollar_anchors_the_end() {
        assert!(matches("/*.php$", "/folder/filename.php"));
        assert!(!matches("/*.php$", "/filename.php?parameters"));
        assert!(!matches("/*.php$", "/filename.php5"));
        assert!(matches("/$", "/"));
        assert!(!matches("/$", "/page.html"));
        assert!(matches("/foo/bar$", "/foo/bar"));
        assert!(!matches("/foo/bar$", "/foo/bar/"));
        // The anchored last piece may not overlap the pieces before it.
        assert!(!matches("/ab*ba$", "/aba"));
        assert!(matches("/ab*ba$", "/abba"));
    }

    #[test]
    fn a_dollar_inside_is_literal() {
        assert!(matches("/price$.html", "/price$.html"));
        assert!(!matches("/price$.html", "/price"));
    }

    #[test]
    fn escaped_star_and_dollar_are_literal() {
        assert!(matches("/file-%2A.html", "/file-*.html"));
        assert!(!matches("/file-%2A.html", "/file-x.html"));
        assert!(matches("/price%24", "/price$.html"));
        assert!(!matches("/price%24", "/price"));
    }

    #[test]
    fn patterns_are_normalised_like_paths() {
        assert!(matches("/foo/bar/ツ", "/foo/bar/%E3%83%84"));
        assert!(matches("/foo/bar/%62%61%7A", "/foo/bar/baz"));
        assert!(matches("/a%2f", "/a%2F"));
    }

    #[test]
    fn specificity_counts_normalised_octets() {
        assert_eq!(Pattern::compile(b"/*.htm").unwrap().specificity(), 6);
        assert_eq!(Pattern::compile(b"/$").unwrap().specificity(), 2);
        assert_eq!(Pattern::compile(b"/%62").unwrap().specificity(), 2);
        assert_eq!(Pattern::compile("/ツ".as_bytes()).unwrap().specificity(), 10);
    }

    #[test]
    fn an_empty_value_is_no_pattern() {
        assert_eq!(Pattern::compile(b""), None);
    }

    /// The first occurrence, position by position: the definition `find` must agree with.
    fn find_reference(haystack: &[u8], needle: &[u8]) -> Option<usize> {
        (0..=haystack.len().checked_sub(needle.len())?).find(|&start| haystack[start..].starts_with(needle))
    }

    proptest::proptest! {
        /// Short pieces (compared octet by octet) and long ones (`memmem`) alike, over a small
        /// alphabet so that partial matches abound.
        #[test]
        fn find_is_the_first_occurrence(
            haystack in proptest::collection::vec(proptest::sample::select(b"ab/".to_vec()), 0..80),
            needle in proptest::collection::vec(proptest::sample::select(b"ab/".to_vec()), 0..20),
        ) {
            let expected = find_reference(&haystack, &needle);
            proptest::prop_assert_eq!(find(&haystack, &needle, None), expected);
            proptest::prop_assert_eq!(find(&haystack, &needle, Some(&Finder::new(&needle))), expected);
        }

        /// Paths of mostly `a` and long pieces of mostly `a`: most positions are candidates, so
        /// the allowance runs out and the search is handed to the searcher part-way (at a
        /// position the properties vary), which must find the same first occurrence.
        #[test]
        fn find_handed_to_the_searcher_is_the_first_occurrence(
            haystack in proptest::collection::vec(proptest::sample::select(b"aaaaaaab".to_vec()), 0..400),
            needle in proptest::collection::vec(proptest::sample::select(b"aaaaaaab".to_vec()), 9..40),
        ) {
            let expected = find_reference(&haystack, &needle);
            proptest::prop_assert_eq!(find(&haystack, &needle, None), expected);
            proptest::prop_assert_eq!(find(&haystack, &needle, Some(&Finder::new(&needle))), expected);
        }

        /// With a budget of at least the path's length, a match is what it is without one, and
        /// the budget pays only for the patterns with a wildcard; with less, a wildcard pattern
        /// whose prefix (and anchored end) fit is cut off and its budget left as it was.
        #[test]
        fn the_budget_pays_for_scans_only(
            pattern in "/[ab*]{0,6}[$]?",
            path in "/[ab]{0,12}",
        ) {
            let pattern = Pattern::compile(pattern.as_bytes()).unwrap();
            let path = path.as_bytes();
            let unlimited = pattern.matches(path);
            let mut budget = path.len();
            proptest::prop_assert_eq!(pattern.matches_within(path, &mut budget), Some(unlimited));
            if pattern.pieces.len() == 1 {
                proptest::prop_assert_eq!(budget, path.len());
            }
            let mut none = 0;
            match pattern.matches_within(path, &mut none) {
                Some(matched) => proptest::prop_assert_eq!(matched, unlimited),
                None => proptest::prop_assert!(pattern.pieces.len() > 1 && none == 0),
            }
        }
    }

    #[test]
    fn a_long_piece_against_a_repetitive_path_is_found_or_not() {
        // The hostile shape of BENCHMARKS.md, "robots.txt checks": a long piece whose every
        // prefix occurs at every position of the path.
        let piece = format!("{}b", "a".repeat(30));
        let path = format!("/{}", "a".repeat(8_000));
        assert!(!matches(&format!("/*{piece}"), &path));
        assert!(matches(&format!("/*{piece}"), &format!("{path}{piece}")));
    }
}
