//! The topic of a focused crawl: which pages are on it, how often they say its word, and
//! which anchors mention it — ground truth for Gouriten, Maniu & Senellart's scores (a page's
//! β is the count of the topic word in it, a link's α the count in its anchor text).
//!
//! The scheme (summed up in the web model's module docs): a page is on topic with its host's
//! rate, and more often below an on-topic tree parent; rates are set so that the expected
//! share of on-topic pages is [`crate::WebConfig::topic_fraction`] whatever the host sizes.
//! Every draw comes from streams of its own, made after the graph, so a web without a topic
//! is drawn exactly as before topics existed.

use crate::keyed::{self, Stream};

/// The word of the topic: lower-case ASCII letters, not in the text vocabulary, so it appears
/// only where the model puts it (an on-topic page's text, some anchors of links to one).
pub const TOPIC_WORD: &str = "glacier";

/// Probability that the anchor text of a link to an on-topic page carries [`TOPIC_WORD`];
/// decided once per (source, target) link, so every version shows the same anchors. Links to
/// off-topic pages never carry it.
pub const TOPIC_ANCHOR_PROBABILITY: f64 = 0.6;

/// Least share of the pages that live on topic hosts: hosts join the topic hosts in a keyed
/// random order until they hold this share (at least one host does, so there is always a
/// cluster; a big host may take the share beyond this).
pub(crate) const TOPIC_HOST_SHARE: f64 = 0.2;

/// How many times the target share a topic host's pages are on topic, before the caps: a rate
/// is at most 1, and topic hosts never hold more than the whole target share.
pub(crate) const TOPIC_HOST_LIFT: f64 = 4.0;

/// Persistence `ρ` along the spanning tree: below an on-topic parent a page is on topic with
/// probability `p + (1 − p)·ρ`, below an off-topic one with `p·(1 − ρ)`, `p` its host's rate.
/// Both average to `p` when the parent is on topic with probability `p`, so every page's
/// marginal rate stays its host's.
pub(crate) const TOPIC_TREE_PERSISTENCE: f64 = 0.5;

/// The largest topic score; an on-topic page's score is `min(MAX, 1 + ⌊−log₂ U⌋)`,
/// `P(k) = 2^−k`: mostly one or two mentions, a few pages with many.
pub(crate) const TOPIC_SCORE_MAX: u32 = 8;

/// Keyed-draw index (`k`) of a page's on/off draw in [`Stream::Topic`].
const DRAW_ON_TOPIC: u64 = 0;
/// Keyed-draw index (`k`) of a page's score draw in [`Stream::Topic`].
const DRAW_SCORE: u64 = 1;

/// The topic score of every page (0 off topic), indexed by page id.
///
/// `host_start` delimits the hosts' pages as in the web (`host_start[h]..host_start[h+1]`);
/// `tree_parent[id]` is page `id`'s spanning-tree parent (`None` for a root), always a page of
/// the same host with a smaller id, so parents are decided before their children.
pub(crate) fn topic_scores(
    seed: u64,
    fraction: f64,
    host_start: &[u32],
    tree_parent: &[Option<u32>],
) -> Vec<u32> {
    let mut scores = vec![0u32; tree_parent.len()];
    if fraction <= 0.0 {
        return scores;
    }
    let rates = host_rates(seed, fraction, host_start);
    for (host, pages) in host_start.windows(2).enumerate() {
        let rate = rates[host];
        for id in pages[0]..pages[1] {
            let chance = match tree_parent[id as usize] {
                None => rate,
                Some(parent) if scores[parent as usize] > 0 => rate + (1.0 - rate) * TOPIC_TREE_PERSISTENCE,
                Some(_) => rate * (1.0 - TOPIC_TREE_PERSISTENCE),
            };
            if keyed::uniform(seed, Stream::Topic, u64::from(id), DRAW_ON_TOPIC) < chance {
                let u = keyed::uniform_open0(seed, Stream::Topic, u64::from(id), DRAW_SCORE);
                // −log₂ of (0, 1] is in [0, 53]: the cast cannot overflow.
                scores[id as usize] = (1 + (-u.log2()).floor() as u32).min(TOPIC_SCORE_MAX);
            }
        }
    }
    scores
}

/// Each host's on-topic rate: topic hosts (in a keyed random order until they hold
/// [`TOPIC_HOST_SHARE`] of the pages) `p_hot = min(1, LIFT·f, f/s)`, the others
/// `p_cold = (f − s·p_hot)/(1 − s)`, where `s` is the share of pages on topic hosts, so that
/// the page-weighted mean rate is `f` exactly (a single host gets `f`).
fn host_rates(seed: u64, fraction: f64, host_start: &[u32]) -> Vec<f64> {
    let hosts = host_start.len().saturating_sub(1);
    let size = |host: usize| f64::from(host_start[host + 1] - host_start[host]);
    let total: f64 = (0..hosts).map(size).sum();
    let mut order: Vec<(f64, usize)> =
        (0..hosts).map(|host| (keyed::uniform(seed, Stream::TopicHost, host as u64, 0), host)).collect();
    order.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
    let mut hot = vec![false; hosts];
    let mut hot_pages = 0.0;
    for (_, host) in order {
        if hot_pages >= TOPIC_HOST_SHARE * total {
            break;
        }
        hot[host] = true;
        hot_pages += size(host);
    }
    let hot_share = if total > 0.0 { hot_pages / total } else { 1.0 };
    let (p_hot, p_cold) = if hot_share >= 1.0 {
        (fraction, fraction)
    } else {
        let p_hot = (TOPIC_HOST_LIFT * fraction).min(1.0).min(fraction / hot_share);
        (p_hot, ((fraction - hot_share * p_hot) / (1.0 - hot_share)).clamp(0.0, 1.0))
    };
    hot.into_iter().map(|is_hot| if is_hot { p_hot } else { p_cold }).collect()
}

/// The word positions (in `0..words`, sorted, distinct) where version `version` of page `id`
/// says [`TOPIC_WORD`]: `min(score, words)` of them, by Floyd's sampling without replacement
/// (Bentley & Floyd 1987), drawn from the version's own stream so the count is the same in
/// every version while the places move.
pub(crate) fn topic_positions(seed: u64, id: u32, version: u64, words: u32, score: u32) -> Vec<u32> {
    let count = score.min(words);
    let mut chosen = Vec::with_capacity(count as usize);
    let mut state = keyed::bits(seed, Stream::TopicText, u64::from(id), version);
    for j in words - count..words {
        state = keyed::mix(state);
        // The remainder is at most j: it fits a u32.
        let candidate = (state % (u64::from(j) + 1)) as u32;
        chosen.push(if chosen.contains(&candidate) { j } else { candidate });
    }
    chosen.sort_unstable();
    chosen
}

/// Whether the anchor of the link from `source` to an on-topic `target` carries
/// [`TOPIC_WORD`] (probability [`TOPIC_ANCHOR_PROBABILITY`], the same in every version).
pub(crate) fn anchor_mentions_topic(seed: u64, source: u32, target: u32) -> bool {
    keyed::uniform(seed, Stream::TopicAnchor, u64::from(source), u64::from(target)) < TOPIC_ANCHOR_PROBABILITY
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::web::{Web, WebConfig};

    fn topic_web(seed: u64, hosts: u32, topic_fraction: f64) -> Web {
        Web::new(WebConfig { seed, hosts, pages: 3000, topic_fraction, ..WebConfig::default() }).unwrap()
    }

    fn on_topic(web: &Web, id: u32) -> bool {
        web.page(id).unwrap().topic_score > 0
    }

    fn share_on_topic(web: &Web) -> f64 {
        (0..web.page_count()).filter(|&id| on_topic(web, id)).count() as f64 / f64::from(web.page_count())
    }

    #[test]
    fn the_share_on_topic_is_near_the_fraction() {
        for hosts in [10, 30] {
            for fraction in [0.1, 0.3] {
                for seed in 1..=3 {
                    let share = share_on_topic(&topic_web(seed, hosts, fraction));
                    assert!(
                        (share / fraction - 1.0).abs() <= 0.3,
                        "{hosts} hosts, seed {seed}: {share} on topic, {fraction} asked"
                    );
                }
            }
        }
    }

    #[test]
    fn on_topic_pages_link_to_each_other_more_than_chance() {
        for hosts in [10, 30] {
            for seed in 1..=3 {
                let web = topic_web(seed, hosts, 0.1);
                let (mut from_on_topic, mut to_on_topic) = (0u32, 0u32);
                for id in (0..web.page_count()).filter(|&id| on_topic(&web, id)) {
                    for &to in web.links(id) {
                        from_on_topic += 1;
                        to_on_topic += u32::from(on_topic(&web, to));
                    }
                }
                let conditional = f64::from(to_on_topic) / f64::from(from_on_topic);
                let share = share_on_topic(&web);
                assert!(
                    conditional >= 2.0 * share,
                    "{hosts} hosts, seed {seed}: P(on | from on) = {conditional}, share {share}"
                );
            }
        }
    }

    #[test]
    fn a_topic_leaves_the_graph_and_the_processes_alone() {
        let plain = topic_web(4, 10, 0.0);
        let topical = topic_web(4, 10, 0.3);
        assert!((0..3000).all(|id| !on_topic(&plain, id)));
        assert!((0..3000).any(|id| on_topic(&topical, id)));
        for id in 0..3000 {
            let mut page = *topical.page(id).unwrap();
            page.topic_score = 0;
            assert_eq!(&page, plain.page(id).unwrap(), "page {id}");
            assert_eq!(topical.links(id), plain.links(id), "page {id}");
        }
    }

    #[test]
    fn positions_are_distinct_sorted_and_as_many_as_the_score() {
        for version in 0..200 {
            let positions = topic_positions(3, 17, version, 150, 8);
            assert_eq!(positions.len(), 8);
            assert!(positions.windows(2).all(|w| w[0] < w[1]), "{positions:?}");
            assert!(positions.iter().all(|&p| p < 150));
        }
        assert_eq!(topic_positions(3, 17, 0, 4, 8), vec![0, 1, 2, 3]);
        assert!(topic_positions(3, 17, 0, 150, 0).is_empty());
        assert_ne!(topic_positions(3, 17, 0, 150, 3), topic_positions(3, 17, 1, 150, 3));
    }

    #[test]
    fn host_rates_average_to_the_fraction() {
        // Zipf-like sizes: the largest host alone is over a third of the pages.
        let host_start = [0, 400, 600, 700, 760, 800, 830, 850, 870, 885, 900];
        for seed in 0..20 {
            for fraction in [0.05, 0.1, 0.3, 0.7, 1.0] {
                let rates = host_rates(seed, fraction, &host_start);
                let mean =
                    host_start.windows(2).zip(&rates).map(|(w, r)| f64::from(w[1] - w[0]) * r).sum::<f64>()
                        / 900.0;
                assert!((mean - fraction).abs() < 1e-9, "seed {seed}, fraction {fraction}: {mean}");
                assert!(rates.iter().all(|r| (0.0..=1.0).contains(r)));
            }
        }
        assert_eq!(host_rates(1, 0.3, &[0, 50]), vec![0.3]);
    }

    #[test]
    fn scores_run_from_one_to_the_maximum_and_favour_small_counts() {
        let parents = vec![None; 20_000];
        let starts: Vec<u32> = (0..=20_000).collect();
        let scores = topic_scores(5, 1.0, &starts, &parents);
        assert!(scores.iter().all(|&s| (1..=TOPIC_SCORE_MAX).contains(&s)));
        let ones = scores.iter().filter(|&&s| s == 1).count();
        assert!((9_000..11_000).contains(&ones), "{ones} pages of score 1");
        assert!(scores.contains(&TOPIC_SCORE_MAX));
        assert!(topic_scores(5, 0.0, &starts, &parents).iter().all(|&s| s == 0));
    }
}
