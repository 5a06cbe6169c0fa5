//! Seed `002_987a179045e4afb6.txt`'s estimator 5 (`lr_fl`, `lr_sl`): a linear combination of the
//! neighbourhood sums, its coefficients fitted by least squares to the scores of the pages
//! fetched so far, each taken with the sums it had when it was chosen (what the estimate could
//! see then).
//!
//! The fit keeps the normal equations `(XᵀX) θ = Xᵀy` as running sums (`O(d²)` a fetched page,
//! `d ≤ 8`), and solves them every so many pages by Cholesky, with a ridge of `10⁻⁹ ·
//! trace(XᵀX)/d` so that a feature that has been 0 so far (no second level yet) leaves the
//! system solvable. Until the first fit, and whenever a fit fails, the weights rank by the
//! known in-degree (`fl_deg`). The crawl fits them after 8, 16, 32… pages, then every
//! [`crate::FocusConfig::refit_every`].

use crate::estimator::FEATURES;

/// The most inputs (a constant and the seven sums).
const MAX_DIMS: usize = FEATURES + 1;

/// A least-squares fit of the scores on a constant and the first `inputs` sums.
#[derive(Debug, Clone)]
pub(crate) struct Regression {
    dims: usize,
    gram: [[f64; MAX_DIMS]; MAX_DIMS],
    moment: [f64; MAX_DIMS],
    samples: u64,
    /// `θ`: the constant's, then one per input.
    weights: Vec<f64>,
}

impl Regression {
    /// Weights that rank by `fl_deg` until the first fit.
    pub(crate) fn new(inputs: usize) -> Self {
        let dims = inputs.min(FEATURES) + 1;
        let mut weights = vec![0.0; dims];
        if let Some(degree) = weights.get_mut(1) {
            *degree = 1.0;
        }
        Self { dims, gram: [[0.0; MAX_DIMS]; MAX_DIMS], moment: [0.0; MAX_DIMS], samples: 0, weights }
    }

    /// The weights now: the constant's first.
    pub(crate) fn weights(&self) -> &[f64] {
        &self.weights
    }

    /// A fetched page's score, and the sums it had when it was chosen.
    pub(crate) fn observe(&mut self, sums: &[f64; FEATURES], score: f64) {
        let mut row = [0.0; MAX_DIMS];
        row[0] = 1.0;
        row[1..self.dims].copy_from_slice(&sums[..self.dims - 1]);
        for i in 0..self.dims {
            self.moment[i] += row[i] * score;
            for j in 0..=i {
                self.gram[i][j] += row[i] * row[j];
            }
        }
        self.samples += 1;
    }

    /// Solves the normal equations with the pages seen so far; keeps the weights it had if
    /// there are fewer pages than inputs or the system cannot be solved. Returns whether the
    /// weights changed.
    pub(crate) fn refit(&mut self) -> bool {
        if self.samples < self.dims as u64 {
            return false;
        }
        let dims = self.dims;
        let trace: f64 = (0..dims).map(|i| self.gram[i][i]).sum();
        let ridge = 1e-9 * trace / dims as f64;
        // Cholesky of the symmetric matrix (lower triangle held): gram + ridge·I = L Lᵀ.
        let mut lower = [[0.0; MAX_DIMS]; MAX_DIMS];
        for i in 0..dims {
            for j in 0..=i {
                let known: f64 = lower[i][..j].iter().zip(&lower[j][..j]).map(|(a, b)| a * b).sum();
                let sum = self.gram[i][j] + if i == j { ridge } else { 0.0 } - known;
                if i == j {
                    if !(sum > 0.0 && sum.is_finite()) {
                        return false;
                    }
                    lower[i][i] = sum.sqrt();
                } else {
                    lower[i][j] = sum / lower[j][j];
                }
            }
        }
        // L z = m, then Lᵀ θ = z.
        let mut solution = [0.0; MAX_DIMS];
        for i in 0..dims {
            let sum: f64 = (0..i).map(|k| lower[i][k] * solution[k]).sum();
            solution[i] = (self.moment[i] - sum) / lower[i][i];
        }
        for i in (0..dims).rev() {
            let sum: f64 = (i + 1..dims).map(|k| lower[k][i] * solution[k]).sum();
            solution[i] = (solution[i] - sum) / lower[i][i];
        }
        if solution[..dims].iter().any(|weight| !weight.is_finite()) {
            return false;
        }
        let changed = self.weights[..] != solution[..dims];
        self.weights.copy_from_slice(&solution[..dims]);
        changed
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn an_exact_linear_relation_is_recovered() {
        // score = 0.5 + 2 fl_deg − 1 fl_n + 3 fl_ne, with fl_e moving freely.
        let mut regression = Regression::new(4);
        assert_eq!(regression.weights(), &[0.0, 1.0, 0.0, 0.0, 0.0]);
        for i in 0..50 {
            let x = f64::from(i);
            let sums = [x % 7.0, (x * 1.3) % 5.0, (x * 0.7) % 3.0, (x * x) % 11.0, 9.0, 9.0, 9.0];
            let score = 0.5 + 2.0 * sums[0] - sums[1] + 3.0 * sums[3];
            regression.observe(&sums, score);
        }
        assert!(regression.refit());
        let expected = [0.5, 2.0, -1.0, 0.0, 3.0];
        for (got, want) in regression.weights().iter().zip(expected) {
            assert!((got - want).abs() < 1e-6, "{:?}", regression.weights());
        }
    }

    #[test]
    fn too_few_pages_or_a_silent_feature_leave_it_usable() {
        let mut regression = Regression::new(7);
        regression.observe(&[1.0; FEATURES], 1.0);
        assert!(!regression.refit(), "fewer pages than inputs");
        // Second-level sums all 0 so far: the ridge keeps the system solvable.
        for i in 0..20 {
            let x = f64::from(i);
            regression.observe(&[x, 2.0 * x, 0.0, 0.0, 0.0, 0.0, 0.0], 3.0 * x);
        }
        regression.refit();
        let weights = regression.weights();
        assert!(weights.iter().all(|weight| weight.is_finite()));
        let predicted = weights[0] + weights[1] * 10.0 + weights[2] * 20.0;
        assert!((predicted - 30.0).abs() < 1e-3, "{weights:?}");
    }
}
