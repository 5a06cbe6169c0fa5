//! A URL (or a reference against a base) from the input: canonicalisation never panics and
//! is idempotent, as the frontier's seen-URL set needs (one key per page).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(url) = freshet_url::canonicalize(text) {
        let again = freshet_url::canonicalize(url.as_str()).expect("a canonical URL canonicalises");
        assert_eq!(again.as_str(), url.as_str(), "canonicalisation is not idempotent");
        let _ = freshet_url::path_and_query(&url);
        let _ = freshet_url::origin_key(&url);
    }
    let base = freshet_url::canonicalize("https://a.test/dir/page.html?q=1").expect("a valid base");
    if let Ok(url) = freshet_url::resolve(&base, text) {
        let again = freshet_url::canonicalize(url.as_str()).expect("a resolved URL canonicalises");
        assert_eq!(again.as_str(), url.as_str(), "a resolved URL is not canonical");
    }
});
