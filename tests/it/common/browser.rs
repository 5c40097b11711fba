//! A headless Chromium driven over WebDriver, for the report's browser tests.
//!
//! Needs `DETECT_TEST_CHROMEDRIVER` (the chromedriver binary) and
//! `DETECT_TEST_CHROMIUM` (the browser); `bash .ci/run` sets both. Without
//! them the test fails, loudly. Each [`Browser`] starts its own chromedriver
//! on a free port with a fresh profile, and stops it when dropped.

use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Chromium flags that work in containers and CI.
const FLAGS: [&str; 9] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];

pub struct Browser {
    pub client: fantoccini::Client,
    driver: Child,
    _profile: tempfile::TempDir,
}

/// The path in `var` (Chromium's or chromedriver's), which must exist.
pub fn env_path(var: &str) -> String {
    let path = std::env::var(var).unwrap_or_else(|_| {
        panic!(
            "{var} is not set: the browser tests need Chromium and chromedriver from the distribution \
             (apt-get install chromium chromium-driver; DETECT_TEST_CHROMIUM=/usr/bin/chromium \
             DETECT_TEST_CHROMEDRIVER=/usr/bin/chromedriver; bash .ci/run sets both)"
        )
    });
    assert!(
        std::path::Path::new(&path).is_file(),
        "{var}={path}: no such file"
    );
    path
}

/// A port free on loopback now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

impl Browser {
    pub async fn start() -> Browser {
        let driver_path = env_path("DETECT_TEST_CHROMEDRIVER");
        let chromium = env_path("DETECT_TEST_CHROMIUM");
        let port = free_port();
        let driver = Command::new(&driver_path)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {driver_path}: {e}"));
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "chromedriver did not listen on port {port} within 30 s"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let profile = tempfile::tempdir().expect("profile dir");
        let mut args: Vec<String> = FLAGS.iter().map(|f| f.to_string()).collect();
        args.push(format!("--user-data-dir={}", profile.path().display()));
        let mut caps = serde_json::Map::new();
        caps.insert(
            "goog:chromeOptions".to_owned(),
            serde_json::json!({ "binary": chromium, "args": args }),
        );
        let client = fantoccini::ClientBuilder::new(
            hyper_util::client::legacy::connect::HttpConnector::new(),
        )
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{port}"))
        .await
        .unwrap_or_else(|e| panic!("cannot open a Chromium session: {e}"));
        Browser {
            client,
            driver,
            _profile: profile,
        }
    }

    /// Runs `script` (a function body; `arguments` as usual) and returns its
    /// value.
    pub async fn eval(&self, script: &str) -> serde_json::Value {
        self.client
            .execute(script, Vec::new())
            .await
            .unwrap_or_else(|e| panic!("script failed: {e}\n{script}"))
    }

    /// Ends the session; dropping stops chromedriver.
    pub async fn close(self) {
        self.client.clone().close().await.ok();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        self.driver.kill().ok();
        self.driver.wait().ok();
    }
}
