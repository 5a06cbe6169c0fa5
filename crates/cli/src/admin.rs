//! A running crawl's window: the HTTP endpoint `freshet crawl --listen ADDR` serves
//! (`/metrics` for Prometheus, `/status` and `/explain?url=URL` as JSON), and the two commands
//! that read it, `freshet status` and `freshet explain URL`; with `--data DIR` the same two
//! commands read a stopped crawl's frontier store instead ([`freshet_crawl::inspect`]).
//!
//! The endpoint is plumbing: axum for HTTP and `metrics-exporter-prometheus` for the text
//! format. Each scrape asks the crawl for its status ([`freshet_crawl::Admin`]) and sets the
//! gauges from it, so what Prometheus sees is what `freshet status` prints.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, bail};
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use freshet_crawl::inspect::{self, InspectError};
use freshet_crawl::{Admin, CrawlStatus, ExplainError, PageReport};
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};

/// What the endpoint's handlers share.
#[derive(Clone)]
struct Endpoint {
    admin: Admin,
    prometheus: PrometheusHandle,
}

/// Binds `address` and serves the crawl's endpoint until the process ends; returns the bound
/// address (port 0 picks one).
pub(crate) async fn serve(address: SocketAddr, admin: Admin) -> anyhow::Result<SocketAddr> {
    let prometheus =
        PrometheusBuilder::new().install_recorder().context("installing the metrics recorder")?;
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .with_context(|| format!("binding --listen {address}"))?;
    let bound = listener.local_addr().context("reading the bound address")?;
    let app = axum::Router::new()
        .route("/metrics", get(metrics))
        .route("/status", get(status))
        .route("/explain", get(explain))
        .with_state(Endpoint { admin, prometheus });
    tokio::spawn(async move {
        if let Err(error) = axum::serve(listener, app).await {
            eprintln!("the --listen endpoint stopped: {error}");
        }
    });
    Ok(bound)
}

fn stopped() -> Response {
    (StatusCode::SERVICE_UNAVAILABLE, "the crawl is not running\n").into_response()
}

async fn status(State(endpoint): State<Endpoint>) -> Response {
    match endpoint.admin.status().await {
        Some(status) => axum::Json(status).into_response(),
        None => stopped(),
    }
}

#[derive(serde::Deserialize)]
struct ExplainQuery {
    url: String,
}

async fn explain(State(endpoint): State<Endpoint>, Query(query): Query<ExplainQuery>) -> Response {
    match endpoint.admin.explain(&query.url).await {
        Ok(report) => axum::Json(report).into_response(),
        Err(error) => {
            let code = match error {
                ExplainError::BadUrl(_) => StatusCode::BAD_REQUEST,
                // Known and due, only not yet handed to the scheduler: not an error of the asker.
                ExplainError::HeldByFocus { .. } => StatusCode::CONFLICT,
                ExplainError::Unknown(_) | ExplainError::NotScheduled(_) => StatusCode::NOT_FOUND,
                ExplainError::Stopped => StatusCode::SERVICE_UNAVAILABLE,
                ExplainError::Store(_) => StatusCode::INTERNAL_SERVER_ERROR,
            };
            (code, format!("{error}\n")).into_response()
        }
    }
}

async fn metrics(State(endpoint): State<Endpoint>) -> Response {
    let Some(status) = endpoint.admin.status().await else { return stopped() };
    let gauges = [
        ("freshet_expected_freshness", status.expected_freshness),
        ("freshet_lambda0", status.lambda0),
        ("freshet_budget_fetches_per_second", status.budget),
        ("freshet_fetches_per_second", status.fetches_per_second),
        ("freshet_pages", status.pages as f64),
        ("freshet_pages_fetched", status.fetched_pages as f64),
        ("freshet_pages_due", status.due as f64),
        ("freshet_in_flight", status.in_flight as f64),
        ("freshet_focus_held_pages", status.held_by_focus as f64),
    ];
    for (name, value) in gauges {
        metrics::gauge!(name).set(value);
    }
    metrics::counter!("freshet_page_requests_total").absolute(status.page_requests);
    metrics::counter!("freshet_not_ok_total").absolute(status.not_ok);
    metrics::counter!("freshet_bytes_total").absolute(status.bytes);
    metrics::counter!("freshet_discovered_total").absolute(status.discovered);
    metrics::counter!("freshet_robots_skipped_total").absolute(status.robots_skipped);
    metrics::counter!("freshet_robots_deferred_total").absolute(status.robots_deferred);
    metrics::counter!("freshet_over_host_quota_total").absolute(status.over_host_quota);
    metrics::counter!("freshet_over_domain_quota_total").absolute(status.over_domain_quota);
    metrics::counter!("freshet_too_long_total").absolute(status.too_long);
    metrics::counter!("freshet_throttled_out_total").absolute(status.throttled_out);
    metrics::gauge!("freshet_boilerplate_bytes").set(status.boilerplate_bytes as f64);
    metrics::counter!("freshet_identical_payloads_total").absolute(status.identical_payloads);
    metrics::counter!("freshet_duplicates_total").absolute(status.duplicates);
    metrics::gauge!("freshet_payloads_indexed").set(status.payloads_indexed as f64);
    metrics::counter!("freshet_payloads_unindexed_total").absolute(status.payloads_unindexed);
    metrics::counter!("freshet_near_duplicates_total").absolute(status.near_duplicates);
    metrics::gauge!("freshet_near_duplicates_indexed").set(status.near_duplicates_indexed as f64);
    let sitemaps = status.sitemaps;
    metrics::counter!("freshet_sitemap_rereads_total").absolute(sitemaps.rereads);
    metrics::counter!("freshet_sitemap_not_modified_total").absolute(sitemaps.not_modified);
    metrics::counter!("freshet_sitemap_changes_total").absolute(sitemaps.changes);
    metrics::counter!("freshet_sitemap_changes_confirmed_total").absolute(sitemaps.changes_confirmed);
    metrics::counter!("freshet_sitemap_vouched_total").absolute(sitemaps.vouched);
    metrics::counter!("freshet_sitemap_misses_total").absolute(sitemaps.misses);
    metrics::counter!("freshet_sitemap_lastmods_ignored_total").absolute(sitemaps.lastmods_ignored);
    if let Some(shard) = status.shard {
        metrics::gauge!("freshet_shard_index").set(f64::from(shard.index));
        metrics::gauge!("freshet_shards").set(f64::from(shard.count));
        metrics::counter!("freshet_shard_handed_over_total").absolute(shard.handed_over);
        metrics::counter!("freshet_shard_handed_in_total").absolute(shard.handed_in);
        metrics::gauge!("freshet_shard_waiting").set(f64::from(u8::from(shard.waiting)));
    }
    for host in &status.hosts {
        metrics::gauge!("freshet_host_lambda", "host" => host.host.clone()).set(host.lambda);
    }
    endpoint.prometheus.render().into_response()
}

/// Arguments of `freshet status`.
#[derive(Debug, clap::Args)]
pub(crate) struct StatusArgs {
    /// The address a running `freshet crawl --listen ADDR` serves.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:9090")]
    server: String,
    /// Read the frontier of the stopped crawl in DIR (its `--data` directory) instead: pages by
    /// state and due time, hosts with the most pages.
    #[arg(long, value_name = "DIR", conflicts_with = "server")]
    data: Option<PathBuf>,
    /// With --data: how many hosts to list.
    #[arg(long, value_name = "N", default_value_t = 10, requires = "data")]
    hosts: usize,
    /// Print the JSON (as served, or of the stopped crawl's report).
    #[arg(long)]
    json: bool,
}

/// Arguments of `freshet explain`.
#[derive(Debug, clap::Args)]
pub(crate) struct ExplainArgs {
    /// The page to explain.
    url: String,
    /// The address a running `freshet crawl --listen ADDR` serves.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:9090")]
    server: String,
    /// Read what the stopped crawl in DIR (its `--data` directory) keeps about the page instead.
    #[arg(long, value_name = "DIR", conflicts_with = "server")]
    data: Option<PathBuf>,
    /// Print the JSON (as served, or of the stored record).
    #[arg(long)]
    json: bool,
}

/// Unix time now, in seconds.
fn unix_now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |since| since.as_secs_f64())
}

/// Opens the frontier store of the stopped crawl in `data`: `DIR/frontier.redb`, or the Redis
/// prefix its `crawl.toml` names.
fn open_stopped(data: &Path) -> anyhow::Result<Box<dyn inspect::FrontierStore>> {
    let kept = data.join("crawl.toml");
    if kept.is_file() {
        let settings = crate::crawl_settings::CrawlSettings::read(&kept)?;
        if let Some(url) = settings.store.filter(|store| store.starts_with("redis://")) {
            let mut options = freshet_crawl::RedisOptions::new(url);
            if let Some(prefix) = settings.store_prefix {
                options.prefix = prefix;
            }
            // A shard's frontier has a prefix of its own.
            if let Some(plan) = settings.shard.as_deref().map(freshet_crawl::ShardPlan::parse).transpose()?
                && plan.count() > 1
            {
                options.prefix = plan.prefix(&options.prefix);
            }
            options.require_fsync = settings.store_require_fsync.unwrap_or(options.require_fsync);
            let (url, prefix) = (options.url.clone(), options.prefix.clone());
            let store = inspect::RedisStore::open(options).with_context(|| {
                format!(
                    "reading the crawl of {} in Redis at {url}, prefix {prefix:?} (a crawl running on it \
                     holds the prefix: ask that crawl with --server)",
                    data.display()
                )
            })?;
            return Ok(Box::new(store));
        }
    }
    let store = inspect::open_store(data).map_err(|error| match error {
        InspectError::Open { .. } => anyhow::Error::new(error).context(format!(
            "reading the crawl in {} (a crawl running on it holds its store: ask that crawl with --server)",
            data.display()
        )),
        error => anyhow::Error::new(error),
    })?;
    Ok(Box::new(store))
}

/// The Unix time `at` seen from `now`, in words: "in 12.0 s", "12.0 s ago".
fn relative(at: f64, now: f64) -> String {
    if at >= now { format!("in {:.1} s", at - now) } else { format!("{:.1} s ago", now - at) }
}

/// Runs `freshet status --data DIR`.
fn run_status_stopped(data: &Path, hosts: usize, json: bool) -> anyhow::Result<ExitCode> {
    let store = open_stopped(data)?;
    let now = unix_now();
    let report = inspect::frontier_report(&store, now, hosts)
        .with_context(|| format!("reading the frontier of {}", data.display()))?;
    if json {
        println!("{}", serde_json::to_string(&report).context("writing the report as JSON")?);
        return Ok(ExitCode::SUCCESS);
    }
    println!("frontier of the stopped crawl in {}", data.display());
    println!(
        "pages     {} seen: {} never fetched, {} fetched, {} in flight when it stopped",
        report.pages, report.discovered, report.fetched, report.in_flight
    );
    println!(
        "due       {} now, {} later, {} not to be fetched again (done, disallowed, over a limit)",
        report.due_now, report.due_later, report.not_due
    );
    if report.duplicates > 0 {
        println!(
            "archive   {} fetched pages hold another URL's body byte for byte (WARC revisits of its record)",
            report.duplicates
        );
    }
    println!("hosts     {}; those with the most pages:", report.hosts);
    for host in &report.top_hosts {
        let blocked = match host.blocked_until {
            Some(until) if until > now => format!(", no request before {}", relative(until, now)),
            _ => String::new(),
        };
        let delay =
            if host.min_delay > 0.0 { format!("; delay {:.3} s", host.min_delay) } else { String::new() };
        println!(
            "  {:<40} {} pages, {} fetched, {} due now{delay}{blocked}",
            host.host, host.pages, host.fetched, host.due_now
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `freshet explain URL --data DIR`.
fn run_explain_stopped(data: &Path, url: &str, json: bool) -> anyhow::Result<ExitCode> {
    let store = open_stopped(data)?;
    let report = inspect::stored_page_report(&store, url)?;
    if json {
        println!("{}", serde_json::to_string(&report).context("writing the record as JSON")?);
        return Ok(ExitCode::SUCCESS);
    }
    let now = unix_now();
    let or_none = |value: &Option<String>| value.clone().unwrap_or_else(|| "none".into());
    println!("{}", report.url);
    println!("  state               {}", report.state);
    match report.host_min_delay {
        delay if delay > 0.0 => println!("  host                {} (delay {delay:.3} s)", report.host),
        _ => println!("  host                {}", report.host),
    }
    if let Some(until) = report.host_blocked_until.filter(|&until| until > now) {
        println!("  host blocked until  {}", relative(until, now));
    }
    match &report.discovered_from {
        Some(from) => println!("  found               on {from} (depth {})", report.depth),
        None if report.depth == 0 => println!("  found               a seed"),
        None => println!("  found               in a sitemap (depth {})", report.depth),
    }
    println!("  weight w            {:.4}", report.weight);
    println!(
        "  change rate λ       {:.4e}/s; {} changes in {} observations",
        report.change_rate, report.changes, report.observations
    );
    match report.last_fetch {
        Some(last) => println!("  last fetch          {}", relative(last, now)),
        None => println!("  last fetch          never"),
    }
    match report.next_due {
        Some(due) if due <= now => println!("  next fetch          due now"),
        Some(due) => println!("  next fetch          due {}", relative(due, now)),
        None => println!("  next fetch          never (done, disallowed or over a limit)"),
    }
    print_payload_record(&report.url, report.payload_record.as_ref());
    if report.failures > 0 {
        println!("  failures in a row   {}", report.failures);
    }
    println!("  ETag                {}", or_none(&report.etag));
    println!("  Last-Modified       {}", or_none(&report.last_modified));
    for (hop, from) in report.redirect_trail.iter().enumerate() {
        println!("  redirected from     {from} (hop {})", hop + 1);
    }
    Ok(ExitCode::SUCCESS)
}

/// GETs `path` from the crawl's endpoint; an answer other than 200 is an error naming it.
fn get_text(server: &str, path: &str, query: &[(&str, &str)]) -> anyhow::Result<String> {
    let runtime =
        tokio::runtime::Builder::new_current_thread().enable_all().build().context("starting tokio")?;
    runtime.block_on(async {
        let url = reqwest::Url::parse_with_params(&format!("http://{server}{path}"), query)
            .with_context(|| format!("--server {server}: not a host:port"))?;
        let response = reqwest::Client::new()
            .get(url.clone())
            .send()
            .await
            .with_context(|| format!("asking {url} (is `freshet crawl --listen {server}` running?)"))?;
        let code = response.status();
        let body = response.text().await.with_context(|| format!("reading the answer of {url}"))?;
        if !code.is_success() {
            bail!("{url}: {code}: {}", body.trim());
        }
        Ok(body)
    })
}

/// Runs `freshet status`.
pub(crate) fn run_status(args: &StatusArgs) -> anyhow::Result<ExitCode> {
    if let Some(data) = &args.data {
        return run_status_stopped(data, args.hosts, args.json);
    }
    let body = get_text(&args.server, "/status", &[])?;
    if args.json {
        println!("{}", body.trim());
        return Ok(ExitCode::SUCCESS);
    }
    let status: CrawlStatus = serde_json::from_str(&body).context("reading the status")?;
    println!("revisit policy      {}", status.revisit);
    println!(
        "expected freshness  {:.4} (weighted, by the crawl's own change-rate estimates)",
        status.expected_freshness
    );
    println!("λ_0                 {:.6e} (what one more fetch per second is worth)", status.lambda0);
    println!(
        "fetches             {:.2}/s over the last 10 s (budget {}/s); {} page requests, {} not ok, {} bytes",
        status.fetches_per_second, status.budget, status.page_requests, status.not_ok, status.bytes
    );
    println!(
        "pages               {} scheduled, {} fetched, {} due now, {} in flight; {} discovered this run; {} hosts",
        status.pages,
        status.fetched_pages,
        status.due,
        status.in_flight,
        status.discovered,
        status.host_count
    );
    if status.held_by_focus > 0 {
        println!(
            "focused crawl       {} new pages held back in their hosts' queues by estimate",
            status.held_by_focus
        );
    }
    println!(
        "robots.txt          {} URLs not requested (disallowed, too costly to check, host given up); \
         {} fetches waited for their host's check allowance",
        status.robots_skipped, status.robots_deferred
    );
    println!(
        "not followed        {} URLs over --host-quota, {} links to hosts past --max-hosts-per-domain, \
         {} longer than the frontier keeps, {} on hosts given up for their Retry-After",
        status.over_host_quota, status.over_domain_quota, status.too_long, status.throttled_out
    );
    println!(
        "archive             {} bodies already held written as WARC revisit records ({} another URL's); \
         {} payloads indexed, {} left out of the full index",
        status.identical_payloads, status.duplicates, status.payloads_indexed, status.payloads_unindexed
    );
    println!(
        "near-duplicates     {} first fetches nearly repeat a page fetched before; {} pages indexed",
        status.near_duplicates, status.near_duplicates_indexed
    );
    if let Some(shard) = status.shard {
        println!(
            "shard               {} of {} (from 0): {} URLs handed to other shards, {} handed in by them{}",
            shard.index,
            shard.count,
            shard.handed_over,
            shard.handed_in,
            if shard.waiting {
                "; nothing left of its own, waiting for the other shards to finish (each must run)"
            } else {
                ""
            }
        );
    }
    println!("memory              {} bytes in the hosts' boilerplate tables", status.boilerplate_bytes);
    println!("hosts by λ_i (the politeness limits that cost the most freshness):");
    for host in &status.hosts {
        println!(
            "  {:<40} λ_i {:.6e}  capacity {:.3}/s  {} fetches  {} pages",
            host.host, host.lambda, host.capacity, host.fetches, host.pages
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `freshet explain`.
pub(crate) fn run_explain(args: &ExplainArgs) -> anyhow::Result<ExitCode> {
    if let Some(data) = &args.data {
        return run_explain_stopped(data, &args.url, args.json);
    }
    let body = get_text(&args.server, "/explain", &[("url", &args.url)])?;
    if args.json {
        println!("{}", body.trim());
        return Ok(ExitCode::SUCCESS);
    }
    let report: PageReport = serde_json::from_str(&body).context("reading the explanation")?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |since| since.as_secs_f64());
    println!("{}", report.url);
    println!("  weight w            {:.4}", report.weight);
    match report.change_rate_std_error {
        Some(error) => println!(
            "  change rate λ       {:.4e}/s ± {:.1e} (one change every {:.0} s); {} changes in {} observations",
            report.change_rate,
            error,
            1.0 / report.change_rate,
            report.changes,
            report.observations
        ),
        None => println!(
            "  change rate λ       {:.4e}/s (prior; {} observations)",
            report.change_rate, report.observations
        ),
    }
    match report.last_fetch {
        Some(last) => println!("  last fetch          {:.0} s ago", now - last),
        None => println!("  last fetch          never"),
    }
    match (report.current_since, report.last_fetch) {
        (Some(since), Some(last)) if since > last => {
            println!("  copy current since  {:.0} s ago (a sitemap read vouched for it)", now - since);
        }
        (None, Some(_)) => println!(
            "  copy                taken as stale (a sitemap said it changed, or its turn is lent to \
             a sitemap read): due as if never fetched"
        ),
        _ => {}
    }
    println!("  crawl value V(τ)    {:.6e}", report.value);
    println!(
        "  threshold           {:.6e} = λ_0 {:.6e} + λ_i {:.6e}",
        report.threshold, report.lambda0, report.host_lambda
    );
    print_payload_record(&report.url, report.payload_record.as_ref());
    match report.due_at {
        Some(due) if due > now => println!("  next fetch          due in {:.1} s", due - now),
        Some(_) => println!("  next fetch          due now"),
        None => println!("  next fetch          never at this threshold"),
    }
    println!("  status              {}", report.status);
    Ok(ExitCode::SUCCESS)
}

/// The line of `freshet explain` that names the WARC record holding a page's payload.
fn print_payload_record(url: &str, record: Option<&freshet_crawl::dedup::PayloadRecord>) {
    match record {
        Some(record) if record.target_uri == url => {
            println!("  archived            its own response record of {}", record.date);
        }
        Some(record) => println!(
            "  archived            as a duplicate of {} (response record of {})",
            record.target_uri, record.date
        ),
        None => {}
    }
}
