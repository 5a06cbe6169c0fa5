//! Seed 003's scenario: a new host comes online with many undifferentiated pages, is crawled
//! at once, and its crawl rate is then capped. Solver-then-schedule bunches the recrawls; the
//! threshold scheduler spreads them.
//!
//! Seed 003_aad34b8e7abe1f9a.txt ("adaptive to heterogeneity"): after the first crawl, "a
//! solution emitted by a solver … would suggest that all web pages be recrawled roughly x days
//! later — meaning no recrawls are initially requested for some time, and then all the web
//! pages on the host would be scheduled to be recrawled over a short duration. If the available
//! crawl rate on the host is restricted when it is time to recrawl, such behavior will be
//! suboptimal. With our new solution … the threshold … will fall downwards until reaching
//! `λ_0`. Consequently, some pages will be crawled sooner …, with an active spreading of the
//! recrawls as the crawl capacity is fully utilized much earlier."
//!
//! The simulation starts just after the first crawl: every copy is fresh at time 0 (the
//! simulator's convention), the new host's pages all alike (weight 1, one change rate), the
//! host capped from then on, next to an established host whose pages compete for the global
//! budget. Three policies run on the same changes (same seed):
//! * `threshold` — seed 003's online scheduler ([`PolicyKind::Threshold`]);
//! * `solver-then-schedule` — the host-capped solver's rates, page `i` due every period `1/f_i`
//!   from its last fetch in the first crawl (at 0: so at `1/f_i, 2/f_i, …`, whatever delays
//!   its fetches, so lateness never compounds), due pages in due order under the global budget
//!   and the host's gap;
//! * `periodic-optimal` — the same rates on seed 001's carousel behind the politeness gate (its
//!   phases are spread by construction, so it does not bunch either, but it cannot start a page
//!   early when its host is idle).
//!
//! Measured per time bucket: the new host's fetches and its expected freshness (Poisson:
//! `P(fresh at t) = e^(−λ(t − last fetch))`, integrated exactly over the bucket).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use freshet_policy::objective::Freshness;
use freshet_policy::{Page, Problem, solve};

use crate::error::Result;
use crate::metrics::RunSummary;
use crate::model::{Config, Host, SimPage};
use crate::policy::{Fetch, Observation, Policy, PolicyKind, RatesMode, build};
use crate::rng::SimRng;
use crate::simulate::simulate_policy;

/// The scenario's parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct NewHost {
    /// Pages of the established host (host 0, unlimited); weights `U[0.1, 1.1)`, change rates
    /// `U[0.05, 1.05)`, drawn from `seed`.
    pub established_pages: usize,
    /// Pages of the new host (host 1), all with weight 1 and change rate `new_change_rate`.
    pub new_pages: usize,
    /// Change rate of every new page.
    pub new_change_rate: f64,
    /// The new host's cap after its first crawl, fetches per time unit.
    pub cap: f64,
    /// Global budget, fetches per time unit.
    pub budget: f64,
    /// Simulated time after the first crawl.
    pub horizon: f64,
    /// Width of a time bucket of the series.
    pub bucket: f64,
    /// Seed of the pages and of the changes.
    pub seed: u64,
}

impl Default for NewHost {
    /// 2,000 established pages, 1,000 new pages changing once per 10 time units, the new host
    /// capped at 20 fetches per unit, budget 100, 400 time units in buckets of 5.
    fn default() -> Self {
        Self {
            established_pages: 2_000,
            new_pages: 1_000,
            new_change_rate: 0.1,
            cap: 20.0,
            budget: 100.0,
            horizon: 400.0,
            bucket: 5.0,
            seed: 1,
        }
    }
}

/// One policy's run of the scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct NewHostRun {
    /// `threshold`, `solver-then-schedule` or `periodic-optimal`.
    pub policy: String,
    /// Fetches of the new host's pages in each bucket.
    pub new_host_fetches: Vec<u64>,
    /// The new host's mean expected freshness in each bucket.
    pub new_host_freshness: Vec<f64>,
    /// Time of the first recrawl of a new page, if any.
    pub first_recrawl: Option<f64>,
    /// The new host's mean expected freshness over the whole horizon.
    pub new_host_mean_freshness: f64,
    /// The whole collection's summary (all pages; warm-up 0).
    pub summary: RunSummary,
}

impl NewHost {
    /// The simulator configuration: host 0 established, host 1 new and capped.
    #[must_use]
    pub fn config(&self) -> Config {
        let mut rng = SimRng::new(self.seed);
        let mut pages: Vec<SimPage> = (0..self.established_pages)
            .map(|_| {
                let weight = 0.1 + rng.uniform();
                SimPage::poisson(weight, 0.05 + rng.uniform())
            })
            .collect();
        pages.extend(
            (0..self.new_pages).map(|_| SimPage { host: 1, ..SimPage::poisson(1.0, self.new_change_rate) }),
        );
        let mut config = Config::new(pages, self.budget, self.horizon);
        config.hosts = vec![Host::UNLIMITED, Host { capacity: self.cap, min_delay: 0.0 }];
        config.warmup_fraction = 0.0;
        config.buckets = self.buckets();
        config
    }

    fn buckets(&self) -> usize {
        ((self.horizon / self.bucket).ceil() as usize).max(1)
    }

    /// Runs the three policies on the same changes.
    ///
    /// # Errors
    /// An invalid configuration or a problem the solver rejects.
    pub fn run(&self) -> Result<Vec<NewHostRun>> {
        let config = self.config();
        config.validate()?;
        let first_new = self.established_pages;
        let threshold = build(&config, PolicyKind::Threshold, RatesMode::Known)?;
        let periodic = build(&config, PolicyKind::PeriodicOptimal, RatesMode::Known)?;
        let solver_schedule = Box::new(SolverThenSchedule::new(&config)?);
        let runs: [(&str, Box<dyn Policy>); 3] = [
            ("threshold", threshold),
            ("solver-then-schedule", solver_schedule),
            ("periodic-optimal", periodic),
        ];
        runs.into_iter()
            .map(|(name, policy)| {
                let mut recorder = Recorder { inner: policy, first_new, fetches: Vec::new() };
                let summary = simulate_policy(&config, &mut recorder, name, "known", self.seed)?;
                Ok(self.measure(name, &recorder.fetches, summary))
            })
            .collect()
    }

    /// Bucketed fetch counts and exact expected freshness of the new pages from their fetches.
    fn measure(&self, name: &str, fetches: &[(usize, f64)], summary: RunSummary) -> NewHostRun {
        let buckets = self.buckets();
        let mut counts = vec![0_u64; buckets];
        let mut last = vec![0.0_f64; self.new_pages];
        let mut fresh = vec![0.0_f64; buckets];
        let rate = self.new_change_rate;
        let bucket_of = |time: f64| ((time / self.bucket) as usize).min(buckets - 1);
        // ∫_a^b e^(−λ(t − L)) dt, split at bucket edges.
        let integrate = |from: f64, to: f64, last_fetch: f64, fresh: &mut [f64]| {
            let mut start = from;
            while start < to {
                let index = bucket_of(start);
                let end = to.min((index + 1) as f64 * self.bucket);
                let end = if end <= start { to } else { end };
                let survive = |t: f64| (-rate * (t - last_fetch)).exp();
                fresh[index] += (survive(start) - survive(end)) / rate;
                start = end;
            }
        };
        for &(page, time) in fetches {
            counts[bucket_of(time)] += 1;
            integrate(last[page], time, last[page], &mut fresh);
            last[page] = time;
        }
        for &last_fetch in &last {
            integrate(last_fetch, self.horizon, last_fetch, &mut fresh);
        }
        let pages = self.new_pages.max(1) as f64;
        let total: f64 = fresh.iter().sum();
        let freshness = fresh
            .iter()
            .enumerate()
            .map(|(index, sum)| {
                let width = self.horizon.min((index + 1) as f64 * self.bucket) - index as f64 * self.bucket;
                sum / (pages * width)
            })
            .collect();
        NewHostRun {
            policy: name.to_owned(),
            new_host_fetches: counts,
            new_host_freshness: freshness,
            first_recrawl: fetches.first().map(|&(_, time)| time),
            new_host_mean_freshness: total / (pages * self.horizon),
            summary,
        }
    }
}

/// Records the fetches of the new host's pages (indices from `first_new`), as page offsets.
struct Recorder {
    inner: Box<dyn Policy>,
    first_new: usize,
    fetches: Vec<(usize, f64)>,
}

impl Policy for Recorder {
    fn next_fetch(&mut self, now: f64, rng: &mut SimRng) -> Option<Fetch> {
        self.inner.next_fetch(now, rng)
    }

    fn observe(&mut self, observation: &Observation) {
        if let Some(offset) = observation.page.checked_sub(self.first_new) {
            self.fetches.push((offset, observation.time));
        }
        self.inner.observe(observation);
    }
}

/// The solver's intervals executed as a crawler would: page `i` is due at `k/f_i` (`k = 1, 2,
/// …`: its schedule from the first crawl at 0); due pages go in due order, one per `1/R` (the
/// budget), each host no sooner than `1/cap` after its previous fetch.
struct SolverThenSchedule {
    periods: Vec<f64>,
    /// Fetches done per page: its next due time is `(count + 1)·period`.
    counts: Vec<u64>,
    host_of_page: Vec<usize>,
    /// Per host: `(due time bits, page)`, earliest first (times ≥ 0 sort as their bits).
    queues: Vec<BinaryHeap<Reverse<(u64, usize)>>>,
    host_free: Vec<f64>,
    host_gap: Vec<f64>,
    spacing: f64,
    last_start: f64,
}

impl SolverThenSchedule {
    fn new(config: &Config) -> Result<Self> {
        let pages: Vec<Page> =
            config.pages.iter().map(|page| Page::new(page.weight, page.process.mean_rate())).collect();
        let host_of_page: Vec<u32> = config.pages.iter().map(|page| page.host).collect();
        let caps: Vec<f64> = config.hosts.iter().map(Host::effective_capacity).collect();
        let solution = solve(Freshness, &Problem::host_capped(&pages, config.budget, &host_of_page, &caps))?;
        let periods: Vec<f64> = solution.rates.iter().map(|&rate| 1.0 / rate).collect();
        let mut queues = vec![BinaryHeap::new(); config.hosts.len()];
        for (page, (&period, &host)) in periods.iter().zip(&host_of_page).enumerate() {
            if period.is_finite() {
                queues[host as usize].push(Reverse((period.to_bits(), page)));
            }
        }
        Ok(Self {
            counts: vec![0; periods.len()],
            periods,
            host_of_page: host_of_page.iter().map(|&host| host as usize).collect(),
            queues,
            host_free: vec![0.0; config.hosts.len()],
            host_gap: caps.iter().map(|&cap| if cap.is_finite() { 1.0 / cap } else { 0.0 }).collect(),
            spacing: 1.0 / config.budget,
            last_start: f64::NEG_INFINITY,
        })
    }
}

impl Policy for SolverThenSchedule {
    fn next_fetch(&mut self, now: f64, _rng: &mut SimRng) -> Option<Fetch> {
        let earliest = now.max(self.last_start + self.spacing);
        // The host whose head page can start first, the most overdue head among ties (few
        // hosts: a scan).
        let (host, time, _) = self
            .queues
            .iter()
            .enumerate()
            .filter_map(|(host, queue)| {
                let Reverse((due, _)) = queue.peek()?;
                let due = f64::from_bits(*due);
                Some((host, due.max(self.host_free[host]).max(earliest), due))
            })
            .min_by(|a, b| a.1.total_cmp(&b.1).then(a.2.total_cmp(&b.2)))?;
        let Reverse((_, page)) = self.queues[host].pop()?;
        self.last_start = time;
        self.host_free[host] = time + self.host_gap[host];
        Some(Fetch { page, time })
    }

    fn observe(&mut self, observation: &Observation) {
        let page = observation.page;
        let (Some(&period), Some(&host)) = (self.periods.get(page), self.host_of_page.get(page)) else {
            return;
        };
        let Some(count) = self.counts.get_mut(page) else { return };
        *count += 1;
        let due = (*count + 1) as f64 * period;
        if let Some(queue) = self.queues.get_mut(host) {
            queue.push(Reverse((due.to_bits(), page)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Smaller than the default so that it runs in debug mode in well under a second.
    fn small() -> NewHost {
        NewHost {
            established_pages: 200,
            new_pages: 200,
            cap: 4.0,
            budget: 20.0,
            horizon: 300.0,
            ..NewHost::default()
        }
    }

    #[test]
    fn solver_then_schedule_bunches_and_threshold_spreads() {
        let runs = small().run().unwrap_or_else(|error| panic!("{error}"));
        let by_name =
            |name: &str| runs.iter().find(|run| run.policy == name).unwrap_or_else(|| panic!("{name}"));
        let threshold = by_name("threshold");
        let solver = by_name("solver-then-schedule");
        for run in &runs {
            assert_eq!(run.summary.violations.total(), 0, "{}", run.policy);
        }
        // The solver's period for the capped new host is pages/cap = 50: nothing before it.
        let solver_first = solver.first_recrawl.unwrap_or(f64::INFINITY);
        let threshold_first = threshold.first_recrawl.unwrap_or(f64::INFINITY);
        assert!(solver_first >= 49.0, "solver-then-schedule first recrawl at {solver_first}");
        assert!(threshold_first < 0.5 * solver_first, "threshold first recrawl at {threshold_first}");
        assert!(
            threshold.new_host_mean_freshness > solver.new_host_mean_freshness,
            "threshold {} vs solver-then-schedule {}",
            threshold.new_host_mean_freshness,
            solver.new_host_mean_freshness
        );
    }
}
