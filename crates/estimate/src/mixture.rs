//! Empirical-Bayes prior on a grid of rates, fitted to many pages at once: [`RateMixture`].
//!
//! Why not only [`crate::GammaPrior`] centred on a [`crate::HostPool`] of point estimates:
//! a page fetched at intervals much longer than `1/λ` sees a change every time, and its
//! interval likelihood `Π (1 − e^{−λI})` is flat for every `λ ≫ 1/I`: the data say
//! "`λ` is at least about `1/I`", nothing more. Point estimators must turn that into a number
//! ([`crate::bias_corrected_rate`] gives `ln(2n + 1)/I`, a few times the fetch rate), so a pool
//! of them measures the crawler's own fetch rates, not the pages' change rates, and a prior
//! centred there keeps fast pages looking slow. A mixture prior fitted to the pages'
//! *likelihoods* (not to their point estimates) handles such right-censored histories
//! correctly: the posterior of an all-changed page is the prior above `~1/I`, whatever that
//! prior has learnt from the pages that were observed at shorter intervals.
//!
//! The prior is a discrete distribution `π` over a log-spaced grid `λ_1 < … < λ_G`, fitted by
//! the EM algorithm for the nonparametric maximum-likelihood mixing distribution
//! (Kiefer–Wolfowitz; Laird, JASA 1978): with `L_ig` page `i`'s likelihood at `λ_g`,
//!
//! `r_ig = π_g L_ig / Σ_h π_h L_ih`,   `π_g ← (Σ_i r_ig + a/G) / (N + a)`          (E1)
//!
//! (`a` pseudo-pages spread evenly keep every grid point possible). Each iteration raises the
//! marginal likelihood `Σ_i ln Σ_g π_g L_ig`. The posterior of a page is then `∝ π_g L_ig`:
//! its mean is the rate to schedule with and its mass below a threshold says how likely the
//! page is to be worth fetching.

use crate::history::ChangeHistory;

/// A prior over change rates: weights on a log-spaced grid of rates.
#[derive(Debug, Clone, PartialEq)]
pub struct RateMixture {
    rates: Vec<f64>,
    weights: Vec<f64>,
}

/// A page's posterior over the grid of a [`RateMixture`].
#[derive(Debug, Clone, PartialEq)]
pub struct RatePosterior {
    /// Posterior probability of each grid rate (sums to 1).
    pub probabilities: Vec<f64>,
    /// Posterior mean rate `Σ_g p_g λ_g`.
    pub mean: f64,
    /// Posterior harmonic mean rate `1 / Σ_g (p_g / λ_g)`: the rate whose mean interval
    /// between changes `1/λ` is the posterior's. `≤ mean` (Jensen), equal once the posterior
    /// sits on one rate. For the freshness objectives a page's value at rate 0 is `w/λ`
    /// (seed 003's `V(∞)`), and its posterior expectation is `w/harmonic_mean`: an uncertain
    /// page is worth more than its mean rate says, which is what keeps it observed.
    pub harmonic_mean: f64,
}

impl RatePosterior {
    /// The smallest rate of `grid` (the mixture's [`RateMixture::rates`]) at which the
    /// posterior's cumulative probability reaches `level` (clamped to `[0, 1]`): a lower
    /// quantile is the lowest rate the data still find plausible, an optimistic rate for a
    /// scheduler exploring uncertain pages (a slow page is worth more under freshness). The
    /// highest grid rate if rounding keeps the sum below `level`.
    pub fn quantile(&self, grid: &[f64], level: f64) -> f64 {
        let level = level.clamp(0.0, 1.0);
        let mut cumulative = 0.0;
        for (probability, &rate) in self.probabilities.iter().zip(grid) {
            cumulative += probability;
            if cumulative >= level {
                return rate;
            }
        }
        grid.last().copied().unwrap_or(f64::NAN)
    }
}

impl ChangeHistory {
    /// Log-likelihood of the page's observations at `rate` (up to a constant):
    ///
    /// * with Last-Modified observations, `k ln λ − λE` (the likelihood behind
    ///   [`crate::last_modified_rate`]);
    /// * otherwise, from the intervals, `−λ Σ_S I + Σ_U ln(1 − e^{−λI})` (the likelihood behind
    ///   [`crate::mle_rate`], seed 000_df0cf756c1e6fcc1.txt), over the binned changed intervals.
    ///
    /// 0 with no observation; `rate` must be finite and `> 0`.
    pub fn log_likelihood(&self, rate: f64) -> f64 {
        if self.last_modified_intervals() > 0 {
            return f64::from(self.last_modified_changes()) * rate.ln()
                - rate * self.last_modified_exposure();
        }
        let changed: f64 = self
            .changed_intervals()
            .entries()
            .map(|(count, mean)| count * (-(-rate * mean).exp_m1()).ln())
            .sum();
        changed - rate * self.unchanged_time()
    }
}

impl RateMixture {
    /// The uniform prior over `per_decade` log-spaced rates per decade from `low` to (at least)
    /// `high`; `None` unless `0 < low < high` (finite) and `per_decade ≥ 1`.
    pub fn log_uniform(low: f64, high: f64, per_decade: u32) -> Option<Self> {
        if !(low.is_finite() && high.is_finite() && low > 0.0 && high > low && per_decade >= 1) {
            return None;
        }
        let points = ((high / low).log10() * f64::from(per_decade)).ceil() as usize + 1;
        let step = 10f64.powf(1.0 / f64::from(per_decade));
        let rates: Vec<f64> =
            (0..points).scan(low, |rate, _| Some(std::mem::replace(rate, *rate * step))).collect();
        let weights = vec![1.0 / rates.len() as f64; rates.len()];
        Some(Self { rates, weights })
    }

    /// The grid rates `λ_g`, ascending.
    pub fn rates(&self) -> &[f64] {
        &self.rates
    }

    /// The prior weights `π_g` (sum to 1).
    pub fn weights(&self) -> &[f64] {
        &self.weights
    }

    /// Prior mean `Σ_g π_g λ_g`.
    pub fn mean(&self) -> f64 {
        self.rates.iter().zip(&self.weights).map(|(rate, weight)| rate * weight).sum()
    }

    /// Each page's likelihood on the grid, scaled so its largest entry is 1 (rows of `G`).
    fn likelihoods<'a>(&self, histories: impl IntoIterator<Item = &'a ChangeHistory>) -> Vec<f64> {
        let mut table = Vec::new();
        for history in histories {
            let start = table.len();
            table.extend(self.rates.iter().map(|&rate| history.log_likelihood(rate)));
            let row = &mut table[start..];
            let top = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            for value in row.iter_mut() {
                *value = if top.is_finite() { (*value - top).exp() } else { 1.0 };
            }
        }
        table
    }

    /// Fits the weights to `histories` by `iterations` EM steps (E1) starting from the current
    /// weights, then shrinks them toward `center` (a mixture on the same grid, e.g. all hosts'
    /// fit for one host's pages) with `center_pages` pseudo-pages, and toward the uniform with
    /// `smoothing` pseudo-pages: `π_g ∝ Σ_i r_ig + c·center_g + a/G`. Pages with no observation
    /// carry no information and are skipped. `O(N·G)` per iteration after one pass of
    /// `N·G` likelihood evaluations.
    pub fn fit<'a>(
        &mut self,
        histories: impl IntoIterator<Item = &'a ChangeHistory>,
        iterations: usize,
        center: Option<(&RateMixture, f64)>,
        smoothing: f64,
    ) {
        let grid = self.rates.len();
        let table = self.likelihoods(histories.into_iter().filter(|history| history.intervals() > 0));
        let pages = table.len() / grid.max(1);
        let (center_weights, center_pages) = match center {
            Some((center, pages)) if center.rates.len() == grid && pages > 0.0 => {
                (Some(&center.weights), pages)
            }
            _ => (None, 0.0),
        };
        let mut responsibility = vec![0.0; grid];
        for _ in 0..iterations {
            responsibility.iter_mut().for_each(|r| *r = 0.0);
            for row in table.chunks_exact(grid) {
                let total: f64 = row.iter().zip(&self.weights).map(|(l, w)| l * w).sum();
                if total > 0.0 && total.is_finite() {
                    for ((r, l), w) in responsibility.iter_mut().zip(row).zip(&self.weights) {
                        *r += l * w / total;
                    }
                }
            }
            let uniform = smoothing / grid as f64;
            let denominator = pages as f64 + center_pages + smoothing;
            if denominator <= 0.0 {
                return;
            }
            for (g, (weight, r)) in self.weights.iter_mut().zip(&responsibility).enumerate() {
                let centered = center_weights.map_or(0.0, |c| center_pages * c[g]);
                *weight = (r + centered + uniform) / denominator;
            }
        }
    }

    /// The posterior of a page with `history`: `p_g ∝ π_g L_g`; the prior for a page with no
    /// observation.
    pub fn posterior(&self, history: &ChangeHistory) -> RatePosterior {
        let row = self.likelihoods([history]);
        let mut probabilities: Vec<f64> = row.iter().zip(&self.weights).map(|(l, w)| l * w).collect();
        let total: f64 = probabilities.iter().sum();
        if !(total > 0.0 && total.is_finite()) {
            probabilities.clone_from(&self.weights);
        } else {
            probabilities.iter_mut().for_each(|p| *p /= total);
        }
        let mean = probabilities.iter().zip(&self.rates).map(|(p, rate)| p * rate).sum();
        let mean_inverse: f64 = probabilities.iter().zip(&self.rates).map(|(p, rate)| p / rate).sum();
        RatePosterior { probabilities, mean, harmonic_mean: 1.0 / mean_inverse }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) mod tests {
    use super::*;

    /// A history of `(interval, changed)` observations without Last-Modified.
    pub(crate) fn history(observations: &[(f64, bool)]) -> ChangeHistory {
        let mut history = ChangeHistory::new();
        for &(interval, changed) in observations {
            history.observe(interval, changed, None).unwrap();
        }
        history
    }

    #[test]
    fn grid_spans_the_range() {
        let mixture = RateMixture::log_uniform(1e-3, 10.0, 4).unwrap();
        assert_eq!(mixture.rates().len(), 17);
        assert!((mixture.rates()[16] - 10.0).abs() < 1e-9);
        assert!(RateMixture::log_uniform(1.0, 1.0, 4).is_none());
    }

    /// Pages seen changed at every long interval get no point estimate near `1/I` once other
    /// pages have shown the prior where the fast rates are.
    #[test]
    fn censored_pages_borrow_the_upper_tail_from_informative_ones() {
        let mut mixture = RateMixture::log_uniform(1e-4, 100.0, 8).unwrap();
        // 50 pages observed at interval 0.5, changing about half the time (λ ≈ 1.4);
        // 50 pages seen changed 10 times at interval 100.
        let informative = history(&[(0.5, true), (0.5, false), (0.5, true), (0.5, false), (0.5, true)]);
        let censored = history(&[(100.0, true); 10]);
        let pages: Vec<ChangeHistory> =
            (0..100).map(|i| if i % 2 == 0 { informative } else { censored }).collect();
        mixture.fit(&pages, 200, None, 1.0);
        let posterior = mixture.posterior(&censored);
        // The bias-corrected point estimate is ln(21)/100 ≈ 0.03; the posterior knows better.
        assert!(posterior.mean > 0.5, "{}", posterior.mean);
        let fresh = mixture.posterior(&ChangeHistory::new());
        assert!((fresh.mean - mixture.mean()).abs() < 1e-12);
    }

    #[test]
    fn posterior_concentrates_on_the_true_rate() {
        let mixture = RateMixture::log_uniform(1e-3, 1e3, 8).unwrap();
        // 200 intervals of 1 with 80 changes: MLE ln(1 + 80/120) ≈ 0.51.
        let observations: Vec<(f64, bool)> = (0..200).map(|i| (1.0, i % 5 < 2)).collect();
        let posterior = mixture.posterior(&history(&observations));
        assert!((posterior.mean - (200.0f64 / 120.0).ln()).abs() < 0.06, "{}", posterior.mean);
    }
}
