//! The service over gRPC on 127.0.0.1, as a URLFrontier client sees it: every call, the acks,
//! bad items, and a restart, with the crawls in a directory of redb files and in a Redis server
//! of the test's own (`scripts/install-test-deps.sh` installs `redis-server`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;

use freshet_frontier::RedisOptions;
use freshet_frontier::conformance::RedisServer;
use freshet_urlfrontier::proto::url_frontier_client::UrlFrontierClient;
use freshet_urlfrontier::proto::{
    AckMessage, Active, BlockQueueParams, CountUrlParams, CrawlLimitParams, DeleteCrawlMessage,
    DiscoveredUrlItem, Empty, GetParams, KnownUrlItem, ListUrlParams, Local, LogLevelParams, Pagination,
    PurgeUrlParams, QueueDelayParams, QueueWithinCrawlParams, StringList, UrlInfo, UrlItem, UrlStatusRequest,
    ack_message, get_params, url_item,
};
use freshet_urlfrontier::{CrawlSpace, FrontierService, RedbDirectory, RedisSpace, ServiceOptions, serve};
use tokio::sync::oneshot;
use tonic::transport::Channel;

struct Server {
    client: UrlFrontierClient<Channel>,
    stop: oneshot::Sender<()>,
    task: tokio::task::JoinHandle<()>,
}

/// Where the crawls are kept: a directory of redb files, or a Redis server of the test's own.
enum Space {
    Directory(tempfile::TempDir),
    Redis(RedisServer),
}

impl Space {
    fn directory() -> Self {
        Self::Directory(tempfile::tempdir().unwrap())
    }

    fn redis() -> Self {
        Self::Redis(RedisServer::start())
    }

    fn open(&self) -> Box<dyn CrawlSpace> {
        match self {
            Self::Directory(dir) => Box::new(RedbDirectory::new(dir.path()).unwrap()),
            Self::Redis(server) => Box::new(RedisSpace::new(RedisOptions::new(server.url.clone())).unwrap()),
        }
    }

    /// What the space holds: file names, or Redis keys.
    fn contents(&self) -> Vec<String> {
        let mut names: Vec<String> = match self {
            Self::Directory(dir) => std::fs::read_dir(dir.path())
                .unwrap()
                .map(|entry| entry.unwrap().file_name().into_string().unwrap())
                .collect(),
            Self::Redis(server) => redis::cmd("KEYS").arg("*").query(&mut server.connect().unwrap()).unwrap(),
        };
        names.sort();
        names
    }
}

async fn start(space: &Space) -> Server {
    let service = FrontierService::open(space.open(), ServiceOptions::default()).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        serve(service, listener, async {
            let _ = stopped.await;
        })
        .await
        .unwrap();
    });
    let client = UrlFrontierClient::connect(format!("http://{address}")).await.unwrap();
    Server { client, stop, task }
}

impl Server {
    async fn stop(self) {
        drop(self.client);
        self.stop.send(()).unwrap();
        self.task.await.unwrap();
    }
}

fn info(url: &str, key: &str, crawl: &str, metadata: &[(&str, &[&str])]) -> UrlInfo {
    let metadata = metadata
        .iter()
        .map(|(name, values)| {
            (name.to_string(), StringList { values: values.iter().map(|value| value.to_string()).collect() })
        })
        .collect();
    UrlInfo { url: url.to_owned(), key: key.to_owned(), metadata, crawl_id: crawl.to_owned() }
}

fn discovered(info: UrlInfo, id: &str) -> UrlItem {
    UrlItem {
        item: Some(url_item::Item::Discovered(DiscoveredUrlItem { info: Some(info) })),
        id: id.to_owned(),
        creation_date: 0,
    }
}

fn known(info: UrlInfo, refetchable_from_date: u64) -> UrlItem {
    UrlItem {
        item: Some(url_item::Item::Known(KnownUrlItem { info: Some(info), refetchable_from_date })),
        id: String::new(),
        creation_date: 0,
    }
}

async fn put(client: &mut UrlFrontierClient<Channel>, items: Vec<UrlItem>) -> Vec<AckMessage> {
    let stream = client.put_ur_ls(tokio_stream::iter(items)).await.unwrap().into_inner();
    let mut acks = Vec::new();
    let mut stream = stream;
    while let Some(ack) = stream.message().await.unwrap() {
        acks.push(ack);
    }
    acks
}

async fn get(client: &mut UrlFrontierClient<Channel>, params: GetParams) -> Vec<UrlInfo> {
    let mut stream = client.get_ur_ls(params).await.unwrap().into_inner();
    let mut infos = Vec::new();
    while let Some(info) = stream.message().await.unwrap() {
        infos.push(info);
    }
    infos.sort_by(|a, b| a.url.cmp(&b.url));
    infos
}

fn from(crawl: &str) -> Option<get_params::Item> {
    Some(get_params::Item::CrawlId(crawl.to_owned()))
}

fn status(ack: &AckMessage) -> ack_message::Status {
    ack_message::Status::try_from(ack.status).unwrap()
}

/// Put, get, ack as a crawler does: acks in order under the client's ids (the URL without
/// one), metadata back as sent, the default crawl for an empty id, the host as the key for an
/// empty key, bad items skipped alone; a URL reported without a date is never served again.
#[tokio::test]
async fn a_crawler_s_round_trip() {
    let space = Space::directory();
    let mut server = start(&space).await;
    let client = &mut server.client;
    let items = vec![
        discovered(info("http://a.test/1", "", "", &[("depth", &["0"]), ("seed", &["yes", "twice"])]), "one"),
        discovered(info("http://a.test/2", "", "", &[]), ""),
        discovered(info("not a url", "", "", &[]), "bad"),
        UrlItem { item: None, id: "empty".into(), creation_date: 0 },
        discovered(info("http://b.test/1", "queue-b", "", &[]), "three"),
        discovered(info("http://a.test/1", "", "", &[("depth", &["9"])]), "again"),
    ];
    let acks = put(client, items).await;
    let summary: Vec<(&str, ack_message::Status)> =
        acks.iter().map(|ack| (ack.id.as_str(), status(ack))).collect();
    use ack_message::Status::{Ok, Skipped};
    assert_eq!(
        summary,
        [
            ("one", Ok),
            ("http://a.test/2", Ok),
            ("bad", Skipped),
            ("empty", Skipped),
            ("three", Ok),
            ("again", Ok)
        ]
    );

    let served =
        get(client, GetParams { max_urls_per_queue: 10, max_queues: 10, ..GetParams::default() }).await;
    let urls: Vec<(&str, &str, &str)> =
        served.iter().map(|info| (info.url.as_str(), info.key.as_str(), info.crawl_id.as_str())).collect();
    assert_eq!(
        urls,
        [
            ("http://a.test/1", "a.test", "DEFAULT"),
            ("http://a.test/2", "a.test", "DEFAULT"),
            ("http://b.test/1", "queue-b", "DEFAULT")
        ]
    );
    let expected =
        info("http://a.test/1", "a.test", "DEFAULT", &[("depth", &["0"]), ("seed", &["yes", "twice"])]);
    assert_eq!(served[0].metadata, expected.metadata, "the first discovery's metadata");
    assert!(get(client, GetParams::default()).await.is_empty(), "all leased");

    let fetched = info("http://a.test/1", "a.test", "DEFAULT", &[("status", &["200"])]);
    let acks = put(client, vec![known(fetched.clone(), 0)]).await;
    assert_eq!(status(&acks[0]), ack_message::Status::Ok);
    let item = client
        .get_url_status(UrlStatusRequest {
            url: "http://a.test/1".into(),
            key: String::new(),
            crawl_id: String::new(),
        })
        .await
        .unwrap()
        .into_inner();
    let Some(url_item::Item::Known(known_item)) = item.item else { panic!("{item:?}") };
    assert_eq!(known_item.refetchable_from_date, 0);
    assert_eq!(known_item.info.unwrap().metadata, fetched.metadata);
    let item = client
        .get_url_status(UrlStatusRequest {
            url: "http://a.test/2".into(),
            key: String::new(),
            crawl_id: String::new(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(matches!(item.item, Some(url_item::Item::Discovered(_))), "{item:?}");
    let missing = client
        .get_url_status(UrlStatusRequest {
            url: "http://z.test/".into(),
            key: String::new(),
            crawl_id: String::new(),
        })
        .await
        .unwrap_err();
    assert_eq!(missing.code(), tonic::Code::NotFound);

    let stats = client.get_stats(QueueWithinCrawlParams::default()).await.unwrap().into_inner();
    assert_eq!((stats.size, stats.in_process, stats.number_of_queues), (0, 2, 2));
    assert_eq!(stats.counts.get("completed"), Some(&1));
    assert_eq!(stats.crawl_id, "DEFAULT");
    server.stop().await;
}

/// Several crawls, each its own; `ListCrawls`, `DeleteCrawl`, `ListQueues`, `ListURLs`,
/// `CountURLs`, `DeleteQueue`, `SetActive`, politeness calls, and what is not offered.
#[tokio::test]
async fn crawls_queues_and_administration() {
    for space in [Space::directory(), Space::redis()] {
        crawls_queues_and_administration_in(&space).await;
    }
}

async fn crawls_queues_and_administration_in(space: &Space) {
    let mut server = start(space).await;
    let client = &mut server.client;
    let mut items = Vec::new();
    for crawl in ["news", "shop/eu"] {
        for (url, key) in [("http://a.test/x", "a"), ("http://a.test/Y", "a"), ("http://b.test/x", "b")] {
            items.push(discovered(info(url, key, crawl, &[]), ""));
        }
    }
    assert!(put(client, items).await.iter().all(|ack| status(ack) == ack_message::Status::Ok));
    let too_long = "c".repeat(201);
    let acks = put(client, vec![discovered(info("http://a.test/x", "a", &too_long, &[]), "long")]).await;
    assert_eq!(status(&acks[0]), ack_message::Status::Skipped, "a crawl id no file can be named for");
    let crawls = client.list_crawls(Local::default()).await.unwrap().into_inner().values;
    assert_eq!(crawls, ["news", "shop/eu"]);

    let queues = client
        .list_queues(Pagination { crawl_id: "news".into(), size: 1, ..Pagination::default() })
        .await
        .unwrap()
        .into_inner();
    assert_eq!((queues.values, queues.total, queues.size), (vec!["a".to_owned()], 2, 1));

    let list = |crawl: &str, filter: Option<&str>, ignore_case| ListUrlParams {
        crawl_id: crawl.into(),
        filter: filter.map(str::to_owned),
        ignore_case: Some(ignore_case),
        ..ListUrlParams::default()
    };
    let mut stream = client.list_ur_ls(list("news", Some("/y"), true)).await.unwrap().into_inner();
    let mut listed = Vec::new();
    while let Some(item) = stream.message().await.unwrap() {
        let Some(url_item::Item::Discovered(item)) = item.item else { panic!("discovered") };
        listed.push(item.info.unwrap().url);
    }
    assert_eq!(listed, ["http://a.test/Y"]);
    let count = |key: &str, filter: Option<&str>| CountUrlParams {
        key: key.into(),
        crawl_id: "news".into(),
        filter: filter.map(str::to_owned),
        ..CountUrlParams::default()
    };
    assert_eq!(client.count_ur_ls(count("", None)).await.unwrap().into_inner().value, 3);
    assert_eq!(client.count_ur_ls(count("a", None)).await.unwrap().into_inner().value, 2);
    assert_eq!(client.count_ur_ls(count("", Some("/x"))).await.unwrap().into_inner().value, 2);

    // Not active: nothing served, URLs still taken.
    client.set_active(Active { state: false, local: false }).await.unwrap();
    assert!(!client.get_active(Local::default()).await.unwrap().into_inner().state);
    assert!(get(client, GetParams { item: from("news"), ..GetParams::default() }).await.is_empty());
    client.set_active(Active { state: true, local: false }).await.unwrap();

    // Queue a blocked far ahead, b with a crawl limit of 0 completions left: nothing from either
    // but what the limit allows.
    let far = 4_000_000_000;
    let block = BlockQueueParams { key: "a".into(), time: far, crawl_id: "news".into(), local: false };
    client.block_queue_until(block).await.unwrap();
    let served = get(client, GetParams { item: from("news"), ..GetParams::default() }).await;
    assert_eq!(served.iter().map(|info| info.url.as_str()).collect::<Vec<_>>(), ["http://b.test/x"]);
    let limit = CrawlLimitParams { key: "b".into(), limit: 1, crawl_id: "news".into() };
    client.set_crawl_limit(limit).await.unwrap();
    put(client, vec![known(info("http://b.test/x", "b", "news", &[]), 1)]).await;
    let params = GetParams { item: from("news"), ..GetParams::default() };
    assert!(get(client, params).await.is_empty(), "b at its limit, a blocked");
    let delay =
        QueueDelayParams { key: "a".into(), delay_requestable: 5, crawl_id: "news".into(), local: false };
    client.set_delay(delay).await.unwrap();
    let unknown =
        QueueDelayParams { key: "zz".into(), delay_requestable: 5, crawl_id: "news".into(), local: false };
    assert_eq!(client.set_delay(unknown).await.unwrap_err().code(), tonic::Code::NotFound);

    // Any crawl: the other crawl's URLs are served under its id.
    let served = get(
        client,
        GetParams { item: Some(get_params::Item::AnyCrawlId(Default::default())), ..GetParams::default() },
    )
    .await;
    assert_eq!(served.len(), 3);
    assert!(served.iter().all(|info| info.crawl_id == "shop/eu"));

    let deleted = client
        .delete_queue(QueueWithinCrawlParams { key: "a".into(), crawl_id: "news".into(), local: false })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(deleted.value, 2);
    assert_eq!(client.count_ur_ls(count("", None)).await.unwrap().into_inner().value, 1);
    let deleted =
        client.delete_crawl(DeleteCrawlMessage { value: "shop/eu".into(), local: false }).await.unwrap();
    assert_eq!(deleted.into_inner().value, 3);
    assert_eq!(client.list_crawls(Local::default()).await.unwrap().into_inner().values, ["news"]);
    let contents = space.contents();
    match space {
        Space::Directory(_) => assert_eq!(contents, ["news.redb"], "its file is gone"),
        Space::Redis(_) => {
            assert!(contents.iter().all(|key| !key.contains("shop%2Feu")), "its keys are gone: {contents:?}");
            assert!(contents.contains(&"{freshet/news}:pages".to_owned()), "{contents:?}");
        }
    }

    let nodes = client.list_nodes(Empty {}).await.unwrap().into_inner().values;
    assert_eq!(nodes, ["127.0.0.1:7071"]);
    let log = client.set_log_level(LogLevelParams::default()).await.unwrap_err();
    assert_eq!(log.code(), tonic::Code::Unimplemented);
    let purge = client.purge_ur_ls(PurgeUrlParams::default()).await.unwrap_err();
    assert_eq!(purge.code(), tonic::Code::Unimplemented);
    server.stop().await;
}

/// What a crawl held is there after a restart on the same directory: its URLs, metadata, what
/// is done and what is scheduled, its queues' politeness; the leases are not.
#[tokio::test]
async fn a_restarted_service_keeps_its_crawls() {
    for space in [Space::directory(), Space::redis()] {
        a_restarted_service_keeps_its_crawls_in(&space).await;
    }
}

async fn a_restarted_service_keeps_its_crawls_in(space: &Space) {
    let mut server = start(space).await;
    let client = &mut server.client;
    let mut items: Vec<UrlItem> = (0..50)
        .map(|i| {
            discovered(info(&format!("http://h{}.test/{i}", i % 5), "", "c", &[("n", &[&i.to_string()])]), "")
        })
        .collect();
    items.push(known(info("http://h0.test/done", "", "c", &[]), 0));
    assert_eq!(put(client, items).await.len(), 51);
    let served =
        get(client, GetParams { max_urls_per_queue: 2, item: from("c"), ..GetParams::default() }).await;
    assert_eq!(served.len(), 10);
    let block =
        BlockQueueParams { key: "h4.test".into(), time: 4_000_000_000, crawl_id: "c".into(), local: false };
    client.block_queue_until(block).await.unwrap();
    server.stop().await;

    let mut server = start(space).await;
    let client = &mut server.client;
    assert_eq!(client.list_crawls(Local::default()).await.unwrap().into_inner().values, ["c"]);
    let count = CountUrlParams { crawl_id: "c".into(), ..CountUrlParams::default() };
    assert_eq!(client.count_ur_ls(count).await.unwrap().into_inner().value, 51);
    let stats = client
        .get_stats(QueueWithinCrawlParams { crawl_id: "c".into(), ..QueueWithinCrawlParams::default() })
        .await
        .unwrap()
        .into_inner();
    assert_eq!((stats.size, stats.in_process, stats.counts.get("completed").copied()), (50, 0, Some(1)));
    let served = get(client, GetParams { item: from("c"), ..GetParams::default() }).await;
    assert_eq!(served.len(), 40, "every URL but h4.test's (blocked) and the one done");
    assert!(served.iter().all(|info| info.key != "h4.test"));
    let metadata: HashMap<&str, &str> =
        served.iter().map(|info| (info.url.as_str(), info.metadata["n"].values[0].as_str())).collect();
    assert_eq!(metadata["http://h1.test/11"], "11");
    server.stop().await;
}
