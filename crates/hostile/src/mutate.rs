//! Seeded byte-level mutations of seed inputs, after the first stage of libFuzzer's mutator:
//! a few stacked edits, each a bit flip, an interesting byte, a token of the input's language,
//! a deletion, a duplication, a splice with another seed, or a cut.

/// Makes inputs from seeds, the same ones for the same seed of its generator.
#[derive(Clone, Debug)]
pub struct Mutator {
    /// SplitMix64's state.
    state: u64,
    /// The largest input it makes (bytes).
    max_len: usize,
}

/// Bytes that parsers treat specially: ends, separators, quotes, escapes, UTF-8 lead bytes.
const INTERESTING: &[u8] = &[
    0, 0xff, 0x7f, 0x80, 0xc3, 0xe2, 0xf0, b'\n', b'\r', b' ', b'\t', b'<', b'>', b'/', b':', b'*', b'$',
    b'#', b'%', b'?', b'&', b'"', b'\'', b'=', b';', b'\\',
];

impl Mutator {
    /// A mutator whose choices follow from `seed`; inputs at most `max_len` bytes.
    #[must_use]
    pub fn new(seed: u64, max_len: usize) -> Self {
        Self { state: seed, max_len: max_len.max(1) }
    }

    fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `bound` (0 if `bound` is 0).
    fn below(&mut self, bound: usize) -> usize {
        if bound == 0 { 0 } else { (self.next_u64() % bound as u64) as usize }
    }

    /// A new input: one of `seeds` (an empty one if there are none) with 1 to 8 edits, the
    /// tokens inserted taken from `tokens`.
    pub fn mutate(&mut self, seeds: &[Vec<u8>], tokens: &[&[u8]]) -> Vec<u8> {
        let mut input = match seeds.len() {
            0 => Vec::new(),
            count => seeds[self.below(count)].clone(),
        };
        for _ in 0..=self.below(8) {
            self.edit(&mut input, seeds, tokens);
        }
        input.truncate(self.max_len);
        input
    }

    fn edit(&mut self, input: &mut Vec<u8>, seeds: &[Vec<u8>], tokens: &[&[u8]]) {
        let len = input.len();
        match self.below(8) {
            0 if len > 0 => {
                let at = self.below(len);
                input[at] ^= 1 << self.below(8);
            }
            1 if len > 0 => {
                let at = self.below(len);
                input[at] = INTERESTING[self.below(INTERESTING.len())];
            }
            2 if !tokens.is_empty() => {
                let token = tokens[self.below(tokens.len())];
                let at = self.below(len + 1);
                input.splice(at..at, token.iter().copied());
            }
            3 if len > 0 => {
                let start = self.below(len);
                let end = start + 1 + self.below((len - start).min(64));
                input.drain(start..end);
            }
            4 if len > 0 => {
                let start = self.below(len);
                let end = start + 1 + self.below((len - start).min(256));
                let copy = input[start..end].to_vec();
                let at = self.below(len + 1);
                input.splice(at..at, copy);
            }
            5 if !seeds.is_empty() => {
                let other = &seeds[self.below(seeds.len())];
                let (cut, from) = (self.below(len + 1), self.below(other.len() + 1));
                input.truncate(cut);
                input.extend_from_slice(&other[from..]);
            }
            6 if len > 0 => input.truncate(self.below(len)),
            _ => {
                let at = self.below(len + 1);
                let byte = (self.next_u64() & 0xff) as u8;
                input.insert(at, byte);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_makes_the_same_inputs_and_they_differ_from_the_seeds() {
        let seeds = vec![b"User-agent: *\nDisallow: /private\n".to_vec(), b"Allow: /\n".to_vec()];
        let make = |seed| {
            let mut mutator = Mutator::new(seed, 1 << 10);
            (0..200).map(|_| mutator.mutate(&seeds, &[b"Sitemap: "])).collect::<Vec<_>>()
        };
        let inputs = make(7);
        assert_eq!(inputs, make(7));
        assert_ne!(inputs, make(8));
        let changed = inputs.iter().filter(|input| !seeds.contains(input)).count();
        assert!(changed >= 190, "{changed} of 200 differ from the seeds");
        assert!(inputs.iter().any(|input| input.windows(9).any(|window| window == b"Sitemap: ")));
        assert!(inputs.iter().all(|input| input.len() <= 1 << 10));
    }
}
