//! The freshness loop's memory of each page and the revisit policies that turn it into the
//! scheduler's `(w, λ)`. Pure: times are parameters; the crawl loop calls it after each fetch.
//!
//! # What a fetch teaches
//! A fetch after the first is one observation for the change-rate estimators
//! (`freshet-estimate`; seeds 000_df0cf756c1e6fcc1.txt and 004_e0cda6b04941d422.txt): the
//! interval since the previous successful fetch, whether the content changed, and the age of
//! the last change from `Last-Modified` where the server sends one. *Changed* is decided by
//! [`ContentCheck`]: a 304 is unchanged; otherwise the content fingerprints are compared.
//!
//! # Where a new page's rate comes from
//! A page with no observation gets its host's prior; a page with observations gets the
//! posterior under that prior. The host's prior is a Gamma prior
//! ([`GammaPrior::from_pool`](freshet_estimate::GammaPrior::from_pool)) centred on the geometric mean of the current estimates of the
//! host's pages that have data, with the configured crawl-wide prior counted as one more page
//! (so a host with one page is not taken at that page's word), worth a number of the page's own
//! mean fetch intervals of observation ([`CrawlConfig::prior_fetches`](crate::CrawlConfig),
//! default [`PRIOR_FETCHES`]). A prior worth a fixed time (say one mean change interval,
//! `α = 1`) would outweigh a whole crawl's data whenever the prior is off by orders of
//! magnitude (a prior of a change a day on pages that change every ten seconds: the unit test
//! below), and a pooled mean computed from estimates dragged to the prior would stay there; a
//! prior worth a number of fetches lets a page's own data win after about that many fetches at
//! any time scale. How many is a trade: a weak prior follows each page's first few, noisy
//! observations; a strong one shrinks them to the host's mean, which ranks pages better early
//! (the schedule needs ranks) but biases absolute rates until a page has that many
//! observations. Measured with `freshet demo` (1,200 pages, 150 s; BENCHMARKS.md): 2 fetches
//! gave 0.915 of the fluid optimum, 20 gave 0.956 (uniform: 0.918 and 0.931 in the same runs). The geometric mean, not the arithmetic one, because rates on one host span orders of magnitude
//! and the arithmetic mean follows the fastest page. When every observation of a page carried
//! a usable `Last-Modified`, the conjugate Last-Modified posterior (P1 of `freshet-estimate`) is
//! used, which is far sharper than counting changes; otherwise the interval posterior (P2).
//!
//! # The policies
//! All run on the same online scheduler (seed 003's threshold rule with `λ_0` set by the
//! budget); they differ only in the `(w, λ)` they hand it:
//! * [`Revisit::Freshet`]: `w` = the page's importance, `λ` = the learned rate. The crawl value
//!   `V(τ) = (w/λ)(1 − e^(−λτ)) − wτe^(−λτ)` (seed 003) grows faster for important pages, so
//!   importance buys proportionally more refreshes.
//! * [`Revisit::Uniform`]: `w = 1`, `λ` = the prior for every page: identical value curves, so
//!   pages are fetched oldest first at equal intervals that spend the budget (round robin).
//! * [`Revisit::Nutch`]: Apache Nutch's `AdaptiveFetchSchedule` (interval ×0.8 after a change,
//!   ×1.2 after none, clamped; the simulator's `nutch-adaptive`). With `w = λ = 1/I`,
//!   `V_i(τ) = G(τ/I_i)` with `G(x) = 1 − (1+x)e^(−x)` for every page, so the threshold rule
//!   fetches each page at `c·I_i` with one factor `c` that spends the budget exactly: Nutch's
//!   relative intervals at the same budget as the others.
//! * [`Revisit::Once`]: a page is fetched once and not revisited (a one-pass crawl).

use freshet_content::{Signature, SignatureError};
use freshet_estimate::ChangeHistory;
/// The host prior and the rate under it, shared with the URLFrontier service's revisits.
pub use freshet_estimate::{HostRates, PRIOR_FETCHES, estimate_rate};

use crate::dedup::HeldCapture;

/// How a crawl revisits the pages it has fetched.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Revisit {
    /// freshet's policy: learned change rates and importance (see the module docs).
    #[default]
    Freshet,
    /// The same interval for every page, spending the budget (round robin).
    Uniform,
    /// Apache Nutch's adaptive intervals, scaled to spend the budget.
    Nutch,
    /// No revisits: each page is fetched once.
    Once,
}

impl Revisit {
    /// The names the command line takes.
    pub const NAMES: [&'static str; 4] = ["freshet", "uniform", "nutch", "once"];

    /// The policy named `name` (one of [`NAMES`](Self::NAMES)).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "freshet" => Some(Self::Freshet),
            "uniform" => Some(Self::Uniform),
            "nutch" => Some(Self::Nutch),
            "once" => Some(Self::Once),
            _ => None,
        }
    }

    /// Its name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Freshet => "freshet",
            Self::Uniform => "uniform",
            Self::Nutch => "nutch",
            Self::Once => "once",
        }
    }
}

/// Nutch's `db.fetch.schedule.adaptive.inc_rate` and `dec_rate`.
pub const NUTCH_INC_RATE: f64 = 0.2;
/// See [`NUTCH_INC_RATE`].
pub const NUTCH_DEC_RATE: f64 = 0.2;

/// Nutch's interval update: `×(1 − DEC_RATE)` on change, `×(1 + INC_RATE)` otherwise, clamped
/// to `[min, max]`.
#[must_use]
pub fn nutch_next_interval(interval: f64, changed: bool, min: f64, max: f64) -> f64 {
    let next = if changed { interval * (1.0 - NUTCH_DEC_RATE) } else { interval * (1.0 + NUTCH_INC_RATE) };
    next.clamp(min, max)
}

/// What the crawler remembers about one page between fetches, kept in the store's `estimator`
/// bytes ([`PageMemory::to_bytes`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PageMemory {
    /// The estimators' bounded state.
    pub history: ChangeHistory,
    /// Start of the last fetch that returned the content (2xx or 304), Unix seconds.
    pub last_content: Option<f64>,
    /// Nutch's current interval for the page, seconds (0 until the first fetch).
    pub nutch_interval: f64,
    /// Failed fetches in a row (a success resets it).
    pub failures: u32,
    /// The page's OPIC history at its last completion (see [`crate::importance`]).
    pub opic_history: f64,
    /// The WARC `response` record that holds the page's last complete 2xx payload: its own,
    /// or another URL's with the identical payload (see [`crate::dedup`]); `None` before the
    /// first such capture (and for pages stored before format 2).
    pub capture: Option<HeldCapture>,
}

impl Default for PageMemory {
    fn default() -> Self {
        Self {
            history: ChangeHistory::new(),
            last_content: None,
            nutch_interval: 0.0,
            failures: 0,
            opic_history: 0.0,
            capture: None,
        }
    }
}

// The store keeps at most this many bytes of a page's memory.
const _: () = assert!(PageMemory::ENCODED_LEN <= freshet_frontier::limits::ESTIMATOR_BYTES);

/// Why stored page memory could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("corrupt page memory: {0}")]
pub struct CorruptMemory(pub &'static str);

impl PageMemory {
    /// Format 2 adds the held capture to format 1, which is still read (as without one).
    const FORMAT: u8 = 2;
    const FORMAT_1_LEN: usize = 1 + ChangeHistory::ENCODED_LEN + 8 + 8 + 4 + 8;
    /// Length of the byte form.
    pub const ENCODED_LEN: usize = Self::FORMAT_1_LEN + 1 + HeldCapture::ENCODED_LEN;

    /// The byte form: format byte, the history's bytes, `last_content` (NaN for none),
    /// `nutch_interval`, `failures`, `opic_history`, then a byte 0 or 1 and the held capture
    /// (zeros for none); little-endian.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(Self::ENCODED_LEN);
        out.push(Self::FORMAT);
        out.extend_from_slice(&self.history.to_bytes());
        out.extend_from_slice(&self.last_content.unwrap_or(f64::NAN).to_le_bytes());
        out.extend_from_slice(&self.nutch_interval.to_le_bytes());
        out.extend_from_slice(&self.failures.to_le_bytes());
        out.extend_from_slice(&self.opic_history.to_le_bytes());
        out.push(u8::from(self.capture.is_some()));
        out.extend_from_slice(&self.capture.map_or([0; HeldCapture::ENCODED_LEN], |held| held.to_bytes()));
        out
    }

    /// Reads the byte form (format 2, or format 1 of earlier versions); empty bytes (a page
    /// never fetched) give the default.
    ///
    /// # Errors
    /// [`CorruptMemory`] naming what is wrong.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, CorruptMemory> {
        if bytes.is_empty() {
            return Ok(Self::default());
        }
        let capture = match (bytes[0], bytes.len()) {
            (1, Self::FORMAT_1_LEN) => None,
            (Self::FORMAT, Self::ENCODED_LEN) => match bytes[Self::FORMAT_1_LEN] {
                0 => None,
                1 => Some(HeldCapture::from_bytes(&bytes[Self::FORMAT_1_LEN + 1..])?),
                _ => return Err(CorruptMemory("the held capture's flag is neither 0 nor 1")),
            },
            _ => return Err(CorruptMemory("wrong length or format byte")),
        };
        let history_end = 1 + ChangeHistory::ENCODED_LEN;
        let history = ChangeHistory::from_bytes(&bytes[1..history_end])
            .map_err(|_| CorruptMemory("the change history is corrupt"))?;
        let f64_at = |at: usize| {
            let mut raw = [0u8; 8];
            raw.copy_from_slice(&bytes[at..at + 8]);
            f64::from_le_bytes(raw)
        };
        let last_content = f64_at(history_end);
        let nutch_interval = f64_at(history_end + 8);
        let mut raw = [0u8; 4];
        raw.copy_from_slice(&bytes[history_end + 16..history_end + 20]);
        let failures = u32::from_le_bytes(raw);
        let opic_history = f64_at(history_end + 20);
        let non_negative = |value: f64| value.is_finite() && value >= 0.0;
        if !(non_negative(nutch_interval) && non_negative(opic_history)) || last_content.is_infinite() {
            return Err(CorruptMemory("a time is not finite"));
        }
        Ok(Self {
            history,
            last_content: (!last_content.is_nan()).then_some(last_content),
            nutch_interval,
            failures,
            opic_history,
            capture,
        })
    }
}

/// What a fetch says about the page's content, for the estimators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContentCheck {
    /// The content is the one held (a 304, equal fingerprints).
    Unchanged,
    /// The content differs from the one held.
    Changed,
    /// Nothing to compare with (the first fetch, or no fingerprint either side).
    Unknown,
}

impl ContentCheck {
    /// Compares a new fetch with the copy held: `not_modified` for a 304; otherwise the
    /// fingerprints (empty means none). Two main-text signatures (`freshet-content`, HTML
    /// pages) are compared by its verdict: equal main text, or a SimHash within
    /// [`freshet_content::DEFAULT_THRESHOLD`] bits, is unchanged, so rotating ads, timestamps
    /// and session tokens are not changes. Any other fingerprints (the xxh3 of a body: a
    /// non-HTML page, or any page of a crawl that does not read main texts) must be equal. A
    /// signature and a body's hash are not compared: the crawl turned
    /// [`CrawlConfig::main_text`](crate::CrawlConfig) on or off since the page's last fetch (or
    /// the page went from HTML to another type, or back), and the two say different things,
    /// so the fetch is [`ContentCheck::Unknown`] rather than a change that may not be one.
    #[must_use]
    pub fn of(not_modified: bool, previous: &[u8], current: &[u8]) -> Self {
        if not_modified {
            return Self::Unchanged;
        }
        if previous.is_empty() || current.is_empty() {
            return Self::Unknown;
        }
        let changed = match (Signature::from_bytes(previous), Signature::from_bytes(current)) {
            (Ok(previous), Ok(current)) => freshet_content::changed(&previous, &current),
            // A signature made by other rules (a store written before `Signature::FORMAT_VERSION`
            // was bumped) cannot be compared: its bytes differ whatever the page did, and a
            // false change would enter the page's change-rate estimate.
            (Err(SignatureError::UnknownVersion { .. }), _)
            | (_, Err(SignatureError::UnknownVersion { .. })) => {
                return Self::Unknown;
            }
            (Ok(_), Err(_)) | (Err(_), Ok(_)) => return Self::Unknown,
            (Err(_), Err(_)) => previous != current,
        };
        if changed { Self::Changed } else { Self::Unchanged }
    }
}

/// One observation: folds a successful fetch (2xx or 304) that started at `fetched_at` into
/// `memory`. `last_modified` is the server's Last-Modified in Unix seconds, if any. Returns
/// whether an observation was recorded (not on the first fetch, nor without a comparison).
pub fn observe(
    memory: &mut PageMemory,
    fetched_at: f64,
    check: ContentCheck,
    last_modified: Option<f64>,
) -> bool {
    let previous = memory.last_content.replace(fetched_at);
    memory.failures = 0;
    let (Some(previous), Some(changed)) = (
        previous,
        match check {
            ContentCheck::Changed => Some(true),
            ContentCheck::Unchanged => Some(false),
            ContentCheck::Unknown => None,
        },
    ) else {
        return false;
    };
    let interval = fetched_at - previous;
    if interval.is_nan() || interval <= 0.0 {
        return false;
    }
    let age = last_modified.map(|modified| (fetched_at - modified).max(0.0));
    // A Last-Modified that contradicts the content (moved without a change, or a change
    // older than the previous fetch) is not used for this observation.
    memory
        .history
        .observe(interval, changed, age)
        .or_else(|_| memory.history.observe(interval, changed, None))
        .is_ok()
}

/// What a sitemap read said of a known page: its `<lastmod>` came after the page's last fetch,
/// so the page was made due at once (see `crawler::sitemaps`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SitemapTold {
    /// When the sitemap was read (Unix seconds).
    pub read_at: f64,
    /// The page's `<lastmod>` in it (Unix seconds): the start of the period it names.
    pub lastmod: f64,
    /// The end of that period: a `lastmod` names a day, a minute or a second, and the change
    /// may lie anywhere in it (`lastmod + 1` for a time to the second).
    pub lastmod_until: f64,
    /// When the host's read of its sitemaps before this one began, if there was one: the
    /// page's `<lastmod>` then was not after its last fetch, or it would have been fetched.
    pub previous_read: Option<f64>,
}

/// The observation of a fetch made because a sitemap read told that the page changed (`told`),
/// once the fetch (started at `fetched_at`) has confirmed that the content changed: no change
/// from the previous fetch to the host's previous sitemap read (if the page's last fetch came
/// before it and its `<lastmod>` after it), a change from then to this read with the
/// `<lastmod>` as its Last-Modified; the next interval starts at the fetch. Returns whether an
/// observation was recorded (as [`observe`]).
///
/// Why not the fetch's own observation: the fetch was made *because* the page changed, so its
/// interval would end just after a change every time, and the estimators, which assume fetch
/// times that do not depend on the changes (seed 004_e0cda6b04941d422.txt's estimators,
/// `freshet-estimate`), learn a rate far too high: with reads every `S` the Last-Modified
/// ages average about `S/2`, so the rate learned tends to `2/S` whatever the truth (1.8× to
/// 5.8× it in the unit test below). The reads come at times of their own, so intervals that end at reads are
/// honest observations, and the read before says what the reads in between said: nothing
/// changed (the span from the read to the fetch is left out; leaving out a span chosen
/// without looking at it biases nothing).
///
/// Only a `lastmod` to the second is taken as the change's time and lets the previous read
/// vouch for the span before it: one that names a day (or a minute) may hide a change made
/// after the page's last fetch within that period, which the previous read could not tell, so
/// then the observation is the interval to this read, changed, without a time of change.
pub fn observe_sitemap_change(memory: &mut PageMemory, told: SitemapTold, fetched_at: f64) -> bool {
    let to_the_second = told.lastmod_until - told.lastmod <= 1.0;
    let mut observed = false;
    if let (Some(last_fetch), Some(previous)) = (memory.last_content, told.previous_read)
        && to_the_second
        && previous > last_fetch
        && told.lastmod > previous
    {
        // Unchanged with a Last-Modified as old as the interval: exposure, as a 304 would add.
        observed = observe(memory, previous, ContentCheck::Unchanged, Some(last_fetch));
    }
    let modified = to_the_second.then_some(told.lastmod);
    observed |= observe(memory, told.read_at, ContentCheck::Changed, modified);
    memory.last_content = Some(fetched_at);
    observed
}

/// The observation of a fetch (started at `fetched_at`) of a page that a sitemap read begun at
/// `vouched_at` listed as unchanged since its copy (see `crawler::sitemaps`, "vouch"), and that
/// found the content changed: no change from the previous fetch to the read (the sitemap's
/// word), a change from the read to this fetch, with the server's Last-Modified where it fits.
/// Counted as one changed interval from the previous fetch instead, it would leave out the
/// span the sitemap vouched for and learn too high a rate. A change the fetch does not find,
/// or a read before the previous fetch, is an ordinary [`observe`]. Returns whether an
/// observation was recorded.
pub fn observe_after_vouch(
    memory: &mut PageMemory,
    vouched_at: f64,
    fetched_at: f64,
    check: ContentCheck,
    last_modified: Option<f64>,
) -> bool {
    match memory.last_content {
        Some(previous)
            if check == ContentCheck::Changed && previous < vouched_at && vouched_at < fetched_at =>
        {
            let unchanged = observe(memory, vouched_at, ContentCheck::Unchanged, Some(previous));
            observe(memory, fetched_at, check, last_modified) || unchanged
        }
        _ => observe(memory, fetched_at, check, last_modified),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn memory_survives_its_bytes() {
        let mut memory =
            PageMemory { nutch_interval: 86_400.0, failures: 2, opic_history: 3.5, ..PageMemory::default() };
        assert!(!observe(&mut memory, 100.0, ContentCheck::Unknown, None));
        assert!(observe(&mut memory, 200.0, ContentCheck::Changed, Some(150.0)));
        assert!(observe(&mut memory, 300.0, ContentCheck::Unchanged, Some(150.0)));
        let decoded = PageMemory::from_bytes(&memory.to_bytes()).unwrap();
        assert_eq!(decoded, memory);
        assert_eq!(decoded.failures, 0);
        assert_eq!(decoded.history.intervals(), 2);
        assert_eq!(decoded.history.last_modified_intervals(), 2);
        assert_eq!(PageMemory::from_bytes(&[]).unwrap(), PageMemory::default());
        assert!(PageMemory::from_bytes(&[1, 2, 3]).is_err());
        let mut bad = memory.to_bytes();
        bad[2] = 0xff;
        assert!(PageMemory::from_bytes(&bad).is_err());
    }

    #[test]
    fn the_held_capture_survives_and_format_1_is_still_read() {
        let capture = HeldCapture {
            payload_digest: freshet_warc::Digest::sha1(b"a body"),
            date: freshet_warc::WarcDate::from_unix(1_800_000_000, 123_456).unwrap(),
            page: freshet_schedule::online::PageId(42),
        };
        let mut memory = PageMemory { failures: 1, capture: Some(capture), ..PageMemory::default() };
        observe(&mut memory, 100.0, ContentCheck::Unknown, None);
        assert!(observe(&mut memory, 200.0, ContentCheck::Changed, None));
        let bytes = memory.to_bytes();
        assert_eq!(bytes.len(), PageMemory::ENCODED_LEN);
        assert_eq!(PageMemory::from_bytes(&bytes).unwrap(), memory);
        // A flag that is neither 0 nor 1 is corrupt.
        let mut bad = bytes.clone();
        bad[PageMemory::FORMAT_1_LEN] = 2;
        assert!(PageMemory::from_bytes(&bad).is_err());
        // Format 1, as stores written before held captures keep it: the same memory, none held.
        let mut format_1 = bytes[..PageMemory::FORMAT_1_LEN].to_vec();
        format_1[0] = 1;
        assert_eq!(PageMemory::from_bytes(&format_1).unwrap(), PageMemory { capture: None, ..memory });
        // Format 2's length with format 1's byte, or the reverse, is corrupt.
        let mut mixed = bytes;
        mixed[0] = 1;
        assert!(PageMemory::from_bytes(&mixed).is_err());
        format_1[0] = 2;
        assert!(PageMemory::from_bytes(&format_1).is_err());
    }

    #[test]
    fn a_last_modified_that_moved_without_a_change_is_left_out() {
        let mut memory = PageMemory::default();
        observe(&mut memory, 0.0, ContentCheck::Unknown, None);
        // Unchanged content, but Last-Modified inside the interval: the interval counts, the
        // age does not.
        assert!(observe(&mut memory, 10.0, ContentCheck::Unchanged, Some(5.0)));
        assert_eq!(memory.history.intervals(), 1);
        assert_eq!(memory.history.last_modified_intervals(), 0);
    }

    #[test]
    fn content_checks() {
        assert_eq!(ContentCheck::of(true, b"", b""), ContentCheck::Unchanged);
        assert_eq!(ContentCheck::of(false, b"", b"a"), ContentCheck::Unknown);
        assert_eq!(ContentCheck::of(false, b"a", b"a"), ContentCheck::Unchanged);
        assert_eq!(ContentCheck::of(false, b"a", b"b"), ContentCheck::Changed);
        // Main-text signatures: a rotating ad and a timestamp are not a change; new text is.
        let article: String = (0..300).map(|i| format!("word{} ", i * 7 % 113)).collect();
        let page = |noise: &str, text: &str| {
            format!(
                "<html><body><div class='ad'>{noise}</div><p>Served {noise}</p><article><p>{text}</p></article></body></html>"
            )
        };
        let signature = |html: String| Signature::of_html(&html, None).to_bytes();
        let first = signature(page("boots", &article));
        assert_eq!(
            ContentCheck::of(false, &first, &signature(page("hats", &article))),
            ContentCheck::Unchanged
        );
        let rewritten: String = (0..300).map(|i| format!("term{} ", i * 11 % 97)).collect();
        assert_eq!(
            ContentCheck::of(false, &first, &signature(page("boots", &rewritten))),
            ContentCheck::Changed
        );
        // A signature of another format version says nothing, either way round.
        let mut older = first;
        older[0] = Signature::FORMAT_VERSION.wrapping_sub(1);
        assert_eq!(ContentCheck::of(false, &older, &first), ContentCheck::Unknown);
        assert_eq!(ContentCheck::of(false, &first, &older), ContentCheck::Unknown);
        // A signature and a body's hash (a crawl that turned `main_text` on or off since the
        // last fetch) are not compared, either way round; two bodies' hashes are.
        let body = 0x0123_4567_89ab_cdef_0123_4567_89ab_cdef_u128.to_be_bytes();
        let other_body = 0x0123_4567_89ab_cdef_0123_4567_89ab_cdee_u128.to_be_bytes();
        assert_eq!(ContentCheck::of(false, &first, &body), ContentCheck::Unknown);
        assert_eq!(ContentCheck::of(false, &body, &first), ContentCheck::Unknown);
        assert_eq!(ContentCheck::of(false, &body, &body), ContentCheck::Unchanged);
        assert_eq!(ContentCheck::of(false, &body, &other_body), ContentCheck::Changed);
    }

    #[test]
    fn learned_rates_follow_the_truth() {
        // A Poisson page changing 0.1 times a second, fetched every 4 s for 20,000 s (about
        // 1,650 changes seen, so a standard error near 2.5%): both posteriors (with exact
        // Last-Modified ages, and from changed/unchanged alone) find the rate within 12%,
        // though the crawl prior is a change a day.
        let changes = poisson_changes(0.1, 20_000.0, 0x9e37_79b9_7f4a_7c15);
        let prior = HostRates::default().prior(1.0 / 86_400.0, Some(4.0), 2.0).unwrap();
        for with_last_modified in [true, false] {
            let mut memory = PageMemory::default();
            let mut next_change = 0;
            for fetch in 0..5_000 {
                let at = f64::from(fetch) * 4.0;
                while changes.get(next_change + 1).is_some_and(|&t| t <= at) {
                    next_change += 1;
                }
                let last_change = changes[next_change];
                let check = if fetch == 0 {
                    ContentCheck::Unknown
                } else if last_change > at - 4.0 {
                    ContentCheck::Changed
                } else {
                    ContentCheck::Unchanged
                };
                observe(&mut memory, at, check, with_last_modified.then_some(last_change));
            }
            let estimate = estimate_rate(&memory.history, &prior);
            assert!((estimate.rate - 0.1).abs() < 0.012, "{with_last_modified}: {estimate:?}");
        }
    }

    #[test]
    fn a_lastmod_that_names_a_day_is_no_time_of_change_and_vouches_for_no_span() {
        let day = |lastmod: f64| SitemapTold {
            read_at: 200_000.0,
            lastmod,
            lastmod_until: lastmod + 86_400.0,
            previous_read: Some(150_000.0),
        };
        let mut memory = PageMemory::default();
        observe(&mut memory, 100_000.0, ContentCheck::Unknown, None);
        assert!(observe_sitemap_change(&mut memory, day(172_800.0), 200_010.0));
        // One interval to the read, changed, with no Last-Modified and no unchanged span.
        assert_eq!(memory.history.intervals(), 1);
        assert_eq!(memory.history.changed_time(), 100_000.0);
        assert_eq!(memory.history.last_modified_intervals(), 0);
        assert_eq!(memory.last_content, Some(200_010.0));
        // To the second: the previous read's span, then the change with its time.
        let mut exact = PageMemory::default();
        observe(&mut exact, 100_000.0, ContentCheck::Unknown, None);
        let second = SitemapTold { lastmod: 180_000.0, lastmod_until: 180_001.0, ..day(0.0) };
        assert!(observe_sitemap_change(&mut exact, second, 200_010.0));
        assert_eq!((exact.history.unchanged_time(), exact.history.changed_time()), (50_000.0, 50_000.0));
        assert_eq!(exact.history.last_modified_intervals(), 2);
    }

    #[test]
    fn a_change_after_a_vouched_read_keeps_the_span_the_sitemap_vouched_for() {
        let mut memory = PageMemory::default();
        observe(&mut memory, 100.0, ContentCheck::Unknown, None);
        assert!(observe_after_vouch(&mut memory, 200.0, 210.0, ContentCheck::Changed, Some(205.0)));
        assert_eq!(memory.history.intervals(), 2);
        assert_eq!((memory.history.unchanged_time(), memory.history.changed_time()), (100.0, 10.0));
        assert_eq!(memory.history.last_modified_exposure(), 105.0, "100 unchanged, 5 since the change");
        assert_eq!(memory.last_content, Some(210.0));
        // Unchanged, or a read before the previous fetch: one ordinary observation.
        assert!(observe_after_vouch(&mut memory, 215.0, 300.0, ContentCheck::Unchanged, Some(205.0)));
        assert!(observe_after_vouch(&mut memory, 250.0, 400.0, ContentCheck::Changed, None));
        assert_eq!(memory.history.intervals(), 4);
        assert_eq!(memory.history.changed_time(), 110.0);
    }

    /// Change times of a Poisson page of rate `rate` up to `horizon` (time 0 counts as one).
    fn poisson_changes(rate: f64, horizon: f64, mut state: u64) -> Vec<f64> {
        let mut uniform = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut changes = vec![0.0];
        while changes.last().is_some_and(|&t| t < horizon) {
            let last = changes.last().copied().unwrap_or(0.0);
            changes.push(last - (1.0 - uniform()).ln() / rate);
        }
        changes
    }

    /// The last change at or before `at`.
    fn last_change(changes: &[f64], at: f64) -> f64 {
        changes[changes.partition_point(|&t| t <= at) - 1]
    }

    #[test]
    fn sitemap_told_changes_teach_the_true_rate_where_the_fetches_own_would_not() {
        // A page changing `rate` times a second; its host's sitemap read every 10 s with the
        // exact `lastmod`; the page fetched 0.5 s after each read whose `lastmod` is after its
        // last fetch, and by schedule every `scheduled` s. The fetch's own observation (the
        // interval since the last fetch, changed, the page's own Last-Modified) learns 1.8×
        // to 5.8× the truth (the more, the slower the page), near 2/10 whatever it is; the
        // sitemap's (`observe_sitemap_change`) is within 1.4% (within 8% asserted). Without
        // the unchanged span up to the previous read it learns 4.7× the truth at 0.01.
        let prior = HostRates::default().prior(1.0 / 86_400.0, Some(10.0), 2.0).unwrap();
        for (rate, scheduled, seed) in [(0.01, 600.0, 1_u64), (0.002, 3_000.0, 2), (0.05, 60.0, 3)] {
            let horizon = 4_000.0 / rate;
            let changes = poisson_changes(rate, horizon, 0x9e37_79b9_7f4a_7c15 ^ seed);
            let mut told_memory = PageMemory::default();
            let mut own_memory = PageMemory::default();
            for memory in [&mut told_memory, &mut own_memory] {
                observe(memory, 0.0, ContentCheck::Unknown, None);
            }
            let (mut last_fetch, mut next_scheduled, mut previous_read) = (0.0, scheduled, None);
            let mut read_at = 10.0;
            while read_at < horizon {
                let lastmod = last_change(&changes, read_at);
                // The schedule's fetches before this read.
                while next_scheduled < read_at {
                    let check = if last_change(&changes, next_scheduled) > last_fetch {
                        ContentCheck::Changed
                    } else {
                        ContentCheck::Unchanged
                    };
                    let modified = Some(last_change(&changes, next_scheduled));
                    observe(&mut told_memory, next_scheduled, check, modified);
                    observe(&mut own_memory, next_scheduled, check, modified);
                    last_fetch = next_scheduled;
                    next_scheduled += scheduled;
                }
                if lastmod > last_fetch {
                    let fetched_at = read_at + 0.5;
                    let told = SitemapTold { read_at, lastmod, lastmod_until: lastmod, previous_read };
                    assert!(observe_sitemap_change(&mut told_memory, told, fetched_at));
                    let modified = Some(last_change(&changes, fetched_at));
                    observe(&mut own_memory, fetched_at, ContentCheck::Changed, modified);
                    last_fetch = fetched_at;
                }
                previous_read = Some(read_at);
                read_at += 10.0;
            }
            let told = estimate_rate(&told_memory.history, &prior).rate;
            let own = estimate_rate(&own_memory.history, &prior).rate;
            assert!((told / rate - 1.0).abs() < 0.08, "rate {rate}: the sitemap's observations learn {told}");
            assert!(own > 1.5 * rate, "rate {rate}: the fetches' own observations learn {own}");
        }
    }

    #[test]
    fn nutch_intervals() {
        assert!((nutch_next_interval(10.0, true, 1.0, 100.0) - 8.0).abs() < 1e-12);
        assert!((nutch_next_interval(10.0, false, 1.0, 100.0) - 12.0).abs() < 1e-12);
        assert_eq!(nutch_next_interval(90.0, false, 1.0, 100.0), 100.0);
        assert_eq!(nutch_next_interval(1.0, true, 1.0, 100.0), 1.0);
        for name in Revisit::NAMES {
            assert_eq!(Revisit::from_name(name).map(Revisit::name), Some(name));
        }
        assert_eq!(Revisit::from_name("fifo"), None);
    }
}
