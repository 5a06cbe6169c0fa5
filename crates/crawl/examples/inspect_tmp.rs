#![allow(clippy::unwrap_used, missing_docs)]
use freshet_frontier::FrontierStore as _;
fn main() {
    let dir = std::env::args().nth(1).unwrap();
    let scale: f64 = std::env::args().nth(2).unwrap().parse().unwrap();
    let store = freshet_frontier::RedbStore::open(std::path::Path::new(&dir).join("frontier.redb")).unwrap();
    let model = freshet_testweb::Web::new(freshet_testweb::WebConfig { hosts: 24, pages: 1200, ..Default::default() }).unwrap();
    let mut counts = std::collections::HashMap::new();
    for line in std::fs::read_to_string(std::path::Path::new(&dir).join("crawl.jsonl")).unwrap().lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        if v["kind"] == "page" { *counts.entry(v["url"].as_str().unwrap().to_owned()).or_insert(0) += 1; }
    }
    let mut after = None;
    println!("truth_rate est_rate importance weight fetches obs changes kind");
    loop {
        let pages = store.pages(after, 1000).unwrap();
        let Some(last) = pages.last().map(|p| p.id) else { break };
        for stored in pages {
            let url = freshet_url::canonicalize(&stored.url).unwrap();
            let Some(host) = model.host_index(url.host_str().unwrap()) else { continue };
            let Some(page) = model.lookup(host, url.path()) else { continue };
            let info = model.page(page).unwrap();
            let memory = freshet_crawl::revisit::PageMemory::from_bytes(&stored.record.estimator).unwrap();
            let kind = format!("{:?}", info.process).split_whitespace().next().unwrap().to_owned();
            println!("{:.5} {:.5} {:.3} {:.3} {} {} {} {}", info.process.mean_rate() * scale, stored.record.change_rate, info.importance, stored.record.weight, counts.get(stored.url.as_str()).unwrap_or(&0), memory.history.intervals(), memory.history.changes(), kind);
        }
        after = Some(last);
    }
}
