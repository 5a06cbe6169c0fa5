//! `freshet simulate`: run revisit policies on a simulated changing web and measure them.
//!
//! Reads pages (and hosts) as `freshet solve` does, builds a `freshet_sim::Config` (each page's
//! change process from `--changes`), runs every policy at every budget, and writes into the
//! output directory:
//!
//! * `summary.csv`: one row per (budget, policy) with the measured weighted freshness, its
//!   standard error, the fluid optimum (the `freshness` solver's value for the true mean rates
//!   and the hosts' effective caps: no policy can beat it on Poisson pages with the same
//!   budget and no notifications), their ratio, mean age, delay, changes found per fetch,
//!   fetches, fetch rate, politeness violations and the interval of the change notifications
//!   the policy heard (`--notify-interval`; empty without them, or for a policy that ignores
//!   them);
//! * `series.csv`: weighted freshness and fetches per time bucket, per run;
//! * `freshness-over-time.svg` / `.png` (at the last budget) and, with several budgets,
//!   `freshness-vs-bandwidth.svg` / `.png`.
//!
//! Every file is written to a temporary file and renamed into place, so an interrupted run
//! leaves no half-written output. Same seed, same numbers on any machine.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use freshet_policy::objective::Freshness;
use freshet_policy::{Page, Problem, solve};
use freshet_sim::{ChangeProcess, Config, Host, PolicyKind, RatesMode, RunSummary, SimPage, simulate};
use indicatif::{ProgressBar, ProgressStyle};

use crate::input::{self, HostTable, Source};
use crate::output::AtomicFile;
use crate::plot::{Chart, Series, write_chart};

/// `freshet simulate --help`, first part.
pub(crate) const LONG_ABOUT: &str = "\
Run revisit policies on a simulated changing web and measure the freshness each keeps.

Every page changes by a process with mean rate change_rate (--changes: poisson, periodic
with jitter, or bursty on/off). Each policy fetches pages under the global --budget
(fetches per unit time) and each host's capacity and minimum delay, for --horizon time
units; averages exclude the first --warmup fraction. The fluid optimum is the solver's
optimal freshness for the true mean rates: on Poisson pages no policy can beat it without
change notifications.

PAGES and HOSTS are the files of `freshet solve`; HOSTS may add a min_delay column (time
between two fetch starts on the host).

With --notify-interval S every host's pages are read every S time units (honest sitemap
lastmods): threshold is told which pages changed since its last fetch (due at once) and
which did not (fresh as of the read); the other policies ignore the reads.";

/// `freshet simulate --help`, last part: the policies, from the simulator's own list.
pub(crate) fn after_long_help() -> String {
    format!(
        "Policies: {}.\n\nOutputs in --out DIR: summary.csv (budget, policy, rates, weighted_freshness,\n\
         freshness_std_error, fluid_optimum, ratio_to_optimum, mean_age, delay,\n\
         changes_found_per_fetch, fetches, fetch_rate, politeness_violations, notify_interval),\n\
         series.csv, freshness-over-time.svg/.png and, with several budgets,\n\
         freshness-vs-bandwidth.svg/.png.\n\n\
         Example (seed 001's Fig. 1 page set):\n  \
         freshet simulate --pages crates/sim/tests/data/azar-fig1-zipf.csv --budget 1,5,10 \\\n      \
         --horizon 20000 --policy uniform,periodic-optimal,nutch-adaptive --out /tmp/fig1",
        PolicyKind::names().join(", ")
    )
}

/// The change process every page gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Changes {
    /// Poisson changes at rate `change_rate`.
    Poisson,
    /// About one change per period `1/change_rate`, each jittered (a daily news page).
    Periodic,
    /// On/off bursts with mean rate `change_rate`.
    Bursty,
}

/// Arguments of `freshet simulate`.
#[derive(Debug, clap::Args)]
pub(crate) struct SimulateArgs {
    /// Pages: CSV (or .jsonl) with id, weight, change_rate and, with --hosts, host.
    #[arg(long, value_name = "PAGES")]
    pages: PathBuf,
    /// Hosts: CSV with host, capacity and optionally min_delay.
    #[arg(long, value_name = "HOSTS")]
    hosts: Option<PathBuf>,
    /// Fetches per unit time; several, comma-separated, sweep the bandwidth.
    #[arg(long, value_name = "R[,R...]", value_delimiter = ',', required = true)]
    budget: Vec<f64>,
    /// Simulated time, in the unit of change_rate.
    #[arg(long, value_name = "T")]
    horizon: f64,
    /// Policies, comma-separated (see the list below).
    #[arg(long, value_name = "A,B,...", value_delimiter = ',', required = true)]
    policy: Vec<String>,
    /// Where policies get change rates: the true ones, or only what they observe.
    #[arg(long, value_name = "known|learned", default_value = "known")]
    rates: String,
    /// How pages change.
    #[arg(long, value_enum, default_value = "poisson")]
    changes: Changes,
    /// Jitter of periodic pages, as a fraction of the period.
    #[arg(long, default_value_t = 0.2)]
    jitter: f64,
    /// Bursty pages: mean on and off periods, in units of the page's mean change interval.
    #[arg(long, value_name = "ON,OFF", value_delimiter = ',', num_args = 2, default_values_t = [1.0, 3.0])]
    burst: Vec<f64>,
    /// Learned rates, `threshold` only: first fetch every page about K times at intervals
    /// chosen to tell its change rate (an exploration phase under the budget and politeness,
    /// ending at the latest when the budget has paid for K fetches per page), then hand over.
    #[arg(long, value_name = "K", default_value_t = 0)]
    explore: u32,
    /// Change notifications: read every host's pages every S time units and tell `threshold`
    /// which changed since its last fetch (the other policies ignore them; not with --explore).
    #[arg(long, value_name = "S")]
    notify_interval: Option<f64>,
    /// Pages report Last-Modified (learned rates then use the Last-Modified estimator).
    #[arg(long)]
    last_modified: bool,
    /// Fraction of the horizon excluded from the averages.
    #[arg(long, default_value_t = 0.2)]
    warmup: f64,
    /// Buckets of the time series.
    #[arg(long, default_value_t = 100)]
    buckets: usize,
    /// Random seed: same seed, same numbers.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output directory (created if missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

/// One finished run.
struct Run {
    budget: f64,
    optimum: f64,
    /// The interval of the change notifications the policy heard, if any.
    notified: Option<f64>,
    summary: RunSummary,
}

/// Runs `freshet simulate`.
pub(crate) fn run(args: &SimulateArgs) -> anyhow::Result<std::process::ExitCode> {
    let policies = args
        .policy
        .iter()
        .map(|name| {
            name.parse::<PolicyKind>().map_err(|_| {
                anyhow::anyhow!(
                    "--policy: unknown policy {name:?}; known: {}",
                    PolicyKind::names().join(", ")
                )
            })
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let rates: RatesMode = args
        .rates
        .parse()
        .map_err(|_| anyhow::anyhow!("--rates: expected known or learned, got {:?}", args.rates))?;
    if args.explore > 0 && rates == RatesMode::Known {
        bail!("--explore: an exploration phase learns change rates; it needs --rates learned");
    }
    if args.explore > 0 && policies.iter().any(|&policy| policy != PolicyKind::Threshold) {
        bail!("--explore: only `threshold` has an exploration phase; run the other policies without it");
    }
    for &budget in &args.budget {
        if !(budget.is_finite() && budget > 0.0) {
            bail!("--budget: every budget must be a positive number of fetches per unit time, got {budget}");
        }
    }
    if let Some(interval) = args.notify_interval {
        if !(interval.is_finite() && interval > 0.0) {
            bail!("--notify-interval: must be a positive time, got {interval}");
        }
        if args.explore > 0 {
            bail!("--notify-interval: notifications are not simulated with an exploration phase (--explore)");
        }
    }
    if !(args.horizon.is_finite() && args.horizon > 0.0) {
        bail!("--horizon: must be a positive time, got {}", args.horizon);
    }
    let hosts = args.hosts.as_deref().map(|path| HostTable::read(&Source::from_arg(path))).transpose()?;
    let table = input::read_pages(&Source::from_arg(&args.pages), hosts.as_ref())?;
    let base = build_config(args, &table, hosts.as_ref())?;
    std::fs::create_dir_all(&args.out).with_context(|| format!("creating {}", args.out.display()))?;

    let progress = ProgressBar::new((args.budget.len() * policies.len()) as u64);
    progress.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} runs, {elapsed} elapsed, {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut runs = Vec::new();
    for &budget in &args.budget {
        let mut config = base.clone();
        config.budget = budget;
        let optimum = fluid_optimum(&config).context("computing the fluid optimum")?;
        for &policy in &policies {
            progress.set_message(format!("{policy} at budget {budget}"));
            let summary = simulate(&config, policy, rates, args.seed)
                .with_context(|| format!("simulating {policy} at budget {budget}"))?;
            let notified = config.notify_interval.filter(|_| policy.listens());
            runs.push(Run { budget, optimum, notified, summary });
            progress.inc(1);
        }
    }
    progress.finish_and_clear();
    write_summary(&args.out.join("summary.csv"), &runs)?;
    write_series(&args.out.join("series.csv"), &runs)?;
    write_charts(&args.out, &runs, &args.budget)?;
    for run in &runs {
        let s = &run.summary;
        eprintln!(
            "budget {:>8}  {:<26} freshness {:.4} ± {:.4} ({:.1}% of optimum {:.4}), violations {}",
            run.budget,
            format!("{} ({})", s.policy, s.rates),
            s.weighted_freshness,
            2.0 * s.freshness_std_error,
            100.0 * s.weighted_freshness / run.optimum,
            run.optimum,
            s.violations.total()
        );
    }
    eprintln!("wrote {}/summary.csv, series.csv and plots", args.out.display());
    Ok(std::process::ExitCode::SUCCESS)
}

/// The simulation's pages and hosts from the input tables.
fn build_config(
    args: &SimulateArgs,
    table: &input::PageTable,
    hosts: Option<&HostTable>,
) -> anyhow::Result<Config> {
    let (burst_on, burst_off) = match args.burst.as_slice() {
        [on, off] if *on > 0.0 && *off > 0.0 => (*on, *off),
        _ => bail!("--burst: expected two positive numbers ON,OFF"),
    };
    let pages = table
        .pages
        .iter()
        .enumerate()
        .map(|(index, page)| {
            let rate = page.change_rate;
            let process = match args.changes {
                Changes::Poisson => ChangeProcess::Poisson { rate },
                Changes::Periodic => ChangeProcess::Periodic { rate, jitter: args.jitter },
                Changes::Bursty => {
                    ChangeProcess::Bursty { rate, mean_on: burst_on / rate, mean_off: burst_off / rate }
                }
            };
            let host = table.host_of_page.get(index).copied().unwrap_or(0);
            SimPage { host, weight: page.weight, process, last_modified: args.last_modified }
        })
        .collect();
    let mut config = Config::new(pages, args.budget.first().copied().unwrap_or(1.0), args.horizon);
    if let Some(hosts) = hosts {
        config.hosts = hosts
            .capacity
            .iter()
            .zip(&hosts.min_delay)
            .map(|(&capacity, &min_delay)| Host { capacity, min_delay })
            .collect();
    }
    config.warmup_fraction = args.warmup;
    config.explore_fetches = args.explore;
    config.notify_interval = args.notify_interval;
    config.buckets = args.buckets;
    config.validate().context("invalid simulation")?;
    Ok(config)
}

/// The solver's optimal weighted freshness (`Σ w·F / Σ w`) for the true mean rates, with each
/// host capped at its effective capacity `min(capacity, 1/min_delay)`.
fn fluid_optimum(config: &Config) -> anyhow::Result<f64> {
    let pages: Vec<Page> =
        config.pages.iter().map(|page| Page::new(page.weight, page.process.mean_rate())).collect();
    let host_of_page: Vec<u32> = config.pages.iter().map(|page| page.host).collect();
    let capacity: Vec<f64> = config.hosts.iter().map(Host::effective_capacity).collect();
    let problem = Problem::host_capped(&pages, config.budget, &host_of_page, &capacity);
    let solution = solve(Freshness, &problem)?;
    let total_weight: f64 = pages.iter().map(|page| page.weight).sum();
    let value: f64 =
        pages.iter().zip(&solution.rates).map(|(&page, &rate)| Freshness.value(page, rate)).sum();
    Ok(value / total_weight)
}

use freshet_policy::Objective as _;

fn write_summary(path: &Path, runs: &[Run]) -> anyhow::Result<()> {
    let mut file = AtomicFile::create(path)?;
    let writer = file.writer();
    writeln!(
        writer,
        "budget,policy,rates,weighted_freshness,freshness_std_error,fluid_optimum,ratio_to_optimum,mean_age,delay,changes_found_per_fetch,fetches,fetch_rate,politeness_violations,notify_interval"
    )?;
    for run in runs {
        let s = &run.summary;
        writeln!(
            writer,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            run.budget,
            s.policy,
            s.rates,
            s.weighted_freshness,
            s.freshness_std_error,
            run.optimum,
            s.weighted_freshness / run.optimum,
            s.mean_age,
            s.delay,
            s.changes_found_per_fetch,
            s.fetches,
            s.fetch_rate,
            s.violations.total(),
            run.notified.map(|interval| interval.to_string()).unwrap_or_default()
        )?;
    }
    file.commit()
}

fn write_series(path: &Path, runs: &[Run]) -> anyhow::Result<()> {
    let mut file = AtomicFile::create(path)?;
    let writer = file.writer();
    writeln!(writer, "budget,policy,rates,start,end,weighted_freshness,fetches")?;
    for run in runs {
        let s = &run.summary;
        for point in &s.series {
            writeln!(
                writer,
                "{},{},{},{},{},{},{}",
                run.budget,
                s.policy,
                s.rates,
                point.start,
                point.end,
                point.weighted_freshness,
                point.fetches
            )?;
        }
    }
    file.commit()
}

fn write_charts(directory: &Path, runs: &[Run], budgets: &[f64]) -> anyhow::Result<()> {
    let last_budget = budgets.last().copied().unwrap_or(0.0);
    let at_last: Vec<&Run> = runs.iter().filter(|run| run.budget == last_budget).collect();
    let over_time = Chart {
        title: format!("Weighted freshness over time (budget {last_budget})"),
        x_label: "time".to_owned(),
        y_label: "weighted freshness".to_owned(),
        series: at_last
            .iter()
            .map(|run| Series {
                name: format!("{} ({})", run.summary.policy, run.summary.rates),
                points: run
                    .summary
                    .series
                    .iter()
                    .map(|point| (0.5 * (point.start + point.end), point.weighted_freshness))
                    .collect(),
            })
            .collect(),
        references: at_last
            .first()
            .map(|run| ("fluid optimum".to_owned(), run.optimum))
            .into_iter()
            .collect(),
    };
    write_chart(
        &over_time,
        &directory.join("freshness-over-time.svg"),
        &directory.join("freshness-over-time.png"),
    )?;
    if budgets.len() < 2 {
        return Ok(());
    }
    let mut names: Vec<String> = Vec::new();
    for run in runs {
        if !names.contains(&run.summary.policy) {
            names.push(run.summary.policy.clone());
        }
    }
    let mut series: Vec<Series> = names
        .iter()
        .map(|name| Series {
            name: name.clone(),
            points: runs
                .iter()
                .filter(|run| &run.summary.policy == name)
                .map(|run| (run.budget, run.summary.weighted_freshness))
                .collect(),
        })
        .collect();
    let mut optimum: Vec<(f64, f64)> = Vec::new();
    for run in runs {
        if !optimum.iter().any(|&(budget, _)| budget == run.budget) {
            optimum.push((run.budget, run.optimum));
        }
    }
    series.push(Series { name: "fluid optimum".to_owned(), points: optimum });
    let chart = Chart {
        title: "Weighted freshness against bandwidth".to_owned(),
        x_label: "budget (fetches per unit time)".to_owned(),
        y_label: "weighted freshness".to_owned(),
        series,
        references: Vec::new(),
    };
    write_chart(
        &chart,
        &directory.join("freshness-vs-bandwidth.svg"),
        &directory.join("freshness-vs-bandwidth.png"),
    )
}
