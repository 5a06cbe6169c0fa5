//! Helpers shared by the integration tests: a brute-force deviation check.

// Each test binary compiles this module and uses only part of it.
#![allow(dead_code)]

use freshet_schedule::Shares;

/// Slack for rounding in the shares and in `T·p_i − N_i(T)`.
pub(crate) const TOL: f64 = 1e-9;

/// Extremes of the lag `T·p_i − N_i(T)` of every page over every prefix `T` of `pages`,
/// computed the slow way: `(min, max)` per page.
pub(crate) fn lag_extremes(shares: &Shares, pages: &[usize]) -> Vec<(f64, f64)> {
    let p = shares.as_slice();
    let mut counts = vec![0u64; p.len()];
    let mut extremes = vec![(0.0f64, 0.0f64); p.len()];
    for (t, &page) in pages.iter().enumerate() {
        if let Some(count) = counts.get_mut(page) {
            *count += 1;
        }
        let prefix = (t + 1) as f64;
        for (i, extreme) in extremes.iter_mut().enumerate() {
            let lag = prefix * p[i] - counts[i] as f64;
            extreme.0 = extreme.0.min(lag);
            extreme.1 = extreme.1.max(lag);
        }
    }
    extremes
}
