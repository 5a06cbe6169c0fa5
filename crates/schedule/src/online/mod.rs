//! The online threshold scheduler of seed 003: fetch a page when its crawl value reaches its
//! host's threshold.
//!
//! Seed 003_aad34b8e7abe1f9a.txt turns the batch optimum into a stream: with `τ` the time since a
//! page's last fetch, its crawl value `V(τ) = C'(1/τ)` rises from 0 to `V(∞) = C'(0⁺)` (`w/λ`
//! for `freshness`), and the optimal policy fetches it when `V(τ) ≥ λ_i + λ_0`. A never-fetched
//! page competes with `V(∞)`, so discovery and revisits share one currency. [`Scheduler`] runs
//! that rule sans-IO: time is a parameter (`now`, in the unit of the change rates), nothing reads
//! a clock, does I/O, spawns a thread or draws a random number.
//!
//! # Verbs
//! [`Scheduler::set_host`] (politeness), [`Scheduler::add`] (a new page), [`Scheduler::restore`] (a
//! page fetched before, e.g. from a crawler's store), [`Scheduler::update`],
//! [`Scheduler::remove`]; [`Scheduler::next`] answers a [`Decision`] (fetch, wait until, idle);
//! [`Scheduler::fetched`] reports an [`Outcome`] and releases the host's slot;
//! [`Scheduler::explain`] says why a page is (not) fetched. They map onto URLFrontier's
//! `PutURLs` (add/update), `GetURLs` (next), `ack` (fetched) and `SetActive`/`SetDelay` (hosts).
//!
//! # Design
//! * **Politeness is a hard constraint.** A host starts a fetch only when no fetch of it is in
//!   flight, at least `max(min_delay, 1/max_rate)` after its previous start (rounded up so that
//!   the inequality holds in floating point) and after any back-off. A slot that opens within a
//!   rounding error after a token's time is waited for, so that it competes for that token.
//! * **λ_0 is set by the budget.** The budget `k_0` is a token bucket of `burst` fetches; a
//!   fetch needs a token. `ln λ_0 = ln λ_ff + c + K_P·(½ − L/B)` (`budget.rs`): `λ_ff` solves
//!   seed 003's `Σ_i min(k_i, S_i(λ)) = k_0` (the batch solver's equation) by a Newton step per
//!   sweep over the pages, 2 page slots per fetch `next` starts (4 while `λ_ff` moves) (`demand.rs`; whole sweeps at the first
//!   `next` without `initial_lambda0`); the bucket level `L` adds a small proportional term and
//!   a bounded integral `c` makes up what the model misses (an empty bucket raises it only in
//!   the share of tokens that went to pages fetched before: the demand of a first crawl is a
//!   transient the model leaves out, not a miss). Capped hosts count their capacity
//!   whatever `λ_0` is, so `λ_0` is set by the uncapped ones, as the seed says. When every host
//!   with pages is full and the budget still exceeds their capacities, the equation has no
//!   root and `λ_0` holds where the hosts fill (it used to sink toward 0: e^−221 at a crawl's
//!   first `next`, with one seed page, and the sweep's bounded steps took thousands of passes
//!   to recover); a crawler adding many pages calls [`Scheduler::resolve_lambda0`]. A controller
//!   that only watched the rate oscillated at the revisit period after a start with every
//!   copy fresh (the simulator's), and under-used the budget after a first crawl.
//! * **Tokens go by value.** Each free host offers its first eligible page; the offers wait in
//!   a heap by their crawl value, and the one worth most gets the next token (seed 003: pages
//!   are served in order of value). Values grow with time at different speeds, so the offers
//!   are ranked again by their value now once per `max(16, offers)` tokens, and an offer whose
//!   value fell below a risen `λ_0` goes back to the calendar when it is picked.
//! * **λ_i emerges.** A host whose slot is free when its pages reach `λ_0` fetches each then. A
//!   host whose slot is the bottleneck keeps its eligible pages (value at least `λ_0`) in a
//!   backlog and serves, whenever its slot opens, the one that reaches its threshold
//!   `λ_0 + λ_i` first: the page of highest value (seed 003's rule) for pages with equal
//!   `(w, λ)` (their curves are ordered by age) and close to it when `λ_i` is right; a page
//!   never fetched comes first (its value is its `V(∞)` already). `λ_i` is the moving average of
//!   `max(0, V − λ_0)` over the pages a host served (1/16 weight per fetch), and drops to 0 when
//!   the slot opens with nothing eligible (the capacity does not bind then).
//! * **Queues** (`calendar.rs`, `due.rs`, `host.rs`). A page is in exactly one place: in flight; in the
//!   **calendar**, keyed by the time its value reaches `λ_0` (`last + τ*(λ_0)`, one `G⁻¹` per
//!   fetch; a page never fetched with `V(∞) ≥ λ_0`: its add time); among the **hidden** pages,
//!   by `V(∞)`, if that is below `λ_0`, until `λ_0` falls below it; or, once its key has come and
//!   its value has reached `λ_0`, **with its host**, as the host's offer or in its backlog. The
//!   calendar is a calendar queue of buckets a few token intervals wide (near ring, coarse ring
//!   of epochs, overflow): a push appends to one of a few thousand vectors, and a bucket whose
//!   time has come is read front to back, its pages' slots and hosts' records touched in one
//!   pass so that their cache misses overlap, and its entries wait by key for the clock in a
//!   short sorted vector (a heap beyond 32). Hosts are looked at only when a page of theirs
//!   becomes eligible or their slot opens (a heap of slot-opening times holds the hosts with a
//!   backlog). A host's backlog (`backlog.rs`) is one vector holding a run in order of pages never
//!   fetched (a first crawl) and a binary heap of the rest, which alone its re-keying passes
//!   over. The offers wait in a 4-ary heap (`heap.rs`). Entries are invalidated by the page's generation and dropped when they surface;
//!   per page the scheduler holds a 24-byte slot and one live 16-byte entry (`page.rs`).
//!
//! # Exactness when thresholds move
//! Calendar keys depend on the `λ_0` of the moment they were computed, which moves:
//! * A key computed under a lower `λ_0` than now is early: the page surfaces, is found not yet
//!   worth a fetch (one `V` against `λ_0`), and is keyed again (`Stats::requeued`).
//! * A key computed under a higher `λ_0` than now is late by that drift. The bucket's
//!   proportional term moves `λ_0` by ±5% around its equilibrium; a fall past `LATE_KEY_MARGIN`
//!   (0.85) of the highest `λ_0` a key was computed with (a transient: after a first crawl,
//!   after a bulk update) rebuilds the calendar, `O(pages)`, when the bucket is full (the
//!   budget would go unused) or after `min(pages, max(hosts, 1024))` fetches since the last
//!   rebuild. `next` never waits past the time the bucket fills, so a fall of `λ_0` is looked
//!   at, nor, once it is full, past the time its unused tokens complete a pass of the demand
//!   sweep (which advances by them as by fetches, `budget.rs`), so that `λ_ff` comes down when
//!   nothing is fetched. `tests/online/behaviour.rs` measures the lateness that is left: how often `next` waits
//!   while `explain` finds a page worth `λ_0` on a free host.
//! * A page surfacing early by at most a twentieth of its age (`keys.rs`,
//!   `SURFACE_EARLINESS`) goes to its host as if its key were right: without it, 0.35–0.79
//!   pages per fetch went back to the calendar in the bench's steady state as `λ_0` rose a
//!   little since their keys. A margin in time, not in value: near the cutoff a value margin is
//!   a large time margin.
//! * A value within 1% under `λ_0` counts as reaching it (`keys.rs`, `THRESHOLD_TOLERANCE`):
//!   every token taken raises `λ_0` by about 0.16% (the proportional term over a 64-token
//!   bucket), and without the margin a page found worth a fetch when its key came would go back
//!   to the calendar because of the fetch started just before it.
//! * An offer already made holds while its value stays within 5% under `λ_0` (`keys.rs`,
//!   `OFFER_TOLERANCE`, the proportional term's swing): while the budget was short, every token
//!   raised `λ_0` past the pages just offered at it, and they went back to the calendar (2.05
//!   offers withdrawn per fetch after the bench's first crawl).
//! * Backlog keys are computed with the host threshold of the moment they were pushed, and the
//!   backlog is re-keyed when that threshold has moved by more than 5%.
//! * The whole calendar is keyed again by [`Scheduler::set_lambda0`] and
//!   [`Scheduler::resolve_lambda0`] (and at the first `next`).
//!
//! # Measured (tests/online)
//! 50 pages on 50 uncapped hosts, budget 10, 5,000 time units: fetch rate 9.9998, mean `λ_0`
//! within 0.01% of `freshet_policy::solve`'s, every page's rate within 0.2% except at the cutoff
//! (`V(∞)` within 5% of `λ_0`, where the optimal rate jumps to 0 and is reported, not asserted).
//! 400 pages on 4 hosts, one capped at half its demand: that host gets its capacity to 0.01%,
//! `λ_0` within 0.3%, its threshold `λ_0 + λ_i` within 3% of the solver's and page rates within
//! 5%: the seed's rule hands out whole slots, so rates are quantised (a page's period is a whole
//! number of the host's gaps).
//!
//! # Example
//! ```
//! use freshet_schedule::online::{Budget, Decision, HostId, Outcome, PageId, Politeness, Scheduler};
//!
//! // 10 fetches per unit time, starting from λ_0 = 1 (else: half the pages' mean V(∞)).
//! let budget = Budget { initial_lambda0: Some(1.0), ..Budget::new(10.0) };
//! let mut scheduler = Scheduler::freshness(budget)?;
//! scheduler.set_host(HostId(0), Politeness { min_delay: 0.5, max_rate: f64::INFINITY })?;
//! scheduler.add(PageId(0), HostId(0), 1.0, 0.2, 0.0)?;
//! scheduler.add(PageId(1), HostId(0), 2.0, 0.1, 0.0)?;
//! // Both are new and worth more than λ_0 (w/λ = 5 and 20): both are due at once.
//! let Decision::Fetch { page, .. } = scheduler.next(0.0) else { unreachable!("both are due") };
//! scheduler.fetched(page, Outcome::Fetched, 0.1)?;
//! // The host's gap holds the other page back until 0.5.
//! assert_eq!(scheduler.next(0.1), Decision::WaitUntil(0.5));
//! let why = scheduler.explain(PageId(1 - page.0), 0.1)?;
//! assert!(why.value >= why.lambda0);
//! # Ok::<(), freshet_schedule::online::OnlineError>(())
//! ```

mod backlog;
mod budget;
mod calendar;
mod census;
mod config;
mod decision;
mod demand;
mod dispatch;
mod due;
mod error;
mod explain;
mod heap;
mod host;
mod ids;
mod keys;
mod page;
mod scheduler;

pub use census::{Census, HostNumbers};
pub use config::{Budget, Politeness};
pub use decision::{Decision, Outcome};
pub use error::{OnlineError, OnlineResult};
pub use explain::{Explanation, Status};
pub use ids::{HostId, PageId};
pub use scheduler::{Scheduler, Stats};
