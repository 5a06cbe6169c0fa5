//! `freshet scenario new-host`: seed 003's new-host scenario (crate `freshet-sim`, module
//! `scenario`), written as a CSV and two charts a reader understands at a glance.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, bail};
use freshet_sim::scenario::{NewHost, NewHostRun};

use crate::output::AtomicFile;
use crate::plot::{Chart, Series, write_chart};

/// `freshet scenario --help`, first part.
pub(crate) const LONG_ABOUT: &str = "\
Run a named scenario and write its series and plots.

new-host (seed 003): a new host with many alike pages has just been crawled and is now capped;
an established host competes for the global budget. Compares the threshold scheduler with the
solver's intervals executed as a crawler would (each page one period after its last fetch) and
with the solver's rates on the carousel. Writes DIR/new-host.csv (per time bucket: the new
host's fetches and expected freshness, per policy), DIR/new-host-summary.csv, and the charts
DIR/new-host-fetches.{svg,png} and DIR/new-host-freshness.{svg,png}.";

/// Arguments of `freshet scenario`.
#[derive(Debug, clap::Args)]
pub(crate) struct ScenarioArgs {
    /// The scenario: new-host.
    #[arg(value_name = "NAME")]
    name: String,
    /// Pages of the new host.
    #[arg(long, default_value_t = NewHost::default().new_pages)]
    new_pages: usize,
    /// Pages of the established host.
    #[arg(long, default_value_t = NewHost::default().established_pages)]
    established_pages: usize,
    /// The new host's cap after its first crawl (fetches per unit time).
    #[arg(long, default_value_t = NewHost::default().cap)]
    cap: f64,
    /// Global budget (fetches per unit time).
    #[arg(long, default_value_t = NewHost::default().budget)]
    budget: f64,
    /// Simulated time after the first crawl.
    #[arg(long, default_value_t = NewHost::default().horizon)]
    horizon: f64,
    /// Seed of the pages and changes.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output directory (created if missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

/// Runs `freshet scenario`.
pub(crate) fn run(args: &ScenarioArgs) -> anyhow::Result<ExitCode> {
    if args.name != "new-host" {
        bail!("unknown scenario {:?} (known: new-host)", args.name);
    }
    let scenario = NewHost {
        new_pages: args.new_pages,
        established_pages: args.established_pages,
        cap: args.cap,
        budget: args.budget,
        horizon: args.horizon,
        seed: args.seed,
        ..NewHost::default()
    };
    let runs = scenario.run().context("running the new-host scenario")?;
    std::fs::create_dir_all(&args.out).with_context(|| format!("creating {}", args.out.display()))?;
    write_series(&args.out.join("new-host.csv"), &scenario, &runs)?;
    write_summary(&args.out.join("new-host-summary.csv"), &runs)?;
    write_charts(&args.out, &scenario, &runs)?;
    for run in &runs {
        eprintln!(
            "{:<22} first recrawl {:>8}, new host freshness {:.4}, all pages {:.4}, violations {}",
            run.policy,
            run.first_recrawl.map_or("none".to_owned(), |time| format!("{time:.2}")),
            run.new_host_mean_freshness,
            run.summary.weighted_freshness,
            run.summary.violations.total()
        );
    }
    eprintln!("wrote {}/new-host.csv, new-host-summary.csv and plots", args.out.display());
    Ok(ExitCode::SUCCESS)
}

fn write_series(path: &Path, scenario: &NewHost, runs: &[NewHostRun]) -> anyhow::Result<()> {
    let mut file = AtomicFile::create(path)?;
    let writer = file.writer();
    let io = |error| anyhow::Error::new(error).context(format!("{}: cannot write", path.display()));
    writeln!(writer, "policy,start,end,new_host_fetches,new_host_freshness").map_err(io)?;
    for run in runs {
        for (index, (fetches, freshness)) in
            run.new_host_fetches.iter().zip(&run.new_host_freshness).enumerate()
        {
            let start = index as f64 * scenario.bucket;
            let end = (start + scenario.bucket).min(scenario.horizon);
            writeln!(writer, "{},{start},{end},{fetches},{freshness}", run.policy).map_err(io)?;
        }
    }
    file.commit()
}

fn write_summary(path: &Path, runs: &[NewHostRun]) -> anyhow::Result<()> {
    let mut file = AtomicFile::create(path)?;
    let writer = file.writer();
    let io = |error| anyhow::Error::new(error).context(format!("{}: cannot write", path.display()));
    writeln!(
        writer,
        "policy,first_recrawl,new_host_freshness,weighted_freshness,fetches,fetch_rate,politeness_violations"
    )
    .map_err(io)?;
    for run in runs {
        let first = run.first_recrawl.map_or(String::new(), |time| time.to_string());
        let s = &run.summary;
        writeln!(
            writer,
            "{},{first},{},{},{},{},{}",
            run.policy,
            run.new_host_mean_freshness,
            s.weighted_freshness,
            s.fetches,
            s.fetch_rate,
            s.violations.total()
        )
        .map_err(io)?;
    }
    file.commit()
}

fn write_charts(directory: &Path, scenario: &NewHost, runs: &[NewHostRun]) -> anyhow::Result<()> {
    let middle = |index: usize| (index as f64 + 0.5) * scenario.bucket;
    let fetches = Chart {
        title: format!(
            "New host ({} pages, cap {}/unit): recrawls per unit time",
            scenario.new_pages, scenario.cap
        ),
        x_label: "time since the first crawl".to_owned(),
        y_label: "fetches of the new host per unit time".to_owned(),
        series: runs
            .iter()
            .map(|run| Series {
                name: run.policy.clone(),
                points: run
                    .new_host_fetches
                    .iter()
                    .enumerate()
                    .map(|(index, &count)| (middle(index), count as f64 / scenario.bucket))
                    .collect(),
            })
            .collect(),
        references: vec![("host cap".to_owned(), scenario.cap)],
    };
    write_chart(&fetches, &directory.join("new-host-fetches.svg"), &directory.join("new-host-fetches.png"))?;
    let freshness = Chart {
        title: "New host: expected freshness of its pages".to_owned(),
        x_label: "time since the first crawl".to_owned(),
        y_label: "mean freshness of the new host".to_owned(),
        series: runs
            .iter()
            .map(|run| Series {
                name: run.policy.clone(),
                points: run
                    .new_host_freshness
                    .iter()
                    .enumerate()
                    .map(|(index, &value)| (middle(index), value))
                    .collect(),
            })
            .collect(),
        references: Vec::new(),
    };
    write_chart(
        &freshness,
        &directory.join("new-host-freshness.svg"),
        &directory.join("new-host-freshness.png"),
    )
}
