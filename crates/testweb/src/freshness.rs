//! Exact ground-truth freshness of a crawl: from its fetches (page, model time) and the
//! model's change times, with no sampling.
//!
//! A page's copy is *fresh* at time `s` if the page was fetched at some `f ≤ s` and did not
//! change in `(f, s]` (seed 000's binary freshness; a page changing at exactly `f` is served at
//! its new version, since the server answers with the version at the request's arrival). A page
//! never fetched is not fresh. Over a window `[from, to)`:
//!
//! ```text
//! F_i = (1/(to − from)) ∫ 1[fresh_i(s)] ds,   weighted freshness = Σ w_i F_i / Σ w_i      (1)
//! ```
//!
//! over the allowed pages (a polite crawler cannot fetch the others), `w_i` the page's
//! importance. Between two fetches `f_k < f_(k+1)` the copy is fresh from `f_k` until the first
//! change after `f_k` or `f_(k+1)`, whichever comes first; each interval costs one lookup of the
//! first change after `f_k`.

use crate::web::Web;

/// One fetch of a crawl: page id and the model time its request reached the server.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fetch {
    /// The page.
    pub page: u32,
    /// Model time (days) of the request's arrival.
    pub time: f64,
}

/// Freshness of a crawl over a window, by (1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Freshness {
    /// Importance-weighted mean freshness of the allowed pages, in `[0, 1]`.
    pub weighted: f64,
    /// Unweighted mean over the allowed pages.
    pub unweighted: f64,
    /// Allowed pages fetched at least once before the window's end.
    pub pages_fetched: u32,
}

/// Exact freshness over `[from, to)` of a crawl whose fetches are `fetches` (any order;
/// fetches of disallowed or unknown pages are ignored). An empty or inverted window gives 0.
#[must_use]
pub fn freshness(web: &Web, fetches: &[Fetch], from: f64, to: f64) -> Freshness {
    let mut by_page: Vec<Vec<f64>> = vec![Vec::new(); web.page_count() as usize];
    for fetch in fetches {
        if let Some(times) = by_page.get_mut(fetch.page as usize)
            && fetch.time.is_finite()
        {
            times.push(fetch.time);
        }
    }
    let (mut weighted, mut weights, mut unweighted, mut pages, mut fetched) = (0.0, 0.0, 0.0, 0u32, 0u32);
    let span = to - from;
    for (id, times) in by_page.iter_mut().enumerate() {
        let Some(page) = web.page(id as u32).filter(|page| page.allowed) else { continue };
        times.sort_by(f64::total_cmp);
        let fresh = if span > 0.0 { fresh_time(web, id as u32, times, from, to) / span } else { 0.0 };
        weighted += page.importance * fresh;
        weights += page.importance;
        unweighted += fresh;
        pages += 1;
        fetched += u32::from(times.first().is_some_and(|&first| first < to));
    }
    let mean = |sum: f64, count: f64| if count > 0.0 { sum / count } else { 0.0 };
    Freshness {
        weighted: mean(weighted, weights),
        unweighted: mean(unweighted, f64::from(pages)),
        pages_fetched: fetched,
    }
}

/// Time in `[from, to)` during which page `id`, fetched at the sorted `times`, is fresh.
fn fresh_time(web: &Web, id: u32, times: &[f64], from: f64, to: f64) -> f64 {
    let changes = web.changes(id);
    let mut total = 0.0;
    for (k, &fetched) in times.iter().enumerate() {
        let next_fetch = times.get(k + 1).copied().unwrap_or(f64::INFINITY);
        if fetched >= to || next_fetch <= from {
            continue;
        }
        let next_change = changes.nth_change(changes.version_at(fetched));
        let end = next_change.min(next_fetch).min(to);
        let start = fetched.max(from);
        if end > start {
            total += end - start;
        }
    }
    total
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::web::WebConfig;

    /// Freshness by brute force: is each page fresh at each point of a fine grid?
    fn sampled(web: &Web, fetches: &[Fetch], from: f64, to: f64, points: usize) -> f64 {
        let (mut sum, mut weights) = (0.0, 0.0);
        for id in 0..web.page_count() {
            let page = web.page(id).unwrap();
            if !page.allowed {
                continue;
            }
            let mine: Vec<f64> = fetches.iter().filter(|f| f.page == id).map(|f| f.time).collect();
            let mut fresh = 0;
            for j in 0..points {
                let s = from + (to - from) * (j as f64 + 0.5) / points as f64;
                let last = mine.iter().copied().filter(|&t| t <= s).reduce(f64::max);
                if let Some(last) = last
                    && web.version_at(id, last) == web.version_at(id, s)
                {
                    fresh += 1;
                }
            }
            sum += page.importance * f64::from(fresh) / points as f64;
            weights += page.importance;
        }
        sum / weights
    }

    #[test]
    fn exact_freshness_matches_the_sampled_one() {
        let web = Web::new(WebConfig { hosts: 3, pages: 40, ..WebConfig::default() }).unwrap();
        // Each page fetched every (1 + id mod 5)/2 days from day id/10.
        let fetches: Vec<Fetch> = (0..40u32)
            .flat_map(|page| {
                let step = f64::from(1 + page % 5) / 2.0;
                (0..40).map(move |k| Fetch { page, time: f64::from(page) / 10.0 + step * f64::from(k) })
            })
            .collect();
        let exact = freshness(&web, &fetches, 2.0, 12.0);
        let approx = sampled(&web, &fetches, 2.0, 12.0, 4000);
        assert!((exact.weighted - approx).abs() < 2e-3, "exact {exact:?}, sampled {approx}");
        assert!(exact.weighted > 0.05 && exact.weighted < 0.95);
        assert_eq!(exact.pages_fetched, web.pages().iter().filter(|p| p.allowed).count() as u32);
    }

    #[test]
    fn nothing_fetched_is_never_fresh_and_a_fetch_at_every_change_always_is() {
        let web = Web::new(WebConfig { hosts: 2, pages: 20, ..WebConfig::default() }).unwrap();
        assert_eq!(freshness(&web, &[], 0.0, 10.0).weighted, 0.0);
        let fetches: Vec<Fetch> = (0..20u32)
            .flat_map(|page| {
                let changes = web.changes(page).times_until(10.0);
                std::iter::once(0.0).chain(changes).map(move |time| Fetch { page, time })
            })
            .collect();
        let always = freshness(&web, &fetches, 0.0, 10.0);
        assert!(
            (always.weighted - 1.0).abs() < 1e-12 && (always.unweighted - 1.0).abs() < 1e-12,
            "{always:?}"
        );
    }
}
