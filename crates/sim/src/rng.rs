//! The simulator's only source of randomness: a seeded xoshiro256++ generator.
//!
//! Inline rather than from `rand` so that the same seed gives the same numbers on every machine
//! and every version of every dependency: xoshiro256++ (Blackman & Vigna, "Scrambled linear
//! pseudorandom number generators", 2021) seeded through splitmix64, as its authors recommend.

/// A seeded pseudo-random generator (xoshiro256++). Cheap to copy; never reads the clock.
#[derive(Debug, Clone)]
pub struct SimRng {
    state: [u64; 4],
}

/// One step of splitmix64 (Steele, Lea & Flood 2014): a good mixer of a 64-bit counter.
fn splitmix64(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl SimRng {
    /// A generator whose whole stream is fixed by `seed`.
    #[must_use]
    pub fn new(seed: u64) -> Self {
        let mut x = seed;
        let state = [splitmix64(&mut x), splitmix64(&mut x), splitmix64(&mut x), splitmix64(&mut x)];
        Self { state }
    }

    /// An independent generator for sub-stream `stream` of `seed` (e.g. changes vs. policy).
    #[must_use]
    pub fn stream(seed: u64, stream: u64) -> Self {
        let mut x = seed ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03);
        Self::new(splitmix64(&mut x))
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.state;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform on `[0, 1)`, 53 random bits.
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform on `(0, 1]`: safe to take the logarithm of.
    #[inline]
    pub fn uniform_open0(&mut self) -> f64 {
        ((self.next_u64() >> 11) + 1) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Exponential with rate `rate` (mean `1/rate`), by inversion: `−ln(U)/rate`, `U ∈ (0, 1]`.
    /// Rate 0 gives `+∞`.
    #[inline]
    pub fn exponential(&mut self, rate: f64) -> f64 {
        -self.uniform_open0().ln() / rate
    }

    /// Uniform index in `0..n` (`n > 0`), by Lemire's multiply-shift (bias below `n/2^64`).
    #[inline]
    pub fn index(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_streams_differ() {
        let (mut a, mut b) = (SimRng::new(7), SimRng::new(7));
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
        assert_ne!(SimRng::stream(7, 0).next_u64(), SimRng::stream(7, 1).next_u64());
    }

    #[test]
    fn pinned_first_output() {
        // Pins the generator: any change to it changes every simulated number.
        let mut rng = SimRng::new(0);
        assert_eq!(rng.next_u64(), 0x53175d61490b23df);
    }

    #[test]
    fn exponential_mean_and_uniform_range() {
        let mut rng = SimRng::new(1);
        let n = 200_000;
        let mean = (0..n).map(|_| rng.exponential(2.0)).sum::<f64>() / f64::from(n);
        assert!((mean - 0.5).abs() < 0.01, "mean {mean}");
        for _ in 0..1000 {
            let u = rng.uniform();
            assert!((0.0..1.0).contains(&u));
            assert!(rng.index(3) < 3);
        }
    }
}
