//! A parsed robots.txt file: groups merged per product token, rules sorted for a
//! first-match check (RFC 9309 §2.1, §2.2).

use std::collections::HashMap;
use std::time::Duration;

use crate::agent::AgentLine;
use crate::normalize::normalize_path;
use crate::parse::{Key, parsed_part, records};
use crate::pattern::Pattern;

/// Whether a rule allows or disallows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Verdict {
    // Declared first so that, at equal specificity, an allow rule sorts first and wins:
    // "If an "allow" rule and a "disallow" rule are equivalent, then the "allow" rule SHOULD be
    // used" (RFC 9309 §2.2.2).
    Allow,
    Disallow,
}

/// One `allow` or `disallow` rule.
#[derive(Clone, Debug)]
struct Rule {
    verdict: Verdict,
    pattern: Pattern,
}

/// The rules that apply to one crawler: every group that names its product token, merged
/// ("If there is more than one group matching the user-agent, the matching groups' rules MUST
/// be combined into one group", RFC 9309 §2.2.1).
///
/// Rules are kept sorted by specificity (most octets first), allow before disallow at equal
/// specificity, so the first rule that matches is the one the RFC picks: the longest match,
/// allow winning ties. A check stops at that first match.
///
/// Groups of 16 rules or more (`INDEX_FROM`) are also bucketed by the octet after the pattern's
/// leading `/` (`/news/` goes to bucket `n`): a path `/n…` need only try bucket `n` and the
/// rules that have no such octet (`/*.php`, `/$`), taking the better of the two first matches.
#[derive(Clone, Debug, Default)]
pub struct Group {
    /// With an index: the buckets `0..=255` in order, then the unbucketed rules; each sorted.
    /// Without: all rules, sorted.
    rules: Vec<Rule>,
    /// Empty (no index), or 258 offsets: bucket `b` is `rules[starts[b]..starts[b + 1]]`, the
    /// unbucketed rules are `rules[starts[256]..starts[257]]`.
    starts: Vec<usize>,
    crawl_delay: Option<Duration>,
}

/// The most octets of a path that one check may scan, over all the rules it tries: the rules
/// with a wildcard each scan the path after their first piece (linearly, `pattern.rs`). RFC
/// 9309 bounds the file (500 KiB) but not the work of a check, which a hostile file makes the
/// product of its rules and the path: 10,000 rules `Disallow: /*aaa…ab` against an 8 KB path
/// (BENCHMARKS.md, "robots.txt checks"). 1 MiB is 5,000 wildcard rules tried against a
/// 200-octet path; a check that reaches it took 2.2 ms (long pieces) to 7.9 ms (short ones) on
/// this project's machine, where it took 0.7 to 1.4 s before there was a limit.
pub const MATCH_WORK_LIMIT: usize = 1 << 20;

/// What a check of a path against a group found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// No rule disallows it (or an allow rule is the most specific match).
    Allowed,
    /// The most specific matching rule disallows it.
    Disallowed,
    /// Trying the rules would have scanned more than [`MATCH_WORK_LIMIT`] octets of the path:
    /// the check stopped, and the path counts as not allowed (a crawler does not fetch what
    /// it could not check).
    TooComplex,
}

/// The number of rules from which a group is bucketed.
const INDEX_FROM: usize = 16;

/// The bucket of a rule: the octet after its leading `/`, or 256 for none.
fn bucket(rule: &Rule) -> usize {
    rule.pattern.octet_after_slash().map_or(256, usize::from)
}

/// The order of precedence: the smaller key wins.
fn precedence(rule: &Rule) -> (std::cmp::Reverse<usize>, Verdict) {
    (std::cmp::Reverse(rule.pattern.specificity()), rule.verdict)
}

impl Group {
    /// The rule that decides for the normalised path, if any matches; the outer `None` when
    /// trying the rules would scan more than [`MATCH_WORK_LIMIT`] octets of the path.
    fn deciding_rule(&self, path: &[u8], budget: &mut usize) -> Option<Option<&Rule>> {
        fn first_match<'a>(rules: &'a [Rule], path: &[u8], budget: &mut usize) -> Option<Option<&'a Rule>> {
            for rule in rules {
                if rule.pattern.matches_within(path, budget)? {
                    return Some(Some(rule));
                }
            }
            Some(None)
        }
        if self.starts.is_empty() {
            return first_match(&self.rules, path, budget);
        }
        let bucketed = match path {
            [b'/', octet, ..] => {
                let bucket = usize::from(*octet);
                first_match(&self.rules[self.starts[bucket]..self.starts[bucket + 1]], path, budget)?
            }
            _ => None,
        };
        let unbucketed = first_match(&self.rules[self.starts[256]..self.starts[257]], path, budget)?;
        Some(match (bucketed, unbucketed) {
            (Some(a), Some(b)) => Some(if precedence(b) < precedence(a) { b } else { a }),
            (a, b) => a.or(b),
        })
    }

    /// The check of a normalised path under these rules, scanning at most `allowance` octets.
    fn check_normalized(&self, path: &[u8], allowance: &mut usize) -> Check {
        if path == b"/robots.txt" {
            // "The /robots.txt URI is implicitly allowed." (RFC 9309 §2.2.2)
            return Check::Allowed;
        }
        match self.deciding_rule(path, allowance) {
            None => Check::TooComplex,
            Some(Some(rule)) if rule.verdict == Verdict::Disallow => Check::Disallowed,
            Some(_) => Check::Allowed,
        }
    }

    /// Whether `path_and_query` (a URL's path and query, e.g. `/a/b?c=d`) may be fetched
    /// under these rules (no matching rule means allowed), or [`Check::TooComplex`].
    pub fn check(&self, path_and_query: &str) -> Check {
        let mut allowance = MATCH_WORK_LIMIT;
        self.check_within(path_and_query, &mut allowance)
    }

    /// [`Group::check`] under the caller's bound: the rules may scan at most `*allowance`
    /// octets of the path ([`MATCH_WORK_LIMIT`] in `check`), and `*allowance` is reduced by
    /// what they scanned, so that a caller can bound the work of many checks together (the
    /// crawler gives each host an allowance that refills over time). [`Check::TooComplex`]
    /// when the next rule to try would scan more than what is left; that rule scans nothing.
    /// Rules without a wildcard are never charged (a prefix needs no scan).
    pub fn check_within(&self, path_and_query: &str, allowance: &mut usize) -> Check {
        self.check_normalized(&normalize_path(path_and_query), allowance)
    }

    /// Whether `path_and_query` may be fetched: [`Group::check`] is [`Check::Allowed`] (a
    /// path too costly to check is not).
    pub fn is_allowed(&self, path_and_query: &str) -> bool {
        self.check(path_and_query) == Check::Allowed
    }

    /// The `Crawl-delay` of these groups (the largest, if several merged groups give one).
    pub fn crawl_delay(&self) -> Option<Duration> {
        self.crawl_delay
    }

    /// How many distinct `allow` and `disallow` rules the group holds.
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    /// Whether the group holds no rules (everything is allowed).
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    fn push(&mut self, rule: Rule) {
        self.rules.push(rule);
    }

    fn merge_crawl_delay(&mut self, delay: Duration) {
        self.crawl_delay = Some(self.crawl_delay.map_or(delay, |old| old.max(delay)));
    }

    /// Sorts the rules, and buckets them when there are enough.
    fn finish(&mut self) {
        // "Duplicate rules in a group MAY be deduplicated" (RFC 9309 §2.2.2): sorting puts
        // equal rules side by side.
        self.rules.sort_by(|a, b| precedence(a).cmp(&precedence(b)).then_with(|| a.pattern.cmp(&b.pattern)));
        self.rules.dedup_by(|a, b| a.verdict == b.verdict && a.pattern == b.pattern);
        if self.rules.len() < INDEX_FROM {
            return;
        }
        // Stable: each bucket keeps the precedence order.
        self.rules.sort_by_key(bucket);
        let mut starts = Vec::with_capacity(258);
        let mut index = 0;
        for bucket_number in 0..=256 {
            starts.push(index);
            while index < self.rules.len() && bucket(&self.rules[index]) == bucket_number {
                index += 1;
            }
        }
        starts.push(self.rules.len());
        self.starts = starts;
    }
}

/// The group every crawler gets when the file names it nowhere and has no `*` group: no
/// rules, everything allowed.
static EMPTY_GROUP: Group = Group { rules: Vec::new(), starts: Vec::new(), crawl_delay: None };

/// A parsed robots.txt file. Parse once with [`RobotsTxt::parse`], then check any number of
/// paths with [`RobotsTxt::is_allowed`], or pick a crawler's [`Group`] once with
/// [`RobotsTxt::group`] and check against it.
#[derive(Clone, Debug, Default)]
pub struct RobotsTxt {
    /// Groups per product token (lower-cased), merged; sorted by token once parsed, for a
    /// binary search per check (a file may name tens of thousands of tokens).
    named: Vec<(Box<str>, Group)>,
    /// The `*` groups, merged.
    global: Option<Group>,
    /// `Sitemap:` values, in file order.
    sitemaps: Vec<String>,
    /// Whether the file was longer than [`crate::PARSE_LIMIT_BYTES`] and its tail ignored.
    truncated: bool,
}

/// Whom the `User-agent:` lines of the group being read name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    Global,
    Named(usize),
}

impl RobotsTxt {
    /// Parses a robots.txt body. Never fails: lines that are not understood are skipped, as
    /// RFC 9309 §2.2 expects of a parser, so any body gives some rules (possibly none).
    pub fn parse(body: &[u8]) -> Self {
        let (text, truncated) = parsed_part(body);
        let mut robots = Self { truncated, ..Self::default() };
        // The targets of the current group, and whether its rules have started (a user-agent
        // line after a rule starts a new group).
        let mut targets: Vec<Target> = Vec::new();
        // Where each token's group is in `named` while parsing: a search through `named` per
        // `User-agent` line took 0.5 s for a 500 KiB file of distinct tokens.
        let mut named_at: HashMap<Box<str>, usize> = HashMap::new();
        let mut in_rules = false;
        let mut seen_agent_line = false;
        for record in records(text) {
            match record.key {
                Key::UserAgent => {
                    if in_rules {
                        targets.clear();
                        in_rules = false;
                    }
                    seen_agent_line = true;
                    match AgentLine::parse(record.value) {
                        AgentLine::Global => {
                            robots.global.get_or_insert_with(Group::default);
                            targets.push(Target::Global);
                        }
                        AgentLine::Token(token) => targets.push(robots.named_index(token, &mut named_at)),
                        AgentLine::Nobody => {}
                    }
                }
                Key::Allow | Key::Disallow => {
                    // Rules before the first user-agent line belong to no group (§2.2.1).
                    if !seen_agent_line {
                        continue;
                    }
                    in_rules = true;
                    let Some(pattern) = Pattern::compile(record.value) else { continue };
                    let verdict = if record.key == Key::Allow { Verdict::Allow } else { Verdict::Disallow };
                    for &target in &targets {
                        robots.group_mut(target).push(Rule { verdict, pattern: pattern.clone() });
                    }
                }
                Key::CrawlDelay => {
                    if !seen_agent_line {
                        continue;
                    }
                    in_rules = true;
                    let Some(delay) = parse_delay(record.value) else { continue };
                    for &target in &targets {
                        robots.group_mut(target).merge_crawl_delay(delay);
                    }
                }
                Key::Sitemap => {
                    if !record.value.is_empty() {
                        robots.sitemaps.push(String::from_utf8_lossy(record.value).into_owned());
                    }
                }
            }
        }
        for (_, group) in &mut robots.named {
            group.finish();
        }
        // Tokens are unique (merged above), so the order is total.
        robots.named.sort_unstable_by(|(a, _), (b, _)| a.cmp(b));
        if let Some(group) = &mut robots.global {
            group.finish();
        }
        robots
    }

    fn named_index(&mut self, token: Box<str>, named_at: &mut HashMap<Box<str>, usize>) -> Target {
        if let Some(&index) = named_at.get(&token) {
            return Target::Named(index);
        }
        named_at.insert(token.clone(), self.named.len());
        self.named.push((token, Group::default()));
        Target::Named(self.named.len() - 1)
    }

    fn group_mut(&mut self, target: Target) -> &mut Group {
        match target {
            Target::Global => self.global.get_or_insert_with(Group::default),
            // `named_index` only hands out indices of entries it pushed.
            Target::Named(index) => &mut self.named[index].1,
        }
    }

    /// The rules for the crawler whose product token is `agent` (matched case-insensitively,
    /// RFC 9309 §2.2.1): the merged groups that name it, else the merged `*` groups, else no
    /// rules. `agent` is compared whole: pass a product token such as `freshet`, not a full
    /// `User-Agent` header (see [`crate::product_token`]).
    pub fn group(&self, agent: &str) -> &Group {
        let agent_lower = || agent.bytes().map(|octet| octet.to_ascii_lowercase());
        let named = (!agent.is_empty())
            .then(|| self.named.binary_search_by(|(name, _)| name.bytes().cmp(agent_lower())).ok())
            .flatten()
            .and_then(|index| self.named.get(index))
            .map(|(_, group)| group);
        named.or(self.global.as_ref()).unwrap_or(&EMPTY_GROUP)
    }

    /// Whether the crawler `agent` may fetch `path_and_query` (a URL's path and query, e.g.
    /// `/a/b?c=d`; an empty path is `/`, a fragment is ignored).
    ///
    /// ```
    /// let robots = freshet_robots::RobotsTxt::parse(b"User-agent: *\nDisallow: /private/\nAllow: /private/ok$\n");
    /// assert!(robots.is_allowed("freshet", "/index.html"));
    /// assert!(!robots.is_allowed("freshet", "/private/secret"));
    /// assert!(robots.is_allowed("freshet", "/private/ok"));
    /// ```
    pub fn is_allowed(&self, agent: &str, path_and_query: &str) -> bool {
        self.group(agent).is_allowed(path_and_query)
    }

    /// [`RobotsTxt::is_allowed`], telling a disallowing rule from a check that was too costly
    /// to finish ([`Check::TooComplex`]).
    pub fn check(&self, agent: &str, path_and_query: &str) -> Check {
        self.group(agent).check(path_and_query)
    }

    /// [`RobotsTxt::check`] within the caller's bound on the octets scanned, reduced by what
    /// the check scanned (see [`Group::check_within`]).
    ///
    /// ```
    /// use freshet_robots::{Check, RobotsTxt};
    /// let robots = RobotsTxt::parse(b"User-agent: *\nDisallow: /*.php\n");
    /// let mut allowance = 100;
    /// assert_eq!(robots.check_within("freshet", "/a/b.php", &mut allowance), Check::Disallowed);
    /// assert_eq!(allowance, 100 - "a/b.php".len());
    /// let mut allowance = 3;
    /// assert_eq!(robots.check_within("freshet", "/a/b.php", &mut allowance), Check::TooComplex);
    /// assert_eq!(allowance, 3);
    /// ```
    pub fn check_within(&self, agent: &str, path_and_query: &str, allowance: &mut usize) -> Check {
        self.group(agent).check_within(path_and_query, allowance)
    }

    /// The `Crawl-delay` for `agent`, from its group (see [`RobotsTxt::group`]).
    pub fn crawl_delay(&self, agent: &str) -> Option<Duration> {
        self.group(agent).crawl_delay()
    }

    /// The `Sitemap:` URLs, as written, in file order.
    pub fn sitemaps(&self) -> &[String] {
        &self.sitemaps
    }

    /// Whether the body was longer than [`crate::PARSE_LIMIT_BYTES`] and its tail ignored.
    pub fn truncated(&self) -> bool {
        self.truncated
    }
}

/// A `Crawl-delay` value: non-negative decimal seconds (`10`, `0.5`). `None` for anything else.
fn parse_delay(value: &[u8]) -> Option<Duration> {
    let text = std::str::from_utf8(value).ok()?;
    let seconds: f64 = text.parse().ok()?;
    Duration::try_from_secs_f64(seconds).ok()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// A file of `rules` rules `Disallow: /*aaa…ab<n>` (the hostile shape of BENCHMARKS.md,
    /// "robots.txt checks") and one `Disallow: /private`.
    fn hostile(rules: usize) -> RobotsTxt {
        let mut body = String::from("User-agent: *\nDisallow: /private\n");
        for rule in 0..rules {
            body.push_str(&format!("Disallow: /*{}b{rule}\n", "a".repeat(30)));
        }
        RobotsTxt::parse(body.as_bytes())
    }

    #[test]
    fn a_check_that_would_scan_too_much_stops_and_disallows() {
        let long_path = format!("/{}", "a".repeat(8_000));
        // 10,000 wildcard rules against 8,000 octets: 8·10^7 octets to scan, over the limit.
        let robots = hostile(10_000);
        assert_eq!(robots.check("freshet", &long_path), Check::TooComplex);
        assert!(!robots.is_allowed("freshet", &long_path));
        // Short paths still get their answer from the same rules: 10,000 × 10 octets.
        assert_eq!(robots.check("freshet", "/aaaaaaaaa"), Check::Allowed);
        assert_eq!(robots.check("freshet", "/private/x"), Check::Disallowed);
        assert_eq!(robots.check("freshet", "/x/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaab7"), Check::Disallowed);
        // Rules without a wildcard are never charged: a prefix needs no scan.
        let prefixes: String = (0..10_000).map(|rule| format!("Disallow: /p{rule}/\n")).collect();
        let robots = RobotsTxt::parse(format!("User-agent: *\n{prefixes}").as_bytes());
        assert_eq!(robots.check("freshet", &format!("/p9999/{}", "a".repeat(8_000))), Check::Disallowed);
        assert_eq!(robots.check("freshet", &long_path), Check::Allowed);
        // Under the limit, the long path gets its answer: 100 rules × 8,000 octets.
        let robots = hostile(100);
        assert_eq!(robots.check("freshet", &long_path), Check::Allowed);
        const { assert!(MATCH_WORK_LIMIT > 100 * 8_000) };
    }

    #[test]
    fn many_product_tokens_are_looked_up_by_name() {
        // 12,000 distinct tokens (each group disallowing its own path), then `*`: 420 KB, under
        // the parse limit.
        let token = |index: usize| {
            let letters: String =
                format!("{index:05}").bytes().map(|digit| char::from(b'a' + (digit - b'0'))).collect();
            format!("Bot{letters}")
        };
        let mut body = String::new();
        for index in 0..12_000 {
            body.push_str(&format!("User-agent: {}\nDisallow: /{index}\n\n", token(index)));
        }
        assert!(body.len() < crate::PARSE_LIMIT_BYTES);
        body.push_str("User-agent: *\nDisallow: /\n");
        let robots = RobotsTxt::parse(body.as_bytes());
        for index in [0, 1, 5_000, 9_999, 11_999] {
            let name = token(index);
            for agent in [name.clone(), name.to_ascii_lowercase(), name.to_ascii_uppercase()] {
                assert!(!robots.is_allowed(&agent, &format!("/{index}")), "{agent}");
                assert!(robots.is_allowed(&agent, "/other"), "{agent}");
            }
        }
        // A token named nowhere gets `*`, a prefix of a named one too.
        assert!(!robots.is_allowed("freshet", "/other"));
        assert!(!robots.is_allowed("Bot", "/other"));
        assert!(!robots.is_allowed("Botaaaa", "/other"));
    }

    #[test]
    fn longest_match_wins_and_allow_wins_ties() {
        let robots =
            RobotsTxt::parse(b"user-agent: a\nallow: /x/page.\ndisallow: /*.html\nallow: /t\ndisallow: /t\n");
        assert!(robots.is_allowed("a", "/x/page.html"));
        assert!(!robots.is_allowed("a", "/x/y.html"));
        assert!(robots.is_allowed("a", "/t/u"));
    }

    #[test]
    fn groups_naming_the_same_agent_are_merged() {
        let robots = RobotsTxt::parse(
            b"user-agent: a\ndisallow: /x\nuser-agent: b\ndisallow: /\nuser-agent: A\ndisallow: /y\n",
        );
        assert!(!robots.is_allowed("a", "/x"));
        assert!(!robots.is_allowed("a", "/y"));
        assert!(robots.is_allowed("a", "/z"));
        assert_eq!(robots.group("a").len(), 2);
    }

    #[test]
    fn consecutive_agent_lines_share_a_group() {
        let robots = RobotsTxt::parse(b"user-agent: a\n\nuser-agent: b\ndisallow: /\n");
        assert!(!robots.is_allowed("a", "/"));
        assert!(!robots.is_allowed("B", "/"));
        assert!(robots.is_allowed("c", "/"));
    }

    #[test]
    fn the_global_group_is_the_fallback() {
        let robots = RobotsTxt::parse(b"user-agent: *\ndisallow: /x\nuser-agent: a\ndisallow: /y\n");
        assert!(robots.is_allowed("a", "/x"));
        assert!(!robots.is_allowed("a", "/y"));
        assert!(!robots.is_allowed("other", "/x"));
        assert!(!robots.is_allowed("", "/x"));
        assert!(!robots.is_allowed("*", "/x"));
    }

    #[test]
    fn robots_txt_itself_is_always_allowed() {
        let robots = RobotsTxt::parse(b"user-agent: *\ndisallow: /\n");
        assert!(robots.is_allowed("a", "/robots.txt"));
        assert!(!robots.is_allowed("a", "/robots.txt?x"));
    }

    #[test]
    fn crawl_delay_and_sitemaps() {
        let robots = RobotsTxt::parse(
            b"Sitemap: https://a.test/1.xml\nuser-agent: a\ncrawl-delay: 2.5\nuser-agent: b\ncrawl-delay: x\n\
              user-agent: a\ncrawl-delay: 1\nuser-agent: *\ncrawl-delay: 3\nsitemap: https://a.test/2.xml\n",
        );
        assert_eq!(robots.crawl_delay("a"), Some(Duration::from_millis(2500)));
        assert_eq!(robots.crawl_delay("b"), None);
        assert_eq!(robots.crawl_delay("c"), Some(Duration::from_secs(3)));
        assert_eq!(robots.sitemaps(), ["https://a.test/1.xml", "https://a.test/2.xml"]);
    }

    #[test]
    fn crawl_delay_ends_the_agent_list() {
        let robots = RobotsTxt::parse(b"user-agent: a\ncrawl-delay: 5\nuser-agent: b\ndisallow: /\n");
        assert!(robots.is_allowed("a", "/"));
        assert_eq!(robots.crawl_delay("b"), None);
    }

    #[test]
    fn bad_crawl_delays_are_ignored() {
        for value in ["-1", "NaN", "inf", "1e400", "", "5s"] {
            let robots = RobotsTxt::parse(format!("user-agent: a\ncrawl-delay: {value}\n").as_bytes());
            assert_eq!(robots.crawl_delay("a"), None, "{value}");
        }
    }

    #[test]
    fn a_file_beyond_the_limit_is_cut_and_says_so() {
        let mut body = b"user-agent: *\ndisallow: /a\n".to_vec();
        body.resize(crate::PARSE_LIMIT_BYTES + 10, b'\n');
        body.extend_from_slice(b"disallow: /b\n");
        let robots = RobotsTxt::parse(&body);
        assert!(robots.truncated());
        assert!(!robots.is_allowed("x", "/a"));
        assert!(robots.is_allowed("x", "/b"));
    }

    /// The obvious twin: every rule tried, the best match by precedence.
    fn reference_allows(group: &Group, path: &str) -> bool {
        let path = normalize_path(path);
        if *path == *b"/robots.txt" {
            return true;
        }
        group
            .rules
            .iter()
            .filter(|rule| rule.pattern.matches(&path))
            .min_by_key(|rule| precedence(rule))
            .is_none_or(|rule| rule.verdict == Verdict::Allow)
    }

    #[test]
    fn bucketed_groups_agree_with_trying_every_rule() {
        let words = ["a", "ab", "b", "ba", "*", "$", "/", "%61", "x", "."];
        let mut body = String::from("user-agent: *\n");
        let mut paths = Vec::new();
        // Every pattern of up to three words, as allow and as disallow, and the same as paths.
        for first in words {
            for second in words {
                for third in ["", "a", "*", "$"] {
                    let pattern = format!("/{first}{second}{third}");
                    let verdict = if (first.len() + second.len()) % 2 == 0 { "allow" } else { "disallow" };
                    body.push_str(&format!("{verdict}: {pattern}\n"));
                    paths.push(pattern.replace('*', "q"));
                }
            }
        }
        paths.extend(["/", "", "/robots.txt", "/zzz", "/ab/ba/x", "/a$", "/aba"].map(String::from));
        let robots = RobotsTxt::parse(body.as_bytes());
        let group = robots.group("any");
        assert!(group.len() >= INDEX_FROM && !group.starts.is_empty());
        for path in &paths {
            assert_eq!(group.is_allowed(path), reference_allows(group, path), "{path}");
        }
    }

    #[test]
    fn non_utf8_bodies_parse() {
        let robots = RobotsTxt::parse(b"user-agent: *\ndisallow: /caf\xE9\n");
        assert!(!robots.is_allowed("x", "/caf%E9"));
        assert!(robots.is_allowed("x", "/caf"));
    }

    proptest::proptest! {
        /// A check within an allowance charges exactly what it scanned: given that much it
        /// gives the unbounded answer and leaves nothing, given one octet less it stops
        /// ([`Check::TooComplex`]), and a check that scans nothing is never stopped.
        #[test]
        fn an_allowance_is_charged_exactly(
            rules in proptest::collection::vec(
                (proptest::bool::ANY, "/[ab*]{0,4}[ab]{0,2}[$]?"), 0..40),
            path in "/[ab/]{0,60}",
        ) {
            let mut body = String::from("user-agent: *\n");
            for (allow, pattern) in &rules {
                body.push_str(&format!("{}: {pattern}\n", if *allow { "allow" } else { "disallow" }));
            }
            let robots = RobotsTxt::parse(body.as_bytes());
            let mut unbounded = usize::MAX;
            let answer = robots.check_within("x", &path, &mut unbounded);
            proptest::prop_assert_ne!(answer, Check::TooComplex);
            let charged = usize::MAX - unbounded;
            proptest::prop_assert!(charged <= rules.len() * path.len());
            proptest::prop_assert_eq!(answer, robots.check("x", &path));
            let mut exact = charged;
            proptest::prop_assert_eq!(robots.check_within("x", &path, &mut exact), answer);
            proptest::prop_assert_eq!(exact, 0);
            if charged > 0 {
                let mut short = charged - 1;
                proptest::prop_assert_eq!(robots.check_within("x", &path, &mut short), Check::TooComplex);
            } else {
                let mut none = 0;
                proptest::prop_assert_eq!(robots.check_within("x", &path, &mut none), answer);
            }
        }
    }
}
