//! `freshet robots FILE --agent UA URL…`: what a robots.txt file says about some URLs, for
//! debugging a site's rules. One line per URL, `allowed<TAB>URL` or `disallowed<TAB>URL`, in
//! the order given, with the parser and matcher the crawler uses (crate `freshet-robots`).
//!
//! Every URL is checked to be an absolute http(s) URL before anything is printed, so a typo
//! gives an error and no partial answer.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context as _, bail};
use freshet_robots::{Check, MATCH_WORK_LIMIT, PARSE_LIMIT_BYTES, RobotsTxt, product_token};

/// `freshet robots --help`, first part.
pub(crate) const LONG_ABOUT: &str = "\
Check URLs against a robots.txt file, as the crawler would (RFC 9309).

Prints one line per URL, in order: `allowed<TAB>URL` or `disallowed<TAB>URL`. The rules
that apply are those of the groups naming the agent's product token (the letters, `-` and
`_` at the start of --agent, matched case-insensitively: `freshet/0.1 (+https://x)` is
`freshet`), else those of `User-agent: *`. The longest matching rule decides, `Allow`
winning ties; `*` and a final `$` are wildcards; paths are compared percent-encoding
normalised. Only the first 500 KiB of the file are read.";

/// Arguments of `freshet robots`.
#[derive(Debug, clap::Args)]
pub(crate) struct RobotsArgs {
    /// The robots.txt file.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// The crawler's User-Agent, or just its product token (e.g. freshet).
    #[arg(long, value_name = "UA")]
    agent: String,
    /// Absolute http or https URLs to check.
    #[arg(value_name = "URL", required = true)]
    urls: Vec<String>,
}

/// Runs `freshet robots`.
pub(crate) fn run(args: &RobotsArgs) -> anyhow::Result<ExitCode> {
    let token = product_token(&args.agent);
    if token.is_empty() {
        bail!(
            "--agent {:?}: does not start with a product token (letters, '-' and '_', RFC 9309 §2.2.1), \
             e.g. freshet",
            args.agent
        );
    }
    let paths = args
        .urls
        .iter()
        .map(|text| {
            let url = freshet_url::canonicalize(text).with_context(|| format!("URL {text:?}"))?;
            Ok(freshet_url::path_and_query(&url).to_owned())
        })
        .collect::<anyhow::Result<Vec<String>>>()?;
    let body = std::fs::read(&args.file)
        .with_context(|| format!("cannot read robots.txt file {}", args.file.display()))?;
    let robots = RobotsTxt::parse(&body);
    if robots.truncated() {
        eprintln!(
            "note: {} is longer than {} bytes (500 KiB); the rest was ignored (RFC 9309 §2.5)",
            args.file.display(),
            PARSE_LIMIT_BYTES
        );
    }
    let group = robots.group(token);
    let mut out = std::io::stdout().lock();
    for (text, path) in args.urls.iter().zip(&paths) {
        let verdict = match group.check(path) {
            Check::Allowed => "allowed",
            Check::Disallowed => "disallowed",
            Check::TooComplex => {
                eprintln!(
                    "note: {text}: checking it against the rules would scan more than {MATCH_WORK_LIMIT} \
                     bytes of its path; it counts as disallowed, as a crawl would count it"
                );
                "disallowed"
            }
        };
        writeln!(out, "{verdict}\t{text}").context("cannot write to standard output")?;
    }
    out.flush().context("cannot write to standard output")?;
    Ok(ExitCode::SUCCESS)
}
