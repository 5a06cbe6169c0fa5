//! The shards' handover on a Redis server of the test's own (`freshet_frontier::shards`): URLs
//! reach the receiver's inbox in order and leave it only when taken; the crawl is over only
//! when every shard has started and is idle with an empty inbox, or has left.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use freshet_frontier::conformance::{RedisCluster, RedisServer};
use freshet_frontier::{Handover, ShardExchange, ShardPlan};

fn handover(url: &str, depth: u32) -> Handover {
    Handover::Link { url: url.into(), depth }
}

fn exchanges(server: &RedisServer, count: u32) -> Vec<ShardExchange> {
    (0..count)
        .map(|index| ShardExchange::new(&server.url, "crawl", ShardPlan::new(index, count).unwrap()))
        .collect()
}

#[test]
fn urls_wait_in_the_receivers_inbox_until_it_takes_them() {
    let server = RedisServer::start();
    let mut shards = exchanges(&server, 3);
    let mut outgoing = vec![
        Vec::new(),
        vec![handover("http://b.test/1", 2), handover("http://b.test/2", 1)],
        vec![handover("http://c.test/", 0)],
    ];
    assert_eq!(shards[0].send(&mut outgoing).unwrap(), 3);
    assert!(outgoing.iter().all(Vec::is_empty), "sent lists are emptied");
    outgoing[1].push(handover("http://b.test/3", 4));
    assert_eq!(shards[2].send(&mut outgoing).unwrap(), 1);

    let first = shards[1].peek(2).unwrap();
    assert_eq!(first, [handover("http://b.test/1", 2), handover("http://b.test/2", 1)]);
    // A peek takes nothing: after a crash before the commit, the same entries come again.
    assert_eq!(shards[1].peek(10).unwrap().len(), 3);
    shards[1].take(first.len()).unwrap();
    assert_eq!(shards[1].peek(10).unwrap(), [handover("http://b.test/3", 4)]);
    assert_eq!(shards[1].waiting().unwrap(), 1);
    assert_eq!(shards[2].peek(10).unwrap(), [handover("http://c.test/", 0)]);
    assert!(shards[0].peek(10).unwrap().is_empty());

    // Each shard's keys carry its own hash tag (one node of a cluster holds them all).
    let mut connection = server.connect().unwrap();
    let mut keys: Vec<String> = redis::cmd("KEYS").arg("*").query(&mut connection).unwrap();
    keys.sort();
    let plan = ShardPlan::new(0, 3).unwrap();
    let (one, two) = (plan.prefix_of("crawl", 1), plan.prefix_of("crawl", 2));
    let mut expected = [
        format!("{{{one}}}:inbox"),
        format!("{{{one}}}:shard"),
        format!("{{{two}}}:inbox"),
        format!("{{{two}}}:shard"),
    ];
    expected.sort();
    assert_eq!(keys, expected);
    // One connection to the one server, however many shards it holds.
    assert_eq!((shards[0].connection_count(), shards[2].connection_count()), (1, 1));
    let pushed: u64 =
        redis::cmd("HGET").arg(format!("{{{one}}}:shard")).arg("pushed").query(&mut connection).unwrap();
    assert_eq!(pushed, 3);
}

#[test]
fn the_crawl_is_over_only_when_every_shard_is_done() {
    let server = RedisServer::start();
    let mut shards = exchanges(&server, 2);
    shards[0].say(true, false).unwrap();
    // Shard 1 has not started: URLs may still come from it.
    assert!(!shards[0].crawl_is_over().unwrap());
    shards[1].say(false, false).unwrap();
    assert!(!shards[0].crawl_is_over().unwrap(), "shard 1 is busy");
    shards[1].say(true, false).unwrap();
    assert!(shards[0].crawl_is_over().unwrap());
    assert!(shards[1].crawl_is_over().unwrap());

    // A URL handed over and not yet taken keeps the crawl going, though both say idle.
    shards[1].say(false, false).unwrap();
    shards[1].send(&mut [vec![handover("http://a.test/", 1)], Vec::new()]).unwrap();
    shards[1].say(true, false).unwrap();
    assert!(!shards[1].crawl_is_over().unwrap());
    // Taking it makes shard 0 busy in the same transaction.
    assert_eq!(shards[0].peek(10).unwrap().len(), 1);
    shards[0].take(1).unwrap();
    assert!(!shards[1].crawl_is_over().unwrap());
    shards[0].say(true, false).unwrap();
    assert!(shards[1].crawl_is_over().unwrap());

    // A shard that left takes nothing more: what waits for it does not hold the others.
    shards[0].send(&mut [Vec::new(), vec![handover("http://b.test/", 1)]]).unwrap();
    assert!(!shards[0].crawl_is_over().unwrap());
    shards[1].say(false, true).unwrap();
    assert!(shards[0].crawl_is_over().unwrap());
    assert_eq!(shards[1].waiting().unwrap(), 1, "kept for a resume");
}

#[test]
fn a_corrupt_inbox_entry_is_named() {
    let server = RedisServer::start();
    let mut shards = exchanges(&server, 2);
    let inbox = format!("{{{}}}:inbox", ShardPlan::new(0, 2).unwrap().prefix("crawl"));
    let mut connection = server.connect().unwrap();
    let () =
        redis::cmd("RPUSH").arg(&inbox).arg("not-a-depth http://a.test/").query(&mut connection).unwrap();
    let message = shards[0].peek(10).unwrap_err().to_string();
    assert!(message.contains(&inbox) && message.contains("DEPTH URL"), "{message}");
}

/// On a Redis Cluster of three masters, six shards' prefixes spread two to a node, and a shard
/// that talks to all of them holds one connection per node, not per shard.
#[test]
fn a_shard_holds_a_connection_per_node_of_a_cluster() {
    let cluster = RedisCluster::shared();
    let mut shards: Vec<ShardExchange> = (0..6)
        .map(|index| ShardExchange::new(&cluster.urls[0], "spread", ShardPlan::new(index, 6).unwrap()))
        .collect();
    let plan = ShardPlan::new(0, 6).unwrap();
    let mut per_node = [0; 3];
    for index in 0..6 {
        per_node[cluster.node_serving(&format!("{{{}}}:inbox", plan.prefix_of("spread", index)))] += 1;
    }
    assert_eq!(per_node, [2, 2, 2]);
    let mut outgoing: Vec<Vec<Handover>> = (0..6)
        .map(|index| if index == 0 { Vec::new() } else { vec![handover("http://a.test/", 1)] })
        .collect();
    assert_eq!(shards[0].send(&mut outgoing).unwrap(), 5);
    for (index, shard) in shards.iter_mut().enumerate().skip(1) {
        assert_eq!(shard.peek(10).unwrap(), [handover("http://a.test/", 1)], "shard {index}");
    }
    assert!(!shards[0].crawl_is_over().unwrap());
    assert_eq!(shards[0].connection_count(), 3);
}

/// A receiver's slot that moves to another master while a sender holds a connection to the old
/// one: the sender's next handover follows it (`MOVED`), and one sent while the slot's keys are
/// half migrated (`ASK` for the inbox, already moved) waits until the migration ends; each
/// arrives once, in order. A cluster of its own: the slot map changes.
#[test]
fn handovers_follow_a_receivers_slot_that_moves() {
    let cluster = RedisCluster::start();
    let mut shards: Vec<ShardExchange> = (0..2)
        .map(|index| ShardExchange::new(&cluster.urls[0], "moving", ShardPlan::new(index, 2).unwrap()))
        .collect();
    let receiver = ShardPlan::new(1, 2).unwrap().prefix_of("moving", 1);
    let (inbox, state) = (format!("{{{receiver}}}:inbox"), format!("{{{receiver}}}:shard"));
    let send = |shards: &mut [ShardExchange], url: &str| {
        let mut outgoing = vec![Vec::new(), vec![handover(url, 1)]];
        shards[0].send(&mut outgoing).unwrap()
    };
    assert_eq!(send(&mut shards, "http://a.test/1"), 1);
    let from = cluster.node_serving(&inbox);
    let to = (from + 1) % 3;
    cluster.move_slot(&inbox, to);
    assert_eq!(send(&mut shards, "http://a.test/2"), 1);
    let further = (to + 1) % 3;
    let slot_move = cluster.start_slot_move(&inbox, further);
    slot_move.migrate_keys(&[&inbox]);
    std::thread::scope(|scope| {
        let sender = scope.spawn(|| send(&mut shards, "http://a.test/3"));
        std::thread::sleep(std::time::Duration::from_millis(300));
        assert!(!sender.is_finished(), "the handover waits while the keys are on both sides");
        slot_move.finish();
        assert_eq!(sender.join().unwrap(), 1);
    });
    assert_eq!(cluster.node_holding(&inbox), further);
    assert_eq!(cluster.node_holding(&state), further);
    let urls: Vec<Handover> = ["http://a.test/1", "http://a.test/2", "http://a.test/3"]
        .into_iter()
        .map(|url| handover(url, 1))
        .collect();
    assert_eq!(shards[1].peek(10).unwrap(), urls);
}

/// Destroying a shard's frontier takes its inbox and state with it: a crawl started again
/// under the prefix reads neither the old handovers nor the old shards' verdicts.
#[test]
fn destroying_a_shards_store_takes_its_inbox_and_state() {
    let server = RedisServer::start();
    let mut shards = exchanges(&server, 2);
    let prefix = ShardPlan::new(0, 2).unwrap().prefix("crawl");
    shards[1].send(&mut [vec![handover("http://a.test/", 1)], Vec::new()]).unwrap();
    shards[0].say(true, true).unwrap();
    let store = freshet_frontier::RedisStore::open(freshet_frontier::RedisOptions {
        prefix: prefix.clone(),
        ..freshet_frontier::RedisOptions::new(server.url.clone())
    })
    .unwrap();
    store.destroy().unwrap();
    let mut connection = server.connect().unwrap();
    let keys: Vec<String> = redis::cmd("KEYS").arg(format!("{{{prefix}}}:*")).query(&mut connection).unwrap();
    assert!(keys.is_empty(), "{keys:?}");
}
