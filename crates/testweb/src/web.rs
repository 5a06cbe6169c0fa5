//! The web model: hosts, pages, a power-law link graph, importance and change processes.
//!
//! Everything is a pure function of [`WebConfig`] (its seed above all): [`Web::new`] builds
//! the graph once, and every question about time takes the model time as a parameter.
//!
//! * **Hosts** `h0.web.test … h{N−1}.web.test`. Host sizes follow Zipf's law: after one root
//!   page each, every other page joins host `⌊(N+1)^U⌋ − 1`, so `P(host h) ∝ 1/(h+1)`.
//! * **Pages** of a host: the root `/` and `/page/{j}`, `j = 1…`; a fraction
//!   ([`WebConfig::disallowed_fraction`]) lives at `/private/{j}` instead, which robots.txt
//!   disallows (links still point there: a polite crawler must not follow them).
//! * **Links**, stable across versions (only the text of a page changes, so reachability does
//!   not depend on time):
//!   - a spanning tree: page `j > 0` is linked from an allowed page of its host with a smaller
//!     index (a random recursive tree), so every allowed page is reachable from its host's
//!     root through allowed pages only;
//!   - a ring of roots: root of host `h` links to the root of host `h+1 mod N`, so the whole
//!     web is reachable from `h0.web.test/`;
//!   - power-law out-links: `min(40, ⌊2·U^(−1/1.5)⌋)` per page (Pareto, α = 1.5, mean ≈ 5), each
//!     within the host with probability [`WebConfig::intra_host_fraction`], else to another
//!     host; the target host and the target page within a host are both drawn Zipf
//!     (`⌊(n+1)^U⌋ − 1`), so in-degrees follow a power law and low indices (pages near the
//!     root) are the popular ones, as under preferential attachment.
//! * **Importance**: PageRank of that graph (damping 0.85, uniform teleport, dangling pages
//!   spread uniformly; Page et al. 1998), scaled to mean 1 — the quantity OPIC (seed 002,
//!   Abiteboul et al.) estimates online, so a crawler's estimate can be checked against it.
//! * **Change processes**: 60% Poisson, 20% periodic (jitter `U[0, 0.5)`), 20% bursty (a cycle
//!   of ten changes on average, on for 20% of it); mean rates log-uniform in
//!   `[min_rate, max_rate]` changes per model day. See [`crate::changes`] for the times.
//! * **Topic** ([`WebConfig::topic_fraction`] `f`, 0 by default: no topic): ground truth for a
//!   focused crawl. A page on topic has a [`PageInfo::topic_score`] `k ≥ 1` (`P(k) = 2^−k`,
//!   capped at 8): its text says [`TOPIC_WORD`](crate::TOPIC_WORD) exactly `k` times in every
//!   version, and each link to it carries the word in its anchor with probability
//!   [`TOPIC_ANCHOR_PROBABILITY`](crate::TOPIC_ANCHOR_PROBABILITY) = 0.6 (links to
//!   off-topic pages never do). The topic clusters along links, as real topics do:
//!   - by host: hosts, in a keyed random order, become topic hosts until they hold a share
//!     `s ≥ TOPIC_HOST_SHARE` = 0.2 of the pages; their pages are on topic at rate
//!     `p_hot = min(1, TOPIC_HOST_LIFT·f, f/s)` (`TOPIC_HOST_LIFT` = 4), the other hosts' at
//!     `p_cold = (f − s·p_hot)/(1 − s)` (at `f = 0.1`: 0.4 and 0.025 when `s = 0.2`), so the
//!     expected share of on-topic pages is `f` whatever the host sizes; as most links stay
//!     within their host, on-topic pages link to on-topic pages several times more often
//!     than chance (on a web of a single host, only the tree below makes the topic cluster);
//!   - along the spanning tree: below an on-topic parent a page is on topic with probability
//!     `p + (1 − p)·ρ`, below an off-topic one `p·(1 − ρ)` (`ρ = TOPIC_TREE_PERSISTENCE` =
//!     0.5, `p` the host's rate), which keeps each page's marginal rate at `p`.
//!
//!   Topics are drawn after the graph from streams of their own: the graph, processes and
//!   importance do not depend on `f`, nor does the text but for the places the topic word
//!   takes, and with `f = 0` every byte served is what it was before topics existed.

use freshet_sim::{ChangeProcess, SimRng};

use crate::changes::PageChanges;
use crate::error::{Result, TestwebError};
use crate::keyed::{self, Stream};
use crate::topic;

/// The domain under which every host of the web lives.
pub const DOMAIN: &str = "web.test";

/// The shape of a synthetic web. Same config, same web.
#[derive(Debug, Clone, PartialEq)]
pub struct WebConfig {
    /// Seed of everything: graph, processes, content.
    pub seed: u64,
    /// Number of hosts `N ≥ 1`.
    pub hosts: u32,
    /// Number of pages `M ≥ N` (every host has at least its root).
    pub pages: u32,
    /// Smallest mean change rate, changes per model day; `> 0`.
    pub min_rate: f64,
    /// Largest mean change rate, changes per model day; `≥ min_rate`.
    pub max_rate: f64,
    /// Fraction of non-root pages under robots.txt's disallowed `/private/`, in `[0, 1]`.
    pub disallowed_fraction: f64,
    /// Fraction of out-links that stay within the host, in `[0, 1]`.
    pub intra_host_fraction: f64,
    /// Expected share of pages on the topic (see the module docs), in `[0, 1]`; 0 (the
    /// default) makes a web without a topic, the same web as before the field existed.
    pub topic_fraction: f64,
}

impl Default for WebConfig {
    fn default() -> Self {
        Self {
            seed: 1,
            hosts: 10,
            pages: 1000,
            min_rate: 1.0 / 32.0,
            max_rate: 4.0,
            disallowed_fraction: 0.05,
            intra_host_fraction: 0.85,
            topic_fraction: 0.0,
        }
    }
}

impl WebConfig {
    /// Checks every field.
    ///
    /// # Errors
    /// [`TestwebError::InvalidConfig`] naming the first bad field.
    pub fn validate(&self) -> Result<()> {
        let bad = |field: &'static str, value: String| Err(TestwebError::InvalidConfig { field, value });
        if self.hosts == 0 {
            return bad("hosts", "0 (need at least one host)".into());
        }
        if self.pages < self.hosts {
            return bad("pages", format!("{} (need at least one page per host, {})", self.pages, self.hosts));
        }
        if !(self.min_rate.is_finite() && self.min_rate > 0.0) {
            return bad("min_rate", self.min_rate.to_string());
        }
        if !(self.max_rate.is_finite() && self.max_rate >= self.min_rate) {
            return bad("max_rate", self.max_rate.to_string());
        }
        if !(0.0..=1.0).contains(&self.disallowed_fraction) {
            return bad("disallowed_fraction", self.disallowed_fraction.to_string());
        }
        if !(0.0..=1.0).contains(&self.intra_host_fraction) {
            return bad("intra_host_fraction", self.intra_host_fraction.to_string());
        }
        if !(0.0..=1.0).contains(&self.topic_fraction) {
            return bad("topic_fraction", self.topic_fraction.to_string());
        }
        Ok(())
    }
}

/// One page of the model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PageInfo {
    /// Index of its host.
    pub host: u32,
    /// Index within its host; 0 is the root `/`.
    pub local: u32,
    /// Whether robots.txt allows it (`/page/{j}` and `/`) or not (`/private/{j}`).
    pub allowed: bool,
    /// PageRank scaled to mean 1 over the web.
    pub importance: f64,
    /// How it changes (rates in changes per model day).
    pub process: ChangeProcess,
    /// Words of text in each version.
    pub words: u32,
    /// How many times the topic word ([`TOPIC_WORD`](crate::TOPIC_WORD)) appears in the
    /// page's text (its `<article>`) in every version: 0 off topic, 1 to 8 on topic. Anchors
    /// of its own links may mention the word besides; they are not counted here.
    pub topic_score: u32,
}

/// The synthetic web: pages, links and how each page changes. Pure: no clock, no I/O.
#[derive(Debug, Clone)]
pub struct Web {
    config: WebConfig,
    /// `host_start[h]..host_start[h+1]` are the ids of host `h`'s pages; root first.
    host_start: Vec<u32>,
    pages: Vec<PageInfo>,
    /// Out-links of page `i`: `links[link_start[i]..link_start[i+1]]`, sorted, no duplicates.
    link_start: Vec<u32>,
    links: Vec<u32>,
}

/// Zipf-like index in `0..n` from a uniform `u`: `⌊(n+1)^u⌋ − 1`, so `P(i) ≈ ln((i+2)/(i+1))/ln(n+1)`.
fn zipf_index(n: u32, u: f64) -> u32 {
    let x = (f64::from(n) + 1.0).powf(u).floor() - 1.0;
    // Float → integer conversion saturates; clamp into range for u → 1.
    (x.max(0.0) as u32).min(n - 1)
}

impl Web {
    /// Builds the web of `config`.
    ///
    /// # Errors
    /// [`TestwebError::InvalidConfig`] if the config is invalid.
    pub fn new(config: WebConfig) -> Result<Self> {
        config.validate()?;
        let host_start = host_starts(&config);
        let mut pages = Vec::with_capacity(config.pages as usize);
        for host in 0..config.hosts {
            for id in host_start[host as usize]..host_start[host as usize + 1] {
                let local = id - host_start[host as usize];
                pages.push(page_properties(&config, id, host, local));
            }
        }
        let mut web = Self { config, host_start, pages, link_start: Vec::new(), links: Vec::new() };
        let tree_parent = web.build_links();
        web.compute_importance();
        let scores =
            topic::topic_scores(web.config.seed, web.config.topic_fraction, &web.host_start, &tree_parent);
        for (page, score) in web.pages.iter_mut().zip(scores) {
            page.topic_score = score;
        }
        Ok(web)
    }

    /// The config this web was built from.
    #[must_use]
    pub fn config(&self) -> &WebConfig {
        &self.config
    }

    /// Number of hosts.
    #[must_use]
    pub fn host_count(&self) -> u32 {
        self.config.hosts
    }

    /// Number of pages.
    #[must_use]
    pub fn page_count(&self) -> u32 {
        self.config.pages
    }

    /// All pages, indexed by page id.
    #[must_use]
    pub fn pages(&self) -> &[PageInfo] {
        &self.pages
    }

    /// Page `id`; `None` if out of range.
    #[must_use]
    pub fn page(&self, id: u32) -> Option<&PageInfo> {
        self.pages.get(id as usize)
    }

    /// Ids of host `host`'s pages, root first.
    #[must_use]
    pub fn host_pages(&self, host: u32) -> std::ops::Range<u32> {
        let h = host as usize;
        match (self.host_start.get(h), self.host_start.get(h + 1)) {
            (Some(&start), Some(&end)) => start..end,
            _ => 0..0,
        }
    }

    /// The root page of host `host`.
    #[must_use]
    pub fn root(&self, host: u32) -> u32 {
        self.host_pages(host).start
    }

    /// Name of host `host`: `h{host}.web.test`.
    #[must_use]
    pub fn host_name(host: u32) -> String {
        format!("h{host}.{DOMAIN}")
    }

    /// The host index of a host name `h{i}.web.test` (no port, any case); `None` if not one of ours.
    #[must_use]
    pub fn host_index(&self, name: &str) -> Option<u32> {
        let name = name.to_ascii_lowercase();
        let digits = name.strip_prefix('h')?.strip_suffix(DOMAIN)?.strip_suffix('.')?;
        let host = parse_canonical_u32(digits)?;
        (host < self.config.hosts).then_some(host)
    }

    /// The path of page `id`: `/`, `/page/{j}` or `/private/{j}`.
    #[must_use]
    pub fn path(&self, id: u32) -> String {
        match self.page(id) {
            Some(page) if page.local == 0 => "/".to_string(),
            Some(page) if page.allowed => format!("/page/{}", page.local),
            Some(page) => format!("/private/{}", page.local),
            None => String::new(),
        }
    }

    /// The absolute URL of page `id` when the web is served on `port`.
    #[must_use]
    pub fn url(&self, id: u32, port: u16) -> String {
        let host = self.page(id).map_or(0, |page| page.host);
        format!("http://{}:{port}{}", Self::host_name(host), self.path(id))
    }

    /// The page at `path` (no query) on host `host`; `None` if there is none.
    #[must_use]
    pub fn lookup(&self, host: u32, path: &str) -> Option<u32> {
        let pages = self.host_pages(host);
        if pages.is_empty() {
            return None;
        }
        if path == "/" {
            return Some(pages.start);
        }
        let (allowed, number) = if let Some(rest) = path.strip_prefix("/page/") {
            (true, rest)
        } else {
            (false, path.strip_prefix("/private/")?)
        };
        let local = parse_canonical_u32(number)?;
        let id = pages.start.checked_add(local)?;
        (local > 0 && pages.contains(&id) && self.pages[id as usize].allowed == allowed).then_some(id)
    }

    /// Out-links of page `id` (page ids), sorted.
    #[must_use]
    pub fn links(&self, id: u32) -> &[u32] {
        let i = id as usize;
        match (self.link_start.get(i), self.link_start.get(i + 1)) {
            (Some(&start), Some(&end)) => &self.links[start as usize..end as usize],
            _ => &[],
        }
    }

    /// The change times of page `id` (an empty process for an unknown id is never asked:
    /// callers hold ids from this web).
    #[must_use]
    pub fn changes(&self, id: u32) -> PageChanges {
        let process =
            self.page(id).map_or(ChangeProcess::Poisson { rate: self.config.min_rate }, |page| page.process);
        PageChanges::new(self.config.seed, u64::from(id), process)
    }

    /// The version of page `id` at model time `t` (changes in `(0, t]`).
    #[must_use]
    pub fn version_at(&self, id: u32, t: f64) -> u64 {
        self.changes(id).version_at(t)
    }

    /// The strong ETag of version `version` of page `id` (quotes included): a hash of
    /// `(seed, page, version)`, so it changes exactly when the content does.
    #[must_use]
    pub fn etag(&self, id: u32, version: u64) -> String {
        format!("\"{:016x}\"", keyed::bits(self.config.seed, Stream::Etag, u64::from(id), version))
    }

    /// Draws the links; returns each page's spanning-tree parent (`None` for a root).
    fn build_links(&mut self) -> Vec<Option<u32>> {
        let config = &self.config;
        let mut rng = SimRng::stream(config.seed, 0x11AC);
        let mut edges: Vec<(u32, u32)> = Vec::with_capacity(config.pages as usize * 7);
        let mut tree_parent = vec![None; config.pages as usize];
        for host in 0..config.hosts {
            let range = self.host_pages(host);
            let size = range.end - range.start;
            for local in 1..size {
                // Parent: an allowed page with a smaller index (the root if a few draws miss).
                let parent = (0..4)
                    .map(|_| range.start + rng.index(local as usize) as u32)
                    .find(|&p| self.pages[p as usize].allowed)
                    .unwrap_or(range.start);
                edges.push((parent, range.start + local));
                tree_parent[(range.start + local) as usize] = Some(parent);
            }
            if config.hosts > 1 {
                edges.push((range.start, self.root((host + 1) % config.hosts)));
            }
        }
        for id in 0..config.pages {
            let host = self.pages[id as usize].host;
            let degree = (2.0 * rng.uniform_open0().powf(-1.0 / 1.5)).floor().min(40.0) as u32;
            for _ in 0..degree {
                let target_host = if config.hosts == 1 || rng.uniform() < config.intra_host_fraction {
                    host
                } else {
                    let other = zipf_index(config.hosts, rng.uniform());
                    if other == host { (host + 1) % config.hosts } else { other }
                };
                let range = self.host_pages(target_host);
                edges.push((id, range.start + zipf_index(range.end - range.start, rng.uniform())));
            }
        }
        edges.retain(|&(from, to)| from != to);
        edges.sort_unstable();
        edges.dedup();
        let mut link_start = vec![0u32; config.pages as usize + 1];
        for &(from, _) in &edges {
            link_start[from as usize + 1] += 1;
        }
        for i in 0..config.pages as usize {
            link_start[i + 1] += link_start[i];
        }
        self.links = edges.into_iter().map(|(_, to)| to).collect();
        self.link_start = link_start;
        tree_parent
    }

    /// PageRank by power iteration (50 rounds: the error shrinks as 0.85^50 ≈ 3·10^−4).
    fn compute_importance(&mut self) {
        const DAMPING: f64 = 0.85;
        let n = self.pages.len();
        let mut rank = vec![1.0 / n as f64; n];
        let mut next = vec![0.0; n];
        for _ in 0..50 {
            let mut dangling = 0.0;
            next.fill(0.0);
            for (id, &r) in rank.iter().enumerate() {
                let out = self.links(id as u32);
                if out.is_empty() {
                    dangling += r;
                } else {
                    let share = r / out.len() as f64;
                    for &to in out {
                        next[to as usize] += share;
                    }
                }
            }
            let base = (1.0 - DAMPING) / n as f64 + DAMPING * dangling / n as f64;
            for value in &mut next {
                *value = base + DAMPING * *value;
            }
            std::mem::swap(&mut rank, &mut next);
        }
        for (page, r) in self.pages.iter_mut().zip(rank) {
            page.importance = r * n as f64;
        }
    }
}

/// Prefix sums of Zipf host sizes (one root each, then the rest by `⌊(N+1)^U⌋ − 1`).
fn host_starts(config: &WebConfig) -> Vec<u32> {
    let mut sizes = vec![1u32; config.hosts as usize];
    let mut rng = SimRng::stream(config.seed, 0x4057);
    for _ in config.hosts..config.pages {
        sizes[zipf_index(config.hosts, rng.uniform()) as usize] += 1;
    }
    let mut starts = Vec::with_capacity(sizes.len() + 1);
    let mut total = 0;
    starts.push(0);
    for size in sizes {
        total += size;
        starts.push(total);
    }
    starts
}

/// A page's own properties, keyed by its id (importance and topic are filled in later).
fn page_properties(config: &WebConfig, id: u32, host: u32, local: u32) -> PageInfo {
    let u = |k| keyed::uniform(config.seed, Stream::Property, u64::from(id), k);
    let allowed = local == 0 || u(0) >= config.disallowed_fraction;
    let rate = config.min_rate * (config.max_rate / config.min_rate).powf(u(2));
    let kind = u(1);
    let process = if kind < 0.6 {
        ChangeProcess::Poisson { rate }
    } else if kind < 0.8 {
        ChangeProcess::Periodic { rate, jitter: 0.5 * u(3) }
    } else {
        // A cycle of ten changes on average, on for a fifth of it.
        let cycle = 10.0 / rate;
        ChangeProcess::Bursty { rate, mean_on: 0.2 * cycle, mean_off: 0.8 * cycle }
    };
    let words = 150 + (u(4) * 1350.0) as u32;
    PageInfo { host, local, allowed, importance: 0.0, process, words, topic_score: 0 }
}

/// A decimal `u32` without sign, leading zeros (except "0" itself) or anything else, so that
/// every page has exactly one path.
fn parse_canonical_u32(text: &str) -> Option<u32> {
    let canonical = !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'));
    if canonical { text.parse().ok() } else { None }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn small() -> Web {
        Web::new(WebConfig { hosts: 7, pages: 700, ..WebConfig::default() }).unwrap()
    }

    #[test]
    fn every_page_has_one_path_and_lookup_inverts_it() {
        let web = small();
        for id in 0..web.page_count() {
            let page = web.pages()[id as usize];
            let path = web.path(id);
            assert_eq!(web.lookup(page.host, &path), Some(id), "{path}");
        }
        assert_eq!(web.lookup(0, "/page/0"), None);
        assert_eq!(web.lookup(0, "/page/01"), None);
        assert_eq!(web.lookup(0, "/page/+1"), None);
        assert_eq!(web.lookup(0, "/page/99999999999"), None);
        assert_eq!(web.lookup(0, "/nothing"), None);
        assert_eq!(web.host_index("H3.Web.Test"), Some(3));
        assert_eq!(web.host_index("h7.web.test"), None);
        assert_eq!(web.host_index("h03.web.test"), None);
        assert_eq!(web.host_index("h3.web.test.evil"), None);
    }

    #[test]
    fn importance_is_pagerank_with_mean_one() {
        let web = small();
        let mean = web.pages().iter().map(|p| p.importance).sum::<f64>() / 700.0;
        assert!((mean - 1.0).abs() < 1e-9);
        // Roots collect the most links: the top page by importance is a root.
        let top = web.pages().iter().max_by(|a, b| a.importance.total_cmp(&b.importance)).unwrap();
        assert_eq!(top.local, 0);
    }

    #[test]
    fn in_degrees_have_a_heavy_tail() {
        let web = Web::new(WebConfig { hosts: 20, pages: 20_000, ..WebConfig::default() }).unwrap();
        let mut in_degree = vec![0u32; 20_000];
        for id in 0..20_000 {
            for &to in web.links(id) {
                in_degree[to as usize] += 1;
            }
        }
        in_degree.sort_unstable();
        let median = in_degree[10_000];
        let max = in_degree[19_999];
        assert!(max > 50 * median.max(1), "median {median}, max {max}");
    }

    #[test]
    fn invalid_configs_name_the_field() {
        let err = Web::new(WebConfig { hosts: 5, pages: 3, ..WebConfig::default() }).unwrap_err();
        assert!(err.to_string().contains("pages"), "{err}");
        let err = Web::new(WebConfig { min_rate: 0.0, ..WebConfig::default() }).unwrap_err();
        assert!(err.to_string().contains("min_rate"), "{err}");
        for topic_fraction in [-0.1, 1.5, f64::NAN] {
            let err = Web::new(WebConfig { topic_fraction, ..WebConfig::default() }).unwrap_err();
            assert!(err.to_string().contains("topic_fraction"), "{err}");
        }
        for topic_fraction in [0.0, 1.0] {
            assert!(WebConfig { topic_fraction, ..WebConfig::default() }.validate().is_ok());
        }
    }
}
