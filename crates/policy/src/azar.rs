//! Azar et al.'s exact O(n log n) closed forms (seed 001_1ae7d23b6da2937a.txt, Algorithms 1, 2).
//!
//! Both sort the pages by `w/λ` (the paper's `μ_i/Δ_i`) and drop pages from the low end while
//! they fall under the threshold `(T/(R + S))²`; the survivors get their rates in closed form.
//! The running sums `T` and `S` are kept here as suffix sums over the sorted order, computed with
//! compensation, instead of the paper's repeated subtraction `T ← T − …`, which loses digits when
//! many pages are dropped; the algorithm is otherwise as printed.

use crate::objective::{FreshnessDiscrete, FreshnessPoisson, Objective};
use crate::sum::CompensatedSum;
use crate::{Page, PolicyError, Result};

/// Algorithm 2 (Problem 2, Poisson-timed fetches, objective `freshness-poisson`): maximise
/// `Σ w·f/(f + λ)` subject to `Σ f = bandwidth`. With `T = Σ √(wλ)` and `S = Σ λ` over the pages
/// kept, `f_i = √(w_iλ_i)·(R + S)/T − λ_i` (eq. 11).
///
/// # Errors
/// Invalid pages or bandwidth, as [`crate::Problem::validate`].
pub fn azar_poisson(pages: &[Page], bandwidth: f64) -> Result<Vec<f64>> {
    check(FreshnessPoisson, pages, bandwidth)?;
    Ok(closed_form(pages, bandwidth, |page| {
        let root = (page.weight * page.change_rate).sqrt();
        Terms { root_term: root, change_term: page.change_rate, divisor: 1.0, offset: page.change_rate }
    }))
}

/// Algorithm 1 (Problem 1, one fetch per slot, objective `freshness-discrete`): maximise
/// `Σ w·p/(p + Δ − pΔ)` subject to `Σ p = bandwidth ≤ 1` (the paper has bandwidth 1: one fetch
/// per slot). With `T = Σ √(wΔ)/(1 − Δ)` and `S = Σ Δ/(1 − Δ)`,
/// `p_i = (√(w_iΔ_i)·(R + S)/T − Δ_i)/(1 − Δ_i)` (eqs. 9, 10).
///
/// # Errors
/// Invalid pages (change probabilities must be in (0, 1)), or a bandwidth above 1 (then the
/// bound `p ≤ 1` can bind, which the closed form ignores: use [`crate::solve()`]).
pub fn azar_discrete(pages: &[Page], bandwidth: f64) -> Result<Vec<f64>> {
    check(FreshnessDiscrete, pages, bandwidth)?;
    if bandwidth > 1.0 {
        return Err(PolicyError::OutsideAssumptions {
            algorithm: "Azar et al. Algorithm 1",
            reason: "bandwidth above one fetch per slot (the bound p ≤ 1 may bind)",
        });
    }
    Ok(closed_form(pages, bandwidth, |page| {
        let keep = 1.0 - page.change_rate;
        Terms {
            root_term: (page.weight * page.change_rate).sqrt() / keep,
            change_term: page.change_rate / keep,
            divisor: keep,
            offset: page.change_rate,
        }
    }))
}

/// One page's contributions to `T` and `S`, and the pieces of its closed-form rate.
struct Terms {
    /// The page's share of `T`.
    root_term: f64,
    /// The page's share of `S`.
    change_term: f64,
    /// `1` (Problem 2) or `1 − Δ` (Problem 1).
    divisor: f64,
    /// `λ` or `Δ`.
    offset: f64,
}

fn check<O: Objective>(objective: O, pages: &[Page], bandwidth: f64) -> Result<()> {
    crate::Problem::budgeted(pages, bandwidth).validate(objective)
}

/// The common loop: sort by `w/λ`, find the first page that stays, assign closed-form rates.
/// A page stays iff `w/λ > (T/(R + S))²` with `T`, `S` summed over it and all pages above it.
fn closed_form(pages: &[Page], bandwidth: f64, terms: impl Fn(&Page) -> Terms) -> Vec<f64> {
    let mut order: Vec<u32> = (0..pages.len() as u32).collect();
    let ratio = |index: u32| {
        let page = pages[index as usize];
        page.weight / page.change_rate
    };
    order.sort_unstable_by(|&a, &b| ratio(a).total_cmp(&ratio(b)));
    // Suffix sums of T and S over the sorted order.
    let mut suffix_root = vec![0.0; pages.len() + 1];
    let mut suffix_change = vec![0.0; pages.len() + 1];
    let (mut root_sum, mut change_sum) = (CompensatedSum::default(), CompensatedSum::default());
    for (position, &index) in order.iter().enumerate().rev() {
        let page_terms = terms(&pages[index as usize]);
        root_sum.add(page_terms.root_term);
        change_sum.add(page_terms.change_term);
        suffix_root[position] = root_sum.value();
        suffix_change[position] = change_sum.value();
    }
    let mut first_kept = pages.len();
    for (position, &index) in order.iter().enumerate() {
        let cutoff = suffix_root[position] / (bandwidth + suffix_change[position]);
        if ratio(index) > cutoff * cutoff {
            first_kept = position;
            break;
        }
    }
    let mut rates = vec![0.0; pages.len()];
    if first_kept == pages.len() {
        return rates;
    }
    let scale = (bandwidth + suffix_change[first_kept]) / suffix_root[first_kept];
    for &index in &order[first_kept..] {
        let page = &pages[index as usize];
        let page_terms = terms(page);
        let root = (page.weight * page.change_rate).sqrt();
        rates[index as usize] = ((root * scale - page_terms.offset) / page_terms.divisor).max(0.0);
    }
    rates
}
