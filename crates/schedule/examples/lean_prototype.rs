//! A design experiment for issue 3's scheduler target (10^6 `next`/`fetched` pairs per second
//! at 10^7 pages on 10^5 hosts): a *prototype* of a leaner online scheduler, run on the instance
//! of `benches/online.rs`, to measure what the redesign sketched in BENCHMARKS.md ("Online
//! scheduler") can reach before it is built into [`freshet_schedule::online::Scheduler`].
//!
//! **Not the library's scheduler**, and not used by anything: no `explain`, `update`, `remove`,
//! back-off, several slots per host, parked hosts, or demand sweep (`λ_ff` stays at the
//! solver's `λ_0`, as the bench's warm start gives it; the bucket's proportional term and the
//! bounded integral of `budget.rs` are copied). What it keeps of seed 003 (003_aad34b8e7abe1f9a.txt):
//! a page is fetched once its crawl value reaches `λ_0`; a host whose slot is busy serves the
//! page that became eligible first; tokens go to the eligible page worth most.
//!
//! The design under test:
//! * each page's **due time is computed once per fetch** (one `G⁻¹`) under `margin·λ_0` and
//!   queued in a **calendar queue** (a near ring of per-bucket vectors, a coarse ring of
//!   per-epoch vectors, an overflow vector): pushes append to one of a few thousand vectors,
//!   pops read a bucket front to back;
//! * a page that surfaces is checked **exactly** (`V(now − last) ≥ λ_0`, one `exp`); if it is
//!   not yet worth a fetch (λ_0 rose, or the margin), its exact due time under today's `λ_0`
//!   is queued again;
//! * **hosts are looked at only when a page of theirs is eligible**: a free host's page goes to
//!   a small heap of ready pages by value; a busy host keeps its eligible pages in a heap of its
//!   own (by eligibility time) until its slot opens.
//!
//! ```text
//! cargo run --release -p freshet-schedule --example lean_prototype -- PAGES PAIRS MARGIN
//! ```
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::cast_possible_truncation)]

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::time::Duration;

use freshet_policy::objective::Freshness;
use freshet_policy::{Objective, Page, Problem, crawl_value, solve, time_to_reach};

const HOSTS: u32 = 100_000;
const BATCH_TOUCH: bool = true;

struct SplitMix(u64);

impl SplitMix {
    fn next_f64(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn cpu_time() -> Duration {
    let schedstat = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap();
    Duration::from_nanos(schedstat.split_whitespace().next().unwrap().parse().unwrap())
}

/// One page: 24 bytes, as `page.rs`'s slot.
#[derive(Clone, Copy)]
struct Slot {
    weight: f32,
    change_rate: f32,
    /// Start of the last fetch (`-∞` never fetched).
    last: f64,
    host: u32,
    /// Generation of the live calendar entry; the top bit: in flight.
    state: u32,
}

const IN_FLIGHT: u32 = 1 << 31;

impl Slot {
    fn page(&self) -> Page {
        Page::new(f64::from(self.weight), f64::from(self.change_rate))
    }
    fn value(&self, now: f64) -> f64 {
        if self.last == f64::NEG_INFINITY {
            Freshness.marginal_at_zero(self.page())
        } else {
            crawl_value(Freshness, self.page(), now - self.last)
        }
    }
    fn due(&self, threshold: f64) -> f64 {
        if self.last == f64::NEG_INFINITY {
            if Freshness.marginal_at_zero(self.page()) >= threshold { f64::NEG_INFINITY } else { f64::INFINITY }
        } else {
            self.last + time_to_reach(Freshness, self.page(), threshold)
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    key: f64,
    page: u32,
    generation: u32,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key.total_cmp(&other.key).then(self.page.cmp(&other.page))
    }
}

const NEAR_BITS: u32 = 14;
const NEAR: usize = 1 << NEAR_BITS;
const COARSE: usize = 1 << 12;

/// The calendar queue: absolute bucket `a = floor(key / width)`; the near ring holds the
/// current epoch (`a >> NEAR_BITS == epoch`), the coarse ring the next `COARSE` epochs, the
/// overflow the rest; entries at or before the cursor go to `due`, a heap by key.
struct Calendar {
    width: f64,
    cursor: i64,
    near: Vec<Vec<Entry>>,
    coarse: Vec<Vec<Entry>>,
    overflow: Vec<Entry>,
    due: BinaryHeap<Reverse<Entry>>,
    /// Entries just taken out of their buckets, for the owner to look at in one batch.
    fresh: Vec<Entry>,
    len: usize,
}

impl Calendar {
    fn new(width: f64) -> Self {
        Self {
            width,
            cursor: 0,
            near: (0..NEAR).map(|_| Vec::new()).collect(),
            coarse: (0..COARSE).map(|_| Vec::new()).collect(),
            overflow: Vec::new(),
            due: BinaryHeap::new(),
            fresh: Vec::new(),
            len: 0,
        }
    }

    fn bucket(&self, key: f64) -> i64 {
        let bucket = (key / self.width).floor();
        if bucket < -9.0e15 { i64::MIN / 2 } else if bucket > 9.0e15 { i64::MAX / 2 } else { bucket as i64 }
    }

    fn push(&mut self, entry: Entry) {
        self.len += 1;
        let bucket = self.bucket(entry.key);
        if bucket <= self.cursor {
            self.due.push(Reverse(entry));
            return;
        }
        let epoch = bucket >> NEAR_BITS;
        let current = self.cursor >> NEAR_BITS;
        if epoch == current {
            self.near[(bucket as usize) & (NEAR - 1)].push(entry);
        } else if epoch - current < COARSE as i64 {
            self.coarse[(epoch as usize) & (COARSE - 1)].push(entry);
        } else {
            self.overflow.push(entry);
        }
    }

    /// Moves every entry of buckets up to `now`'s into `due`.
    fn advance(&mut self, now: f64) {
        let target = self.bucket(now);
        while self.cursor < target {
            self.cursor += 1;
            if self.cursor & (NEAR as i64 - 1) == 0 {
                self.enter_epoch();
            }
            let bucket = &mut self.near[(self.cursor as usize) & (NEAR - 1)];
            self.fresh.extend(bucket.drain(..));
        }
    }

    fn enter_epoch(&mut self) {
        let epoch = self.cursor >> NEAR_BITS;
        if epoch as usize & (COARSE - 1) == 0 {
            let overflow = std::mem::take(&mut self.overflow);
            self.len -= overflow.len();
            for entry in overflow {
                self.push(entry);
            }
        }
        let moving = std::mem::take(&mut self.coarse[(epoch as usize) & (COARSE - 1)]);
        for entry in &moving {
            let bucket = self.bucket(entry.key).max(self.cursor);
            if bucket == self.cursor {
                self.fresh.push(*entry);
            } else {
                self.near[(bucket as usize) & (NEAR - 1)].push(*entry);
            }
        }
    }

    fn pop_due(&mut self, now: f64) -> Option<Entry> {
        if self.due.peek().is_some_and(|Reverse(entry)| entry.key <= now) {
            self.len -= 1;
            return self.due.pop().map(|Reverse(entry)| entry);
        }
        None
    }

    /// A time no later than the next entry's key (the next bucket's start if `due` is empty).
    fn next_time(&self) -> f64 {
        match self.due.peek() {
            Some(Reverse(entry)) => entry.key,
            None => (self.cursor + 1) as f64 * self.width,
        }
    }
}

#[derive(Clone, Default)]
struct Host {
    gap: f64,
    last_start: f64,
    free_at: f64,
    busy: bool,
    /// Eligible pages waiting for the slot, by eligibility time.
    backlog: BinaryHeap<Reverse<Entry>>,
    in_timer: bool,
}

/// Ready pages by value (`Entry::key` holds the value).
struct Lean {
    pages: Vec<Slot>,
    hosts: Vec<Host>,
    calendar: Calendar,
    ready: BinaryHeap<Entry>,
    /// Hosts with a backlog whose slot opens later, by `free_at`.
    timer: BinaryHeap<Reverse<(u64, u32)>>,
    margin: f64,
    // The budget controller of `budget.rs` (λ_ff fixed).
    rate: f64,
    burst: f64,
    level: f64,
    log_feedforward: f64,
    log_correction: f64,
    lambda0: f64,
    clock: f64,
    fetches: u64,
    requeued: u64,
}

enum Decision {
    Fetch(u32),
    WaitUntil(f64),
}

impl Lean {
    fn controller_advance(&mut self, elapsed: f64) {
        if elapsed <= 0.0 {
            return;
        }
        let start = self.level;
        let fill_time = (self.burst - start) / self.rate;
        let rising = elapsed.min(fill_time);
        let end = start + self.rate * rising;
        let error = rising * (0.5 - (start + end) / (2.0 * self.burst)) - 0.5 * (elapsed - rising).max(0.0);
        // Horizon: the bench's revisit period scale (10 units).
        self.log_correction = (self.log_correction + 0.2 * error / 10.0).clamp(-0.25, 0.25);
        self.level = (start + self.rate * elapsed).min(self.burst);
        self.lambda0 =
            (self.log_feedforward + self.log_correction + 0.1 * (0.5 - self.level / self.burst)).exp();
    }

    fn advance(&mut self, now: f64) {
        if now > self.clock {
            self.controller_advance(now - self.clock);
            self.clock = now;
        }
    }

    fn queue(&mut self, page: u32) {
        let slot = &mut self.pages[page as usize];
        slot.state = (slot.state + 1) & !IN_FLIGHT;
        let key = slot.due(self.lambda0 * self.margin);
        if key.is_finite() || key == f64::NEG_INFINITY {
            let generation = slot.state;
            self.calendar.push(Entry { key: key.max(-1.0e300), page, generation });
        }
    }

    /// Reads the slots and host records of the entries just taken out of the calendar, one
    /// after another with no dependence between them (so that their cache misses overlap), and
    /// queues the entries by key.
    fn take_fresh(&mut self) {
        let mut fresh = std::mem::take(&mut self.calendar.fresh);
        let mut touched = 0.0;
        if BATCH_TOUCH {
            for entry in &fresh {
                let slot = &self.pages[entry.page as usize];
                touched += self.hosts[slot.host as usize].free_at;
            }
        }
        std::hint::black_box(touched);
        for entry in fresh.drain(..) {
            self.calendar.due.push(Reverse(entry));
        }
        self.calendar.fresh = fresh;
    }

    fn surface(&mut self) {
        self.take_fresh();
        let now = self.clock;
        while let Some(entry) = self.calendar.pop_due(now) {
            let slot = self.pages[entry.page as usize];
            if slot.state != entry.generation {
                continue;
            }
            let value = slot.value(now);
            if value < self.lambda0 {
                self.requeued += 1;
                let key = slot.due(self.lambda0);
                if key.is_finite() {
                    self.calendar.push(Entry { key, ..entry });
                }
                continue;
            }
            let host = &mut self.hosts[slot.host as usize];
            if !host.busy && host.free_at <= now {
                self.ready.push(Entry { key: value, ..entry });
            } else {
                host.backlog.push(Reverse(entry));
                if !host.in_timer && !host.busy {
                    host.in_timer = true;
                    self.timer.push(Reverse((host.free_at.to_bits(), slot.host)));
                }
            }
        }
        while let Some(&Reverse((free_at, host))) = self.timer.peek() {
            if f64::from_bits(free_at) > now {
                break;
            }
            self.timer.pop();
            let state = &mut self.hosts[host as usize];
            state.in_timer = false;
            if let Some(Reverse(entry)) = state.backlog.pop() {
                let slot = self.pages[entry.page as usize];
                if slot.state == entry.generation {
                    self.ready.push(Entry { key: slot.value(now), ..entry });
                }
            }
        }
    }

    fn next(&mut self, now: f64) -> Decision {
        self.advance(now);
        self.calendar.advance(self.clock);
        self.surface();
        loop {
            let Some(best) = self.ready.peek().copied() else {
                let mut wake = self.calendar.next_time();
                if let Some(&Reverse((free_at, _))) = self.timer.peek() {
                    wake = wake.min(f64::from_bits(free_at));
                }
                return Decision::WaitUntil(if wake > self.clock { wake } else { self.clock.next_up() });
            };
            if self.level < 1.0 {
                let time = self.clock + (1.0 - self.level) / self.rate;
                return Decision::WaitUntil(if time > self.clock { time } else { self.clock.next_up() });
            }
            self.ready.pop();
            let slot = self.pages[best.page as usize];
            if slot.state != best.generation {
                continue;
            }
            let host = &mut self.hosts[slot.host as usize];
            if host.busy || host.free_at > self.clock {
                // Another page of the host started first: wait for the slot.
                host.backlog.push(Reverse(Entry { key: self.clock, ..best }));
                if !host.busy && !host.in_timer {
                    host.in_timer = true;
                    self.timer.push(Reverse((host.free_at.to_bits(), slot.host)));
                }
                continue;
            }
            host.busy = true;
            host.last_start = self.clock;
            self.pages[best.page as usize].state |= IN_FLIGHT;
            self.level -= 1.0;
            self.fetches += 1;
            return Decision::Fetch(best.page);
        }
    }

    fn fetched(&mut self, page: u32, now: f64) {
        self.advance(now);
        let host_id = self.pages[page as usize].host;
        let host = &mut self.hosts[host_id as usize];
        host.busy = false;
        host.free_at = (host.last_start + host.gap).max(self.clock);
        let started = host.last_start;
        if !host.backlog.is_empty() && !host.in_timer {
            host.in_timer = true;
            self.timer.push(Reverse((host.free_at.to_bits(), host_id)));
        }
        self.pages[page as usize].last = started;
        self.queue(page);
    }

    fn freshness(&self, now: f64) -> f64 {
        let (mut fresh, mut weights) = (0.0, 0.0);
        for slot in &self.pages {
            weights += f64::from(slot.weight);
            if slot.last > f64::NEG_INFINITY {
                fresh += f64::from(slot.weight) * (-f64::from(slot.change_rate) * (now - slot.last).max(0.0)).exp();
            }
        }
        fresh / weights
    }

    fn allocated(&self) -> usize {
        self.pages.capacity() * size_of::<Slot>()
            + self.hosts.capacity() * size_of::<Host>()
            + self.hosts.iter().map(|host| host.backlog.capacity() * size_of::<Entry>()).sum::<usize>()
            + (self.calendar.near.iter().chain(&self.calendar.coarse))
                .map(|bucket| bucket.capacity() * size_of::<Entry>() + size_of::<Vec<Entry>>())
                .sum::<usize>()
            + self.calendar.overflow.capacity() * size_of::<Entry>()
            + self.calendar.due.capacity() * size_of::<Entry>()
    }
}

fn drive(lean: &mut Lean, now: &mut f64, pairs: u64) -> u64 {
    let mut done = 0;
    while done < pairs {
        match lean.next(*now) {
            Decision::Fetch(page) => {
                lean.fetched(page, *now);
                done += 1;
            }
            Decision::WaitUntil(time) => *now = time.max(*now),
        }
    }
    done
}

fn main() {
    let mut args = std::env::args().skip(1);
    let pages: u32 = args.next().and_then(|arg| arg.parse().ok()).unwrap_or(1_000_000);
    let long_pairs: u64 = args.next().and_then(|arg| arg.parse().ok()).unwrap_or(10_000_000);
    let margin: f64 = args.next().and_then(|arg| arg.parse().ok()).unwrap_or(0.9);
    let mut rng = SplitMix(42);
    let mut instance = Vec::with_capacity(pages as usize);
    let mut host_of_page = Vec::with_capacity(pages as usize);
    for _ in 0..pages {
        let weight = 1.0 / (1.0 + rng.next_f64() * 1000.0);
        let change_rate = 10f64.powf(-3.0 + 3.0 * rng.next_f64());
        instance.push(Page::new(weight, change_rate));
        host_of_page.push((rng.next_f64() * f64::from(HOSTS)) as u32);
    }
    let capacity: Vec<f64> = (0..HOSTS).map(|host| if host % 10 == 0 { 5.0 } else { f64::INFINITY }).collect();
    let budget = f64::from(pages) / 10.0;
    let solution = solve(Freshness, &Problem::host_capped(&instance, budget, &host_of_page, &capacity)).unwrap();
    let optimum = instance.iter().zip(&solution.rates).map(|(page, &rate)| Freshness.value(*page, rate)).sum::<f64>()
        / instance.iter().map(|page| page.weight).sum::<f64>();
    eprintln!("solver: λ_0 {:.4e}, freshness {optimum:.4}", solution.lambda0);
    let burst = (budget / 100.0).max(8.0);
    let mut lean = Lean {
        pages: instance
            .iter()
            .zip(&host_of_page)
            .map(|(page, &host)| Slot {
                weight: page.weight as f32,
                change_rate: page.change_rate as f32,
                last: f64::NEG_INFINITY,
                host,
                state: 0,
            })
            .collect(),
        hosts: capacity.iter().map(|&cap| Host { gap: 1.0 / cap, ..Host::default() }).collect(),
        calendar: Calendar::new(4.0 / budget),
        ready: BinaryHeap::new(),
        timer: BinaryHeap::new(),
        margin,
        rate: budget,
        burst,
        level: burst / 2.0,
        log_feedforward: solution.lambda0.ln(),
        log_correction: 0.0,
        lambda0: solution.lambda0,
        clock: 0.0,
        fetches: 0,
        requeued: 0,
    };
    drop((instance, host_of_page));
    for page in 0..pages {
        lean.queue(page);
    }
    let mut now = 0.0;
    let cpu = cpu_time();
    let first = drive(&mut lean, &mut now, u64::from(pages));
    let first_cpu = cpu_time() - cpu;
    eprintln!(
        "first {first} pairs: {:.0} per CPU second; λ_0 {:.4e}; allocated {:.1} B/page",
        first as f64 / first_cpu.as_secs_f64(),
        lean.lambda0,
        lean.allocated() as f64 / f64::from(pages)
    );
    let (start, requeued) = (now, lean.requeued);
    let cpu = cpu_time();
    let pairs = drive(&mut lean, &mut now, long_pairs);
    let cpu = cpu_time() - cpu;
    eprintln!(
        "steady state: {pairs} pairs: {:.0} per CPU second; {:.0} fetches per unit (budget {budget}); \
         λ_0 / solver's {:.4}; requeued per pair {:.3}; freshness {:.4} = {:.4} of the solver's; allocated {:.1} B/page",
        pairs as f64 / cpu.as_secs_f64(),
        pairs as f64 / (now - start),
        lean.lambda0 / solution.lambda0,
        (lean.requeued - requeued) as f64 / pairs as f64,
        lean.freshness(now),
        lean.freshness(now) / optimum,
        lean.allocated() as f64 / f64::from(pages)
    );
}
