//! One crawl run by three crawlers (`CrawlConfig::shard`) over one Redis server, end to end on
//! 127.0.0.1 against testweb: together they fetch every allowed page exactly once, each only
//! the hosts its shard owns, politely (from the server's own log), and all three end when the
//! crawl is over, though each runs out of work at its own time and URLs keep crossing between
//! them, on one server and on a Redis Cluster of three nodes. A shard that stops early leaves,
//! and the others still end.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{read_log, warcio_check};

use std::collections::{HashMap, HashSet};
use std::net::{IpAddr, Ipv4Addr};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use freshet_crawl::{
    CrawlConfig, CrawlSummary, Crawler, LogKind, RedisOptions, Revisit, ShardPlan, StopReason, StoreEngine,
};
use freshet_frontier::conformance::{RedisCluster, RedisServer};
use freshet_testweb::{LogEntry, ServerConfig, SystemClock, TestWeb, Web, WebConfig};
use freshet_url::Scope;

const DELAY: Duration = Duration::from_millis(20);
const SHARDS: u32 = 3;

async fn testweb(hosts: u32, pages: u32) -> TestWeb {
    let config =
        ServerConfig { web: WebConfig { hosts, pages, ..WebConfig::default() }, ..ServerConfig::default() };
    TestWeb::start("127.0.0.1:0".parse().unwrap(), config, Arc::new(SystemClock::new())).await.unwrap()
}

/// Shard `index` of the crawl of `web` from h0's home page, its frontier in `redis_url`.
fn config(web: &TestWeb, data: &Path, redis_url: &str, index: u32) -> CrawlConfig {
    let mut config = common::testweb_config(web, data, DELAY);
    config.store = StoreEngine::Redis(RedisOptions { prefix: "web".into(), ..RedisOptions::new(redis_url) });
    config.shard = Some(ShardPlan::new(index, SHARDS).unwrap());
    config
}

/// The pages robots.txt allows, as `(host, path)`.
fn allowed_pages(web: &TestWeb) -> HashSet<(String, String)> {
    let model = web.web();
    (0..model.page_count())
        .filter(|&id| model.page(id).unwrap().allowed)
        .map(|id| (Web::host_name(model.page(id).unwrap().host), model.path(id)))
        .collect()
}

/// The server saw every allowed page requested exactly once and no other page (the
/// differences named, not the sets); returns the pages requested.
fn assert_every_allowed_page_once(web: &TestWeb) -> HashSet<(String, String)> {
    let requests: Vec<(String, String)> = web
        .log()
        .entries()
        .iter()
        .filter(|entry| is_page(entry))
        .map(|entry| (entry.host.clone(), entry.path.clone()))
        .collect();
    let fetched: HashSet<_> = requests.iter().cloned().collect();
    assert_eq!(requests.len(), fetched.len(), "a page was fetched twice");
    let allowed = allowed_pages(web);
    let missing: Vec<_> = allowed.difference(&fetched).take(10).collect();
    let extra: Vec<_> = fetched.difference(&allowed).take(10).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{} of {} allowed pages not fetched, e.g. {missing:?}; fetched beyond them: {extra:?}",
        allowed.difference(&fetched).count(),
        allowed.len()
    );
    fetched
}

fn is_page(entry: &LogEntry) -> bool {
    entry.path != "/robots.txt" && !entry.path.starts_with("/sitemap")
}

/// Runs the shards at once, each in its own task, to their ends; each shard's status is
/// asked once while it runs, and must name its place and count no more than its summary.
async fn run_shards(configs: Vec<CrawlConfig>) -> Vec<CrawlSummary> {
    let mut tasks = Vec::new();
    let mut statuses = Vec::new();
    for config in configs {
        let crawler = Crawler::open(config).unwrap();
        let admin = crawler.admin();
        tasks.push(tokio::spawn(crawler.run(std::future::pending())));
        statuses.push(admin.status().await.unwrap());
    }
    let mut summaries = Vec::new();
    for (index, (task, status)) in tasks.into_iter().zip(statuses).enumerate() {
        let summary = tokio::time::timeout(Duration::from_secs(120), task)
            .await
            .expect("a shard never ended")
            .unwrap()
            .unwrap();
        let shard = status.shard.expect("a shard's status names its shard");
        assert_eq!((shard.index, shard.count), (index as u32, SHARDS));
        assert!(shard.handed_over <= summary.handed_over && shard.handed_in <= summary.handed_in);
        summaries.push(summary);
    }
    summaries
}

/// The whole crawl by three shards on the Redis server (or cluster node) at `redis_url`.
async fn three_shards_crawl_the_web_once(redis_url: &str) {
    let web = testweb(9, 360).await;
    let plan = ShardPlan::new(0, SHARDS).unwrap();
    let owner = |host: &str| plan.shard_of(host);
    let hosts = web.host_names();
    let owners: HashSet<u32> = hosts.iter().map(|host| owner(host)).collect();
    assert_eq!(owners.len(), SHARDS as usize, "every shard owns a host of this web: {hosts:?}");
    // A shard that does not own the seed's host starts with nothing of its own.
    let seedless = (owner("h0.web.test") + 1) % SHARDS;

    // An inbox entry that is not a URL (a foreign writer): logged by its shard, not followed.
    let first = plan.prefix_of("web", 0);
    let mut inbox = freshet_frontier::connect_to_slot_owner(redis_url, &first).unwrap();
    let () = redis::cmd("RPUSH")
        .arg(format!("{{{first}}}:inbox"))
        .arg("1 http://[oops/")
        .query(&mut inbox)
        .unwrap();

    let dirs: Vec<_> = (0..SHARDS).map(|_| tempfile::tempdir().unwrap()).collect();
    let configs =
        (0..SHARDS).map(|index| config(&web, dirs[index as usize].path(), redis_url, index)).collect();
    let summaries = run_shards(configs).await;
    let bad: Vec<_> =
        read_log(dirs[0].path()).into_iter().filter(|line| line.outcome == "bad-handover").collect();
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert_eq!(bad[0].url, "http://[oops/");

    let log = web.log().entries();
    let unique = assert_every_allowed_page_once(&web);
    let robots: Vec<&str> =
        log.iter().filter(|entry| entry.path == "/robots.txt").map(|entry| entry.host.as_str()).collect();
    assert_eq!(robots.len(), hosts.len(), "one robots.txt a host, by its one owner: {robots:?}");
    // Politeness is each host's owner's: no two requests to a host closer than the delay.
    let mut times: HashMap<&str, Vec<f64>> = HashMap::new();
    for entry in &log {
        times.entry(entry.host.as_str()).or_default().push(entry.unix);
    }
    for (host, mut times) in times {
        times.sort_by(f64::total_cmp);
        let closest = times.windows(2).map(|pair| pair[1] - pair[0]).fold(f64::INFINITY, f64::min);
        assert!(closest >= DELAY.as_secs_f64(), "{host}: two requests {closest:.4} s apart");
    }

    // Each shard fetched only its own hosts, and wrote its own archive.
    let mut pages = 0;
    for (index, dir) in dirs.iter().enumerate() {
        let fetched: Vec<String> = read_log(dir.path())
            .into_iter()
            .filter(|line| line.kind == LogKind::Page)
            .map(|line| freshet_url::Url::parse(&line.url).unwrap().host_str().unwrap().to_owned())
            .collect();
        assert!(!fetched.is_empty(), "shard {index} fetched nothing");
        assert!(fetched.iter().all(|host| owner(host) == index as u32), "shard {index}: {fetched:?}");
        pages += fetched.len();
        warcio_check(dir.path());
    }
    assert_eq!(pages, unique.len());
    for (index, summary) in summaries.iter().enumerate() {
        assert_eq!(summary.stopped, StopReason::Done, "shard {index}");
    }
    // URLs crossed: a shard had no seed of its own, and each shard's pages link the others'.
    assert!(
        summaries[seedless as usize].handed_in > 0 && summaries.iter().all(|summary| summary.handed_over > 0),
        "{summaries:?}"
    );
    let handed_over: u64 = summaries.iter().map(|summary| summary.handed_over).sum();
    let handed_in: u64 = summaries.iter().map(|summary| summary.handed_in).sum();
    assert_eq!(handed_over + 1, handed_in, "every URL handed over was read by its shard, and the bad entry");
    // Importance crosses too: every page fetched with links to other shards' pages sent their
    // OPIC shares, and every share reached its shard.
    let cash_over: u64 = summaries.iter().map(|summary| summary.cash_handed_over).sum();
    let cash_in: u64 = summaries.iter().map(|summary| summary.cash_handed_in).sum();
    assert!(cash_over > 0, "{summaries:?}");
    assert_eq!(cash_over, cash_in);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn three_shards_on_one_redis_fetch_every_page_once() {
    let redis = RedisServer::start();
    three_shards_crawl_the_web_once(&redis.url).await;
}

/// The same on a Redis Cluster of three masters, every shard given node 0's URL: each shard's
/// frontier and inbox sit on the node of its own slot, and the shards spread over the nodes.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn three_shards_on_a_redis_cluster_fetch_every_page_once() {
    let cluster = RedisCluster::start();
    // The shards' prefixes spread over the slots: one shard on each master.
    let plan = ShardPlan::new(0, SHARDS).unwrap();
    let prefixes: Vec<String> = (0..SHARDS).map(|index| plan.prefix_of("web", index)).collect();
    let nodes: HashSet<usize> =
        prefixes.iter().map(|prefix| cluster.node_serving(&format!("{{{prefix}}}:meta"))).collect();
    assert_eq!(nodes.len(), 3, "{prefixes:?} on nodes {nodes:?}");
    three_shards_crawl_the_web_once(&cluster.urls[0]).await;
    for prefix in &prefixes {
        // (An inbox read to its end is gone: Redis drops an empty list.)
        for key in ["meta", "pages", "shard"] {
            let key = format!("{{{prefix}}}:{key}");
            assert_eq!(cluster.node_holding(&key), cluster.node_serving(&key), "{key}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_shard_that_stops_early_leaves_and_the_others_end() {
    let redis = RedisServer::start();
    let web = testweb(9, 360).await;
    let dirs: Vec<_> = (0..SHARDS).map(|_| tempfile::tempdir().unwrap()).collect();
    let mut configs: Vec<CrawlConfig> =
        (0..SHARDS).map(|index| config(&web, dirs[index as usize].path(), &redis.url, index)).collect();
    configs[2].max_pages = Some(3);
    let summaries = run_shards(configs).await;
    assert_eq!(summaries[2].stopped, StopReason::MaxPages);
    assert_eq!(summaries[2].pages, 3);
    assert_eq!(summaries[0].stopped, StopReason::Done);
    assert_eq!(summaries[1].stopped, StopReason::Done);
    // What was sent to the shard that left waits in its inbox, for a resume.
    let mut connection = redis.connect().unwrap();
    let last = ShardPlan::new(2, SHARDS).unwrap().prefix("web");
    let waiting: u64 = redis::cmd("LLEN").arg(format!("{{{last}}}:inbox")).query(&mut connection).unwrap();
    let left: u8 =
        redis::cmd("HGET").arg(format!("{{{last}}}:shard")).arg("left").query(&mut connection).unwrap();
    assert_eq!(left, 1);
    assert!(waiting > 0 || summaries[2].handed_in > 0, "shard 2 was sent URLs");

    // Resumed, it takes them and finishes its part: the crawl is whole.
    let mut resumed = config(&web, dirs[2].path(), &redis.url, 2);
    resumed.resume = true;
    let summary = Crawler::open(resumed).unwrap().run(std::future::pending()).await.unwrap();
    assert_eq!(summary.stopped, StopReason::Done);
    assert_every_allowed_page_once(&web);
}

/// A shard whose others never start fetches its own part, then waits for them (the crawl is
/// not over: they may hand it URLs), says so in its status, and stops when told.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_shard_alone_waits_for_the_others_and_says_so() {
    let redis = RedisServer::start();
    let web = testweb(9, 360).await;
    let dir = tempfile::tempdir().unwrap();
    let crawler = Crawler::open(config(&web, dir.path(), &redis.url, 0)).unwrap();
    let admin = crawler.admin();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(crawler.run(async move {
        let _ = stopped.await;
    }));
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let shard = admin.status().await.unwrap().shard.unwrap();
        if shard.waiting {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "shard 0 never ran out of work");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(!task.is_finished(), "a shard must not end while the others have not run");
    stop.send(()).unwrap();
    let summary = task.await.unwrap().unwrap();
    assert_eq!(summary.stopped, StopReason::Interrupted);
    assert!(summary.handed_over > 0, "it found the other shards' URLs: {summary:?}");
}

/// Importance crosses shards: a page of shard B that only shard A's pages link to weighs far
/// more, in B's own estimate, than a page of B that nothing links to, because A's pages hand
/// their OPIC shares along those links, and B's virtual page hands A's pages their share, so
/// that A does not drain into B (with the shares left home, as closed shards would, the two
/// would weigh the same: nothing in B links to either).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn importance_flows_along_links_between_shards() {
    let redis = RedisServer::start();
    let plan = ShardPlan::new(0, 2).unwrap();
    let name = |stem: &str, shard: u32| {
        (0..).map(|i| format!("{stem}{i}.test")).find(|host| plan.shard_of(host) == shard).unwrap()
    };
    let (host_a, host_b) = (name("a", 0), name("b", 1));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (a, b) = (format!("http://{host_a}:{port}"), format!("http://{host_b}:{port}"));
    let (site_a, site_b) = (host_a.clone(), b.clone());
    // A's home and its four pages all link to B's /x; B's /y is a seed no page links to.
    let app = axum::Router::new().fallback(move |headers: axum::http::HeaderMap, uri: axum::http::Uri| {
        let (host_a, b) = (site_a.clone(), site_b.clone());
        async move {
            use axum::http::{StatusCode, header};
            use axum::response::IntoResponse as _;
            let host = headers.get(header::HOST).and_then(|value| value.to_str().ok()).unwrap_or_default();
            let on_a = host.split(':').next() == Some(host_a.as_str());
            let body = match (on_a, uri.path()) {
                (_, "/robots.txt") => return StatusCode::NOT_FOUND.into_response(),
                (true, path) => {
                    let mut links = format!("<a href=\"{b}/x\">x</a> ");
                    if path == "/" {
                        links.extend((1..=4).map(|i| format!("<a href=\"/{i}\">{i}</a> ")));
                    }
                    links
                }
                (false, path) => format!("<p>{path}</p>"),
            };
            ([(header::CONTENT_TYPE, "text/html")], format!("<html><body>{body}</body></html>"))
                .into_response()
        }
    });
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let config = |index: u32, data: &Path| {
        let mut config = CrawlConfig::new(data);
        config.seeds = vec![
            freshet_url::canonicalize(&format!("{a}/")).unwrap(),
            freshet_url::canonicalize(&format!("{b}/y")).unwrap(),
        ];
        config.scope = Scope::Any;
        config.delay = DELAY;
        config.revisit = Revisit::Freshet;
        config.rate = 40.0;
        config.fetch.allow_private = true;
        config.fetch.user_agent = "freshet-test/0.1".into();
        config.fetch.resolve = vec![
            (host_a.clone(), IpAddr::V4(Ipv4Addr::LOCALHOST)),
            (host_b.clone(), IpAddr::V4(Ipv4Addr::LOCALHOST)),
        ];
        config.store = StoreEngine::Redis(RedisOptions {
            prefix: "rank".into(),
            ..RedisOptions::new(redis.url.clone())
        });
        config.shard = Some(ShardPlan::new(index, 2).unwrap());
        config
    };
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let shard_a = Crawler::open(config(0, dirs[0].path())).unwrap();
    let shard_b = Crawler::open(config(1, dirs[1].path())).unwrap();
    let admin_b = shard_b.admin();
    let (stop_a, stopped_a) = tokio::sync::oneshot::channel::<()>();
    let (stop_b, stopped_b) = tokio::sync::oneshot::channel::<()>();
    let task_a = tokio::spawn(shard_a.run(async move {
        let _ = stopped_a.await;
    }));
    let task_b = tokio::spawn(shard_b.run(async move {
        let _ = stopped_b.await;
    }));
    // Several revisits of every page (a revisiting crawl spends its budget of 40 a second on
    // seven pages), so that the cash has flowed pass after pass.
    tokio::time::sleep(Duration::from_secs(4)).await;
    let x = admin_b.explain(&format!("{b}/x")).await.unwrap();
    let y = admin_b.explain(&format!("{b}/y")).await.unwrap();
    stop_a.send(()).unwrap();
    stop_b.send(()).unwrap();
    let (summary_a, summary_b) = (task_a.await.unwrap().unwrap(), task_b.await.unwrap().unwrap());
    println!("x {} y {}", x.weight, y.weight);
    assert!(summary_a.cash_handed_over > 0 && summary_b.cash_handed_in > 0);
    // Whole-graph PageRank gives x/y = 5.15 (A's home, four pages linked from it, all linking
    // to x; y and x dangling); after 4 s of revisits, with cash in flight (sent every second)
    // and the estimate's early passes in its history, measured x/y 2.1 (2.4–2.6 with cash sent
    // at every commit). Mutations measured with cash sent at every commit: the link shares
    // left home, 0.72 (x 0.84, y 1.16); the teleport kept home, 1.00 (A drains into B).
    assert!(x.weight > 1.6 * y.weight, "x {} against y {}", x.weight, y.weight);
}

/// The per-IP limit holds over the shards, which do not talk per request: two shards of a
/// crawl of eight host names that all resolve to 127.0.0.1, each name's home page linking five
/// more, every answer taking 60 ms, with `max_in_flight_per_ip` 2, never have more than two
/// requests at the server at once (each shard keeps one), where each keeping the whole limit
/// let the address see up to four. And a limit below the number of shards is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_per_ip_limit_holds_over_the_shards() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let redis = RedisServer::start();
    let (now, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let app = axum::Router::new().fallback({
        let (now, most) = (Arc::clone(&now), Arc::clone(&most));
        move |uri: axum::http::Uri| async move {
            let current = now.fetch_add(1, Ordering::SeqCst) + 1;
            most.fetch_max(current, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(60)).await;
            now.fetch_sub(1, Ordering::SeqCst);
            let html = |body: String| {
                (
                    [(axum::http::header::CONTENT_TYPE, "text/html")],
                    format!("<html><body>{body}</body></html>"),
                )
            };
            match uri.path() {
                "/" => axum::response::IntoResponse::into_response(html(
                    (1..=5).map(|page| format!("<a href=\"/{page}\">{page}</a>")).collect(),
                )),
                "/robots.txt" => {
                    axum::response::IntoResponse::into_response(axum::http::StatusCode::NOT_FOUND)
                }
                path => axum::response::IntoResponse::into_response(html(format!("<p>page {path}</p>"))),
            }
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let hosts: Vec<String> = (0..8).map(|index| format!("ip{index}.test")).collect();
    let plan = ShardPlan::new(0, 2).unwrap();
    for shard in 0..2 {
        let owned = hosts.iter().filter(|host| plan.shard_of(host) == shard).count();
        assert!(owned >= 2, "shard {shard} owns {owned} of the hosts: the check below needs two each");
    }
    let dirs: Vec<_> = (0..2).map(|_| tempfile::tempdir().unwrap()).collect();
    let configs: Vec<CrawlConfig> = (0..2)
        .map(|index| {
            let mut config = CrawlConfig::new(dirs[index as usize].path());
            config.seeds = hosts
                .iter()
                .map(|host| freshet_url::canonicalize(&format!("http://{host}:{port}/")).unwrap())
                .collect();
            config.scope = Scope::Host;
            config.delay = Duration::from_millis(5);
            config.revisit = Revisit::Once;
            config.fetch.allow_private = true;
            config.fetch.user_agent = "freshet-test/0.1".into();
            config.fetch.resolve =
                hosts.iter().map(|host| (host.clone(), IpAddr::V4(Ipv4Addr::LOCALHOST))).collect();
            config.fetch.max_in_flight_per_ip = Some(2);
            config.store =
                StoreEngine::Redis(RedisOptions { prefix: "ips".into(), ..RedisOptions::new(&redis.url) });
            config.shard = Some(ShardPlan::new(index, 2).unwrap());
            config
        })
        .collect();
    let mut refused = configs[0].clone();
    refused.fetch.max_in_flight_per_ip = Some(1);
    let message = Crawler::open(refused).err().unwrap().to_string();
    assert!(message.contains("max_in_flight_per_ip = 1 with 2 shards"), "{message}");
    let tasks: Vec<_> = configs
        .into_iter()
        .map(|config| tokio::spawn(Crawler::open(config).unwrap().run(std::future::pending())))
        .collect();
    let mut pages = 0;
    for task in tasks {
        let summary = tokio::time::timeout(Duration::from_secs(60), task).await.unwrap().unwrap().unwrap();
        pages += summary.pages;
    }
    assert_eq!(pages, 8 * 6, "every page of every host");
    assert_eq!(most.load(Ordering::SeqCst), 2, "the most requests at the address at once");
}

/// `max_hosts_per_domain` holds over the shards: a wildcard-DNS trap (every name under
/// `wildcard-dns.web.test` resolves, and its pages link new ones without end) crawled by two
/// shards with a limit of 12 calls on at most 12 hosts of `web.test` in all (each shard counts
/// its own, up to 6), where each keeping the whole limit let the trap have up to 24. And a
/// limit below the number of shards is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_hosts_per_domain_limit_holds_over_the_shards() {
    use freshet_testweb::{Misbehaviour, MisbehaviourSettings};
    let redis = RedisServer::start();
    let web_config = ServerConfig {
        web: WebConfig { hosts: 2, pages: 20, ..WebConfig::default() },
        misbehave: vec![Misbehaviour::WildcardDns],
        settings: MisbehaviourSettings::default(),
        ..ServerConfig::default()
    };
    let web = TestWeb::start("127.0.0.1:0".parse().unwrap(), web_config, Arc::new(SystemClock::new()))
        .await
        .unwrap();
    let dirs: Vec<_> = (0..2).map(|_| tempfile::tempdir().unwrap()).collect();
    let configs: Vec<CrawlConfig> = (0..2)
        .map(|index| {
            let mut config =
                common::testweb_config(&web, dirs[index as usize].path(), Duration::from_millis(1));
            config.fetch.resolve.push(("*.wildcard-dns.web.test".into(), IpAddr::V4(Ipv4Addr::LOCALHOST)));
            config.max_hosts_per_domain = 12;
            config.store =
                StoreEngine::Redis(RedisOptions { prefix: "trap".into(), ..RedisOptions::new(&redis.url) });
            config.shard = Some(ShardPlan::new(index, 2).unwrap());
            config
        })
        .collect();
    let mut refused = configs[0].clone();
    refused.max_hosts_per_domain = 1;
    let message = Crawler::open(refused).err().unwrap().to_string();
    assert!(message.contains("max_hosts_per_domain = 1 with 2 shards"), "{message}");
    let tasks: Vec<_> = configs
        .into_iter()
        .map(|config| tokio::spawn(Crawler::open(config).unwrap().run(std::future::pending())))
        .collect();
    for task in tasks {
        let summary = tokio::time::timeout(Duration::from_secs(120), task).await.unwrap().unwrap().unwrap();
        assert_eq!(summary.stopped, StopReason::Done, "the trap must end");
    }
    let hosts: HashSet<String> = web.log().entries().iter().map(|entry| entry.host.clone()).collect();
    let trap =
        hosts.iter().filter(|host| Misbehaviour::from_host(host) == Some(Misbehaviour::WildcardDns)).count();
    assert!(hosts.len() <= 12, "{} hosts called on: {hosts:?}", hosts.len());
    assert!(trap >= 4, "the trap's hosts up to each shard's share: {hosts:?}");
    let skipped = (0..2)
        .flat_map(|index| read_log(dirs[index].path()))
        .filter(|line| line.outcome == "domain-quota")
        .count();
    assert!(skipped >= 2, "each shard logs the hosts it keeps out");
    web.shutdown().await.unwrap();
}
