//! A crawl shared among several crawler processes on Redis ([`CrawlConfig::shard`]): this
//! shard's side of `freshet_frontier`'s handover (see its `shards` module for the protocol and
//! why it neither loses nor repeats a page).
//!
//! - [`Crawler::discover`] hands a URL of another shard's host to that shard instead of
//!   storing it: scope, depth and URL length are checked first, by the same rules every shard
//!   runs; the receiver checks again.
//! - [`Crawler::settle`] sends what was handed over before it commits the completions that
//!   found it.
//! - The crawl loop reads this shard's inbox every [`INBOX_POLL`] seconds, discovers what it
//!   holds as links, commits, and only then takes it out.
//! - A one-pass shard with nothing left says it is idle and ends when the whole crawl is over.
//!   A shard that ends, for that or any other reason, says it left: what is sent to it later
//!   (by a shard resumed after it) waits in its inbox for its own resume.
//!
//! [`CrawlConfig::shard`]: crate::CrawlConfig::shard

use std::collections::HashSet;

use freshet_frontier::{Handover, ShardExchange};
use freshet_url::Url;

use crate::log::LogLine;

use super::{Crawler, unix_now};
use crate::error::Result;

/// How often (seconds) a shard reads its inbox, and an idle shard asks whether the crawl is
/// over.
pub(crate) const INBOX_POLL: f64 = 0.1;

/// The most inbox entries read and committed at once.
const INBOX_BATCH: usize = 1024;

/// How many handed-over URLs a shard remembers, not to send the same one again and again (a
/// site's every page links its neighbour's home): forgotten all at once when full (8 bytes
/// each), after which a URL may be sent once more, which the receiver's seen set absorbs.
const RECENTLY_SENT: usize = 1 << 20;

/// This shard's part in a sharded crawl.
pub(crate) struct Shards {
    exchange: ShardExchange,
    /// URLs for each shard, sent at the next [`Crawler::settle`].
    outgoing: Vec<Vec<Handover>>,
    outgoing_len: usize,
    /// Fingerprints of the URLs sent lately (see [`RECENTLY_SENT`]).
    recently_sent: HashSet<u64>,
    /// When the inbox is read next (Unix seconds).
    next_poll: f64,
    /// Whether this shard has nothing left of its own and waits for the crawl to be over.
    waiting: bool,
}

impl Shards {
    pub(crate) fn new(exchange: ShardExchange) -> Self {
        let count = exchange.plan().count() as usize;
        Self {
            exchange,
            outgoing: vec![Vec::new(); count],
            outgoing_len: 0,
            recently_sent: HashSet::new(),
            next_poll: 0.0,
            waiting: false,
        }
    }
}

impl Crawler {
    /// Queues `url` for its shard if another shard owns its host, and says whether it did.
    pub(crate) fn hand_over(&mut self, url: &Url, depth: u32) -> bool {
        let Some(shards) = &mut self.shards else { return false };
        let plan = shards.exchange.plan();
        let owner = plan.shard_of(url.host_str().unwrap_or_default());
        if owner == plan.index() {
            return false;
        }
        if shards.recently_sent.len() >= RECENTLY_SENT {
            shards.recently_sent.clear();
        }
        if shards.recently_sent.insert(freshet_frontier::url_fingerprint(url.as_str())) {
            shards.outgoing[owner as usize].push(Handover { url: url.as_str().to_owned(), depth });
            shards.outgoing_len += 1;
        }
        true
    }

    /// Sends what was handed over since the last call (before the commit of what found it).
    pub(crate) fn send_handovers(&mut self) -> Result<()> {
        let Some(shards) = &mut self.shards else { return Ok(()) };
        if shards.outgoing_len == 0 {
            return Ok(());
        }
        let sent = shards.exchange.send(&mut shards.outgoing)?;
        shards.outgoing_len = 0;
        self.summary.handed_over += sent;
        Ok(())
    }

    /// Reads this shard's inbox if it is time: discovers what it holds, commits, then takes it
    /// out. Returns whether anything was read.
    pub(crate) fn read_inbox(&mut self, now: f64) -> Result<bool> {
        let Some(shards) = &mut self.shards else { return Ok(false) };
        if now < shards.next_poll {
            return Ok(false);
        }
        shards.next_poll = now + INBOX_POLL;
        let entries = shards.exchange.peek(INBOX_BATCH)?;
        if entries.is_empty() {
            return Ok(false);
        }
        for entry in &entries {
            // Another shard canonicalised it; canonicalising again changes nothing, and a URL
            // that does not parse (a foreign writer, another version) is logged, not followed.
            let url = match freshet_url::canonicalize(&entry.url) {
                Ok(url) => url,
                Err(error) => {
                    let detail = format!("handed over by another shard, not a URL here: {error}");
                    self.log.write(&LogLine::skipped(&entry.url, "bad-handover", Some(detail)))?;
                    continue;
                }
            };
            if entry.depth == 0 {
                // A seed given to another shard: its scope comes with it.
                self.seeds.add(&url);
                self.seed_origins.insert(freshet_url::origin_key(&url));
            }
            self.discover(url, entry.depth, None)?;
        }
        self.settle()?;
        if let Some(shards) = &mut self.shards {
            shards.exchange.take(entries.len())?;
            shards.waiting = false;
        }
        self.summary.handed_in += entries.len() as u64;
        Ok(true)
    }

    /// This shard's plan, and whether it waits for the others with nothing left of its own,
    /// if the crawl is sharded.
    pub(crate) fn shard_plan(&self) -> Option<(freshet_frontier::ShardPlan, bool)> {
        self.shards.as_ref().map(|shards| (shards.exchange.plan(), shards.waiting))
    }

    /// Seconds until the inbox is read next, if this crawl is sharded.
    pub(crate) fn next_inbox_poll(&self) -> Option<f64> {
        self.shards.as_ref().map(|shards| shards.next_poll)
    }

    /// This shard has nothing left (nothing due, in flight or unsent): says so, and answers
    /// whether the whole crawl is over (true when the crawl is not sharded).
    pub(crate) fn crawl_is_over(&mut self) -> Result<bool> {
        if self.shards.is_none() {
            return Ok(true);
        }
        self.send_handovers()?;
        let Some(shards) = &mut self.shards else { return Ok(true) };
        shards.exchange.say(true, false)?;
        let over = shards.exchange.crawl_is_over()?;
        shards.waiting = !over;
        // The next look in a poll's time, not at once.
        shards.next_poll = shards.next_poll.max(unix_now() + INBOX_POLL);
        Ok(over)
    }

    /// Says this shard is at work (at the start of a run).
    pub(crate) fn say_busy(&mut self) -> Result<()> {
        match &mut self.shards {
            Some(shards) => Ok(shards.exchange.say(false, false)?),
            None => Ok(()),
        }
    }

    /// Says this shard left the crawl (its run ended): it takes nothing more, and what is sent
    /// to it waits for a resume.
    pub(crate) fn say_left(&mut self) -> Result<()> {
        match &mut self.shards {
            Some(shards) => Ok(shards.exchange.say(true, true)?),
            None => Ok(()),
        }
    }
}
