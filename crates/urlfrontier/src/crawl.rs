//! One crawl of the service: its store (durable: URLs, queues, metadata, schedule) and the
//! queues in memory that answer `GetURLs` without reading the store. No gRPC here and no clock:
//! every call takes `now` (seconds since the Unix epoch), so the tests drive time.

use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeSet, BinaryHeap, HashMap};

use freshet_frontier::{
    Completion, Discovery, FrontierStore, HostPoliteness, Op, PageRecord, PageState, StoredPage, limits,
};
use freshet_schedule::online::{HostId, PageId};

use crate::error::{Result, ServiceError};
use crate::revisit::{Decision, RevisitOptions, Revisits, Signals};

/// How many URLs one store commit carries at most when a call touches many (a queue's or a
/// crawl's deletion).
const REMOVE_BATCH: usize = 10_000;

/// How many page records one read of the store returns when a call scans them all.
const SCAN_BATCH: usize = 10_000;

/// A time that sorts (the store's times are finite `f64`s: the store refuses others).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Time(f64);

impl Eq for Time {}

impl PartialOrd for Time {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Time {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// One item of a `PutURLs` stream, checked and decoded.
#[derive(Clone, Debug, PartialEq)]
pub struct Put {
    /// The URL, as the client sent it (compared byte for byte: the client canonicalises).
    pub url: String,
    /// Its queue key (the client's, or the URL's host when the client gave none).
    pub key: String,
    /// The client's metadata, encoded ([`crate::metadata`]).
    pub metadata: Vec<u8>,
    /// Discovered (added only if new) or known (always updated).
    pub kind: PutKind,
    /// What the client said of its fetch, for freshet's revisit policy ([`crate::revisit`]).
    pub signals: Signals,
}

/// What a [`Put`] says of its URL.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PutKind {
    /// Found on a page or in a sitemap: added if the crawl does not hold it yet, served as soon
    /// as its queue allows; ignored otherwise (URLFrontier's `DiscoveredURLItem`).
    Discovered,
    /// Processed by the client (URLFrontier's `KnownURLItem`): its lease ends, its metadata is
    /// replaced, and it is served again from `refetch` on, or never when `None`.
    Known {
        /// Seconds since the epoch (`refetchable_from_date`; 0 on the wire is `None`).
        refetch: Option<f64>,
    },
}

/// A URL served by [`Crawl::get`].
#[derive(Clone, Debug, PartialEq)]
pub struct Served {
    /// The URL.
    pub url: String,
    /// Its queue key.
    pub key: String,
    /// Its metadata, encoded.
    pub metadata: Vec<u8>,
}

/// What `GetURLs` asks of one crawl.
#[derive(Clone, Debug, PartialEq)]
pub struct GetRequest<'a> {
    /// At most this many URLs in process per queue, counting those leased before (`None`: no
    /// limit).
    pub max_urls_per_queue: Option<u32>,
    /// At most this many queues served (`None`: no limit).
    pub max_queues: Option<u32>,
    /// Only this queue.
    pub key: Option<&'a str>,
    /// How long each URL served stays leased (seconds).
    pub lease: f64,
}

/// One crawl's counts (`GetStats`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QueueStats {
    /// URLs waiting in queues: scheduled, not leased (due now or later).
    pub waiting: u64,
    /// Of those, due now.
    pub due: u64,
    /// URLs leased (served and not yet reported).
    pub in_process: u64,
    /// URLs reported processed at least once (`KnownURLItem`s, each URL counted once).
    pub completed: u64,
    /// Queues counted.
    pub queues: u64,
    /// URLs whose next date freshet's revisit policy chose (the whole crawl's).
    pub revisited: u64,
}

/// Where a URL stands, as `GetURLStatus` reports it.
#[derive(Clone, Debug, PartialEq)]
pub struct UrlStatus {
    /// The URL.
    pub url: String,
    /// Its queue key.
    pub key: String,
    /// Its metadata, encoded.
    pub metadata: Vec<u8>,
    /// Never reported processed: still a discovered URL.
    pub discovered: bool,
    /// When it is next served (seconds since the epoch); `None`: never again.
    pub next_due: Option<f64>,
}

/// One queue in memory: its waiting URLs by due time, and its politeness.
#[derive(Debug)]
struct Queue {
    key: String,
    /// Scheduled URLs not leased, by due time then id (first discovered first).
    waiting: BTreeSet<(Time, PageId)>,
    in_process: u32,
    /// Last time it served URLs.
    last_served: Option<f64>,
    /// Least time between two servings (`SetDelay`; stored as the host's `min_delay`).
    delay: Option<f64>,
    /// Serves nothing before (`BlockQueueUntil`; stored as the host's `blocked_until`).
    blocked_until: Option<f64>,
    /// Serves nothing once this many of its URLs have been reported (`SetCrawlLimit`).
    limit: Option<u64>,
    /// Its URLs reported processed at least once.
    completed: u64,
    /// Its entry in [`Crawl::ready`]: when it can serve next, and the entry's sequence number.
    ready_key: Option<(Time, u64)>,
}

impl Queue {
    fn new(key: String, politeness: HostPoliteness) -> Self {
        Self {
            key,
            waiting: BTreeSet::new(),
            in_process: 0,
            last_served: None,
            delay: (politeness.min_delay > 0.0).then_some(politeness.min_delay),
            blocked_until: politeness.blocked_until,
            limit: None,
            completed: 0,
            ready_key: None,
        }
    }

    /// When the queue can serve next: its earliest due URL's time, not before it is unblocked,
    /// nor before its delay since it last served, nor before it last served (so that a queue
    /// just served goes behind the others); `None` with nothing waiting or at its crawl limit.
    fn servable_from(&self, default_delay: Option<f64>) -> Option<f64> {
        let (head, _) = self.waiting.first()?;
        if self.limit.is_some_and(|limit| self.completed >= limit) {
            return None;
        }
        let mut at = head.0;
        if let Some(until) = self.blocked_until {
            at = at.max(until);
        }
        if let Some(last) = self.last_served {
            at = at.max(last);
            if let Some(delay) = self.delay.or(default_delay) {
                at = at.max(last + delay);
            }
        }
        Some(at)
    }

    fn due_now(&self, now: f64) -> bool {
        self.waiting.first().is_some_and(|(due, _)| due.0 <= now)
    }
}

/// A scheduled URL: its queue, when it is due, and its lease while it is served.
#[derive(Clone, Copy, Debug)]
struct Slot {
    queue: HostId,
    due: f64,
    leased_until: Option<f64>,
}

/// One crawl: its store and its queues.
pub struct Crawl {
    store: Box<dyn FrontierStore>,
    queues: Vec<Queue>,
    queue_ids: HashMap<String, HostId>,
    /// Every URL with a due time (waiting or leased); URLs never to be served again are in the
    /// store only.
    scheduled: HashMap<PageId, Slot>,
    /// Lease ends, earliest first; an entry whose slot no longer has that lease is stale.
    leases: BinaryHeap<Reverse<(Time, PageId)>>,
    /// The queues that have URLs waiting and are not at their crawl limit, by the time each
    /// can serve next ([`Queue::servable_from`]), then by when that time was set (so a queue
    /// just served goes behind the queues due as long): `get` reads only the queues it can
    /// serve, however many are idle.
    ready: BTreeSet<(Time, u64, u32)>,
    /// The sequence numbers of `ready`'s entries.
    sequence: u64,
    /// `SetDelay` with an empty key: the delay of queues without their own.
    default_delay: Option<f64>,
    /// freshet's revisit policy, if the service runs it.
    revisits: Option<Revisits>,
}

impl std::fmt::Debug for Crawl {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Crawl")
            .field("queues", &self.queues.len())
            .field("scheduled", &self.scheduled.len())
            .finish_non_exhaustive()
    }
}

impl Crawl {
    /// Opens a crawl on `store` that keeps its clients' dates (no revisit policy).
    ///
    /// # Errors
    /// The store's.
    pub fn open(store: Box<dyn FrontierStore>) -> Result<Self> {
        Self::open_with(store, None)
    }

    /// Opens a crawl on `store`: gives back what was in flight at a crash (nothing, unless the
    /// store was also written by a crawler), then rebuilds the queues from the hosts and the
    /// pages, in id order; with `revisit`, freshet chooses the dates of the known URLs whose
    /// clients send signals ([`crate::revisit`]), and the pages it scheduled before are taken
    /// back.
    ///
    /// # Errors
    /// The store's.
    pub fn open_with(mut store: Box<dyn FrontierStore>, revisit: Option<RevisitOptions>) -> Result<Self> {
        store.recover()?;
        let mut crawl = Self {
            store,
            queues: Vec::new(),
            queue_ids: HashMap::new(),
            scheduled: HashMap::new(),
            leases: BinaryHeap::new(),
            ready: BTreeSet::new(),
            sequence: 0,
            default_delay: None,
            revisits: revisit.map(Revisits::new),
        };
        let mut after = None;
        loop {
            let hosts = crawl.store.hosts(after, SCAN_BATCH)?;
            let Some(last) = hosts.last() else { break };
            after = Some(last.id);
            for host in hosts {
                crawl.add_queue(host.id, host.key, host.politeness);
            }
        }
        let mut after = None;
        loop {
            let pages = crawl.store.pages(after, SCAN_BATCH)?;
            let Some(last) = pages.last() else { break };
            after = Some(last.id);
            for page in pages {
                let queue = crawl.queue_mut(page.record.host)?;
                if page.record.state == PageState::Fetched {
                    queue.completed += 1;
                }
                if let Some(due) = page.record.next_due {
                    crawl.schedule(page.id, page.record.host, due);
                    if let Some(revisits) = &mut crawl.revisits
                        && !page.record.estimator.is_empty()
                    {
                        revisits.restore(page.id, page.record.host.0, &page.record);
                    }
                }
            }
        }
        Ok(crawl)
    }

    fn add_queue(&mut self, id: HostId, key: String, politeness: HostPoliteness) {
        let index = id.0 as usize;
        if self.queues.len() <= index {
            self.queues.resize_with(index + 1, || Queue::new(String::new(), HostPoliteness::default()));
        }
        self.queue_ids.insert(key.clone(), id);
        self.queues[index] = Queue::new(key, politeness);
    }

    fn queue_mut(&mut self, id: HostId) -> Result<&mut Queue> {
        self.queues.get_mut(id.0 as usize).ok_or(ServiceError::Inconsistent("a page of an unknown queue"))
    }

    /// Makes `page` wait in `queue` from `due` on (taking it out of where it was first).
    fn schedule(&mut self, page: PageId, queue: HostId, due: f64) {
        self.unschedule(page);
        if let Some(entry) = self.queues.get_mut(queue.0 as usize) {
            entry.waiting.insert((Time(due), page));
        }
        self.scheduled.insert(page, Slot { queue, due, leased_until: None });
        self.refresh(queue.0 as usize);
    }

    /// Puts queue `index` back in [`ready`](Self::ready) at the time it can serve next (or
    /// takes it out): called after anything that may change that time.
    fn refresh(&mut self, index: usize) {
        let Some(queue) = self.queues.get(index) else { return };
        let time = queue.servable_from(self.default_delay).map(Time);
        let old = queue.ready_key;
        if old.map(|(time, _)| time) == time {
            return;
        }
        let queue_id = u32::try_from(index).unwrap_or(u32::MAX);
        if let Some((old_time, sequence)) = old {
            self.ready.remove(&(old_time, sequence, queue_id));
        }
        let new = time.map(|time| {
            self.sequence += 1;
            (time, self.sequence)
        });
        if let Some((time, sequence)) = new {
            self.ready.insert((time, sequence, queue_id));
        }
        self.queues[index].ready_key = new;
    }

    /// Takes `page` out of its queue, waiting or leased.
    fn unschedule(&mut self, page: PageId) {
        let Some(slot) = self.scheduled.remove(&page) else { return };
        let Some(queue) = self.queues.get_mut(slot.queue.0 as usize) else { return };
        if slot.leased_until.is_some() {
            queue.in_process = queue.in_process.saturating_sub(1);
        } else {
            queue.waiting.remove(&(Time(slot.due), page));
            self.refresh(slot.queue.0 as usize);
        }
    }

    /// Ends the leases due by `now`: their URLs wait again, at their old due time (URLFrontier:
    /// a URL not reported within `delay_requestable` is served again).
    fn expire_leases(&mut self, now: f64) {
        while let Some(Reverse((end, page))) = self.leases.peek().copied() {
            if end.0 > now {
                break;
            }
            self.leases.pop();
            let Some(slot) = self.scheduled.get_mut(&page) else { continue };
            if slot.leased_until != Some(end.0) {
                continue;
            }
            slot.leased_until = None;
            let slot = *slot;
            if let Some(queue) = self.queues.get_mut(slot.queue.0 as usize) {
                queue.in_process = queue.in_process.saturating_sub(1);
                queue.waiting.insert((Time(slot.due), page));
                self.refresh(slot.queue.0 as usize);
            }
        }
    }

    /// Applies a chunk of `PutURLs` items as at most two commits (the discoveries, which also
    /// give every known URL its id, then the known URLs' updates) and answers, for each item,
    /// whether it is stored.
    ///
    /// # Errors
    /// The store's: then nothing of the failed commit is stored, and the queues are as before it.
    /// If the second commit fails, the first (discoveries) is kept, and the error says so by
    /// [`PutError::discoveries_stored`].
    pub fn put(&mut self, items: &[Put], now: f64) -> std::result::Result<(), PutError> {
        let discoveries: Vec<Op> = items
            .iter()
            .map(|item| {
                let metadata = match item.kind {
                    PutKind::Discovered => item.metadata.clone(),
                    // Its metadata is set by the update below, whether the URL is new or not.
                    PutKind::Known { .. } => Vec::new(),
                };
                Op::Discover(Discovery {
                    url: item.url.clone(),
                    host: item.key.clone(),
                    weight: 1.0,
                    change_rate: 0.0,
                    depth: 0,
                    discovered_from: None,
                    due: now,
                    redirect_trail: Vec::new(),
                    metadata,
                })
            })
            .collect();
        let report = self
            .store
            .commit(&discoveries)
            .map_err(|error| PutError { error: error.into(), discoveries_stored: false })?;
        for (id, key) in report.new_hosts {
            self.add_queue(id, key, HostPoliteness::default());
        }
        let mut updates = Vec::new();
        let mut known = Vec::new();
        // The known URLs' records, read in one batch (one round trip to a Redis store).
        let known_pages: Vec<PageId> = items
            .iter()
            .zip(&report.admissions)
            .filter(|(item, _)| matches!(item.kind, PutKind::Known { .. }))
            .map(|(_, admission)| admission.page)
            .collect();
        let mut records = self
            .store
            .page_batch(&known_pages)
            .map_err(|error| PutError { error: error.into(), discoveries_stored: true })?
            .into_iter();
        for (item, admission) in items.iter().zip(&report.admissions) {
            match item.kind {
                PutKind::Discovered => {
                    if admission.is_new {
                        self.schedule(admission.page, admission.host, now);
                    }
                }
                PutKind::Known { refetch } => {
                    let Some(stored) = records.next().flatten() else {
                        let error = ServiceError::Inconsistent("a page admitted and not found");
                        return Err(PutError { error, discoveries_stored: true });
                    };
                    let decision = match (refetch, &mut self.revisits) {
                        (Some(client_date), Some(revisits)) => revisits.decide(
                            admission.page,
                            admission.host.0,
                            &stored.record,
                            &item.signals,
                            now,
                            client_date,
                        ),
                        _ => None,
                    };
                    let mut update = completion(admission.page, &stored.record, now, refetch);
                    if let Some(decision) = &decision {
                        update.next_due = Some(decision.due);
                        update.weight = decision.weight;
                        update.change_rate = decision.change_rate;
                        update.estimator.clone_from(&decision.estimator);
                        update.fingerprint.clone_from(&decision.fingerprint);
                    }
                    let next_due = update.next_due;
                    updates.push(Op::Complete(update));
                    updates.push(Op::SetMetadata { page: admission.page, metadata: item.metadata.clone() });
                    known.push(Reported {
                        page: admission.page,
                        queue: admission.host,
                        state_before: stored.record.state,
                        next_due,
                        decision,
                    });
                }
            }
        }
        if updates.is_empty() {
            return Ok(());
        }
        self.store
            .commit(&updates)
            .map_err(|error| PutError { error: error.into(), discoveries_stored: true })?;
        let mut counted = std::collections::HashSet::new();
        for Reported { page, queue, state_before, next_due, decision } in known {
            self.unschedule(page);
            if state_before != PageState::Fetched
                && counted.insert(page)
                && let Some(entry) = self.queues.get_mut(queue.0 as usize)
            {
                entry.completed += 1;
                self.refresh(queue.0 as usize);
            }
            if let Some(revisits) = &mut self.revisits {
                match &decision {
                    Some(decision) => revisits.apply(page, queue.0, decision),
                    None => revisits.forget(page),
                }
            }
            if let Some(due) = next_due {
                self.schedule(page, queue, due);
            }
        }
        Ok(())
    }

    /// Serves the URLs due by `now`: queues in the order they became servable (a queue just
    /// served goes behind those waiting as long: a rotation), skipping those blocked, within
    /// their delay or at their crawl limit, reading only the queues that can serve (an index
    /// by time, however many queues are idle); from each, the
    /// earliest due first, as many as `max_urls_per_queue` allows beside the URLs it has in
    /// process. Each URL served is leased until `now + lease`.
    ///
    /// # Errors
    /// The store's (reading the URLs served); the leases are then taken all the same, and end
    /// by themselves.
    pub fn get(&mut self, request: &GetRequest<'_>, now: f64) -> Result<Vec<Served>> {
        self.expire_leases(now);
        let room = |queue: &Queue| {
            request.max_urls_per_queue.map_or(u32::MAX, |max| max.saturating_sub(queue.in_process))
        };
        let candidates: Vec<usize> = match request.key {
            Some(key) => self.queue_ids.get(key).map(|id| id.0 as usize).into_iter().collect(),
            None => {
                let mut chosen = Vec::new();
                for &(time, _, index) in &self.ready {
                    if time.0 > now || request.max_queues.is_some_and(|max| chosen.len() >= max as usize) {
                        break;
                    }
                    if self.queues.get(index as usize).is_some_and(|queue| room(queue) > 0) {
                        chosen.push(index as usize);
                    }
                }
                chosen
            }
        };
        let mut pages = Vec::new();
        for index in candidates {
            let default_delay = self.default_delay;
            let Some(queue) = self.queues.get_mut(index) else { continue };
            if queue.servable_from(default_delay).is_none_or(|at| at > now) {
                continue;
            }
            let room = room(queue);
            let mut taken = 0;
            while taken < room {
                let Some(&(due, page)) = queue.waiting.first() else { break };
                if due.0 > now {
                    break;
                }
                queue.waiting.pop_first();
                pages.push(page);
                taken += 1;
            }
            if taken > 0 {
                queue.in_process += taken;
                queue.last_served = Some(now);
            }
            self.refresh(index);
        }
        let lease_end = now + request.lease;
        for &page in &pages {
            if let Some(slot) = self.scheduled.get_mut(&page) {
                slot.leased_until = Some(lease_end);
                self.leases.push(Reverse((Time(lease_end), page)));
            }
        }
        let mut served = Vec::with_capacity(pages.len());
        for stored in self.store.page_batch(&pages)?.into_iter().flatten() {
            let key = self.queues.get(stored.record.host.0 as usize).map(|queue| queue.key.clone());
            served.push(Served {
                url: stored.url,
                key: key.unwrap_or_default(),
                metadata: stored.record.metadata,
            });
        }
        Ok(served)
    }

    /// The queue of `key`, if the crawl has one.
    fn queue_id(&self, key: &str) -> Option<HostId> {
        self.queue_ids.get(key).copied()
    }

    /// Counts for the queue `key`, or the whole crawl when `None` (`GetStats`).
    #[must_use]
    pub fn stats(&mut self, key: Option<&str>, now: f64) -> QueueStats {
        self.expire_leases(now);
        let mut stats = QueueStats::default();
        let indices: Vec<usize> = match key {
            Some(key) => self.queue_id(key).map(|id| id.0 as usize).into_iter().collect(),
            None => (0..self.queues.len()).collect(),
        };
        for index in indices {
            let queue = &self.queues[index];
            stats.queues += 1;
            stats.waiting += queue.waiting.len() as u64;
            stats.due += queue.waiting.range(..(Time(now), PageId(u32::MAX))).count() as u64;
            stats.in_process += u64::from(queue.in_process);
            stats.completed += queue.completed;
        }
        stats.revisited = self.revisits.as_ref().map_or(0, |revisits| revisits.pages() as u64);
        stats
    }

    /// The queues' keys in the order of their creation, from `start`, at most `size`, and how
    /// many there are in all; active queues only (URLs due now, not blocked) unless
    /// `include_inactive` (`ListQueues`).
    #[must_use]
    pub fn queue_keys(
        &mut self,
        start: usize,
        size: usize,
        include_inactive: bool,
        now: f64,
    ) -> (Vec<String>, u64) {
        self.expire_leases(now);
        let active =
            |queue: &Queue| queue.due_now(now) && !queue.blocked_until.is_some_and(|until| now < until);
        let matching: Vec<&Queue> =
            self.queues.iter().filter(|queue| include_inactive || active(queue)).collect();
        let total = matching.len() as u64;
        let keys = matching.into_iter().skip(start).take(size).map(|queue| queue.key.clone()).collect();
        (keys, total)
    }

    /// Sets the least time between two servings of queue `key`, or of every queue without its
    /// own when `key` is `None` (`SetDelay`). A queue's delay is stored with it; the default is
    /// not (it lasts until the service stops).
    ///
    /// # Errors
    /// [`ServiceError::UnknownQueue`], the store's.
    pub fn set_delay(&mut self, key: Option<&str>, delay: f64) -> Result<()> {
        let delay = (delay > 0.0).then_some(delay);
        let Some(key) = key else {
            self.default_delay = delay;
            for index in 0..self.queues.len() {
                self.refresh(index);
            }
            return Ok(());
        };
        let id = self.queue_id(key).ok_or_else(|| ServiceError::UnknownQueue(key.to_owned()))?;
        let mut politeness = self.politeness(id)?;
        politeness.min_delay = delay.unwrap_or(0.0);
        self.store.commit(&[Op::SetHost { host: id, politeness }])?;
        self.queue_mut(id)?.delay = delay;
        self.refresh(id.0 as usize);
        Ok(())
    }

    /// Serves nothing from queue `key` before `until` (`None`: unblocks; `BlockQueueUntil`);
    /// stored with the queue.
    ///
    /// # Errors
    /// [`ServiceError::UnknownQueue`], the store's.
    pub fn block_until(&mut self, key: &str, until: Option<f64>) -> Result<()> {
        let id = self.queue_id(key).ok_or_else(|| ServiceError::UnknownQueue(key.to_owned()))?;
        let mut politeness = self.politeness(id)?;
        politeness.blocked_until = until;
        self.store.commit(&[Op::SetHost { host: id, politeness }])?;
        self.queue_mut(id)?.blocked_until = until;
        self.refresh(id.0 as usize);
        Ok(())
    }

    /// Stops serving queue `key` once `limit` of its URLs have been reported processed (`None`:
    /// no limit; `SetCrawlLimit`). Kept in memory only: it lasts until the service stops.
    ///
    /// # Errors
    /// [`ServiceError::UnknownQueue`].
    pub fn set_limit(&mut self, key: &str, limit: Option<u64>) -> Result<()> {
        let id = self.queue_id(key).ok_or_else(|| ServiceError::UnknownQueue(key.to_owned()))?;
        self.queue_mut(id)?.limit = limit;
        self.refresh(id.0 as usize);
        Ok(())
    }

    fn politeness(&self, id: HostId) -> Result<HostPoliteness> {
        let host =
            self.store.host(id)?.ok_or(ServiceError::Inconsistent("a queue without its host record"))?;
        Ok(host.politeness)
    }

    /// Forgets every URL of queue `key` (`DeleteQueue`); returns how many. The queue itself
    /// stays (empty), with its politeness.
    ///
    /// # Errors
    /// The store's; the URLs removed by the commits before the failing one stay removed.
    pub fn delete_queue(&mut self, key: &str) -> Result<u64> {
        let Some(id) = self.queue_id(key) else { return Ok(0) };
        let mut removed = 0;
        let mut batch = Vec::new();
        let mut after = None;
        loop {
            let pages = self.store.pages(after, SCAN_BATCH)?;
            let Some(last) = pages.last() else { break };
            after = Some(last.id);
            batch.extend(pages.iter().filter(|page| page.record.host == id).map(|page| page.id));
            if batch.len() >= REMOVE_BATCH {
                removed += self.remove_pages(&mut batch)?;
            }
        }
        removed += self.remove_pages(&mut batch)?;
        let queue = self.queue_mut(id)?;
        queue.completed = 0;
        self.refresh(id.0 as usize);
        Ok(removed)
    }

    fn remove_pages(&mut self, pages: &mut Vec<PageId>) -> Result<u64> {
        let ops: Vec<Op> = pages.iter().map(|&page| Op::Remove(page)).collect();
        self.store.commit(&ops)?;
        for page in pages.drain(..) {
            self.unschedule(page);
            if let Some(revisits) = &mut self.revisits {
                revisits.forget(page);
            }
        }
        Ok(ops.len() as u64)
    }

    /// Where `url` stands (`GetURLStatus`); `None` if the crawl does not hold it.
    ///
    /// # Errors
    /// The store's.
    pub fn status(&self, url: &str) -> Result<Option<UrlStatus>> {
        let Some(page) = self.store.lookup(url)? else { return Ok(None) };
        let Some(stored) = self.store.page(page)? else { return Ok(None) };
        Ok(Some(self.url_status(stored)))
    }

    fn url_status(&self, stored: StoredPage) -> UrlStatus {
        let key = self.queues.get(stored.record.host.0 as usize).map(|queue| queue.key.clone());
        UrlStatus {
            url: stored.url,
            key: key.unwrap_or_default(),
            metadata: stored.record.metadata,
            discovered: stored.record.state != PageState::Fetched,
            next_due: stored.record.next_due,
        }
    }

    /// Calls `visit` on every URL of the crawl in the order of discovery, of queue `key` if
    /// given, whose URL `filter` accepts; stops when `visit` returns `false` (`ListURLs`,
    /// `CountURLs`).
    ///
    /// # Errors
    /// The store's.
    pub fn scan(
        &self,
        key: Option<&str>,
        filter: &UrlFilter,
        mut visit: impl FnMut(UrlStatus) -> bool,
    ) -> Result<()> {
        let queue = match key {
            Some(key) => match self.queue_id(key) {
                Some(id) => Some(id),
                None => return Ok(()),
            },
            None => None,
        };
        let mut after = None;
        loop {
            let pages = self.store.pages(after, SCAN_BATCH)?;
            let Some(last) = pages.last() else { return Ok(()) };
            after = Some(last.id);
            for page in pages {
                if queue.is_some_and(|id| page.record.host != id) || !filter.accepts(&page.url) {
                    continue;
                }
                if !visit(self.url_status(page)) {
                    return Ok(());
                }
            }
        }
    }

    /// How many URLs the crawl holds.
    ///
    /// # Errors
    /// The store's.
    pub fn url_count(&self) -> Result<u64> {
        Ok(self.store.counts()?.pages())
    }
}

/// `ListURLs`' and `CountURLs`' filter: URLs containing a string, with or without case.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UrlFilter {
    needle: Option<String>,
    ignore_case: bool,
}

impl UrlFilter {
    /// URLs containing `needle` (all URLs when `None` or empty), compared ignoring case if asked.
    #[must_use]
    pub fn new(needle: Option<&str>, ignore_case: bool) -> Self {
        let needle = needle.filter(|needle| !needle.is_empty());
        let needle = needle.map(|needle| if ignore_case { needle.to_lowercase() } else { needle.to_owned() });
        Self { needle, ignore_case }
    }

    fn accepts(&self, url: &str) -> bool {
        match &self.needle {
            None => true,
            Some(needle) if self.ignore_case => url.to_lowercase().contains(needle.as_str()),
            Some(needle) => url.contains(needle.as_str()),
        }
    }
}

/// A known URL's report, held until its update is stored.
struct Reported {
    page: PageId,
    queue: HostId,
    state_before: PageState,
    next_due: Option<f64>,
    decision: Option<Decision>,
}

/// A failed [`Crawl::put`]: the error, and whether the discoveries' commit was kept.
#[derive(Debug)]
pub struct PutError {
    /// What failed.
    pub error: ServiceError,
    /// The first commit (every item's discovery) was stored; only the known URLs' updates were
    /// not.
    pub discoveries_stored: bool,
}

/// A known URL's update: its record's fields kept, fetched `now`, due at `refetch`.
fn completion(page: PageId, record: &PageRecord, now: f64, refetch: Option<f64>) -> Completion {
    Completion {
        page,
        fetched_at: now,
        weight: record.weight,
        change_rate: record.change_rate,
        next_due: refetch,
        etag: record.etag.clone(),
        last_modified: record.last_modified.clone(),
        fingerprint: record.fingerprint.clone(),
        estimator: record.estimator.clone(),
    }
}

/// Checks what the store would refuse, so that one bad item is skipped alone rather than
/// failing its whole chunk: `Some(reason)` if `put` cannot be stored.
#[must_use]
pub fn refusal(put: &Put) -> Option<String> {
    let text = |what: &str, value: &str, max: usize| -> Option<String> {
        if value.is_empty() {
            return Some(format!("empty {what}"));
        }
        if value.len() > max {
            return Some(format!("{what} of {} bytes, over {max}", value.len()));
        }
        value
            .chars()
            .find(|c| c.is_whitespace() || c.is_control())
            .map(|c| format!("{what} holds the character {c:?}"))
    };
    text("URL", &put.url, limits::URL_BYTES)
        .or_else(|| text("key", &put.key, limits::HOST_BYTES))
        .or_else(|| {
            (put.metadata.len() > limits::METADATA_BYTES).then(|| {
                format!("metadata of {} bytes encoded, over {}", put.metadata.len(), limits::METADATA_BYTES)
            })
        })
        .or_else(|| match put.kind {
            PutKind::Known { refetch: Some(at) } if !at.is_finite() => Some("refetch date not finite".into()),
            _ => None,
        })
}
