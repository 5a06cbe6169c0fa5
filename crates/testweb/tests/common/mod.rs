//! Helpers shared by the server tests: start a test web on 127.0.0.1 with a manual clock, and a
//! client that resolves every host of it to that address.

#![allow(dead_code, unreachable_pub)]

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use freshet_testweb::{ManualClock, ServerConfig, TestWeb};

/// Wall time of model time 0 in the tests: 2023-11-14T22:13:20Z.
pub fn origin() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000)
}

/// A test web on an ephemeral port of 127.0.0.1, driven by a manual clock.
pub async fn start(config: ServerConfig) -> (TestWeb, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(origin()));
    let web = TestWeb::start("127.0.0.1:0".parse().unwrap(), config, clock.clone()).await.unwrap();
    (web, clock)
}

/// A client that sends every host of `web` to its address, follows no redirects and gives up
/// after five seconds.
pub fn client(web: &TestWeb) -> reqwest::Client {
    let mut builder = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(5))
        .no_proxy();
    let misbehaving = freshet_testweb::Misbehaviour::ALL.map(freshet_testweb::Misbehaviour::host_name);
    for host in web.host_names().into_iter().chain(misbehaving).chain(["nowhere.web.test".to_string()]) {
        builder = builder.resolve(&host, web.address());
    }
    builder.build().unwrap()
}

/// Sets `clock` to model time `t` (days) of `web`.
pub fn set_model_time(web: &TestWeb, clock: &ManualClock, t: f64) {
    clock.set(web.time_map().wall_time(t));
}

/// GETs `url` and returns the status, the headers and the body as text.
pub async fn get(client: &reqwest::Client, url: &str) -> (u16, reqwest::header::HeaderMap, String) {
    let response = client.get(url).send().await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    (status, headers, response.text().await.unwrap())
}

/// Every `href="…"` of an HTML page.
pub fn hrefs(html: &str) -> Vec<String> {
    html.split("href=\"").skip(1).filter_map(|rest| rest.split('"').next()).map(String::from).collect()
}

/// A header as text ("" if absent).
pub fn header<'a>(headers: &'a reqwest::header::HeaderMap, name: &str) -> &'a str {
    headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or("")
}
