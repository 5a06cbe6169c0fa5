//! Exact time integrals of freshness, age and delay, and the run summary built from them.

use crate::process::Window;

/// Politeness violations counted by the simulator (it enforces nothing; see [`crate::Host`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Violations {
    /// Fetch starts closer than the host's `min_delay` to the previous one on the host.
    pub min_delay: u64,
    /// Fetches that found the host's token bucket empty (host rate above capacity).
    pub capacity: u64,
}

impl Violations {
    /// All violations.
    #[must_use]
    pub fn total(&self) -> u64 {
        self.min_delay + self.capacity
    }
}

/// One bucket of the time series over `[0, H]` (warm-up included).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SeriesPoint {
    /// Start of the bucket.
    pub start: f64,
    /// End of the bucket.
    pub end: f64,
    /// Time-averaged weighted freshness `Σ w·fresh / Σ w` over the bucket.
    pub weighted_freshness: f64,
    /// Fetches started in the bucket.
    pub fetches: u64,
}

/// The measurements of one run. Averages are over the measured window `[warm-up, H)`.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSummary {
    /// Policy name (e.g. `"periodic-optimal"`).
    pub policy: String,
    /// `"known"` or `"learned"`, or the label given to [`crate::simulate_policy`].
    pub rates: String,
    /// The seed.
    pub seed: u64,
    /// The measured window `(start, end)`.
    pub window: (f64, f64),
    /// Time-averaged weighted freshness: `∫ Σ_i w_i·1{fresh_i(t)} dt / (Σ w · window length)`.
    pub weighted_freshness: f64,
    /// Batch-means standard error of `weighted_freshness` over the series buckets that lie
    /// wholly in the window (an approximate CI half-width is twice this); `NaN` with < 2 buckets.
    pub freshness_std_error: f64,
    /// Weighted mean age: `∫ Σ w_i·age_i(t) dt / (Σ w · window length)`, where a page's age is
    /// 0 while fresh and the time since its first unseen change otherwise (Cho & Garcia-Molina).
    pub mean_age: f64,
    /// Delay per time unit: `∫ Σ w_i·pending_i(t) dt / window length`, `pending_i` the number
    /// of changes of page `i` not yet fetched (seed 004's delay; comparable to the `delay`
    /// objective's `Σ w·λ/(2f)`). Its integral is `total_delay`.
    pub delay: f64,
    /// `∫ Σ w_i·pending_i dt` over the window: the weighted sum of the times changes waited.
    pub total_delay: f64,
    /// Fraction of measured fetches that found at least one change (seed 000's value).
    pub changes_found_per_fetch: f64,
    /// Fetches over the whole horizon.
    pub fetches: u64,
    /// Fetches started in the measured window.
    pub measured_fetches: u64,
    /// Fetches per time unit in the window (compare with the budget).
    pub fetch_rate: f64,
    /// Politeness violations over the whole horizon.
    pub violations: Violations,
    /// Weighted freshness and fetches per bucket over `[0, H]`.
    pub series: Vec<SeriesPoint>,
}

/// What the copies that turn fresh or stale within one bucket add to the time series.
///
/// A copy fresh from `a` to `b` adds to bucket `k` its weight times the overlap of `[a, b)`
/// with the bucket. Written as a ramp that starts at `a` less one that starts at `b`, each
/// turn touches only its own bucket: the turn at `t` changes the weight fresh from the next
/// bucket on by `±w` (`net`) and adds `±w·(end − t)` to its own (`inside`);
/// [`Accumulator::finish`] sums the `net`s into the weight fresh at each bucket's start. A
/// fetch that finds no change turns nothing (the copy stays fresh through it), and one that
/// finds a change turns its copy stale at the change and fresh at the fetch: no bucket
/// between is touched, and at 10^5 pages, where a page's interval spans several buckets,
/// working out the overlaps took 12% of the simulator's time (`BENCHMARKS.md`, "The
/// simulator").
#[derive(Debug, Clone, Copy, Default)]
struct Turns {
    /// The weight that turned fresh in the bucket, less the weight that turned stale.
    net: f64,
    /// `Σ ±w·(end − t)` over those turns at `t`, `end` the bucket's end: their share of it.
    inside: f64,
}

/// Running integrals of one run.
#[derive(Debug, Clone)]
pub(crate) struct Accumulator {
    window: Window,
    /// `Σ w` over the pages, all fresh at time 0.
    total_weight: f64,
    bucket_length: f64,
    fresh: f64,
    age: f64,
    pending: f64,
    fetches: u64,
    measured_fetches: u64,
    changed_fetches: u64,
    /// The turns of each bucket (see [`Turns`]).
    bucket_turns: Vec<Turns>,
    bucket_fetches: Vec<u64>,
    /// `(start, end)` of each bucket, as [`Accumulator::finish`] reports them.
    bucket_bounds: Vec<(f64, f64)>,
    /// The bucket of the latest fetch, and the times `[current_start, current_end)` that
    /// [`Accumulator::bucket`] maps to it, exactly: fetch times only grow, so most intervals
    /// and fetches fall in it and skip the division (`BENCHMARKS.md`, "The simulator").
    current: usize,
    current_start: f64,
    current_end: f64,
}

impl Accumulator {
    /// The integrals of a run whose pages, of total weight `total_weight`, are all fresh at
    /// time 0 (the copies the crawl starts from).
    pub(crate) fn new(window: Window, horizon: f64, buckets: usize, total_weight: f64) -> Self {
        let bucket_length = horizon / buckets as f64;
        let mut accumulator = Self {
            window,
            total_weight,
            bucket_length,
            fresh: 0.0,
            age: 0.0,
            pending: 0.0,
            fetches: 0,
            measured_fetches: 0,
            changed_fetches: 0,
            bucket_turns: vec![Turns::default(); buckets],
            bucket_fetches: vec![0; buckets],
            bucket_bounds: (0..buckets)
                .map(|bucket| {
                    let start = bucket as f64 * bucket_length;
                    (start, if bucket + 1 == buckets { horizon } else { start + bucket_length })
                })
                .collect(),
            current: 0,
            current_start: 0.0,
            current_end: 0.0,
        };
        accumulator.turn(0, total_weight, 0.0);
        accumulator
    }

    fn bucket(&self, t: f64) -> usize {
        ((t / self.bucket_length) as usize).min(self.bucket_turns.len() - 1)
    }

    /// The smallest time that [`Accumulator::bucket`] maps to `bucket` or later (`bucket ≥ 1`):
    /// `bucket · length`, moved to the exact boundary one representable number at a time
    /// (the quotient is monotone in `t`, and rounding moves it by a step or two at most).
    fn bucket_boundary(&self, bucket: usize) -> f64 {
        let reaches = |t: f64| self.bucket(t) >= bucket;
        let step = |t: f64, up: bool| {
            // Positive finite times: neighbouring floats are neighbouring bit patterns.
            f64::from_bits(if up { t.to_bits() + 1 } else { t.to_bits() - 1 })
        };
        let mut t = bucket as f64 * self.bucket_length;
        if !(t.is_finite() && t > 0.0) {
            return t;
        }
        while t > 0.0 && reaches(step(t, false)) {
            t = step(t, false);
        }
        while !reaches(t) && t < f64::MAX {
            t = step(t, true);
        }
        t
    }

    /// The bucket of a fetch at `t`, and the current bucket moved to it.
    #[inline]
    fn fetch_bucket(&mut self, t: f64) -> usize {
        if t >= self.current_start && t < self.current_end {
            return self.current;
        }
        self.move_current(t)
    }

    #[inline(never)]
    fn move_current(&mut self, t: f64) -> usize {
        let bucket = self.bucket(t);
        self.current = bucket;
        self.current_start = if bucket == 0 { f64::NEG_INFINITY } else { self.bucket_boundary(bucket) };
        self.current_end = if bucket + 1 >= self.bucket_turns.len() {
            f64::INFINITY
        } else {
            self.bucket_boundary(bucket + 1)
        };
        bucket
    }

    /// A fetch at `t1` of a page of weight `weight` whose copy was synchronised at `t0` and
    /// first changed at `first` (`∞`: not in `(t0, t1]`); `pending` is already clipped. Closes
    /// the copy's interval and starts the next one, fresh.
    #[inline]
    pub(crate) fn add_fetch(&mut self, weight: f64, t0: f64, t1: f64, first: f64, pending: f64) {
        let current = self.fetch_bucket(t1);
        self.fetches += 1;
        self.bucket_fetches[current] += 1;
        let changed = first <= t1;
        if t1 >= self.window.start && t1 < self.window.end {
            self.measured_fetches += 1;
            self.changed_fetches += u64::from(changed);
        }
        self.add_integrals(weight, t0, t1, first, pending);
        if changed {
            // Stale from the change (no earlier than the sync), fresh again from the fetch.
            let stale_from = if first > t0 { first } else { t0 };
            let bucket = if stale_from >= self.current_start { current } else { self.bucket(stale_from) };
            self.turn(bucket, -weight, stale_from);
            self.turn(current, weight, t1);
        }
    }

    /// The interval `(t0, horizon]` of a page's last copy, as [`Accumulator::add_fetch`]
    /// closes one, without a fetch at its end.
    pub(crate) fn close(&mut self, weight: f64, t0: f64, horizon: f64, first: f64, pending: f64) {
        self.add_integrals(weight, t0, horizon, first, pending);
        if first < horizon {
            let stale_from = if first > t0 { first } else { t0 };
            self.turn(self.bucket(stale_from), -weight, stale_from);
        }
    }

    /// The window's integrals of one interval `(t0, t1]` (see [`Accumulator::add_fetch`]).
    #[inline]
    fn add_integrals(&mut self, weight: f64, t0: f64, t1: f64, first: f64, pending: f64) {
        let fresh_end = if first < t1 { first } else { t1 };
        let (lo, hi) = self.window.clip(t0, fresh_end);
        if hi > lo {
            self.fresh += weight * (hi - lo);
        }
        if first < t1 {
            let (lo, hi) = self.window.clip(first, t1);
            if hi > lo {
                // (3) clipped: ∫_lo^hi (t − first) dt.
                self.age += weight * 0.5 * (hi - lo) * (hi + lo - 2.0 * first);
            }
        }
        self.pending += weight * pending;
    }

    /// Weight `weight` (negative: turning stale) turning fresh at `t`, in `bucket`.
    #[inline]
    fn turn(&mut self, bucket: usize, weight: f64, t: f64) {
        if let (Some(turns), Some(&(_, end))) =
            (self.bucket_turns.get_mut(bucket), self.bucket_bounds.get(bucket))
        {
            turns.net += weight;
            turns.inside += weight * (end - t);
        }
    }

    pub(crate) fn finish(
        self,
        policy: String,
        rates: String,
        seed: u64,
        violations: Violations,
    ) -> RunSummary {
        let length = self.window.end - self.window.start;
        // The weight fresh from each bucket's start: the turns of the buckets before it.
        let mut fresh_weight = 0.0;
        let series: Vec<SeriesPoint> = self
            .bucket_bounds
            .iter()
            .zip(&self.bucket_turns)
            .zip(&self.bucket_fetches)
            .map(|((&(start, end), turns), &fetches)| {
                let fresh = fresh_weight * (end - start) + turns.inside;
                fresh_weight += turns.net;
                SeriesPoint {
                    start,
                    end,
                    weighted_freshness: fresh / (self.total_weight * (end - start)),
                    fetches,
                }
            })
            .collect();
        let inside: Vec<f64> = series
            .iter()
            .filter(|point| point.start >= self.window.start && point.end <= self.window.end)
            .map(|point| point.weighted_freshness)
            .collect();
        RunSummary {
            policy,
            rates,
            seed,
            window: (self.window.start, self.window.end),
            weighted_freshness: self.fresh / (self.total_weight * length),
            freshness_std_error: batch_std_error(&inside),
            mean_age: self.age / (self.total_weight * length),
            delay: self.pending / length,
            total_delay: self.pending,
            changes_found_per_fetch: if self.measured_fetches == 0 {
                0.0
            } else {
                self.changed_fetches as f64 / self.measured_fetches as f64
            },
            fetches: self.fetches,
            measured_fetches: self.measured_fetches,
            fetch_rate: self.measured_fetches as f64 / length,
            violations,
            series,
        }
    }
}

/// Standard error of the mean of batch means `values`; `NaN` with fewer than two.
fn batch_std_error(values: &[f64]) -> f64 {
    if values.len() < 2 {
        return f64::NAN;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (variance / n).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SimRng;

    /// Increasing times over `[0, horizon]`: every bucket boundary `k·length` and its two
    /// neighbouring floats, and random times.
    fn times(acc: &Accumulator, horizon: f64, rng: &mut SimRng) -> Vec<f64> {
        let mut times: Vec<f64> = (0..=acc.bucket_turns.len())
            .flat_map(|bucket| {
                let boundary = bucket as f64 * acc.bucket_length;
                [boundary.next_down(), boundary, boundary.next_up()]
            })
            .chain((0..200).map(|_| rng.uniform() * horizon))
            .filter(|t| (0.0..=horizon).contains(t))
            .collect();
        times.sort_by(f64::total_cmp);
        times
    }

    #[test]
    fn the_current_bucket_is_the_bucket_of_the_division() {
        let mut rng = SimRng::new(11);
        for _ in 0..300 {
            let horizon = 10f64.powf(rng.uniform() * 8.0 - 2.0);
            let buckets = 1 + rng.index(300);
            let mut acc = Accumulator::new(Window { start: 0.0, end: horizon }, horizon, buckets, 1.0);
            for t in times(&acc, horizon, &mut rng) {
                assert_eq!(acc.fetch_bucket(t), acc.bucket(t), "t {t}, horizon {horizon}, {buckets} buckets");
            }
        }
    }

    /// The series from the turns against each bucket's overlap with each fresh interval,
    /// worked out bucket by bucket, on random fetches of a few pages: with and without
    /// changes, changes at bucket boundaries and their neighbours, at the fetch itself, and
    /// last copies closed at the horizon.
    #[test]
    fn the_series_is_the_overlap_of_every_fresh_interval_with_every_bucket() {
        let mut rng = SimRng::new(12);
        for _ in 0..200 {
            let horizon = 10f64.powf(rng.uniform() * 6.0 - 1.0);
            let buckets = 1 + rng.index(200);
            let weights: Vec<f64> = (0..1 + rng.index(6)).map(|_| rng.uniform_open0()).collect();
            let total_weight: f64 = weights.iter().sum();
            let window = Window { start: 0.0, end: horizon };
            let mut acc = Accumulator::new(window, horizon, buckets, total_weight);
            let mut expected = vec![0.0; buckets];
            let bounds = acc.bucket_bounds.clone();
            let mut add_expected = |weight: f64, from: f64, to: f64| {
                for (bucket, &(start, end)) in bounds.iter().enumerate() {
                    let overlap = to.min(end) - from.max(start);
                    if overlap > 0.0 {
                        expected[bucket] += weight * overlap;
                    }
                }
            };
            let times = times(&acc, horizon, &mut rng);
            // A first change in `(t0, t1]`, or none (∞): half the time a time of the list.
            let change = |t0: f64, t1: f64, rng: &mut SimRng| match rng.index(4) {
                0 => f64::INFINITY,
                1 => t1,
                2 => times.iter().copied().find(|&t| t > t0 && t <= t1 && rng.uniform() < 0.3).unwrap_or(t1),
                _ => t0 + (t1 - t0) * rng.uniform_open0(),
            };
            let mut last_fetch = vec![0.0; weights.len()];
            for &t in &times {
                let page = rng.index(weights.len());
                let (weight, t0) = (weights[page], last_fetch[page]);
                let first = change(t0, t, &mut rng);
                acc.add_fetch(weight, t0, t, first, 0.0);
                add_expected(weight, t0, first.min(t));
                last_fetch[page] = t;
            }
            for (page, &weight) in weights.iter().enumerate() {
                let t0 = last_fetch[page];
                let first = if t0 < horizon { change(t0, horizon, &mut rng) } else { f64::INFINITY };
                acc.close(weight, t0, horizon, first, 0.0);
                add_expected(weight, t0, first.min(horizon));
            }
            let fetches = acc.fetches;
            let summary = acc.finish("p".into(), "known".into(), 0, Violations::default());
            assert_eq!(summary.fetches, fetches);
            assert_eq!(summary.series.iter().map(|point| point.fetches).sum::<u64>(), fetches);
            for (point, expected) in summary.series.iter().zip(&expected) {
                let scale = total_weight * (point.end - point.start);
                let got = point.weighted_freshness * scale;
                assert!(
                    (got - expected).abs() <= 1e-9 * scale,
                    "{got} vs {expected} in [{}, {}): horizon {horizon}, {buckets} buckets",
                    point.start,
                    point.end
                );
            }
        }
    }

    #[test]
    fn integrals_of_one_interval_are_exact() {
        let window = Window { start: 0.0, end: 10.0 };
        let mut acc = Accumulator::new(window, 10.0, 10, 2.0);
        // Fresh on [0, 4), stale on [4, 10): age integral 6²/2 = 18.
        acc.close(2.0, 0.0, 10.0, 4.0, 6.0);
        let summary = acc.finish("p".into(), "known".into(), 0, Violations::default());
        assert!((summary.weighted_freshness - 0.4).abs() < 1e-12);
        assert!((summary.mean_age - 1.8).abs() < 1e-12);
        assert!((summary.delay - 1.2).abs() < 1e-12);
        assert_eq!(summary.series[3].weighted_freshness, 1.0);
        assert_eq!(summary.series[4].weighted_freshness, 0.0);
    }

    #[test]
    fn warmup_is_excluded() {
        let window = Window { start: 5.0, end: 10.0 };
        let mut acc = Accumulator::new(window, 10.0, 2, 1.0);
        // A fetch at 2 that finds no change, then fresh until 7.
        acc.add_fetch(1.0, 0.0, 2.0, f64::INFINITY, 0.0);
        acc.close(1.0, 2.0, 10.0, 7.0, 0.0);
        let summary = acc.finish("p".into(), "known".into(), 0, Violations::default());
        assert!((summary.weighted_freshness - 0.4).abs() < 1e-12);
        // Age over [7, 10): 3²/2 = 4.5, over a window of 5.
        assert!((summary.mean_age - 0.9).abs() < 1e-12);
        assert_eq!((summary.fetches, summary.measured_fetches), (1, 0));
        assert_eq!(summary.series[0].weighted_freshness, 1.0);
        assert!((summary.series[1].weighted_freshness - 0.4).abs() < 1e-12);
    }
}
