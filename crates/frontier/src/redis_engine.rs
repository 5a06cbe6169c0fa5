//! [`RedisStore`]: the frontier in a Redis server, for a frontier shared beyond one machine
//! (the mission's distributed engine: Debian's `redis-server`, not a home-made cluster). It
//! runs the same batch semantics as the other engines ([`crate::apply`]) and passes the same
//! conformance suite.
//!
//! # Layout
//! Under a key prefix `P` (several crawls can share a server), every key carries the hash tag
//! `{P}`, so that a Redis Cluster keeps one crawl's keys on one node and a transaction may
//! touch them all:
//!
//! | key | type | what |
//! |---|---|---|
//! | `{P}:meta` | hash | `format`, `next_page`, `next_host`, counts by state (integers) |
//! | `{P}:urls` | hash | canonical URL → page id and host id (8 bytes, little-endian) |
//! | `{P}:pages` | hash | page id (4 bytes, big-endian) → URL and record ([`crate::codec`]) |
//! | `{P}:host_keys` | hash | host key → host id (4 bytes, little-endian) |
//! | `{P}:hosts` | hash | host id (4 bytes, big-endian) → host record |
//! | `{P}:in_flight` | set | page ids (4 bytes, big-endian) in flight |
//! | `{P}:owner` | string | the Redis client id of the connection that has the store open |
//!
//! # Atomicity and durability
//! A [`commit`](FrontierStore::commit) reads what its batch needs (the batch's URLs and pages in
//! one pipelined round trip first, anything else as it comes), applies the batch to those values
//! in memory, and writes every change in one `MULTI`/`EXEC` transaction: all of it or, on any
//! error before the `EXEC`, none. Durability is the server's: [`RedisStore::open`] refuses a
//! server that does not sync its append-only file at every write (`appendonly yes`,
//! `appendfsync always`), where an acknowledged commit could be lost with the machine, unless
//! [`RedisOptions::require_fsync`] is turned off (tests of speed, a crawl that may lose its
//! last second).
//!
//! # One writer
//! The crawler owns its frontier: a second process writing the same prefix would allocate the
//! same ids. `open` takes the prefix by writing its connection's client id in `{P}:owner`; a
//! later `open` is refused while that connection is alive (`CLIENT LIST ID`), and takes over from
//! one that is gone (a `kill -9` closes it), so a resume after a crash needs no clean-up.
//!
//! # Redis Cluster
//! Given any node's URL, `open` connects to the master that serves the slot of `{P}`
//! ([`connect_to_slot_owner`]), and everything above happens there: the transaction, the
//! durability check (of that master only), the owner's client id (an id of that master's). A
//! prefix must then be a hash tag (not empty, no `}`), and prefixes spread crawls over the
//! masters. Tested on a cluster of three masters (`tests/redis_cluster.rs`, and the
//! conformance suite).
//!
//! # A slot that moves
//! A resharding moves a slot to another master while stores on it are open: the old master
//! answers `ASK` or `TRYAGAIN` while the slot's keys are being migrated (a transaction over keys
//! on both sides cannot run then), and `MOVED` once the slot is the new master's; a failover
//! answers `CLUSTERDOWN` for a moment. A store does not give such an error up to its crawl (which
//! would stop): it waits (20 ms, doubling up to 1 s; at once after a `MOVED`), connects again to
//! the slot's master, takes its prefix over there, and runs the command again, for up to
//! [`RedisOptions::slot_wait`] (30 s by default). Nothing is applied twice: a transaction one of
//! whose commands is redirected is discarded whole (`EXECABORT`), and one that ran is not
//! redirected. The prefix is taken over only from this store's own connection: `{P}:owner`
//! moved with the slot and must still hold this store's client id (checked and replaced in one
//! script); if another `open` took the prefix on the new master meanwhile, the store fails
//! (the one-writer rule holds across the move). `tests/redis_cluster.rs` moves a store's slot
//! under it, and keeps a commit waiting in the middle of a migration.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use freshet_schedule::online::{HostId, PageId};
use redis::{Connection, IntoConnectionInfo};

use crate::apply::{Meta, PageRow, Tables, apply_batch, recover_in_flight};
use crate::batch::{CommitReport, Op};
use crate::codec::{FORMAT, FORMAT_WITHOUT_METADATA, decode_host, decode_page, encode_host, encode_page};
use crate::error::{Result, StoreError};
use crate::record::{Counts, HostRecord, StoredPage};
use crate::store::FrontierStore;

/// How to open a [`RedisStore`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RedisOptions {
    /// The server, as a `redis://HOST:PORT/DB` URL.
    pub url: String,
    /// The key prefix (see the module docs); default `freshet`.
    pub prefix: String,
    /// Refuse a server that does not `fsync` its append-only file at every write; default on.
    pub require_fsync: bool,
    /// How long a command waits for the prefix's slot to settle on a Redis Cluster (a
    /// resharding, a failover; see the module docs) before its error is given up; default 30 s.
    pub slot_wait: Duration,
}

impl RedisOptions {
    /// The server at `url`, prefix `freshet`, durability required.
    #[must_use]
    pub fn new(url: impl Into<String>) -> Self {
        Self { url: url.into(), prefix: "freshet".into(), require_fsync: true, slot_wait: DEFAULT_SLOT_WAIT }
    }
}

/// [`RedisOptions::slot_wait`]'s default: a resharding moves a slot's keys in well under a
/// second at a crawl's sizes, and a failover is voted within the cluster's node timeout (15 s
/// by default).
pub(crate) const DEFAULT_SLOT_WAIT: Duration = Duration::from_secs(30);

/// The first pause before a command is tried again on a slot in motion; doubled at each try up to
/// [`MAX_SLOT_PAUSE`].
const FIRST_SLOT_PAUSE: Duration = Duration::from_millis(20);
const MAX_SLOT_PAUSE: Duration = Duration::from_secs(1);

/// Replaces the owner's client id (`ARGV[1]`, this store's old connection's) by `ARGV[2]` (its
/// new connection's) if it is still there; answers 1 if it was, else 0.
const TAKE_OVER_SCRIPT: &str = "if redis.call('GET', KEYS[1]) == ARGV[1] then \
    redis.call('SET', KEYS[1], ARGV[2]) return 1 end return 0";

/// What a Redis error says of the slot a store's keys are in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SlotMotion {
    /// `MOVED`: another master serves it now.
    Moved,
    /// `ASK`, `TRYAGAIN`, `CLUSTERDOWN`: a migration or a failover in progress.
    Moving,
}

/// Whether `error` is a Redis error that says the slot moved or is moving
/// ([`redis_slot_motion`]).
fn slot_motion(error: &StoreError) -> Option<SlotMotion> {
    let StoreError::Engine { engine: "redis", source, .. } = error else { return None };
    redis_slot_motion(source.downcast_ref::<redis::RedisError>()?)
}

/// Whether `error` (or, for a transaction the server discarded, the error of any of its
/// commands) says the slot moved or is moving; `None` for any other error.
pub(crate) fn redis_slot_motion(error: &redis::RedisError) -> Option<SlotMotion> {
    use redis::{ErrorKind, ServerErrorKind};
    let kinds: Vec<ServerErrorKind> = match error.clone().into_server_errors() {
        Some(errors) => errors.iter().filter_map(|(_, error)| error.kind()).collect(),
        None => match error.kind() {
            ErrorKind::Server(kind) => vec![kind],
            _ => Vec::new(),
        },
    };
    if kinds.contains(&ServerErrorKind::Moved) {
        Some(SlotMotion::Moved)
    } else if kinds.iter().any(|kind| {
        matches!(kind, ServerErrorKind::Ask | ServerErrorKind::TryAgain | ServerErrorKind::ClusterDown)
    }) {
        Some(SlotMotion::Moving)
    } else {
        None
    }
}

/// How long to wait before a command on a slot in motion is tried again, up to a deadline.
#[derive(Debug)]
pub(crate) struct SlotPatience {
    deadline: Instant,
    pause: Duration,
    /// Tries so far.
    tries: u32,
}

impl SlotPatience {
    /// Patience for `wait` from now.
    pub(crate) fn new(wait: Duration) -> Self {
        Self { deadline: Instant::now() + wait, pause: FIRST_SLOT_PAUSE, tries: 0 }
    }

    /// Waits before the next try after `motion`: not after a first `MOVED` (the slot has
    /// settled: its new master is asked at once), but after a second (the node asked for the
    /// slot's master may not know of the move yet: the cluster spreads it by gossip) and after
    /// `ASK`, `TRYAGAIN` or `CLUSTERDOWN`. `false`, at once, if the deadline has passed.
    pub(crate) fn wait(&mut self, motion: SlotMotion) -> bool {
        let now = Instant::now();
        if now >= self.deadline {
            return false;
        }
        if motion == SlotMotion::Moving || self.tries > 0 {
            std::thread::sleep(self.pause.min(self.deadline - now));
            self.pause = (self.pause * 2).min(MAX_SLOT_PAUSE);
        }
        self.tries += 1;
        true
    }
}

/// The key names of one prefix.
#[derive(Clone, Debug)]
struct Keys {
    meta: String,
    urls: String,
    pages: String,
    host_keys: String,
    hosts: String,
    in_flight: String,
    owner: String,
}

impl Keys {
    fn new(prefix: &str) -> Self {
        let key = |name: &str| format!("{{{prefix}}}:{name}");
        Self {
            meta: key("meta"),
            urls: key("urls"),
            pages: key("pages"),
            host_keys: key("host_keys"),
            hosts: key("hosts"),
            in_flight: key("in_flight"),
            owner: key("owner"),
        }
    }
}

const META_FIELDS: [&str; 5] = ["next_page", "next_host", "discovered", "in_flight", "fetched"];

/// Wraps a Redis error as [`StoreError::Engine`], naming what was being done.
fn engine(action: &'static str) -> impl FnOnce(redis::RedisError) -> StoreError {
    move |error| StoreError::Engine { engine: "redis", action, source: Box::new(error) }
}

/// A refusal at open, as [`StoreError::Engine`].
fn refused(action: &'static str, message: String) -> StoreError {
    StoreError::Engine { engine: "redis", action, source: message.into() }
}

/// One field of a hash, as bytes (`None`: absent).
fn hget(
    connection: &mut Connection,
    key: &str,
    field: &[u8],
    action: &'static str,
) -> Result<Option<Vec<u8>>> {
    redis::cmd("HGET").arg(key).arg(field).query(connection).map_err(engine(action))
}

/// A connection to the server that holds the keys of hash tag `{hash_tag}`: the server at `url`
/// itself, unless it is a node of a Redis Cluster (`cluster_enabled:1`), then the master that
/// serves the tag's slot (`CLUSTER KEYSLOT`, `CLUSTER SLOTS`), reached with `url`'s credentials
/// (and at `url`'s host when the cluster does not know the master's address: an empty or NULL
/// endpoint, as Redis's documentation of `CLUSTER SLOTS` says).
/// A frontier's keys all carry one tag, so one node answers all of a commit's commands and its
/// `MULTI`/`EXEC`; the `redis` crate's cluster client would route each command on its own and
/// refuse the transaction's client-bound verbs (`CLIENT ID`), which the one-writer rule needs.
///
/// A slot that moves to another node while the connection is open (a resharding, a failover)
/// makes the next command fail with `MOVED`: the caller gets that error (nothing of a failed
/// commit is applied) and opens again, which finds the slot's new master.
///
/// # Errors
/// [`StoreError::Engine`]: the URL, the connection, a cluster node that does not say where the
/// slot is, a slot that no master serves (a cluster not yet `ok`), or, on a cluster, a
/// `hash_tag` that would not be one (empty or with a `}`: `{}:meta` is hashed whole, so the
/// keys would not share a slot).
pub fn connect_to_slot_owner(url: &str, hash_tag: &str) -> Result<Connection> {
    match slot_owner(url, hash_tag)? {
        (_, Some(connection)) => Ok(connection),
        (info, None) => redis::Client::open(info)
            .map_err(engine("open"))?
            .get_connection()
            .map_err(engine("connect to the slot's master")),
    }
}

/// Where [`connect_to_slot_owner`] would connect: the server's connection settings, with the
/// connection it opened to ask when that server is the one (`None`: connect to the settings).
/// For a caller that keeps one connection per server for many hash tags.
///
/// # Errors
/// As [`connect_to_slot_owner`]'s.
pub fn slot_owner(url: &str, hash_tag: &str) -> Result<(redis::ConnectionInfo, Option<Connection>)> {
    let info = url.into_connection_info().map_err(engine("parse the server's URL"))?;
    let mut connection = redis::Client::open(info.clone())
        .map_err(engine("open"))?
        .get_connection()
        .map_err(engine("connect"))?;
    let server: String = redis::cmd("INFO")
        .arg("cluster")
        .query(&mut connection)
        .map_err(engine("ask whether the server is a cluster node"))?;
    if !server.lines().any(|line| line.trim() == "cluster_enabled:1") {
        return Ok((info, Some(connection)));
    }
    if hash_tag.is_empty() || hash_tag.contains('}') {
        return Err(refused(
            "connect",
            format!(
                "{url} is a Redis Cluster node, and {hash_tag:?} is no hash tag (empty, or with a \
                 '}}'): the keys {{{hash_tag}}}:… would not share a slot"
            ),
        ));
    }
    let slot: i64 = redis::cmd("CLUSTER")
        .arg("KEYSLOT")
        .arg(format!("{{{hash_tag}}}"))
        .query(&mut connection)
        .map_err(engine("ask the cluster for a key's slot"))?;
    let ranges: Vec<redis::Value> = redis::cmd("CLUSTER")
        .arg("SLOTS")
        .query(&mut connection)
        .map_err(engine("read the cluster's slots"))?;
    let (master, port) = ranges.iter().find_map(|range| slot_master(range, slot)).ok_or_else(|| {
        refused(
            "connect",
            format!("no master of the Redis Cluster at {url} serves slot {slot} (of {{{hash_tag}}}): is the cluster ok?"),
        )
    })?;
    let asked = match info.addr() {
        redis::ConnectionAddr::Tcp(host, port) | redis::ConnectionAddr::TcpTls { host, port, .. } => {
            Some((host.as_str(), *port))
        }
        _ => None,
    };
    let host = match (master, asked) {
        (Some(host), _) => host,
        (None, Some((host, _))) => host.to_owned(),
        (None, None) => {
            return Err(refused(
                "connect",
                format!("the Redis Cluster at {url} does not know the address of slot {slot}'s master"),
            ));
        }
    };
    if asked == Some((host.as_str(), port)) {
        return Ok((info, Some(connection)));
    }
    let addr = match info.addr() {
        redis::ConnectionAddr::TcpTls { insecure, tls_params, .. } => {
            redis::ConnectionAddr::TcpTls { host, port, insecure: *insecure, tls_params: tls_params.clone() }
        }
        _ => redis::ConnectionAddr::Tcp(host, port),
    };
    Ok((info.set_addr(addr), None))
}

/// The master's address in one entry of `CLUSTER SLOTS` (`[start, end, [host, port, id, …],
/// replicas…]`) if the entry's range holds `slot`: its host (`None` where the cluster does not
/// know it: an empty or NULL endpoint, which is to be reached at the host asked) and port.
fn slot_master(range: &redis::Value, slot: i64) -> Option<(Option<String>, u16)> {
    use redis::Value;
    let Value::Array(fields) = range else { return None };
    let (Some(Value::Int(start)), Some(Value::Int(end)), Some(Value::Array(master))) =
        (fields.first(), fields.get(1), fields.get(2))
    else {
        return None;
    };
    if !(*start..=*end).contains(&slot) {
        return None;
    }
    let host = match master.first()? {
        Value::BulkString(bytes) => String::from_utf8(bytes.clone()).ok()?,
        Value::SimpleString(text) => text.clone(),
        Value::Nil => String::new(),
        _ => return None,
    };
    let Value::Int(port) = master.get(1)? else { return None };
    Some((Some(host).filter(|host| !host.is_empty()), u16::try_from(*port).ok()?))
}

/// Refuses a server that does not sync its append-only file at every write, unless
/// [`RedisOptions::require_fsync`] is off (see the module docs).
fn check_fsync(connection: &mut Connection, options: &RedisOptions) -> Result<()> {
    if options.require_fsync {
        let config: HashMap<String, String> = redis::cmd("CONFIG")
            .arg("GET")
            .arg("append*")
            .query(connection)
            .map_err(engine("read the server's persistence settings"))?;
        let setting = |name: &str| config.get(name).map_or("", String::as_str).to_owned();
        if setting("appendonly") != "yes" || setting("appendfsync") != "always" {
            return Err(refused(
                "open",
                format!(
                    "{} syncs its append-only file with appendonly {:?}, appendfsync {:?}: a commit \
                     could be lost with the machine; start it with --appendonly yes --appendfsync \
                     always, or accept that risk (require_fsync off: a crawl's store-require-fsync \
                     = false, freshet urlfrontier's --store-no-fsync)",
                    options.url,
                    setting("appendonly"),
                    setting("appendfsync")
                ),
            ));
        }
    }
    Ok(())
}

fn id_key(id: u32) -> [u8; 4] {
    id.to_be_bytes()
}

fn decode_ids(bytes: &[u8], what: &'static str) -> Result<(u32, u32)> {
    match <[u8; 8]>::try_from(bytes) {
        Ok(bytes) => {
            let (page, host) = bytes.split_at(4);
            let word = |part: &[u8]| u32::from_le_bytes([part[0], part[1], part[2], part[3]]);
            Ok((word(page), word(host)))
        }
        Err(_) => Err(refused("read", format!("{what}: an entry of {} bytes, not 8", bytes.len()))),
    }
}

fn decode_id(bytes: &[u8], what: &'static str) -> Result<u32> {
    <[u8; 4]>::try_from(bytes)
        .map(u32::from_le_bytes)
        .map_err(|_| refused("read", format!("{what}: an entry of {} bytes, not 4", bytes.len())))
}

/// The frontier in Redis (see the module docs).
pub struct RedisStore {
    connection: RefCell<Connection>,
    keys: Keys,
    options: RedisOptions,
    /// This connection's client id, written in `{P}:owner`.
    client_id: Cell<i64>,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("RedisStore").field("options", &self.options).finish_non_exhaustive()
    }
}

impl RedisStore {
    /// Connects, checks the server's durability and the store's format, and takes the prefix.
    /// On a Redis Cluster whose slot of the prefix is moving, waits for it as a command does
    /// (see the module docs), up to [`RedisOptions::slot_wait`].
    ///
    /// # Errors
    /// [`StoreError::Engine`]: no server, a server that does not sync every write (with
    /// [`RedisOptions::require_fsync`]), the prefix held by another live connection;
    /// [`StoreError::FormatMismatch`]: a store written by another layout.
    pub fn open(options: RedisOptions) -> Result<Self> {
        let mut patience = SlotPatience::new(options.slot_wait);
        loop {
            match Self::open_once(options.clone()) {
                Err(error) if slot_motion(&error).is_some_and(|motion| patience.wait(motion)) => {}
                result => return result,
            }
        }
    }

    /// One try of [`Self::open`]. Every step may be tried again: the owner is written only when
    /// it is free or this connection's, and the format only when absent or older.
    fn open_once(options: RedisOptions) -> Result<Self> {
        let mut connection = connect_to_slot_owner(&options.url, &options.prefix)?;
        check_fsync(&mut connection, &options)?;
        let keys = Keys::new(&options.prefix);
        let me: i64 = redis::cmd("CLIENT").arg("ID").query(&mut connection).map_err(engine("client id"))?;
        let owner: Option<i64> =
            redis::cmd("GET").arg(&keys.owner).query(&mut connection).map_err(engine("read owner"))?;
        if let Some(owner) = owner.filter(|&owner| owner != me) {
            // A connection that was just closed may still be listed for a moment: look again
            // for up to a second before calling the prefix taken.
            let mut alive = true;
            for attempt in 0..20 {
                if attempt > 0 {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
                let clients: String = redis::cmd("CLIENT")
                    .arg("LIST")
                    .arg("ID")
                    .arg(owner)
                    .query(&mut connection)
                    .map_err(engine("list clients"))?;
                alive = !clients.trim().is_empty();
                if !alive {
                    break;
                }
            }
            if alive {
                return Err(refused(
                    "open",
                    format!(
                        "prefix {:?} is in use by another connection (client id {owner})",
                        options.prefix
                    ),
                ));
            }
        }
        redis::cmd("SET")
            .arg(&keys.owner)
            .arg(me)
            .query::<()>(&mut connection)
            .map_err(engine("write owner"))?;
        let format: Option<u64> = redis::cmd("HGET")
            .arg(&keys.meta)
            .arg("format")
            .query(&mut connection)
            .map_err(engine("read format"))?;
        match format {
            // A store without metadata reads as it is (see `codec::FORMAT`).
            None | Some(FORMAT_WITHOUT_METADATA) => redis::cmd("HSET")
                .arg(&keys.meta)
                .arg("format")
                .arg(FORMAT)
                .query::<()>(&mut connection)
                .map_err(engine("write format"))?,
            Some(found) if found != FORMAT => {
                return Err(StoreError::FormatMismatch { found, expected: FORMAT });
            }
            Some(_) => {}
        }
        Ok(Self { connection: RefCell::new(connection), keys, options, client_id: Cell::new(me) })
    }

    /// Checks, without opening a store, that the server at `options.url` answers and keeps
    /// what [`open`](Self::open) requires of it (every write synced, unless
    /// [`RedisOptions::require_fsync`] is off): for a program that opens its stores later.
    ///
    /// # Errors
    /// [`StoreError::Engine`], as [`open`](Self::open)'s.
    pub fn check_server(options: &RedisOptions) -> Result<()> {
        let mut connection = connect_to_slot_owner(&options.url, &options.prefix)?;
        check_fsync(&mut connection, options)
    }

    /// The options it was opened with.
    #[must_use]
    pub fn options(&self) -> &RedisOptions {
        &self.options
    }

    /// Deletes the store: every key of its prefix, in one command (they share a hash tag, so
    /// one node of a cluster holds them all), its ownership with them.
    ///
    /// # Errors
    /// [`StoreError::Engine`] if the server fails; then nothing was deleted.
    pub fn destroy(self) -> Result<()> {
        let keys = &self.keys;
        // A shard's inbox and state live under its prefix too (`crate::shards`): a crawl
        // started again under it must not read the old crawl's handovers or its shards' verdicts.
        let prefix = &self.options.prefix;
        let (inbox, shard) = (format!("{{{prefix}}}:inbox"), format!("{{{prefix}}}:shard"));
        let names = [
            &keys.meta,
            &keys.urls,
            &keys.pages,
            &keys.host_keys,
            &keys.hosts,
            &keys.in_flight,
            &keys.owner,
            &inbox,
            &shard,
        ];
        let mut connection = self.connection.borrow_mut();
        redis::cmd("DEL").arg(&names).query::<()>(&mut *connection).map_err(engine("delete the store"))
    }

    fn read_meta(connection: &mut Connection, keys: &Keys) -> Result<Meta> {
        let values: Vec<Option<u64>> = redis::cmd("HMGET")
            .arg(&keys.meta)
            .arg(&META_FIELDS[..])
            .query(connection)
            .map_err(engine("read meta"))?;
        let value = |index: usize| values.get(index).copied().flatten().unwrap_or(0);
        Ok(Meta {
            next_page: value(0),
            next_host: value(1),
            discovered: value(2),
            in_flight: value(3),
            fetched: value(4),
        })
    }

    /// Runs `work` over a [`RedisTables`] and writes its changes in one transaction if it
    /// succeeds; all of it again, reading afresh, if the slot moved meanwhile ([`Self::run`]).
    fn transaction<T>(
        &mut self,
        batch: &[Op],
        mut work: impl FnMut(&mut RedisTables<'_>) -> Result<T>,
    ) -> Result<T> {
        let keys = &self.keys;
        self.run(|connection| {
            let mut tables = RedisTables::new(connection, keys);
            tables.prefetch(batch)?;
            let result = work(&mut tables)?;
            tables.flush()?;
            Ok(result)
        })
    }

    /// Runs `attempt` on the store's connection; while it fails because the prefix's slot moved
    /// or is moving (see the module docs), for up to [`RedisOptions::slot_wait`], waits, follows
    /// the slot ([`Self::follow_slot`]) and runs it again.
    fn run<T>(&self, mut attempt: impl FnMut(&mut Connection) -> Result<T>) -> Result<T> {
        let mut patience = SlotPatience::new(self.options.slot_wait);
        let mut result = attempt(&mut self.connection.borrow_mut());
        loop {
            let error = match result {
                Ok(value) => return Ok(value),
                Err(error) => error,
            };
            match slot_motion(&error) {
                Some(motion) if patience.wait(motion) => {}
                _ => return Err(error),
            }
            result = self.follow_slot().and_then(|()| attempt(&mut self.connection.borrow_mut()));
        }
    }

    /// Connects again to the master that serves the prefix's slot and takes the prefix over
    /// there from this store's previous connection: `{P}:owner` must still name that connection
    /// (it moved with the slot), else another store took the prefix and this one fails.
    fn follow_slot(&self) -> Result<()> {
        let mut connection = connect_to_slot_owner(&self.options.url, &self.options.prefix)?;
        check_fsync(&mut connection, &self.options)?;
        let me: i64 = redis::cmd("CLIENT").arg("ID").query(&mut connection).map_err(engine("client id"))?;
        let taken: i64 = redis::cmd("EVAL")
            .arg(TAKE_OVER_SCRIPT)
            .arg(1)
            .arg(&self.keys.owner)
            .arg(self.client_id.get())
            .arg(me)
            .query(&mut connection)
            .map_err(engine("take the prefix over on its slot's new master"))?;
        if taken != 1 {
            return Err(refused(
                "follow the slot",
                format!(
                    "prefix {:?} was taken by another connection while its slot moved to another master",
                    self.options.prefix
                ),
            ));
        }
        *self.connection.borrow_mut() = connection;
        self.client_id.set(me);
        Ok(())
    }
}

/// One commit's view of the store: reads through to Redis (once per entry), writes held until
/// [`RedisTables::flush`].
struct RedisTables<'a> {
    connection: &'a mut Connection,
    keys: &'a Keys,
    /// What is known of each entry in this transaction: read from Redis or written (`None`:
    /// absent).
    urls: HashMap<String, Option<(u32, u32)>>,
    pages: HashMap<u32, Option<PageRow>>,
    host_keys: HashMap<String, Option<u32>>,
    hosts: HashMap<u32, Option<HostRecord>>,
    /// The entries written, to flush.
    written_urls: HashSet<String>,
    written_pages: HashSet<u32>,
    written_host_keys: HashSet<String>,
    written_hosts: HashSet<u32>,
    in_flight: HashMap<u32, bool>,
    meta: Option<Meta>,
    meta_written: bool,
}

impl<'a> RedisTables<'a> {
    fn new(connection: &'a mut Connection, keys: &'a Keys) -> Self {
        Self {
            connection,
            keys,
            urls: HashMap::new(),
            pages: HashMap::new(),
            host_keys: HashMap::new(),
            hosts: HashMap::new(),
            written_urls: HashSet::new(),
            written_pages: HashSet::new(),
            written_host_keys: HashSet::new(),
            written_hosts: HashSet::new(),
            in_flight: HashMap::new(),
            meta: None,
            meta_written: false,
        }
    }

    /// Reads the batch's URLs, host keys and pages in one round trip, so that applying it
    /// rarely waits (a read a discovery, one round trip each, made the store bench's discoveries
    /// 16 times slower: BENCHMARKS.md, "Frontier store").
    fn prefetch(&mut self, batch: &[Op]) -> Result<()> {
        let urls: Vec<&str> = batch
            .iter()
            .filter_map(|op| match op {
                Op::Discover(discovery) => Some(discovery.url.as_str()),
                _ => None,
            })
            .collect();
        let mut host_keys: Vec<&str> = batch
            .iter()
            .filter_map(|op| match op {
                Op::Discover(discovery) => Some(discovery.host.as_str()),
                _ => None,
            })
            .collect();
        host_keys.sort_unstable();
        host_keys.dedup();
        let pages: Vec<u32> = batch
            .iter()
            .filter_map(|op| match op {
                Op::Start(page)
                | Op::Remove(page)
                | Op::Release { page, .. }
                | Op::SetMetadata { page, .. } => Some(page.0),
                Op::Complete(completion) => Some(completion.page.0),
                _ => None,
            })
            .collect();
        let mut pipe = redis::pipe();
        if !urls.is_empty() {
            pipe.cmd("HMGET").arg(&self.keys.urls).arg(&urls);
        }
        if !pages.is_empty() {
            let ids: Vec<Vec<u8>> = pages.iter().map(|&page| id_key(page).to_vec()).collect();
            pipe.cmd("HMGET").arg(&self.keys.pages).arg(&ids);
        }
        if !host_keys.is_empty() {
            pipe.cmd("HMGET").arg(&self.keys.host_keys).arg(&host_keys);
        }
        if urls.is_empty() && pages.is_empty() {
            return Ok(());
        }
        let mut answers: Vec<Vec<Option<Vec<u8>>>> =
            pipe.query(self.connection).map_err(engine("read a batch's entries"))?;
        answers.reverse();
        if !urls.is_empty() {
            for (url, value) in urls.into_iter().zip(answers.pop().unwrap_or_default()) {
                let ids = value.map(|bytes| decode_ids(&bytes, "urls")).transpose()?;
                self.urls.insert(url.to_owned(), ids);
            }
        }
        if !pages.is_empty() {
            for (page, value) in pages.into_iter().zip(answers.pop().unwrap_or_default()) {
                let row = value.map(|bytes| decode_page(page, &bytes)).transpose()?;
                self.pages.insert(page, row);
            }
        }
        if !host_keys.is_empty() {
            for (key, value) in host_keys.into_iter().zip(answers.pop().unwrap_or_default()) {
                let host = value.map(|bytes| decode_id(&bytes, "host_keys")).transpose()?;
                self.host_keys.insert(key.to_owned(), host);
            }
        }
        Ok(())
    }

    /// Writes every change in one `MULTI`/`EXEC`.
    fn flush(self) -> Result<()> {
        let keys = self.keys;
        let mut pipe = redis::pipe();
        pipe.atomic();
        for url in &self.written_urls {
            match self.urls.get(url).copied().flatten() {
                Some((page, host)) => {
                    let mut bytes = [0; 8];
                    bytes[..4].copy_from_slice(&page.to_le_bytes());
                    bytes[4..].copy_from_slice(&host.to_le_bytes());
                    pipe.cmd("HSET").arg(&keys.urls).arg(url).arg(&bytes[..]).ignore();
                }
                None => {
                    pipe.cmd("HDEL").arg(&keys.urls).arg(url).ignore();
                }
            }
        }
        for page in &self.written_pages {
            match self.pages.get(page).and_then(Option::as_ref) {
                Some(row) => {
                    pipe.cmd("HSET")
                        .arg(&keys.pages)
                        .arg(&id_key(*page)[..])
                        .arg(encode_page(*page, row)?)
                        .ignore();
                }
                None => {
                    pipe.cmd("HDEL").arg(&keys.pages).arg(&id_key(*page)[..]).ignore();
                }
            }
        }
        for key in &self.written_host_keys {
            if let Some(host) = self.host_keys.get(key).copied().flatten() {
                pipe.cmd("HSET").arg(&keys.host_keys).arg(key).arg(&host.to_le_bytes()[..]).ignore();
            }
        }
        for host in &self.written_hosts {
            if let Some(record) = self.hosts.get(host).and_then(Option::as_ref) {
                pipe.cmd("HSET").arg(&keys.hosts).arg(&id_key(*host)[..]).arg(encode_host(record)?).ignore();
            }
        }
        for (&page, &in_flight) in &self.in_flight {
            let command = if in_flight { "SADD" } else { "SREM" };
            pipe.cmd(command).arg(&keys.in_flight).arg(&id_key(page)[..]).ignore();
        }
        if let (true, Some(meta)) = (self.meta_written, self.meta) {
            let values = [meta.next_page, meta.next_host, meta.discovered, meta.in_flight, meta.fetched];
            let mut command = redis::cmd("HSET");
            command.arg(&keys.meta);
            for (field, value) in META_FIELDS.iter().zip(values) {
                command.arg(*field).arg(value);
            }
            pipe.add_command(command).ignore();
        }
        pipe.query::<()>(self.connection).map_err(engine("commit"))
    }

    fn get_bytes(&mut self, key: &str, field: &[u8], action: &'static str) -> Result<Option<Vec<u8>>> {
        hget(self.connection, key, field, action)
    }
}

impl Tables for RedisTables<'_> {
    fn url_id(&mut self, url: &str) -> Result<Option<(u32, u32)>> {
        if let Some(&known) = self.urls.get(url) {
            return Ok(known);
        }
        let value = self.get_bytes(&self.keys.urls.clone(), url.as_bytes(), "read urls")?;
        let ids = value.map(|bytes| decode_ids(&bytes, "urls")).transpose()?;
        self.urls.insert(url.to_owned(), ids);
        Ok(ids)
    }

    fn put_url(&mut self, url: &str, page: u32, host: u32) -> Result<()> {
        self.urls.insert(url.to_owned(), Some((page, host)));
        self.written_urls.insert(url.to_owned());
        Ok(())
    }

    fn remove_url(&mut self, url: &str, _page: u32) -> Result<()> {
        self.urls.insert(url.to_owned(), None);
        self.written_urls.insert(url.to_owned());
        Ok(())
    }

    fn page(&mut self, page: u32) -> Result<Option<PageRow>> {
        if let Some(known) = self.pages.get(&page) {
            return Ok(known.clone());
        }
        let value = self.get_bytes(&self.keys.pages.clone(), &id_key(page), "read pages")?;
        let row = value.map(|bytes| decode_page(page, &bytes)).transpose()?;
        self.pages.insert(page, row.clone());
        Ok(row)
    }

    fn put_page(&mut self, page: u32, row: PageRow) -> Result<()> {
        self.pages.insert(page, Some(row));
        self.written_pages.insert(page);
        Ok(())
    }

    fn remove_page(&mut self, page: u32) -> Result<()> {
        self.pages.insert(page, None);
        self.written_pages.insert(page);
        Ok(())
    }

    fn host_id(&mut self, key: &str) -> Result<Option<u32>> {
        if let Some(&known) = self.host_keys.get(key) {
            return Ok(known);
        }
        let value = self.get_bytes(&self.keys.host_keys.clone(), key.as_bytes(), "read host_keys")?;
        let host = value.map(|bytes| decode_id(&bytes, "host_keys")).transpose()?;
        self.host_keys.insert(key.to_owned(), host);
        Ok(host)
    }

    fn put_host(&mut self, host: &HostRecord) -> Result<()> {
        self.host_keys.insert(host.key.clone(), Some(host.id.0));
        self.written_host_keys.insert(host.key.clone());
        self.hosts.insert(host.id.0, Some(host.clone()));
        self.written_hosts.insert(host.id.0);
        Ok(())
    }

    fn host(&mut self, host: u32) -> Result<Option<HostRecord>> {
        if let Some(known) = self.hosts.get(&host) {
            return Ok(known.clone());
        }
        let value = self.get_bytes(&self.keys.hosts.clone(), &id_key(host), "read hosts")?;
        let record = value.map(|bytes| decode_host(host, &bytes)).transpose()?;
        self.hosts.insert(host, record.clone());
        Ok(record)
    }

    fn set_in_flight(&mut self, page: u32, in_flight: bool) -> Result<()> {
        self.in_flight.insert(page, in_flight);
        Ok(())
    }

    fn in_flight_pages(&mut self) -> Result<Vec<u32>> {
        let members: Vec<Vec<u8>> = redis::cmd("SMEMBERS")
            .arg(&self.keys.in_flight)
            .query(self.connection)
            .map_err(engine("read in_flight"))?;
        let mut pages: Vec<u32> = members
            .iter()
            .filter_map(|bytes| <[u8; 4]>::try_from(bytes.as_slice()).ok().map(u32::from_be_bytes))
            .filter(|page| self.in_flight.get(page) != Some(&false))
            .collect();
        pages.extend(self.in_flight.iter().filter(|&(_, &in_flight)| in_flight).map(|(&page, _)| page));
        pages.sort_unstable();
        pages.dedup();
        Ok(pages)
    }

    fn meta(&mut self) -> Result<Meta> {
        if let Some(meta) = self.meta {
            return Ok(meta);
        }
        let meta = RedisStore::read_meta(self.connection, self.keys)?;
        self.meta = Some(meta);
        Ok(meta)
    }

    fn put_meta(&mut self, meta: &Meta) -> Result<()> {
        self.meta = Some(*meta);
        self.meta_written = true;
        Ok(())
    }
}

impl RedisStore {
    /// Reads rows of a hash by dense id, from `first` up to `end` (exclusive), `limit` present
    /// at most, in chunks.
    fn rows_by_id(&self, key: &str, first: u64, end: u64, limit: usize) -> Result<Vec<(u32, Vec<u8>)>> {
        let mut rows = Vec::new();
        let mut next = first;
        while rows.len() < limit && next < end {
            let chunk_end = end.min(next + (limit - rows.len()).clamp(64, 4096) as u64);
            let ids: Vec<u32> = (next..chunk_end).filter_map(|id| u32::try_from(id).ok()).collect();
            let values = self.values_by_id(key, &ids, "read rows")?;
            for (id, value) in ids.into_iter().zip(values) {
                if let Some(bytes) = value
                    && rows.len() < limit
                {
                    rows.push((id, bytes));
                }
            }
            next = chunk_end;
        }
        Ok(rows)
    }

    /// The values of `ids` in the hash `key` (ids as [`id_key`]s), in their order, in one
    /// `HMGET`.
    fn values_by_id(&self, key: &str, ids: &[u32], action: &'static str) -> Result<Vec<Option<Vec<u8>>>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let keys: Vec<[u8; 4]> = ids.iter().map(|&id| id_key(id)).collect();
        let fields: Vec<&[u8]> = keys.iter().map(<[u8; 4]>::as_slice).collect();
        self.run(|connection| {
            redis::cmd("HMGET").arg(key).arg(&fields).query(connection).map_err(engine(action))
        })
    }
}

impl Drop for RedisStore {
    /// Gives the prefix back (if it still holds it), so that the next `open` need not wait for
    /// the server to notice the closed connection.
    fn drop(&mut self) {
        let connection = self.connection.get_mut();
        let owner: Option<i64> = redis::cmd("GET").arg(&self.keys.owner).query(connection).ok().flatten();
        if owner == Some(self.client_id.get()) {
            let _ = redis::cmd("DEL").arg(&self.keys.owner).query::<()>(connection);
        }
    }
}

impl FrontierStore for RedisStore {
    fn commit(&mut self, batch: &[Op]) -> Result<CommitReport> {
        self.transaction(batch, |tables| apply_batch(tables, batch))
    }

    fn recover(&mut self) -> Result<u64> {
        self.transaction(&[], |tables| recover_in_flight(tables))
    }

    fn page(&self, page: PageId) -> Result<Option<StoredPage>> {
        Ok(self.page_batch(&[page])?.pop().flatten())
    }

    fn page_batch(&self, pages: &[PageId]) -> Result<Vec<Option<StoredPage>>> {
        let ids: Vec<u32> = pages.iter().map(|page| page.0).collect();
        let values = self.values_by_id(&self.keys.pages, &ids, "read pages")?;
        pages
            .iter()
            .zip(values)
            .map(|(&page, value)| {
                let row = value.map(|bytes| decode_page(page.0, &bytes)).transpose()?;
                Ok(row.map(|row| StoredPage { id: page, url: row.url, record: row.record }))
            })
            .collect()
    }

    fn lookup(&self, url: &str) -> Result<Option<PageId>> {
        let value = self.run(|connection| hget(connection, &self.keys.urls, url.as_bytes(), "read urls"))?;
        Ok(value.map(|bytes| decode_ids(&bytes, "urls")).transpose()?.map(|(page, _)| PageId(page)))
    }

    fn pages(&self, after: Option<PageId>, limit: usize) -> Result<Vec<StoredPage>> {
        let end = self.run(|connection| RedisStore::read_meta(connection, &self.keys))?.next_page;
        let first = after.map_or(0, |page| u64::from(page.0) + 1);
        let rows = self.rows_by_id(&self.keys.pages, first, end, limit)?;
        rows.into_iter()
            .map(|(id, bytes)| {
                let row = decode_page(id, &bytes)?;
                Ok(StoredPage { id: PageId(id), url: row.url, record: row.record })
            })
            .collect()
    }

    fn host(&self, host: HostId) -> Result<Option<HostRecord>> {
        let value =
            self.run(|connection| hget(connection, &self.keys.hosts, &id_key(host.0), "read hosts"))?;
        value.map(|bytes| decode_host(host.0, &bytes)).transpose()
    }

    fn host_by_key(&self, key: &str) -> Result<Option<HostId>> {
        let value =
            self.run(|connection| hget(connection, &self.keys.host_keys, key.as_bytes(), "read host_keys"))?;
        Ok(value.map(|bytes| decode_id(&bytes, "host_keys")).transpose()?.map(HostId))
    }

    fn hosts(&self, after: Option<HostId>, limit: usize) -> Result<Vec<HostRecord>> {
        let end = self.run(|connection| RedisStore::read_meta(connection, &self.keys))?.next_host;
        let first = after.map_or(0, |host| u64::from(host.0) + 1);
        let rows = self.rows_by_id(&self.keys.hosts, first, end, limit)?;
        rows.into_iter().map(|(id, bytes)| decode_host(id, &bytes)).collect()
    }

    fn counts(&self) -> Result<Counts> {
        Ok(self.run(|connection| RedisStore::read_meta(connection, &self.keys))?.counts())
    }
}
