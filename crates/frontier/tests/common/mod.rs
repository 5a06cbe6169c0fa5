//! A `redis-server` of a test's own, on a free 127.0.0.1 port, with its data in a temporary
//! directory; killed when dropped. The binary is `FRESHET_REDIS_SERVER` or `redis-server` on the
//! `PATH` (`scripts/install-test-deps.sh` installs Debian's).

use std::process::{Child, Command, Stdio};
use std::time::Duration;

pub(crate) struct RedisServer {
    child: Child,
    _dir: tempfile::TempDir,
    pub(crate) url: String,
}

impl RedisServer {
    /// Syncing every write to its append-only file (what `RedisStore::open` requires).
    pub(crate) fn start() -> Self {
        Self::with(&["--appendonly", "yes", "--appendfsync", "always"])
    }

    /// With these settings (`--name value`…).
    pub(crate) fn with(settings: &[&str]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let binary = std::env::var_os("FRESHET_REDIS_SERVER").unwrap_or_else(|| "redis-server".into());
        let child = Command::new(&binary)
            .args(["--bind", "127.0.0.1", "--port", &port.to_string(), "--save", ""])
            .args(settings)
            .arg("--dir")
            .arg(dir.path())
            .stdout(Stdio::null())
            .spawn()
            .unwrap_or_else(|error| {
                panic!("cannot start {binary:?} ({error}): run `bash scripts/install-test-deps.sh` (Debian's redis-server)")
            });
        let url = format!("redis://127.0.0.1:{port}/");
        let server = Self { child, _dir: dir, url };
        for attempt in 0.. {
            if let Ok(mut connection) = server.connect()
                && redis::cmd("PING").query::<String>(&mut connection).is_ok()
            {
                break;
            }
            assert!(attempt < 200, "redis-server did not answer on port {port}");
            std::thread::sleep(Duration::from_millis(25));
        }
        server
    }

    /// A plain connection to it.
    pub(crate) fn connect(&self) -> redis::RedisResult<redis::Connection> {
        redis::Client::open(self.url.as_str())?.get_connection()
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
