//! Requests per second the server answers on 127.0.0.1: 16 keep-alive clients in the same
//! process (so client and server share the CPU: a lower bound on the server alone) fetching
//! pages of a 100,000-page web for 5 s. Not criterion: one throughput figure, printed.
//!
//! `cargo bench -p freshet-testweb --bench serve`.

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use freshet_testweb::{ServerConfig, SystemClock, TestWeb, WebConfig};

const CLIENTS: u64 = 16;
const SECONDS: u64 = 5;

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let config = ServerConfig {
            web: WebConfig { hosts: 100, pages: 100_000, ..WebConfig::default() },
            ..ServerConfig::default()
        };
        let web = TestWeb::start("127.0.0.1:0".parse().unwrap(), config, Arc::new(SystemClock::new())).await.unwrap();
        let mut builder = reqwest::Client::builder().no_proxy();
        for host in web.host_names() {
            builder = builder.resolve(&host, web.address());
        }
        let client = builder.build().unwrap();
        let urls: Arc<Vec<String>> = Arc::new((0..100_000).map(|id| web.web().url(id, web.port())).collect());
        let (requests, bytes) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
        let deadline = Instant::now() + Duration::from_secs(SECONDS);
        let tasks: Vec<_> = (0..CLIENTS)
            .map(|worker| {
                let (client, urls, requests, bytes) = (client.clone(), urls.clone(), requests.clone(), bytes.clone());
                tokio::spawn(async move {
                    let mut i = worker * 7919;
                    while Instant::now() < deadline {
                        i = (i + 104_729) % urls.len() as u64;
                        let body = client.get(&urls[i as usize]).send().await.unwrap().bytes().await.unwrap();
                        requests.fetch_add(1, Ordering::Relaxed);
                        bytes.fetch_add(body.len() as u64, Ordering::Relaxed);
                    }
                })
            })
            .collect();
        for task in tasks {
            task.await.unwrap();
        }
        let requests = requests.load(Ordering::Relaxed);
        let megabytes = bytes.load(Ordering::Relaxed) as f64 / 1e6;
        println!(
            "testweb serve: {requests} requests in {SECONDS} s = {:.0} requests/s, {:.1} MB/s ({CLIENTS} clients, same process)",
            requests as f64 / SECONDS as f64,
            megabytes / SECONDS as f64
        );
        assert_eq!(web.log().len() as u64, requests);
        web.shutdown().await.unwrap();
    });
}
