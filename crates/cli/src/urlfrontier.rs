//! `freshet urlfrontier`: serve the URLFrontier gRPC API (`freshet-urlfrontier`) on a directory
//! of crawls until Ctrl-C.
//!
//! Prints the bound address first (`listening on 127.0.0.1:PORT`, so scripts can use
//! `--listen 127.0.0.1:0`).

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::Context as _;
use freshet_frontier::RedisOptions;
use freshet_urlfrontier::revisit::RevisitOptions;
use freshet_urlfrontier::{CrawlSpace, FrontierService, RedbDirectory, RedisSpace, ServiceOptions};

/// How long Ctrl-C waits for open connections to close.
const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(3);

/// `freshet urlfrontier --help`, first part.
pub(crate) const LONG_ABOUT: &str = "\
Serve the URLFrontier gRPC API (crawler-commons' url-frontier, API 2.x) so that StormCrawler,
Scrapy or any URLFrontier client keeps its URLs in freshet.

Each crawl id is one crash-safe frontier store, DIR/<crawl id>.redb (DEFAULT when a client names
none), or with --store redis://… the key prefix PREFIX/<crawl id> in a Redis server; created on
first use and reopened at start. PutURLs adds discovered URLs (new ones only) and updates known
ones (refetchable_from_date 0: done); GetURLs serves due URLs in rotation over the queues (a
queue per key; the URL's host when the client gives no key), each leased for delay_requestable
seconds (0: --lease). URLs, metadata, schedules, and each queue's SetDelay and
BlockQueueUntil survive a restart; leases, crawl limits, the default delay and SetActive do not.
SetLogLevel and PurgeURLs answer UNIMPLEMENTED.

With --revisit-rate, freshet chooses when known URLs are fetched again: a URL reported with a
refetchable_from_date and the metadata freshet.changed (true/false) or freshet.signature (a
content signature, compared with the previous report's), optionally freshet.weight, is due when
its crawl value, from its learned change rate, reaches the threshold that spends the rate over
the crawl (seed 003); GetStats counts such URLs as `revisited`. --revisit-signature-key names
a metadata key of the client's own to read as the signature.";

/// `freshet urlfrontier --help`, last part.
pub(crate) const AFTER_LONG_HELP: &str = "\
Examples:
  freshet urlfrontier --dir frontier/ --listen 127.0.0.1:7071
  freshet urlfrontier --store redis://127.0.0.1:6379/ --revisit-rate 20
  # then point a client at it, e.g. StormCrawler's urlfrontier.address: 127.0.0.1:7071";

/// Arguments of `freshet urlfrontier`.
#[derive(Debug, clap::Args)]
pub(crate) struct UrlFrontierArgs {
    /// Directory of the crawls' stores (created if missing): one redb file a crawl.
    #[arg(long, value_name = "DIR", required_unless_present = "store", conflicts_with = "store")]
    dir: Option<PathBuf>,
    /// Keep the crawls in a Redis server instead (redis://HOST:PORT/): one key prefix a crawl,
    /// `PREFIX/<crawl id>`. The server must sync every write (appendonly yes, appendfsync
    /// always) unless --store-no-fsync.
    #[arg(long, value_name = "URL")]
    store: Option<String>,
    /// The prefix of the crawls' keys in --store.
    #[arg(long, value_name = "PREFIX", default_value = "freshet", requires = "store")]
    store_prefix: String,
    /// Accept a Redis server that does not sync every write (an acknowledged URL may then be
    /// lost with the server's machine).
    #[arg(long, requires = "store")]
    store_no_fsync: bool,
    /// Address to listen on (URLFrontier's usual port is 7071; port 0 picks a free one, printed).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:7071")]
    listen: SocketAddr,
    /// Seconds a served URL stays leased when GetURLs' delay_requestable is 0.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    lease: f64,
    /// Let freshet choose when known URLs are fetched again, spending this many revisits a
    /// second over each crawl: for a URL reported with a refetchable_from_date and the metadata
    /// freshet.changed (true/false) or freshet.signature (and optionally freshet.weight), the
    /// date comes from its learned change rate (seed 003's threshold rule); other reports keep
    /// the client's date.
    #[arg(long, value_name = "FETCHES_PER_SECOND")]
    revisit_rate: Option<f64>,
    /// The change rate a URL is assumed to have before its queue has data, as a mean interval
    /// between changes in seconds (with --revisit-rate).
    #[arg(long, value_name = "SECONDS", default_value_t = 86_400.0, requires = "revisit_rate")]
    revisit_prior_interval: f64,
    /// A metadata key of the client's own read as the content signature when
    /// freshet.signature is absent (repeatable, first present wins; with --revisit-rate): a
    /// crawler that already keeps a digest of each page in its metadata needs no change.
    #[arg(long, value_name = "KEY", requires = "revisit_rate")]
    revisit_signature_key: Vec<String>,
}

/// Runs `freshet urlfrontier` until Ctrl-C.
pub(crate) fn run(args: &UrlFrontierArgs) -> anyhow::Result<std::process::ExitCode> {
    // The service's log (an item skipped, a chunk not stored) on standard error, filtered by
    // RUST_LOG (warnings by default).
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).try_init();
    if !(args.lease.is_finite() && args.lease > 0.0) {
        anyhow::bail!("--lease {}: must be a positive number of seconds", args.lease);
    }
    let revisit = match args.revisit_rate {
        None => None,
        Some(rate) if rate.is_finite() && rate > 0.0 => {
            let interval = args.revisit_prior_interval;
            if !(interval.is_finite() && interval > 0.0) {
                anyhow::bail!("--revisit-prior-interval {interval}: must be a positive number of seconds");
            }
            Some(RevisitOptions { budget: rate, prior_rate: 1.0 / interval })
        }
        Some(rate) => anyhow::bail!("--revisit-rate {rate}: must be a positive number of fetches a second"),
    };
    let (space, place): (Box<dyn CrawlSpace>, String) = match (&args.dir, &args.store) {
        (Some(dir), _) => (Box::new(RedbDirectory::new(dir)?), dir.display().to_string()),
        (None, Some(url)) => {
            let options = RedisOptions {
                prefix: args.store_prefix.clone(),
                require_fsync: !args.store_no_fsync,
                ..RedisOptions::new(url.clone())
            };
            let space = RedisSpace::new(options).with_context(|| format!("--store {url}"))?;
            (Box::new(space), format!("{url} under prefix {}", args.store_prefix))
        }
        (None, None) => anyhow::bail!("--dir or --store: where the crawls are kept"),
    };
    let runtime =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting tokio")?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .with_context(|| format!("--listen {}", args.listen))?;
        let address = listener.local_addr().context("the bound address")?;
        let options = ServiceOptions {
            default_lease: args.lease,
            node: address.to_string(),
            revisit,
            signature_keys: args.revisit_signature_key.clone(),
        };
        let service =
            FrontierService::open(space, options).with_context(|| format!("opening the crawls in {place}"))?;
        println!("listening on {address}");
        println!("crawls in {place}; Ctrl-C stops.");
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = freshet_urlfrontier::serve(service, listener, async {
            let _ = stopped.await;
        });
        tokio::pin!(server);
        tokio::select! {
            result = &mut server => result.context("serving")?,
            interrupted = tokio::signal::ctrl_c() => {
                interrupted.context("waiting for Ctrl-C")?;
                let _ = stop.send(());
                // Calls under way finish (every acknowledged item is already stored); a client
                // that keeps its connection open does not hold the service up for long.
                match tokio::time::timeout(SHUTDOWN_GRACE, &mut server).await {
                    Ok(result) => result.context("serving")?,
                    Err(_) => eprintln!("connections still open after {} s: closed", SHUTDOWN_GRACE.as_secs()),
                }
            }
        }
        eprintln!("stopped");
        anyhow::Ok(())
    })?;
    Ok(std::process::ExitCode::SUCCESS)
}
