//! Per-page change state: what changed between two fetches, computed exactly per interval.
//!
//! **Poisson pages are never simulated change by change.** At a fetch after an interval
//! `Δ = t1 − t0` (the copy was synchronised at `t0`), the first change after `t0` is at
//! `t0 + T1` with `T1 ~ Exp(λ)` (memorylessness; changes before `t0` do not matter). Then:
//!
//! ```text
//! changed            = T1 < Δ                                                      (1)
//! fresh time         = min(T1, Δ)                                                  (2)
//! ∫ age dt           = (Δ − T1)²/2  if T1 < Δ (age = time since the first unseen change) (3)
//! E[pending(t) | T1] = 1 + λ(t − t0 − T1)  for t > t0 + T1                         (4)
//! Last-Modified age  = min(E, Δ − T1),  E ~ Exp(λ)  if T1 < Δ                      (5)
//! ```
//!
//! (4): after the first change the others form a Poisson process of rate `λ` on
//! `(t0 + T1, t1]`, so the number of changes not yet seen at `t` has that conditional
//! expectation. The delay integral `∫ pending dt` ("total delay", seed 004: each change waits
//! from its time to its discovery) is accumulated as this conditional expectation given `T1`
//! (a Rao–Blackwellised, unbiased estimate with less variance than sampling the count).
//! (5): looking back from `t1`, the changes in `(t0 + T1, t1]` are again a Poisson process of
//! rate `λ`, so the time back to the last one is `Exp(λ)` unless there is none in that span,
//! in which case the last change is the first: `Δ − T1`. It is drawn only for pages that
//! report Last-Modified.
//!
//! With change notifications a read may draw `T1` before the fetch, once, and the fetch then
//! uses it (`notify.rs`, (6)–(8)), so that what the read told and what the fetch finds agree.
//!
//! Periodic and bursty pages change rarely between fetches of any sensible policy, so their
//! change times are generated explicitly, one at a time, and every integral is summed exactly.
//! All integrals are clipped to the measured window.

use crate::model::ChangeProcess;
use crate::policy::Observation;
use crate::rng::SimRng;

/// The measured window `[start, end)` of the simulation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Window {
    pub(crate) start: f64,
    pub(crate) end: f64,
}

impl Window {
    /// The part of `[from, to)` inside the window, as `(lo, hi)`; empty when `hi ≤ lo`.
    ///
    /// Plain comparisons rather than `f64::max`/`min` (the same results here, NaN included:
    /// a NaN bound gives the window's; fewer instructions in the simulator's loop).
    #[inline]
    pub(crate) fn clip(&self, from: f64, to: f64) -> (f64, f64) {
        (if from > self.start { from } else { self.start }, if to < self.end { to } else { self.end })
    }
}

/// What happened to a page between two fetches (or a fetch and the end of the horizon).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct IntervalChanges {
    /// Time of the first change in `(t0, t1]`; `+∞` if none.
    pub(crate) first: f64,
    /// `∫ pending dt` over the interval, clipped to the window (see the module docs).
    pub(crate) pending: f64,
}

/// Change state of one page.
///
/// Small (16 bytes), because the simulator touches one page's state per fetch in an order
/// that jumps over all pages: a Poisson page that does not report Last-Modified keeps only
/// its rate inline, and everything else (the time of the last change, an explicit process's
/// state) lives behind a pointer. With the page's last fetch and weight that makes the
/// simulator's per-page record 32 bytes, two to a cache line (`BENCHMARKS.md`, "The
/// simulator").
#[derive(Debug, Clone)]
pub(crate) struct PageChanges {
    kind: Kind,
}

#[derive(Debug, Clone)]
enum Kind {
    /// A Poisson page without Last-Modified: nothing but its rate is needed.
    Poisson {
        rate: f64,
    },
    /// A Poisson page that reports Last-Modified.
    PoissonLastModified(Box<PoissonLastModified>),
    Explicit(Box<ExplicitPage>),
}

#[derive(Debug, Clone)]
struct PoissonLastModified {
    rate: f64,
    /// Time of the latest change at or before the last processed instant (0 initially: the
    /// page counts as created at time 0), drawn by (5).
    last_change: f64,
}

#[derive(Debug, Clone)]
struct ExplicitPage {
    process: Explicit,
    /// Time of the latest change at or before the last processed instant (0 initially), kept
    /// exactly.
    last_change: f64,
    /// Whether the page reports Last-Modified.
    track_last: bool,
}

#[derive(Debug, Clone)]
enum Explicit {
    Periodic { period: f64, jitter: f64, phase: f64, index: u64, next: f64 },
    Bursty { on_rate: f64, mean_on: f64, mean_off: f64, on: bool, phase_end: f64, next: f64 },
}

impl PageChanges {
    /// State at time 0 for `process`; draws phases from `rng`. `track_last`: whether the
    /// time of the last change is needed (pages that report Last-Modified).
    pub(crate) fn new(process: &ChangeProcess, track_last: bool, rng: &mut SimRng) -> Self {
        let explicit =
            |process| Kind::Explicit(Box::new(ExplicitPage { process, last_change: 0.0, track_last }));
        let kind = match *process {
            ChangeProcess::Poisson { rate } if track_last => {
                Kind::PoissonLastModified(Box::new(PoissonLastModified { rate, last_change: 0.0 }))
            }
            ChangeProcess::Poisson { rate } => Kind::Poisson { rate },
            ChangeProcess::Periodic { rate, jitter } => {
                let period = 1.0 / rate;
                let phase = rng.uniform();
                let next = period * (phase + jitter * rng.uniform());
                explicit(Explicit::Periodic { period, jitter, phase, index: 0, next })
            }
            ChangeProcess::Bursty { rate, mean_on, mean_off } => {
                let on_rate = rate * (mean_on + mean_off) / mean_on;
                let on = rng.uniform() < mean_on / (mean_on + mean_off);
                let phase_end = rng.exponential(1.0 / if on { mean_on } else { mean_off });
                let mut bursty = Explicit::Bursty { on_rate, mean_on, mean_off, on, phase_end, next: 0.0 };
                advance_bursty(&mut bursty, 0.0, rng);
                explicit(bursty)
            }
        };
        Self { kind }
    }

    /// Time of the latest change at or before the last processed interval end (0 for a page
    /// whose last change is not kept: a Poisson page without Last-Modified).
    pub(crate) fn last_change(&self) -> f64 {
        match &self.kind {
            Kind::Poisson { .. } => 0.0,
            Kind::PoissonLastModified(page) => page.last_change,
            Kind::Explicit(page) => page.last_change,
        }
    }

    /// Whether the time of the last change is kept (the page reports Last-Modified).
    pub(crate) fn tracks_last(&self) -> bool {
        match &self.kind {
            Kind::Poisson { .. } => false,
            Kind::PoissonLastModified(_) => true,
            Kind::Explicit(page) => page.track_last,
        }
    }

    /// The changes in `(t0, t1]`, given that the copy was synchronised at `t0` and that every
    /// earlier interval of this page has been processed. Integrals are clipped to `window`.
    #[inline(always)]
    pub(crate) fn interval(
        &mut self,
        t0: f64,
        t1: f64,
        window: &Window,
        rng: &mut SimRng,
    ) -> IntervalChanges {
        // NaN: nothing drawn yet (a constant once inlined, so the check folds away).
        self.interval_drawn(t0, t1, f64::NAN, window, rng)
    }
}

/// The changes of a Poisson page of rate `rate` in `(t0, t1]`, (4) integrated, given the time
/// `first` of the first change after the copy's sync at `t0` ((1): `t0 + Exp(rate)`).
#[inline(always)]
fn poisson_after(rate: f64, first: f64, t1: f64, window: &Window) -> IntervalChanges {
    if first >= t1 {
        return IntervalChanges { first: f64::INFINITY, pending: 0.0 };
    }
    let (lo, hi) = window.clip(first, t1);
    // (4) integrated: ∫_lo^hi 1 + λ(t − first) dt.
    let pending = if hi > lo { (hi - lo) * (1.0 + 0.5 * rate * (hi + lo - 2.0 * first)) } else { 0.0 };
    IntervalChanges { first, pending }
}

impl PageChanges {
    /// What a fetch at `now` of this page, synchronised at `t0`, lets a policy see: whether
    /// it changed since, and the age of its Last-Modified where the process reports one.
    #[inline]
    pub(crate) fn observation(&self, page: usize, t0: f64, now: f64, changed: bool) -> Observation {
        let last_modified_age = self.tracks_last().then(|| now - self.last_change());
        Observation { page, time: now, interval: now - t0, changed, last_modified_age }
    }

    /// For a read of the page's host (`notify.rs`): the time of the first change after the
    /// copy's sync at `t0`, the same one the next fetch will find. An explicit process knows it
    /// (its next change); a Poisson page's is drawn here, `t0 + Exp(λ)` as (1) would draw it at
    /// the fetch, unless an earlier read drew it (`*drawn` not NaN), and kept in `*drawn` for
    /// [`PageChanges::interval_drawn`].
    pub(crate) fn first_change(&self, t0: f64, drawn: &mut f64, rng: &mut SimRng) -> f64 {
        let rate = match &self.kind {
            Kind::Poisson { rate } => *rate,
            Kind::PoissonLastModified(page) => page.rate,
            Kind::Explicit(page) => {
                return match page.process {
                    Explicit::Periodic { next, .. } | Explicit::Bursty { next, .. } => next,
                };
            }
        };
        if drawn.is_nan() {
            *drawn = t0 + rng.exponential(rate);
        }
        *drawn
    }

    /// [`PageChanges::interval`] for a page whose first change after `t0` a read may have
    /// drawn already ([`PageChanges::first_change`]; NaN: not drawn, then drawn here as
    /// `interval` draws it, from the same stream, so a run without reads draws the same
    /// numbers).
    #[inline(always)]
    pub(crate) fn interval_drawn(
        &mut self,
        t0: f64,
        t1: f64,
        drawn: f64,
        window: &Window,
        rng: &mut SimRng,
    ) -> IntervalChanges {
        // (1), unless a read drew the first change already.
        let first =
            |rate: f64, rng: &mut SimRng| if drawn.is_nan() { t0 + rng.exponential(rate) } else { drawn };
        match &mut self.kind {
            Kind::Poisson { rate } => poisson_after(*rate, first(*rate, rng), t1, window),
            Kind::PoissonLastModified(page) => {
                let changes = poisson_after(page.rate, first(page.rate, rng), t1, window);
                if changes.first.is_finite() {
                    // (5)
                    page.last_change = t1 - rng.exponential(page.rate).min(t1 - changes.first);
                }
                changes
            }
            Kind::Explicit(page) => {
                let ExplicitPage { process, last_change, .. } = &mut **page;
                explicit_interval(process, last_change, t1, window, rng)
            }
        }
    }
}

/// The changes of an explicit process up to `t1`, one at a time; `last_change` follows them.
#[inline(never)]
fn explicit_interval(
    explicit: &mut Explicit,
    last_change: &mut f64,
    t1: f64,
    window: &Window,
    rng: &mut SimRng,
) -> IntervalChanges {
    let mut first = f64::INFINITY;
    let mut pending = 0.0;
    loop {
        let next = match &*explicit {
            Explicit::Periodic { next, .. } | Explicit::Bursty { next, .. } => *next,
        };
        if next > t1 {
            break;
        }
        if first.is_infinite() {
            first = next;
        }
        let (lo, hi) = window.clip(next, t1);
        if hi > lo {
            pending += hi - lo;
        }
        *last_change = next;
        match &mut *explicit {
            Explicit::Periodic { period, jitter, phase, index, next } => {
                *index += 1;
                *next = *period * (*phase + *index as f64 + *jitter * rng.uniform());
            }
            bursty @ Explicit::Bursty { .. } => advance_bursty(bursty, next, rng),
        }
    }
    IntervalChanges { first, pending }
}

/// Moves a bursty page's next change to the first change strictly after `from`.
fn advance_bursty(explicit: &mut Explicit, from: f64, rng: &mut SimRng) {
    let Explicit::Bursty { on_rate, mean_on, mean_off, on, phase_end, next } = explicit else {
        return;
    };
    let mut t = from;
    loop {
        if *on {
            let candidate = t + rng.exponential(*on_rate);
            if candidate < *phase_end {
                *next = candidate;
                return;
            }
            t = *phase_end;
            *on = false;
            *phase_end = t + rng.exponential(1.0 / *mean_off);
        } else {
            t = *phase_end;
            *on = true;
            *phase_end = t + rng.exponential(1.0 / *mean_on);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: Window = Window { start: 0.0, end: f64::INFINITY };

    #[test]
    fn page_state_stays_small() {
        // A quarter of a cache line: the simulator reads one page's state per fetch, pages
        // at random, and its record of a page (last fetch, weight, this) is 32 bytes.
        assert!(std::mem::size_of::<PageChanges>() <= 16);
    }

    fn count_changes(process: ChangeProcess, horizon: f64) -> u64 {
        let mut rng = SimRng::new(3);
        let mut page = PageChanges::new(&process, true, &mut rng);
        let mut count = 0;
        let mut t0 = 0.0;
        // Fetch every 0.01: at most one change per interval for these rates (checked below).
        while t0 < horizon {
            let t1 = t0 + 0.01;
            let before = page.last_change();
            let changes = page.interval(t0, t1, &ALL, &mut rng);
            if changes.first.is_finite() {
                count += 1;
                assert!(changes.first > t0 && changes.first <= t1 && page.last_change() >= before);
            }
            t0 = t1;
        }
        count
    }

    #[test]
    fn mean_rates_are_as_configured() {
        let periodic = count_changes(ChangeProcess::Periodic { rate: 1.0, jitter: 0.5 }, 2000.0);
        assert!((periodic as f64 - 2000.0).abs() <= 2.0, "periodic {periodic}");
        let bursty = count_changes(ChangeProcess::Bursty { rate: 1.0, mean_on: 1.0, mean_off: 4.0 }, 20000.0);
        // Bursty counts are overdispersed; 5% of 20,000 is many standard deviations here.
        assert!((bursty as f64 / 20000.0 - 1.0).abs() < 0.05, "bursty {bursty}");
    }

    #[test]
    fn periodic_without_jitter_changes_once_per_period() {
        let mut rng = SimRng::new(9);
        let mut page = PageChanges::new(&ChangeProcess::Periodic { rate: 0.5, jitter: 0.0 }, true, &mut rng);
        let first = page.interval(0.0, 2.0, &ALL, &mut rng).first;
        assert!(first.is_finite() && first < 2.0);
        let second = page.interval(2.0, 4.0, &ALL, &mut rng).first;
        assert!((second - first - 2.0).abs() < 1e-12);
        // Pending integral over (first, 4]: the first change waits 4 − first, the second 4 − second.
        let mut again =
            PageChanges::new(&ChangeProcess::Periodic { rate: 0.5, jitter: 0.0 }, true, &mut SimRng::new(9));
        let both = again.interval(0.0, 4.0, &ALL, &mut SimRng::new(1));
        assert!((both.pending - ((4.0 - first) + (4.0 - second))).abs() < 1e-12);
    }

    #[test]
    fn poisson_last_modified_lies_in_the_interval() {
        let mut rng = SimRng::new(5);
        let mut page = PageChanges::new(&ChangeProcess::Poisson { rate: 3.0 }, true, &mut rng);
        let mut t0 = 0.0;
        for _ in 0..10_000 {
            let t1 = t0 + 0.5;
            let changes = page.interval(t0, t1, &ALL, &mut rng);
            if changes.first.is_finite() {
                assert!(page.last_change() >= changes.first && page.last_change() <= t1);
            }
            t0 = t1;
        }
    }

    #[test]
    fn poisson_pending_is_clipped_to_the_window() {
        let window = Window { start: 10.0, end: 20.0 };
        let mut rng = SimRng::new(2);
        let mut page = PageChanges::new(&ChangeProcess::Poisson { rate: 100.0 }, false, &mut rng);
        // The first change comes almost surely within 0.2 of 0, long before the window.
        let changes = page.interval(0.0, 30.0, &window, &mut rng);
        let first = changes.first;
        let expected = 10.0 * (1.0 + 0.5 * 100.0 * (30.0 - 2.0 * first));
        assert!((changes.pending - expected).abs() < 1e-9 * expected);
    }
}
