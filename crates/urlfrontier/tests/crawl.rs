//! One crawl's queues, driven with explicit times: leases, schedules, politeness, limits,
//! deletion, reopening, and a model of what `GetURLs` must serve.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;

use freshet_frontier::{FrontierStore, MemoryStore, RedbStore};
use freshet_urlfrontier::crawl::{Crawl, GetRequest, Put, PutKind, UrlFilter, refusal};
use freshet_urlfrontier::revisit::Signals;
use proptest::prelude::*;

fn discovered(url: &str, key: &str) -> Put {
    let (url, key) = (url.to_owned(), key.to_owned());
    Put { url, key, metadata: Vec::new(), kind: PutKind::Discovered, signals: Signals::default() }
}

fn known(url: &str, key: &str, refetch: Option<f64>) -> Put {
    let (url, key) = (url.to_owned(), key.to_owned());
    Put { url, key, metadata: Vec::new(), kind: PutKind::Known { refetch }, signals: Signals::default() }
}

fn all(lease: f64) -> GetRequest<'static> {
    GetRequest { max_urls_per_queue: None, max_queues: None, key: None, lease }
}

fn urls(crawl: &mut Crawl, request: &GetRequest<'_>, now: f64) -> Vec<String> {
    let mut urls: Vec<String> =
        crawl.get(request, now).unwrap().into_iter().map(|served| served.url).collect();
    urls.sort();
    urls
}

fn memory_crawl() -> Crawl {
    Crawl::open(Box::new(MemoryStore::new())).unwrap()
}

/// A URL is served once, leased; served again only when its lease ends unreported; a known
/// URL without a date is never served again, with one a date is served from then on.
#[test]
fn leases_and_schedules() {
    let mut crawl = memory_crawl();
    crawl
        .put(&[discovered("http://a.test/1", "a.test"), discovered("http://a.test/2", "a.test")], 100.0)
        .unwrap();
    assert_eq!(urls(&mut crawl, &all(30.0), 100.0), ["http://a.test/1", "http://a.test/2"]);
    assert!(urls(&mut crawl, &all(30.0), 129.0).is_empty(), "leased");
    crawl.put(&[known("http://a.test/1", "a.test", None)], 120.0).unwrap();
    assert_eq!(urls(&mut crawl, &all(30.0), 130.0), ["http://a.test/2"], "its lease ended unreported");
    crawl.put(&[known("http://a.test/2", "a.test", Some(500.0))], 131.0).unwrap();
    assert!(urls(&mut crawl, &all(30.0), 499.0).is_empty());
    assert_eq!(urls(&mut crawl, &all(30.0), 500.0), ["http://a.test/2"]);
    let stats = crawl.stats(None, 501.0);
    assert_eq!((stats.completed, stats.in_process, stats.waiting, stats.queues), (2, 1, 0, 1));
}

/// A URL discovered twice is held once, with the first discovery's metadata; a known URL the
/// crawl did not hold is added, with its metadata.
#[test]
fn discoveries_of_a_held_url_are_ignored() {
    let mut crawl = memory_crawl();
    let first = Put { metadata: b"first".to_vec(), ..discovered("http://a.test/", "a.test") };
    let second = Put { metadata: b"second".to_vec(), ..discovered("http://a.test/", "a.test") };
    crawl.put(&[first, second], 1.0).unwrap();
    let served = crawl.get(&all(30.0), 1.0).unwrap();
    assert_eq!(served.len(), 1);
    assert_eq!(served[0].metadata, b"first");
    crawl.put(&[Put { metadata: b"third".to_vec(), ..discovered("http://a.test/", "a.test") }], 2.0).unwrap();
    assert_eq!(crawl.status("http://a.test/").unwrap().unwrap().metadata, b"first");

    let new_known = Put { metadata: b"k".to_vec(), ..known("http://b.test/", "b.test", Some(50.0)) };
    crawl.put(&[new_known], 3.0).unwrap();
    let status = crawl.status("http://b.test/").unwrap().unwrap();
    assert_eq!(
        (status.metadata.as_slice(), status.discovered, status.next_due),
        (&b"k"[..], false, Some(50.0))
    );
    assert_eq!(status.key, "b.test");
}

/// `max_urls_per_queue` counts the URLs a queue already has in process; `max_queues` serves
/// that many queues, in rotation from the one after the last served.
#[test]
fn per_queue_limits_and_rotation() {
    let mut crawl = memory_crawl();
    let mut puts = Vec::new();
    for key in ["a.test", "b.test", "c.test"] {
        for i in 0..3 {
            puts.push(discovered(&format!("http://{key}/{i}"), key));
        }
    }
    crawl.put(&puts, 0.0).unwrap();
    let two_per_queue = GetRequest { max_urls_per_queue: Some(2), ..all(30.0) };
    assert_eq!(urls(&mut crawl, &two_per_queue, 1.0).len(), 6);
    assert!(urls(&mut crawl, &two_per_queue, 2.0).is_empty(), "each queue has 2 in process");
    crawl.put(&[known("http://b.test/0", "b.test", None)], 3.0).unwrap();
    assert_eq!(urls(&mut crawl, &two_per_queue, 4.0), ["http://b.test/2"]);

    let mut crawl = memory_crawl();
    crawl.put(&puts, 0.0).unwrap();
    let one_queue = GetRequest { max_urls_per_queue: Some(1), max_queues: Some(1), ..all(1000.0) };
    let order: Vec<Vec<String>> = (0..4).map(|i| urls(&mut crawl, &one_queue, f64::from(i))).collect();
    assert_eq!(order, [vec!["http://a.test/0"], vec!["http://b.test/0"], vec!["http://c.test/0"], vec![]]);
    crawl
        .put(&[known("http://b.test/0", "b.test", None), known("http://a.test/0", "a.test", None)], 4.0)
        .unwrap();
    assert_eq!(urls(&mut crawl, &one_queue, 5.0), ["http://a.test/1"], "from the start again, a first");
    assert_eq!(urls(&mut crawl, &one_queue, 6.0), ["http://b.test/1"]);
}

/// Earliest due first within a queue; a queue's own key restricts `get` to it.
#[test]
fn earliest_due_first_and_one_queue_by_key() {
    let mut crawl = memory_crawl();
    crawl
        .put(&[discovered("http://a.test/late", "a.test"), discovered("http://b.test/", "b.test")], 0.0)
        .unwrap();
    crawl.put(&[known("http://a.test/early", "a.test", Some(5.0))], 1.0).unwrap();
    crawl.put(&[known("http://a.test/late", "a.test", Some(8.0))], 1.0).unwrap();
    let only_a = GetRequest { key: Some("a.test"), max_urls_per_queue: Some(1), ..all(30.0) };
    assert_eq!(urls(&mut crawl, &only_a, 10.0), ["http://a.test/early"]);
    let only_a = GetRequest { key: Some("a.test"), ..all(30.0) };
    assert_eq!(urls(&mut crawl, &only_a, 10.0), ["http://a.test/late"]);
    let unknown = GetRequest { key: Some("z.test"), ..all(30.0) };
    assert!(urls(&mut crawl, &unknown, 10.0).is_empty());
    assert_eq!(urls(&mut crawl, &all(30.0), 10.0), ["http://b.test/"]);
}

/// `SetDelay` (a queue's, and the default), `BlockQueueUntil` and `SetCrawlLimit`.
#[test]
fn politeness_and_limits() {
    let mut crawl = memory_crawl();
    let puts: Vec<Put> = (0..5).map(|i| discovered(&format!("http://a.test/{i}"), "a.test")).collect();
    crawl.put(&puts, 0.0).unwrap();
    crawl.put(&[discovered("http://b.test/", "b.test")], 0.0).unwrap();
    let one = GetRequest { max_urls_per_queue: Some(1), ..all(1000.0) };
    crawl.set_delay(Some("a.test"), 10.0).unwrap();
    assert_eq!(urls(&mut crawl, &one, 0.0), ["http://a.test/0", "http://b.test/"]);
    crawl.put(&[known("http://a.test/0", "a.test", None)], 1.0).unwrap();
    assert!(urls(&mut crawl, &one, 9.0).is_empty(), "within a.test's delay");
    assert_eq!(urls(&mut crawl, &one, 10.0), ["http://a.test/1"]);

    crawl.set_delay(Some("a.test"), 0.0).unwrap();
    crawl.set_delay(None, 100.0).unwrap();
    crawl.put(&[known("http://a.test/1", "a.test", None)], 11.0).unwrap();
    assert!(urls(&mut crawl, &one, 50.0).is_empty(), "within the default delay");
    assert_eq!(urls(&mut crawl, &one, 110.0), ["http://a.test/2"]);
    crawl.set_delay(None, 0.0).unwrap();

    crawl.block_until("a.test", Some(200.0)).unwrap();
    crawl.put(&[known("http://a.test/2", "a.test", None)], 111.0).unwrap();
    assert!(urls(&mut crawl, &one, 199.0).is_empty(), "blocked");
    assert_eq!(urls(&mut crawl, &one, 200.0), ["http://a.test/3"]);
    crawl.block_until("a.test", None).unwrap();

    crawl.set_limit("a.test", Some(4)).unwrap();
    crawl.put(&[known("http://a.test/3", "a.test", None)], 201.0).unwrap();
    assert!(urls(&mut crawl, &one, 202.0).is_empty(), "4 completed: at its limit");
    crawl.set_limit("a.test", None).unwrap();
    assert_eq!(urls(&mut crawl, &one, 203.0), ["http://a.test/4"]);

    assert!(crawl.set_delay(Some("z.test"), 1.0).is_err());
    assert!(crawl.block_until("z.test", None).is_err());
    assert!(crawl.set_limit("z.test", None).is_err());
}

/// Lowering a delay (the default, or a queue's) or lifting a block takes effect at once.
#[test]
fn lowered_delays_take_effect_at_once() {
    let mut crawl = memory_crawl();
    let puts: Vec<Put> = (0..4).map(|i| discovered(&format!("http://a.test/{i}"), "a.test")).collect();
    crawl.put(&puts, 0.0).unwrap();
    let one = GetRequest { max_urls_per_queue: Some(1), ..all(1.0) };
    crawl.set_delay(None, 1_000.0).unwrap();
    assert_eq!(urls(&mut crawl, &one, 0.0), ["http://a.test/0"]);
    assert!(urls(&mut crawl, &one, 10.0).is_empty());
    crawl.set_delay(None, 0.0).unwrap();
    assert_eq!(urls(&mut crawl, &one, 11.0), ["http://a.test/0"], "its lease ended: first due first");
    crawl.set_delay(Some("a.test"), 1_000.0).unwrap();
    assert!(urls(&mut crawl, &one, 20.0).is_empty());
    crawl.set_delay(Some("a.test"), 0.0).unwrap();
    assert_eq!(urls(&mut crawl, &one, 21.0), ["http://a.test/0"]);
    crawl.block_until("a.test", Some(1_000.0)).unwrap();
    assert!(urls(&mut crawl, &one, 30.0).is_empty());
    crawl.block_until("a.test", None).unwrap();
    assert_eq!(urls(&mut crawl, &one, 31.0), ["http://a.test/0"]);
}

/// `DeleteQueue` forgets the queue's URLs (counted) and nothing else; a URL deleted can be
/// discovered again.
#[test]
fn delete_queue_forgets_its_urls() {
    let mut crawl = memory_crawl();
    let mut puts: Vec<Put> = (0..4).map(|i| discovered(&format!("http://a.test/{i}"), "a.test")).collect();
    puts.push(discovered("http://b.test/", "b.test"));
    crawl.put(&puts, 0.0).unwrap();
    crawl.get(&GetRequest { max_urls_per_queue: Some(1), ..all(30.0) }, 0.0).unwrap();
    crawl.put(&[known("http://a.test/0", "a.test", None)], 0.0).unwrap();
    assert_eq!(crawl.delete_queue("a.test").unwrap(), 4);
    assert_eq!(crawl.delete_queue("z.test").unwrap(), 0);
    assert_eq!(crawl.url_count().unwrap(), 1);
    assert!(crawl.status("http://a.test/1").unwrap().is_none());
    let stats = crawl.stats(Some("a.test"), 1.0);
    assert_eq!((stats.waiting, stats.in_process, stats.completed), (0, 0, 0));
    assert_eq!(urls(&mut crawl, &all(30.0), 100.0), ["http://b.test/"]);
    crawl.put(&[discovered("http://a.test/1", "a.test")], 101.0).unwrap();
    assert_eq!(urls(&mut crawl, &all(30.0), 101.0), ["http://a.test/1"]);
}

/// `ListQueues` in creation order, paged, active ones only unless asked; `scan` by queue and
/// filter, with or without case.
#[test]
fn listings() {
    let mut crawl = memory_crawl();
    crawl
        .put(&[discovered("http://a.test/X", "a.test"), discovered("http://b.test/x", "b.test")], 0.0)
        .unwrap();
    crawl.put(&[known("http://c.test/", "c.test", Some(50.0))], 0.0).unwrap();
    assert_eq!(crawl.queue_keys(0, 10, false, 1.0), (vec!["a.test".to_owned(), "b.test".to_owned()], 2));
    assert_eq!(crawl.queue_keys(1, 10, true, 1.0), (vec!["b.test".to_owned(), "c.test".to_owned()], 3));
    assert_eq!(crawl.queue_keys(0, 1, true, 60.0), (vec!["a.test".to_owned()], 3));
    let scanned = |key, filter: &UrlFilter| {
        let mut found = Vec::new();
        crawl
            .scan(key, filter, |status| {
                found.push(status.url);
                true
            })
            .unwrap();
        found
    };
    assert_eq!(scanned(None, &UrlFilter::default()).len(), 3);
    assert_eq!(scanned(None, &UrlFilter::new(Some("/x"), false)), ["http://b.test/x"]);
    assert_eq!(scanned(None, &UrlFilter::new(Some("/x"), true)), ["http://a.test/X", "http://b.test/x"]);
    assert_eq!(scanned(Some("a.test"), &UrlFilter::new(Some("/x"), true)), ["http://a.test/X"]);
    assert!(scanned(Some("z.test"), &UrlFilter::default()).is_empty());
}

/// Everything but the leases and the limits survives closing the store: URLs, due times,
/// metadata, what is done, each queue's delay and block.
#[test]
fn a_reopened_crawl_serves_what_it_held() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crawl.redb");
    let open = || Crawl::open(Box::new(RedbStore::open(&path).unwrap()) as Box<dyn FrontierStore>).unwrap();
    {
        let mut crawl = open();
        let with_metadata = Put { metadata: b"m".to_vec(), ..discovered("http://a.test/1", "a.test") };
        crawl.put(&[with_metadata, discovered("http://a.test/2", "a.test")], 0.0).unwrap();
        crawl
            .put(&[discovered("http://b.test/1", "b.test"), known("http://c.test/", "c.test", None)], 0.0)
            .unwrap();
        crawl.put(&[known("http://a.test/2", "a.test", Some(10.0))], 0.0).unwrap();
        crawl.set_delay(Some("a.test"), 20.0).unwrap();
        crawl.block_until("b.test", Some(60.0)).unwrap();
        assert_eq!(urls(&mut crawl, &all(1000.0), 1.0), ["http://a.test/1"], "leased for long");
    }
    let mut crawl = open();
    let stats = crawl.stats(None, 1.0);
    assert_eq!((stats.waiting, stats.completed, stats.in_process, stats.queues), (3, 2, 0, 3));
    let served = crawl.get(&all(30.0), 2.0).unwrap();
    assert_eq!(served.len(), 1, "the lease did not survive; b.test is blocked");
    assert_eq!((served[0].url.as_str(), served[0].metadata.as_slice()), ("http://a.test/1", &b"m"[..]));
    assert!(urls(&mut crawl, &all(30.0), 15.0).is_empty(), "a.test's delay survived: served at 2");
    // a.test/1 again too: its lease (30 s from 2) ended unreported.
    assert_eq!(urls(&mut crawl, &all(30.0), 60.0), ["http://a.test/1", "http://a.test/2", "http://b.test/1"]);
}

/// What the store would refuse is named per item.
#[test]
fn bad_items_are_refused_by_reason() {
    let cases = [
        (discovered("", "a.test"), "empty URL"),
        (discovered("http://a.test/ x", "a.test"), "URL holds"),
        (discovered("http://a.test/", ""), "empty key"),
        (discovered(&format!("http://a.test/{}", "x".repeat(9000)), "a.test"), "URL of"),
        (Put { metadata: vec![0; 70_000], ..discovered("http://a.test/", "a.test") }, "metadata of"),
        (known("http://a.test/", "a.test", Some(f64::INFINITY)), "not finite"),
    ];
    for (put, reason) in cases {
        let refused = refusal(&put).unwrap_or_else(|| panic!("{put:?} accepted"));
        assert!(refused.contains(reason), "{refused}");
    }
    assert_eq!(refusal(&discovered("http://a.test/", "a.test")), None);
}

#[derive(Clone, Debug)]
enum Step {
    Discover(u8),
    Known(u8, Option<u8>),
    Get {
        lease: u8,
    },
    Wait(u8),
    /// Queue `h{0}.test` blocked for that long from now (0 unblocks).
    Block(u8, u8),
    /// Queue `h{0}.test`'s delay (0: none); or, for queue 3, the default delay.
    Delay(u8, u8),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0..12u8).prop_map(Step::Discover),
        4 => (0..12u8, proptest::option::of(0..40u8)).prop_map(|(url, at)| Step::Known(url, at)),
        4 => (1..20u8).prop_map(|lease| Step::Get { lease }),
        4 => (0..15u8).prop_map(Step::Wait),
        1 => (0..3u8, 0..20u8).prop_map(|(queue, time)| Step::Block(queue, time)),
        1 => (0..4u8, 0..10u8).prop_map(|(queue, delay)| Step::Delay(queue, delay)),
    ]
}

/// What the model holds of a URL: due at a time, leased until a time, or done.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Model {
    Due(f64),
    Leased { due: f64, until: f64 },
    Done,
}

/// What the model holds of a queue.
#[derive(Clone, Copy, Debug, Default)]
struct QueueModel {
    blocked_until: Option<f64>,
    delay: Option<f64>,
    last_served: Option<f64>,
}

proptest! {
    /// Against a model of the API's rules, with no per-queue limit: `get` serves exactly the
    /// URLs due by now that are not leased (a lease ends at its time), of queues not blocked
    /// and past their delay (their own, else the default) since they last served, and nothing
    /// else; whatever the order of discoveries, reports, blocks and delays before.
    #[test]
    fn get_serves_what_the_model_says(steps in proptest::collection::vec(step(), 1..80)) {
        let mut crawl = memory_crawl();
        let mut model: BTreeMap<String, Model> = BTreeMap::new();
        let mut queues = [QueueModel::default(); 3];
        let mut default_delay = None;
        let mut now = 0.0;
        let url = |n: u8| format!("http://h{}.test/{n}", n % 3);
        let key = |n: u8| format!("h{}.test", n % 3);
        let queue_of = |url: &str| usize::from(url.as_bytes()["http://h".len()] - b'0');
        for step in steps {
            match step {
                Step::Discover(n) => {
                    crawl.put(&[discovered(&url(n), &key(n))], now).unwrap();
                    model.entry(url(n)).or_insert(Model::Due(now));
                }
                Step::Known(n, at) => {
                    let refetch = at.map(|at| now + f64::from(at));
                    crawl.put(&[known(&url(n), &key(n), refetch)], now).unwrap();
                    model.insert(url(n), refetch.map_or(Model::Done, Model::Due));
                }
                Step::Block(queue, time) => {
                    let until = (time > 0).then(|| now + f64::from(time));
                    if crawl.block_until(&format!("h{queue}.test"), until).is_ok() {
                        queues[usize::from(queue)].blocked_until = until;
                    }
                }
                Step::Delay(queue, delay) => {
                    let delay_value = (delay > 0).then_some(f64::from(delay));
                    if queue == 3 {
                        crawl.set_delay(None, f64::from(delay)).unwrap();
                        default_delay = delay_value;
                    } else if crawl.set_delay(Some(&format!("h{queue}.test")), f64::from(delay)).is_ok() {
                        queues[usize::from(queue)].delay = delay_value;
                    }
                }
                Step::Get { lease } => {
                    let lease = f64::from(lease);
                    let servable = |queue: &QueueModel| {
                        !queue.blocked_until.is_some_and(|until| now < until)
                            && !queue.last_served.zip(queue.delay.or(default_delay)).is_some_and(|(last, delay)| now < last + delay)
                    };
                    let mut expected = Vec::new();
                    for (url, state) in &mut model {
                        let due = match *state {
                            Model::Due(due) => due,
                            Model::Leased { due, until } if until <= now => due,
                            _ => continue,
                        };
                        if due <= now && servable(&queues[queue_of(url)]) {
                            expected.push(url.clone());
                            *state = Model::Leased { due, until: now + lease };
                        } else {
                            *state = Model::Due(due);
                        }
                    }
                    for url in &expected {
                        queues[queue_of(url)].last_served = Some(now);
                    }
                    prop_assert_eq!(urls(&mut crawl, &all(lease), now), expected);
                }
                Step::Wait(seconds) => now += f64::from(seconds),
            }
        }
    }
}
