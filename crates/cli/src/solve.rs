//! `freshet solve`: read pages (and host caps), solve for the optimal refresh rates, certify
//! them, and write `id,rate,interval` plus an optional JSON summary.
//!
//! Order of work, so that a bad input never leaves an output behind: check that the output
//! paths can be written, read and validate every input, solve, then write the outputs to
//! temporary files beside their targets and rename them into place only when all succeeded.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context as _;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser as _};
use freshet_policy::{ObjectiveKind, PolicyError, Problem, certify, solve, with_objective};

use crate::input::{self, HostTable, PageTable, Source, input_error};
use crate::output::{self, AtomicFile};
use crate::summary::{Outcome, Sizes, Summary};

/// `freshet solve --help`, first part.
pub(crate) const LONG_ABOUT: &str = "\
Optimal refresh rates for every page under a fetch budget (and optional per-host caps).

Each page has a weight w (how much it matters: request rate, PageRank, ...) and a change
rate λ (changes per unit time, estimated by the crawler). Given a budget R of fetches per
unit time, freshet finds the rate f of every page that maximises the objective (by default
the weighted time-average freshness Σ w·(f/λ)(1 − e^(−λ/f)) of Cho & Garcia-Molina),
exactly, and checks the answer (KKT conditions and duality gap).

Units: pick one unit of time (a day, a second) for change_rate, --budget and the host
capacities. Output rates are fetches per that unit; intervals are in that unit.

PAGES: CSV whose header holds id, weight, change_rate and, with --hosts, host (any order,
other columns ignored); or JSON lines when the name ends in .jsonl, one object per line
with the same fields (id and host may be strings or numbers). `-` reads CSV from standard
input. weight > 0; change_rate > 0 (for freshness-discrete, the probability of a change
per time slot, in (0, 1)). Ids must be unique and non-empty.

HOSTS: CSV with a header holding host and capacity: the most fetches per unit time the
host allows (`inf` for no cap). With --hosts every page's host must be listed; hosts
without pages are fine. Without --hosts a host column in PAGES is ignored.";

/// `freshet solve --help`, last part.
pub(crate) const AFTER_LONG_HELP: &str = "\
Output (to --out FILE or standard output), one row per page, in input order:
  id,rate,interval
where rate is fetches per unit time and interval = 1/rate, empty for a page not worth
fetching (rate 0). A one-line summary goes to standard error.

--summary-json writes: objective, value (for age and delay the minimised cost, positive;
value_kind says which), weight_total, budget, budget_used, lambda0, hosts_capped,
pages_not_fetched, kkt_residual, duality_gap (relative), duality_gap_absolute, passes,
seconds (solve), seconds_total, pages, hosts, id_bytes, peak_rss_bytes.

Exit status: 0 on success; 1 when an input is invalid (the message names the file, the
line, counting the CSV header as line 1, and the field) or an output cannot be written;
2 for a usage error. On failure no output file is created and an existing one is left
untouched.

Examples (Cho & Garcia-Molina's five pages, λ = 1..5 changes/day, 5 fetches/day):
  freshet solve examples/cho-5-elements.csv --budget 5
  freshet solve pages.csv --hosts hosts.csv --budget 1e6 --out rates.csv --summary-json run.json";

/// Arguments of `freshet solve`.
#[derive(Debug, clap::Args)]
pub(crate) struct SolveArgs {
    /// Pages CSV (`id,weight,change_rate[,host]`) or .jsonl; `-` for standard input.
    #[arg(value_name = "PAGES")]
    pages: PathBuf,

    /// Per-host caps: CSV host,capacity (fetches per unit time; `inf` for no cap).
    #[arg(long, value_name = "HOSTS")]
    hosts: Option<PathBuf>,

    /// Total fetches per unit time (the unit of change_rate), a positive number.
    #[arg(long, value_name = "R", value_parser = parse_budget, allow_negative_numbers = true)]
    budget: f64,

    /// What to optimise. Rates use the unit of change_rate.
    #[arg(long, value_name = "NAME", default_value = "freshness", value_parser = objective_parser())]
    objective: ObjectiveKind,

    /// Write the rates CSV here instead of standard output (only if the run succeeds).
    #[arg(long, short = 'o', value_name = "FILE")]
    out: Option<PathBuf>,

    /// Write a JSON summary of the run here (only if the run succeeds).
    #[arg(long, value_name = "FILE")]
    summary_json: Option<PathBuf>,
}

/// The `--objective` parser: the names of [`ObjectiveKind`], each with a one-line meaning.
fn objective_parser() -> impl clap::builder::TypedValueParser<Value = ObjectiveKind> {
    let values = ObjectiveKind::ALL.map(|kind| PossibleValue::new(kind.name()).help(objective_help(kind)));
    PossibleValuesParser::new(values).try_map(|name| name.parse::<ObjectiveKind>())
}

/// One line on each objective for `--help`.
fn objective_help(kind: ObjectiveKind) -> &'static str {
    match kind {
        ObjectiveKind::Freshness => {
            "time-average freshness, pages fetched at regular intervals (Cho & Garcia-Molina)"
        }
        ObjectiveKind::FreshnessPoisson => "freshness with Poisson fetch times: w·f/(f + λ) (Azar et al.)",
        ObjectiveKind::FreshnessDiscrete => {
            "freshness in time slots; change_rate is a change probability per slot, rates ≤ 1"
        }
        ObjectiveKind::Changes => "changes caught per unit time: w·f·(1 − e^(−λ/f))",
        ObjectiveKind::Age => "minimise weighted age, time since the copy went stale (regular intervals)",
        ObjectiveKind::Delay => "minimise weighted delay until a change is seen: w·λ/(2f)",
    }
}

/// A budget: a positive finite number.
fn parse_budget(text: &str) -> Result<f64, String> {
    let value: f64 = text.trim().parse().map_err(|_| format!("{text:?} is not a number"))?;
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(format!("the budget must be a positive finite number of fetches per unit time, got {text}"))
    }
}

/// Runs `freshet solve`.
pub(crate) fn run(args: &SolveArgs) -> anyhow::Result<std::process::ExitCode> {
    let started = Instant::now();
    if let Some(out) = &args.out {
        output::check_target(out, "--out")?;
    }
    if let Some(summary) = &args.summary_json {
        output::check_target(summary, "--summary-json")?;
    }
    let hosts = match &args.hosts {
        Some(path) => Some(HostTable::read(&Source::File(path.clone()))?),
        None => None,
    };
    let table = input::read_pages(&Source::from_arg(&args.pages), hosts.as_ref())?;
    let problem = match &hosts {
        Some(hosts) => Problem::host_capped(&table.pages, args.budget, &table.host_of_page, &hosts.capacity),
        None => Problem::budgeted(&table.pages, args.budget),
    };
    let solve_started = Instant::now();
    let solved = with_objective!(args.objective, |objective| {
        solve(objective, &problem).map(|solution| {
            let seconds = solve_started.elapsed().as_secs_f64();
            let certificate = certify(objective, &problem, &solution);
            (solution, certificate, seconds)
        })
    });
    let (solution, certificate, seconds) =
        solved.map_err(|error| policy_error(error, args.objective, &table, hosts.as_ref()))?;

    let mut out = match &args.out {
        Some(path) => {
            let mut file = AtomicFile::create(path)?;
            output::write_rates(file.writer(), &table.ids, &solution.rates)
                .with_context(|| format!("{}: cannot write", path.display()))?;
            Some(file)
        }
        None => {
            output::write_rates(output::stdout(), &table.ids, &solution.rates)
                .context("cannot write to standard output")?;
            None
        }
    };
    let outcome = Outcome {
        kind: args.objective,
        solution: &solution,
        certificate: &certificate,
        budget: args.budget,
        seconds,
    };
    let sizes = Sizes {
        pages: table.len(),
        hosts: hosts.as_ref().map_or(0, HostTable::len),
        id_bytes: table.ids.id_bytes(),
        weight_total: table.pages.iter().map(|page| page.weight).sum(),
    };
    let mut summary = Summary::new(&outcome, sizes);
    summary.finish(started.elapsed().as_secs_f64());
    let summary_file = match &args.summary_json {
        Some(path) => {
            let mut file = AtomicFile::create(path)?;
            serde_json::to_writer_pretty(file.writer(), &summary)
                .with_context(|| format!("{}: cannot write", path.display()))?;
            Some(file)
        }
        None => None,
    };
    if let Some(file) = out.take() {
        file.commit()?;
    }
    if let Some(file) = summary_file {
        file.commit()?;
    }
    eprintln!("{}", summary.human_line());
    Ok(std::process::ExitCode::SUCCESS)
}

/// A solver error, located in the input files where it names a page or a host.
fn policy_error(
    error: PolicyError,
    kind: ObjectiveKind,
    table: &PageTable,
    hosts: Option<&HostTable>,
) -> anyhow::Error {
    let file = table.file.as_str();
    match error {
        PolicyError::InvalidWeight { page, weight } => input_error(
            file,
            table.line(page),
            Some("weight"),
            format!("must be a positive finite number, got {weight}"),
        ),
        PolicyError::InvalidChangeRate { page, change_rate, expected } => input_error(
            file,
            table.line(page),
            Some("change_rate"),
            format!("objective {kind} needs {expected}, got {change_rate}"),
        ),
        PolicyError::UnknownHost { page, .. } => {
            input_error(file, table.line(page), Some("host"), "the host has no capacity")
        }
        PolicyError::InvalidCapacity { host, capacity } => match hosts {
            Some(hosts) => input_error(
                hosts.file(),
                hosts.line(host),
                Some("capacity"),
                format!("must be positive, got {capacity}"),
            ),
            None => anyhow::Error::new(error),
        },
        PolicyError::InvalidBudget { budget } => {
            anyhow::anyhow!(
                "--budget: must be a positive finite number of fetches per unit time, got {budget}"
            )
        }
        other => anyhow::Error::new(other),
    }
}
