//! The estimators against the test web's true importance (PageRank of its whole graph, damping
//! 0.85, mean 1): a simulated crawl from `h0.web.test/` discovers the graph breadth first, then
//! fetches every known page again, pass after pass; after 1, 2, 5 and 10 passes OPIC's weights
//! are rank-correlated (Spearman) with the truth. In-degree is measured the same way, and
//! `pagerank` on the full graph must reproduce the truth itself.
//!
//! The thresholds were measured (the series is printed; `cargo test -p freshet-rank --test
//! testweb -- --nocapture`) and asserted with a margin.
#![allow(clippy::unwrap_used)]

use freshet_rank::{CsrGraph, InDegree, LinkImportance, Opic, pagerank};
use freshet_testweb::{Web, WebConfig};

fn web() -> Web {
    Web::new(WebConfig { hosts: 10, pages: 1000, ..WebConfig::default() }).unwrap()
}

/// Ranks from 1, ties given their average rank.
fn ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut rank = vec![0.0; values.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && values[order[end]] == values[order[start]] {
            end += 1;
        }
        let average = (start + end + 1) as f64 / 2.0;
        for &i in &order[start..end] {
            rank[i] = average;
        }
        start = end;
    }
    rank
}

/// Spearman's rank correlation: Pearson's correlation of the ranks.
fn spearman(a: &[f64], b: &[f64]) -> f64 {
    let (ra, rb) = (ranks(a), ranks(b));
    let n = ra.len() as f64;
    let (ma, mb) = (ra.iter().sum::<f64>() / n, rb.iter().sum::<f64>() / n);
    let (mut cov, mut va, mut vb) = (0.0, 0.0, 0.0);
    for (x, y) in ra.iter().zip(&rb) {
        cov += (x - ma) * (y - mb);
        va += (x - ma) * (x - ma);
        vb += (y - mb) * (y - mb);
    }
    cov / (va * vb).sqrt()
}

#[test]
fn spearman_helper_on_known_cases() {
    assert!((spearman(&[1.0, 2.0, 3.0, 4.0], &[10.0, 20.0, 30.0, 40.0]) - 1.0).abs() < 1e-12);
    assert!((spearman(&[1.0, 2.0, 3.0, 4.0], &[4.0, 3.0, 2.0, 1.0]) + 1.0).abs() < 1e-12);
    // Ranks 1, 2.5, 2.5, 4 against 1, 2, 3, 4: Σ d² = 0.5 is not the formula with ties; the
    // Pearson form gives cov 4.5 over √(4.5·5).
    assert!((spearman(&[1.0, 2.0, 2.0, 3.0], &[1.0, 2.0, 3.0, 4.0]) - (4.5f64 / 5.0).sqrt()).abs() < 1e-12);
    assert_eq!(ranks(&[3.0, 1.0, 3.0]), vec![2.5, 1.0, 2.5]);
}

/// A crawler's view of the test web. Like the frontier store, it numbers pages densely in the
/// order it discovers them; the estimators see those ids, never the web's.
struct Crawl<'w> {
    web: &'w Web,
    /// Web ids by crawler id: discovery order.
    order: Vec<u32>,
    /// Crawler id by web id; `u32::MAX` for a page not discovered.
    crawler_id: Vec<u32>,
    scratch: Vec<u32>,
}

impl<'w> Crawl<'w> {
    /// Pass 1: breadth first from page 0 (h0's root), feeding `estimator` each fetched page's
    /// links. robots.txt is obeyed: a disallowed page is never fetched, so links to it are left
    /// out of what the estimator sees (cash sent there would stay there; see the `opic` docs).
    fn breadth_first(web: &'w Web, estimator: &mut impl LinkImportance) -> Self {
        let mut crawl = Self {
            web,
            order: vec![0],
            crawler_id: vec![u32::MAX; web.page_count() as usize],
            scratch: Vec::new(),
        };
        crawl.crawler_id[0] = 0;
        estimator.add_page(0);
        let mut next = 0;
        while next < crawl.order.len() {
            crawl.discover_links(crawl.order[next]);
            estimator.fetched(next as u32, &crawl.scratch);
            next += 1;
        }
        crawl
    }

    /// The crawler ids of the allowed pages `page` links to, into `self.scratch`, numbering the
    /// pages seen for the first time.
    fn discover_links(&mut self, page: u32) {
        self.scratch.clear();
        for &to in self.web.links(page) {
            if !self.web.page(to).unwrap().allowed {
                continue;
            }
            if self.crawler_id[to as usize] == u32::MAX {
                self.crawler_id[to as usize] = self.order.len() as u32;
                self.order.push(to);
            }
            self.scratch.push(self.crawler_id[to as usize]);
        }
    }

    /// One more pass: every known page fetched again, in discovery order.
    fn revisit(&mut self, estimator: &mut impl LinkImportance) {
        for id in 0..self.order.len() {
            self.discover_links(self.order[id]);
            estimator.fetched(id as u32, &self.scratch);
        }
    }

    /// Spearman correlation of `estimator`'s weights with the true importance, over the pages
    /// crawled.
    fn correlation(&self, estimator: &impl LinkImportance) -> f64 {
        let estimate: Vec<f64> = (0..self.order.len() as u32).map(|id| estimator.weight(id)).collect();
        let truth: Vec<f64> =
            self.order.iter().map(|&page| self.web.page(page).unwrap().importance).collect();
        spearman(&estimate, &truth)
    }
}

/// Spearman correlation of the PageRank of the graph the crawl saw (allowed pages, the links
/// between them) with the true importance: the best any estimator fed by this crawl can reach.
fn crawled_graph_ceiling(crawl: &Crawl<'_>) -> f64 {
    let mut links = Vec::new();
    for (id, &page) in crawl.order.iter().enumerate() {
        for &to in crawl.web.links(page) {
            if crawl.web.page(to).unwrap().allowed {
                links.push((id as u32, crawl.crawler_id[to as usize]));
            }
        }
    }
    let n = crawl.order.len() as u32;
    let rank = pagerank(&CsrGraph::from_links(n, &links).unwrap(), 0.85, 1e-12).unwrap();
    let truth: Vec<f64> = crawl.order.iter().map(|&page| crawl.web.page(page).unwrap().importance).collect();
    spearman(&rank, &truth)
}

#[test]
fn opic_ranks_pages_like_the_true_pagerank() {
    let web = web();
    let mut opic = Opic::new();
    let mut crawl = Crawl::breadth_first(&web, &mut opic);
    let allowed = web.pages().iter().filter(|page| page.allowed).count();
    assert_eq!(crawl.order.len(), allowed, "every allowed page is reachable from h0's root");
    let mut series = vec![(1, crawl.correlation(&opic))];
    for pass in 2..=10 {
        crawl.revisit(&mut opic);
        if [2, 5, 10].contains(&pass) {
            series.push((pass, crawl.correlation(&opic)));
        }
    }
    opic.check().unwrap();
    let ceiling = crawled_graph_ceiling(&crawl);
    println!(
        "OPIC Spearman vs true PageRank after passes: {series:?}; PageRank of the crawled graph: {ceiling:.4}"
    );
    // Measured (seed 1, 10 hosts, 1,000 pages): 0.836, 0.948, 0.975, 0.978; ceiling 0.979.
    for (pass, minimum) in [(1, 0.80), (2, 0.92), (5, 0.95), (10, 0.96)] {
        let rho = series.iter().find(|&&(p, _)| p == pass).unwrap().1;
        assert!(rho >= minimum, "after {pass} passes: {rho} < {minimum}; {series:?}");
    }
    assert!(
        ceiling - series[3].1 < 0.005,
        "10 passes reach the crawled graph's PageRank: {series:?} vs {ceiling}"
    );
}

#[test]
fn in_degree_ranks_pages_like_the_true_pagerank() {
    let web = web();
    let mut degree = InDegree::new();
    let mut crawl = Crawl::breadth_first(&web, &mut degree);
    let after_one = crawl.correlation(&degree);
    crawl.revisit(&mut degree);
    let after_two = crawl.correlation(&degree);
    println!("in-degree Spearman vs true PageRank: pass 1 {after_one:.4}, pass 2 {after_two:.4}");
    assert_eq!(after_one, after_two, "refetches count nothing");
    // Measured 0.777: in-degree ignores who links, so it trails OPIC after the first pass.
    assert!(after_one >= 0.72, "{after_one}");
}

#[test]
fn pagerank_of_the_full_graph_is_the_true_importance() {
    let web = web();
    let n = web.page_count();
    let links: Vec<(u32, u32)> =
        (0..n).flat_map(|from| web.links(from).iter().map(move |&to| (from, to))).collect();
    let rank = pagerank(&CsrGraph::from_links(n, &links).unwrap(), 0.85, 1e-13).unwrap();
    let worst = (0..n)
        .map(|page| (rank[page as usize] * f64::from(n) - web.page(page).unwrap().importance).abs())
        .fold(0.0, f64::max);
    println!("pagerank vs testweb importance: worst absolute difference (mean-1 scale) {worst:.3e}");
    // Measured 1.8e-6: the test web stops after 50 rounds (error ≤ 2·0.85^50 in L1), this runs
    // to 1e-13.
    assert!(worst < 5e-6, "{worst}");
}

/// OPIC in a crawl shared out among three processes by host, each with its own estimator over
/// its own pages: with the shares of links to other processes' pages handed over
/// (`fetched_with_external`, `receive`) and the virtual page's cash shared by page counts
/// (`set_local_teleport`, `take_teleport_export`, `receive_teleport`), all delivered at the
/// end of each pass (cash arrives late), each process ranks its pages as the estimator of the
/// whole crawl does and keeps its cash; with those links left out and the teleport kept home
/// (closed shards), cash that should cross stays home and the ranking is worse.
#[test]
fn opic_across_processes_ranks_each_process_s_pages_as_one_estimator_does() {
    const PROCESSES: usize = 3;
    let web = web();
    let mut whole = Opic::new();
    let mut crawl = Crawl::breadth_first(&web, &mut whole);
    for _ in 2..=5 {
        crawl.revisit(&mut whole);
    }
    // Each page's process (by host, as freshet's shards) and its id there (dense, in the
    // crawl's discovery order).
    let owner: Vec<usize> =
        crawl.order.iter().map(|&page| web.page(page).unwrap().host as usize % PROCESSES).collect();
    let mut local_id = vec![0_u32; crawl.order.len()];
    let mut counts = [0_u32; PROCESSES];
    for (id, &process) in owner.iter().enumerate() {
        local_id[id] = counts[process];
        counts[process] += 1;
    }
    let run = |exchange: bool| -> Vec<Opic> {
        let mut estimators: Vec<Opic> = (0..PROCESSES).map(|_| Opic::new()).collect();
        for (id, &process) in owner.iter().enumerate() {
            estimators[process].add_page(local_id[id]);
        }
        let total = crawl.order.len() as f64;
        if exchange {
            for (process, estimator) in estimators.iter_mut().enumerate() {
                estimator.set_local_teleport(f64::from(counts[process]) / total).unwrap();
            }
        }
        let mut in_transit: Vec<(usize, u32, f64)> = Vec::new();
        for _pass in 1..=5 {
            for (id, &page) in crawl.order.iter().enumerate() {
                let process = owner[id];
                let (mut here, mut there) = (Vec::new(), Vec::new());
                for &to in web.links(page) {
                    if !web.page(to).unwrap().allowed || to == page {
                        continue;
                    }
                    let to = crawl.crawler_id[to as usize] as usize;
                    if owner[to] == process {
                        here.push(local_id[to]);
                    } else if !there.contains(&to) {
                        there.push(to);
                    }
                }
                let external = if exchange { there.len() } else { 0 };
                let share = estimators[process].fetched_with_external(local_id[id], &here, external);
                for &to in there.iter().take(external) {
                    in_transit.push((owner[to], local_id[to], share));
                }
            }
            for (process, page, cash) in in_transit.drain(..) {
                estimators[process].receive(Some(page), cash).unwrap();
            }
            for from in 0..PROCESSES {
                let export = estimators[from].take_teleport_export();
                let others = total - f64::from(counts[from]);
                for to in (0..PROCESSES).filter(|&to| to != from) {
                    estimators[to].receive_teleport(export * f64::from(counts[to]) / others).unwrap();
                }
            }
        }
        for estimator in &estimators {
            estimator.check().unwrap();
        }
        // Nothing in transit: the cash the processes exchanged sums to zero.
        let cash: f64 = estimators.iter().map(Opic::total_cash).sum();
        assert!((cash - total).abs() < 1e-6 * total, "{cash}");
        if exchange {
            // No process drains into another: each holds about the cash its pages brought.
            for (process, estimator) in estimators.iter().enumerate() {
                let ratio = estimator.total_cash() / f64::from(counts[process]);
                println!("process {process}: cash {ratio:.3} of its pages' count");
                assert!((0.5..2.0).contains(&ratio), "process {process}: {ratio}");
            }
        }
        estimators
    };
    let (shared, closed) = (run(true), run(false));
    for process in 0..PROCESSES {
        let ids: Vec<usize> = (0..crawl.order.len()).filter(|&id| owner[id] == process).collect();
        let truth: Vec<f64> = ids.iter().map(|&id| web.page(crawl.order[id]).unwrap().importance).collect();
        let of = |estimator: &Opic| -> Vec<f64> {
            ids.iter().map(|&id| estimator.scaled_importance(local_id[id])).collect()
        };
        let whole_rho =
            spearman(&ids.iter().map(|&id| whole.scaled_importance(id as u32)).collect::<Vec<_>>(), &truth);
        let shared_rho = spearman(&of(&shared[process]), &truth);
        let closed_rho = spearman(&of(&closed[process]), &truth);
        let mean = of(&shared[process]).iter().sum::<f64>() / ids.len() as f64;
        println!(
            "process {process} ({} pages): Spearman vs truth, one estimator {whole_rho:.4}, shared {shared_rho:.4}, closed {closed_rho:.4}; mean weight {mean:.6}",
            ids.len()
        );
        assert!((mean - 1.0).abs() < 1e-9, "weights have mean 1 over a process's pages: {mean}");
        // Measured (seed 1, 10 hosts, 1,000 pages, 5 passes): one estimator 0.986, 0.982, 0.945;
        // shared 0.985, 0.980, 0.943; closed 0.964, 0.948, 0.901.
        assert!(shared_rho >= whole_rho - 0.01, "process {process}: {shared_rho} against {whole_rho}");
        assert!(
            shared_rho > closed_rho + 0.015,
            "process {process}: {shared_rho} against closed {closed_rho}"
        );
    }
}
