//! freshet's URLFrontier service against a client on another gRPC stack: Python's grpcio (as
//! Scrapy's URLFrontier clients use), with stubs that `grpc_tools.protoc` generates from the
//! schema. `scripts/test.sh` installs grpcio into `.venv-test/` and passes its interpreter in
//! `FRESHET_PYTHON`; without it this test fails (it does not skip): run `bash scripts/test.sh`,
//! or `bash scripts/install-test-deps.sh` and set `FRESHET_PYTHON=$PWD/.venv-test/bin/python`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use freshet_urlfrontier::{FrontierService, MemorySpace, ServiceOptions, serve};

fn python() -> PathBuf {
    let Some(path) = std::env::var_os("FRESHET_PYTHON") else {
        panic!(
            "FRESHET_PYTHON is not set: run `bash scripts/test.sh` (it installs grpcio into .venv-test/), or \
             `bash scripts/install-test-deps.sh` then FRESHET_PYTHON=$PWD/.venv-test/bin/python cargo test"
        );
    };
    let path = PathBuf::from(path);
    assert!(
        path.is_file(),
        "FRESHET_PYTHON={} is not a file: run `bash scripts/install-test-deps.sh`",
        path.display()
    );
    path
}

fn run(python: &Path, args: &[&str]) -> String {
    let output = Command::new(python).args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{python:?} {args:?}: {stderr}");
    String::from_utf8(output.stdout).unwrap()
}

#[tokio::test]
async fn a_python_grpcio_client_s_round_trip() {
    let python = python();
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let stubs = tempfile::tempdir().unwrap();
    let stubs_dir = stubs.path().to_str().unwrap();
    let proto_dir = manifest.join("proto");
    run(
        &python,
        &[
            "-m",
            "grpc_tools.protoc",
            &format!("-I{}", proto_dir.display()),
            &format!("--python_out={stubs_dir}"),
            &format!("--grpc_python_out={stubs_dir}"),
            proto_dir.join("urlfrontier.proto").to_str().unwrap(),
        ],
    );

    let service = FrontierService::open(Box::new(MemorySpace::default()), ServiceOptions::default()).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(serve(service, listener, async {
        let _ = stopped.await;
    }));
    let client = manifest.join("tests/python/client.py");
    let client = client.to_str().unwrap().to_owned();
    let stubs_path = stubs_dir.to_owned();
    let output =
        tokio::task::spawn_blocking(move || run(&python, &[&client, &address, &stubs_path])).await.unwrap();
    let seen: serde_json::Value = serde_json::from_str(output.trim()).unwrap();
    let _ = stop.send(());
    server.await.unwrap().unwrap();

    let expected = serde_json::json!({
        "acks": [["http://a.test/1", "OK"], ["http://a.test/2", "OK"], ["http://b.test/1", "OK"], ["http://a.test/ bad", "SKIPPED"]],
        "served": [["http://a.test/1", "a.test", "py"], ["http://b.test/1", "queue-b", "py"]],
        "metadata": {"depth": ["0"], "source": ["seed", "sitemap"]},
        "report_acks": ["OK", "OK"],
        "stats": {"size": 1, "inProcess": 0, "queues": 2, "completed": 2},
        "status": "discovered",
        "missing": "NOT_FOUND",
        "crawls": ["py"],
        "remaining": ["http://a.test/2"],
    });
    assert_eq!(seen, expected);
}
