//! Runs the conformance suite (`freshet_frontier::conformance`) against every engine: the
//! in-memory engine and redb.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use freshet_frontier::conformance::Harness;
use freshet_frontier::{MemoryStore, RedbStore};

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
}

impl Redb {
    fn new() -> Self {
        Self { dir: tempfile::tempdir().unwrap() }
    }
}

impl Harness for Redb {
    type Store = RedbStore;

    fn create(&mut self) -> RedbStore {
        RedbStore::open(self.dir.path().join("frontier.redb")).unwrap()
    }

    fn reopen(&mut self, store: RedbStore) -> RedbStore {
        let path = store.path().to_path_buf();
        drop(store);
        RedbStore::open(path).unwrap()
    }
}

mod memory {
    freshet_frontier::conformance_tests!(super::Memory);
}

mod redb {
    freshet_frontier::conformance_tests!(super::Redb::new());
}
