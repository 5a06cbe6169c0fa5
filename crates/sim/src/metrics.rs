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

/// Running integrals of one run.
#[derive(Debug, Clone)]
pub(crate) struct Accumulator {
    window: Window,
    horizon: f64,
    bucket_length: f64,
    fresh: f64,
    age: f64,
    pending: f64,
    fetches: u64,
    measured_fetches: u64,
    changed_fetches: u64,
    bucket_fresh: Vec<f64>,
    /// The weight fresh over the whole of each bucket, as differences: an interval that covers
    /// buckets `a+1 .. b−1` whole adds its weight at `a+1` and takes it off at `b`, and
    /// [`Accumulator::finish`] sums the differences and adds `weight × length` per bucket. At
    /// 10^5 pages an interval spans several buckets, and the loop that added to each of them
    /// took 9% of the simulator's time (`BENCHMARKS.md`, "The simulator"). (`b` is at most the
    /// last bucket: an interval ends in a bucket, so one entry per bucket suffices.)
    bucket_whole_weight: Vec<f64>,
    bucket_fetches: Vec<u64>,
    /// `(start, end)` of each bucket, as [`Accumulator::finish`] computes them.
    bucket_bounds: Vec<(f64, f64)>,
    /// The bucket of the latest fetch, and the times `[current_start, current_end)` that
    /// [`Accumulator::bucket`] maps to it, exactly: fetch times only grow, so most intervals
    /// and fetches fall in it and skip the division (`BENCHMARKS.md`, "The simulator").
    current: usize,
    current_start: f64,
    current_end: f64,
}

impl Accumulator {
    pub(crate) fn new(window: Window, horizon: f64, buckets: usize) -> Self {
        let bucket_length = horizon / buckets as f64;
        Self {
            window,
            horizon,
            bucket_length,
            fresh: 0.0,
            age: 0.0,
            pending: 0.0,
            fetches: 0,
            measured_fetches: 0,
            changed_fetches: 0,
            bucket_fresh: vec![0.0; buckets],
            bucket_whole_weight: vec![0.0; buckets],
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
        }
    }

    fn bucket(&self, t: f64) -> usize {
        ((t / self.bucket_length) as usize).min(self.bucket_fresh.len() - 1)
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
        self.current_end = if bucket + 1 >= self.bucket_fresh.len() {
            f64::INFINITY
        } else {
            self.bucket_boundary(bucket + 1)
        };
        bucket
    }

    /// A page of weight `weight` synchronised at `t0`, first changed at `first` (`∞`: not in
    /// `(t0, t1]`), seen again (or the horizon reached) at `t1`; `pending` is already clipped.
    #[inline]
    pub(crate) fn add_interval(&mut self, weight: f64, t0: f64, t1: f64, first: f64, pending: f64) {
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
        if fresh_end > t0 {
            self.add_series(weight, t0, fresh_end);
        }
    }

    #[inline]
    fn add_series(&mut self, weight: f64, from: f64, to: f64) {
        if from >= self.current_start && to < self.current_end {
            // Both ends in the current bucket (`bucket(from) == bucket(to) == current`).
            self.bucket_fresh[self.current] += weight * (to - from);
            return;
        }
        self.add_series_across(weight, from, to);
    }

    #[inline(never)]
    fn add_series_across(&mut self, weight: f64, from: f64, to: f64) {
        let (first_bucket, last_bucket) = (self.bucket(from), self.bucket(to));
        if first_bucket == last_bucket {
            self.bucket_fresh[first_bucket] += weight * (to - from);
            return;
        }
        // The two end buckets get their parts now (the bounds read, not recomputed); the
        // buckets between, covered whole, get the weight through `bucket_whole_weight`.
        for bucket in [first_bucket, last_bucket] {
            let (Some(fresh), Some(&(start, end))) =
                (self.bucket_fresh.get_mut(bucket), self.bucket_bounds.get(bucket))
            else {
                return;
            };
            let overlap = (if to < end { to } else { end }) - (if from > start { from } else { start });
            if overlap > 0.0 {
                *fresh += weight * overlap;
            }
        }
        if last_bucket > first_bucket + 1
            && let Some(whole) = self.bucket_whole_weight.get_mut(first_bucket + 1..=last_bucket)
            && let [first, .., last] = whole
        {
            *first += weight;
            *last -= weight;
        }
    }

    /// Adds to each bucket's freshness the weight fresh over the whole of it (see
    /// `bucket_whole_weight`).
    fn settle_whole_buckets(&mut self) {
        let mut weight = 0.0;
        for ((fresh, &change), &(start, end)) in
            self.bucket_fresh.iter_mut().zip(&self.bucket_whole_weight).zip(&self.bucket_bounds)
        {
            weight += change;
            if weight != 0.0 {
                *fresh += weight * (end - start);
            }
        }
        self.bucket_whole_weight.iter_mut().for_each(|change| *change = 0.0);
    }

    /// A fetch at `t` that found a change or not.
    #[inline]
    pub(crate) fn add_fetch(&mut self, t: f64, changed: bool) {
        self.fetches += 1;
        let bucket = self.fetch_bucket(t);
        self.bucket_fetches[bucket] += 1;
        if t >= self.window.start && t < self.window.end {
            self.measured_fetches += 1;
            self.changed_fetches += u64::from(changed);
        }
    }

    pub(crate) fn finish(
        mut self,
        total_weight: f64,
        policy: String,
        rates: String,
        seed: u64,
        violations: Violations,
    ) -> RunSummary {
        self.settle_whole_buckets();
        let length = self.window.end - self.window.start;
        let series: Vec<SeriesPoint> = (0..self.bucket_fresh.len())
            .map(|bucket| {
                let start = bucket as f64 * self.bucket_length;
                let end = if bucket + 1 == self.bucket_fresh.len() {
                    self.horizon
                } else {
                    start + self.bucket_length
                };
                SeriesPoint {
                    start,
                    end,
                    weighted_freshness: self.bucket_fresh[bucket] / (total_weight * (end - start)),
                    fetches: self.bucket_fetches[bucket],
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
            weighted_freshness: self.fresh / (total_weight * length),
            freshness_std_error: batch_std_error(&inside),
            mean_age: self.age / (total_weight * length),
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
    fn times(acc: &Accumulator, rng: &mut SimRng) -> Vec<f64> {
        let mut times: Vec<f64> = (0..=acc.bucket_fresh.len())
            .flat_map(|bucket| {
                let boundary = bucket as f64 * acc.bucket_length;
                [boundary.next_down(), boundary, boundary.next_up()]
            })
            .chain((0..200).map(|_| rng.uniform() * acc.horizon))
            .filter(|t| *t >= 0.0)
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
            let mut acc = Accumulator::new(Window { start: 0.0, end: horizon }, horizon, buckets);
            for t in times(&acc, &mut rng) {
                assert_eq!(acc.fetch_bucket(t), acc.bucket(t), "t {t}, horizon {horizon}, {buckets} buckets");
            }
        }
    }

    #[test]
    fn the_series_shortcuts_add_what_the_general_path_adds() {
        let mut rng = SimRng::new(12);
        for _ in 0..100 {
            let horizon = 10f64.powf(rng.uniform() * 6.0 - 1.0);
            let buckets = 1 + rng.index(200);
            let window = Window { start: 0.0, end: horizon };
            let (mut fast, mut general) =
                (Accumulator::new(window, horizon, buckets), Accumulator::new(window, horizon, buckets));
            let times = times(&fast, &mut rng);
            for (index, &t) in times.iter().enumerate() {
                // An interval ending at the fetch, from a time up to a few buckets before it:
                // half the time one of the earlier times (a boundary or its neighbour).
                let from = if rng.uniform() < 0.5 {
                    times[index - rng.index(index.min(8) + 1)]
                } else {
                    (t - rng.uniform() * 3.0 * fast.bucket_length).max(0.0)
                };
                let weight = rng.uniform_open0();
                fast.add_series(weight, from, t);
                fast.add_fetch(t, false);
                general.add_series_reference(weight, from, t);
                let bucket = general.bucket(t);
                general.bucket_fetches[bucket] += 1;
            }
            // The end buckets' parts are the reference's terms; the buckets covered whole are
            // summed as weights before the multiplication, so they agree to rounding.
            fast.settle_whole_buckets();
            for (a, b) in fast.bucket_fresh.iter().zip(&general.bucket_fresh) {
                assert!(
                    (a - b).abs() <= 1e-12 * b.abs().max(fast.bucket_length),
                    "{a} vs {b}: horizon {horizon}, {buckets} buckets"
                );
            }
            assert_eq!(fast.bucket_fetches, general.bucket_fetches);
        }
    }

    impl Accumulator {
        /// The series update as first written: every bucket's bounds computed in place.
        fn add_series_reference(&mut self, weight: f64, from: f64, to: f64) {
            let (first_bucket, last_bucket) = (self.bucket(from), self.bucket(to));
            if first_bucket == last_bucket {
                self.bucket_fresh[first_bucket] += weight * (to - from);
                return;
            }
            for bucket in first_bucket..=last_bucket {
                let start = bucket as f64 * self.bucket_length;
                let end = if bucket + 1 == self.bucket_fresh.len() {
                    self.horizon
                } else {
                    start + self.bucket_length
                };
                let overlap = to.min(end) - from.max(start);
                if overlap > 0.0 {
                    self.bucket_fresh[bucket] += weight * overlap;
                }
            }
        }
    }

    #[test]
    fn integrals_of_one_interval_are_exact() {
        let window = Window { start: 0.0, end: 10.0 };
        let mut acc = Accumulator::new(window, 10.0, 10);
        // Fresh on [0, 4), stale on [4, 10): age integral 6²/2 = 18.
        acc.add_interval(2.0, 0.0, 10.0, 4.0, 6.0);
        let summary = acc.finish(2.0, "p".into(), "known".into(), 0, Violations::default());
        assert!((summary.weighted_freshness - 0.4).abs() < 1e-12);
        assert!((summary.mean_age - 1.8).abs() < 1e-12);
        assert!((summary.delay - 1.2).abs() < 1e-12);
        assert_eq!(summary.series[3].weighted_freshness, 1.0);
        assert_eq!(summary.series[4].weighted_freshness, 0.0);
    }

    #[test]
    fn warmup_is_excluded() {
        let window = Window { start: 5.0, end: 10.0 };
        let mut acc = Accumulator::new(window, 10.0, 2);
        acc.add_interval(1.0, 0.0, 10.0, 7.0, 0.0);
        acc.add_fetch(2.0, false);
        let summary = acc.finish(1.0, "p".into(), "known".into(), 0, Violations::default());
        assert!((summary.weighted_freshness - 0.4).abs() < 1e-12);
        // Age over [7, 10): 3²/2 = 4.5, over a window of 5.
        assert!((summary.mean_age - 0.9).abs() < 1e-12);
        assert_eq!((summary.fetches, summary.measured_fetches), (1, 0));
    }
}
