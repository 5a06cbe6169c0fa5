//! Failure injection for the redb engine: a child process (this test binary run again with
//! `FRESHET_FRONTIER_CRASH_CHILD` set) commits batches and acknowledges each on stdout; the parent
//! kills it with SIGKILL at random moments, several times on the same file, and after each kill
//! reopens the store and checks the contract of `FrontierStore`: every acknowledged batch is
//! there, no batch is there in part, ids are unique and stable, in-flight pages come back. The
//! child merges its seen-set entries into redb's `urls` table every few batches (kills land
//! before, during and after merges); the check opens the file with the default options and
//! finds every URL, merged or rebuilt from its page record.
//!
//! Its own binary without the libtest harness (`harness = false`), so that the child runs only
//! the writer loop and the parent's check is the whole program.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use freshet_frontier::{Completion, Discovery, FrontierStore, Op, PageState, RedbOptions, RedbStore};
use freshet_schedule::online::PageId;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

const CHILD_ENV: &str = "FRESHET_FRONTIER_CRASH_CHILD";
/// URLs discovered per batch.
const BATCH_URLS: u32 = 40;
/// A child stops after this many batches even if nobody kills it.
const MAX_BATCHES: u32 = 100_000;
const ROUNDS: usize = 12;

fn url(batch: u32, index: u32) -> String {
    format!("http://h{}.test/b{batch}/u{index}", batch % 7)
}

/// Batch `k`: `BATCH_URLS` discoveries; and for `k ≥ 1`, a start of batch `k − 1`'s first page
/// and a completion of its second, so that discoveries, starts and completions share
/// transactions.
fn batch(k: u32) -> Vec<Op> {
    let mut ops: Vec<Op> = (0..BATCH_URLS)
        .map(|i| {
            Op::Discover(Discovery {
                url: url(k, i),
                host: format!("h{}.test", k % 7),
                weight: 1.0,
                change_rate: 0.1,
                depth: k,
                discovered_from: None,
                due: f64::from(k),
                redirect_trail: Vec::new(),
                metadata: Vec::new(),
            })
        })
        .collect();
    if k > 0 {
        let first = (k - 1) * BATCH_URLS;
        ops.push(Op::Start(PageId(first)));
        ops.push(Op::Complete(Completion {
            page: PageId(first + 1),
            fetched_at: f64::from(k),
            weight: 2.0,
            change_rate: 0.2,
            next_due: Some(f64::from(k) + 60.0),
            etag: Some(format!("\"{k}\"")),
            last_modified: None,
            fingerprint: k.to_le_bytes().to_vec(),
            estimator: vec![1; 96],
        }));
    }
    ops
}

/// The child: resumes the store, then commits batch after batch, acknowledging each; its
/// seen-set entries are merged into `urls` once 100 are held (every third batch at first).
fn child(path: &Path) {
    let mut store = RedbStore::open_with(
        path,
        RedbOptions { merge_at_least: 100, merge_divisor: 16, ..RedbOptions::default() },
    )
    .unwrap();
    store.recover().unwrap();
    let pages = store.counts().unwrap().pages();
    let first = u32::try_from(pages / u64::from(BATCH_URLS)).unwrap();
    let mut stdout = std::io::stdout().lock();
    for k in first..MAX_BATCHES {
        store.commit(&batch(k)).unwrap();
        if writeln!(stdout, "ack {k}").and_then(|()| stdout.flush()).is_err() {
            return; // the parent is gone
        }
    }
}

/// Checks the store after a kill; returns how many batches it holds.
fn check(path: &Path, last_ack: Option<u32>) -> u32 {
    let mut store = RedbStore::open(path).unwrap();
    let counts = store.counts().unwrap();
    let pages = counts.pages();
    assert_eq!(pages % u64::from(BATCH_URLS), 0, "a batch is there in part: {pages} pages");
    let batches = u32::try_from(pages / u64::from(BATCH_URLS)).unwrap();
    let acknowledged = last_ack.map_or(0, |k| k + 1);
    // Every acknowledged batch is there; at most one more (committed, killed before its ack).
    assert!(
        (acknowledged..=acknowledged + 1).contains(&batches),
        "{batches} batches stored, {acknowledged} acknowledged"
    );
    // Ids: batch k holds exactly ids kK..(k+1)K in URL order, each URL once.
    let all = store.pages(None, usize::MAX).unwrap();
    assert_eq!(all.len() as u64, pages);
    for (position, page) in all.iter().enumerate() {
        let position = u32::try_from(position).unwrap();
        assert_eq!(page.id, PageId(position));
        assert_eq!(page.url, url(position / BATCH_URLS, position % BATCH_URLS));
        assert_eq!(store.lookup(&page.url).unwrap(), Some(page.id));
    }
    // Completions of committed batches are there, in the same transactions as the discoveries.
    for k in 1..batches {
        let record = &all[((k - 1) * BATCH_URLS + 1) as usize].record;
        assert_eq!((record.state, record.last_fetch), (PageState::Fetched, Some(f64::from(k))));
        assert_eq!(record.fingerprint, k.to_le_bytes());
    }
    let in_flight = all.iter().filter(|page| page.record.state == PageState::InFlight).count() as u64;
    assert_eq!(in_flight, counts.in_flight);
    assert_eq!(store.recover().unwrap(), in_flight);
    assert_eq!(store.counts().unwrap().in_flight, 0);
    assert!(
        store.pages(None, usize::MAX).unwrap().iter().all(|page| page.record.state != PageState::InFlight)
    );
    batches
}

/// One round: start the child, let it run a random while, SIGKILL it, read its acks.
fn run_and_kill(path: &Path, rng: &mut SmallRng) -> Option<u32> {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .env(CHILD_ENV, path)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (sender, acks) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let line = line.unwrap();
            let k: u32 = line.strip_prefix("ack ").unwrap().parse().unwrap();
            if sender.send(k).is_err() {
                break;
            }
        }
    });
    // Kill either at a random time from the start (during open and repair, too), or a random
    // number of acknowledgements in plus a few hundred microseconds (mid-commit).
    let mut last_ack = None;
    if rng.random_bool(0.3) {
        std::thread::sleep(Duration::from_millis(rng.random_range(0..150)));
    } else {
        let wanted = rng.random_range(1..40);
        for _ in 0..wanted {
            match acks.recv_timeout(Duration::from_secs(30)) {
                Ok(k) => last_ack = Some(k),
                Err(_) => break,
            }
        }
        std::thread::sleep(Duration::from_micros(rng.random_range(0..2_000)));
    }
    child.kill().unwrap(); // SIGKILL on Unix
    let status = child.wait().unwrap();
    assert!(!status.success(), "the child should have been killed, not finished");
    reader.join().unwrap();
    acks.try_iter().last().or(last_ack)
}

fn main() {
    if let Some(path) = std::env::var_os(CHILD_ENV) {
        child(Path::new(&path));
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("frontier.redb");
    let mut rng = SmallRng::seed_from_u64(0x0066_7265_7368_6574);
    let mut last_ack = None;
    for round in 0..ROUNDS {
        let acked = run_and_kill(&path, &mut rng);
        last_ack = acked.or(last_ack);
        if !path.exists() {
            println!("round {round}: killed before the file was created");
            continue;
        }
        let batches = check(&path, last_ack);
        // The next child resumes after what is stored, not after what was acknowledged.
        last_ack = batches.checked_sub(1);
        println!("round {round}: killed after ack {acked:?}; {batches} whole batches stored, checked");
    }
    assert!(last_ack.is_some_and(|k| k > 0), "the children never got far enough to test anything");
    // The children merged: some of the URLs are in `urls`, not all rebuilt into memory.
    let store = RedbStore::open(&path).unwrap();
    let pages = store.counts().unwrap().pages();
    assert!((store.unmerged_urls() as u64) < pages, "no merge: {} of {pages} held", store.unmerged_urls());
    println!("crash test: ok ({ROUNDS} kills)");
}
