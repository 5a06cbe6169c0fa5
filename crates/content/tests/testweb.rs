//! The key test: on every page of a 1,000-page test web, per-request noise (a session token in
//! the navigation links, a rotating ad, a "served at" timestamp) never reads as a change, and
//! every new version does; a byte fingerprint would have called every noisy refetch a change.
//! Then the same with the noise's classes renamed, so that only SimHash can absorb it.
//!
//! Pages are rendered by the test web's pure renderer (`freshet_testweb::render::page_html`);
//! nothing is served.

#![allow(clippy::unwrap_used)]

use std::time::{Duration, UNIX_EPOCH};

use freshet_content::{DEFAULT_THRESHOLD, HostBoilerplate, MainText, Signature, Verdict, compare};
use freshet_testweb::render::{Noise, RenderContext, page_html};
use freshet_testweb::{Web, WebConfig};
use xxhash_rust::xxh3::xxh3_64;

fn web() -> Web {
    Web::new(WebConfig { hosts: 10, pages: 1000, ..WebConfig::default() }).unwrap()
}

/// Noise of request number `request`: distinct requests get distinct sessions, ads (of the
/// renderer's 17 × 64 × 64 rotation) and times.
fn noise(request: u64) -> Noise {
    let session = xxh3_64(&request.to_le_bytes());
    Noise {
        session: format!("{session:016x}"),
        ad: request * 7919 + 13,
        served_at: httpdate::fmt_http_date(UNIX_EPOCH + Duration::from_secs(1_780_000_000 + request * 3_607)),
    }
}

fn render(web: &Web, id: u32, version: u64, request: u64) -> String {
    page_html(
        web,
        id,
        version,
        &RenderContext { port: 8080, extra_root_links: &[], noise: Some(noise(request)) },
    )
}

/// The noise's classes renamed to words the class heuristics do not know.
fn neutral(html: &str) -> String {
    html.replace("class=\"ad\"", "class=\"x1\"").replace("class=\"served\"", "class=\"x2\"")
}

/// The version each page is looked at (varied so that not every page is at version 0).
fn version_of(id: u32) -> u64 {
    u64::from(id % 5)
}

/// What one page gave: its words, whether its raw bytes differed between two noisy requests
/// for the same version, and the verdicts same-version (different noise) and next-version.
#[derive(Debug)]
struct PageResult {
    words: u32,
    raw_bytes_differ: bool,
    same_version: Verdict,
    next_version: Verdict,
}

/// Renders every page three times (version `v` twice with different noise, `v + 1` once),
/// each through `prepare(html, host)`, and judges the pairs with the host's table if any.
fn judge(
    web: &Web,
    prepare: impl Fn(String, u32) -> String,
    boilerplate: Option<&[HostBoilerplate]>,
) -> Vec<PageResult> {
    (0..web.page_count())
        .map(|id| {
            let page = web.page(id).unwrap();
            let table = boilerplate.map(|tables| &tables[page.host as usize]);
            let version = version_of(id);
            let request = u64::from(id) * 3;
            let first = prepare(render(web, id, version, request), page.host);
            let again = prepare(render(web, id, version, request + 1), page.host);
            let next = prepare(render(web, id, version + 1, request + 2), page.host);
            let raw_bytes_differ = xxh3_64(first.as_bytes()) != xxh3_64(again.as_bytes());
            let [first, again, next] = [&first, &again, &next].map(|html| Signature::of_html(html, table));
            PageResult {
                words: page.words,
                raw_bytes_differ,
                same_version: compare(&first, &again, DEFAULT_THRESHOLD),
                next_version: compare(&first, &next, DEFAULT_THRESHOLD),
            }
        })
        .collect()
}

#[derive(Debug, Default, PartialEq, Eq)]
struct Counts {
    pages: usize,
    /// Same version, different noise: verdicts.
    same: usize,
    near_duplicate: usize,
    false_changes: usize,
    /// Consecutive versions, different noise.
    changes_seen: usize,
    changes_missed: usize,
    /// Same-version pairs whose raw bytes hash differently.
    raw_bytes_differ: usize,
}

fn counts(results: &[PageResult]) -> Counts {
    let mut counts = Counts { pages: results.len(), ..Counts::default() };
    for result in results {
        match result.same_version {
            Verdict::Same => counts.same += 1,
            Verdict::NearDuplicate { .. } => counts.near_duplicate += 1,
            Verdict::Changed { .. } => counts.false_changes += 1,
        }
        if result.next_version.changed() {
            counts.changes_seen += 1;
        } else {
            counts.changes_missed += 1;
        }
        counts.raw_bytes_differ += usize::from(result.raw_bytes_differ);
    }
    counts
}

#[test]
fn noise_is_never_a_change_and_every_new_version_is() {
    let web = web();
    let counts = counts(&judge(&web, |html, _| html, None));
    println!("testweb, class heuristics and SimHash: {counts:?}");
    assert_eq!(counts.pages, 1000);
    // Without this crate: every noisy refetch of an unchanged page would count as a change.
    assert_eq!(counts.raw_bytes_differ, 1000);
    assert_eq!(counts.false_changes, 0);
    assert_eq!(counts.changes_missed, 0);
    assert_eq!(counts.changes_seen, 1000);
    // The heuristics remove all three noise blocks: the main text is equal word for word.
    assert_eq!(counts.same, 1000);
}

/// A host template around the test web's page: a banner after the `<h1>` and a footer line
/// after the links, the same on every page of the host; `swapped` puts the footer line first.
fn with_template(html: &str, host: u32, swapped: bool) -> String {
    let banner =
        format!("<div class=\"x3\">h{host} daily: rivers, weather and the markets, every morning</div>\n");
    let footer = format!(
        "<div class=\"x4\">copyright h{host} web test 2026, all rights reserved, write to us</div>\n"
    );
    let (top, bottom) = if swapped { (&footer, &banner) } else { (&banner, &footer) };
    html.replacen("<article>", &format!("{top}<article>"), 1).replacen(
        "</body>",
        &format!("{bottom}</body>"),
        1,
    )
}

#[test]
fn a_host_template_change_is_not_a_page_change_once_the_host_is_learned() {
    // Every page of a host carries the host's banner and footer line. The tables learn every
    // page once (one noisy rendering each). Then each page is fetched again at the same version
    // with the template rearranged (banner and footer swapped: the words move, so the exact
    // hash of the whole text changes): with the host's table the verdict is `Same`, without it
    // it is not, and new versions are still changes.
    let web = web();
    let mut tables: Vec<HostBoilerplate> =
        (0..web.host_count()).map(|_| HostBoilerplate::default()).collect();
    for id in 0..web.page_count() {
        let host = web.page(id).unwrap().host;
        let html = with_template(&render(&web, id, version_of(id), 10_000 + u64::from(id)), host, false);
        tables[host as usize].learn(&MainText::from_html(&html));
    }
    for (host, table) in (0..).zip(&tables) {
        let template = MainText::from_html(&with_template("<article></article></body>", host, false));
        assert_eq!(template.blocks().len(), 2);
        assert!(template.blocks().iter().all(|block| table.is_boilerplate(block.hash())), "host {host}");
    }
    // Same version: template as learned, then swapped; next version: swapped as well.
    let rearrange = |tables: Option<&[HostBoilerplate]>| {
        let web = &web;
        (0..web.page_count())
            .map(move |id| {
                let page = web.page(id).unwrap();
                let table = tables.map(|tables| &tables[page.host as usize]);
                let (version, request) = (version_of(id), u64::from(id) * 3);
                let learned = with_template(&render(web, id, version, request), page.host, false);
                let swapped = with_template(&render(web, id, version, request + 1), page.host, true);
                let next = with_template(&render(web, id, version + 1, request + 2), page.host, true);
                let [learned, swapped, next] =
                    [&learned, &swapped, &next].map(|html| Signature::of_html(html, table));
                (compare(&learned, &swapped, DEFAULT_THRESHOLD), compare(&learned, &next, DEFAULT_THRESHOLD))
            })
            .collect::<Vec<_>>()
    };
    let with_table = rearrange(Some(&tables));
    let without = rearrange(None);
    let same_with = with_table.iter().filter(|(same, _)| *same == Verdict::Same).count();
    let seen_with = with_table.iter().filter(|(_, next)| next.changed()).count();
    let same_without = without.iter().filter(|(same, _)| *same == Verdict::Same).count();
    let changed_without = without.iter().filter(|(same, _)| same.changed()).count();
    println!(
        "template swapped: with host tables {same_with} of 1000 Same, {seen_with} new versions seen; \
         without tables {same_without} Same, {changed_without} Changed"
    );
    assert_eq!(same_with, 1000);
    assert_eq!(seen_with, 1000);
    assert_eq!(same_without, 0);
}

#[test]
fn with_neutral_class_names_simhash_alone_absorbs_part_of_the_noise() {
    // `class="ad"` → `class="x1"`, `class="served"` → `class="x2"`: the ad (5 words, 3 of
    // which rotate) and the timestamp (8 words, 6 of which change) now stay in the main text,
    // and only the near-duplicate threshold can keep them from counting. The session token
    // sits in `<nav>` hrefs, which are not text either way.
    let web = web();
    let mut results = judge(&web, |html, _| neutral(&html), None);
    let counts = counts(&results);
    let recognised = counts.same + counts.near_duplicate;
    println!(
        "testweb, neutral classes (SimHash alone): {counts:?}; unchanged recognised {recognised} of {} ({:.1} %)",
        counts.pages,
        recognised as f64 * 100.0 / counts.pages as f64
    );
    assert_eq!(counts.raw_bytes_differ, 1000);
    assert_eq!(counts.same, 0, "the noise words are in the text now");
    // New versions are still all seen: the threshold absorbs a few words, not a new text.
    assert_eq!(counts.changes_missed, 0);
    assert!(recognised > 0, "SimHash absorbs the noise on some pages");
    // Theory (simhash docs, eq. 2): with m of n shingles replaced, E[d] ≈ 64·acos(1 − m/n)/π,
    // so the longer the page, the likelier a near-duplicate. Check the trend on the test web:
    // pages in the top word-count third are recognised more often than those in the bottom.
    results.sort_by_key(|result| result.words);
    let third = results.len() / 3;
    let rate = |slice: &[PageResult]| {
        slice.iter().filter(|result| !result.same_version.changed()).count() as f64 / slice.len() as f64
    };
    let (short, long) = (rate(&results[..third]), rate(&results[results.len() - third..]));
    println!("recognised: shortest third {:.1} %, longest third {:.1} %", short * 100.0, long * 100.0);
    assert!(long > short, "longest third {long} vs shortest third {short}");
}

#[test]
fn the_estimated_change_rate_follows_the_content_not_the_noise() {
    // The demonstration: fetch 40 pages every 0.25 model days, 60 times, each fetch
    // with fresh noise, and feed the estimator (seed 004's bias-corrected rate) three ways:
    // the truth (the version moved), this crate's verdict, and a byte fingerprint.
    use freshet_estimate::{ChangeHistory, bias_corrected_rate};
    let web = web();
    let interval = 0.25;
    let (mut truth_sum, mut content_sum, mut bytes_sum) = (0.0, 0.0, 0.0);
    for id in (0..web.page_count()).step_by(25) {
        let [mut truth, mut content, mut bytes] =
            [ChangeHistory::new(), ChangeHistory::new(), ChangeHistory::new()];
        let mut previous: Option<(u64, Signature, u64)> = None;
        for fetch in 0..60u64 {
            let version = web.version_at(id, fetch as f64 * interval);
            let html = render(&web, id, version, u64::from(id) * 1_000 + fetch);
            let current = (version, Signature::of_html(&html, None), xxh3_64(html.as_bytes()));
            if let Some((old_version, old_signature, old_bytes)) = previous {
                let really_changed = version != old_version;
                let judged_changed = freshet_content::changed(&old_signature, &current.1);
                assert_eq!(judged_changed, really_changed, "page {id} fetch {fetch}");
                truth.observe(interval, really_changed, None).unwrap();
                content.observe(interval, judged_changed, None).unwrap();
                bytes.observe(interval, old_bytes != current.2, None).unwrap();
            }
            previous = Some(current);
        }
        let [t, c, b] = [&truth, &content, &bytes].map(|history| bias_corrected_rate(history).rate);
        assert_eq!(c, t, "page {id}: same observations, same estimate");
        assert!(b > t, "page {id}: the byte fingerprint sees a change at every fetch");
        (truth_sum, content_sum, bytes_sum) = (truth_sum + t, content_sum + c, bytes_sum + b);
    }
    println!(
        "mean estimated rate over 40 pages (changes/day): truth {:.3}, content signature {:.3}, raw bytes {:.3}",
        truth_sum / 40.0,
        content_sum / 40.0,
        bytes_sum / 40.0
    );
}
