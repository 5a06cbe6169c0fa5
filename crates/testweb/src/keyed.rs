//! Counter-based randomness: a random number is a pure function of `(seed, stream, page, k)`.
//!
//! The server must be stateless (a restart with the same seed serves the same web) and must
//! answer "what is page `p` at time `t`" without replaying a global generator, so every draw is
//! keyed instead of sequential: splitmix64's finaliser (Steele, Lea & Flood 2014) applied to the
//! key words one after another. Streams separate the uses (change times, content, links…) so
//! that no two uses ever see the same number.

/// splitmix64's output function: a bijective, well-mixing map of 64-bit words.
#[inline]
#[must_use]
pub(crate) fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// What a keyed draw is for; each use has its own stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u64)]
pub(crate) enum Stream {
    /// The `k`-th draw of a page's change process.
    Change = 1,
    /// The phase of a periodic page.
    Phase = 2,
    /// The words of a page's version (`k` = version).
    Content = 3,
    /// The ETag of a page's version (`k` = version).
    Etag = 4,
    /// A page's properties (process kind, rate, disallowed, length).
    Property = 5,
    /// A page's topic: whether it is on topic and its score (drawn after the graph).
    Topic = 6,
    /// Whether a host is a topic host (`page` = host index).
    TopicHost = 7,
    /// Where a version's text says the topic word (`k` = version).
    TopicText = 8,
    /// Whether a link's anchor mentions the topic (`page` = source, `k` = target).
    TopicAnchor = 9,
}

/// 64 random bits for `(seed, stream, page, k)`.
#[inline]
#[must_use]
pub(crate) fn bits(seed: u64, stream: Stream, page: u64, k: u64) -> u64 {
    mix(mix(mix(seed ^ (stream as u64).wrapping_mul(0xD1B5_4A32_D192_ED03)) ^ page) ^ k)
}

/// Uniform on `(0, 1]` for `(seed, stream, page, k)`: safe to take the logarithm of.
#[inline]
#[must_use]
pub(crate) fn uniform_open0(seed: u64, stream: Stream, page: u64, k: u64) -> f64 {
    ((bits(seed, stream, page, k) >> 11) + 1) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// Uniform on `[0, 1)` for `(seed, stream, page, k)`.
#[inline]
#[must_use]
pub(crate) fn uniform(seed: u64, stream: Stream, page: u64, k: u64) -> f64 {
    (bits(seed, stream, page, k) >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_are_pure_and_streams_differ() {
        assert_eq!(bits(7, Stream::Change, 3, 9), bits(7, Stream::Change, 3, 9));
        assert_ne!(bits(7, Stream::Change, 3, 9), bits(7, Stream::Content, 3, 9));
        assert_ne!(bits(7, Stream::Change, 3, 9), bits(7, Stream::Change, 4, 9));
        assert_ne!(bits(7, Stream::Change, 3, 9), bits(8, Stream::Change, 3, 9));
        let mean = (0..100_000).map(|k| uniform(1, Stream::Change, 0, k)).sum::<f64>() / 100_000.0;
        assert!((mean - 0.5).abs() < 0.005, "mean {mean}");
        assert!((0..1000).all(|k| uniform_open0(1, Stream::Change, 0, k) > 0.0));
    }
}
