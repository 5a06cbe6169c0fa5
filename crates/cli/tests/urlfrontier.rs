//! `freshet urlfrontier` end to end: it prints its address, answers a URLFrontier client,
//! stops on Ctrl-C (SIGINT) with its crawl stored, serves it again when restarted, and names a
//! bad argument.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::process::Child;

use common::{freshet, interrupt, spawn_listening, spawn_listening_with, stderr};
use freshet_frontier::conformance::RedisServer;
use freshet_urlfrontier::proto::url_frontier_client::UrlFrontierClient;
use freshet_urlfrontier::proto::{
    CountUrlParams, DiscoveredUrlItem, Empty, GetParams, KnownUrlItem, QueueWithinCrawlParams, StringList,
    UrlInfo, UrlItem, UrlStatusRequest, url_item,
};

fn start_with(dir: &Path, extra: &[&str]) -> (Child, String) {
    let mut args = vec!["--dir", dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    start_with_args(&args)
}

/// `freshet urlfrontier --listen 127.0.0.1:0 ARGS`.
fn start_with_args(extra: &[&str]) -> (Child, String) {
    let mut args = vec!["urlfrontier", "--listen", "127.0.0.1:0"];
    args.extend_from_slice(extra);
    let (child, address, lines) = spawn_listening(&args);
    // Keeps the pipe open: a closed standard output would fail the server's next line.
    std::thread::spawn(move || lines.for_each(drop));
    (child, address)
}

fn stop(child: Child) {
    let output = interrupt(child);
    assert!(stderr(&output).contains("stopped"), "{}", stderr(&output));
}

fn discovered(url: &str) -> UrlItem {
    let info = UrlInfo { url: url.to_owned(), ..UrlInfo::default() };
    UrlItem {
        item: Some(url_item::Item::Discovered(DiscoveredUrlItem { info: Some(info) })),
        ..UrlItem::default()
    }
}

/// Starts the service with `args` (after `urlfrontier --listen 127.0.0.1:0`), puts two URLs,
/// stops it, starts it again and finds them.
fn keeps_its_crawl_across_a_restart(args: &[&str]) {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let (child, address) = start_with_args(args);
    runtime.block_on(async {
        let mut client = UrlFrontierClient::connect(format!("http://{address}")).await.unwrap();
        let nodes = client.list_nodes(Empty {}).await.unwrap().into_inner().values;
        assert_eq!(nodes, std::slice::from_ref(&address));
        let items = vec![discovered("http://a.test/"), discovered("http://b.test/")];
        let mut acks = client.put_ur_ls(tokio_stream::iter(items)).await.unwrap().into_inner();
        let mut count = 0;
        while let Some(ack) = acks.message().await.unwrap() {
            assert_eq!(ack.status, 0, "{ack:?}");
            count += 1;
        }
        assert_eq!(count, 2);
    });
    stop(child);

    let (child, address) = start_with_args(args);
    runtime.block_on(async {
        let mut client = UrlFrontierClient::connect(format!("http://{address}")).await.unwrap();
        let count = client.count_ur_ls(CountUrlParams::default()).await.unwrap().into_inner().value;
        assert_eq!(count, 2);
        let mut stream = client.get_ur_ls(GetParams::default()).await.unwrap().into_inner();
        let mut urls = Vec::new();
        while let Some(info) = stream.message().await.unwrap() {
            urls.push(info.url);
        }
        urls.sort();
        assert_eq!(urls, ["http://a.test/", "http://b.test/"]);
    });
    stop(child);
}

#[test]
fn serves_a_client_and_keeps_its_crawl_across_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    keeps_its_crawl_across_a_restart(&["--dir", dir.path().to_str().unwrap()]);
    assert!(dir.path().join("DEFAULT.redb").exists());
}

/// The same with the crawls in Redis; a server that does not sync every write is refused
/// unless --store-no-fsync says so.
#[test]
fn keeps_its_crawl_in_redis() {
    let server = RedisServer::start();
    keeps_its_crawl_across_a_restart(&["--store", &server.url, "--store-prefix", "uf"]);
    let keys: Vec<String> =
        redis::cmd("KEYS").arg("{uf/DEFAULT}:*").query(&mut server.connect().unwrap()).unwrap();
    assert!(keys.contains(&"{uf/DEFAULT}:pages".to_owned()), "{keys:?}");

    let lax = RedisServer::with(&["--appendonly", "no"]);
    let output = freshet(&["urlfrontier", "--listen", "127.0.0.1:0", "--store", &lax.url]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("appendfsync always"), "{}", stderr(&output));
    keeps_its_crawl_across_a_restart(&["--store", &lax.url, "--store-no-fsync"]);
}

/// With --revisit-rate, a report carrying freshet.changed gets freshet's date, and GetStats
/// counts it; one without keeps the client's.
#[test]
fn revisit_rate_lets_freshet_choose_the_date() {
    let dir = tempfile::tempdir().unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let args =
        ["--revisit-rate", "2", "--revisit-prior-interval", "600", "--revisit-signature-key", "digest"];
    let (child, address) = start_with(dir.path(), &args);
    runtime.block_on(async {
        let mut client = UrlFrontierClient::connect(format!("http://{address}")).await.unwrap();
        let known = |url: &str, signal: Option<&str>| {
            let mut info = UrlInfo { url: url.to_owned(), ..UrlInfo::default() };
            if let Some(key) = signal {
                let value = if key == "freshet.changed" { "true" } else { "d41d8cd9" };
                info.metadata.insert(key.into(), StringList { values: vec![value.into()] });
            }
            let item = KnownUrlItem { info: Some(info), refetchable_from_date: 4_000_000_000 };
            UrlItem { item: Some(url_item::Item::Known(item)), ..UrlItem::default() }
        };
        let items = vec![
            known("http://a.test/", Some("freshet.changed")),
            known("http://b.test/", None),
            known("http://c.test/", Some("digest")),
            known("http://d.test/", Some("signature")),
        ];
        let mut acks = client.put_ur_ls(tokio_stream::iter(items)).await.unwrap().into_inner();
        while let Some(ack) = acks.message().await.unwrap() {
            assert_eq!(ack.status, 0, "{ack:?}");
        }
        let date = |url: &str| UrlStatusRequest { url: url.into(), ..UrlStatusRequest::default() };
        let mut dates = Vec::new();
        for url in ["http://a.test/", "http://b.test/", "http://c.test/", "http://d.test/"] {
            let item = client.get_url_status(date(url)).await.unwrap().into_inner();
            let Some(url_item::Item::Known(known)) = item.item else { panic!("{item:?}") };
            dates.push(known.refetchable_from_date);
        }
        assert!(dates[0] < 4_000_000_000, "freshet's date: {}", dates[0]);
        assert_eq!(dates[1], 4_000_000_000, "the client's date");
        assert!(dates[2] < 4_000_000_000, "a signature under --revisit-signature-key: {}", dates[2]);
        assert_eq!(dates[3], 4_000_000_000, "a key not named is not read");
        let stats = client.get_stats(QueueWithinCrawlParams::default()).await.unwrap().into_inner();
        assert_eq!(stats.counts.get("revisited"), Some(&2));
    });
    stop(child);
}

/// The service's log goes to standard error, filtered by RUST_LOG: a skipped item is named
/// with its reason at the debug level.
#[test]
fn rust_log_shows_skipped_items() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["urlfrontier", "--listen", "127.0.0.1:0", "--dir", dir.path().to_str().unwrap()];
    let (child, address, lines) = spawn_listening_with(&args, &[("RUST_LOG", "freshet_urlfrontier=debug")]);
    std::thread::spawn(move || lines.for_each(drop));
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let mut client = UrlFrontierClient::connect(format!("http://{address}")).await.unwrap();
        let items = vec![discovered("http://a.test/ x")];
        let mut acks = client.put_ur_ls(tokio_stream::iter(items)).await.unwrap().into_inner();
        while let Some(ack) = acks.message().await.unwrap() {
            assert_eq!(ack.status, 1, "SKIPPED: {ack:?}");
        }
    });
    let output = interrupt(child);
    let log = stderr(&output);
    assert!(log.contains("PutURLs item skipped") && log.contains("URL holds the character ' '"), "{log}");
}

#[test]
fn bad_arguments_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().to_str().unwrap();
    let output = freshet(&["urlfrontier", "--dir", dir, "--listen", "127.0.0.1:0", "--lease", "0"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("--lease 0"), "{}", stderr(&output));
    let output = freshet(&["urlfrontier", "--dir", dir, "--listen", "127.0.0.1:0", "--revisit-rate", "0"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("--revisit-rate 0"), "{}", stderr(&output));

    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let taken = busy.local_addr().unwrap().to_string();
    let output = freshet(&["urlfrontier", "--dir", dir, "--listen", &taken]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains(&format!("--listen {taken}")), "{}", stderr(&output));
}
