//! `freshet testweb`: serve the synthetic web of `freshet-testweb` on 127.0.0.1 until Ctrl-C.
//!
//! Prints the bound address first (`listening on 127.0.0.1:PORT`, so scripts can use
//! `--port 0`), then how to reach the hosts, the truth and the log.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use freshet_testweb::{
    Misbehaviour, MisbehaviourSettings, ServerConfig, SitemapLastmod, SystemClock, TestWeb, WebConfig,
};

/// `freshet testweb --help`, first part.
pub(crate) const LONG_ABOUT: &str = "\
Serve a synthetic web on 127.0.0.1 whose every change is known.

N hosts h0.web.test … h{N-1}.web.test share one port (virtual hosts by the Host header; point
the names at 127.0.0.1, e.g. curl --resolve or a crawler's --resolve). M pages link each other
in a power-law graph; each page changes by a Poisson, periodic or bursty process whose times
are fixed by the seed. Model time is in days; --time-scale days pass per wall second from the
server's start. Pages carry ETag and Last-Modified and answer conditional GETs with 304; every
host serves robots.txt (disallowing /private/) and a sitemap.";

/// `freshet testweb --help`, last part.
pub(crate) fn after_long_help() -> String {
    format!(
        "Ground truth (any host): /_truth/clock, /_truth/pages, /_truth/page?url=URL[&until=T],\n\
         /_truth/changes[?until=T] (JSON lines); the server's request log: /_log[?since=N].\n\n\
         Misbehaving hosts, each at KIND.web.test and linked from h0.web.test/: {}, or all.\n\n\
         Example:\n  freshet testweb --port 8080 --hosts 20 --pages 5000 --time-scale 60 --misbehave slow,calendar\n  \
         curl --resolve h0.web.test:8080:127.0.0.1 http://h0.web.test:8080/",
        Misbehaviour::ALL.map(Misbehaviour::name).join(", ")
    )
}

/// Arguments of `freshet testweb`.
#[derive(Debug, clap::Args)]
pub(crate) struct TestwebArgs {
    /// Port on 127.0.0.1; 0 picks a free one (printed).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// Number of hosts.
    #[arg(long, default_value_t = 10)]
    hosts: u32,
    /// Number of pages (at least one per host).
    #[arg(long, default_value_t = 1000)]
    pages: u32,
    /// Model days per wall second.
    #[arg(long, value_name = "X", default_value_t = 1.0)]
    time_scale: f64,
    /// Seed of the web: same seed, same web.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Share of the pages about a topic (the word `glacier` in their text, and often in the
    /// anchors of links to them), for focused crawls (`freshet crawl --focus glacier`); the
    /// truth's `topic_score` says how often each page says it. 0: no topic.
    #[arg(long, value_name = "F", default_value_t = 0.0)]
    topic_fraction: f64,
    /// Misbehaving hosts to add, comma-separated, or `all`.
    #[arg(long, value_name = "KIND,...")]
    misbehave: Option<String>,
    /// Add per-request noise to pages (rotating ad, timestamp, session token in links).
    #[arg(long)]
    noise: bool,
    /// Send no ETag or Last-Modified and never answer 304 (a crawler must compare contents).
    #[arg(long)]
    no_validators: bool,
    /// What the sitemaps' `<lastmod>`s say.
    #[arg(long, value_name = "KIND", value_enum, default_value_t = SitemapLastmodArg::None)]
    sitemap_lastmod: SitemapLastmodArg,
}

/// `--sitemap-lastmod` (`freshet_testweb::SitemapLastmod`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum SitemapLastmodArg {
    /// No `<lastmod>` (as many sites).
    None,
    /// The time of each page's latest change, to the millisecond.
    Exact,
    /// The time of the request for every page (a generator stamping its own run).
    Now,
}

impl From<SitemapLastmodArg> for SitemapLastmod {
    fn from(arg: SitemapLastmodArg) -> Self {
        match arg {
            SitemapLastmodArg::None => Self::None,
            SitemapLastmodArg::Exact => Self::Exact,
            SitemapLastmodArg::Now => Self::Now,
        }
    }
}

/// Runs `freshet testweb` until Ctrl-C.
pub(crate) fn run(args: &TestwebArgs) -> anyhow::Result<std::process::ExitCode> {
    let misbehave =
        Misbehaviour::parse_list(args.misbehave.as_deref().unwrap_or("")).context("--misbehave")?;
    let config = ServerConfig {
        web: WebConfig {
            seed: args.seed,
            hosts: args.hosts,
            pages: args.pages,
            topic_fraction: args.topic_fraction,
            ..WebConfig::default()
        },
        time_scale: args.time_scale,
        misbehave,
        settings: MisbehaviourSettings::default(),
        noise: args.noise,
        validators: !args.no_validators,
        sitemap_lastmod: args.sitemap_lastmod.into(),
    };
    let runtime =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting tokio")?;
    runtime.block_on(serve(config, args.port))?;
    Ok(std::process::ExitCode::SUCCESS)
}

async fn serve(config: ServerConfig, port: u16) -> anyhow::Result<()> {
    let bind = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let (hosts, pages, seed, scale) =
        (config.web.hosts, config.web.pages, config.web.seed, config.time_scale);
    let web = TestWeb::start(bind, config, Arc::new(SystemClock::new())).await?;
    let port = web.port();
    println!("listening on {}", web.address());
    println!("{hosts} hosts, {pages} pages, seed {seed}, {scale} model days per second");
    println!("first root: {} (curl --resolve h0.web.test:{port}:127.0.0.1 …)", web.url("h0.web.test", "/"));
    println!("truth: {}  log: {}", web.url("h0.web.test", "/_truth/pages"), web.url("h0.web.test", "/_log"));
    let misbehaving: Vec<String> = web.host_names().into_iter().skip(hosts as usize).collect();
    if !misbehaving.is_empty() {
        println!("misbehaving: {}", misbehaving.join(", "));
    }
    println!("Ctrl-C stops.");
    tokio::signal::ctrl_c().await.context("waiting for Ctrl-C")?;
    let requests = web.log().len();
    tokio::time::timeout(Duration::from_secs(3), web.shutdown()).await.ok().transpose()?;
    eprintln!("stopped after {requests} requests");
    Ok(())
}
