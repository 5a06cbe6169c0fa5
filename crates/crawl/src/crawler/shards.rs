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
//! - OPIC's cash crosses too (`freshet_rank::opic`, "Across processes"): a fetched page's
//!   links to other shards' pages take their shares of its cash, summed by page and sent as
//!   cash handovers every [`CASH_FLUSH`] seconds (and when the shard goes idle or leaves), and
//!   credited by the receiver to the page of that URL. A 304 reuses the page's links within
//!   the shard but not its links' URLs elsewhere (not kept; their count is, 2 bytes a page):
//!   their shares stay in the shard, spread evenly (through the virtual page). The virtual
//!   page is the whole crawl's: each shard hands out `1/N` of its cash at home and sends the
//!   rest to the others in equal parts (shards hold about as many pages each).
//! - A one-pass shard with nothing left says it is idle and ends when the whole crawl is over.
//!   A shard that ends, for that or any other reason, says it left: what is sent to it later
//!   (by a shard resumed after it) waits in its inbox for its own resume.
//!
//! [`CrawlConfig::shard`]: crate::CrawlConfig::shard

use std::collections::{HashMap, HashSet};

use freshet_frontier::{FrontierStore, Handover, ShardExchange};
use freshet_schedule::online::PageId;
use freshet_url::Url;

use crate::log::LogLine;

use super::{Crawler, unix_now};
use crate::error::Result;

/// How often (seconds) a shard reads its inbox, and an idle shard asks whether the crawl is
/// over.
pub(crate) const INBOX_POLL: f64 = 0.1;

/// How often (seconds) the OPIC cash gathered for other shards is sent: summed by page over
/// that time (a site's navigation links the same pages from every page), since cash may arrive
/// late (`freshet_rank::opic`, "Across processes") where a URL may not.
const CASH_FLUSH: f64 = 1.0;

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
    /// Fingerprints of the URLs sent lately (see [`RECENTLY_SENT`]).
    recently_sent: HashSet<u64>,
    /// When the inbox is read next (Unix seconds).
    next_poll: f64,
    /// Whether this shard has nothing left of its own and waits for the crawl to be over.
    waiting: bool,
    /// Each page fetched since the last commit: its distinct links to other shards' pages
    /// (their shard and URL), for its OPIC shares.
    foreign_links: HashMap<u32, Vec<(u32, String)>>,
    /// Each page's count of such links at its last fetch with content (by page id, saturating
    /// at `u16::MAX`), for a 304's shares.
    foreign_counts: Vec<u16>,
    /// Whether the crawl's importance is OPIC (the only estimator whose cash crosses).
    opic: bool,
    /// OPIC cash for each other shard's pages, by URL, gathered since the last flush.
    cash: Vec<HashMap<String, f64>>,
    /// OPIC's virtual-page cash kept for the other shards, gathered since the last flush.
    teleport: f64,
    /// When the gathered cash is sent next (Unix seconds).
    next_cash_flush: f64,
}

/// A fetched page's links to other shards' pages, for its OPIC shares.
pub(crate) enum ForeignLinks {
    /// None, or the crawl is not sharded.
    None,
    /// Found by this fetch: each page's shard and URL.
    Found(Vec<(u32, String)>),
    /// A 304's: as many as its last fetch with content found (their URLs are not kept).
    Counted(usize),
}

impl ForeignLinks {
    /// How many.
    pub(crate) fn count(&self) -> usize {
        match self {
            Self::None => 0,
            Self::Found(links) => links.len(),
            Self::Counted(count) => *count,
        }
    }
}

impl Shards {
    pub(crate) fn new(exchange: ShardExchange, opic: bool) -> Self {
        let count = exchange.plan().count() as usize;
        Self {
            exchange,
            outgoing: vec![Vec::new(); count],
            recently_sent: HashSet::new(),
            next_poll: 0.0,
            waiting: false,
            foreign_links: HashMap::new(),
            foreign_counts: Vec::new(),
            opic,
            cash: vec![HashMap::new(); count],
            teleport: 0.0,
            next_cash_flush: 0.0,
        }
    }
}

impl Crawler {
    /// Queues `url` for its shard if another shard owns its host, and says whether it did; a
    /// link found on page `from` is remembered for that page's OPIC shares.
    pub(crate) fn hand_over(&mut self, url: &Url, depth: u32, from: Option<PageId>) -> bool {
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
            shards.outgoing[owner as usize].push(Handover::Link { url: url.as_str().to_owned(), depth });
        }
        if shards.opic
            && let Some(page) = from
        {
            let links = shards.foreign_links.entry(page.0).or_default();
            if !links.iter().any(|(_, known)| known == url.as_str()) {
                links.push((owner, url.as_str().to_owned()));
            }
        }
        true
    }

    /// `page`'s links to other shards' pages: those its fetch just found, or, for a 304
    /// (`cached`), as many as its last fetch with content found.
    pub(crate) fn take_foreign_links(&mut self, page: PageId, cached: bool) -> ForeignLinks {
        let Some(shards) = &mut self.shards else { return ForeignLinks::None };
        let index = page.0 as usize;
        if cached {
            return match shards.foreign_counts.get(index) {
                Some(&count) if count > 0 => ForeignLinks::Counted(usize::from(count)),
                _ => ForeignLinks::None,
            };
        }
        let links = shards.foreign_links.remove(&page.0);
        let count = links.as_ref().map_or(0, Vec::len);
        if count > 0 && shards.foreign_counts.len() <= index {
            shards.foreign_counts.resize(index + 1, 0);
        }
        if let Some(slot) = shards.foreign_counts.get_mut(index) {
            *slot = u16::try_from(count).unwrap_or(u16::MAX);
        }
        links.map_or(ForeignLinks::None, ForeignLinks::Found)
    }

    /// Hands `share` of OPIC cash along each of `links` to its shard (sent at the next
    /// settle); a 304's shares, whose URLs are not kept, stay in this shard, spread evenly.
    pub(crate) fn pay_foreign_links(&mut self, links: ForeignLinks, share: f64) {
        if share <= 0.0 {
            return;
        }
        match links {
            ForeignLinks::None => {}
            ForeignLinks::Counted(count) => self.weights.receive(None, share * count as f64),
            ForeignLinks::Found(links) => {
                let Some(shards) = &mut self.shards else { return };
                for (owner, url) in links {
                    *shards.cash[owner as usize].entry(url).or_default() += share;
                }
            }
        }
    }

    /// Sends what was handed over since the last call (before the commit of what found it).
    pub(crate) fn send_handovers(&mut self) -> Result<()> {
        self.send_handovers_and_cash(false)
    }

    /// [`Crawler::send_handovers`], with the OPIC cash gathered for other shards if it is time
    /// ([`CASH_FLUSH`]) or `flush_cash` (this shard goes idle or leaves).
    pub(crate) fn send_handovers_and_cash(&mut self, flush_cash: bool) -> Result<()> {
        let Some(shards) = &mut self.shards else { return Ok(()) };
        shards.teleport += self.weights.take_teleport_export();
        let now = super::unix_now();
        if flush_cash || now >= shards.next_cash_flush {
            shards.next_cash_flush = now + CASH_FLUSH;
            let plan = shards.exchange.plan();
            // OPIC's virtual page kept a share for the other shards' pages: equal parts.
            let teleport = std::mem::take(&mut shards.teleport);
            for shard in (0..plan.count()).filter(|&shard| shard != plan.index()) {
                let outgoing = &mut shards.outgoing[shard as usize];
                if teleport > 0.0 {
                    outgoing.push(Handover::Teleport { cash: teleport / f64::from(plan.count() - 1) });
                }
                outgoing.extend(
                    shards.cash[shard as usize].drain().map(|(url, cash)| Handover::Cash { url, cash }),
                );
            }
        }
        if shards.outgoing.iter().all(Vec::is_empty) {
            return Ok(());
        }
        let links: usize = shards.outgoing.iter().flatten().filter(|entry| entry.is_link()).count();
        let sent = shards.exchange.send(&mut shards.outgoing)?;
        self.summary.handed_over += links as u64;
        self.summary.cash_handed_over += sent - links as u64;
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
        // Links first, committed, so that the cash that follows finds their pages.
        let mut links = 0;
        for entry in &entries {
            let Handover::Link { url, depth } = entry else { continue };
            links += 1;
            // Another shard canonicalised it; canonicalising again changes nothing, and a URL
            // that does not parse (a foreign writer, another version) is logged, not followed.
            let url = match freshet_url::canonicalize(url) {
                Ok(canonical) => canonical,
                Err(error) => {
                    let detail = format!("handed over by another shard, not a URL here: {error}");
                    self.log.write(&LogLine::skipped(url, "bad-handover", Some(detail)))?;
                    continue;
                }
            };
            if *depth == 0 {
                // A seed given to another shard: its scope comes with it.
                self.seeds.add(&url);
                self.seed_origins.insert(freshet_url::origin_key(&url));
            }
            self.discover(url, *depth, None)?;
        }
        self.settle()?;
        for entry in &entries {
            match entry {
                Handover::Link { .. } => {}
                Handover::Cash { url, cash } => {
                    // A page this shard refused (out of scope, over a limit) is not held: its
                    // cash goes to every page.
                    let page = self.store.lookup(url)?;
                    self.weights.receive(page.map(|page| page.0), *cash);
                }
                Handover::Teleport { cash } => self.weights.receive_teleport(*cash),
            }
        }
        if let Some(shards) = &mut self.shards {
            shards.exchange.take(entries.len())?;
            shards.waiting = false;
        }
        self.summary.handed_in += links;
        self.summary.cash_handed_in += entries.len() as u64 - links;
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
        self.send_handovers_and_cash(true)?;
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
        if self.shards.is_some() {
            self.send_handovers_and_cash(true)?;
        }
        match &mut self.shards {
            Some(shards) => Ok(shards.exchange.say(true, true)?),
            None => Ok(()),
        }
    }
}
