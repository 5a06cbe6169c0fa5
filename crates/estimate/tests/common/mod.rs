//! Test helpers: a seeded RNG, a Poisson page simulator and a brute-force exact MLE twin.

#![allow(dead_code, unreachable_pub)]

/// SplitMix64: tiny, seeded, good enough for simulations.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in (0, 1).
    pub fn uniform(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// Exponential with the given rate.
    pub fn exponential(&mut self, rate: f64) -> f64 {
        -self.uniform().ln() / rate
    }

    /// Log-uniform in [lo, hi].
    pub fn log_uniform(&mut self, lo: f64, hi: f64) -> f64 {
        (lo.ln() + self.uniform() * (hi.ln() - lo.ln())).exp()
    }
}

/// One fetch of a Poisson(λ) page after `interval`: looking back from the fetch, the time to
/// the last change is Exp(λ); the page changed iff it is shorter than the interval.
/// Returns (changed, Last-Modified age: the exact age if changed, else ≥ interval).
pub fn fetch(rng: &mut SplitMix64, rate: f64, interval: f64) -> (bool, f64) {
    let back = rng.exponential(rate);
    if back < interval { (true, back) } else { (false, back) }
}

/// Brute-force root of `c/λ + Σ_U I/(e^{λI} − 1) = rhs` over the full list, by 400 bisections
/// in ln λ on a wide bracket.
pub fn exact_root(c: f64, changed: &[f64], rhs: f64) -> f64 {
    let f = |rate: f64| c / rate + changed.iter().map(|&i| i / (rate * i).exp_m1()).sum::<f64>() - rhs;
    let (mut lo, mut hi) = (-700.0f64, 700.0f64);
    for _ in 0..400 {
        let mid = 0.5 * (lo + hi);
        if f(mid.exp()) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (0.5 * (lo + hi)).exp()
}

/// Exact MLE of seed 000 over the full list of (interval, changed).
pub fn exact_mle(observations: &[(f64, bool)]) -> f64 {
    let changed: Vec<f64> = observations.iter().filter(|o| o.1).map(|o| o.0).collect();
    let unchanged: f64 = observations.iter().filter(|o| !o.1).map(|o| o.0).sum();
    exact_root(0.0, &changed, unchanged)
}

/// Exact bias-corrected MLE (half a mean interval added to the unchanged time).
pub fn exact_bias_corrected(observations: &[(f64, bool)]) -> f64 {
    let changed: Vec<f64> = observations.iter().filter(|o| o.1).map(|o| o.0).collect();
    let unchanged: f64 = observations.iter().filter(|o| !o.1).map(|o| o.0).sum();
    let total: f64 = observations.iter().map(|o| o.0).sum();
    exact_root(0.0, &changed, unchanged + 0.5 * total / observations.len() as f64)
}
