//! The run summary: a JSON object for `--summary-json` and one human line for standard error.

use freshet_policy::{Certificate, ObjectiveKind, Solution};
use serde::Serialize;

/// What a solve produced and what it cost. Field by field, in the JSON:
///
/// * `objective`: the objective's name.
/// * `value`: the objective at the solution, **positive in the objective's own terms**: for the
///   freshness objectives and `changes` the maximised `Σ w·C(f)`; for the cost objectives `age`
///   and `delay` the minimised cost `Σ w·cost(f)` (the solver maximises its negative).
///   `value_kind` says which, in words; `value / weight_total` is the weighted mean.
/// * `budget`, `budget_used`: the global budget `k_0` and `Σ f` (fetches per unit time).
/// * `lambda0`: the budget's multiplier `λ_0`, the marginal value of one more fetch.
/// * `hosts_capped`: hosts whose cap binds (`λ_i > 0`); `pages_not_fetched`: pages at rate 0.
/// * `kkt_residual`: the certificate's largest KKT violation (relative).
/// * `duality_gap`: the certificate's relative duality gap; `duality_gap_absolute` too.
/// * `passes`: solver work in passes over the pages.
/// * `seconds`: the solve alone; `seconds_total`: the whole run up to the summary, reading and
///   writing included.
/// * `pages`, `hosts`: input sizes (`hosts` is 0 without `--hosts`); `id_bytes`: the bytes of
///   all ids together (memory is about 36 bytes per page plus these, see `input`).
/// * `peak_rss_bytes`: the process's peak resident memory (`VmHWM`), `null` where unknown.
#[derive(Debug, Serialize)]
pub(crate) struct Summary {
    /// The objective's name.
    pub(crate) objective: &'static str,
    /// The objective's value, positive in its own terms (see the type's docs).
    pub(crate) value: f64,
    /// What `value` is, in words.
    pub(crate) value_kind: &'static str,
    /// `Σ w` over all pages.
    pub(crate) weight_total: f64,
    /// The global budget `k_0`.
    pub(crate) budget: f64,
    /// `Σ f`.
    pub(crate) budget_used: f64,
    /// `λ_0`.
    pub(crate) lambda0: f64,
    /// Hosts whose cap binds.
    pub(crate) hosts_capped: usize,
    /// Pages with rate 0.
    pub(crate) pages_not_fetched: usize,
    /// The largest KKT violation.
    pub(crate) kkt_residual: f64,
    /// The relative duality gap.
    pub(crate) duality_gap: f64,
    /// The absolute duality gap.
    pub(crate) duality_gap_absolute: f64,
    /// Solver work, in passes over the pages.
    pub(crate) passes: f64,
    /// Seconds spent solving.
    pub(crate) seconds: f64,
    /// Seconds for the whole run.
    pub(crate) seconds_total: f64,
    /// Number of pages.
    pub(crate) pages: usize,
    /// Number of hosts (0 without `--hosts`).
    pub(crate) hosts: usize,
    /// Bytes of all ids together.
    pub(crate) id_bytes: usize,
    /// Peak resident memory in bytes, if known.
    pub(crate) peak_rss_bytes: Option<u64>,
}

/// The parts of a [`Summary`] the solver produced.
pub(crate) struct Outcome<'a> {
    /// The objective solved.
    pub(crate) kind: ObjectiveKind,
    /// The solution.
    pub(crate) solution: &'a Solution,
    /// Its certificate.
    pub(crate) certificate: &'a Certificate,
    /// The budget given.
    pub(crate) budget: f64,
    /// Seconds spent in `solve`.
    pub(crate) seconds: f64,
}

/// The sizes of the input.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sizes {
    /// Number of pages.
    pub(crate) pages: usize,
    /// Number of hosts (0 without `--hosts`).
    pub(crate) hosts: usize,
    /// Bytes of all ids together.
    pub(crate) id_bytes: usize,
    /// `Σ w`.
    pub(crate) weight_total: f64,
}

impl Summary {
    /// Assembles the summary; `seconds_total` and `peak_rss_bytes` are filled by
    /// [`Summary::finish`].
    pub(crate) fn new(outcome: &Outcome<'_>, sizes: Sizes) -> Self {
        let Outcome { kind, solution, certificate, budget, seconds } = *outcome;
        let value = if kind.is_cost() { -certificate.value } else { certificate.value };
        Self {
            objective: kind.name(),
            value,
            value_kind: value_kind(kind),
            weight_total: sizes.weight_total,
            budget,
            budget_used: solution.budget_used,
            lambda0: solution.lambda0,
            hosts_capped: solution.hosts_capped(),
            pages_not_fetched: solution.pages_not_fetched(),
            kkt_residual: certificate.max_kkt_violation,
            duality_gap: certificate.relative_duality_gap,
            duality_gap_absolute: certificate.duality_gap,
            passes: solution.passes,
            seconds,
            seconds_total: 0.0,
            pages: sizes.pages,
            hosts: sizes.hosts,
            id_bytes: sizes.id_bytes,
            peak_rss_bytes: None,
        }
    }

    /// Records the total time and the peak memory so far.
    pub(crate) fn finish(&mut self, seconds_total: f64) {
        self.seconds_total = seconds_total;
        self.peak_rss_bytes = peak_rss_bytes();
    }

    /// One line for people.
    pub(crate) fn human_line(&self) -> String {
        let memory = match self.peak_rss_bytes {
            Some(bytes) => format!(", peak memory {:.1} MiB", bytes as f64 / f64::from(1 << 20)),
            None => String::new(),
        };
        format!(
            "freshet: {} pages, {} {:.6} ({}), budget {} used {:.9}, lambda0 {:.6e}, {} not fetched, \
             {} of {} hosts capped, KKT {:.1e}, gap {:.1e}, solve {:.3} s of {:.3} s{memory}",
            self.pages,
            self.objective,
            self.value,
            self.value_kind,
            self.budget,
            self.budget_used,
            self.lambda0,
            self.pages_not_fetched,
            self.hosts_capped,
            self.hosts,
            self.kkt_residual,
            self.duality_gap,
            self.seconds,
            self.seconds_total,
        )
    }
}

/// What `value` means for each objective.
fn value_kind(kind: ObjectiveKind) -> &'static str {
    match kind {
        ObjectiveKind::Freshness | ObjectiveKind::FreshnessPoisson | ObjectiveKind::FreshnessDiscrete => {
            "maximised weighted freshness"
        }
        ObjectiveKind::Changes => "maximised weighted changes caught per unit time",
        ObjectiveKind::Age => "minimised cost: weighted age",
        ObjectiveKind::Delay => "minimised cost: weighted delay",
    }
}

/// The peak resident set size (`VmHWM` of `/proc/self/status`), on Linux.
fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find_map(|line| line.strip_prefix("VmHWM:"))?;
    let kib: u64 = line.trim().strip_suffix("kB")?.trim().parse().ok()?;
    Some(kib * 1024)
}
