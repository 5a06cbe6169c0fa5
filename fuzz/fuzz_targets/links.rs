//! An HTML body from the input: link extraction never panics, and every link it returns is a
//! canonical URL.
#![no_main]

use freshet_fetch::links::{LinkOptions, extract_links};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let page = freshet_url::canonicalize("https://a.test/dir/page.html").expect("a valid page URL");
    let options = LinkOptions { max_links: 1_000, ..LinkOptions::default() };
    for content_type in [Some("text/html"), Some("text/html; charset=windows-1252"), None] {
        let found = extract_links(&page, content_type, data, &options);
        for link in &found.links {
            let again = freshet_url::canonicalize(link.url.as_str()).expect("a link is a valid URL");
            assert_eq!(again.as_str(), link.url.as_str(), "a link is not canonical");
        }
    }
});
