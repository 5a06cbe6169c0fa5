//! The exact solver for the budgeted and the host-capped refresh problems.
//!
//! **The KKT conditions** (seed 003_aad34b8e7abe1f9a.txt): at the optimum every page has
//! `C'_ij(f_ij) = λ_i + λ_0` if `f_ij > 0` and `C'_ij(0) ≤ λ_i + λ_0` otherwise, with `λ_0 ≥ 0`
//! the multiplier of the global budget and `λ_i ≥ 0` that of host `i`'s cap (0 where it does not
//! bind). So `f_ij = (C'_ij)⁻¹(λ_i + λ_0)`, which every [`Objective`] gives in closed form.
//!
//! **One scalar search.** For a given `λ_0`, host `i` alone would demand `S_i(λ_0) = Σ_j
//! (C'_ij)⁻¹(λ_0)`; if that exceeds `k_i` its own multiplier rises until it uses exactly `k_i`.
//! Either way the host uses `min(k_i, S_i(λ_0))`, so the total demand
//! `Φ(λ_0) = Σ_i min(k_i, S_i(λ_0))` is computed in one pass, without solving any host, and is
//! continuous and decreasing. The solver finds `Φ(λ_0) = k_0` by safeguarded Newton in `ln λ_0`
//! (see `root.rs`), started from the exact solution of a 32,768-page stride sample, so a full
//! solve takes a handful of passes over the pages. Only then is each binding host solved on its
//! own pages, for its `λ_i`.
//!
//! **Exact budget.** Rates near a page's cutoff fall from `≈ λ/37` to 0 between two adjacent
//! floating-point thresholds (the marginal of `freshness` is flat to 1e-16 there), so demand can
//! jump over the budget. The search then returns the two adjacent thresholds and the rates are
//! blended between them so the budget is met to rounding; every blended page still satisfies
//! KKT to the width of the bracket (≈ 1e-16 relative).

use crate::objective::Objective;
use crate::problem::{HostCaps, Problem};
use crate::root::{BUDGET_TOLERANCE, Bracket, Demand, find_threshold};
use crate::sum::CompensatedSum;
use crate::{Page, Result};

/// Problems larger than four times this are started from a stride sample of about this size.
const SAMPLE_PAGES: usize = 1 << 15;

/// The optimal rates and the multipliers that certify them.
#[derive(Clone, Debug, PartialEq)]
pub struct Solution {
    /// `f_j`, fetches per unit time, in the order of the problem's pages.
    pub rates: Vec<f64>,
    /// `λ_0`, the multiplier of the global budget: the marginal value of one more fetch per unit
    /// time. The online scheduler's global threshold.
    pub lambda0: f64,
    /// `λ_i` for every host (0 where its cap does not bind); empty without hosts.
    pub host_lambda: Vec<f64>,
    /// `Σ f_j`, summed with compensation.
    pub budget_used: f64,
    /// Work done, in passes over all pages (sample passes count by their size).
    pub passes: f64,
}

impl Solution {
    /// Number of hosts whose cap binds (`λ_i > 0`).
    #[must_use]
    pub fn hosts_capped(&self) -> usize {
        self.host_lambda.iter().filter(|&&lambda| lambda > 0.0).count()
    }

    /// Number of pages with rate 0 (not worth fetching at this budget).
    #[must_use]
    pub fn pages_not_fetched(&self) -> usize {
        self.rates.iter().filter(|&&rate| rate <= 0.0).count()
    }

    /// The threshold `λ_i + λ_0` of a page on host `host` (or `λ_0` without hosts).
    #[must_use]
    pub fn threshold(&self, host: Option<u32>) -> f64 {
        let host_lambda = host.and_then(|host| self.host_lambda.get(host as usize)).copied();
        self.lambda0 + host_lambda.unwrap_or(0.0)
    }
}

/// Solves the budgeted or host-capped problem exactly (see the module docs).
///
/// # Errors
/// A [`crate::PolicyError`] if the problem is invalid ([`Problem::validate`]).
pub fn solve<O: Objective>(objective: O, problem: &Problem<'_>) -> Result<Solution> {
    problem.validate(objective)?;
    let page_count = problem.pages.len();
    let host_count = problem.host_count();
    if page_count == 0 {
        return Ok(Solution {
            rates: Vec::new(),
            lambda0: 0.0,
            host_lambda: vec![0.0; host_count],
            budget_used: 0.0,
            passes: 0.0,
        });
    }
    let mut demand = TotalDemand::new(objective, problem.pages, problem.hosts, 1);
    let (saturated, _) = demand.demand(0.0);
    let bracket = if saturated <= problem.budget * (1.0 + BUDGET_TOLERANCE) {
        // Even at threshold 0 the pages (capped hosts, or rates bounded by `max_rate`) cannot use
        // the budget: λ_0 = 0 and only the host caps bind.
        None
    } else {
        let guess = initial_threshold(objective, problem);
        Some(find_threshold(&mut demand, problem.budget, guess.threshold))
            .map(|bracket| (bracket, guess.passes))
    };
    let mut passes = demand.pages_visited as f64 / page_count as f64;
    let (low, high) = match bracket {
        Some((found, sample_passes)) => {
            passes += sample_passes;
            (found.low, found.high)
        }
        None => (0.0, 0.0),
    };
    let mut assembly = Assembly::new(objective, problem, low, high);
    if low == high && demand.last_threshold == high {
        assembly.precomputed = Some(Precomputed {
            rates: std::mem::take(&mut demand.last_rates),
            host_total: std::mem::take(&mut demand.host_total),
            host_slope: std::mem::take(&mut demand.host_slope),
        });
    } else {
        // Not needed: free it before the assembly allocates its own rates (8 bytes per page).
        demand.last_rates = Vec::new();
    }
    let lambda0 = assembly.run();
    passes += assembly.pages_visited as f64 / page_count as f64;
    let mut budget_used = CompensatedSum::default();
    for &rate in &assembly.rates {
        budget_used.add(rate);
    }
    Ok(Solution {
        rates: assembly.rates,
        lambda0,
        host_lambda: assembly.host_lambda,
        budget_used: budget_used.value(),
        passes,
    })
}

/// A starting threshold and what it cost.
struct Guess {
    threshold: f64,
    passes: f64,
}

/// The threshold that solves a stride sample of the problem (budget and caps scaled by the
/// sampled fraction), or for small problems the `delay`-shaped estimate
/// `μ ≈ (Σ √(wλ/2) / k_0)²`, which is exact for `delay` and for `freshness` at small thresholds.
fn initial_threshold<O: Objective>(objective: O, problem: &Problem<'_>) -> Guess {
    let page_count = problem.pages.len();
    let stride = (page_count / SAMPLE_PAGES).max(1);
    let sampled = page_count.div_ceil(stride);
    let fraction = sampled as f64 / page_count as f64;
    let mut root_sum = CompensatedSum::default();
    for page in problem.pages.iter().step_by(stride) {
        root_sum.add((0.5 * page.weight * page.change_rate).sqrt());
    }
    let budget = problem.budget * fraction;
    let estimate = (root_sum.value() / budget).powi(2);
    if stride < 4 {
        return Guess { threshold: estimate, passes: fraction };
    }
    let mut demand = TotalDemand::new(objective, problem.pages, problem.hosts, stride);
    demand.cap_scale = fraction;
    let (saturated, _) = demand.demand(0.0);
    if saturated <= budget {
        return Guess { threshold: estimate, passes: 2.0 * fraction };
    }
    let bracket: Bracket = find_threshold(&mut demand, budget, estimate);
    Guess { threshold: bracket.high, passes: fraction * (1.0 + f64::from(bracket.evaluations)) }
}

/// `Φ(μ) = Σ_i min(k_i, S_i(μ))` over every `stride`-th page, with `dΦ/dμ`.
struct TotalDemand<'p, O> {
    objective: O,
    pages: &'p [Page],
    hosts: Option<HostCaps<'p>>,
    stride: usize,
    /// Host caps are multiplied by this (the sampled fraction, for a sample).
    cap_scale: f64,
    host_total: Vec<f64>,
    host_slope: Vec<f64>,
    pages_visited: u64,
    /// The rates of the last evaluation (full problems only), and its threshold: when the search
    /// ends on that threshold the assembly need not compute them again.
    last_rates: Vec<f64>,
    last_threshold: f64,
}

impl<'p, O: Objective> TotalDemand<'p, O> {
    fn new(objective: O, pages: &'p [Page], hosts: Option<HostCaps<'p>>, stride: usize) -> Self {
        let host_count = hosts.map_or(0, |hosts| hosts.capacity.len());
        Self {
            objective,
            pages,
            hosts,
            stride,
            cap_scale: 1.0,
            host_total: vec![0.0; host_count],
            host_slope: vec![0.0; host_count],
            pages_visited: 0,
            last_rates: if stride == 1 { vec![0.0; pages.len()] } else { Vec::new() },
            last_threshold: f64::NAN,
        }
    }
}

impl<O: Objective> Demand for TotalDemand<'_, O> {
    fn demand(&mut self, threshold: f64) -> (f64, f64) {
        let objective = self.objective;
        self.pages_visited += self.pages.len().div_ceil(self.stride) as u64;
        self.last_threshold = threshold;
        let keep = !self.last_rates.is_empty();
        let mut total = CompensatedSum::default();
        let mut slope = 0.0;
        match self.hosts {
            None => {
                for (index, page) in self.pages.iter().enumerate().step_by(self.stride) {
                    let answer = objective.rate_at_marginal(*page, threshold);
                    if keep {
                        self.last_rates[index] = answer.rate;
                    }
                    total.add(answer.rate);
                    slope += answer.slope;
                }
            }
            Some(hosts) => {
                self.host_total.fill(0.0);
                self.host_slope.fill(0.0);
                let paired = self.pages.iter().zip(hosts.host_of_page).enumerate();
                for (index, (page, &host)) in paired.step_by(self.stride) {
                    let answer = objective.rate_at_marginal(*page, threshold);
                    if keep {
                        self.last_rates[index] = answer.rate;
                    }
                    self.host_total[host as usize] += answer.rate;
                    self.host_slope[host as usize] += answer.slope;
                }
                for ((&host_total, &host_slope), &capacity) in
                    self.host_total.iter().zip(&self.host_slope).zip(hosts.capacity)
                {
                    let cap = capacity * self.cap_scale;
                    if host_total >= cap {
                        total.add(cap);
                    } else {
                        total.add(host_total);
                        slope += host_slope;
                    }
                }
            }
        }
        (total.value(), slope)
    }
}

/// Demand of one host's pages alone: `S_i(μ)` and its slope; writes the member pages' rates.
struct HostDemand<'p, O> {
    objective: O,
    pages: &'p [Page],
    members: &'p [u32],
    rates: &'p mut [f64],
    pages_visited: u64,
    last_threshold: f64,
}

impl<O: Objective> Demand for HostDemand<'_, O> {
    fn demand(&mut self, threshold: f64) -> (f64, f64) {
        self.pages_visited += self.members.len() as u64;
        self.last_threshold = threshold;
        let mut total = CompensatedSum::default();
        let mut slope = 0.0;
        for &member in self.members {
            let answer = self.objective.rate_at_marginal(self.pages[member as usize], threshold);
            self.rates[member as usize] = answer.rate;
            total.add(answer.rate);
            slope += answer.slope;
        }
        (total.value(), slope)
    }
}

/// Turns the global bracket `[low, high]` on `λ_0` into rates: binding hosts solved on their own,
/// the rest blended between the bracket's ends so that the budget is met exactly.
struct Assembly<'p, O> {
    objective: O,
    problem: &'p Problem<'p>,
    low: f64,
    high: f64,
    rates: Vec<f64>,
    host_lambda: Vec<f64>,
    pages_visited: u64,
    /// Rates and host demand (with its slope) at `high`, when the search already computed them.
    precomputed: Option<Precomputed>,
}

/// What the last evaluation of the search left behind, at the threshold it ended on.
struct Precomputed {
    rates: Vec<f64>,
    host_total: Vec<f64>,
    host_slope: Vec<f64>,
}

impl<'p, O: Objective> Assembly<'p, O> {
    fn new(objective: O, problem: &'p Problem<'p>, low: f64, high: f64) -> Self {
        Self {
            objective,
            problem,
            low,
            high,
            rates: Vec::new(),
            host_lambda: vec![0.0; problem.host_count()],
            pages_visited: 0,
            precomputed: None,
        }
    }

    /// Fills `rates` and `host_lambda`; returns `λ_0`.
    fn run(&mut self) -> f64 {
        let objective = self.objective;
        let pages = self.problem.pages;
        let exact = self.low == self.high;
        let host_count = self.problem.host_count();
        // Pass 1: rates at `high`; host demand (and its slope) at `high`, and at `low`.
        let mut host_high = vec![0.0; host_count];
        let mut host_slope = vec![0.0; host_count];
        let mut host_low = vec![0.0; host_count];
        match self.precomputed.take() {
            Some(precomputed) if exact => {
                self.rates = precomputed.rates;
                if self.problem.hosts.is_some() {
                    host_high = precomputed.host_total;
                    host_slope = precomputed.host_slope;
                    host_low.clone_from(&host_high);
                }
            }
            _ => {
                self.rates = Vec::with_capacity(pages.len());
                for (index, page) in pages.iter().enumerate() {
                    let answer = objective.rate_at_marginal(*page, self.high);
                    self.rates.push(answer.rate);
                    if let Some(hosts) = self.problem.hosts {
                        let host = hosts.host_of_page[index] as usize;
                        host_high[host] += answer.rate;
                        host_slope[host] += answer.slope;
                        host_low[host] += if exact {
                            answer.rate
                        } else {
                            objective.rate_at_marginal(*page, self.low).rate
                        };
                    }
                }
                self.pages_visited += pages.len() as u64;
            }
        }
        // Hosts whose cap binds even at the smaller-rate end `high` get their own threshold
        // (above `high`). The others may still reach their cap inside the bracket: they spread the
        // rest of the budget, each at most up to `min(k_i, S_i(low))`.
        let capped: Vec<bool> = match self.problem.hosts {
            Some(hosts) => {
                host_high.iter().zip(hosts.capacity).map(|(&demand, &cap)| demand >= cap).collect()
            }
            None => Vec::new(),
        };
        let mut committed = CompensatedSum::default();
        if let Some(hosts) = self.problem.hosts
            && capped.iter().any(|&is_capped| is_capped)
        {
            let (starts, members) = group_by_host(hosts.host_of_page, host_count);
            for host in (0..host_count).filter(|&host| capped[host]) {
                let host_members = &members[starts[host]..starts[host + 1]];
                let guess = self.host_guess(host_high[host], host_slope[host], hosts.capacity[host]);
                let threshold = self.solve_host(host_members, hosts.capacity[host], guess);
                self.host_lambda[host] = (threshold - self.high).max(0.0);
                committed.add(hosts.capacity[host]);
            }
        }
        if exact {
            return self.high;
        }
        // Blend factor of each group of free pages (each uncapped host, or all pages).
        let mut blend_of_group = match self.problem.hosts {
            Some(_) => vec![0.0; host_count],
            None => vec![0.0; 1],
        };
        let mut fixed = CompensatedSum::default();
        let mut spread = CompensatedSum::default();
        match self.problem.hosts {
            Some(hosts) => {
                for host in (0..host_count).filter(|&host| !capped[host]) {
                    fixed.add(host_high[host]);
                    spread.add(host_low[host].min(hosts.capacity[host]) - host_high[host]);
                }
            }
            None => {
                let mut free_low = CompensatedSum::default();
                for (page, &rate_high) in pages.iter().zip(&self.rates) {
                    fixed.add(rate_high);
                    free_low.add(objective.rate_at_marginal(*page, self.low).rate);
                }
                self.pages_visited += pages.len() as u64;
                spread.add(free_low.value() - fixed.value());
            }
        }
        let remaining = self.problem.budget - committed.value() - fixed.value();
        let spread = spread.value();
        let blend = if spread > 0.0 { (remaining / spread).clamp(0.0, 1.0) } else { 0.0 };
        if blend <= 0.0 {
            return self.high;
        }
        match self.problem.hosts {
            Some(hosts) => {
                for host in (0..host_count).filter(|&host| !capped[host]) {
                    let reachable = host_low[host].min(hosts.capacity[host]) - host_high[host];
                    let full = host_low[host] - host_high[host];
                    if full > 0.0 {
                        blend_of_group[host] = blend * reachable / full;
                    }
                }
            }
            None => blend_of_group[0] = blend,
        }
        for (index, page) in pages.iter().enumerate() {
            let group = match self.problem.hosts {
                Some(hosts) => hosts.host_of_page[index] as usize,
                None => 0,
            };
            let page_blend =
                if self.problem.hosts.is_some() && capped[group] { 0.0 } else { blend_of_group[group] };
            if page_blend > 0.0 {
                let rate_low = objective.rate_at_marginal(*page, self.low).rate;
                let rate_high = self.rates[index];
                self.rates[index] = rate_high + page_blend * (rate_low - rate_high);
            }
        }
        self.pages_visited += pages.len() as u64;
        self.high - blend * (self.high - self.low)
    }

    /// A starting threshold for a binding host: one Newton step in `ln μ` on `ln S_i` from `high`,
    /// where the host's demand `S_i` and its slope are known from pass 1.
    fn host_guess(&self, demand: f64, slope: f64, capacity: f64) -> f64 {
        if self.high <= 0.0 || self.high.is_nan() {
            return 1.0;
        }
        if demand.is_finite() && demand > 0.0 && slope < 0.0 {
            let elasticity = self.high * slope / demand;
            let step = -(demand.ln() - capacity.ln()) / elasticity;
            if step.is_finite() && step > 0.0 {
                return self.high * step.min(50.0).exp();
            }
        }
        self.high
    }

    /// Solves one binding host's own problem (its pages, budget `capacity`), writes its pages'
    /// rates, and returns its threshold `λ_i + λ_0`.
    fn solve_host(&mut self, host_members: &[u32], capacity: f64, guess: f64) -> f64 {
        let objective = self.objective;
        let pages = self.problem.pages;
        let mut demand = HostDemand {
            objective,
            pages,
            members: host_members,
            rates: &mut self.rates,
            pages_visited: 0,
            last_threshold: f64::NAN,
        };
        let bracket = find_threshold(&mut demand, capacity, guess);
        self.pages_visited += demand.pages_visited;
        if bracket.low == bracket.high && demand.last_threshold == bracket.high {
            // The last evaluation already wrote this host's rates at its threshold.
            return bracket.high;
        }
        let spread = bracket.demand_low - bracket.demand_high;
        let blend = if bracket.low < bracket.high && spread > 0.0 {
            ((capacity - bracket.demand_high) / spread).clamp(0.0, 1.0)
        } else {
            0.0
        };
        for &member in host_members {
            let page = pages[member as usize];
            let rate_high = objective.rate_at_marginal(page, bracket.high).rate;
            let rate = if blend > 0.0 {
                let rate_low = objective.rate_at_marginal(page, bracket.low).rate;
                rate_high + blend * (rate_low - rate_high)
            } else {
                rate_high
            };
            self.rates[member as usize] = rate;
        }
        self.pages_visited += host_members.len() as u64 * if blend > 0.0 { 2 } else { 1 };
        bracket.high - blend * (bracket.high - bracket.low)
    }
}

/// Counting sort of page indices by host: host `h`'s pages are `members[starts[h]..starts[h+1]]`.
fn group_by_host(host_of_page: &[u32], host_count: usize) -> (Vec<usize>, Vec<u32>) {
    let mut starts = vec![0_usize; host_count + 1];
    for &host in host_of_page {
        starts[host as usize + 1] += 1;
    }
    for host in 0..host_count {
        starts[host + 1] += starts[host];
    }
    let mut next = starts.clone();
    let mut members = vec![0_u32; host_of_page.len()];
    for (index, &host) in host_of_page.iter().enumerate() {
        let slot = &mut next[host as usize];
        members[*slot] = index as u32;
        *slot += 1;
    }
    (starts, members)
}
