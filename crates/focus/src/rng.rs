//! SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", OOPSLA
//! 2014): the seeded generator behind the altered greedy strategy and the bandits, so that the
//! same seed gives the same crawl on any machine. Ten lines, not a dependency: the crate needs
//! uniform draws and nothing of `rand`'s distributions.

/// A seeded 64-bit generator.
#[derive(Debug, Clone)]
pub(crate) struct SplitMix(u64);

impl SplitMix {
    pub(crate) fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform on `[0, 1)`.
    pub(crate) fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1_u64 << 53) as f64
    }

    /// Uniform on `0..n` (`n ≥ 1`), by the multiply-shift map (bias below 2^-32 for the `n`
    /// here).
    pub(crate) fn index(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_are_in_range_and_repeat_with_the_seed() {
        let mut first = SplitMix::new(7);
        let mut second = SplitMix::new(7);
        for _ in 0..1000 {
            let value = first.uniform();
            assert!((0.0..1.0).contains(&value));
            assert_eq!(value.to_bits(), second.uniform().to_bits());
            assert!(first.index(5) < 5);
            second.index(5);
        }
        let mut counts = [0_u32; 4];
        for _ in 0..40_000 {
            counts[first.index(4)] += 1;
        }
        assert!(counts.iter().all(|&count| (9_000..11_000).contains(&count)), "{counts:?}");
    }
}
