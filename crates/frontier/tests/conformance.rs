//! Runs the conformance suite (`freshet_frontier::conformance`) against every engine: the
//! in-memory engine, redb and Redis (a `redis-server` of each test's own on 127.0.0.1), each also
//! behind the seen-URL index (`SeenFilter`), which must not change what any verb answers; redb also with its seen-set entries merged into its `urls`
//! table at every commit and every few URLs (by default, a merge waits for 131,072 new URLs,
//! which no check reaches), and without a cache of the file's pages; Redis also on a Redis
//! Cluster of three masters, which its checks share, each with a prefix of its own.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use freshet_frontier::conformance::{Harness, RedisCluster, RedisServer};
use freshet_frontier::{MemoryStore, RedbOptions, RedbStore, RedisOptions, RedisStore, SeenFilter};

/// The memory engine: its data lives as long as the value, so reopening hands it back.
struct Memory;

impl Harness for Memory {
    type Store = MemoryStore;

    fn create(&mut self) -> MemoryStore {
        MemoryStore::new()
    }

    fn reopen(&mut self, store: MemoryStore) -> MemoryStore {
        store
    }
}

/// redb in a temporary directory; reopening drops the handle (closing the file) and opens the
/// file again.
struct Redb {
    dir: tempfile::TempDir,
    options: RedbOptions,
}

impl Redb {
    fn new() -> Self {
        Self::with(RedbOptions::default())
    }

    /// Merging the seen-set entries of new URLs into `urls` once `at_least` are held.
    fn merging_at(at_least: u64) -> Self {
        Self::with(RedbOptions { merge_at_least: at_least, merge_divisor: 16, ..RedbOptions::default() })
    }

    fn with(options: RedbOptions) -> Self {
        Self { dir: tempfile::tempdir().unwrap(), options }
    }
}

impl Harness for Redb {
    type Store = RedbStore;

    fn create(&mut self) -> RedbStore {
        RedbStore::open_with(self.dir.path().join("frontier.redb"), self.options).unwrap()
    }

    fn reopen(&mut self, store: RedbStore) -> RedbStore {
        let path = store.path().to_path_buf();
        drop(store);
        RedbStore::open_with(path, self.options).unwrap()
    }
}

/// Redis: a server of its own (`conformance::RedisServer`, syncing every write), or a store of
/// its own on the cluster the Redis Cluster checks share (`conformance::RedisCluster::shared`),
/// opened through node 0's URL under a prefix whose slot is on node `n mod 3` for the `n`th
/// harness: two checks in three have their store on another node than the one asked, which
/// `create` checks. Reopening drops the store (its connection) and opens the prefix again.
struct Redis {
    server: RedisAt,
    options: RedisOptions,
}

/// What keeps a [`Redis`] harness's server up.
enum RedisAt {
    Server {
        _up: RedisServer,
    },
    /// The cluster, and the node that serves the harness's prefix.
    Cluster {
        cluster: Arc<RedisCluster>,
        node: usize,
    },
}

impl Redis {
    fn new() -> Self {
        let server = RedisServer::start();
        let options = RedisOptions::new(server.url.clone());
        Self { server: RedisAt::Server { _up: server }, options }
    }

    fn on_cluster() -> Self {
        static HARNESSES: AtomicUsize = AtomicUsize::new(0);
        let cluster = RedisCluster::shared();
        let harness = HARNESSES.fetch_add(1, Ordering::Relaxed);
        let node = harness % cluster.urls.len();
        let prefix = cluster.prefix_on(node, &format!("conformance-{harness}"));
        let options = RedisOptions { prefix, ..RedisOptions::new(cluster.urls[0].clone()) };
        Self { server: RedisAt::Cluster { cluster, node }, options }
    }
}

impl Harness for Redis {
    type Store = RedisStore;

    fn create(&mut self) -> RedisStore {
        let store = RedisStore::open(self.options.clone()).unwrap();
        if let RedisAt::Cluster { cluster, node } = &self.server {
            let meta = format!("{{{}}}:meta", self.options.prefix);
            assert_eq!(cluster.node_holding(&meta), *node, "the store's keys are on its slot's node");
        }
        store
    }

    fn reopen(&mut self, store: RedisStore) -> RedisStore {
        drop(store);
        RedisStore::open(self.options.clone()).unwrap()
    }
}

mod memory {
    freshet_frontier::conformance_tests!(super::Memory);
}

mod redis_engine {
    freshet_frontier::conformance_tests!(super::Redis::new());
}

mod redis_cluster {
    freshet_frontier::conformance_tests!(super::Redis::on_cluster());
}

mod filtered_redis {
    freshet_frontier::conformance_tests!(super::Filtered(super::Redis::new()));
}

mod redb {
    freshet_frontier::conformance_tests!(super::Redb::new());
}

mod redb_merging_every_commit {
    freshet_frontier::conformance_tests!(super::Redb::merging_at(0));
}

mod redb_merging_every_3_urls {
    freshet_frontier::conformance_tests!(super::Redb::merging_at(3));
}

/// redb without a cache of its file's pages (`cache_bytes` 0): every read goes to the file, and
/// every verb must answer the same.
mod redb_without_a_cache {
    freshet_frontier::conformance_tests!(super::Redb::with(freshet_frontier::RedbOptions {
        cache_bytes: 0,
        merge_at_least: 3,
        ..freshet_frontier::RedbOptions::default()
    }));
}

/// An engine behind the seen-URL index; reopening reopens the engine and rebuilds the index
/// from it (as a resumed crawl does).
struct Filtered<H>(H);

impl<H: Harness> Harness for Filtered<H> {
    type Store = SeenFilter<H::Store>;

    fn create(&mut self) -> Self::Store {
        SeenFilter::new(self.0.create())
    }

    fn reopen(&mut self, store: Self::Store) -> Self::Store {
        SeenFilter::open(self.0.reopen(store.into_store())).unwrap()
    }
}

mod filtered_memory {
    freshet_frontier::conformance_tests!(super::Filtered(super::Memory));
}

mod filtered_redb {
    freshet_frontier::conformance_tests!(super::Filtered(super::Redb::new()));
}

mod filtered_redb_merging_every_commit {
    freshet_frontier::conformance_tests!(super::Filtered(super::Redb::merging_at(0)));
}
