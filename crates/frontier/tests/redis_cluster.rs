//! The Redis engine on a Redis Cluster (`conformance::RedisCluster`, three masters): a store
//! opened through any node's URL follows its prefix's slot to the master that serves it
//! (`connect_to_slot_owner`), so prefixes spread the crawls' keys across the nodes, the
//! one-writer rule and what was committed hold whichever node a store is opened through, and
//! `check_server` asks the node that will hold the store. The conformance suite on a cluster is
//! in tests/conformance.rs (`redis_cluster`).
//!
//! A cluster takes about 2 s to start (see `RedisCluster`): the tests that only read and write
//! their own prefixes share one (`RedisCluster::shared`); those that change a node's settings
//! or need another shape of cluster start their own.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use freshet_frontier::conformance::{RedisCluster, SlotMove, discovery};
use freshet_frontier::{FrontierStore, Op, RedisOptions, RedisStore};

/// The store of `prefix` on the cluster, through node `node`'s URL.
fn options(cluster: &RedisCluster, node: usize, prefix: &str) -> RedisOptions {
    RedisOptions { prefix: prefix.to_owned(), ..RedisOptions::new(cluster.urls[node].clone()) }
}

/// Two prefixes whose slots are on nodes 1 and 2, both opened through node 0: each store's keys
/// are on its own slot's node, and on no other; what each committed is there.
#[test]
fn prefixes_spread_the_stores_across_the_nodes() {
    let cluster = RedisCluster::shared();
    let prefixes = [cluster.prefix_on(1, "spread"), cluster.prefix_on(2, "spread")];
    // Held open, so that each still holds its prefix (`{P}:owner`) when the keys are looked for.
    let mut stores = Vec::new();
    for (index, prefix) in prefixes.iter().enumerate() {
        let mut store = RedisStore::open(options(&cluster, 0, prefix)).unwrap();
        let batch: Vec<Op> = (0..=index)
            .map(|i| Op::Discover(discovery(&format!("https://{prefix}.test/{i}"), "h.test")))
            .collect();
        store.commit(&batch).unwrap();
        assert_eq!(store.counts().unwrap().discovered, index as u64 + 1);
        stores.push(store);
    }
    for (node, prefix) in (1..).zip(&prefixes) {
        for table in ["meta", "urls", "pages", "host_keys", "hosts", "owner"] {
            assert_eq!(cluster.node_holding(&format!("{{{prefix}}}:{table}")), node, "{prefix}: {table}");
        }
        let mut connection = cluster.connect(node).unwrap();
        let pages: u64 =
            redis::cmd("HLEN").arg(format!("{{{prefix}}}:pages")).query(&mut connection).unwrap();
        assert_eq!(pages, node as u64, "{prefix}");
    }
}

/// A second open of a prefix through another node's URL is refused while the first is open
/// (the holder's client id is looked for on the prefix's master, whose ids they are, not on the
/// node asked); once the first is closed, an open through node 1 takes the prefix.
#[test]
fn one_writer_whichever_node_a_store_is_opened_through() {
    let cluster = RedisCluster::shared();
    let prefix = cluster.prefix_on(2, "one-writer");
    let first = RedisStore::open(options(&cluster, 0, &prefix)).unwrap();
    let message = RedisStore::open(options(&cluster, 1, &prefix)).unwrap_err().to_string();
    assert!(message.contains(&format!("prefix {prefix:?} is in use by another connection")), "{message}");
    drop(first);
    let _again = RedisStore::open(options(&cluster, 1, &prefix)).unwrap();
    assert_eq!(cluster.node_holding(&format!("{{{prefix}}}:owner")), 2);
}

/// What was committed through node 0's URL is what a store opened through node 1's or node 2's
/// sees: the same pages, hosts and counts, an in-flight page still in flight.
#[test]
fn a_store_opened_through_another_node_sees_the_commits() {
    let cluster = RedisCluster::shared();
    let prefix = cluster.prefix_on(1, "reopen");
    let mut store = RedisStore::open(options(&cluster, 0, &prefix)).unwrap();
    let batch: Vec<Op> = (0..30)
        .map(|i| {
            Op::Discover(discovery(&format!("https://h{}.test/{i}", i % 4), &format!("h{}.test", i % 4)))
        })
        .collect();
    let report = store.commit(&batch).unwrap();
    store.commit(&[Op::Start(report.admissions[7].page)]).unwrap();
    let pages = store.pages(None, usize::MAX).unwrap();
    let hosts = store.hosts(None, usize::MAX).unwrap();
    let counts = store.counts().unwrap();
    drop(store);
    for node in [1, 2] {
        let store = RedisStore::open(options(&cluster, node, &prefix)).unwrap();
        assert!(store.pages(None, usize::MAX).unwrap() == pages, "the pages through node {node}");
        assert_eq!(store.hosts(None, usize::MAX).unwrap(), hosts, "through node {node}");
        assert_eq!(store.counts().unwrap(), counts, "through node {node}");
        assert_eq!(store.lookup("https://h3.test/7").unwrap(), Some(report.admissions[7].page));
    }
    // And it writes there: the next id follows the last one given through node 0.
    let mut store = RedisStore::open(options(&cluster, 2, &prefix)).unwrap();
    let next = store.commit(&[Op::Discover(discovery("https://n.test/", "n.test"))]).unwrap();
    assert_eq!(next.admissions[0].page.0, 30);
    assert_eq!(cluster.node_holding(&format!("{{{prefix}}}:meta")), 1);
}

/// `check_server` through node 0 asks the node that serves the prefix: it passes while every
/// node syncs every write, and refuses, naming the setting, once the prefix's node (not node 0)
/// does not; a prefix served by node 0 still passes. A cluster of its own: it changes a node's
/// settings.
#[test]
fn check_server_asks_the_node_of_the_prefix() {
    let cluster = RedisCluster::start();
    let (remote, local) = (cluster.prefix_on(2, "checked"), cluster.prefix_on(0, "checked"));
    RedisStore::check_server(&options(&cluster, 0, &remote)).unwrap();
    let mut node = cluster.connect(2).unwrap();
    redis::cmd("CONFIG").arg("SET").arg("appendfsync").arg("everysec").query::<()>(&mut node).unwrap();
    let message = RedisStore::check_server(&options(&cluster, 0, &remote)).unwrap_err().to_string();
    assert!(
        message.contains("appendfsync \"everysec\"") && message.contains("--appendfsync always"),
        "{message}"
    );
    let message = RedisStore::open(options(&cluster, 1, &remote)).unwrap_err().to_string();
    assert!(message.contains("appendfsync \"everysec\""), "{message}");
    RedisStore::check_server(&options(&cluster, 0, &local)).unwrap();
    RedisStore::check_server(&options(&cluster, 2, &local)).unwrap();
}

/// A cluster node may not know its own address: one that has met no other lists itself with an
/// empty address in `CLUSTER SLOTS`, and one set to `cluster-preferred-endpoint-type
/// unknown-endpoint` lists every master with none (NULL). Redis's documentation says a client
/// then connects to the host it asked, at the port listed; a store opened through the node's
/// URL does so.
#[test]
fn a_node_that_does_not_know_its_address_is_reached_at_the_url_asked() {
    let cluster = RedisCluster::with_nodes(1);
    let mut store = RedisStore::open(options(&cluster, 0, "alone")).unwrap();
    store.commit(&[Op::Discover(discovery("https://a.test/", "a.test"))]).unwrap();
    drop(store);
    let mut node = cluster.connect(0).unwrap();
    redis::cmd("CONFIG")
        .arg("SET")
        .arg("cluster-preferred-endpoint-type")
        .arg("unknown-endpoint")
        .query::<()>(&mut node)
        .unwrap();
    let store = RedisStore::open(options(&cluster, 0, "alone")).unwrap();
    assert_eq!(store.counts().unwrap().discovered, 1);
    RedisStore::check_server(&options(&cluster, 0, "alone")).unwrap();
}

/// On a cluster, a prefix must make one hash tag of every key's name: an empty one (or one
/// that starts with `}`) would not (`{}:meta` is hashed whole), and is refused with a clear
/// error rather than failing at the first command with `MOVED` or `CROSSSLOT`.
#[test]
fn a_prefix_that_is_not_a_hash_tag_is_refused_on_a_cluster() {
    let cluster = RedisCluster::shared();
    for prefix in ["", "}x"] {
        let message = RedisStore::open(options(&cluster, 0, prefix)).unwrap_err().to_string();
        assert!(message.contains("hash tag"), "{prefix:?}: {message}");
    }
}

/// `count` discoveries on hosts `h0.test`…`h3.test`, their URLs numbered from `first`.
fn discoveries(first: usize, count: usize) -> Vec<Op> {
    (first..first + count)
        .map(|i| {
            Op::Discover(discovery(&format!("https://h{}.test/{i}", i % 4), &format!("h{}.test", i % 4)))
        })
        .collect()
}

/// Starts moving the slot of the store under `prefix` to node `to` and migrates its `meta` key
/// alone: the old master answers `ASK` for it, and the move ends at `SlotMove::finish`.
fn meta_half_migrated<'a>(cluster: &'a RedisCluster, prefix: &str, to: usize) -> SlotMove<'a> {
    let slot_move = cluster.start_slot_move(&format!("{{{prefix}}}"), to);
    slot_move.migrate_keys(&[format!("{{{prefix}}}:meta")]);
    slot_move
}

/// A resharding moves a store's slot to another master while the store is open: its next
/// commit and reads follow the slot there (`MOVED`, then the store connects again and takes its
/// prefix over from its old connection) without an error, its keys are then on the new master
/// only, and the prefix is still held (a second open through any node is refused). A cluster of
/// its own: the slot map changes.
#[test]
fn a_store_follows_its_slot_to_another_master() {
    let cluster = RedisCluster::start();
    let prefix = cluster.prefix_on(1, "moving");
    let mut store = RedisStore::open(options(&cluster, 0, &prefix)).unwrap();
    let report = store.commit(&discoveries(0, 20)).unwrap();
    store.commit(&[Op::Start(report.admissions[3].page)]).unwrap();
    cluster.move_slot(&format!("{{{prefix}}}"), 2);
    assert_eq!(cluster.node_serving(&format!("{{{prefix}}}")), 2);
    // A read first: it follows the slot as a commit does.
    assert_eq!(store.counts().unwrap().pages(), 20);
    let next = store.commit(&discoveries(20, 5)).unwrap();
    assert_eq!(next.admissions[0].page.0, 20, "ids go on from the old master's");
    assert_eq!(store.counts().unwrap().pages(), 25);
    assert_eq!(store.recover().unwrap(), 1, "the page in flight is still in flight");
    for table in ["meta", "urls", "pages", "host_keys", "hosts", "owner"] {
        assert_eq!(cluster.node_holding(&format!("{{{prefix}}}:{table}")), 2, "{table}");
    }
    for node in 0..3 {
        let message = RedisStore::open(options(&cluster, node, &prefix)).unwrap_err().to_string();
        assert!(message.contains("is in use by another connection"), "through node {node}: {message}");
    }
    drop(store);
    let store = RedisStore::open(options(&cluster, 0, &prefix)).unwrap();
    assert_eq!(store.counts().unwrap().pages(), 25);
    assert_eq!(store.lookup("https://h1.test/21").unwrap(), Some(next.admissions[1].page));
}

/// A commit made while the slot's keys are half migrated (the old master answers `ASK` for the
/// store's `meta`, already on the new one) waits for the migration to end, then runs on the new
/// master, once.
#[test]
fn a_commit_waits_for_a_migration_in_progress() {
    let cluster = RedisCluster::start();
    let prefix = cluster.prefix_on(0, "migrating");
    let mut store = RedisStore::open(options(&cluster, 1, &prefix)).unwrap();
    store.commit(&discoveries(0, 10)).unwrap();
    let slot_move = meta_half_migrated(&cluster, &prefix, 1);
    let started = std::time::Instant::now();
    let report = std::thread::scope(|scope| {
        let commit = scope.spawn(|| store.commit(&discoveries(10, 10)));
        std::thread::sleep(std::time::Duration::from_millis(400));
        assert!(!commit.is_finished(), "the commit waits while the keys are on both sides");
        slot_move.finish();
        commit.join().unwrap()
    })
    .unwrap();
    assert!(started.elapsed() >= std::time::Duration::from_millis(400));
    assert_eq!(report.admissions.len(), 10);
    assert_eq!(report.admissions[0].page.0, 10);
    assert_eq!(store.counts().unwrap().discovered, 20);
    assert_eq!(cluster.node_holding(&format!("{{{prefix}}}:pages")), 1);
}

/// A store opened (a crawl resumed) while its slot's keys are half migrated waits for the
/// migration to end, then opens on the new master with what was committed before.
#[test]
fn an_open_waits_for_a_migration_in_progress() {
    let cluster = RedisCluster::start();
    let prefix = cluster.prefix_on(2, "reopening");
    let mut store = RedisStore::open(options(&cluster, 0, &prefix)).unwrap();
    store.commit(&discoveries(0, 7)).unwrap();
    drop(store);
    let slot_move = meta_half_migrated(&cluster, &prefix, 1);
    let store = std::thread::scope(|scope| {
        let open = scope.spawn(|| RedisStore::open(options(&cluster, 0, &prefix)));
        std::thread::sleep(std::time::Duration::from_millis(400));
        assert!(!open.is_finished(), "the open waits while the keys are on both sides");
        slot_move.finish();
        open.join().unwrap()
    })
    .unwrap();
    assert_eq!(store.counts().unwrap().pages(), 7);
    assert_eq!(cluster.node_holding(&format!("{{{prefix}}}:owner")), 1);
}

/// The wait is bounded: with `slot_wait` at 300 ms, a commit during a migration that does not
/// end fails after about that long, naming the server's answer, and applies nothing; once the
/// migration ends, the same batch commits. And a store whose prefix another connection took on
/// the slot's new master (its `{P}:owner` no longer names this store's connection) fails rather
/// than write beside it.
#[test]
fn the_wait_is_bounded_and_a_prefix_taken_meanwhile_is_not_written() {
    let cluster = RedisCluster::start();
    let prefix = cluster.prefix_on(2, "bounded");
    let short =
        RedisOptions { slot_wait: std::time::Duration::from_millis(300), ..options(&cluster, 0, &prefix) };
    let mut store = RedisStore::open(short).unwrap();
    store.commit(&discoveries(0, 5)).unwrap();
    let slot_move = meta_half_migrated(&cluster, &prefix, 0);
    let started = std::time::Instant::now();
    let message = store.commit(&discoveries(5, 5)).unwrap_err().to_string();
    let waited = started.elapsed();
    assert!(
        waited >= std::time::Duration::from_millis(300) && waited < std::time::Duration::from_secs(5),
        "{waited:?}"
    );
    assert!(message.contains("Ask") || message.contains("TryAgain"), "{message}");
    slot_move.finish();
    assert_eq!(store.counts().unwrap().discovered, 5, "nothing of the failed commit");
    store.commit(&discoveries(5, 5)).unwrap();
    assert_eq!(store.counts().unwrap().discovered, 10);

    // Another connection takes the prefix on the new master (as an `open` there would, once it
    // found the old owner's id alive on no connection of that master), then the slot moves on.
    let mut node = cluster.connect(0).unwrap();
    redis::cmd("SET").arg(format!("{{{prefix}}}:owner")).arg(999_999).query::<()>(&mut node).unwrap();
    cluster.move_slot(&format!("{{{prefix}}}"), 1);
    let message = store.commit(&discoveries(10, 5)).unwrap_err().to_string();
    assert!(message.contains("was taken by another connection while its slot moved"), "{message}");
    let mut node = cluster.connect(1).unwrap();
    let owner: i64 = redis::cmd("GET").arg(format!("{{{prefix}}}:owner")).query(&mut node).unwrap();
    assert_eq!(owner, 999_999, "the other connection keeps the prefix");
    let discovered: u64 =
        redis::cmd("HGET").arg(format!("{{{prefix}}}:meta")).arg("discovered").query(&mut node).unwrap();
    assert_eq!(discovered, 10);
}
