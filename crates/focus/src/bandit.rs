//! Seed `002_987a179045e4afb6.txt`'s multi-armed bandits (estimators 6 to 8): the arms are
//! estimators, a pull lets one estimator choose the next pages, and the reward is the score of
//! what it chose (the mean over a refresh's pages). Untried arms are tried first wherever the
//! bandit exploits, in the order given, so that every mean it compares is of at least one pull.

use crate::error::{FocusError, Result};
use crate::rng::SplitMix;

/// How a bandit balances exploring the estimators and exploiting the best so far.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Bandit {
    /// `mab_ε`: at each pull, a random arm with probability `ε`, else the best mean.
    EpsilonGreedy {
        /// `ε ∈ [0, 1]`.
        epsilon: f64,
    },
    /// `mab_ε-first`: random arms for the first `⌊ε·N⌋` of the crawl's `N` pulls, then the best
    /// mean.
    EpsilonFirst {
        /// `ε ∈ [0, 1]`.
        epsilon: f64,
    },
    /// `mab_var`: ε-first over every `reset` pulls, the means forgotten at each reset (the
    /// slides' `var-ε-reset`), so that the bandit follows an estimator that is best for a while
    /// (the slides vary `r` with the context; here it is fixed).
    VariableReset {
        /// `ε ∈ [0, 1]`.
        epsilon: f64,
        /// Pulls between two resets, `≥ 1`.
        reset: usize,
    },
}

impl Bandit {
    /// The slides' name: `mab_ε`, `mab_ε-first`, `var-ε-reset`, with the numbers.
    #[must_use]
    pub fn name(&self) -> String {
        match self {
            Self::EpsilonGreedy { epsilon } => format!("mab_{epsilon}"),
            Self::EpsilonFirst { epsilon } => format!("mab_{epsilon}-first"),
            Self::VariableReset { epsilon, reset } => format!("var-{epsilon}-{reset}"),
        }
    }

    pub(crate) fn epsilon(&self) -> f64 {
        match *self {
            Self::EpsilonGreedy { epsilon }
            | Self::EpsilonFirst { epsilon }
            | Self::VariableReset { epsilon, .. } => epsilon,
        }
    }
}

/// A bandit's running means.
#[derive(Debug, Clone)]
pub(crate) struct Arms {
    policy: Bandit,
    /// Pulls and summed rewards since the last reset.
    pulls: Vec<u64>,
    rewards: Vec<f64>,
    /// Pulls over the whole crawl.
    total_pulls: Vec<u64>,
}

impl Arms {
    pub(crate) fn new(policy: Bandit, arms: usize) -> Self {
        Self { policy, pulls: vec![0; arms], rewards: vec![0.0; arms], total_pulls: vec![0; arms] }
    }

    /// The arm for pull `pull` (from 0) of about `pulls` in the crawl.
    pub(crate) fn choose(&mut self, pull: usize, pulls: usize, rng: &mut SplitMix) -> usize {
        let explore = match self.policy {
            Bandit::EpsilonGreedy { epsilon } => rng.uniform() < epsilon,
            Bandit::EpsilonFirst { epsilon } => (pull as f64) < (epsilon * pulls as f64).floor(),
            Bandit::VariableReset { epsilon, reset } => {
                let reset = reset.max(1);
                let within = pull % reset;
                if within == 0 {
                    self.pulls.iter_mut().for_each(|pulls| *pulls = 0);
                    self.rewards.iter_mut().for_each(|reward| *reward = 0.0);
                }
                (within as f64) < (epsilon * reset as f64).floor()
            }
        };
        if explore { rng.index(self.pulls.len()) } else { self.best() }
    }

    /// The arm of the highest mean reward, an untried one first (the first such).
    fn best(&self) -> usize {
        if let Some(untried) = self.pulls.iter().position(|&pulls| pulls == 0) {
            return untried;
        }
        let mean = |arm: usize| self.rewards[arm] / self.pulls[arm] as f64;
        (0..self.pulls.len()).fold(0, |best, arm| if mean(arm) > mean(best) { arm } else { best })
    }

    pub(crate) fn reward(&mut self, arm: usize, reward: f64) {
        if let (Some(pulls), Some(total), Some(sum)) =
            (self.pulls.get_mut(arm), self.total_pulls.get_mut(arm), self.rewards.get_mut(arm))
        {
            *pulls += 1;
            *total += 1;
            *sum += reward;
        }
    }

    /// Pulls of each arm over the whole crawl.
    pub(crate) fn total_pulls(&self) -> &[u64] {
        &self.total_pulls
    }
}

/// A bandit for a crawl that pulls one arm per page, without a set number of pulls: a crawler's
/// focused crawl, where each page a host is handed comes from the arm (estimator) the bandit
/// chose, and the page's score, once fetched, is that arm's reward. The same policies as
/// [`focused_crawl`](crate::focused_crawl)'s; `mab_ε-first` explores its first `⌊ε·horizon⌋`
/// pulls (`horizon`: the crawl's page budget, as the crawler knows it).
#[derive(Debug, Clone)]
pub struct OnlineBandit {
    arms: Arms,
    rng: SplitMix,
    pulls: usize,
    horizon: usize,
    /// Whether each arm has been pulled: a crawler's rewards come a fetch later, so an arm
    /// pulled but not yet rewarded is not tried again before the others are.
    pulled: Vec<bool>,
}

impl OnlineBandit {
    /// A bandit over `arm_count` arms (`≥ 1`), its draws from `seed`.
    ///
    /// # Errors
    /// [`FocusError::NoArms`] for no arm, [`FocusError::InvalidParameter`] for an `ε` outside
    /// `[0, 1]` or a reset of 0.
    pub fn new(policy: Bandit, arm_count: usize, seed: u64, horizon: usize) -> Result<Self> {
        if arm_count == 0 {
            return Err(FocusError::NoArms);
        }
        let epsilon = policy.epsilon();
        if !(0.0..=1.0).contains(&epsilon) {
            return Err(FocusError::InvalidParameter { name: "epsilon", value: epsilon, range: "[0, 1]" });
        }
        if let Bandit::VariableReset { reset: 0, .. } = policy {
            return Err(FocusError::InvalidParameter { name: "reset", value: 0.0, range: "≥ 1" });
        }
        Ok(Self {
            arms: Arms::new(policy, arm_count),
            rng: SplitMix::new(seed),
            pulls: 0,
            horizon,
            pulled: vec![false; arm_count],
        })
    }

    /// The arm of the next pull: each arm once first, in order, then the policy's choice.
    pub fn choose(&mut self) -> usize {
        let arm = match self.pulled.iter().position(|&pulled| !pulled) {
            Some(untried) => untried,
            None => self.arms.choose(self.pulls, self.horizon, &mut self.rng),
        };
        self.pulled[arm] = true;
        self.pulls += 1;
        arm
    }

    /// What a pull of `arm` brought.
    pub fn reward(&mut self, arm: usize, reward: f64) {
        self.arms.reward(arm, reward);
    }

    /// Rewards received per arm over the crawl.
    #[must_use]
    pub fn rewarded_pulls(&self) -> &[u64] {
        self.arms.total_pulls()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn an_online_bandit_settles_on_the_paying_arm() {
        let mut bandit = OnlineBandit::new(Bandit::EpsilonGreedy { epsilon: 0.1 }, 3, 5, 0).unwrap();
        for _ in 0..1_000 {
            let arm = bandit.choose();
            bandit.reward(arm, if arm == 2 { 1.0 } else { 0.0 });
        }
        assert!(bandit.rewarded_pulls()[2] > 900, "{:?}", bandit.rewarded_pulls());
        assert!(OnlineBandit::new(Bandit::EpsilonGreedy { epsilon: 1.5 }, 3, 5, 0).is_err());
        assert!(OnlineBandit::new(Bandit::VariableReset { epsilon: 0.1, reset: 0 }, 3, 5, 0).is_err());
        assert!(OnlineBandit::new(Bandit::EpsilonFirst { epsilon: 0.1 }, 0, 5, 0).is_err());
    }

    /// Arm 1 pays 1, the others 0.
    fn play(policy: Bandit, pulls: usize) -> Vec<u64> {
        let mut arms = Arms::new(policy, 3);
        let mut rng = SplitMix::new(3);
        for pull in 0..pulls {
            let arm = arms.choose(pull, pulls, &mut rng);
            arms.reward(arm, if arm == 1 { 1.0 } else { 0.0 });
        }
        arms.total_pulls().to_vec()
    }

    #[test]
    fn each_policy_settles_on_the_paying_arm() {
        let greedy = play(Bandit::EpsilonGreedy { epsilon: 0.1 }, 1000);
        assert!(greedy[1] > 900, "{greedy:?}");
        let first = play(Bandit::EpsilonFirst { epsilon: 0.2 }, 1000);
        // 200 random pulls, then arm 1 every time.
        assert!(first[1] >= 800 && first[1] < 1000, "{first:?}");
        let variable = play(Bandit::VariableReset { epsilon: 0.1, reset: 100 }, 1000);
        assert!(variable[1] >= 850, "{variable:?}");
        // Without exploration, untried arms first, then the best.
        assert_eq!(play(Bandit::EpsilonGreedy { epsilon: 0.0 }, 10), vec![1, 8, 1]);
    }

    #[test]
    fn names_follow_the_slides() {
        assert_eq!(Bandit::VariableReset { epsilon: 0.2, reset: 200 }.name(), "var-0.2-200");
        assert_eq!(Bandit::EpsilonFirst { epsilon: 0.1 }.name(), "mab_0.1-first");
    }
}
