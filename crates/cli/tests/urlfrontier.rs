//! `freshet urlfrontier` end to end: it prints its address, answers a URLFrontier client,
//! stops on Ctrl-C (SIGINT) with its crawl stored, serves it again when restarted, and names a
//! bad argument.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{BufRead as _, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use common::{freshet, stderr};
use freshet_urlfrontier::proto::url_frontier_client::UrlFrontierClient;
use freshet_urlfrontier::proto::{
    CountUrlParams, DiscoveredUrlItem, Empty, GetParams, UrlInfo, UrlItem, url_item,
};

fn start(dir: &Path) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_freshet"))
        .args(["urlfrontier", "--listen", "127.0.0.1:0", "--dir"])
        .arg(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let address = first.strip_prefix("listening on ").expect(&first).to_string();
    assert!(address.starts_with("127.0.0.1:"), "{address}");
    // Keeps the pipe open: a closed standard output would fail the server's next line.
    std::thread::spawn(move || lines.for_each(drop));
    (child, address)
}

fn interrupt(child: Child) {
    let status = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stderr(&output).contains("stopped"), "{}", stderr(&output));
}

fn discovered(url: &str) -> UrlItem {
    let info = UrlInfo { url: url.to_owned(), ..UrlInfo::default() };
    UrlItem {
        item: Some(url_item::Item::Discovered(DiscoveredUrlItem { info: Some(info) })),
        ..UrlItem::default()
    }
}

#[test]
fn serves_a_client_and_keeps_its_crawl_across_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let (child, address) = start(dir.path());
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
    interrupt(child);
    assert!(dir.path().join("DEFAULT.redb").exists());

    let (child, address) = start(dir.path());
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
    interrupt(child);
}

#[test]
fn bad_arguments_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().to_str().unwrap();
    let output = freshet(&["urlfrontier", "--dir", dir, "--listen", "127.0.0.1:0", "--lease", "0"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("--lease 0"), "{}", stderr(&output));

    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let taken = busy.local_addr().unwrap().to_string();
    let output = freshet(&["urlfrontier", "--dir", dir, "--listen", &taken]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains(&format!("--listen {taken}")), "{}", stderr(&output));
}
