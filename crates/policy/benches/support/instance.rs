//! Seeded benchmark instances: Zipf-like weights, log-uniform change rates, pages spread over
//! hosts with a skewed (Zipf-like) distribution, and host caps of which some bind.
//!
//! Shared by the criterion bench (`solvers.rs`) and the quick timing example.

use freshet_policy::objective::Freshness;
use freshet_policy::{Page, Problem, solve};

/// A seeded instance of the host-capped problem.
pub(crate) struct Instance {
    /// The pages.
    pub(crate) pages: Vec<Page>,
    /// Each page's host.
    pub(crate) host_of_page: Vec<u32>,
    /// Each host's cap (some bind, the rest are loose).
    pub(crate) capacity: Vec<f64>,
    /// The global budget: 10% of the total change rate.
    pub(crate) budget: f64,
}

/// splitmix64, so the instance is the same on every machine.
struct SplitMix(u64);

impl SplitMix {
    fn next_unit(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1_u64 << 53) as f64
    }
}

impl Instance {
    /// `page_count` pages on `host_count` hosts, from `seed`.
    pub(crate) fn generate(page_count: usize, host_count: usize, seed: u64) -> Self {
        let mut random = SplitMix(seed);
        let mut pages = Vec::with_capacity(page_count);
        let mut host_of_page = Vec::with_capacity(page_count);
        let mut total_change = 0.0;
        for _ in 0..page_count {
            // Zipf(1) weights over 1..10^4 by inversion: w = 10^(4u) has density ∝ 1/w.
            let weight = 10f64.powf(4.0 * random.next_unit());
            // Change rates log-uniform over 1e-3..1e1 (per day, say).
            let change_rate = 10f64.powf(-3.0 + 4.0 * random.next_unit());
            total_change += change_rate;
            pages.push(Page::new(weight, change_rate));
            // Host sizes Zipf-like: host = floor(H^u) - 1 concentrates pages on low hosts.
            let host = ((host_count as f64).powf(random.next_unit()) as usize).saturating_sub(1);
            host_of_page.push(host.min(host_count - 1) as u32);
        }
        let budget = 0.1 * total_change;
        // Caps: half of each host's uncapped demand on every third host (so those bind), loose
        // (infinite) elsewhere.
        let uncapped =
            solve(Freshness, &Problem::budgeted(&pages, budget)).map(|s| s.rates).unwrap_or_default();
        let mut demand = vec![0.0; host_count];
        for (rate, &host) in uncapped.iter().zip(&host_of_page) {
            demand[host as usize] += rate;
        }
        let capacity = demand
            .iter()
            .enumerate()
            .map(|(host, &d)| if host % 3 == 0 && d > 0.0 { 0.5 * d } else { f64::INFINITY })
            .collect();
        Self { pages, host_of_page, capacity, budget }
    }

    /// The budgeted problem (no caps).
    pub(crate) fn budgeted(&self) -> Problem<'_> {
        Problem::budgeted(&self.pages, self.budget)
    }

    /// The host-capped problem.
    pub(crate) fn host_capped(&self) -> Problem<'_> {
        Problem::host_capped(&self.pages, self.budget, &self.host_of_page, &self.capacity)
    }
}
