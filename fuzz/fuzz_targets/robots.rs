//! A robots.txt body from the input: parsing never panics, every check ends, and `check`,
//! `is_allowed` and the group picked once agree.
#![no_main]

use freshet_robots::{Check, RobotsTxt};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The last line of the input is also checked as a path (and the input's first 64 bytes).
    let robots = RobotsTxt::parse(data);
    let text = String::from_utf8_lossy(data);
    let last_line = text.lines().last().unwrap_or("/");
    let head: String = text.chars().take(64).collect();
    for agent in ["freshet", "FooBot", "*", ""] {
        let group = robots.group(agent);
        for path in [last_line, head.as_str(), "/", "/robots.txt", "/a/b?c=d"] {
            let check = robots.check(agent, path);
            assert_eq!(check, group.check(path));
            assert_eq!(robots.is_allowed(agent, path), check == Check::Allowed);
        }
        let _ = robots.crawl_delay(agent);
    }
    let _ = robots.sitemaps();
});
