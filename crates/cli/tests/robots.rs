//! `freshet robots FILE --agent UA URL…`: one verdict line per URL, and clear failures.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;

const ROBOTS: &str = "\
User-agent: FooBot
Disallow: /
Allow: /public/
Allow: /*.css$

User-agent: *
Disallow: /private/
Crawl-delay: 3
Sitemap: https://a.test/sitemap.xml
";

#[test]
fn one_line_per_url_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "robots.txt", ROBOTS);
    let output = freshet(&[
        "robots",
        &file,
        "--agent",
        "FooBot",
        "https://a.test/public/page",
        "https://a.test/other",
        "https://a.test/x/style.css",
        "https://a.test/x/style.css?v=2",
        "https://a.test/robots.txt",
    ]);
    assert_success(&output);
    assert_eq!(
        stdout(&output),
        "allowed\thttps://a.test/public/page\n\
         disallowed\thttps://a.test/other\n\
         allowed\thttps://a.test/x/style.css\n\
         disallowed\thttps://a.test/x/style.css?v=2\n\
         allowed\thttps://a.test/robots.txt\n"
    );
}

#[test]
fn the_agent_is_matched_by_its_product_token() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "robots.txt", ROBOTS);
    // A full User-Agent: its product token `foobot` names the FooBot group.
    let output =
        freshet(&["robots", &file, "--agent", "foobot/2.1 (+https://x.test)", "http://a.test/other"]);
    assert_success(&output);
    assert_eq!(stdout(&output), "disallowed\thttp://a.test/other\n");
    // Any other agent gets the `*` group.
    let output =
        freshet(&["robots", &file, "--agent", "freshet", "http://a.test/other", "http://a.test/private/x"]);
    assert_success(&output);
    assert_eq!(stdout(&output), "allowed\thttp://a.test/other\ndisallowed\thttp://a.test/private/x\n");
}

#[test]
fn urls_are_compared_percent_encoding_normalised() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "robots.txt", "User-agent: *\nDisallow: /caf%C3%A9\nDisallow: /~user\n");
    let output =
        freshet(&["robots", &file, "--agent", "freshet", "http://a.test/café", "http://a.test/%7Euser/x"]);
    assert_success(&output);
    assert_eq!(stdout(&output), "disallowed\thttp://a.test/café\ndisallowed\thttp://a.test/%7Euser/x\n");
}

#[test]
fn a_missing_file_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let output =
        freshet_in(dir.path(), &["robots", "nope.txt", "--agent", "freshet", "http://a.test/"], None);
    assert!(!output.status.success());
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("cannot read robots.txt file nope.txt"), "{}", stderr(&output));
    assert_eq!(stdout(&output), "");
}

#[test]
fn a_bad_url_is_a_clear_error_and_nothing_is_printed() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "robots.txt", ROBOTS);
    for (url, message) in [
        ("/relative/path", "URL \"/relative/path\""),
        ("ftp://a.test/x", "scheme \"ftp\" is not crawlable"),
        ("http://", "URL \"http://\""),
    ] {
        let output = freshet(&["robots", &file, "--agent", "freshet", "http://a.test/ok", url]);
        assert_eq!(output.status.code(), Some(1), "{url}");
        assert!(stderr(&output).contains(message), "{url}: {}", stderr(&output));
        assert_eq!(stdout(&output), "", "{url}");
    }
}

#[test]
fn an_agent_without_a_product_token_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "robots.txt", ROBOTS);
    let output = freshet(&["robots", &file, "--agent", "/bot", "http://a.test/"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("product token"), "{}", stderr(&output));
}

#[test]
fn urls_are_required() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "robots.txt", ROBOTS);
    let output = freshet(&["robots", &file, "--agent", "freshet"]);
    assert_eq!(output.status.code(), Some(2));
}
