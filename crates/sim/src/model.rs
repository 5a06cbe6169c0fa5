//! What is simulated: pages with change processes, hosts with politeness limits, a budget.

use crate::error::{Result, SimError};

/// How a page changes over time. Every process has a mean rate `λ` (changes per time unit),
/// which is what `--rates known` hands to a policy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ChangeProcess {
    /// Changes at the points of a Poisson process of rate `rate` (the model of seeds 000–003).
    Poisson {
        /// `λ`, changes per time unit; `> 0`.
        rate: f64,
    },
    /// A page that changes about once per period `P = 1/rate` (a daily news page): change `k`
    /// happens at `P·(φ + k + J_k)`, with a phase `φ ~ U[0, 1)` drawn once and independent
    /// jitters `J_k ~ U[0, jitter)`. Changes stay in order and the mean rate is exactly `rate`.
    Periodic {
        /// `λ = 1/P`; `> 0`.
        rate: f64,
        /// Jitter as a fraction of the period, in `[0, 1]`.
        jitter: f64,
    },
    /// On/off bursts: alternating exponential on and off periods (means `mean_on`,
    /// `mean_off`); while on, changes form a Poisson process of rate
    /// `rate·(mean_on + mean_off)/mean_on`, so the long-run mean rate is `rate`. Starts in
    /// the stationary state (on with probability `mean_on/(mean_on + mean_off)`).
    Bursty {
        /// Mean rate `λ`; `> 0`.
        rate: f64,
        /// Mean length of an on period; `> 0`.
        mean_on: f64,
        /// Mean length of an off period; `> 0`.
        mean_off: f64,
    },
}

impl ChangeProcess {
    /// The mean change rate `λ`.
    #[must_use]
    pub fn mean_rate(&self) -> f64 {
        match *self {
            Self::Poisson { rate } | Self::Periodic { rate, .. } | Self::Bursty { rate, .. } => rate,
        }
    }

    fn validate(&self, page: usize) -> Result<()> {
        let check = |name, value: f64, ok: bool| {
            if ok { Ok(()) } else { Err(SimError::InvalidProcess { page, name, value }) }
        };
        let positive = |value: f64| value.is_finite() && value > 0.0;
        match *self {
            Self::Poisson { rate } => check("rate", rate, positive(rate)),
            Self::Periodic { rate, jitter } => {
                check("rate", rate, positive(rate))?;
                check("jitter", jitter, (0.0..=1.0).contains(&jitter))
            }
            Self::Bursty { rate, mean_on, mean_off } => {
                check("rate", rate, positive(rate))?;
                check("mean_on", mean_on, positive(mean_on))?;
                check("mean_off", mean_off, positive(mean_off))
            }
        }
    }
}

/// One simulated page.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimPage {
    /// Index of its host in [`Config::hosts`].
    pub host: u32,
    /// Importance `w > 0` (the weight of its freshness in the averages).
    pub weight: f64,
    /// How it changes.
    pub process: ChangeProcess,
    /// Whether a fetch reports Last-Modified (the time of the last change); learned-rate
    /// policies then use the Last-Modified estimators.
    pub last_modified: bool,
}

impl SimPage {
    /// A Poisson page on host 0 without Last-Modified.
    #[must_use]
    pub fn poisson(weight: f64, rate: f64) -> Self {
        Self { host: 0, weight, process: ChangeProcess::Poisson { rate }, last_modified: false }
    }
}

/// A host's politeness limits.
///
/// A fetch *violates* them if it starts less than `min_delay` after the previous fetch start
/// on the host, or if it finds the host's token bucket empty: the bucket holds at most
/// `max(1, capacity·capacity_window)` tokens ([`Config::capacity_window`]), refills at
/// `capacity` tokens per time unit, starts full, and each fetch takes one token. So over any
/// window of length `L` a polite crawler makes at most `capacity·L + depth` fetches.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Host {
    /// Long-run maximum fetches per time unit; `> 0`, `f64::INFINITY` for no cap.
    pub capacity: f64,
    /// Minimum time between two fetch starts; finite, `≥ 0`.
    pub min_delay: f64,
}

impl Host {
    /// A host without limits.
    pub const UNLIMITED: Self = Self { capacity: f64::INFINITY, min_delay: 0.0 };

    /// The rate cap a rate-based policy must respect: `min(capacity, 1/min_delay)`.
    #[must_use]
    pub fn effective_capacity(&self) -> f64 {
        if self.min_delay > 0.0 { self.capacity.min(1.0 / self.min_delay) } else { self.capacity }
    }

    /// Whether this host limits anything.
    #[must_use]
    pub fn is_limited(&self) -> bool {
        self.capacity.is_finite() || self.min_delay > 0.0
    }
}

/// A simulation: pages, hosts, a budget, and what to measure over which horizon.
///
/// Time is in an abstract unit (read as one day by `nutch-adaptive`). At time 0 every local
/// copy is fresh (a complete initial crawl, not counted as fetches).
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// The pages.
    pub pages: Vec<SimPage>,
    /// The hosts; every page's `host` indexes this.
    pub hosts: Vec<Host>,
    /// Global budget `R`: fetches per time unit.
    pub budget: f64,
    /// Simulated time `H`.
    pub horizon: f64,
    /// Fraction of the horizon excluded from the averages (default 0.2).
    pub warmup_fraction: f64,
    /// Buckets of the time series over `[0, H]` (default 100).
    pub buckets: usize,
    /// Window over which a host's capacity may be used in a burst (see [`Host`]; default 1).
    pub capacity_window: f64,
    /// Learned rates: fetches per page in an exploration phase before `threshold` takes over
    /// (0, the default: none; see `policy` module docs, "Exploration phase").
    pub explore_fetches: u32,
    /// Change notifications: every host's pages are "read" (an honest sitemap's `<lastmod>`s)
    /// every `S` time units, host `h` first at `frac(h·φ)·S` (`φ` the golden ratio), and a
    /// policy that listens is told for each page whether it changed since its last fetch
    /// (`notify.rs`). `None` (the default): no reads.
    pub notify_interval: Option<f64>,
}

impl Config {
    /// Pages on one unlimited host, with the default warm-up, buckets and capacity window.
    #[must_use]
    pub fn new(pages: Vec<SimPage>, budget: f64, horizon: f64) -> Self {
        Self {
            pages,
            hosts: vec![Host::UNLIMITED],
            budget,
            horizon,
            warmup_fraction: 0.2,
            buckets: 100,
            capacity_window: 1.0,
            explore_fetches: 0,
            notify_interval: None,
        }
    }

    /// Poisson pages `(weight, rate)` on one unlimited host.
    #[must_use]
    pub fn poisson(pages: &[(f64, f64)], budget: f64, horizon: f64) -> Self {
        Self::new(pages.iter().map(|&(w, rate)| SimPage::poisson(w, rate)).collect(), budget, horizon)
    }

    /// Start of the measured window, `warmup_fraction · horizon`.
    #[must_use]
    pub fn warmup_end(&self) -> f64 {
        self.warmup_fraction * self.horizon
    }

    /// Whether any host limits anything.
    #[must_use]
    pub fn has_host_limits(&self) -> bool {
        self.hosts.iter().any(Host::is_limited)
    }

    /// Checks every page, host and setting.
    ///
    /// # Errors
    /// The first problem found, naming the page or host.
    pub fn validate(&self) -> Result<()> {
        if self.pages.is_empty() {
            return Err(SimError::NoPages);
        }
        if !(self.budget.is_finite() && self.budget > 0.0) {
            return Err(SimError::InvalidBudget(self.budget));
        }
        if !(self.horizon.is_finite() && self.horizon > 0.0) {
            return Err(SimError::InvalidHorizon(self.horizon));
        }
        if !(0.0..1.0).contains(&self.warmup_fraction) {
            return Err(SimError::InvalidWarmup(self.warmup_fraction));
        }
        if self.buckets == 0 {
            return Err(SimError::NoBuckets);
        }
        if !(self.capacity_window.is_finite() && self.capacity_window > 0.0) {
            return Err(SimError::InvalidHost {
                host: 0,
                name: "capacity_window",
                value: self.capacity_window,
            });
        }
        if let Some(interval) = self.notify_interval
            && !(interval.is_finite() && interval > 0.0)
        {
            return Err(SimError::InvalidNotifyInterval(interval));
        }
        for (host, h) in self.hosts.iter().enumerate() {
            if h.capacity.is_nan() || h.capacity <= 0.0 {
                return Err(SimError::InvalidHost { host, name: "capacity", value: h.capacity });
            }
            if !(h.min_delay.is_finite() && h.min_delay >= 0.0) {
                return Err(SimError::InvalidHost { host, name: "min_delay", value: h.min_delay });
            }
        }
        for (index, page) in self.pages.iter().enumerate() {
            if !(page.weight.is_finite() && page.weight > 0.0) {
                return Err(SimError::InvalidWeight { page: index, weight: page.weight });
            }
            if page.host as usize >= self.hosts.len() {
                return Err(SimError::UnknownHost { page: index, host: page.host, hosts: self.hosts.len() });
            }
            page.process.validate(index)?;
        }
        Ok(())
    }
}
