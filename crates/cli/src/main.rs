//! The freshet command line: `freshet solve` computes the optimal refresh rate of every page
//! for a fetch budget (and optional per-host caps); `crawl` and `demo` come later.
//!
//! `main` only parses the arguments and turns the outcome into an exit status: 0 on success,
//! 1 when a command fails (the message, on standard error, names the file, line and field at
//! fault), 2 for a usage error. Each subcommand lives in its own module.
//! `freshet simulate` runs revisit policies on a simulated changing web (crate `freshet-sim`).
//! `freshet scenario new-host` plots seed 003's new-host scenario (crate `freshet-sim`).
//! `freshet robots` checks URLs against a robots.txt file (crates `freshet-robots`, `freshet-url`).

//! `freshet testweb` serves a synthetic web with known changes (crate `freshet-testweb`).
//! `freshet crawl` crawls from seed URLs into a data directory (crate `freshet-crawl`).
//!
//! The global allocator is mimalloc (the `mimalloc` crate, libmimalloc v2 by its `v2` feature,
//! with its `no_thp` feature): about 9% less CPU per crawled page than glibc's malloc at
//! 39-41 MiB peak RSS against glibc's 35-37 on the 20,000-page static-site bench (BENCHMARKS.md,
//! "Crawl throughput"). Both features are chosen for memory. Without `no_thp` mimalloc asks
//! the kernel for transparent huge pages on its arenas (`madvise(MADV_HUGEPAGE)`), which under
//! the common `madvise` THP setting made the same crawl's peak RSS 64-87 MiB; v3 (the crate's
//! default) holds freed memory for a second before giving it back, v2 for 10 ms, and peaked
//! 2-3 MiB higher. Both are build-time choices, so no option has to be set through the
//! environment or an FFI call (`unsafe_code` is forbidden in the workspace).

mod admin;
mod crawl;
mod crawl_settings;
mod demo;
mod focus;
mod input;
mod output;
mod plot;
mod robots;
mod scenario;
mod simulate;
mod solve;
mod summary;
mod testweb;
mod urlfrontier;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// See the crate docs: less CPU per page than glibc's malloc at comparable memory.
#[global_allocator]
static GLOBAL_ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// freshet: decides how often to refetch each page so that a local copy of the web stays fresh.
#[derive(Debug, Parser)]
#[command(name = "freshet", version, about, long_about = None, propagate_version = true)]
struct Cli {
    /// What to do.
    #[command(subcommand)]
    command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
enum Command {
    /// Optimal refresh rates for every page under a fetch budget (and optional per-host caps).
    #[command(long_about = solve::LONG_ABOUT, after_long_help = solve::AFTER_LONG_HELP)]
    Solve(solve::SolveArgs),
    /// Run revisit policies on a simulated changing web and measure the freshness each keeps.
    #[command(long_about = simulate::LONG_ABOUT, after_long_help = simulate::after_long_help())]
    Simulate(simulate::SimulateArgs),
    /// Check URLs against a robots.txt file: one `allowed` or `disallowed` line per URL.
    #[command(long_about = robots::LONG_ABOUT)]
    Robots(robots::RobotsArgs),
    /// Run a named scenario (new-host: seed 003's recrawls of a new, capped host) and plot it.
    #[command(long_about = scenario::LONG_ABOUT)]
    Scenario(scenario::ScenarioArgs),
    /// A focused crawl of a known graph (seed 002): the pages an estimator fetches, in order,
    /// with the score each brings.
    #[command(long_about = focus::LONG_ABOUT)]
    Focus(focus::FocusArgs),

    /// Serve a synthetic web on 127.0.0.1 whose every change is known (ground truth at /_truth).
    #[command(long_about = testweb::LONG_ABOUT, after_long_help = testweb::after_long_help())]
    Testweb(testweb::TestwebArgs),
    /// Crawl from seed URLs, politely, into WARC files and a crawl log (resumable).
    #[command(long_about = crawl::LONG_ABOUT, after_long_help = crawl::AFTER_LONG_HELP)]
    Crawl(Box<crawl::CrawlArgs>),
    /// Crawl a known test web with freshet's policy, uniform and Nutch side by side, and
    /// measure each one's ground-truth freshness against the optimum.
    #[command(long_about = demo::LONG_ABOUT)]
    Demo(demo::DemoArgs),
    /// The status of a running crawl (`freshet crawl --listen`): freshness, λ_0, hosts by λ_i;
    /// or, with --data DIR, what a stopped crawl's frontier holds.
    Status(admin::StatusArgs),
    /// Why a page of a running crawl is (not) being fetched: its w, λ, value and threshold; or,
    /// with --data DIR, what a stopped crawl keeps about it.
    Explain(admin::ExplainArgs),
    /// Serve the URLFrontier gRPC API on a directory of crawls, so that StormCrawler, Scrapy
    /// and other URLFrontier clients use freshet as their frontier.
    #[command(name = "urlfrontier", long_about = urlfrontier::LONG_ABOUT, after_long_help = urlfrontier::AFTER_LONG_HELP)]
    UrlFrontier(urlfrontier::UrlFrontierArgs),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            // `--help` and `--version` land here too, and are not failures.
            let _ = error.print();
            return if error.use_stderr() { ExitCode::from(2) } else { ExitCode::SUCCESS };
        }
    };
    match run(cli) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {}", error_message(&error));
            ExitCode::FAILURE
        }
    }
}

/// The error and its causes on one line, `what: why: why…`, as anyhow's `{:#}` writes it, but
/// without a cause that the message before it already quotes: the library errors write their
/// source into their own message (`frontier store: {0}`) and also name it as their source, so
/// `{:#}` said every such cause twice.
fn error_message(error: &anyhow::Error) -> String {
    let mut message = String::new();
    for cause in error.chain() {
        let text = cause.to_string();
        if message.is_empty() {
            message = text;
        } else if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
    }
    message
}

/// Raises the soft limit on open files to the hard one, as servers do: a crawl holds a socket
/// for every request in flight and every connection kept for a host's next request (about
/// the request rate × `keep-alive`), beside its store, WARC and log files, and the soft limit
/// a shell or a service starts with is often 1,024 (systemd's default), where the hard one is
/// far higher. Past the limit connections and file opens fail. A failure to raise it is not
/// fatal (the crawl runs within the limit it has) and is said on standard error.
fn raise_open_file_limit() {
    if let Err(error) = rlimit::increase_nofile_limit(u64::MAX) {
        eprintln!("note: could not raise the limit on open files: {error}");
    }
}

/// Runs the chosen subcommand.
fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Solve(args) => solve::run(&args),
        Command::Focus(args) => focus::run(&args),
        Command::UrlFrontier(args) => urlfrontier::run(&args),
        Command::Simulate(args) => simulate::run(&args),
        Command::Robots(args) => robots::run(&args),
        Command::Scenario(args) => scenario::run(&args),

        Command::Testweb(args) => {
            raise_open_file_limit();
            testweb::run(&args)
        }
        Command::Crawl(args) => {
            raise_open_file_limit();
            crawl::run(&args)
        }
        Command::Demo(args) => {
            raise_open_file_limit();
            demo::run(&args)
        }
        Command::Status(args) => admin::run_status(&args),
        Command::Explain(args) => admin::run_explain(&args),
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error;
    use std::fmt;

    use super::error_message;

    /// An error that says `what`, and `what: {source}` when it quotes its source.
    #[derive(Debug)]
    struct Layer {
        what: &'static str,
        quotes: bool,
        source: Option<Box<Layer>>,
    }

    impl fmt::Display for Layer {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match (&self.source, self.quotes) {
                (Some(source), true) => write!(f, "{}: {source}", self.what),
                _ => f.write_str(self.what),
            }
        }
    }

    impl Error for Layer {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            self.source.as_deref().map(|source| source as &(dyn Error + 'static))
        }
    }

    fn over(what: &'static str, quotes: bool, source: Layer) -> Layer {
        Layer { what, quotes, source: Some(Box::new(source)) }
    }

    const DISK: Layer = Layer { what: "disk on fire", quotes: false, source: None };

    #[test]
    fn a_cause_quoted_by_its_error_is_said_once() {
        let error = anyhow::Error::new(over("frontier store", true, DISK)).context("crawl /data");
        assert_eq!(format!("{error:#}"), "crawl /data: frontier store: disk on fire: disk on fire");
        assert_eq!(error_message(&error), "crawl /data: frontier store: disk on fire");
    }

    #[test]
    fn a_cause_not_quoted_is_appended() {
        let error = anyhow::Error::new(over("frontier store", false, DISK));
        assert_eq!(error_message(&error), "frontier store: disk on fire");
    }
}
