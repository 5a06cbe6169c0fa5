//! One crawl run by several crawler processes on Redis: hosts shared out among `N` shards, each
//! a crawler with its own frontier ([`RedisStore`](crate::RedisStore) under its own prefix),
//! and the URLs one shard finds for another's hosts handed over through Redis (the mission's
//! "beyond one machine on an existing distributed engine": Redis, or Redis Cluster to spread
//! the shards over nodes; no cluster of freshet's own).
//!
//! # Who owns a host
//! [`ShardPlan::shard_of`] is `xxh3_64(host name) mod N`, the host name as the canonical URL
//! spells it (lower case, no port): every port and scheme of a name goes to one shard, so a
//! server's politeness is kept by one process. The function is fixed (xxh3 is a specified
//! hash, seed 0): shards started on different machines, or resumed by a later version, agree.
//! `N` is fixed for a crawl's life: shard `K` of `N` keeps its frontier under the prefix
//! `P-K-of-N` ([`ShardPlan::prefix`]), so a crawl restarted with another `N` starts afresh
//! rather than reading a partition it does not own.
//!
//! # Spread over a cluster
//! A Redis Cluster puts a key on the node that serves its slot, CRC16 of its hash tag mod
//! 16,384, and CRC16 is linear: names that differ in a digit fall on nearby slots (`freshet-K-of-8`
//! for every `K` lands on one node of three), so the shards would not spread. So the prefix of
//! shard `K` of `N` is `P-K-of-N` if its slot is in the `K`-th of `N` equal slices of the slots,
//! and otherwise `P-K-of-N.J` with the least `J ≥ 1` that puts it there (about `N` tries; for
//! `N` above 16,384 slices can be empty, and the plain name is kept). A cluster whose masters
//! serve equal ranges of slots, as `redis-cli --cluster create` makes them, then holds
//! `N / masters` shards on each master when `N` is a multiple of their number.
//!
//! # The handover
//! Each shard has an inbox, a Redis list `{PREFIX}:inbox` under its prefix, beside its frontier (one hash
//! tag: under Redis Cluster the inbox, the state below and the frontier sit on one node, the
//! shards spread over the nodes by their tags' slots). A shard that finds a URL of another
//! shard's host [`send`](ShardExchange::send)s it there (one `RPUSH` per receiving shard and
//! flush), **before** committing the completion that found it, as the WARC is written before
//! (see [`FrontierStore`](crate::FrontierStore)'s contract): a crash between the two refetches
//! the page and sends its links again. The receiver [`peek`](ShardExchange::peek)s at its inbox,
//! commits what it read as discoveries to its own store, and only then
//! [`take`](ShardExchange::take)s the entries out (`LTRIM`): a crash between the two reads them
//! again. Either way a URL may arrive twice, never not at all, and the receiver's seen set
//! admits it once. Only the inbox's owner takes from it (the store's one-writer rule holds its
//! prefix), so reading the head and trimming it later needs no lock.
//!
//! # When a one-pass crawl is over
//! A shard with nothing left to fetch is not done while another shard may still send it URLs.
//! Each shard keeps a small state hash `{PREFIX}:shard` (`idle`, `left`, `version`, `pushed`),
//! and the crawl is over when every shard has left or is idle with an empty inbox, at one
//! instant. The shards' states live on different nodes and cannot be read at one instant, so
//! [`crawl_is_over`](ShardExchange::crawl_is_over) reads them all twice, one wave after the
//! other, and answers yes only if both waves find every shard done and read the same values
//! (Mattern's double-counting termination test). It is sound because every change that can
//! create work is visible in the waves:
//! - a send bumps the receiver's `pushed` in the same transaction as its `RPUSH`;
//! - a take marks the taker busy (`idle` 0, `version` + 1) in the same transaction as its
//!   `LTRIM`, and in a one-pass crawl a shard gets new work only by taking;
//! - a shard declares itself idle only with nothing queued, in flight or unsent.
//!
//! So if both waves agree, between a shard's two reads nothing was pushed to it and it took
//! nothing: every shard was idle with an empty inbox at the instant between the waves, and
//! stays so. A shard whose run ends (the crawl over, `--max-pages`, Ctrl-C, `--duration`) says
//! `left`: it takes nothing more, and the URLs sent to it wait in its inbox for a resume (a
//! shard resumed alone finds the others left, and ends when it has done its part). A shard
//! that has never started has no state, and the crawl is not over until it runs.

use std::collections::HashMap;

use redis::Connection;

use crate::error::{Result, StoreError};
use crate::redis_engine::{DEFAULT_SLOT_WAIT, SlotPatience, redis_slot_motion, slot_owner};

/// This process's place among a crawl's shards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShardPlan {
    index: u32,
    count: u32,
}

impl ShardPlan {
    /// Shard `index` of `count` (`index < count`).
    ///
    /// # Errors
    /// [`StoreError::InvalidShard`] for `count` 0 or `index ≥ count`.
    pub fn new(index: u32, count: u32) -> Result<Self> {
        if count == 0 || index >= count {
            return Err(StoreError::InvalidShard { index, count });
        }
        Ok(Self { index, count })
    }

    /// Parses `K/N` (shard `K` of `N`, from 0).
    ///
    /// # Errors
    /// [`StoreError::InvalidShard`] (with `count` 0 when the text is not two numbers).
    pub fn parse(text: &str) -> Result<Self> {
        let numbers = text
            .split_once('/')
            .and_then(|(index, count)| Some((index.trim().parse().ok()?, count.trim().parse().ok()?)));
        match numbers {
            Some((index, count)) => Self::new(index, count),
            None => Err(StoreError::InvalidShard { index: 0, count: 0 }),
        }
    }

    /// This shard's index.
    #[must_use]
    pub fn index(&self) -> u32 {
        self.index
    }

    /// How many shards the crawl has.
    #[must_use]
    pub fn count(&self) -> u32 {
        self.count
    }

    /// The shard that owns `host_name` (see the module docs).
    #[must_use]
    pub fn shard_of(&self, host_name: &str) -> u32 {
        (xxhash_rust::xxh3::xxh3_64(host_name.as_bytes()) % u64::from(self.count)) as u32
    }

    /// Whether this shard owns `host_name`.
    #[must_use]
    pub fn owns(&self, host_name: &str) -> bool {
        self.shard_of(host_name) == self.index
    }

    /// The frontier prefix of shard `index` of this crawl, whose base prefix is `base`: its
    /// hash tag's slot in the `index`-th of `count` equal slices (see the module docs).
    #[must_use]
    pub fn prefix_of(&self, base: &str, index: u32) -> String {
        let name = format!("{base}-{index}-of-{}", self.count);
        let in_slice =
            |tag: &str| u64::from(key_slot(tag)) * u64::from(self.count) / SLOTS == u64::from(index);
        if u64::from(self.count) > SLOTS || in_slice(&name) {
            return name;
        }
        // Each try lands in the slice with probability about 1/count: 64·count tries fail
        // with probability e^-64.
        (1..=64 * u64::from(self.count))
            .map(|suffix| format!("{name}.{suffix}"))
            .find(|tag| in_slice(tag))
            .unwrap_or(name)
    }

    /// This shard's frontier prefix.
    #[must_use]
    pub fn prefix(&self, base: &str) -> String {
        self.prefix_of(base, self.index)
    }
}

/// Redis Cluster's number of slots.
const SLOTS: u64 = 16_384;

/// The Redis Cluster slot of hash tag `tag` (a key `{tag}:…`): CRC16/XMODEM mod 16,384, as the
/// cluster specification defines it.
fn key_slot(tag: &str) -> u16 {
    const CRC16: crc::Crc<u16> = crc::Crc::<u16>::new(&crc::CRC_16_XMODEM);
    CRC16.checksum(tag.as_bytes()) % SLOTS as u16
}

/// What one shard hands another: a URL, or the importance cash that flowed along a link to it.
#[derive(Clone, Debug, PartialEq)]
pub enum Handover {
    /// A URL found by the sender (a link, a redirect target, a seed it was given).
    Link {
        /// The canonical URL.
        url: String,
        /// Links from a seed (0: a seed the sender was given).
        depth: u32,
    },
    /// OPIC cash the sender's estimator handed on along links to `url` (see
    /// `freshet_rank::opic`, "Across processes"): sent after the commit of the pages whose
    /// fetches moved it, so after the `Link` that named `url`. A crash may lose cash in transit,
    /// as a restart loses the cash held by pages (the estimate loses at most one pass's flow).
    Cash {
        /// The canonical URL of the page the cash is for.
        url: String,
        /// The amount (finite, ≥ 0).
        cash: f64,
    },
    /// OPIC cash the sender's virtual page kept for the receiver's pages (the whole crawl's
    /// teleport: `freshet_rank::opic`, "Across processes"), to spread over them all.
    Teleport {
        /// The amount (finite, ≥ 0).
        cash: f64,
    },
}

impl Handover {
    /// `DEPTH URL` for a link, `cCASH URL` for cash, `tCASH` for teleport (a canonical URL
    /// has no spaces; `f64`'s shortest form reads back exactly): readable with `redis-cli`.
    fn encode(&self) -> String {
        match self {
            Self::Link { url, depth } => format!("{depth} {url}"),
            Self::Cash { url, cash } => format!("c{cash} {url}"),
            Self::Teleport { cash } => format!("t{cash}"),
        }
    }

    fn decode(entry: &[u8], inbox: &str) -> Result<Self> {
        let corrupt = || StoreError::Engine {
            engine: "redis",
            action: "read a shard's inbox",
            source: format!(
                "{inbox}: an entry that is not `DEPTH URL`, `cCASH URL` or `tCASH`: {:?}",
                String::from_utf8_lossy(entry)
            )
            .into(),
        };
        let text = std::str::from_utf8(entry).map_err(|_| corrupt())?;
        let amount = |text: &str| match text.parse::<f64>() {
            Ok(cash) if cash.is_finite() && cash >= 0.0 => Ok(cash),
            _ => Err(corrupt()),
        };
        if let Some(cash) = text.strip_prefix('t')
            && !text.contains(' ')
        {
            return Ok(Self::Teleport { cash: amount(cash)? });
        }
        let (head, url) = text.split_once(' ').ok_or_else(corrupt)?;
        let url = url.to_owned();
        match head.strip_prefix('c') {
            Some(cash) => Ok(Self::Cash { url, cash: amount(cash)? }),
            None => Ok(Self::Link { depth: head.parse().map_err(|_| corrupt())?, url }),
        }
    }

    /// Whether it is a [`Handover::Link`].
    #[must_use]
    pub fn is_link(&self) -> bool {
        matches!(self, Self::Link { .. })
    }
}

/// What one shard's state said in one wave of [`ShardExchange::crawl_is_over`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ShardReading {
    started: bool,
    idle: bool,
    left: bool,
    version: u64,
    pushed: u64,
    waiting: u64,
}

impl ShardReading {
    fn done(&self) -> bool {
        self.started && (self.left || (self.idle && self.waiting == 0))
    }
}

/// One shard's side of the handover (see the module docs): one connection to each node that
/// holds a shard it talks to (however many shards the node holds), opened when first needed.
pub struct ShardExchange {
    plan: ShardPlan,
    url: String,
    /// Each shard's prefix.
    prefixes: Vec<String>,
    /// Each shard's node, once found (its address, a key of `connections`).
    nodes: Vec<Option<String>>,
    /// A connection per node.
    connections: HashMap<String, Connection>,
    /// What this shard last said of itself: `idle`, `left`.
    said: Option<(bool, bool)>,
}

impl std::fmt::Debug for ShardExchange {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("ShardExchange")
            .field("plan", &self.plan)
            .field("url", &self.url)
            .field("said", &self.said)
            .finish_non_exhaustive()
    }
}

/// Adds to `pipe` the writes that say a shard's state, `idle` and `left`, in its state hash
/// `state`, with `version` bumped (every change a termination test must see).
fn said<'p>(pipe: &'p mut redis::Pipeline, state: &str, idle: bool, left: bool) -> &'p mut redis::Pipeline {
    pipe.cmd("HSET")
        .arg(state)
        .arg("idle")
        .arg(u8::from(idle))
        .arg("left")
        .arg(u8::from(left))
        .ignore()
        .cmd("HINCRBY")
        .arg(state)
        .arg("version")
        .arg(1)
        .ignore()
}

/// Wraps a Redis error as [`StoreError::Engine`].
fn engine(action: &'static str) -> impl FnOnce(redis::RedisError) -> StoreError {
    move |error| StoreError::Engine { engine: "redis", action, source: Box::new(error) }
}

impl ShardExchange {
    /// The handover of `plan`'s crawl under base prefix `base` on the server (or cluster node)
    /// at `url`. Connects to nothing yet.
    #[must_use]
    pub fn new(url: &str, base: &str, plan: ShardPlan) -> Self {
        let prefixes = (0..plan.count).map(|index| plan.prefix_of(base, index)).collect();
        Self {
            plan,
            url: url.to_owned(),
            prefixes,
            nodes: vec![None; plan.count as usize],
            connections: HashMap::new(),
            said: None,
        }
    }

    /// The plan.
    #[must_use]
    pub fn plan(&self) -> ShardPlan {
        self.plan
    }

    fn inbox_key(&self, shard: u32) -> String {
        format!("{{{}}}:inbox", self.prefixes[shard as usize])
    }

    fn state_key(&self, shard: u32) -> String {
        format!("{{{}}}:shard", self.prefixes[shard as usize])
    }

    /// The connection to `shard`'s node.
    fn connection(&mut self, shard: u32) -> Result<&mut Connection> {
        let node = match &self.nodes[shard as usize] {
            Some(node) => node.clone(),
            None => {
                let (info, connection) = slot_owner(&self.url, &self.prefixes[shard as usize])?;
                let node = info.addr().to_string();
                if !self.connections.contains_key(&node) {
                    let connection = match connection {
                        Some(connection) => connection,
                        None => redis::Client::open(info)
                            .and_then(|client| client.get_connection())
                            .map_err(engine("connect to a shard's node"))?,
                    };
                    self.connections.insert(node.clone(), connection);
                }
                self.nodes[shard as usize] = Some(node.clone());
                node
            }
        };
        self.connections.get_mut(&node).ok_or(StoreError::Engine {
            engine: "redis",
            action: "connect to a shard's node",
            source: "no connection".into(),
        })
    }

    /// Runs `work` on `shard`'s connection; on an error, forgets every connection and where
    /// every shard is (a slot that moved is found again), and returns the error, unless it says
    /// the slot moved or is moving: then `work` runs again on the slot's node, for up to 30 s,
    /// as a store's commands do (`redis_engine`'s module docs, "A slot that moves"). Every
    /// `work` here is one command or one `MULTI`/`EXEC`, which a redirection discards whole.
    fn with_connection<T>(
        &mut self,
        shard: u32,
        mut work: impl FnMut(&mut Connection) -> redis::RedisResult<T>,
        action: &'static str,
    ) -> Result<T> {
        let mut patience = SlotPatience::new(DEFAULT_SLOT_WAIT);
        loop {
            let result = work(self.connection(shard)?);
            let Err(error) = result else { return result.map_err(engine(action)) };
            self.connections.clear();
            self.nodes.iter_mut().for_each(|node| *node = None);
            match redis_slot_motion(&error) {
                Some(motion) if patience.wait(motion) => {}
                _ => return Err(engine(action)(error)),
            }
        }
    }

    /// How many connections it holds: one per node it has talked to.
    #[must_use]
    pub fn connection_count(&self) -> usize {
        self.connections.len()
    }

    /// Hands `outgoing[j]` to shard `j`, for every `j` (this shard's own list must be empty),
    /// each list in one transaction on its node that also counts it in the receiver's `pushed`.
    /// The lists are emptied once sent; on an error, those not yet sent are left as they were
    /// (the caller's commit must then fail too, so that the sending page is fetched again).
    ///
    /// # Errors
    /// [`StoreError::Engine`] from Redis.
    pub fn send(&mut self, outgoing: &mut [Vec<Handover>]) -> Result<u64> {
        let mut sent = 0;
        for shard in 0..self.plan.count {
            let Some(list) = outgoing.get_mut(shard as usize) else { break };
            if list.is_empty() {
                continue;
            }
            let entries: Vec<String> = list.iter().map(Handover::encode).collect();
            let (inbox, state) = (self.inbox_key(shard), self.state_key(shard));
            self.with_connection(
                shard,
                |connection| {
                    redis::pipe()
                        .atomic()
                        .cmd("RPUSH")
                        .arg(&inbox)
                        .arg(&entries)
                        .ignore()
                        .cmd("HINCRBY")
                        .arg(&state)
                        .arg("pushed")
                        .arg(entries.len())
                        .ignore()
                        .query::<()>(connection)
                },
                "hand URLs to another shard",
            )?;
            sent += entries.len() as u64;
            list.clear();
        }
        Ok(sent)
    }

    /// Up to `limit` entries from the head of this shard's inbox, left there until
    /// [`take`](Self::take).
    ///
    /// # Errors
    /// [`StoreError::Engine`] from Redis, or an entry that does not decode (named).
    pub fn peek(&mut self, limit: usize) -> Result<Vec<Handover>> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let inbox = self.inbox_key(self.plan.index);
        let entries: Vec<Vec<u8>> = self.with_connection(
            self.plan.index,
            |connection| redis::cmd("LRANGE").arg(&inbox).arg(0).arg(limit - 1).query(connection),
            "read this shard's inbox",
        )?;
        entries.iter().map(|entry| Handover::decode(entry, &inbox)).collect()
    }

    /// Takes the first `count` entries out of this shard's inbox (those a
    /// [`peek`](Self::peek) returned, once committed) and says the shard is busy, in one
    /// transaction.
    ///
    /// # Errors
    /// [`StoreError::Engine`] from Redis.
    pub fn take(&mut self, count: usize) -> Result<()> {
        if count == 0 {
            return Ok(());
        }
        let (inbox, state) = (self.inbox_key(self.plan.index), self.state_key(self.plan.index));
        self.with_connection(
            self.plan.index,
            |connection| {
                let mut pipe = redis::pipe();
                pipe.atomic().cmd("LTRIM").arg(&inbox).arg(count).arg(-1).ignore();
                said(&mut pipe, &state, false, false).query::<()>(connection)
            },
            "take entries from this shard's inbox",
        )?;
        self.said = Some((false, false));
        Ok(())
    }

    /// Says what this shard is: `idle` (nothing queued, in flight or unsent), `left` (stopped,
    /// taking nothing more). Writes only when it differs from what was said last (every write
    /// bumps `version`, which a termination test must see still).
    ///
    /// # Errors
    /// [`StoreError::Engine`] from Redis.
    pub fn say(&mut self, idle: bool, left: bool) -> Result<()> {
        if self.said == Some((idle, left)) {
            return Ok(());
        }
        let state = self.state_key(self.plan.index);
        self.with_connection(
            self.plan.index,
            |connection| said(redis::pipe().atomic(), &state, idle, left).query::<()>(connection),
            "say this shard's state",
        )?;
        self.said = Some((idle, left));
        Ok(())
    }

    /// One wave: every shard's state and inbox length.
    fn wave(&mut self) -> Result<Vec<ShardReading>> {
        (0..self.plan.count)
            .map(|shard| {
                let (inbox, state) = (self.inbox_key(shard), self.state_key(shard));
                let (fields, waiting): (Vec<Option<u64>>, u64) = self.with_connection(
                    shard,
                    |connection| {
                        redis::pipe()
                            .cmd("HMGET")
                            .arg(&state)
                            .arg(&["idle", "left", "version", "pushed"])
                            .cmd("LLEN")
                            .arg(&inbox)
                            .query(connection)
                    },
                    "read the shards' states",
                )?;
                let field = |index: usize| fields.get(index).copied().flatten();
                Ok(ShardReading {
                    started: field(2).is_some(),
                    idle: field(0) == Some(1),
                    left: field(1) == Some(1),
                    version: field(2).unwrap_or(0),
                    pushed: field(3).unwrap_or(0),
                    waiting,
                })
            })
            .collect()
    }

    /// Whether the crawl is over: every shard left, or idle with an empty inbox, in two waves
    /// that read the same (see the module docs). Call it only when this shard is idle and has
    /// said so ([`say`](Self::say)).
    ///
    /// # Errors
    /// [`StoreError::Engine`] from Redis.
    pub fn crawl_is_over(&mut self) -> Result<bool> {
        let first = self.wave()?;
        if !first.iter().all(ShardReading::done) {
            return Ok(false);
        }
        Ok(self.wave()? == first)
    }

    /// How many entries wait in this shard's inbox.
    ///
    /// # Errors
    /// [`StoreError::Engine`] from Redis.
    pub fn waiting(&mut self) -> Result<u64> {
        let inbox = self.inbox_key(self.plan.index);
        self.with_connection(
            self.plan.index,
            |connection| redis::cmd("LLEN").arg(&inbox).query(connection),
            "read this shard's inbox",
        )
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn plans_are_checked_and_parsed() {
        assert_eq!(ShardPlan::parse("2/4").map(|plan| (plan.index(), plan.count())).ok(), Some((2, 4)));
        assert_eq!(ShardPlan::parse(" 0 / 1 ").map(|plan| plan.count()).ok(), Some(1));
        for bad in ["4/4", "0/0", "1", "a/2", "1/b", "-1/2", ""] {
            assert!(matches!(ShardPlan::parse(bad), Err(StoreError::InvalidShard { .. })), "{bad}");
        }
    }

    #[test]
    fn hosts_are_shared_out_by_a_fixed_hash() {
        let plan = ShardPlan::new(0, 4).unwrap();
        // Pinned: shards on other machines and later versions must agree.
        let owners: Vec<u32> = ["example.com", "h0.web.test", "h1.web.test", "a.test"]
            .iter()
            .map(|host| plan.shard_of(host))
            .collect();
        assert_eq!(owners, [3, 0, 3, 2]);
        let mut counts = [0_u32; 4];
        for host in 0..4000 {
            counts[plan.shard_of(&format!("h{host}.web.test")) as usize] += 1;
        }
        assert!(counts.iter().all(|&count| (900..1100).contains(&count)), "{counts:?}");
        assert!(ShardPlan::new(3, 4).unwrap().owns("example.com") == (owners[0] == 3));
        // Shard 0's plain name falls in the last quarter of the slots (12,119): a suffix moves it.
        assert_eq!(plan.prefix("crawl"), "crawl-0-of-4.2");
        assert!(plan.prefix_of("crawl", 3).starts_with("crawl-3-of-4"));
    }

    #[test]
    fn key_slots_are_redis_clusters() {
        // The cluster specification's check value, and slots `CLUSTER KEYSLOT` gives.
        assert_eq!(crc::Crc::<u16>::new(&crc::CRC_16_XMODEM).checksum(b"123456789"), 0x31c3);
        assert_eq!(key_slot("freshet"), 1_991);
        assert_eq!(key_slot("foo"), 12_182);
        assert_eq!(key_slot("crawl-0-of-4.2"), 3_890);
    }

    #[test]
    fn shards_prefixes_spread_over_the_slots() {
        for count in [1, 2, 3, 4, 8, 12, 100] {
            let plan = ShardPlan::new(0, count).unwrap();
            for index in 0..count {
                let prefix = plan.prefix_of("freshet", index);
                assert!(prefix.starts_with(&format!("freshet-{index}-of-{count}")), "{prefix}");
                let slice = u64::from(key_slot(&prefix)) * u64::from(count) / SLOTS;
                assert_eq!(slice, u64::from(index), "{prefix}");
            }
        }
        assert_eq!(ShardPlan::new(0, 1).unwrap().prefix("freshet"), "freshet-0-of-1");
    }

    #[test]
    fn handovers_round_trip_and_bad_entries_are_named() {
        let handover = Handover::Link { url: "http://a.test/x?y=1".into(), depth: 3 };
        assert_eq!(Handover::decode(handover.encode().as_bytes(), "inbox").unwrap(), handover);
        for cash in [0.0, 0.1 + 0.2, 1e-300, 12_345.678_9] {
            let handover = Handover::Cash { url: "http://a.test/".into(), cash };
            assert_eq!(Handover::decode(handover.encode().as_bytes(), "inbox").unwrap(), handover);
        }
        for cash in [0.0, 0.75] {
            let handover = Handover::Teleport { cash };
            assert_eq!(Handover::decode(handover.encode().as_bytes(), "inbox").unwrap(), handover);
        }
        for bad in [
            &b"c-1 http://a.test/"[..],
            b"cNaN http://a.test/",
            b"cinf http://a.test/",
            b"c http://a.test/",
            b"t-1",
            b"tNaN",
            b"t",
        ] {
            assert!(Handover::decode(bad, "inbox").is_err(), "{}", String::from_utf8_lossy(bad));
        }
        let error = Handover::decode(b"x http://a.test/", "{c-0-of-2}:inbox").unwrap_err().to_string();
        assert!(error.contains("{c-0-of-2}:inbox") && error.contains("DEPTH URL"), "{error}");
        assert!(Handover::decode(b"nospace", "inbox").is_err());
    }

    #[test]
    fn a_shard_is_done_when_it_left_or_is_idle_with_nothing_waiting() {
        let idle = ShardReading { started: true, idle: true, left: false, version: 3, pushed: 2, waiting: 0 };
        assert!(idle.done());
        assert!(!ShardReading { waiting: 1, ..idle }.done());
        assert!(!ShardReading { idle: false, ..idle }.done());
        assert!(ShardReading { idle: false, left: true, waiting: 5, ..idle }.done());
        assert!(!ShardReading { started: false, ..idle }.done());
    }
}
