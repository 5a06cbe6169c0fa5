//! The conformance suite every [`FrontierStore`] engine must pass (after tantivy's
//! `src/directory/tests.rs`): every verb, batches, duplicates, id stability, reopening, crash
//! recovery of in-flight pages, and bad input. An engine provides a [`Harness`] and runs
//! [`conformance_tests!`](crate::conformance_tests), which makes one `#[test]` per check.
//!
//! A failed check panics with what differed: this module is test code compiled only with the
//! `conformance` feature, so `unwrap` is its way of reporting. [`RedisServer`] starts a
//! `redis-server` of a test's own, for the Redis engine's tests (here and in the crawler) and
//! the store bench.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::missing_panics_doc, missing_docs)]

use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use freshet_schedule::online::{Budget, Decision, HostId, PageId, Politeness, Scheduler};

use crate::{
    Completion, Discovery, FrontierStore, HostPoliteness, Op, PageState, StoreError, StoredPage, limits,
};

/// How the suite gets stores of one engine.
pub trait Harness {
    /// The engine.
    type Store: FrontierStore;
    /// A new, empty store.
    fn create(&mut self) -> Self::Store;
    /// Closes `store` and opens it again from what it kept (a persistent engine drops it and
    /// reopens its file; the memory engine, whose data lives as long as the value, returns it).
    fn reopen(&mut self, store: Self::Store) -> Self::Store;
}

/// Makes one `#[test]` per check for the harness built by `$make`.
#[macro_export]
macro_rules! conformance_tests {
    ($make:expr) => {
        $crate::conformance_tests!(@tests $make;
            discover_allocates_dense_ids_and_hosts,
            duplicates_are_admitted_once,
            ids_are_stable_across_reopen,
            start_complete_release,
            reopen_keeps_everything,
            recover_gives_in_flight_pages_back,
            failed_batch_changes_nothing,
            bad_input_is_refused_by_name,
            remove_forgets_the_url,
            hosts_keep_their_politeness,
            pages_are_listed_in_id_order,
            large_batch_with_duplicates,
            store_rebuilds_the_scheduler,
            redirect_trail_is_kept_until_the_first_fetch,
            metadata_is_kept_and_replaced,
            page_batch_reads_as_page_does,
        );
    };
    (@tests $make:expr; $($check:ident),* $(,)?) => {
        $(
            #[test]
            fn $check() {
                let mut harness = $make;
                $crate::conformance::$check(&mut harness);
            }
        )*
    };
}

/// A discovery of `url` on host `host`, weight 1, rate 0.1, due at 0.
#[must_use]
pub fn discovery(url: &str, host: &str) -> Discovery {
    Discovery {
        url: url.to_owned(),
        host: host.to_owned(),
        weight: 1.0,
        change_rate: 0.1,
        depth: 0,
        discovered_from: None,
        due: 0.0,
        redirect_trail: Vec::new(),
        metadata: Vec::new(),
    }
}

/// A completion of `page` fetched at `at`, with every optional field set.
#[must_use]
pub fn completion(page: PageId, at: f64) -> Completion {
    Completion {
        page,
        fetched_at: at,
        weight: 2.5,
        change_rate: 0.25,
        next_due: Some(at + 10.0),
        etag: Some("\"v1\"".to_owned()),
        last_modified: Some("Tue, 15 Nov 1994 12:45:26 GMT".to_owned()),
        fingerprint: vec![7; 20],
        estimator: vec![1, 2, 3, 4],
    }
}

fn all_pages(store: &impl FrontierStore) -> Vec<StoredPage> {
    store.pages(None, usize::MAX).unwrap()
}

fn state_of(store: &impl FrontierStore, page: PageId) -> PageState {
    store.page(page).unwrap().expect("page held").record.state
}

pub fn discover_allocates_dense_ids_and_hosts<H: Harness>(harness: &mut H) {
    let mut store = harness.create();
    let batch = [
        Op::Discover(discovery("http://a.test/", "a.test")),
        Op::Discover(Discovery {
            depth: 2,
            discovered_from: Some(PageId(0)),
            ..discovery("http://a.test/x", "a.test")
        }),
        Op::Discover(discovery("http://b.test/", "b.test")),
    ];
    let report = store.commit(&batch).unwrap();
    let pages: Vec<u32> = report.admissions.iter().map(|admission| admission.page.0).collect();
    assert_eq!(pages, [0, 1, 2]);
    assert!(report.admissions.iter().all(|admission| admission.is_new));
    let hosts: Vec<HostId> = report.admissions.iter().map(|admission| admission.host).collect();
    assert_eq!(hosts, [HostId(0), HostId(0), HostId(1)]);
    assert_eq!(report.new_hosts, [(HostId(0), "a.test".to_owned()), (HostId(1), "b.test".to_owned())]);
    assert_eq!(store.lookup("http://a.test/x").unwrap(), Some(PageId(1)));
    assert_eq!(store.lookup("http://c.test/").unwrap(), None);
    assert_eq!(store.host_by_key("b.test").unwrap(), Some(HostId(1)));
    let page = store.page(PageId(1)).unwrap().unwrap();
    assert_eq!(page.url, "http://a.test/x");
    let record = page.record;
    assert_eq!(record.state, PageState::Discovered);
    assert_eq!((record.depth, record.discovered_from), (2, Some(PageId(0))));
    assert_eq!((record.weight, record.change_rate), (1.0, 0.1));
    assert_eq!((record.last_fetch, record.next_due), (None, Some(0.0)));
    assert!(record.etag.is_none() && record.last_modified.is_none());
    assert!(record.fingerprint.is_empty() && record.estimator.is_empty());
    let counts = store.counts().unwrap();
    assert_eq!((counts.discovered, counts.in_flight, counts.fetched, counts.hosts), (3, 0, 0, 2));
    // A batch of nothing is a valid, empty transaction.
    assert_eq!(store.commit(&[]).unwrap().admissions, []);
}

pub fn duplicates_are_admitted_once<H: Harness>(harness: &mut H) {
    let mut store = harness.create();
    let first = Discovery { weight: 3.0, ..discovery("http://a.test/", "a.test") };
    let again = Discovery { weight: 9.0, ..discovery("http://a.test/", "other.test") };
    let report = store.commit(&[Op::Discover(first), Op::Discover(again.clone())]).unwrap();
    let [one, two] = report.admissions[..] else { panic!("two admissions") };
    assert!(one.is_new && !two.is_new);
    assert_eq!((two.page, two.host), (one.page, one.host));
    // The duplicate's host key was never used: no host made for it.
    assert_eq!(report.new_hosts.len(), 1);
    assert_eq!(store.host_by_key("other.test").unwrap(), None);
    let later = store.commit(&[Op::Discover(again)]).unwrap();
    assert_eq!(later.admissions[0].page, one.page);
    assert!(!later.admissions[0].is_new);
    // The stored record is left exactly as the first discovery made it.
    assert_eq!(store.page(one.page).unwrap().unwrap().record.weight, 3.0);
    assert_eq!(store.counts().unwrap().pages(), 1);
    // Byte-for-byte: a different spelling is a different URL (canonicalising is the caller's).
    let report = store.commit(&[Op::Discover(discovery("http://a.test/?", "a.test"))]).unwrap();
    assert!(report.admissions[0].is_new);
}

pub fn ids_are_stable_across_reopen<H: Harness>(harness: &mut H) {
    let mut store = harness.create();
    let urls: Vec<String> = (0..50).map(|i| format!("http://h{}.test/{i}", i % 5)).collect();
    let batch: Vec<Op> = urls.iter().map(|url| Op::Discover(discovery(url, &url[7..12]))).collect();
    let report = store.commit(&batch).unwrap();
    store.commit(&[Op::Remove(report.admissions[49].page)]).unwrap();
    let store = harness.reopen(store);
    for (url, admission) in urls.iter().zip(&report.admissions).take(49) {
        assert_eq!(store.lookup(url).unwrap(), Some(admission.page), "{url}");
    }
    let mut store = store;
    // New ids continue after every id ever given, the removed one included: none is reused.
    let report = store.commit(&[Op::Discover(discovery("http://new.test/", "new.test"))]).unwrap();
    assert_eq!(report.admissions[0].page, PageId(50));
    assert_eq!(report.new_hosts, [(HostId(5), "new.test".to_owned())]);
}

pub fn start_complete_release<H: Harness>(harness: &mut H) {
    let mut store = harness.create();
    let report = store
        .commit(&[
            Op::Discover(discovery("http://a.test/1", "a.test")),
            Op::Discover(discovery("http://a.test/2", "a.test")),
        ])
        .unwrap();
    let (one, two) = (report.admissions[0].page, report.admissions[1].page);
    store.commit(&[Op::Start(one)]).unwrap();
    assert_eq!(state_of(&store, one), PageState::InFlight);
    assert_eq!(store.counts().unwrap().in_flight, 1);
    let error = store.commit(&[Op::Start(two), Op::Start(one)]).unwrap_err();
    assert!(matches!(error, StoreError::AlreadyInFlight { op: 1, page } if page == one), "{error}");
    assert_eq!(state_of(&store, two), PageState::Discovered, "the failed batch left page two alone");

    store.commit(&[Op::Complete(completion(one, 5.0))]).unwrap();
    let record = store.page(one).unwrap().unwrap().record;
    assert_eq!(record.state, PageState::Fetched);
    assert_eq!((record.last_fetch, record.next_due), (Some(5.0), Some(15.0)));
    assert_eq!((record.weight, record.change_rate), (2.5, 0.25));
    assert_eq!(record.etag.as_deref(), Some("\"v1\""));
    assert_eq!(record.last_modified.as_deref(), Some("Tue, 15 Nov 1994 12:45:26 GMT"));
    assert_eq!((record.fingerprint, record.estimator), (vec![7; 20], vec![1, 2, 3, 4]));
    let counts = store.counts().unwrap();
    assert_eq!((counts.discovered, counts.in_flight, counts.fetched), (1, 0, 1));

    // A completion without a recorded start is accepted (starts need not be persisted).
    store.commit(&[Op::Complete(Completion { next_due: None, ..completion(two, 6.0) })]).unwrap();
    assert_eq!(store.page(two).unwrap().unwrap().record.next_due, None);

    // Release: back to the state before the start, with the new due time.
    store.commit(&[Op::Start(one), Op::Release { page: one, next_due: Some(99.0) }]).unwrap();
    let record = store.page(one).unwrap().unwrap().record;
    assert_eq!(
        (record.state, record.next_due, record.last_fetch),
        (PageState::Fetched, Some(99.0), Some(5.0))
    );
    // Release of a page not in flight only moves its due time.
    store.commit(&[Op::Release { page: two, next_due: Some(7.0) }]).unwrap();
    assert_eq!(store.page(two).unwrap().unwrap().record.next_due, Some(7.0));
    assert_eq!(store.counts().unwrap().fetched, 2);
    // A fresh page released goes back to Discovered.
    let fresh =
        store.commit(&[Op::Discover(discovery("http://a.test/3", "a.test"))]).unwrap().admissions[0].page;
    store.commit(&[Op::Start(fresh)]).unwrap();
    store.commit(&[Op::Release { page: fresh, next_due: Some(1.0) }]).unwrap();
    assert_eq!(state_of(&store, fresh), PageState::Discovered);
}

pub fn reopen_keeps_everything<H: Harness>(harness: &mut H) {
    let mut store = harness.create();
    let mut batch: Vec<Op> = (0..20)
        .map(|i| {
            Op::Discover(discovery(&format!("http://h{}.test/p{i}", i % 3), &format!("h{}.test", i % 3)))
        })
        .collect();
    batch.push(Op::Complete(completion(PageId(3), 4.0)));
    batch.push(Op::Start(PageId(4)));
    batch.push(Op::Release { page: PageId(5), next_due: None });
    let politeness = HostPoliteness { min_delay: 1.5, max_rate: 0.5, blocked_until: Some(120.0) };
    batch.push(Op::SetHost { host: HostId(2), politeness });
    store.commit(&batch).unwrap();
    let pages = all_pages(&store);
    let hosts = store.hosts(None, usize::MAX).unwrap();
    let counts = store.counts().unwrap();
    let store = harness.reopen(store);
    assert_eq!(all_pages(&store), pages);
    assert_eq!(store.hosts(None, usize::MAX).unwrap(), hosts);
    assert_eq!(store.counts().unwrap(), counts);
    assert_eq!(store.host(HostId(2)).unwrap().unwrap().politeness, politeness);
    assert_eq!(state_of(&store, PageId(4)), PageState::InFlight, "reopening alone changes nothing");
}

pub fn recover_gives_in_flight_pages_back<H: Harness>(harness: &mut H) {
    let mut store = harness.create();
    let batch: Vec<Op> = (0..4)
        .map(|i| {
            Op::Discover(Discovery {
                due: f64::from(i),
                redirect_trail: Vec::new(),
                ..discovery(&format!("http://a.test/{i}"), "a.test")
            })
        })
        .collect();
    store.commit(&batch).unwrap();
    store.commit(&[Op::Complete(completion(PageId(1), 3.0))]).unwrap();
    store.commit(&[Op::Start(PageId(0)), Op::Start(PageId(1)), Op::Start(PageId(2))]).unwrap();
    let before = all_pages(&store);
    let mut store = harness.reopen(store);
    assert_eq!(store.recover().unwrap(), 3);
    let after = all_pages(&store);
    let states: Vec<PageState> = after.iter().map(|page| page.record.state).collect();
    use PageState::{Discovered, Fetched};
    assert_eq!(states, [Discovered, Fetched, Discovered, Discovered]);
    for (old, new) in before.iter().zip(&after) {
        // Everything but the state is as it was: due times unchanged, so due again at once.
        assert_eq!(old.record.next_due, new.record.next_due);
        assert_eq!(old.record.last_fetch, new.record.last_fetch);
        assert_eq!(old.url, new.url);
    }
    let counts = store.counts().unwrap();
    assert_eq!((counts.discovered, counts.in_flight, counts.fetched), (3, 0, 1));
    assert_eq!(store.recover().unwrap(), 0);
    // Each page may start again.
    store.commit(&[Op::Start(PageId(0)), Op::Start(PageId(1))]).unwrap();
}

pub fn failed_batch_changes_nothing<H: Harness>(harness: &mut H) {
    let mut store = harness.create();
    store.commit(&[Op::Discover(discovery("http://a.test/", "a.test"))]).unwrap();
    let pages = all_pages(&store);
    let counts = store.counts().unwrap();
    let batch = [
        Op::Discover(discovery("http://b.test/", "b.test")),
        Op::Complete(completion(PageId(0), 1.0)),
        Op::Start(PageId(0)),
        Op::Start(PageId(999)),
    ];
    let error = store.commit(&batch).unwrap_err();
    assert!(matches!(error, StoreError::UnknownPage { op: 3, page: PageId(999) }), "{error}");
    assert_eq!(all_pages(&store), pages);
    assert_eq!(store.counts().unwrap(), counts);
    assert_eq!(store.lookup("http://b.test/").unwrap(), None);
    assert_eq!(store.host_by_key("b.test").unwrap(), None);
    let mut store = harness.reopen(store);
    assert_eq!(all_pages(&store), pages);
    // The ids the failed batch took are given again.
    let report = store.commit(&[Op::Discover(discovery("http://c.test/", "c.test"))]).unwrap();
    assert_eq!((report.admissions[0].page, report.admissions[0].host), (PageId(1), HostId(1)));
}

pub fn bad_input_is_refused_by_name<H: Harness>(harness: &mut H) {
    let mut store = harness.create();
    store.commit(&[Op::Discover(discovery("http://a.test/", "a.test"))]).unwrap();
    let ok = Op::Discover(discovery("http://ok.test/", "ok.test"));
    let long_url = format!("http://a.test/{}", "x".repeat(limits::URL_BYTES));
    let cases: Vec<(Op, &str)> = vec![
        (Op::Discover(discovery("", "a.test")), "url"),
        (Op::Discover(discovery("http://a.test/a b", "a.test")), "url"),
        (Op::Discover(discovery("http://a.test/\n", "a.test")), "url"),
        (Op::Discover(discovery(&long_url, "a.test")), "url"),
        (Op::Discover(discovery("http://a.test/y", "")), "host"),
        (Op::Discover(Discovery { weight: -1.0, ..discovery("http://a.test/y", "a.test") }), "weight"),
        (
            Op::Discover(Discovery { change_rate: f64::NAN, ..discovery("http://a.test/y", "a.test") }),
            "change_rate",
        ),
        (Op::Discover(Discovery { due: f64::INFINITY, ..discovery("http://a.test/y", "a.test") }), "due"),
        (Op::Complete(Completion { fetched_at: f64::NAN, ..completion(PageId(0), 1.0) }), "fetched_at"),
        (
            Op::Complete(Completion { next_due: Some(f64::NEG_INFINITY), ..completion(PageId(0), 1.0) }),
            "next_due",
        ),
        (Op::Complete(Completion { etag: Some("\"a\"\r\n".into()), ..completion(PageId(0), 1.0) }), "etag"),
        (
            Op::Complete(Completion {
                fingerprint: vec![0; limits::FINGERPRINT_BYTES + 1],
                ..completion(PageId(0), 1.0)
            }),
            "fingerprint",
        ),
        (
            Op::Complete(Completion {
                estimator: vec![0; limits::ESTIMATOR_BYTES + 1],
                ..completion(PageId(0), 1.0)
            }),
            "estimator",
        ),
        (
            Op::SetHost {
                host: HostId(0),
                politeness: HostPoliteness { max_rate: 0.0, ..HostPoliteness::default() },
            },
            "max_rate",
        ),
        (
            Op::SetHost {
                host: HostId(0),
                politeness: HostPoliteness { min_delay: -1.0, ..HostPoliteness::default() },
            },
            "min_delay",
        ),
    ];
    for (bad, field) in cases {
        let error = store.commit(&[ok.clone(), bad.clone()]).unwrap_err();
        let named = match &error {
            StoreError::Empty { op, field }
            | StoreError::TooLong { op, field, .. }
            | StoreError::BadCharacter { op, field, .. }
            | StoreError::InvalidNumber { op, field, .. } => (*op, *field),
            other => panic!("{bad:?}: unexpected error {other}"),
        };
        assert_eq!(named, (1, field), "{bad:?}: {error}");
        assert!(error.to_string().contains(field), "{error}");
    }
    let unknown = [
        (Op::Start(PageId(7)), "unknown page 7"),
        (Op::Complete(completion(PageId(7), 1.0)), "unknown page 7"),
        (Op::Release { page: PageId(7), next_due: None }, "unknown page 7"),
        (Op::Remove(PageId(7)), "unknown page 7"),
        (Op::SetHost { host: HostId(7), politeness: HostPoliteness::default() }, "unknown host 7"),
    ];
    for (bad, message) in unknown {
        let error = store.commit(&[ok.clone(), bad.clone()]).unwrap_err();
        assert_eq!(error.to_string(), format!("operation 1: {message}"), "{bad:?}");
    }
    assert_eq!(store.lookup("http://ok.test/").unwrap(), None, "no failed batch left its discovery");
    assert_eq!(store.counts().unwrap().pages(), 1);
}

pub fn remove_forgets_the_url<H: Harness>(harness: &mut H) {
    let mut store = harness.create();
    let batch = [
        Op::Discover(discovery("http://a.test/1", "a.test")),
        Op::Discover(discovery("http://a.test/2", "a.test")),
    ];
    store.commit(&batch).unwrap();
    store
        .commit(&[
            Op::Start(PageId(0)),
            Op::Remove(PageId(0)),
            Op::Complete(completion(PageId(1), 1.0)),
            Op::Remove(PageId(1)),
        ])
        .unwrap();
    assert_eq!(store.lookup("http://a.test/1").unwrap(), None);
    assert_eq!(store.page(PageId(0)).unwrap(), None);
    assert_eq!(store.counts().unwrap().pages(), 0);
    assert_eq!(store.recover().unwrap(), 0, "a removed page is not in flight");
    let report = store.commit(&[Op::Discover(discovery("http://a.test/1", "a.test"))]).unwrap();
    assert_eq!(report.admissions[0].page, PageId(2));
    assert!(report.admissions[0].is_new && report.new_hosts.is_empty());
    let error = store.commit(&[Op::Remove(PageId(0))]).unwrap_err();
    assert!(matches!(error, StoreError::UnknownPage { op: 0, page: PageId(0) }), "{error}");
}

pub fn hosts_keep_their_politeness<H: Harness>(harness: &mut H) {
    let mut store = harness.create();
    let batch: Vec<Op> = (0..5)
        .map(|i| Op::Discover(discovery(&format!("http://h{i}.test/"), &format!("h{i}.test"))))
        .collect();
    store.commit(&batch).unwrap();
    let default = store.host(HostId(3)).unwrap().unwrap();
    assert_eq!((default.key.as_str(), default.politeness), ("h3.test", HostPoliteness::default()));
    let slow = HostPoliteness { min_delay: 10.0, max_rate: f64::INFINITY, blocked_until: Some(3600.0) };
    store.commit(&[Op::SetHost { host: HostId(3), politeness: slow }]).unwrap();
    let store = harness.reopen(store);
    let host = store.host(HostId(3)).unwrap().unwrap();
    assert_eq!((host.id, host.key.as_str(), host.politeness), (HostId(3), "h3.test", slow));
    assert_eq!(store.host_by_key("h3.test").unwrap(), Some(HostId(3)));
    assert_eq!(store.host(HostId(5)).unwrap(), None);
    let ids = |hosts: Vec<crate::HostRecord>| hosts.iter().map(|host| host.id.0).collect::<Vec<_>>();
    assert_eq!(ids(store.hosts(None, 2).unwrap()), [0, 1]);
    assert_eq!(ids(store.hosts(Some(HostId(1)), 2).unwrap()), [2, 3]);
    assert_eq!(ids(store.hosts(Some(HostId(3)), 2).unwrap()), [4]);
    assert_eq!(ids(store.hosts(Some(HostId(u32::MAX)), 2).unwrap()), Vec::<u32>::new());
}

pub fn pages_are_listed_in_id_order<H: Harness>(harness: &mut H) {
    let mut store = harness.create();
    let batch: Vec<Op> =
        (0..10).map(|i| Op::Discover(discovery(&format!("http://a.test/{i}"), "a.test"))).collect();
    store.commit(&batch).unwrap();
    store.commit(&[Op::Remove(PageId(4))]).unwrap();
    let mut seen = Vec::new();
    let mut after = None;
    loop {
        let chunk = store.pages(after, 3).unwrap();
        if chunk.is_empty() {
            break;
        }
        assert!(chunk.len() <= 3);
        after = chunk.last().map(|page| page.id);
        seen.extend(chunk.iter().map(|page| page.id.0));
    }
    assert_eq!(seen, [0, 1, 2, 3, 5, 6, 7, 8, 9]);
    assert!(store.pages(Some(PageId(u32::MAX)), 3).unwrap().is_empty());
    assert!(store.pages(None, 0).unwrap().is_empty());
}

pub fn large_batch_with_duplicates<H: Harness>(harness: &mut H) {
    let mut store = harness.create();
    let batch: Vec<Op> = (0..4000)
        .map(|i| {
            let n = i % 2500;
            Op::Discover(discovery(
                &format!("http://h{}.test/page/{n}", n % 40),
                &format!("h{}.test", n % 40),
            ))
        })
        .collect();
    let report = store.commit(&batch).unwrap();
    assert_eq!(report.admissions.iter().filter(|admission| admission.is_new).count(), 2500);
    assert_eq!(report.new_hosts.len(), 40);
    for (i, admission) in report.admissions.iter().enumerate().skip(2500) {
        assert_eq!(admission.page, report.admissions[i - 2500].page);
    }
    let store = harness.reopen(store);
    let pages = all_pages(&store);
    assert_eq!(pages.len(), 2500);
    let mut urls: Vec<&str> = pages.iter().map(|page| page.url.as_str()).collect();
    urls.sort_unstable();
    urls.dedup();
    assert_eq!(urls.len(), 2500, "one id per URL");
    assert_eq!(store.counts().unwrap().hosts, 40);
}

/// The resume path of [`FrontierStore`]'s docs, end to end: recover, declare hosts, add or
/// restore pages; the scheduler then serves the due page first.
pub fn store_rebuilds_the_scheduler<H: Harness>(harness: &mut H) {
    let mut store = harness.create();
    let batch = [
        Op::Discover(discovery("http://a.test/old", "a.test")),
        Op::Discover(discovery("http://b.test/new", "b.test")),
        Op::Discover(discovery("http://b.test/gone", "b.test")),
    ];
    store.commit(&batch).unwrap();
    store
        .commit(&[Op::Complete(Completion { next_due: Some(100.0), ..completion(PageId(0), 100.0) })])
        .unwrap();
    store.commit(&[Op::Complete(Completion { next_due: None, ..completion(PageId(2), 100.0) })]).unwrap();
    store.commit(&[Op::Start(PageId(1))]).unwrap();
    let mut store = harness.reopen(store);
    store.recover().unwrap();

    let mut scheduler = Scheduler::freshness(Budget::new(1.0)).unwrap();
    for host in store.hosts(None, usize::MAX).unwrap() {
        let politeness =
            Politeness { min_delay: host.politeness.min_delay, max_rate: host.politeness.max_rate };
        scheduler.set_host(host.id, politeness).unwrap();
    }
    let now = 101.0;
    let mut after = None;
    loop {
        let chunk = store.pages(after, 2).unwrap();
        let Some(last) = chunk.last() else { break };
        after = Some(last.id);
        for page in chunk.iter().filter(|page| page.record.next_due.is_some()) {
            let record = &page.record;
            match record.last_fetch {
                None => scheduler.add(page.id, record.host, record.weight, record.change_rate, now).unwrap(),
                Some(last) => {
                    scheduler
                        .restore(page.id, record.host, record.weight, record.change_rate, last, now)
                        .unwrap();
                }
            }
        }
    }
    assert_eq!(scheduler.len(), 2, "the page never to be fetched again is not scheduled");
    // The never-fetched page (infinitely old copy) is served before the one fetched 1 s ago.
    assert_eq!(scheduler.next(now), Decision::Fetch { page: PageId(1), host: HostId(1) });
}

/// A redirect target's trail is stored with the new page, survives a reopen and a recovery,
/// is ignored for a URL already held, and is emptied by the page's first completion; an
/// oversized trail is refused by name.
pub fn redirect_trail_is_kept_until_the_first_fetch<H: Harness>(harness: &mut H) {
    let mut store = harness.create();
    let trail = vec!["http://h.test/a".to_owned(), "http://h.test/b".to_owned()];
    let target = Discovery { redirect_trail: trail.clone(), ..discovery("http://h.test/c", "h.test") };
    let report = store.commit(&[Op::Discover(target.clone())]).unwrap();
    let page = report.admissions[0].page;
    store.commit(&[Op::Start(page)]).unwrap();
    let mut store = harness.reopen(store);
    store.recover().unwrap();
    assert_eq!(store.page(page).unwrap().unwrap().record.redirect_trail, trail);

    let other = Discovery { redirect_trail: vec!["http://h.test/z".to_owned()], ..target };
    assert!(!store.commit(&[Op::Discover(other)]).unwrap().admissions[0].is_new);
    assert_eq!(
        store.page(page).unwrap().unwrap().record.redirect_trail,
        trail,
        "a seen URL is left as it is"
    );

    store.commit(&[Op::Complete(completion(page, 5.0))]).unwrap();
    let store = harness.reopen(store);
    assert!(store.page(page).unwrap().unwrap().record.redirect_trail.is_empty());

    let mut store = store;
    let long = vec!["http://h.test/x".to_owned(); limits::REDIRECT_TRAIL + 1];
    let too_long = Discovery { redirect_trail: long, ..discovery("http://h.test/d", "h.test") };
    let error = store.commit(&[Op::Discover(too_long)]).unwrap_err();
    assert!(matches!(error, StoreError::TooLong { op: 0, field: "redirect_trail", .. }), "{error:?}");
    let bad = Discovery {
        redirect_trail: vec!["http://h.test/ x".to_owned()],
        ..discovery("http://h.test/d", "h.test")
    };
    let error = store.commit(&[Op::Discover(bad)]).unwrap_err();
    assert!(matches!(error, StoreError::BadCharacter { op: 0, field: "redirect_trail", .. }), "{error:?}");
}

/// A page's metadata: set on discovery (a duplicate's is ignored), replaced by
/// [`Op::SetMetadata`] in any state and through a fetch, kept across reopening, bounded.
pub fn metadata_is_kept_and_replaced<H: Harness>(harness: &mut H) {
    let mut store = harness.create();
    let first = Discovery { metadata: b"depth=1".to_vec(), ..discovery("http://h.test/m", "h.test") };
    let plain = discovery("http://h.test/n", "h.test");
    let report = store.commit(&[Op::Discover(first.clone()), Op::Discover(plain)]).unwrap();
    let (page, plain_page) = (report.admissions[0].page, report.admissions[1].page);
    let metadata_of = |store: &H::Store, page| store.page(page).unwrap().unwrap().record.metadata;
    assert_eq!(metadata_of(&store, page), b"depth=1");
    assert!(metadata_of(&store, plain_page).is_empty());

    let again = Discovery { metadata: b"depth=9".to_vec(), ..first };
    assert!(!store.commit(&[Op::Discover(again)]).unwrap().admissions[0].is_new);
    assert_eq!(metadata_of(&store, page), b"depth=1", "a seen URL is left as it is");

    store.commit(&[Op::Start(page), Op::SetMetadata { page, metadata: vec![0, 255, 7] }]).unwrap();
    assert_eq!(store.page(page).unwrap().unwrap().record.state, PageState::InFlight);
    store.commit(&[Op::Complete(completion(page, 5.0))]).unwrap();
    let mut store = harness.reopen(store);
    assert_eq!(metadata_of(&store, page), [0, 255, 7], "kept through a fetch and a reopen");
    store.commit(&[Op::SetMetadata { page, metadata: Vec::new() }]).unwrap();
    let mut store = harness.reopen(store);
    assert!(metadata_of(&store, page).is_empty());

    let largest = vec![b'x'; limits::METADATA_BYTES];
    store.commit(&[Op::SetMetadata { page: plain_page, metadata: largest.clone() }]).unwrap();
    let mut store = harness.reopen(store);
    assert_eq!(metadata_of(&store, plain_page), largest);
    let too_long = vec![b'x'; limits::METADATA_BYTES + 1];
    let error = store.commit(&[Op::SetMetadata { page, metadata: too_long.clone() }]).unwrap_err();
    assert!(matches!(error, StoreError::TooLong { op: 0, field: "metadata", .. }), "{error:?}");
    let new = Discovery { metadata: too_long, ..discovery("http://h.test/o", "h.test") };
    let error = store.commit(&[Op::Discover(new)]).unwrap_err();
    assert!(matches!(error, StoreError::TooLong { op: 0, field: "metadata", .. }), "{error:?}");
    let unknown = PageId(999);
    let error = store.commit(&[Op::SetMetadata { page: unknown, metadata: Vec::new() }]).unwrap_err();
    assert!(matches!(error, StoreError::UnknownPage { op: 0, .. }), "{error:?}");
}

/// [`FrontierStore::page_batch`] answers what [`FrontierStore::page`] answers for each id, in
/// the order asked, repeated and unknown ids included.
pub fn page_batch_reads_as_page_does<H: Harness>(harness: &mut H) {
    let mut store = harness.create();
    let urls = ["http://a.test/1", "http://a.test/2", "http://b.test/1"];
    let ops: Vec<Op> = urls.iter().map(|url| Op::Discover(discovery(url, "h.test"))).collect();
    let report = store.commit(&ops).unwrap();
    let first = report.admissions[0].page;
    store.commit(&[Op::Complete(completion(first, 5.0))]).unwrap();
    let store = harness.reopen(store);
    let ids = [PageId(2), PageId(99), first, PageId(2)];
    let batch = store.page_batch(&ids).unwrap();
    let one_by_one: Vec<_> = ids.iter().map(|&id| store.page(id).unwrap()).collect();
    assert_eq!(batch, one_by_one);
    assert_eq!(batch[0].as_ref().unwrap().url, "http://b.test/1");
    assert!(batch[1].is_none());
    assert!(store.page_batch(&[]).unwrap().is_empty());
}

/// A `redis-server` of a test's own, on a free 127.0.0.1 port, with its data in a temporary
/// directory; killed when dropped: for the Redis engine's tests here and in the crawler. The
/// binary is `FRESHET_REDIS_SERVER` or `redis-server` on the `PATH`
/// (`scripts/install-test-deps.sh` installs Debian's).
pub struct RedisServer {
    child: Child,
    dir: tempfile::TempDir,
    pub url: String,
}

impl RedisServer {
    /// Syncing every write to its append-only file (what `RedisStore::open` requires).
    pub fn start() -> Self {
        Self::with(&["--appendonly", "yes", "--appendfsync", "always"])
    }

    /// With these settings (`--name value`…).
    pub fn with(settings: &[&str]) -> Self {
        on_fresh_ports(1, "redis-server", |ports| {
            Self::start_in(tempfile::tempdir().unwrap(), ports[0], settings)
        })
    }

    /// On `port`, with these settings; or, when the server exits before it answers (the port
    /// taken), why, with its log.
    pub fn on_port(port: u16, settings: &[&str]) -> Result<Self, String> {
        Self::start_in(tempfile::tempdir().unwrap(), port, settings)
    }

    /// On `port`, with its data and its log (`redis.log`) in `dir`, with these settings;
    /// answering once it returns.
    ///
    /// A port free when [`free_ports`] picked it may be taken before the server binds it
    /// (another test's server, or a client connection's local port: both come from the
    /// ephemeral range), and the server then exits: that is an `Err` with its log, for the
    /// caller to try fresh ports. A server that answers is ours only if its `process_id` is
    /// our child's. A server still running that does not answer within
    /// [`ANSWER_WITHIN`] fails the test, naming its log.
    fn start_in(dir: tempfile::TempDir, port: u16, settings: &[&str]) -> Result<Self, String> {
        let binary = std::env::var_os("FRESHET_REDIS_SERVER").unwrap_or_else(|| "redis-server".into());
        let log = dir.path().join("redis.log");
        let child = Command::new(&binary)
            .args(["--bind", "127.0.0.1", "--port", &port.to_string(), "--save", ""])
            .args(settings)
            .arg("--dir")
            .arg(dir.path())
            .arg("--logfile")
            .arg(&log)
            .stdout(Stdio::null())
            .spawn()
            .unwrap_or_else(|error| {
                panic!("cannot start {binary:?} ({error}): run `bash scripts/install-test-deps.sh` (Debian's redis-server)")
            });
        let url = format!("redis://127.0.0.1:{port}/");
        let mut server = Self { child, dir, url };
        let deadline = std::time::Instant::now() + ANSWER_WITHIN;
        let log_text = || std::fs::read_to_string(&log).unwrap_or_default();
        loop {
            if let Ok(Some(status)) = server.child.try_wait() {
                return Err(format!("on port {port}, {status}; its log:\n{}", log_text()));
            }
            // Timed, for whatever holds the port may accept and never answer.
            let timeout = Duration::from_secs(1);
            if let Ok(mut connection) = redis::Client::open(server.url.as_str())
                .and_then(|client| client.get_connection_with_timeout(timeout))
                && connection.set_read_timeout(Some(timeout)).is_ok()
                && redis::cmd("PING").query::<String>(&mut connection).is_ok()
            {
                // Another test's server may hold the port, ours then failing to bind it: only
                // ours will do (the next turn sees ours exit).
                let info: String =
                    redis::cmd("INFO").arg("server").query(&mut connection).unwrap_or_default();
                let answering = info.lines().find_map(|line| line.trim().strip_prefix("process_id:"));
                if answering == Some(server.child.id().to_string().as_str()) {
                    return Ok(server);
                }
            }
            assert!(
                std::time::Instant::now() < deadline,
                "redis-server did not answer on port {port} within {ANSWER_WITHIN:?}; its log:\n{}",
                log_text()
            );
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// Its data directory (the append-only files are in `appendonlydir/`).
    pub fn dir(&self) -> &std::path::Path {
        self.dir.path()
    }

    /// A plain connection to it.
    pub fn connect(&self) -> redis::RedisResult<redis::Connection> {
        redis::Client::open(self.url.as_str())?.get_connection()
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// How many times a test's Redis servers are started on fresh ports before the test fails
/// ([`RedisServer::start_in`] says why a port can be lost).
const PORT_ATTEMPTS: usize = 5;

/// How long a running `redis-server` may take to answer its first `PING`: it loads nothing
/// (a new directory), so this is only a loaded machine's margin.
const ANSWER_WITHIN: Duration = Duration::from_secs(20);

/// What `start` makes on `count` fresh ports ([`free_ports`]), tried again on others while it
/// reports an exit ([`RedisServer::start_in`]), [`PORT_ATTEMPTS`] times at most; then the test
/// fails with every exit and its log.
fn on_fresh_ports<T>(count: usize, what: &str, start: impl Fn(&[u16]) -> Result<T, String>) -> T {
    let mut exits = Vec::new();
    for _ in 0..PORT_ATTEMPTS {
        match start(&free_ports(count)) {
            Ok(started) => return started,
            Err(exit) => exits.push(exit),
        }
    }
    panic!("{what} exited {PORT_ATTEMPTS} times on fresh ports:\n{}", exits.join("\n\n"))
}

/// `count` distinct free 127.0.0.1 ports (held together while they are picked, so none is
/// given twice; free again, for servers to take, when this returns).
fn free_ports(count: usize) -> Vec<u16> {
    let listeners: Vec<std::net::TcpListener> =
        (0..count).map(|_| std::net::TcpListener::bind("127.0.0.1:0").unwrap()).collect();
    listeners.iter().map(|listener| listener.local_addr().unwrap().port()).collect()
}

/// A Redis Cluster of a test's own, for the Redis engine's cluster tests (`RedisStore` follows
/// its prefix's slot to the master that serves it: `connect_to_slot_owner`): masters without
/// replicas, each a [`RedisServer`] on free 127.0.0.1 ports (its client port and its cluster
/// bus port, `--cluster-port`, since the default bus port, 10000 above, may be taken or past
/// 65535) with its data and its `nodes.conf` in a temporary directory of its own, syncing every
/// write; the 16384 slots split evenly between them in node order. Every node is killed when it
/// is dropped.
///
/// It is formed from here, as `redis-cli --cluster create` would form it (`CLUSTER
/// ADDSLOTSRANGE` on each node, then `CLUSTER MEET`), so a test needs no `redis-cli`.
/// Starting takes about two seconds however small the cluster: a master calls itself ok no
/// sooner than 2 s after it starts (`CLUSTER_WRITABLE_DELAY` in Redis's `cluster.c`). Tests
/// that can share a cluster, each under prefixes of its own, take [`shared`](Self::shared).
pub struct RedisCluster {
    nodes: Vec<RedisServer>,
    /// Each node's slots, first and last, as formed.
    ranges: Vec<(u16, u16)>,
    /// Slots moved since ([`move_slot`](Self::move_slot)), and the node each went to.
    moved: Mutex<Vec<(u16, usize)>>,
    /// Each node's URL, `redis://127.0.0.1:PORT/`, in node order.
    pub urls: Vec<String>,
}

impl RedisCluster {
    /// The number of hash slots of a Redis Cluster.
    const SLOTS: u16 = 16384;

    /// Three masters.
    pub fn start() -> Self {
        Self::with_nodes(3)
    }

    /// `nodes` masters (one or more).
    pub fn with_nodes(nodes: usize) -> Self {
        assert!(nodes >= 1, "a cluster of no node");
        let count = u16::try_from(nodes).unwrap();
        let ranges: Vec<(u16, u16)> = (0..count)
            .map(|node| {
                let first = |node: u16| {
                    u16::try_from(u32::from(Self::SLOTS) * u32::from(node) / u32::from(count)).unwrap()
                };
                (first(node), first(node + 1) - 1)
            })
            .collect();
        let (nodes, ports) = on_fresh_ports(2 * nodes, "a node of the Redis Cluster", |ports| {
            let ports: Vec<(u16, u16)> = ports.chunks(2).map(|pair| (pair[0], pair[1])).collect();
            Ok((Self::start_nodes(&ports)?, ports))
        });
        let urls = nodes.iter().map(|node| node.url.clone()).collect();
        let cluster = Self { nodes, ranges, moved: Mutex::new(Vec::new()), urls };
        cluster.form(&ports);
        cluster
    }

    /// A cluster-enabled [`RedisServer`] on each `(port, bus port)`, or the first node's exit
    /// (the nodes started before it are killed as they are dropped).
    fn start_nodes(ports: &[(u16, u16)]) -> Result<Vec<RedisServer>, String> {
        ports
            .iter()
            .map(|&(port, bus)| {
                let dir = tempfile::tempdir().unwrap();
                let config = dir.path().join("nodes.conf");
                let config = config.to_str().expect("a temporary directory's path in UTF-8");
                let bus = bus.to_string();
                let settings = [
                    "--cluster-enabled",
                    "yes",
                    "--cluster-config-file",
                    config,
                    "--cluster-port",
                    &bus,
                    "--appendonly",
                    "yes",
                    "--appendfsync",
                    "always",
                ];
                RedisServer::start_in(dir, port, &settings)
            })
            .collect()
    }

    /// A cluster of three masters shared by every caller that holds one: started by the first,
    /// killed when the last lets go of it (a later call starts another). Each test keeps to
    /// prefixes of its own ([`prefix_on`](Self::prefix_on) with a stem of its own).
    pub fn shared() -> Arc<Self> {
        static SHARED: Mutex<Weak<RedisCluster>> = Mutex::new(Weak::new());
        let mut shared = SHARED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(cluster) = shared.upgrade() {
            return cluster;
        }
        let cluster = Arc::new(Self::start());
        *shared = Arc::downgrade(&cluster);
        cluster
    }

    /// Gives each node its slots and a config epoch of its own, has every node meet each later
    /// one, and waits (10 s at most) until every node says `cluster_state:ok` and lists every
    /// node's range. (Meeting only node 0 leaves the others to learn of each other by gossip,
    /// which took a second more, or five when a node saw itself in a minority meanwhile.)
    fn form(&self, ports: &[(u16, u16)]) {
        for (epoch, (node, &(first, last))) in (1_u64..).zip(self.nodes.iter().zip(&self.ranges)) {
            let mut connection = node.connect().unwrap();
            redis::cmd("CLUSTER").arg("SET-CONFIG-EPOCH").arg(epoch).query::<()>(&mut connection).unwrap();
            redis::cmd("CLUSTER")
                .arg("ADDSLOTSRANGE")
                .arg(first)
                .arg(last)
                .query::<()>(&mut connection)
                .unwrap();
        }
        for (index, node) in self.nodes.iter().enumerate() {
            let mut connection = node.connect().unwrap();
            for &(port, bus) in &ports[index + 1..] {
                redis::cmd("CLUSTER")
                    .arg("MEET")
                    .arg("127.0.0.1")
                    .arg(port)
                    .arg(bus)
                    .query::<()>(&mut connection)
                    .unwrap();
            }
        }
        let expected: Vec<(u16, u16, u16)> =
            self.ranges.iter().zip(ports).map(|(&(first, last), &(port, _))| (first, last, port)).collect();
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        let mut last_seen = String::new();
        loop {
            let mut ready = true;
            for (index, node) in self.nodes.iter().enumerate() {
                let mut connection = node.connect().unwrap();
                let info: String = redis::cmd("CLUSTER").arg("INFO").query(&mut connection).unwrap();
                let mut ranges = cluster_ranges(&mut connection);
                ranges.sort_unstable();
                if !info.lines().any(|line| line.trim() == "cluster_state:ok") || ranges != expected {
                    ready = false;
                    let state = info.lines().find(|line| line.starts_with("cluster_state")).unwrap_or("");
                    last_seen = format!("node {index}: {} with ranges {ranges:?}", state.trim());
                    break;
                }
            }
            if ready {
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the Redis Cluster on ports {ports:?} did not come up within 10 s (want every node \
                 ok with the ranges {expected:?}; last seen: {last_seen})"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// A plain connection to node `node` (it answers `MOVED` for a key of another node's slot).
    pub fn connect(&self, node: usize) -> redis::RedisResult<redis::Connection> {
        self.nodes[node].connect()
    }

    /// The node that serves `key`'s slot (`CLUSTER KEYSLOT`): where the cluster keeps it.
    pub fn node_serving(&self, key: &str) -> usize {
        let slot = self.slot_of(key);
        let moved = self.moved.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(&(_, node)) = moved.iter().rev().find(|&&(moved, _)| moved == slot) {
            return node;
        }
        self.ranges.iter().position(|&(first, last)| (first..=last).contains(&slot)).unwrap()
    }

    fn slot_of(&self, key: &str) -> u16 {
        let mut connection = self.connect(0).unwrap();
        redis::cmd("CLUSTER").arg("KEYSLOT").arg(key).query(&mut connection).unwrap()
    }

    /// Moves the slot of `key` to node `to` whole: [`start_slot_move`](Self::start_slot_move),
    /// then [`SlotMove::finish`].
    pub fn move_slot(&self, key: &str, to: usize) {
        self.start_slot_move(key, to).finish();
    }

    /// Starts moving the slot of `key` to node `to` as `redis-cli --cluster reshard` does: the
    /// node `to` is set importing it and its node migrating it (`CLUSTER SETSLOT`); its keys are
    /// moved by [`SlotMove::migrate`] and the slot handed over by [`SlotMove::finish`].
    /// Meanwhile its node answers `ASK` for a key already moved and `TRYAGAIN` for a command
    /// over keys on both sides.
    pub fn start_slot_move(&self, key: &str, to: usize) -> SlotMove<'_> {
        let slot = self.slot_of(key);
        let from = self.node_serving(key);
        assert_ne!(from, to, "slot {slot} is on node {to} already");
        let ids: Vec<String> = (0..self.nodes.len())
            .map(|node| redis::cmd("CLUSTER").arg("MYID").query(&mut self.connect(node).unwrap()).unwrap())
            .collect();
        let set_slot = |node: usize, state: &str, id: &str| {
            redis::cmd("CLUSTER")
                .arg("SETSLOT")
                .arg(slot)
                .arg(state)
                .arg(id)
                .query::<()>(&mut self.connect(node).unwrap())
                .unwrap();
        };
        set_slot(to, "IMPORTING", &ids[from]);
        set_slot(from, "MIGRATING", &ids[to]);
        SlotMove { cluster: self, slot, from, to, ids }
    }
}

/// A slot being moved between two nodes of a [`RedisCluster`] ([`RedisCluster::start_slot_move`]).
pub struct SlotMove<'a> {
    cluster: &'a RedisCluster,
    slot: u16,
    from: usize,
    to: usize,
    ids: Vec<String>,
}

impl SlotMove<'_> {
    /// Moves up to `count` of the slot's keys still on the old node (`MIGRATE`); returns how
    /// many it moved.
    pub fn migrate(&self, count: usize) -> usize {
        let mut from = self.cluster.connect(self.from).unwrap();
        let keys: Vec<Vec<u8>> =
            redis::cmd("CLUSTER").arg("GETKEYSINSLOT").arg(self.slot).arg(count).query(&mut from).unwrap();
        self.migrate_keys(&keys);
        keys.len()
    }

    /// Moves these keys of the slot to the new node (`MIGRATE`).
    pub fn migrate_keys<K: redis::ToRedisArgs>(&self, keys: &[K]) {
        if keys.is_empty() {
            return;
        }
        let mut from = self.cluster.connect(self.from).unwrap();
        let port =
            self.cluster.nodes[self.to].url.trim_end_matches('/').rsplit(':').next().unwrap().to_owned();
        redis::cmd("MIGRATE")
            .arg("127.0.0.1")
            .arg(port)
            .arg("")
            .arg(0)
            .arg(5000)
            .arg("KEYS")
            .arg(keys)
            .query::<()>(&mut from)
            .unwrap();
    }

    /// Moves the keys left and hands the slot to the new node (`CLUSTER SETSLOT … NODE` on the
    /// new node, the old one, then the others, as `redis-cli` does).
    pub fn finish(self) {
        while self.migrate(100) > 0 {}
        let order = [self.to, self.from]
            .into_iter()
            .chain((0..self.ids.len()).filter(|&node| node != self.to && node != self.from));
        for node in order {
            redis::cmd("CLUSTER")
                .arg("SETSLOT")
                .arg(self.slot)
                .arg("NODE")
                .arg(&self.ids[self.to])
                .query::<()>(&mut self.cluster.connect(node).unwrap())
                .unwrap();
        }
        self.cluster
            .moved
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push((self.slot, self.to));
    }
}

impl RedisCluster {
    /// The node that holds `key` (`EXISTS` on each node; a node answers `MOVED` for a key of
    /// another's slot); panics unless exactly one does.
    pub fn node_holding(&self, key: &str) -> usize {
        let holding: Vec<usize> = (0..self.nodes.len())
            .filter(|&node| {
                let mut connection = self.connect(node).unwrap();
                match redis::cmd("EXISTS").arg(key).query::<u64>(&mut connection) {
                    Ok(count) => count > 0,
                    Err(error) if error.redirect_node().is_some() => false,
                    Err(error) => panic!("EXISTS {key} on node {node}: {error}"),
                }
            })
            .collect();
        match holding[..] {
            [node] => node,
            _ => panic!("{key} is held by the nodes {holding:?}, not by one"),
        }
    }

    /// The first of `STEM-0`, `STEM-1`, … whose keys (all tagged `{PREFIX}`) node `node`
    /// serves: a store prefix that lives on that node.
    pub fn prefix_on(&self, node: usize, stem: &str) -> String {
        (0..)
            .map(|index| format!("{stem}-{index}"))
            .find(|prefix| self.node_serving(&format!("{{{prefix}}}")) == node)
            .unwrap()
    }
}

/// The ranges a cluster node lists in `CLUSTER SLOTS`: first slot, last slot, master's port.
fn cluster_ranges(connection: &mut redis::Connection) -> Vec<(u16, u16, u16)> {
    use redis::Value;
    let ranges: Vec<Value> = redis::cmd("CLUSTER").arg("SLOTS").query(connection).unwrap();
    let number = |value: Option<&Value>| match value {
        Some(Value::Int(number)) => u16::try_from(*number).unwrap(),
        other => panic!("CLUSTER SLOTS: {other:?}, not a number"),
    };
    ranges
        .iter()
        .map(|range| {
            let Value::Array(fields) = range else { panic!("CLUSTER SLOTS: {range:?}") };
            let Some(Value::Array(master)) = fields.get(2) else { panic!("CLUSTER SLOTS: {range:?}") };
            (number(fields.first()), number(fields.get(1)), number(master.get(1)))
        })
        .collect()
}
