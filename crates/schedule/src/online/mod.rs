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
//!   the inequality holds in floating point) and after any back-off.
//! * **λ_0 is set by the budget.** The budget `k_0` is a token bucket of `burst` fetches; a
//!   fetch needs a token. `ln λ_0 = ln λ_ff + c + K_P·(½ − L/B)` (`budget.rs`): `λ_ff` solves
//!   seed 003's `Σ_i min(k_i, S_i(λ)) = k_0` (the batch solver's equation) by a Newton step per
//!   sweep over the pages, 2 page slots per `next` (4 while `λ_ff` moves) (`demand.rs`; whole sweeps at the first
//!   `next` without `initial_lambda0`); the bucket level `L` adds a small proportional term and
//!   a bounded integral `c` makes up what the model misses. Capped hosts count their capacity
//!   whatever `λ_0` is, so `λ_0` is set by the uncapped ones, as the seed says. When every host
//!   with pages is full and the budget still exceeds their capacities, the equation has no
//!   root and `λ_0` holds where the hosts fill (it used to sink toward 0: e^−221 at a crawl's
//!   first `next`, with one seed page, and the sweep's bounded steps took thousands of passes
//!   to recover); a crawler adding many pages calls [`Scheduler::resolve_lambda0`]. A controller
//!   that only watched the rate oscillated at the revisit period after a start with every
//!   copy fresh (the simulator's), and under-used the budget after a first crawl.
//! * **Tokens go by value.** Hosts that may serve within one token interval `1/k_0` contend for
//!   the next token by the value of their head page (seed 003: pages are served in order of
//!   value); while one token is left it waits for the host worth most. A flood of new pages on
//!   one host no longer takes the slots of a capped host whose pages are worth more.
//! * **λ_i emerges.** A host whose slot is free when its pages come due fetches each when
//!   `V ≥ λ_0`. A host whose slot is the bottleneck serves, whenever its slot opens, the head of
//!   its queue keyed under `λ_0 + λ_i`: the page that reached its threshold first, which is its
//!   page of highest value (seed 003's rule) for pages with equal `(w, λ)` (their curves are
//!   ordered by age) and close to it when `λ_i` is right. `λ_i` is the moving average of
//!   `max(0, V − λ_0)` over the pages a host served (1/16 weight per fetch), and drops to 0 when
//!   the slot opens with nothing worth a fetch (the capacity does not bind then).
//! * **Queues.** Each host keeps a binary heap of its pages keyed by the time their value
//!   reaches the host's threshold, `last + τ*(λ_0 + λ_i)` (a never-fetched page: its add time if
//!   `V(∞)` reaches it, else `∞`). A global indexed 4-ary heap (`quad_heap.rs`) holds each host
//!   at most once, keyed by the earliest time it may serve: `max(slot opens, head page reaches
//!   λ_0)`, and moves or removes its entry in place; hosts due within a token interval move to a
//!   heap of contenders keyed by their head page's value. Page entries and contenders are
//!   invalidated by generation counters and dropped lazily; per page the scheduler holds a
//!   24-byte slot and one live 16-byte heap entry (`page.rs`). Each host record (128 bytes, one
//!   aligned pair of cache lines) caches its queue's live head with that page's weight, change
//!   rate and last fetch, so that a look at a host whose head has not changed reads the record
//!   only, not the queue's buffer and then the page's slot (two dependent cache misses); the
//!   cache is dropped whenever the head changes, and changes no decision.
//!
//! # Exactness when thresholds move
//! Due times depend on thresholds that move, so keys go stale. What keeps them honest:
//! * Whether a host may serve *now* is always recomputed from the current `λ_0` when it surfaces
//!   (`host_ready_time`); keys only decide *when to look* and *in which order*.
//! * Host keys in the global heap are first computed with `0.9·λ_0`, so they surface early
//!   unless `λ_0` falls by more than 10%; a host that surfaces early is re-keyed exactly. If
//!   `λ_0` falls below the margin of any key, the global heap is rebuilt (`O(hosts)`, at most once
//!   per `hosts` fetches). Exactly re-keyed hosts can be late by the drift of `λ_0` until they
//!   surface: `λ_0` falls continuously while the bucket refills. `tests/online/behaviour.rs`
//!   measures this: about 0.2% (23 of 11,997) of `WaitUntil` answers came while `explain`
//!   called some page ready.
//! * Page keys in a host heap are computed with the host threshold of the moment they were
//!   pushed, and a heap is re-keyed when that threshold has moved by more than 5% (amortised:
//!   only after as many pushes as half its pages). So the order inside a host is exact for pages
//!   with equal `(w, λ)` (their curves are ordered by age, the seed's hint) and approximate
//!   otherwise. A fall past 10% re-keys at once (keys are late then); a rise leaves keys early,
//!   and the head refresh below keeps the head exact. A threshold below the `V(∞)` of a page
//!   keyed `∞` keys those pages again, and only those (`HostState::reveal_hidden`). No
//!   decision scans a host's pages (the first version scanned capacity-bound hosts for their
//!   highest value: `O(n_i)` per fetch, most of the time in `benches/online.rs`).
//! * A head whose key was computed under a lower threshold than now is pushed back with its
//!   fresh key before the host is judged (`HostState::fresh_head`, up to 16 heads, then a
//!   re-key): a head keyed just below its `V(∞)` used to park a host whose other pages were
//!   due, leaving the budget idle (on the simulator's single-host Fig. 1 sets, 0.9 of the
//!   fluid optimum at R = 5, 10).
//! * A host none of whose pages is worth a fetch at `λ_0` is parked, keyed by its best `V(∞)`,
//!   and woken when `λ_0` falls below that.
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

mod budget;
mod calendar;
mod census;
mod config;
mod decision;
mod demand;
mod dispatch;
mod error;
mod explain;
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
