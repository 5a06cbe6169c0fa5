//! Rate policies executed by the deterministic carousel of `freshet-schedule`: `uniform`,
//! `change-proportional`, `weight-proportional`, `periodic-optimal`,
//! `poisson-optimal-carousel`, `changes-optimal`.

use freshet_schedule::Carousel;

use super::source::RateSource;
use super::{Fetch, Observation, Policy};
use crate::rng::SimRng;

/// Carousel slots computed at a time (see [`Policy::take_upcoming`]).
const AHEAD: usize = 16;

/// Fetches slot after slot (slot length `1/Σ f`) the page the carousel names; with learned
/// rates, the epoch's probes go in between.
///
/// The carousel's slots are computed [`AHEAD`] at a time, and their pages announced to the
/// simulator ([`Policy::take_upcoming`]), which loads their state together: measured at
/// 10^5 pages in `BENCHMARKS.md`, "The simulator". The carousel does not depend on what the
/// fetches find, so this changes no fetch; a restart drops the slots computed ahead.
#[derive(Debug, Clone)]
pub(crate) struct CarouselPolicy {
    source: RateSource,
    carousel: Option<Carousel>,
    /// Time of slot 0 of the current carousel.
    origin: f64,
    /// The carousel's next fetches, in order: `pending[next..]`, held back while probes go
    /// first.
    pending: Vec<Fetch>,
    next: usize,
    /// Whether `pending` was refilled since the last [`Policy::take_upcoming`].
    unannounced: bool,
    /// Whether the rates are learned: with known rates there are no probes to interleave and
    /// nothing to observe, and both calls are skipped.
    learns: bool,
}

impl CarouselPolicy {
    /// A carousel over `rates` starting at time `1/Σ f` (time 0 is the initial crawl); no
    /// fetch at all if every rate is 0.
    pub(crate) fn new(source: RateSource, rates: &[f64]) -> Self {
        let carousel = Carousel::new(rates).ok();
        let origin = carousel.as_ref().map_or(0.0, Carousel::slot_length);
        let learns = source.learns();
        Self {
            source,
            carousel,
            origin,
            pending: Vec::with_capacity(AHEAD),
            next: 0,
            unannounced: false,
            learns,
        }
    }
}

impl Policy for CarouselPolicy {
    #[inline]
    fn next_fetch(&mut self, now: f64, _rng: &mut SimRng) -> Option<Fetch> {
        if self.next == self.pending.len()
            && let Some(carousel) = self.carousel.as_mut()
        {
            self.pending.clear();
            self.next = 0;
            for _ in 0..AHEAD {
                let fetch = carousel.next_fetch();
                self.pending.push(Fetch { page: fetch.page, time: self.origin + fetch.time });
            }
            self.unannounced = true;
        }
        let pending = self.pending.get(self.next).copied();
        let probe = if self.learns {
            self.source.next_probe(pending.map_or(f64::INFINITY, |fetch| fetch.time))
        } else {
            None
        };
        let fetch = match probe {
            Some(probe) => probe,
            None => {
                self.next += 1;
                pending?
            }
        };
        Some(Fetch { page: fetch.page, time: fetch.time.max(now) })
    }

    #[inline]
    fn take_upcoming(&mut self, pages: &mut Vec<usize>) {
        if self.unannounced {
            self.unannounced = false;
            pages.extend(self.pending.iter().skip(self.next).map(|fetch| fetch.page));
        }
    }

    #[inline]
    fn observe(&mut self, observation: &Observation) {
        if self.learns {
            self.learn(observation);
        }
    }

    fn observes(&self) -> bool {
        self.learns
    }
}

impl CarouselPolicy {
    /// Learned rates: observes, and restarts the carousel when the rates are re-solved.
    #[inline(never)]
    fn learn(&mut self, observation: &Observation) {
        if let Some(rates) = self.source.observe(observation) {
            // Restart the carousel on the new rates, one slot after this fetch; keep the old
            // one if the new rates are unusable.
            if let Ok(carousel) = Carousel::new(&rates) {
                self.origin = observation.time + carousel.slot_length();
                self.carousel = Some(carousel);
                self.pending.clear();
                self.next = 0;
                self.unannounced = false;
            }
        }
    }
}
