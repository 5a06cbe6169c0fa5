//! Refresh rates of the rate-based policies, from (true or estimated) page rates.

use freshet_policy::objective::{Changes, Freshness, FreshnessPoisson};
use freshet_policy::{Objective, Page, Problem, azar_poisson, solve};

use super::PolicyKind;
use crate::error::Result;

/// What the rate policies know besides the pages: the budget and the hosts' effective caps.
#[derive(Debug, Clone)]
pub(crate) struct Budget {
    pub(crate) total: f64,
    pub(crate) host_of_page: Vec<u32>,
    /// `min(capacity, 1/min_delay)` per host; `None` when no host is limited.
    pub(crate) caps: Option<Vec<f64>>,
}

/// The rates policy `kind` runs at for `pages` (which carry the known or estimated `λ`).
pub(crate) fn target_rates(kind: PolicyKind, pages: &[Page], budget: &Budget) -> Result<Vec<f64>> {
    match kind {
        PolicyKind::ChangeProportional => Ok(proportional(pages, budget, |page| page.change_rate)),
        PolicyKind::WeightProportional => Ok(proportional(pages, budget, |page| page.weight)),
        PolicyKind::PeriodicOptimal => solved(Freshness, pages, budget),
        PolicyKind::ChangesOptimal => solved(Changes, pages, budget),
        PolicyKind::PoissonOptimal | PolicyKind::PoissonOptimalCarousel => match budget.caps {
            None => Ok(azar_poisson(pages, budget.total)?),
            Some(_) => solved(FreshnessPoisson, pages, budget),
        },
        // Uniform, and the policies that use no rates (greedy and nutch start from uniform).
        PolicyKind::Uniform | PolicyKind::Greedy | PolicyKind::NutchAdaptive | PolicyKind::Threshold => {
            Ok(proportional(pages, budget, |_| 1.0))
        }
    }
}

fn solved<O: Objective>(objective: O, pages: &[Page], budget: &Budget) -> Result<Vec<f64>> {
    let problem = match &budget.caps {
        None => Problem::budgeted(pages, budget.total),
        Some(caps) => Problem::host_capped(pages, budget.total, &budget.host_of_page, caps),
    };
    Ok(solve(objective, &problem)?.rates)
}

/// Rates `∝ x_i` under the budget and host caps: `f_i = x_i·s` on uncapped hosts and
/// `x_i·cap_h/X_h` on capped ones (`X_h = Σ_{i∈h} x_i`), with the one `s` for which
/// `Σ_h min(cap_h, s·X_h) = R`. If the caps sum to less than `R`, every host runs at its cap.
fn proportional(pages: &[Page], budget: &Budget, share: impl Fn(&Page) -> f64) -> Vec<f64> {
    let x: Vec<f64> = pages.iter().map(&share).collect();
    let Some(caps) = &budget.caps else {
        let total: f64 = x.iter().sum();
        return x.iter().map(|xi| xi * budget.total / total).collect();
    };
    let mut host_sum = vec![0.0; caps.len()];
    for (xi, &host) in x.iter().zip(&budget.host_of_page) {
        host_sum[host as usize] += xi;
    }
    // Hosts by the scale at which they saturate, cap/X, ascending.
    let mut order: Vec<usize> = (0..caps.len()).filter(|&h| host_sum[h] > 0.0).collect();
    order.sort_by(|&a, &b| (caps[a] / host_sum[a]).total_cmp(&(caps[b] / host_sum[b])));
    let (mut remaining_budget, mut remaining_x) = (budget.total, host_sum.iter().sum::<f64>());
    let mut scale = f64::INFINITY;
    for &h in &order {
        let saturation = caps[h] / host_sum[h];
        if saturation * remaining_x >= remaining_budget {
            scale = remaining_budget / remaining_x;
            break;
        }
        remaining_budget -= caps[h];
        remaining_x -= host_sum[h];
    }
    x.iter()
        .zip(&budget.host_of_page)
        .map(|(xi, &host)| {
            let h = host as usize;
            if scale.is_finite() && scale * host_sum[h] <= caps[h] {
                xi * scale
            } else {
                xi * caps[h] / host_sum[h]
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proportional_fills_the_budget_within_caps() {
        let pages = [Page::new(1.0, 1.0), Page::new(1.0, 1.0), Page::new(1.0, 1.0), Page::new(1.0, 1.0)];
        let budget = Budget { total: 4.0, host_of_page: vec![0, 0, 0, 1], caps: Some(vec![1.0, 10.0]) };
        let rates = proportional(&pages, &budget, |_| 1.0);
        assert!((rates[0] - 1.0 / 3.0).abs() < 1e-12);
        assert!((rates[3] - 3.0).abs() < 1e-12);
        assert!((rates.iter().sum::<f64>() - 4.0).abs() < 1e-12);
        // Caps below the budget: every host at its cap.
        let budget = Budget { total: 40.0, ..budget };
        let rates = proportional(&pages, &budget, |_| 1.0);
        assert!((rates.iter().sum::<f64>() - 11.0).abs() < 1e-12);
    }
}
