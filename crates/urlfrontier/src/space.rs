//! Where a service's crawls live: one store per crawl id.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use freshet_frontier::{FrontierStore, MemoryStore, RedbStore, RedisOptions, RedisStore};

use crate::error::{Result, ServiceError};

/// The longest crawl id accepted, in bytes (it names a file).
pub const MAX_CRAWL_ID_BYTES: usize = 200;

/// The crawls a service holds: each a [`FrontierStore`] of its own.
pub trait CrawlSpace: Send {
    /// The ids of the crawls held, in any order.
    ///
    /// # Errors
    /// The space's (a directory that cannot be read).
    fn list(&self) -> Result<Vec<String>>;
    /// The store of crawl `id`, created empty if the space has none.
    ///
    /// # Errors
    /// [`ServiceError::BadCrawlId`], the store's.
    fn open(&mut self, id: &str) -> Result<Box<dyn FrontierStore>>;
    /// Forgets crawl `id` and everything it held (its store must be closed first).
    ///
    /// # Errors
    /// The space's.
    fn delete(&mut self, id: &str) -> Result<()>;
}

/// Crawls in memory only, gone when the service stops: for tests and trials.
#[derive(Debug, Default)]
pub struct MemorySpace {
    ids: HashSet<String>,
}

impl CrawlSpace for MemorySpace {
    fn list(&self) -> Result<Vec<String>> {
        Ok(Vec::new())
    }

    fn open(&mut self, id: &str) -> Result<Box<dyn FrontierStore>> {
        check_id(id)?;
        self.ids.insert(id.to_owned());
        Ok(Box::new(MemoryStore::new()))
    }

    fn delete(&mut self, id: &str) -> Result<()> {
        self.ids.remove(id);
        Ok(())
    }
}

/// Crawls as `redb` files in one directory (the default): crawl `id` is `<dir>/<id>.redb`, with
/// every byte of the id outside `A–Z a–z 0–9 _ -` written `%XX`, so that any id is one file
/// name and the name gives the id back.
#[derive(Debug)]
pub struct RedbDirectory {
    dir: PathBuf,
}

impl RedbDirectory {
    /// The crawls of `dir`, created if missing.
    ///
    /// # Errors
    /// [`ServiceError::Io`] if the directory cannot be created.
    pub fn new(dir: impl Into<PathBuf>) -> Result<Self> {
        let dir = dir.into();
        std::fs::create_dir_all(&dir).map_err(|source| ServiceError::Io {
            action: "create the crawls' directory",
            path: dir.clone(),
            source,
        })?;
        Ok(Self { dir })
    }

    fn path(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{}.redb", file_stem(id)))
    }

    /// The directory.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl CrawlSpace for RedbDirectory {
    fn list(&self) -> Result<Vec<String>> {
        let io = |source| ServiceError::Io { action: "list the crawls in", path: self.dir.clone(), source };
        let mut ids = Vec::new();
        for entry in std::fs::read_dir(&self.dir).map_err(io)? {
            let name = entry.map_err(io)?.file_name();
            let Some(stem) = name.to_str().and_then(|name| name.strip_suffix(".redb")) else { continue };
            if let Some(id) = id_of_stem(stem) {
                ids.push(id);
            }
        }
        ids.sort_unstable();
        Ok(ids)
    }

    fn open(&mut self, id: &str) -> Result<Box<dyn FrontierStore>> {
        check_id(id)?;
        Ok(Box::new(RedbStore::open(self.path(id))?))
    }

    fn delete(&mut self, id: &str) -> Result<()> {
        let path = self.path(id);
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(source) => Err(ServiceError::Io { action: "delete the crawl", path, source }),
        }
    }
}

/// Crawls in a Redis server (the frontier's Redis engine): crawl `id` is the store of prefix
/// `<base>/<id>` (the id written as in [`RedbDirectory`]'s file names, so it holds no `{` or
/// `}` and stays one hash tag), and the ids are listed in the set `{<base>}:crawls`. Each
/// store's durability rule is the engine's ([`RedisOptions::require_fsync`]).
#[derive(Debug)]
pub struct RedisSpace {
    base: RedisOptions,
    client: redis::Client,
    catalog: String,
}

fn redis_error(action: &'static str) -> impl FnOnce(redis::RedisError) -> ServiceError {
    move |source| ServiceError::Redis { action, source }
}

impl RedisSpace {
    /// The crawls under `base.prefix` on the server at `base.url`, which must keep what the
    /// Redis engine requires (every write synced, unless `base.require_fsync` is off): checked
    /// now, before any crawl is opened.
    ///
    /// # Errors
    /// [`ServiceError::Redis`] if the server cannot be reached; [`ServiceError::Store`] if it
    /// does not sync every write.
    pub fn new(base: RedisOptions) -> Result<Self> {
        RedisStore::check_server(&base)?;
        let client =
            redis::Client::open(base.url.as_str()).map_err(redis_error("open the server's address"))?;
        let catalog = format!("{{{}}}:crawls", base.prefix);
        let space = Self { base, client, catalog };
        space.connection()?;
        Ok(space)
    }

    /// A connection for one call: the space is used at start and when a crawl is created or
    /// deleted, rarely enough not to hold one.
    fn connection(&self) -> Result<redis::Connection> {
        self.client.get_connection().map_err(redis_error("connect"))
    }

    fn options(&self, id: &str) -> RedisOptions {
        RedisOptions { prefix: format!("{}/{}", self.base.prefix, file_stem(id)), ..self.base.clone() }
    }
}

impl CrawlSpace for RedisSpace {
    fn list(&self) -> Result<Vec<String>> {
        let mut ids: Vec<String> = redis::cmd("SMEMBERS")
            .arg(&self.catalog)
            .query(&mut self.connection()?)
            .map_err(redis_error("list the crawls"))?;
        ids.sort_unstable();
        Ok(ids)
    }

    fn open(&mut self, id: &str) -> Result<Box<dyn FrontierStore>> {
        check_id(id)?;
        let store = RedisStore::open(self.options(id))?;
        redis::cmd("SADD")
            .arg(&self.catalog)
            .arg(id)
            .query::<()>(&mut self.connection()?)
            .map_err(redis_error("add the crawl to the list"))?;
        Ok(Box::new(store))
    }

    fn delete(&mut self, id: &str) -> Result<()> {
        RedisStore::open(self.options(id))?.destroy()?;
        redis::cmd("SREM")
            .arg(&self.catalog)
            .arg(id)
            .query::<()>(&mut self.connection()?)
            .map_err(redis_error("take the crawl off the list"))
    }
}

fn check_id(id: &str) -> Result<()> {
    let bad = |reason| Err(ServiceError::BadCrawlId { id: id.to_owned(), reason });
    if id.is_empty() {
        return bad("empty");
    }
    if id.len() > MAX_CRAWL_ID_BYTES {
        return bad("longer than 200 bytes");
    }
    Ok(())
}

fn kept(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-'
}

fn file_stem(id: &str) -> String {
    let mut stem = String::with_capacity(id.len());
    for byte in id.bytes() {
        if kept(byte) {
            stem.push(char::from(byte));
        } else {
            stem.push_str(&format!("%{byte:02X}"));
        }
    }
    stem
}

/// The id a file stem names; `None` for a name [`file_stem`] would not write.
fn id_of_stem(stem: &str) -> Option<String> {
    let mut bytes = Vec::with_capacity(stem.len());
    let mut rest = stem.as_bytes();
    while let Some((&byte, tail)) = rest.split_first() {
        if byte == b'%' {
            let hex = std::str::from_utf8(tail.get(..2)?).ok()?;
            let decoded = u8::from_str_radix(hex, 16).ok()?;
            if kept(decoded) {
                return None;
            }
            bytes.push(decoded);
            rest = &tail[2..];
        } else if kept(byte) {
            bytes.push(byte);
            rest = tail;
        } else {
            return None;
        }
    }
    String::from_utf8(bytes).ok().filter(|id| !id.is_empty())
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// Every id is one file name whose stem gives it back.
        #[test]
        fn ids_round_trip_through_file_names(id in "\\PC{1,40}") {
            let stem = file_stem(&id);
            prop_assert!(stem.bytes().all(|byte| kept(byte) || byte == b'%'));
            prop_assert_eq!(id_of_stem(&stem), Some(id));
        }
    }

    #[test]
    fn names_not_written_here_are_not_crawls() {
        for stem in ["a.b", "%41", "%4", "%zz", ""] {
            assert_eq!(id_of_stem(stem), None, "{stem}");
        }
        assert_eq!(id_of_stem("my%20crawl"), Some("my crawl".to_owned()));
    }
}
