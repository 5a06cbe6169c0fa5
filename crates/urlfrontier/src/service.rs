//! The gRPC service: URLFrontier's calls on the crawls of a [`CrawlSpace`]. Every call locks the
//! state on a blocking thread (store commits wait for the disk), so the async runtime never
//! waits on I/O; `PutURLs` is read in chunks of what the client has already sent, each chunk one
//! or two commits, acknowledged after them.

use std::collections::{BTreeMap, HashMap};
use std::future::poll_fn;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::{SystemTime, UNIX_EPOCH};

use tokio::sync::mpsc;
use tokio_stream::Stream;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status, Streaming};

use crate::crawl::{Crawl, GetRequest, Put, PutKind, UrlFilter, UrlStatus, refusal};
use crate::error::{Result, ServiceError};
use crate::metadata;
use crate::proto::url_frontier_server::UrlFrontier;
use crate::proto::{
    AckMessage, Active, BlockQueueParams, Boolean, CountUrlParams, CrawlLimitParams, DeleteCrawlMessage,
    DiscoveredUrlItem, Empty, GetParams, KnownUrlItem, ListUrlParams, Local, LogLevelParams, Long,
    Pagination, PurgeUrlParams, QueueDelayParams, QueueList, QueueWithinCrawlParams, Stats, StringList,
    UrlInfo, UrlItem, UrlStatusRequest, ack_message, get_params, url_item,
};
use crate::revisit::{RevisitOptions, Signals};
use crate::space::CrawlSpace;

/// The crawl id of a call that names none (URLFrontier's `CrawlID.DEFAULT`).
pub const DEFAULT_CRAWL: &str = "DEFAULT";

/// How many `PutURLs` items one chunk (one or two store commits) takes at most.
const PUT_CHUNK: usize = 1_000;

/// `ListQueues`' and `ListURLs`' page size when the request gives none (the API's default).
const DEFAULT_PAGE: usize = 100;

/// How the service behaves where the API leaves it to the service.
#[derive(Clone, Debug, PartialEq)]
pub struct ServiceOptions {
    /// How long a URL served by `GetURLs` stays leased when the request's `delay_requestable`
    /// is 0, in seconds.
    pub default_lease: f64,
    /// This node's address, as `ListNodes` answers it.
    pub node: String,
    /// freshet's revisit policy for known URLs whose clients send signals
    /// ([`crate::revisit`]); `None`: every date is the client's.
    pub revisit: Option<RevisitOptions>,
    /// Metadata keys read as a content signature when `freshet.signature` is absent, in order
    /// ([`Signals::from_metadata_with`]).
    pub signature_keys: Vec<String>,
}

impl Default for ServiceOptions {
    /// A 30-second lease; the node named by URLFrontier's default port on loopback.
    fn default() -> Self {
        Self {
            default_lease: 30.0,
            node: "127.0.0.1:7071".to_owned(),
            revisit: None,
            signature_keys: Vec::new(),
        }
    }
}

struct State {
    space: Box<dyn CrawlSpace>,
    crawls: BTreeMap<String, Crawl>,
    /// `SetActive`: whether `GetURLs` serves anything.
    active: bool,
    revisit: Option<RevisitOptions>,
}

impl State {
    fn crawl_or_create(&mut self, id: &str) -> Result<&mut Crawl> {
        if !self.crawls.contains_key(id) {
            let store = self.space.open(id)?;
            self.crawls.insert(id.to_owned(), Crawl::open_with(store, self.revisit)?);
        }
        self.crawls.get_mut(id).ok_or(ServiceError::Inconsistent("a crawl just opened is missing"))
    }
}

/// The URLFrontier service over the crawls of a [`CrawlSpace`].
#[derive(Clone)]
pub struct FrontierService {
    state: Arc<Mutex<State>>,
    options: Arc<ServiceOptions>,
}

impl std::fmt::Debug for FrontierService {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("FrontierService").field("options", &self.options).finish_non_exhaustive()
    }
}

impl FrontierService {
    /// Opens every crawl `space` holds and rebuilds its queues.
    ///
    /// # Errors
    /// The space's or a store's, naming the crawl.
    pub fn open(mut space: Box<dyn CrawlSpace>, options: ServiceOptions) -> Result<Self> {
        let mut crawls = BTreeMap::new();
        for id in space.list()? {
            let store = space.open(&id)?;
            crawls.insert(id, Crawl::open_with(store, options.revisit)?);
        }
        let state = State { space, crawls, active: true, revisit: options.revisit };
        Ok(Self { state: Arc::new(Mutex::new(state)), options: Arc::new(options) })
    }

    /// Runs `work` on the state, on a blocking thread.
    async fn with_state<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut State) -> Result<T, Status> + Send + 'static,
    ) -> Result<T, Status> {
        let state = Arc::clone(&self.state);
        tokio::task::spawn_blocking(move || {
            let mut guard = state.lock().map_err(|_| Status::internal("the service's state is poisoned"))?;
            work(&mut guard)
        })
        .await
        .map_err(|error| Status::internal(format!("the call's task failed: {error}")))?
    }
}

/// Seconds since the Unix epoch: the service's clock (the crawls take time as a parameter).
fn now() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |elapsed| elapsed.as_secs_f64())
}

/// The crawl a call names: its id, or [`DEFAULT_CRAWL`] when empty (as URLFrontier's clients
/// normalise it).
fn crawl_id(id: &str) -> String {
    if id.trim().is_empty() { DEFAULT_CRAWL.to_owned() } else { id.to_owned() }
}

fn optional_key(key: &str) -> Option<&str> {
    (!key.is_empty()).then_some(key)
}

type BoxStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send + 'static>>;

fn stream_of<T: Send + 'static>(items: Vec<T>) -> BoxStream<T> {
    Box::pin(tokio_stream::iter(items.into_iter().map(Ok)))
}

fn url_info(url: String, key: String, metadata_bytes: &[u8], crawl: &str) -> UrlInfo {
    // Metadata this service did not write (a store shared with the crawler) reads as none.
    let metadata = metadata::decode(metadata_bytes).unwrap_or_default();
    UrlInfo { url, key, metadata, crawl_id: crawl.to_owned() }
}

fn url_item_of(status: UrlStatus, crawl: &str) -> UrlItem {
    let info = Some(url_info(status.url, status.key, &status.metadata, crawl));
    let item = if status.discovered && status.next_due.is_some() {
        url_item::Item::Discovered(DiscoveredUrlItem { info })
    } else {
        // A date before the epoch or past u64 cannot be said; 0 is "never again".
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let refetchable_from_date = status.next_due.map_or(0, |due| due.max(1.0).ceil() as u64);
        url_item::Item::Known(KnownUrlItem { info, refetchable_from_date })
    };
    UrlItem { item: Some(item), id: String::new(), creation_date: 0 }
}

/// One `PutURLs` item decoded: its ack id, its crawl, and what to store, or why it is skipped.
fn decode_item(item: UrlItem, signature_keys: &[String]) -> (String, String, Result<Put, String>) {
    let (kind, info) = match item.item {
        Some(url_item::Item::Discovered(discovered)) => (PutKind::Discovered, discovered.info),
        Some(url_item::Item::Known(known)) => {
            #[allow(clippy::cast_precision_loss)]
            let refetch = (known.refetchable_from_date > 0).then_some(known.refetchable_from_date as f64);
            (PutKind::Known { refetch }, known.info)
        }
        None => return (item.id, DEFAULT_CRAWL.to_owned(), Err("neither discovered nor known".into())),
    };
    let Some(info) = info else {
        return (item.id, DEFAULT_CRAWL.to_owned(), Err("no URL info".into()));
    };
    let id = if item.id.is_empty() { info.url.clone() } else { item.id };
    let crawl = crawl_id(&info.crawl_id);
    let key = if info.key.is_empty() {
        match url::Url::parse(&info.url).ok().and_then(|url| url.host_str().map(str::to_owned)) {
            Some(host) => host,
            None => return (id, crawl, Err(format!("no key given and no host in {:?}", info.url))),
        }
    } else {
        info.key
    };
    let signals = Signals::from_metadata_with(&info.metadata, signature_keys);
    let put = Put { url: info.url, key, metadata: metadata::encode(&info.metadata), kind, signals };
    match refusal(&put) {
        Some(reason) => (id, crawl, Err(reason)),
        None => (id, crawl, Ok(put)),
    }
}

/// Stores one chunk of `PutURLs` items, grouped by crawl, and answers each item's status in
/// the order received.
fn put_chunk(state: &mut State, chunk: Vec<UrlItem>, signature_keys: &[String]) -> Vec<AckMessage> {
    let now = now();
    let decoded: Vec<(String, String, Result<Put, String>)> =
        chunk.into_iter().map(|item| decode_item(item, signature_keys)).collect();
    let mut statuses = vec![ack_message::Status::Skipped; decoded.len()];
    let mut by_crawl: HashMap<&str, (Vec<usize>, Vec<Put>)> = HashMap::new();
    for (index, (_, crawl, put)) in decoded.iter().enumerate() {
        match put {
            Ok(put) => {
                let entry = by_crawl.entry(crawl.as_str()).or_default();
                entry.0.push(index);
                entry.1.push(put.clone());
            }
            Err(reason) => tracing::debug!(item = index, %reason, "PutURLs item skipped"),
        }
    }
    for (crawl_name, (indices, puts)) in by_crawl {
        let result = state.crawl_or_create(crawl_name).map_err(|error| (error, false));
        let result =
            result.and_then(|crawl| crawl.put(&puts, now).map_err(|e| (e.error, e.discoveries_stored)));
        for (&index, put) in indices.iter().zip(&puts) {
            statuses[index] = match &result {
                Ok(()) => ack_message::Status::Ok,
                Err((_, true)) if put.kind == PutKind::Discovered => ack_message::Status::Ok,
                // A crawl id that cannot name a crawl fails the same way when sent again.
                Err((ServiceError::BadCrawlId { .. }, _)) => ack_message::Status::Skipped,
                Err(_) => ack_message::Status::Fail,
            };
        }
        if let Err((error, _)) = result {
            tracing::warn!(crawl = crawl_name, %error, "PutURLs chunk not stored");
        }
    }
    decoded
        .into_iter()
        .zip(statuses)
        .map(|((id, _, _), status)| AckMessage { id, status: status.into() })
        .collect()
}

#[tonic::async_trait]
impl UrlFrontier for FrontierService {
    async fn list_nodes(&self, _request: Request<Empty>) -> Result<Response<StringList>, Status> {
        Ok(Response::new(StringList { values: vec![self.options.node.clone()] }))
    }

    async fn list_crawls(&self, _request: Request<Local>) -> Result<Response<StringList>, Status> {
        let values = self.with_state(|state| Ok(state.crawls.keys().cloned().collect())).await?;
        Ok(Response::new(StringList { values }))
    }

    async fn delete_crawl(&self, request: Request<DeleteCrawlMessage>) -> Result<Response<Long>, Status> {
        let id = crawl_id(&request.into_inner().value);
        let value = self
            .with_state(move |state| {
                let Some(crawl) = state.crawls.remove(&id) else { return Ok(0) };
                let count = crawl.url_count().map_err(Status::from);
                drop(crawl);
                state.space.delete(&id)?;
                count
            })
            .await?;
        Ok(Response::new(Long { value }))
    }

    async fn list_queues(&self, request: Request<Pagination>) -> Result<Response<QueueList>, Status> {
        let request = request.into_inner();
        let id = crawl_id(&request.crawl_id);
        let start = request.start as usize;
        let size = if request.size == 0 { DEFAULT_PAGE } else { request.size as usize };
        let (values, total) = self
            .with_state({
                let id = id.clone();
                move |state| {
                    Ok(match state.crawls.get_mut(&id) {
                        Some(crawl) => crawl.queue_keys(start, size, request.include_inactive, now()),
                        None => (Vec::new(), 0),
                    })
                }
            })
            .await?;
        let size = u32::try_from(values.len()).unwrap_or(u32::MAX);
        Ok(Response::new(QueueList { values, total, start: request.start, size, crawl_id: id }))
    }

    type GetURLsStream = BoxStream<UrlInfo>;

    async fn get_ur_ls(&self, request: Request<GetParams>) -> Result<Response<Self::GetURLsStream>, Status> {
        let params = request.into_inner();
        let lease = if params.delay_requestable == 0 {
            self.options.default_lease
        } else {
            f64::from(params.delay_requestable)
        };
        let infos = self
            .with_state(move |state| {
                if !state.active {
                    return Ok(Vec::new());
                }
                let ids: Vec<String> = match &params.item {
                    Some(get_params::Item::AnyCrawlId(_)) => state.crawls.keys().cloned().collect(),
                    Some(get_params::Item::CrawlId(id)) => vec![crawl_id(id)],
                    None => vec![DEFAULT_CRAWL.to_owned()],
                };
                let now = now();
                let mut queues_left = (params.max_queues > 0).then_some(params.max_queues);
                let mut infos = Vec::new();
                for id in ids {
                    if queues_left == Some(0) {
                        break;
                    }
                    let Some(crawl) = state.crawls.get_mut(&id) else { continue };
                    let request = GetRequest {
                        max_urls_per_queue: (params.max_urls_per_queue > 0)
                            .then_some(params.max_urls_per_queue),
                        max_queues: queues_left,
                        key: optional_key(&params.key),
                        lease,
                    };
                    let served = crawl.get(&request, now)?;
                    if let Some(left) = &mut queues_left {
                        let mut keys: Vec<&str> = served.iter().map(|served| served.key.as_str()).collect();
                        keys.sort_unstable();
                        keys.dedup();
                        *left = left.saturating_sub(u32::try_from(keys.len()).unwrap_or(u32::MAX));
                    }
                    infos.extend(
                        served
                            .into_iter()
                            .map(|served| url_info(served.url, served.key, &served.metadata, &id)),
                    );
                }
                Ok(infos)
            })
            .await?;
        Ok(Response::new(stream_of(infos)))
    }

    type PutURLsStream = BoxStream<AckMessage>;

    async fn put_ur_ls(
        &self,
        request: Request<Streaming<UrlItem>>,
    ) -> Result<Response<Self::PutURLsStream>, Status> {
        let mut inbound = request.into_inner();
        let (sender, receiver) = mpsc::channel(PUT_CHUNK);
        let service = self.clone();
        tokio::spawn(async move {
            loop {
                let first = match inbound.message().await {
                    Ok(Some(item)) => item,
                    Ok(None) => break,
                    Err(status) => {
                        tracing::debug!(%status, "PutURLs stream ended by the client");
                        break;
                    }
                };
                let mut chunk = vec![first];
                let mut ended = false;
                // Whatever the client has already sent joins the chunk: one commit for many.
                while chunk.len() < PUT_CHUNK {
                    let ready = poll_fn(|context| {
                        Poll::Ready(match Pin::new(&mut inbound).poll_next(context) {
                            Poll::Ready(next) => Some(next),
                            Poll::Pending => None,
                        })
                    })
                    .await;
                    match ready {
                        Some(Some(Ok(item))) => chunk.push(item),
                        Some(None | Some(Err(_))) => {
                            ended = true;
                            break;
                        }
                        None => break,
                    }
                }
                let options = Arc::clone(&service.options);
                let put = move |state: &mut State| Ok(put_chunk(state, chunk, &options.signature_keys));
                let acks = match service.with_state(put).await {
                    Ok(acks) => acks,
                    Err(status) => {
                        let _ = sender.send(Err(status)).await;
                        return;
                    }
                };
                for ack in acks {
                    if sender.send(Ok(ack)).await.is_err() {
                        return;
                    }
                }
                if ended {
                    break;
                }
            }
        });
        Ok(Response::new(Box::pin(ReceiverStream::new(receiver))))
    }

    async fn get_stats(&self, request: Request<QueueWithinCrawlParams>) -> Result<Response<Stats>, Status> {
        let request = request.into_inner();
        let id = crawl_id(&request.crawl_id);
        let stats = self
            .with_state({
                let id = id.clone();
                move |state| {
                    Ok(state.crawls.get_mut(&id).map(|crawl| crawl.stats(optional_key(&request.key), now())))
                }
            })
            .await?
            .unwrap_or_default();
        let counts = HashMap::from([
            ("waiting".to_owned(), stats.waiting),
            ("due".to_owned(), stats.due),
            ("completed".to_owned(), stats.completed),
            ("revisited".to_owned(), stats.revisited),
        ]);
        Ok(Response::new(Stats {
            size: stats.waiting,
            in_process: u32::try_from(stats.in_process).unwrap_or(u32::MAX),
            counts,
            number_of_queues: stats.queues,
            crawl_id: id,
        }))
    }

    async fn delete_queue(&self, request: Request<QueueWithinCrawlParams>) -> Result<Response<Long>, Status> {
        let request = request.into_inner();
        let id = crawl_id(&request.crawl_id);
        let value = self
            .with_state(move |state| match state.crawls.get_mut(&id) {
                Some(crawl) => Ok(crawl.delete_queue(&request.key)?),
                None => Ok(0),
            })
            .await?;
        Ok(Response::new(Long { value }))
    }

    async fn block_queue_until(&self, request: Request<BlockQueueParams>) -> Result<Response<Empty>, Status> {
        let request = request.into_inner();
        let id = crawl_id(&request.crawl_id);
        #[allow(clippy::cast_precision_loss)]
        let until = (request.time > 0).then_some(request.time as f64);
        self.with_state(move |state| {
            let crawl =
                state.crawls.get_mut(&id).ok_or_else(|| ServiceError::UnknownQueue(request.key.clone()))?;
            Ok(crawl.block_until(&request.key, until)?)
        })
        .await?;
        Ok(Response::new(Empty {}))
    }

    async fn set_active(&self, request: Request<Active>) -> Result<Response<Empty>, Status> {
        let active = request.into_inner().state;
        self.with_state(move |state| {
            state.active = active;
            Ok(())
        })
        .await?;
        Ok(Response::new(Empty {}))
    }

    async fn get_active(&self, _request: Request<Local>) -> Result<Response<Boolean>, Status> {
        let active = self.with_state(|state| Ok(state.active)).await?;
        Ok(Response::new(Boolean { state: active }))
    }

    async fn set_delay(&self, request: Request<QueueDelayParams>) -> Result<Response<Empty>, Status> {
        let request = request.into_inner();
        let id = crawl_id(&request.crawl_id);
        let delay = f64::from(request.delay_requestable);
        self.with_state(move |state| {
            let key = optional_key(&request.key);
            let crawl = match (state.crawls.get_mut(&id), key) {
                (Some(crawl), _) => crawl,
                (None, None) => state.crawl_or_create(&id)?,
                (None, Some(key)) => return Err(ServiceError::UnknownQueue(key.to_owned()).into()),
            };
            Ok(crawl.set_delay(key, delay)?)
        })
        .await?;
        Ok(Response::new(Empty {}))
    }

    async fn set_log_level(&self, request: Request<LogLevelParams>) -> Result<Response<Empty>, Status> {
        let package = request.into_inner().package;
        Err(Status::unimplemented(format!(
            "SetLogLevel ({package:?}): freshet's log level is set when it starts (RUST_LOG)"
        )))
    }

    async fn set_crawl_limit(&self, request: Request<CrawlLimitParams>) -> Result<Response<Empty>, Status> {
        let request = request.into_inner();
        let id = crawl_id(&request.crawl_id);
        let limit = (request.limit > 0).then_some(u64::from(request.limit));
        self.with_state(move |state| {
            let crawl =
                state.crawls.get_mut(&id).ok_or_else(|| ServiceError::UnknownQueue(request.key.clone()))?;
            Ok(crawl.set_limit(&request.key, limit)?)
        })
        .await?;
        Ok(Response::new(Empty {}))
    }

    async fn get_url_status(&self, request: Request<UrlStatusRequest>) -> Result<Response<UrlItem>, Status> {
        let request = request.into_inner();
        let id = crawl_id(&request.crawl_id);
        let url = request.url.clone();
        let status = self
            .with_state({
                let id = id.clone();
                move |state| match state.crawls.get(&id) {
                    Some(crawl) => Ok(crawl.status(&request.url)?),
                    None => Ok(None),
                }
            })
            .await?;
        match status {
            Some(status) => Ok(Response::new(url_item_of(status, &id))),
            None => Err(Status::not_found(format!("{url:?} is not in crawl {id:?}"))),
        }
    }

    type ListURLsStream = BoxStream<UrlItem>;

    async fn list_ur_ls(
        &self,
        request: Request<ListUrlParams>,
    ) -> Result<Response<Self::ListURLsStream>, Status> {
        let request = request.into_inner();
        let id = crawl_id(&request.crawl_id);
        let start = request.start as usize;
        let size = if request.size == 0 { DEFAULT_PAGE } else { request.size as usize };
        let filter = UrlFilter::new(request.filter.as_deref(), request.ignore_case.unwrap_or(false));
        let items = self
            .with_state(move |state| {
                let Some(crawl) = state.crawls.get(&id) else { return Ok(Vec::new()) };
                let mut items = Vec::new();
                let mut skipped = 0;
                crawl.scan(optional_key(&request.key), &filter, |status| {
                    if skipped < start {
                        skipped += 1;
                    } else {
                        items.push(url_item_of(status, &id));
                    }
                    items.len() < size
                })?;
                Ok(items)
            })
            .await?;
        Ok(Response::new(stream_of(items)))
    }

    async fn count_ur_ls(&self, request: Request<CountUrlParams>) -> Result<Response<Long>, Status> {
        let request = request.into_inner();
        let id = crawl_id(&request.crawl_id);
        let filter = UrlFilter::new(request.filter.as_deref(), request.ignore_case.unwrap_or(false));
        let value = self
            .with_state(move |state| {
                let Some(crawl) = state.crawls.get(&id) else { return Ok(0) };
                let key = optional_key(&request.key);
                if key.is_none() && filter == UrlFilter::default() {
                    return Ok(crawl.url_count()?);
                }
                let mut count = 0;
                crawl.scan(key, &filter, |_| {
                    count += 1;
                    true
                })?;
                Ok(count)
            })
            .await?;
        Ok(Response::new(Long { value }))
    }

    async fn purge_ur_ls(&self, request: Request<PurgeUrlParams>) -> Result<Response<Long>, Status> {
        let days = request.into_inner().days;
        Err(Status::unimplemented(format!(
            "PurgeURLs ({days} days): freshet keeps no creation date to purge by; DeleteQueue and DeleteCrawl remove URLs"
        )))
    }
}
