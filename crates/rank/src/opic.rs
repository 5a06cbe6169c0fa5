//! OPIC, On-line Page Importance Computation: every page holds cash and a history; fetching a
//! page moves its cash into its history and hands it on along its out-links, so importance is
//! learned as a side effect of crawling, O(out-degree) per fetch.
//!
//! Sources: Abiteboul, Preda, Cobena, "Adaptive on-line page importance computation", WWW 2003
//! (the algorithm, its estimate `(H + C)/(G + 1)` and its virtual page); seed
//! 002_987a179045e4afb6.txt, estimator 3 (`opic`), whose three steps and estimate
//! `β̃(v) = (H(v)+C(v))/(G+1)` are the ones below; seed 000_df0cf756c1e6fcc1.txt, the design notes
//! of a crawl frontier's OPIC backend, whose page values `w_i` are what this module supplies.
//!
//! # The scheme, exactly
//!
//! Pages `i = 0..n` (dense ids, see [`Opic::add_page`]) hold cash `C_i` and history `H_i`; a
//! virtual page `Ω` holds `C_Ω` and `H_Ω`; `G` is the total history, initially 0. The paper
//! starts every page with the same cash `1/n`; pages here are discovered while the crawl runs,
//! so each page brings the same cash when it becomes known, 1 unit, and the total cash is the
//! number of known pages `n` instead of 1 (on a fixed page set every quantity below is the
//! paper's times `n`). Starting pages with equal cash rather than none is what makes the
//! estimate useful after one pass (on the test web, Spearman 0.84 against 0.65 for pages that
//! start empty). Fetching page `i` whose distinct out-links other than itself are `L_i` (the
//! crawler's [`Opic::fetched`]) does, with damping `d` ([`DEFAULT_DAMPING`] = 0.85):
//!
//! ```text
//! (0)  C_j = 1,  H_j = 0   when page j becomes known (n += 1)       equal start (paper: 1/n)
//! (1)  c = C_i;   H_i += c;   G += c;   C_i = 0                     visit i (seed 002, steps 1, 3)
//! (2)  C_j += d·c / |L_i|   for each j ∈ L_i                        hand on (seed 002, step 2)
//! (3)  C_Ω += (1 − d)·c     if L_i ≠ ∅,   C_Ω += c   if L_i = ∅     to the virtual page
//! (4)  C_j += C_Ω / n  for every known j;   H_Ω += C_Ω;   G += C_Ω;   C_Ω = 0     visit Ω
//! ```
//!
//! The paper's virtual page has a link from every page and a link to every page, so that the
//! graph is strongly connected (OPIC needs it: on a graph with a sink, cash would pool there) and
//! dangling pages pass their cash on. Here the link to `Ω` carries the fraction `1 − d` of a
//! page's cash (all of it for a dangling page) instead of one share in `|L_i| + 1`, so that the
//! fixed point is PageRank with damping `d` (eq. 6); `Ω` is visited after every fetch, which is
//! a fair schedule as OPIC requires. Step (4) touches every page in name only: the module keeps
//! `a`, the cash per page that `Ω` has handed out so far, and stores `C_j − a` (a page added
//! later starts at `1 − a`, that is with cash 1), so a fetch is O(|L_i|) and a page is 16 bytes.
//!
//! # What is conserved
//!
//! ```text
//! (I1)  Σ_i C_i + C_Ω = n          step (0) brings cash; the others only move it
//! (I2)  Σ_i H_i + H_Ω = G          G counts exactly what the histories gain
//! ```
//!
//! [`Opic::check`] verifies both (O(n)); [`Opic::restore`] keeps (I1) by moving a restored
//! page's cash to or from `Ω`, and [`Opic::restore_virtual`] refuses a saved state that breaks it.
//!
//! # Across processes
//!
//! OPIC distributes as the paper means it to (cash is a message; it may arrive late): a crawl
//! shared out among processes (freshet's shards, each with its own estimator over its own
//! pages) hands on along a link to another process's page the same share `d·c/|L_i|`, with
//! `|L_i|` counting those links too. [`Opic::fetched_with_external`] does steps (1)–(4) with
//! `external` such links and returns the share each carries away; the owner's estimator
//! credits it with [`Opic::receive`]. Each estimator counts the cash it imported less what it
//! exported, `b`, so that (I1) reads `Σ_i C_i + C_Ω = n + b` and (7) still has mean 1 over its
//! own pages; over all the processes, with nothing in transit, the `b`s sum to 0 and the
//! scheme is the one above on the whole graph. Cash that cannot be delivered (a page the
//! owner does not hold, a share the sender cannot address) goes to the virtual page, as a
//! dangling page's does.
//!
//! The virtual page must be the whole crawl's too: step (4) gives every page of every process
//! its share, or a process whose pages link nowhere else (a sink) would keep its teleport and
//! its dangling pages' cash while the others drain into it. So a process hands out here only
//! the fraction `n/N` of its virtual page's cash ([`Opic::set_local_teleport`], `N` the crawl's
//! pages in all), keeps the rest for the others ([`Opic::take_teleport_export`], to be split
//! in proportion to their pages), and spreads what they send over its own pages
//! ([`Opic::receive_teleport`]).
//!
//! # The estimates
//!
//! ```text
//! (5)  X_i = (H_i + C_i) / (G + n)                         seed 002, estimator 3; Σ_i X_i + X_Ω = 1
//! (6)  F_j = d Σ_{i→j} F_i/|L_i| + F_Ω/n,  F_Ω = Σ_i (1−d) F_i + Σ_{L_i=∅} d F_i
//! (7)  w_i = n (H_i + C_i) / Σ_j (H_j + C_j)               mean 1 over the n known pages
//! ```
//!
//! Under any schedule that fetches every page again and again, the rate `F_i` at which cash
//! flows through page `i` solves (6) (the paper's theorem, on the graph with `Ω`), which is
//! PageRank's equation with damping `d`, uniform teleport and dangling pages spread uniformly;
//! so `X_i → F_i / (Σ F + F_Ω)` and `w_i → n · PageRank_i`, the test web's `importance`. Seed
//! 002's `(G + 1)` is `(G + n)` here: the total cash, 1 in the seed and the paper, is `n`. The
//! error is what the early, unsettled flows and the cash still in flight weigh against the
//! history accumulated: it shrinks about as 1/(number of passes).
//!
//! A page that is never fetched (disallowed by robots.txt, past the budget) keeps the cash it
//! receives: its own estimate is right (its cash is its inflow), but what it would pass on is
//! missing downstream. So leave links to pages the crawler will never fetch out of `out_links`
//! where it knows (robots.txt disallows them); for a page it learns about too late, calling
//! `fetched(page, &[])` now and then passes the cash on as a dangling page would, which is how
//! PageRank treats a page whose links are unknown.
//!
//! # How `w` enters the value function
//!
//! The scaled form (7), [`Opic::scaled_importance`], is the page weight `w` of
//! `freshet_policy::Page` (seed 000's `w_i`; seed 003's crawl value
//! `V(τ) = (w/λ)(1 − e^(−λτ)) − wτe^(−λτ)`), and `V` is linear in `w`: a page twice as important
//! is worth twice as much at the same staleness, and reaches the threshold `λ_i + λ_0` sooner.
//! Only ratios of weights matter (the threshold `λ_0` follows the budget), hence mean 1. A new
//! page starts with cash 1, so its weight is never 0 (the policy wants `w > 0`); it is about
//! `1/(passes + 1)` until its referrers are fetched.

use crate::error::{RankError, Result};
use crate::links::distinct_out_links;

/// The damping `d` of PageRank and of the test web: the fraction of a page's cash that follows
/// its links; the rest goes to the virtual page.
pub const DEFAULT_DAMPING: f64 = 0.85;

/// Slack relative to the total cash `n` when cash is checked against invariant (I1): room for
/// the rounding of a sum over many pages.
const CASH_SLACK: f64 = 1e-9;

/// One page's OPIC state, as a crawler persists it and [`Opic::restore`] takes it back.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PageCash {
    /// `C_i`: cash received since the page was last fetched.
    pub cash: f64,
    /// `H_i`: cash the page has passed on, over all its fetches.
    pub history: f64,
}

/// A page's account as stored: `C_i − a` (see the module docs) and `H_i`.
#[derive(Debug, Clone, Copy)]
struct Account {
    cash_minus_handed_out: f64,
    history: f64,
}

/// Online OPIC over dense page ids `0..page_count()`; see the [module docs](self) for the
/// scheme, its invariants and its estimates.
#[derive(Debug, Clone)]
pub struct Opic {
    damping: f64,
    accounts: Vec<Account>,
    /// `a`: the cash per known page that the virtual page has handed out so far.
    handed_out_per_page: f64,
    virtual_cash: f64,
    virtual_history: f64,
    /// `Σ_i H_i`, kept so that (7) is O(1).
    page_history: f64,
    /// `b`: cash received from other processes' estimators less cash handed to them (see
    /// "Across processes" in the module docs).
    external_balance: f64,
    /// The fraction of the virtual page's cash handed out here (1 in a crawl of one process).
    local_teleport: f64,
    /// The virtual page's cash kept for other processes' pages, not yet taken.
    teleport_export: f64,
    scratch: Vec<u32>,
}

impl Default for Opic {
    fn default() -> Self {
        Self::new()
    }
}

impl Opic {
    /// No pages, no cash, damping [`DEFAULT_DAMPING`].
    #[must_use]
    pub fn new() -> Self {
        Self {
            damping: DEFAULT_DAMPING,
            accounts: Vec::new(),
            handed_out_per_page: 0.0,
            virtual_cash: 0.0,
            virtual_history: 0.0,
            page_history: 0.0,
            external_balance: 0.0,
            local_teleport: 1.0,
            teleport_export: 0.0,
            scratch: Vec::new(),
        }
    }

    /// Like [`Opic::new`] with damping `d ∈ (0, 1]`. With `d = 1` only dangling pages feed the
    /// virtual page, and a graph that is not strongly connected pools its cash in its sinks.
    ///
    /// # Errors
    /// [`RankError::InvalidDamping`] if `d` is not in `(0, 1]`.
    pub fn with_damping(damping: f64) -> Result<Self> {
        if !(damping > 0.0 && damping <= 1.0) {
            return Err(RankError::InvalidDamping { damping, range: "(0, 1]" });
        }
        Ok(Self { damping, ..Self::new() })
    }

    /// The damping `d`.
    #[must_use]
    pub fn damping(&self) -> f64 {
        self.damping
    }

    /// Number of known pages `n`: one more than the largest id seen.
    #[must_use]
    pub fn page_count(&self) -> u32 {
        // At most u32::MAX + 1 accounts can exist only if id u32::MAX was added; saturate.
        u32::try_from(self.accounts.len()).unwrap_or(u32::MAX)
    }

    /// Makes `page` known, with cash 1 (step 0). Ids are dense (the frontier store allocates
    /// them in order), so the table grows to `page + 1` and any smaller id not seen yet becomes
    /// known too, also with cash 1: the store allocated it, so the page exists. Adding a known
    /// page does nothing.
    pub fn add_page(&mut self, page: u32) {
        make_known(&mut self.accounts, self.handed_out_per_page, page);
    }

    /// Page `page` was fetched and links to `out_links`: steps (1)–(4) of the module docs.
    ///
    /// `page` and every out-link not yet known are added first (as by [`Opic::add_page`]).
    /// Out-links are a set: repeats count once and a link to `page` itself is dropped, so a
    /// page whose only link is to itself is dangling. O(|out_links|) when they come sorted and
    /// distinct, O(k log k) otherwise; no allocation once the table and the scratch list have
    /// grown.
    pub fn fetched(&mut self, page: u32, out_links: &[u32]) {
        self.fetched_with_external(page, out_links, 0);
    }

    /// [`Opic::fetched`] for a page that also links to `external` distinct pages held by
    /// other processes' estimators (see "Across processes" in the module docs): each of those
    /// links carries the same share `d·c/(|L_i| + external)` as a link here, which leaves this
    /// estimator; returns that share (0 when `external` is 0), for the caller to hand to each
    /// such page's owner ([`Opic::receive`] there).
    pub fn fetched_with_external(&mut self, page: u32, out_links: &[u32], external: usize) -> f64 {
        let links = distinct_out_links(&mut self.scratch, page, out_links);
        let handed_out = self.handed_out_per_page;
        make_known(&mut self.accounts, handed_out, page);
        if let Some(&largest) = links.last() {
            make_known(&mut self.accounts, handed_out, largest);
        }
        // (1) visit page: its cash moves into its history.
        let account = &mut self.accounts[page as usize];
        let cash = account.cash_minus_handed_out + handed_out;
        account.history += cash;
        account.cash_minus_handed_out = -handed_out;
        self.page_history += cash;
        let mut external_share = 0.0;
        if links.is_empty() && external == 0 {
            // (3) a dangling page gives everything to the virtual page.
            self.virtual_cash += cash;
        } else {
            // (2) hand on d·c in equal shares, some of them to other processes' pages; (3) the
            // rest to the virtual page.
            let share = self.damping * cash / (links.len() + external) as f64;
            for &to in links {
                self.accounts[to as usize].cash_minus_handed_out += share;
            }
            if external > 0 {
                external_share = share;
                self.external_balance -= share * external as f64;
            }
            self.virtual_cash += (1.0 - self.damping) * cash;
        }
        self.visit_virtual();
        external_share
    }

    /// Credits `cash` handed on by another process's estimator ([`Opic::fetched_with_external`]
    /// there) to `page`, or, with `None` (a page this estimator does not hold), to every known
    /// page through the virtual page. A page not yet known becomes known first.
    ///
    /// # Errors
    /// [`RankError::InvalidState`] for cash that is negative or not finite; nothing changes.
    pub fn receive(&mut self, page: Option<u32>, cash: f64) -> Result<()> {
        check_state(page.unwrap_or(u32::MAX), PageCash { cash, history: 0.0 })?;
        self.external_balance += cash;
        match page {
            Some(page) => {
                make_known(&mut self.accounts, self.handed_out_per_page, page);
                self.accounts[page as usize].cash_minus_handed_out += cash;
            }
            None if self.accounts.is_empty() => self.virtual_cash += cash,
            None => {
                self.virtual_cash += cash;
                self.visit_virtual();
            }
        }
        Ok(())
    }

    /// Step (4): the virtual page hands its cash out, an equal share to every known page (in
    /// O(1)), of the fraction that is this process's (see "Across processes").
    fn visit_virtual(&mut self) {
        if self.accounts.is_empty() {
            return;
        }
        let local = self.virtual_cash * self.local_teleport;
        let export = self.virtual_cash - local;
        self.handed_out_per_page += local / self.accounts.len() as f64;
        self.teleport_export += export;
        self.external_balance -= export;
        self.virtual_history += self.virtual_cash;
        self.virtual_cash = 0.0;
    }

    /// Sets the fraction of the virtual page's cash handed out to this estimator's pages, the
    /// rest being kept for other processes' ([`Opic::take_teleport_export`]): `n/N`, this
    /// process's share of the crawl's pages (see "Across processes"); 1, the default, for a
    /// crawl of one process.
    ///
    /// # Errors
    /// [`RankError::InvalidState`] unless `0 < fraction ≤ 1`; nothing changes.
    pub fn set_local_teleport(&mut self, fraction: f64) -> Result<()> {
        if !(fraction > 0.0 && fraction <= 1.0) {
            return Err(RankError::InvalidState {
                page: u32::MAX,
                field: "local teleport fraction",
                value: fraction,
            });
        }
        self.local_teleport = fraction;
        Ok(())
    }

    /// The virtual page's cash kept for other processes' pages since the last call, to be
    /// handed to them in proportion to their pages (each credits it with
    /// [`Opic::receive_teleport`]).
    pub fn take_teleport_export(&mut self) -> f64 {
        std::mem::take(&mut self.teleport_export)
    }

    /// Spreads `cash` that another process's virtual page kept for this one's pages over
    /// them, an equal share each (with no page known yet, it waits with the virtual page).
    ///
    /// # Errors
    /// [`RankError::InvalidState`] for cash that is negative or not finite; nothing changes.
    pub fn receive_teleport(&mut self, cash: f64) -> Result<()> {
        check_state(u32::MAX, PageCash { cash, history: 0.0 })?;
        self.external_balance += cash;
        if self.accounts.is_empty() {
            self.virtual_cash += cash;
        } else {
            self.handed_out_per_page += cash / self.accounts.len() as f64;
            self.virtual_history += cash;
        }
        Ok(())
    }

    /// `X_i = (H_i + C_i) / (G + n)`, eq. (5): seed 002's estimator 3, whose total cash 1 is
    /// `n` here. Over the known pages and the virtual page these sum to 1; 0 for an unknown page.
    #[must_use]
    pub fn importance(&self, page: u32) -> f64 {
        self.state(page)
            .map_or(0.0, |state| (state.history + state.cash) / (self.total_history() + self.total_cash()))
    }

    /// `w_i = n (H_i + C_i) / Σ_j (H_j + C_j)`, eq. (7): importance scaled to mean 1 over the
    /// known pages, the weight the crawl value function wants; it tends to `n · PageRank_i`.
    /// Before any fetch every known page has 1. O(1); 0 for an unknown page.
    #[must_use]
    pub fn scaled_importance(&self, page: u32) -> f64 {
        let Some(state) = self.state(page) else { return 0.0 };
        // Σ_j (H_j + C_j) = Σ H + (n + b − C_Ω) by (I1): at least the cash of `page`.
        let known_total = self.page_history + (self.total_cash() - self.virtual_cash);
        if known_total <= 0.0 {
            return 1.0;
        }
        self.accounts.len() as f64 * (state.history + state.cash) / known_total
    }

    /// The total cash `n + b` (invariant I1): one unit per known page, plus the cash imported
    /// from other processes' estimators less the cash exported to them (0 in a crawl of one
    /// process).
    #[must_use]
    pub fn total_cash(&self) -> f64 {
        self.accounts.len() as f64 + self.external_balance
    }

    /// `G`, the total history: all the cash that has passed through any page, the virtual one
    /// included (invariant I2).
    #[must_use]
    pub fn total_history(&self) -> f64 {
        self.page_history + self.virtual_history
    }

    /// Page `page`'s cash and history, for persisting; `None` for an unknown page.
    #[must_use]
    pub fn state(&self, page: u32) -> Option<PageCash> {
        self.accounts.get(page as usize).map(|account| PageCash {
            cash: account.cash_minus_handed_out + self.handed_out_per_page,
            history: account.history,
        })
    }

    /// The virtual page's cash and history, for persisting with the pages.
    #[must_use]
    pub fn virtual_page(&self) -> PageCash {
        PageCash { cash: self.virtual_cash, history: self.virtual_history }
    }

    /// Sets page `page`'s state (making it known, with cash 1 first, as by
    /// [`Opic::add_page`]), moving the difference in cash to or from the virtual page so that
    /// invariant (I1) holds, and adding the difference in history to `G`.
    ///
    /// To rebuild a persisted estimator: [`Opic::with_damping`], `restore` every page, then
    /// [`Opic::restore_virtual`], which checks that the cash left to the virtual page is the
    /// cash that was saved for it. Between the two the virtual page's cash may be negative (a
    /// page restored early may hold more than the one unit it brought).
    ///
    /// # Errors
    /// [`RankError::InvalidState`] for a negative or non-finite value; nothing is changed.
    pub fn restore(&mut self, page: u32, state: PageCash) -> Result<()> {
        check_state(page, state)?;
        make_known(&mut self.accounts, self.handed_out_per_page, page);
        let account = &mut self.accounts[page as usize];
        let old_cash = account.cash_minus_handed_out + self.handed_out_per_page;
        self.virtual_cash += old_cash - state.cash;
        self.page_history += state.history - account.history;
        *account =
            Account { cash_minus_handed_out: state.cash - self.handed_out_per_page, history: state.history };
        Ok(())
    }

    /// Sets the virtual page's state after the pages have been restored.
    ///
    /// # Errors
    /// [`RankError::InvalidState`] for a non-finite value or a negative history;
    /// [`RankError::NotConserved`] if `state.cash` differs from the cash the restored pages
    /// leave out of the total `n` by more than `1e-9 n` (invariant I1). Nothing is changed on
    /// error.
    pub fn restore_virtual(&mut self, state: PageCash) -> Result<()> {
        check_state(u32::MAX, PageCash { cash: state.cash.abs(), ..state })?;
        if (state.cash - self.virtual_cash).abs() > CASH_SLACK * self.total_cash().max(1.0) {
            return Err(RankError::NotConserved {
                quantity: "cash",
                expected: self.virtual_cash,
                found: state.cash,
            });
        }
        self.virtual_cash = state.cash;
        self.virtual_history = state.history;
        Ok(())
    }

    /// Verifies invariants (I1) `Σ C + C_Ω = n` and (I2) `Σ H + H_Ω = G`, both to 1e-9
    /// relative, by summing over every page: O(n), for tests and after a rebuild.
    ///
    /// # Errors
    /// [`RankError::NotConserved`] naming the quantity that drifted.
    pub fn check(&self) -> Result<()> {
        let (mut cash, mut history) = (self.virtual_cash, 0.0);
        for account in &self.accounts {
            cash += account.cash_minus_handed_out + self.handed_out_per_page;
            history += account.history;
        }
        let total_cash = self.total_cash();
        if (cash - total_cash).abs() > CASH_SLACK * total_cash.max(1.0) {
            return Err(RankError::NotConserved { quantity: "cash", expected: total_cash, found: cash });
        }
        if (history - self.page_history).abs() > 1e-9 * self.page_history.max(1.0) {
            return Err(RankError::NotConserved {
                quantity: "history",
                expected: self.page_history,
                found: history,
            });
        }
        Ok(())
    }

    /// Heap bytes held, from capacities: 16 per page slot plus the scratch link list.
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        self.accounts.capacity() * size_of::<Account>() + self.scratch.capacity() * size_of::<u32>()
    }
}

/// Grows `accounts` so that `page` is known; new pages start with cash 1 (`C − a = 1 − a`).
fn make_known(accounts: &mut Vec<Account>, handed_out: f64, page: u32) {
    let needed = page as usize + 1;
    if accounts.len() < needed {
        accounts.resize(needed, Account { cash_minus_handed_out: 1.0 - handed_out, history: 0.0 });
    }
}

fn check_state(page: u32, state: PageCash) -> Result<()> {
    for (field, value) in [("cash", state.cash), ("history", state.history)] {
        if !(value.is_finite() && value >= 0.0) {
            return Err(RankError::InvalidState { page, field, value });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// Fetches every page of `links` in id order, `passes` times.
    fn crawl(opic: &mut Opic, links: &[&[u32]], passes: usize) {
        for _ in 0..passes {
            for (page, out) in links.iter().enumerate() {
                opic.fetched(page as u32, out);
            }
        }
    }

    #[test]
    fn a_three_page_cycle_converges_to_a_third_each() {
        // d = 1: nothing reaches the virtual page, so the raw estimate (5) itself tends to 1/3
        // (the first turn's uneven cash, 1 then 2 then 3 units, weighs less with every turn).
        let mut opic = Opic::with_damping(1.0).unwrap();
        crawl(&mut opic, &[&[1], &[2], &[0]], 3000);
        for page in 0..3 {
            assert!((opic.importance(page) - 1.0 / 3.0).abs() < 1e-3, "{}", opic.importance(page));
        }
        // With the default damping the virtual page takes a share, the scaled form stays 1 each.
        let mut damped = Opic::new();
        crawl(&mut damped, &[&[1], &[2], &[0]], 3000);
        for page in 0..3 {
            assert!((damped.scaled_importance(page) - 1.0).abs() < 1e-3);
        }
        opic.check().unwrap();
        damped.check().unwrap();
    }

    #[test]
    fn a_dangling_page_passes_its_cash_to_everyone() {
        // 0 → 1, 0 → 2, 1 → 2, 2 dangling. PageRank (d = 0.85, dangling spread uniformly):
        // r0 = t, r1 = t + 0.425 r0, r2 = t + 0.425 r0 + 0.85 r1, t = (0.15 + 0.85 r2)/3.
        let mut opic = Opic::new();
        crawl(&mut opic, &[&[1, 2], &[2], &[]], 4000);
        let (t, r0, r1, r2) = solve_three_page_pagerank();
        assert!((r0 + r1 + r2 - 1.0).abs() < 1e-12 && t > 0.0);
        for (page, rank) in [r0, r1, r2].into_iter().enumerate() {
            let w = opic.scaled_importance(page as u32);
            assert!((w - 3.0 * rank).abs() < 2e-3, "page {page}: {w} vs {}", 3.0 * rank);
        }
        opic.check().unwrap();
    }

    /// The three-page example's PageRank by fixed-point iteration of the equations above.
    fn solve_three_page_pagerank() -> (f64, f64, f64, f64) {
        let (mut r0, mut r1, mut r2) = (1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0);
        let mut t = 0.0;
        for _ in 0..500 {
            t = (0.15 + 0.85 * r2) / 3.0;
            r0 = t;
            r1 = t + 0.425 * r0;
            r2 = t + 0.425 * r0 + 0.85 * r1;
        }
        (t, r0, r1, r2)
    }

    #[test]
    fn the_virtual_page_reaches_pages_no_link_points_to() {
        // 0 ↔ 1, and 2 → 0: nothing links to 2, yet the virtual page gives it cash, and its
        // estimate is the teleport share alone, (1 − d)/n of the total in PageRank terms.
        let mut opic = Opic::new();
        crawl(&mut opic, &[&[1], &[0], &[0]], 4000);
        let w2 = opic.scaled_importance(2);
        assert!((w2 - 0.15).abs() < 1e-3, "{w2}");
        assert!(opic.virtual_page().history > 0.0);
        assert_eq!(opic.virtual_page().cash, 0.0, "the virtual page is visited after every fetch");
        // (5) over pages and the virtual page sums to 1.
        let x_virtual = opic.virtual_page().history / (opic.total_history() + opic.total_cash());
        let sum: f64 = (0..3).map(|p| opic.importance(p)).sum::<f64>() + x_virtual;
        assert!((sum - 1.0).abs() < 1e-12, "{sum}");
    }

    #[test]
    fn links_are_a_set_and_unknown_targets_are_added() {
        let mut repeated = Opic::new();
        let mut clean = Opic::new();
        for _ in 0..5 {
            repeated.fetched(0, &[3, 1, 3, 0, 1]);
            clean.fetched(0, &[1, 3]);
        }
        assert_eq!(repeated.page_count(), 4);
        for page in 0..4 {
            assert_eq!(repeated.state(page), clean.state(page));
        }
        assert_eq!(repeated.state(4), None);
        assert_eq!(repeated.importance(4), 0.0);
    }

    #[test]
    fn restore_rebuilds_the_same_estimator_and_detects_extra_cash() {
        let mut opic = Opic::new();
        crawl(&mut opic, &[&[1, 2], &[2, 3], &[0], &[]], 7);
        let mut rebuilt = Opic::new();
        for page in 0..opic.page_count() {
            rebuilt.restore(page, opic.state(page).unwrap()).unwrap();
        }
        rebuilt.restore_virtual(opic.virtual_page()).unwrap();
        rebuilt.check().unwrap();
        for page in 0..4 {
            assert!((rebuilt.importance(page) - opic.importance(page)).abs() < 1e-15);
            assert!((rebuilt.scaled_importance(page) - opic.scaled_importance(page)).abs() < 1e-12);
        }
        let before = rebuilt.state(1);
        let err = rebuilt.restore(1, PageCash { cash: f64::NAN, history: 0.0 }).unwrap_err();
        assert!(matches!(err, RankError::InvalidState { field: "cash", .. }), "{err}");
        assert_eq!(rebuilt.state(1), before, "nothing changes on error");
        let err = rebuilt.restore_virtual(PageCash { cash: 0.5, history: 0.0 }).unwrap_err();
        assert!(matches!(err, RankError::NotConserved { quantity: "cash", .. }), "{err}");
        // A page restored with cash that no page gave up: the virtual page cannot match it.
        rebuilt.restore(1, PageCash { cash: 5.0, history: 0.0 }).unwrap();
        let err = rebuilt.restore_virtual(opic.virtual_page()).unwrap_err();
        assert!(matches!(err, RankError::NotConserved { quantity: "cash", .. }), "{err}");
        // A restored page's extra cash comes out of the virtual page's: here page 1's spare 0.5.
        let mut short = Opic::new();
        short.restore(0, PageCash { cash: 1.5, history: 0.0 }).unwrap();
        assert_eq!(short.virtual_page().cash, -0.5, "owed until page 1 is restored");
        short.restore(1, PageCash { cash: 0.5, history: 3.0 }).unwrap();
        short.restore_virtual(PageCash { cash: 0.0, history: 1.0 }).unwrap();
        short.check().unwrap();
        assert_eq!(short.total_history(), 4.0);
    }

    #[test]
    fn cash_handed_to_another_process_leaves_and_arrives_whole() {
        let (mut here, mut there) = (Opic::new(), Opic::new());
        here.add_page(0);
        here.add_page(1);
        there.add_page(0);
        // Page 0 here links to page 1 here and to two pages there: four shares of d·1/3 each
        // would be wrong, three are right (one here, two there).
        let share = here.fetched_with_external(0, &[1], 2);
        assert!((share - DEFAULT_DAMPING / 3.0).abs() < 1e-12, "{share}");
        assert!((here.total_cash() - (2.0 - 2.0 * share)).abs() < 1e-12);
        here.check().unwrap();
        there.receive(Some(0), share).unwrap();
        there.receive(Some(3), share).unwrap();
        there.check().unwrap();
        assert_eq!(there.page_count(), 4, "a page first named by another process becomes known");
        assert!((here.total_cash() + there.total_cash() - 6.0).abs() < 1e-12, "nothing in transit: n in all");
        // Cash for no page of ours goes to every page through the virtual page.
        let before: Vec<f64> = (0..4).map(|page| there.state(page).unwrap().cash).collect();
        there.receive(None, 0.4).unwrap();
        for (page, cash) in before.iter().enumerate() {
            assert!((there.state(page as u32).unwrap().cash - cash - 0.1).abs() < 1e-12);
        }
        there.check().unwrap();
        // Weights keep mean 1 over a process's own pages, whatever it imported.
        let mean = (0..4).map(|page| there.scaled_importance(page)).sum::<f64>() / 4.0;
        assert!((mean - 1.0).abs() < 1e-12, "{mean}");
        for bad in [-0.1, f64::NAN, f64::INFINITY] {
            assert!(there.receive(Some(0), bad).is_err(), "{bad}");
        }
        there.check().unwrap();
        // No link here and none there: dangling, nothing leaves.
        assert_eq!(here.fetched_with_external(1, &[], 0), 0.0);
        here.check().unwrap();
    }

    #[test]
    fn a_process_that_links_nowhere_else_does_not_drain_the_others() {
        // Process A's five pages each link to B's page 0 (x) only; B's x and y link nowhere.
        let run = |global: bool| {
            let (mut a, mut b) = (Opic::new(), Opic::new());
            (0..5).for_each(|page| a.add_page(page));
            (0..2).for_each(|page| b.add_page(page));
            if global {
                a.set_local_teleport(5.0 / 7.0).unwrap();
                b.set_local_teleport(2.0 / 7.0).unwrap();
            }
            for _ in 0..100 {
                for page in 0..5 {
                    let share = a.fetched_with_external(page, &[], 1);
                    b.receive(Some(0), share).unwrap();
                }
                b.fetched(0, &[]);
                b.fetched(1, &[]);
                let (from_a, from_b) = (a.take_teleport_export(), b.take_teleport_export());
                b.receive_teleport(from_a).unwrap();
                a.receive_teleport(from_b).unwrap();
            }
            a.check().unwrap();
            b.check().unwrap();
            assert!((a.total_cash() + b.total_cash() - 7.0).abs() < 1e-9);
            (a.total_cash(), b.scaled_importance(0) / b.scaled_importance(1))
        };
        // PageRank of the whole graph (d = 0.85, uniform teleport and dangling mass): every A
        // page r_a = 0.15/7 + 0.85·D/7, x = r_a + 0.85·5·r_a, y = r_a, so x/y = 5.25.
        let (cash_a, ratio) = run(true);
        assert!(cash_a > 2.5, "A keeps its share of the cash: {cash_a}");
        assert!((ratio - 5.25).abs() < 0.1, "x/y {ratio}");
        // With the teleport kept home, B is a sink: A drains into it and x, y come out alike.
        let (cash_a, ratio) = run(false);
        assert!(cash_a < 0.01, "{cash_a}");
        assert!(ratio < 2.0, "x/y {ratio}");
        let mut opic = Opic::new();
        assert!(opic.set_local_teleport(0.0).is_err() && opic.set_local_teleport(1.5).is_err());
        assert!(opic.receive_teleport(f64::NAN).is_err());
    }

    #[test]
    fn before_any_fetch_every_known_page_weighs_one() {
        let mut opic = Opic::new();
        opic.add_page(2);
        assert_eq!(opic.page_count(), 3);
        assert_eq!(opic.scaled_importance(0), 1.0);
        assert_eq!(opic.importance(0), 1.0 / 3.0);
        assert_eq!(opic.total_cash(), 3.0);
        assert_eq!(opic.scaled_importance(3), 0.0);
        assert!(Opic::with_damping(0.0).is_err() && Opic::with_damping(1.5).is_err());
    }
}
