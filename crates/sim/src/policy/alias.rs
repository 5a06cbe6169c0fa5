//! Walker's alias table (Vose's construction): `O(1)` sampling of a page in proportion to
//! its rate, for the Poisson-timed policy.

use crate::rng::SimRng;

/// A discrete distribution over `0..n` in proportion to non-negative weights.
#[derive(Debug, Clone)]
pub(crate) struct Alias {
    probability: Vec<f64>,
    alias: Vec<usize>,
}

impl Alias {
    /// The table for `weights`; `None` if they are empty or do not have a positive finite sum.
    pub(crate) fn new(weights: &[f64]) -> Option<Self> {
        let n = weights.len();
        let total: f64 = weights.iter().sum();
        if n == 0 || !(total.is_finite() && total > 0.0) {
            return None;
        }
        let mut scaled: Vec<f64> = weights.iter().map(|w| w * n as f64 / total).collect();
        let mut alias: Vec<usize> = (0..n).collect();
        let (mut small, mut large): (Vec<usize>, Vec<usize>) = (0..n).partition(|&i| scaled[i] < 1.0);
        while let (Some(&s), Some(&l)) = (small.last(), large.last()) {
            small.pop();
            alias[s] = l;
            scaled[l] -= 1.0 - scaled[s];
            if scaled[l] < 1.0 {
                large.pop();
                small.push(l);
            }
        }
        // Leftovers are 1 up to rounding.
        for i in small.into_iter().chain(large) {
            scaled[i] = 1.0;
        }
        Some(Self { probability: scaled, alias })
    }

    /// One draw.
    #[inline]
    pub(crate) fn sample(&self, rng: &mut SimRng) -> usize {
        let i = rng.index(self.probability.len());
        if rng.uniform() < self.probability[i] { i } else { self.alias[i] }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frequencies_follow_the_weights() {
        let table = Alias::new(&[1.0, 0.0, 3.0, 4.0]).unwrap_or_else(|| unreachable!("valid weights"));
        let mut rng = SimRng::new(11);
        let mut counts = [0u32; 4];
        for _ in 0..80_000 {
            counts[table.sample(&mut rng)] += 1;
        }
        assert_eq!(counts[1], 0);
        for (count, expected) in counts.iter().zip([10_000.0, 0.0, 30_000.0, 40_000.0]) {
            assert!((f64::from(*count) - expected).abs() < 600.0, "{counts:?}");
        }
        assert!(Alias::new(&[0.0, 0.0]).is_none());
    }
}
