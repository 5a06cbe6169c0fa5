//! `freshet testweb` end to end: it prints its address, serves virtual hosts, stops on Ctrl-C
//! (SIGINT), and names a bad `--misbehave` kind.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{Read as _, Write as _};
use std::net::TcpStream;

use common::{freshet, interrupt, spawn_listening, stderr};

/// One HTTP/1.1 GET with an explicit Host header; the whole response as text.
fn raw_get(address: &str, host: &str, path: &str) -> String {
    let mut stream = TcpStream::connect(address).unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    response
}

#[test]
fn serves_until_interrupted() {
    let (child, address, mut lines) = spawn_listening(&[
        "testweb",
        "--port",
        "0",
        "--hosts",
        "2",
        "--pages",
        "20",
        "--misbehave",
        "calendar",
        "--seed",
        "3",
    ]);

    let root = raw_get(&address, "h1.web.test", "/");
    assert!(root.starts_with("HTTP/1.1 200"), "{root}");
    assert!(root.to_ascii_lowercase().contains("\r\netag: \""));
    let robots = raw_get(&address, "h1.web.test", "/robots.txt");
    assert!(robots.contains("Disallow: /private/"), "{robots}");
    let calendar = raw_get(&address, "calendar.web.test", "/cal/2026/3");
    assert!(calendar.contains("/cal/2026/4"), "{calendar}");
    let truth = raw_get(&address, "h0.web.test", "/_truth/pages");
    assert!(truth.contains("\"pages\":["), "{truth}");
    let misbehaving =
        lines.find(|line| line.as_ref().is_ok_and(|l| l.starts_with("misbehaving:"))).unwrap().unwrap();
    assert_eq!(misbehaving, "misbehaving: calendar.web.test");

    let output = interrupt(child);
    assert!(stderr(&output).contains("stopped after 3 requests"), "{}", stderr(&output));
}

#[test]
fn unknown_misbehaviour_is_named() {
    let output = freshet(&["testweb", "--port", "0", "--misbehave", "slow,wobbly"]);
    assert_eq!(output.status.code(), Some(1));
    let message = stderr(&output);
    assert!(message.contains("--misbehave") && message.contains("\"wobbly\""), "{message}");
}
