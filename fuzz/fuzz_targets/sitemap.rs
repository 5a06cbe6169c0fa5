//! A sitemap body from the input (XML, text, gzip or a sitemap index): parsing never panics.
#![no_main]

use freshet_fetch::sitemap::{SitemapOptions, parse_sitemap};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let url = freshet_url::canonicalize("https://a.test/sitemap.xml").expect("a valid sitemap URL");
    let _ = parse_sitemap(data, &url, &SitemapOptions::default());
});
