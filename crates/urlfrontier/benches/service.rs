//! The URLFrontier service's throughput over gRPC on 127.0.0.1, as a crawler uses it: one
//! `PutURLs` stream of discovered URLs, then rounds of `GetURLs` and `PutURLs` of the served
//! URLs as known and done, until none is left; on the redb space (the default, durable at every
//! chunk), in memory, and on a Redis server of the bench's own (`redis-server` on the `PATH`,
//! `appendfsync always`). Prints URLs per second of wall time for each phase, and the process's
//! CPU time.
//!
//! `cargo bench -p freshet-urlfrontier --bench service` (`FRESHET_BENCH_URLS`, default 100,000,
//! over `FRESHET_BENCH_QUEUES`, default 1,000 queues).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::time::Instant;

use freshet_frontier::RedisOptions;
use freshet_frontier::conformance::RedisServer;
use freshet_urlfrontier::proto::url_frontier_client::UrlFrontierClient;
use freshet_urlfrontier::proto::{DiscoveredUrlItem, GetParams, KnownUrlItem, UrlInfo, UrlItem, url_item};
use freshet_urlfrontier::{
    CrawlSpace, FrontierService, MemorySpace, RedbDirectory, RedisSpace, ServiceOptions, serve,
};
use tonic::transport::Channel;

fn env(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|value| value.parse().ok()).unwrap_or(default)
}

fn item(url: String, key: String, known: bool) -> UrlItem {
    let info = Some(UrlInfo { url, key, ..UrlInfo::default() });
    let item = if known {
        url_item::Item::Known(KnownUrlItem { info, refetchable_from_date: 0 })
    } else {
        url_item::Item::Discovered(DiscoveredUrlItem { info })
    };
    UrlItem { item: Some(item), ..UrlItem::default() }
}

async fn put(client: &mut UrlFrontierClient<Channel>, items: Vec<UrlItem>) -> usize {
    let mut acks = client.put_ur_ls(tokio_stream::iter(items)).await.unwrap().into_inner();
    let mut count = 0;
    while let Some(ack) = acks.message().await.unwrap() {
        assert_eq!(ack.status, 0, "{ack:?}");
        count += 1;
    }
    count
}

fn cpu_seconds() -> f64 {
    cpu_time::ProcessTime::now().as_duration().as_secs_f64()
}

async fn run(name: &str, space: Box<dyn CrawlSpace>, urls: usize, queues: usize) {
    let service = FrontierService::open(space, ServiceOptions::default()).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(serve(service, listener, async {
        let _ = stopped.await;
    }));
    let mut client = UrlFrontierClient::connect(format!("http://{address}")).await.unwrap();

    let (cpu, start) = (cpu_seconds(), Instant::now());
    let items: Vec<UrlItem> = (0..urls)
        .map(|i| item(format!("http://h{}.bench.test/page/{i}", i % queues), String::new(), false))
        .collect();
    assert_eq!(put(&mut client, items).await, urls);
    let (put_wall, put_cpu) = (start.elapsed().as_secs_f64(), cpu_seconds() - cpu);

    let (cpu, start) = (cpu_seconds(), Instant::now());
    let mut done = 0;
    let mut rounds = 0;
    while done < urls {
        let round = Instant::now();
        let params = GetParams { max_urls_per_queue: 10, max_queues: 200, ..GetParams::default() };
        let mut stream = client.get_ur_ls(params).await.unwrap().into_inner();
        let mut served = Vec::new();
        while let Some(info) = stream.message().await.unwrap() {
            served.push(item(info.url, info.key, true));
        }
        assert!(!served.is_empty(), "nothing served with {done} of {urls} done");
        let got = round.elapsed();
        done += put(&mut client, served).await;
        if std::env::var("FRESHET_BENCH_TRACE").is_ok() {
            eprintln!("get {got:?} put {:?}", round.elapsed() - got);
        }
        rounds += 1;
    }
    let (cycle_wall, cycle_cpu) = (start.elapsed().as_secs_f64(), cpu_seconds() - cpu);
    // Every URL done: a GetURLs now finds nothing in any queue (a revisit crawl between its
    // dates looks the same).
    let idle_calls = 200;
    let start = Instant::now();
    for _ in 0..idle_calls {
        let mut stream = client.get_ur_ls(GetParams::default()).await.unwrap().into_inner();
        assert!(stream.message().await.unwrap().is_none());
    }
    let idle_call = start.elapsed().as_secs_f64() / f64::from(idle_calls);
    drop(client);
    let _ = stop.send(());
    server.await.unwrap().unwrap();

    #[allow(clippy::cast_precision_loss)]
    let per_second = |seconds: f64| urls as f64 / seconds;
    println!(
        "{name}: {urls} URLs on {queues} queues: PutURLs (discovered) {:.0} URLs/s ({put_wall:.2} s wall, {put_cpu:.2} CPU s); \
         GetURLs + PutURLs (known) {:.0} URLs/s ({cycle_wall:.2} s wall, {cycle_cpu:.2} CPU s, {rounds} rounds); \
         a GetURLs finding nothing {:.0} µs",
        per_second(put_wall),
        per_second(cycle_wall),
        idle_call * 1e6,
    );
}

fn main() {
    if std::env::args().any(|arg| arg == "--list") {
        return;
    }
    let urls = env("FRESHET_BENCH_URLS", 100_000);
    let queues = env("FRESHET_BENCH_QUEUES", 1_000);
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        run("redb", Box::new(RedbDirectory::new(dir.path()).unwrap()), urls, queues).await;
        run("memory", Box::new(MemorySpace::default()), urls, queues).await;
        // A redis-server of the bench's own, syncing every write (the engine's requirement).
        let server = RedisServer::start();
        let space = RedisSpace::new(RedisOptions::new(server.url.clone())).unwrap();
        run("redis", Box::new(space), urls, queues).await;
    });
}
