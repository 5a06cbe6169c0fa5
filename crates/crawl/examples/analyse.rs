//! The per-page CPU of a crawl's page analysis, outside a crawl: every `.html` file under a
//! directory (e.g. the static-site bench's, `experiments/static-site/gen_site.py`) read once into
//! memory, then analysed as the crawler's jobs do (one `lol_html` pass for the links and the
//! main text, then the content signature), `ROUNDS` times over. For profiling
//! (`perf`, `valgrind --tool=callgrind`) and for comparing builds by CPU time.
//!
//! `cargo run --release -p freshet-crawl --example analyse -- DIR [ROUNDS]`

use std::path::{Path, PathBuf};
use std::time::Instant;

use freshet_content::{BoilerplateSet, MainTextPass, Signature};
use freshet_fetch::links::{LinkOptions, extract_links, extract_links_sharing};

fn html_files(dir: &Path, found: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            html_files(&path, found)?;
        } else if path.extension().is_some_and(|extension| extension == "html") {
            found.push(path);
        }
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(args.next().ok_or("usage: analyse DIR [ROUNDS]")?);
    let rounds: usize = args.next().map(|rounds| rounds.parse()).transpose()?.unwrap_or(1);
    // What to do per page: `links` (the link handlers only), `text` (and the main text), or
    // `all` (and the signature, as the crawler does; the default).
    let mode = args.next().unwrap_or_else(|| "all".to_owned());
    let mut paths = Vec::new();
    html_files(&dir, &mut paths)?;
    paths.sort();
    let pages: Vec<Vec<u8>> = paths.iter().map(std::fs::read).collect::<Result<_, _>>()?;
    let base = freshet_url::canonicalize("http://127.0.0.1:8080/")?;
    let options = LinkOptions::default();
    let boilerplate = BoilerplateSet::default();
    let (mut links, mut signatures) = (0_usize, 0_u64);
    let started = Instant::now();
    for _ in 0..rounds {
        for (path, body) in paths.iter().zip(&pages) {
            let url = base.join(&path.strip_prefix(&dir)?.to_string_lossy())?;
            if mode == "links" {
                let found = extract_links(&url, Some("text/html"), body, &options);
                links += found.links.len();
                continue;
            }
            let pass = MainTextPass::new();
            let (found, shared) =
                extract_links_sharing(&url, Some("text/html"), body, &options, |settings, links| {
                    pass.add_handlers_with(settings, move |element, name| {
                        links.element(element, name);
                        Ok(())
                    })
                });
            let text = if shared { pass.finish(None) } else { return Err("not read in one pass".into()) };
            links += found.links.len();
            if mode == "text" {
                signatures = signatures.wrapping_add(text.blocks().len() as u64);
                continue;
            }
            let signature = Signature::of_text_without(&text, |hash| boilerplate.contains(hash));
            signatures = signatures.wrapping_add(signature.simhash);
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    let analysed = pages.len() * rounds;
    println!(
        "{analysed} pages, {links} links, checksum {signatures:016x}: {:.1} µs per page ({:.0} pages/s)",
        1e6 * seconds / analysed as f64,
        analysed as f64 / seconds
    );
    Ok(())
}
