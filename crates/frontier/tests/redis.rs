//! What the Redis engine does beyond the conformance suite: it refuses a server that would lose
//! acknowledged commits, a prefix another live connection holds, a store of another format; it
//! takes over a prefix whose holder died (a `kill -9` closes its connection); prefixes on one
//! server are separate crawls. And the test server says why it could not start.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use freshet_frontier::conformance::{RedisServer, discovery};
use freshet_frontier::{FrontierStore, Op, RedisOptions, RedisStore, StoreError};

#[test]
fn a_server_that_does_not_sync_every_write_is_refused_unless_allowed() {
    let server = RedisServer::with(&["--appendonly", "yes", "--appendfsync", "everysec"]);
    let error = RedisStore::open(RedisOptions::new(server.url.clone())).unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("appendfsync \"everysec\"") && message.contains("--appendfsync always"),
        "{message}"
    );
    let allowed = RedisOptions { require_fsync: false, ..RedisOptions::new(server.url.clone()) };
    let mut store = RedisStore::open(allowed).unwrap();
    store.commit(&[Op::Discover(discovery("https://a.test/", "a.test"))]).unwrap();
    assert_eq!(store.counts().unwrap().discovered, 1);
}

/// The test server itself: a port taken before the server binds it is reported as an exit
/// (which `RedisServer::start` and `RedisCluster::start` answer with fresh ports), with the
/// server's own words for it, not as a server that does not answer; and another test's
/// server answering on that port is not taken for ours.
#[test]
fn a_test_server_whose_port_is_taken_says_so() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let Err(exit) = RedisServer::on_port(port, &[]) else { panic!("redis-server started on a taken port") };
    assert!(exit.contains(&format!("on port {port}")) && exit.contains("Address already in use"), "{exit}");

    let other = RedisServer::start();
    let port: u16 = other.url.trim_start_matches("redis://127.0.0.1:").trim_end_matches('/').parse().unwrap();
    let Err(exit) = RedisServer::on_port(port, &[]) else { panic!("another server was taken for ours") };
    assert!(exit.contains(&format!("on port {port}")) && exit.contains("Address already in use"), "{exit}");
}

#[test]
fn a_prefix_is_held_by_one_live_connection_and_taken_over_from_a_dead_one() {
    let server = RedisServer::start();
    let options = RedisOptions::new(server.url.clone());
    let first = RedisStore::open(options.clone()).unwrap();
    let message = RedisStore::open(options.clone()).unwrap_err().to_string();
    assert!(message.contains("prefix \"freshet\" is in use by another connection"), "{message}");
    // Another prefix on the same server is another crawl.
    let other = RedisStore::open(RedisOptions { prefix: "other".into(), ..options.clone() }).unwrap();
    assert_eq!(other.counts().unwrap().discovered, 0);
    drop(first);
    drop(RedisStore::open(options.clone()).unwrap());
    // A holder that died without giving the prefix back (as after `kill -9`): its connection
    // is gone, so the prefix is taken over.
    let mut dead = server.connect().unwrap();
    let id: i64 = redis::cmd("CLIENT").arg("ID").query(&mut dead).unwrap();
    redis::cmd("SET").arg("{freshet}:owner").arg(id).query::<()>(&mut dead).unwrap();
    drop(dead);
    RedisStore::open(options).unwrap();
}

#[test]
fn a_store_of_another_format_is_refused() {
    let server = RedisServer::start();
    let mut connection = server.connect().unwrap();
    redis::cmd("HSET").arg("{freshet}:meta").arg("format").arg(99).query::<()>(&mut connection).unwrap();
    let error = RedisStore::open(RedisOptions::new(server.url.clone())).unwrap_err();
    assert!(matches!(error, StoreError::FormatMismatch { found: 99, .. }), "{error}");
}

#[test]
fn a_commit_is_read_whole_from_another_connection() {
    // What a batch wrote is in the server for any connection: the pages, the seen set and the
    // hosts, and the store's own counts and listing agree.
    let server = RedisServer::start();
    let mut store = RedisStore::open(RedisOptions::new(server.url.clone())).unwrap();
    let batch: Vec<Op> = (0..500)
        .map(|i| {
            Op::Discover(discovery(&format!("https://h{}.test/{i}", i % 7), &format!("h{}.test", i % 7)))
        })
        .collect();
    store.commit(&batch).unwrap();
    let mut reader = server.connect().unwrap();
    let pages: u64 = redis::cmd("HLEN").arg("{freshet}:pages").query(&mut reader).unwrap();
    let urls: u64 = redis::cmd("HLEN").arg("{freshet}:urls").query(&mut reader).unwrap();
    let hosts: u64 = redis::cmd("HLEN").arg("{freshet}:hosts").query(&mut reader).unwrap();
    assert_eq!((pages, urls, hosts), (500, 500, 7));
    assert_eq!(store.counts().unwrap().discovered, 500);
    assert_eq!(store.pages(None, 1000).unwrap().len(), 500);
}

/// `destroy` deletes every key of its prefix and nothing of another's; the prefix can then be
/// opened afresh.
#[test]
fn destroy_deletes_its_prefix_only() {
    let server = RedisServer::start();
    let options = RedisOptions::new(server.url.clone());
    let other_options = RedisOptions { prefix: "other".into(), ..options.clone() };
    let mut store = RedisStore::open(options.clone()).unwrap();
    let mut other = RedisStore::open(other_options).unwrap();
    let mut started = store.commit(&[Op::Discover(discovery("https://a.test/", "a.test"))]).unwrap();
    store.commit(&[Op::Start(started.admissions.remove(0).page)]).unwrap();
    other.commit(&[Op::Discover(discovery("https://b.test/", "b.test"))]).unwrap();
    store.destroy().unwrap();
    let mut connection = server.connect().unwrap();
    let keys: Vec<String> = redis::cmd("KEYS").arg("*").query(&mut connection).unwrap();
    assert!(keys.iter().all(|key| key.starts_with("{other}:")), "{keys:?}");
    assert_eq!(other.counts().unwrap().discovered, 1);
    let store = RedisStore::open(options).unwrap();
    assert_eq!(store.counts().unwrap().pages(), 0);
    assert_eq!(store.lookup("https://a.test/").unwrap(), None);
}
