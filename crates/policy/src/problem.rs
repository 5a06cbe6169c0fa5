//! The refresh problem: pages, a global budget, and optional per-host caps (seed 003).

use crate::objective::Objective;
use crate::{Page, PolicyError, Result};

/// Which host each page is on, and each host's capacity `k_i` (fetches per unit time;
/// `f64::INFINITY` for a host without a cap).
#[derive(Clone, Copy, Debug)]
pub struct HostCaps<'a> {
    /// `host_of_page[j]` is the index into `capacity` of page `j`'s host.
    pub host_of_page: &'a [u32],
    /// `capacity[i]` is host `i`'s maximum total refresh rate `k_i`.
    pub capacity: &'a [f64],
}

/// The problem of seed 003_aad34b8e7abe1f9a.txt: maximise `Σ C_ij(f_ij)` subject to
/// `Σ_ij f_ij ≤ k_0` (the global `budget`), `Σ_j f_ij ≤ k_i` for every host `i` when `hosts` is
/// given, and `f_ij ≥ 0`. Without hosts it is the budgeted problem of seeds 000 and 001.
#[derive(Clone, Copy, Debug)]
pub struct Problem<'a> {
    /// The pages (weight and change rate each).
    pub pages: &'a [Page],
    /// The global budget `k_0`, fetches per unit time (the unit of the change rates).
    pub budget: f64,
    /// Per-host caps, if any.
    pub hosts: Option<HostCaps<'a>>,
}

impl<'a> Problem<'a> {
    /// The budgeted problem: only the global budget.
    #[must_use]
    pub fn budgeted(pages: &'a [Page], budget: f64) -> Self {
        Self { pages, budget, hosts: None }
    }

    /// The host-capped problem of seed 003.
    #[must_use]
    pub fn host_capped(pages: &'a [Page], budget: f64, host_of_page: &'a [u32], capacity: &'a [f64]) -> Self {
        Self { pages, budget, hosts: Some(HostCaps { host_of_page, capacity }) }
    }

    /// Number of hosts (0 without caps).
    #[must_use]
    pub fn host_count(&self) -> usize {
        self.hosts.map_or(0, |hosts| hosts.capacity.len())
    }

    /// Checks every input the solvers rely on, naming the first offending page or host.
    ///
    /// # Errors
    /// A [`PolicyError`] naming the budget, the page (by index) or the host that is invalid.
    pub fn validate<O: Objective>(&self, objective: O) -> Result<()> {
        if !(self.budget.is_finite() && self.budget > 0.0) {
            return Err(PolicyError::InvalidBudget { budget: self.budget });
        }
        for (index, page) in self.pages.iter().enumerate() {
            objective.check_page(index, *page)?;
        }
        if let Some(hosts) = self.hosts {
            if hosts.host_of_page.len() != self.pages.len() {
                return Err(PolicyError::HostLengthMismatch {
                    hosts: hosts.host_of_page.len(),
                    pages: self.pages.len(),
                });
            }
            for (host, &capacity) in hosts.capacity.iter().enumerate() {
                if capacity.is_nan() || capacity <= 0.0 {
                    return Err(PolicyError::InvalidCapacity { host, capacity });
                }
            }
            let host_count = hosts.capacity.len();
            for (page, &host) in hosts.host_of_page.iter().enumerate() {
                if host as usize >= host_count {
                    return Err(PolicyError::UnknownHost { page, host, hosts: host_count });
                }
            }
        }
        Ok(())
    }
}
