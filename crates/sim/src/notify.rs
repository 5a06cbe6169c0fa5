//! Change notifications: each host's pages are "read" every `S` time units (an honest
//! sitemap's `<lastmod>`s, the crawler's `sitemap-revisit`), and a policy that listens is told
//! for each page of the host whether it changed since the policy's last fetch of it.
//!
//! **Reads.** Host `h` is read at `(k + frac(h·φ))·S`, `k = 0, 1, …` (`φ` the golden ratio;
//! times `≤ 0` skipped), so that the reads of many hosts spread over each period instead of
//! firing together; every period visits the hosts in the same order (by phase, then index).
//! Reads cost no budget and no politeness (a sitemap fetch is not a page fetch), and they
//! change nothing of the truth: the local copy is what the last fetch got, so freshness stays
//! "1 until the first change after the last fetch" and the integrals of `process.rs` stay exact.
//!
//! **Coherence of the draws.** What a read says must be what the next fetch finds. The one
//! random quantity involved is the time `T` of the page's first change after its last fetch
//! `t0`, and it is drawn once:
//!
//! ```text
//! T = t0 + Exp(λ), drawn at the first read after t0 (or at the fetch, if no read came)   (6)
//! read at r:  changed  ⇔  T ≤ r                                                          (7)
//! fetch at t1: changed ⇔  T ≤ t1, fresh time min(T − t0, t1 − t0), (3)–(5) as before      (8)
//! ```
//!
//! A read that draws `T` keeps it (one `f64` per page, NaN when not drawn) and every later
//! read and the fetch use it, so a page told changed at `r` is found changed by its next fetch
//! (`T ≤ r ≤ t1`), and one told unchanged at `r` did not change in `(t0, r]`. `T` has the law
//! (1) gives it whichever moment draws it (the generator's numbers are independent of when
//! they are taken), and the policy's fetch times may depend on the reads, that is on `T`, as
//! a crawler's do: (8) is the truth for any fetch time, so the measurement is exact. A
//! periodic or bursty page needs no draw: its next change is already generated explicitly
//! (`process.rs`), and (7) compares it with `r`. A run whose reads all fall after the horizon
//! draws `T` at the fetch, from the same stream in the same order, and so is the run without
//! notifications, bit for bit.
//!
//! **Who hears them.** Only a policy that [`Policy::listens`] (`threshold`): the others run in
//! the plain loop of `simulate.rs` and measure the blind baseline with the same seed. A
//! listening policy is asked [`Policy::next_fetch_until`] the next read, so that it decides
//! each fetch knowing every read before it; reads at the time of a fetch come first.

use crate::error::{Result, SimError};
use crate::metrics::RunSummary;
use crate::model::Config;
use crate::policy::{NextFetch, Policy};
use crate::process::PageChanges;
use crate::rng::SimRng;
use crate::simulate::Run;

/// `φ − 1`: `frac(h·φ) = frac(h·(φ − 1))`.
const GOLDEN_FRACTION: f64 = 0.618_033_988_749_894_8;

/// The reads in time order: hosts with pages sorted by phase, visited once per period.
#[derive(Debug)]
struct ReadClock {
    interval: f64,
    horizon: f64,
    /// `(phase as a fraction of the period, host)`, sorted.
    order: Vec<(f64, u32)>,
    index: usize,
    period: u64,
}

impl ReadClock {
    fn new(config: &Config, interval: f64) -> Self {
        let mut has_pages = vec![false; config.hosts.len()];
        for page in &config.pages {
            if let Some(flag) = has_pages.get_mut(page.host as usize) {
                *flag = true;
            }
        }
        let mut order: Vec<(f64, u32)> = (0..config.hosts.len() as u32)
            .filter(|&host| has_pages.get(host as usize).copied().unwrap_or(false))
            .map(|host| ((f64::from(host) * GOLDEN_FRACTION).fract(), host))
            .collect();
        order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut clock = Self { interval, horizon: config.horizon, order, index: 0, period: 0 };
        while clock.time().is_some_and(|time| time <= 0.0) {
            clock.advance();
        }
        clock
    }

    /// The time of the current read (whatever the horizon), `None` without hosts.
    fn time(&self) -> Option<f64> {
        let &(phase, _) = self.order.get(self.index)?;
        Some((self.period as f64 + phase) * self.interval)
    }

    /// The next read before the horizon: `(time, host)`.
    fn peek(&self) -> Option<(f64, u32)> {
        let time = self.time().filter(|&time| time < self.horizon)?;
        self.order.get(self.index).map(|&(_, host)| (time, host))
    }

    fn advance(&mut self) {
        self.index += 1;
        if self.index >= self.order.len() {
            self.index = 0;
            self.period += 1;
        }
    }
}

/// One page's state: as `simulate.rs`'s record, and the first change drawn by a read.
struct Page {
    last_fetch: f64,
    weight: f64,
    changes: PageChanges,
    /// `T` of (6) once a read drew it; NaN before.
    drawn: f64,
}

/// The pages of each host, as a compressed list: host `h`'s are `pages[starts[h]..starts[h+1]]`.
struct HostPages {
    starts: Vec<usize>,
    pages: Vec<usize>,
}

impl HostPages {
    fn new(config: &Config) -> Self {
        let mut counts = vec![0usize; config.hosts.len() + 1];
        for page in &config.pages {
            if let Some(count) = counts.get_mut(page.host as usize + 1) {
                *count += 1;
            }
        }
        for host in 1..counts.len() {
            counts[host] += counts[host - 1];
        }
        let mut next = counts.clone();
        let mut pages = vec![0; config.pages.len()];
        for (index, page) in config.pages.iter().enumerate() {
            if let Some(slot) = next.get_mut(page.host as usize)
                && let Some(entry) = pages.get_mut(*slot)
            {
                *entry = index;
                *slot += 1;
            }
        }
        Self { starts: counts, pages }
    }

    fn of(&self, host: u32) -> &[usize] {
        let host = host as usize;
        match (self.starts.get(host), self.starts.get(host + 1)) {
            (Some(&start), Some(&end)) => self.pages.get(start..end).unwrap_or(&[]),
            _ => &[],
        }
    }
}

/// Reads `host` at `time`: each page's notice, by (6) and (7).
fn read<P: Policy + ?Sized>(
    policy: &mut P,
    pages: &mut [Page],
    host_pages: &HostPages,
    host: u32,
    time: f64,
    rng: &mut SimRng,
) {
    for &index in host_pages.of(host) {
        if let Some(page) = pages.get_mut(index) {
            let first = page.changes.first_change(page.last_fetch, &mut page.drawn, rng);
            policy.notified(index, first <= time, time);
        }
    }
}

/// The event loop of `simulate.rs` with reads every `interval` for a policy that listens.
pub(crate) fn run<P: Policy + ?Sized>(
    config: &Config,
    policy: &mut P,
    interval: f64,
    name: &str,
    rates: &str,
    seed: u64,
) -> Result<RunSummary> {
    let horizon = config.horizon;
    let Run { window, mut changes_rng, mut policy_rng, mut meters, mut metrics } = Run::new(config, seed);
    let mut pages: Vec<Page> = config
        .pages
        .iter()
        .map(|page| Page {
            last_fetch: 0.0,
            weight: page.weight,
            changes: PageChanges::new(&page.process, page.last_modified, &mut changes_rng),
            drawn: f64::NAN,
        })
        .collect();
    let host_pages = HostPages::new(config);
    let mut reads = ReadClock::new(config, interval);
    let mut now = 0.0;
    let observes = policy.observes();
    loop {
        let next_read = reads.peek();
        let until = next_read.map_or(f64::INFINITY, |(time, _)| time);
        let fetch = match policy.next_fetch_until(now, until, &mut policy_rng) {
            NextFetch::Fetch(fetch) => fetch,
            NextFetch::Done => break,
            // A wait with no read to come would ask again forever: the policy is done.
            NextFetch::Wait => match next_read {
                Some((time, host)) => {
                    now = time;
                    read(policy, &mut pages, &host_pages, host, time, &mut changes_rng);
                    reads.advance();
                    continue;
                }
                None => break,
            },
        };
        if fetch.time.is_nan() || fetch.time < now || fetch.page >= pages.len() {
            return Err(SimError::InvalidFetch { page: fetch.page, time: fetch.time, now });
        }
        if fetch.time >= horizon {
            break;
        }
        // A policy that did not stop at `until` (the trait's default) hears the reads up to its
        // fetch after deciding it.
        while let Some((time, host)) = reads.peek().filter(|&(time, _)| time <= fetch.time) {
            read(policy, &mut pages, &host_pages, host, time, &mut changes_rng);
            reads.advance();
        }
        let Some(page) = pages.get_mut(fetch.page) else {
            return Err(SimError::InvalidFetch { page: fetch.page, time: fetch.time, now });
        };
        now = fetch.time;
        let t0 = page.last_fetch;
        let changes = page.changes.interval_drawn(t0, now, page.drawn, &window, &mut changes_rng);
        page.drawn = f64::NAN;
        let changed = changes.first <= now;
        metrics.add_fetch(page.weight, t0, now, changes.first, changes.pending);
        page.last_fetch = now;
        meters.record(config, fetch.page, now);
        if observes {
            policy.observe(&page.changes.observation(fetch.page, t0, now, changed));
        }
    }
    for page in &mut pages {
        let t0 = page.last_fetch;
        let changes = page.changes.interval_drawn(t0, horizon, page.drawn, &window, &mut changes_rng);
        metrics.close(page.weight, t0, horizon, changes.first, changes.pending);
    }
    Ok(metrics.finish(name.to_owned(), rates.to_owned(), seed, meters.violations()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Host, SimPage};

    fn config(hosts: usize, interval: f64, horizon: f64) -> Config {
        let pages = (0..hosts as u32).map(|host| SimPage { host, ..SimPage::poisson(1.0, 1.0) }).collect();
        let mut config = Config::new(pages, 1.0, horizon);
        config.hosts = vec![Host::UNLIMITED; hosts];
        config.notify_interval = Some(interval);
        config
    }

    #[test]
    fn reads_come_in_time_order_each_host_once_per_period() {
        let mut clock = ReadClock::new(&config(10, 2.0, 20.0), 2.0);
        let mut last = 0.0;
        let mut per_host = [0u32; 10];
        while let Some((time, host)) = clock.peek() {
            assert!(time > last || (last == 0.0 && time > 0.0), "{time} after {last}");
            last = time;
            per_host[host as usize] += 1;
            clock.advance();
        }
        // Host 0 (phase 0) is first read at S, the others at their phase: 10 reads each in
        // [0, 20) but host 0's 9 (2, 4, …, 18).
        assert_eq!(per_host[0], 9);
        assert!(per_host[1..].iter().all(|&count| count == 10), "{per_host:?}");
    }

    #[test]
    fn host_pages_lists_each_page_under_its_host() {
        let mut config = config(3, 1.0, 1.0);
        config.pages.push(SimPage { host: 1, ..SimPage::poisson(1.0, 1.0) });
        let lists = HostPages::new(&config);
        assert_eq!(lists.of(0), &[0]);
        assert_eq!(lists.of(1), &[1, 3]);
        assert_eq!(lists.of(2), &[2]);
        assert!(lists.of(3).is_empty());
    }
}
