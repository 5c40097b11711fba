//! Shared helpers of the end-to-end tests: run the `detect` binary against a
//! fresh store, SQLite or PostgreSQL.
//!
//! PostgreSQL tests need `DETECT_TEST_POSTGRES_URL` (an admin URL such as
//! `postgres://postgres:postgres@localhost:5432/postgres`); `bash .ci/run`
//! starts a server and sets it. Without it they fail, loudly: they never
//! skip themselves.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

pub mod browser;
mod golden;
mod migrations;
#[allow(unused_imports)]
pub use golden::*;
pub use migrations::*;

pub const BIN: &str = env!("CARGO_BIN_EXE_detect");

/// Which store a test runs against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A fresh, empty store, removed when dropped.
pub struct TestDb {
    pub url: String,
    pub dir: tempfile::TempDir,
    pg: Option<(String, String)>,
}

static COUNTER: AtomicUsize = AtomicUsize::new(0);

pub fn postgres_admin_url() -> String {
    std::env::var("DETECT_TEST_POSTGRES_URL").unwrap_or_else(|_| {
        panic!(
            "DETECT_TEST_POSTGRES_URL is not set: the PostgreSQL tests need a running server \
             (bash .ci/run starts one and sets it, e.g. postgres://postgres:postgres@localhost:5432/postgres)"
        )
    })
}

/// Runs a future to completion on a small runtime of its own.
pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(f)
}

/// Runs one SQL statement on the PostgreSQL server of the tests.
pub fn pg_exec(url: &str, sql: &str) {
    use sqlx::Connection;
    block_on(async {
        let mut conn = sqlx::PgConnection::connect(url)
            .await
            .unwrap_or_else(|e| panic!("cannot reach PostgreSQL at DETECT_TEST_POSTGRES_URL: {e}"));
        sqlx::query(sql)
            .execute(&mut conn)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
        conn.close().await.ok();
    })
}

impl TestDb {
    pub fn new(backend: Backend) -> TestDb {
        let dir = tempfile::tempdir().expect("tempdir");
        match backend {
            Backend::Sqlite => TestDb {
                url: format!("sqlite://{}", dir.path().join("detect.db").display()),
                dir,
                pg: None,
            },
            Backend::Postgres => {
                let admin = postgres_admin_url();
                let name = format!(
                    "detect_test_{}_{}",
                    std::process::id(),
                    COUNTER.fetch_add(1, Ordering::SeqCst)
                );
                pg_exec(&admin, &format!("DROP DATABASE IF EXISTS {name}"));
                pg_exec(&admin, &format!("CREATE DATABASE {name}"));
                let base = admin.rsplit_once('/').expect("URL with a database").0;
                TestDb {
                    url: format!("{base}/{name}"),
                    dir,
                    pg: Some((admin, name)),
                }
            }
        }
    }

    /// Runs `detect --db URL ARGS...` in the test's directory.
    pub fn run(&self, args: &[&str]) -> Output {
        run_in(self.dir.path(), &self.url, args, None)
    }

    /// Runs with `stdin` piped in.
    pub fn run_stdin(&self, args: &[&str], stdin: &[u8]) -> Output {
        run_in(self.dir.path(), &self.url, args, Some(stdin))
    }

    /// Runs with these environment variables (e.g. DETECT_IP_KEY).
    pub fn run_env(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        run_in_env(self.dir.path(), &self.url, args, None, env)
    }

    /// Runs with these environment variables and asserts success.
    pub fn ok_env(&self, args: &[&str], env: &[(&str, &str)]) -> String {
        let out = self.run_env(args, env);
        assert!(
            out.status.success(),
            "detect {args:?} failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("UTF-8 output")
    }

    /// The raw IP addresses of `log` (what parses as one) found anywhere
    /// in the store: its SQLite file and WAL, or a PostgreSQL dump.
    pub fn raw_ips_stored(&self, log: &Path) -> Vec<String> {
        // Lossy text keeps every ASCII byte: an address in it is found.
        let text = String::from_utf8_lossy(&self.stored_bytes()).into_owned();
        ip_addresses_of(log)
            .into_iter()
            .filter(|ip| text.contains(ip.as_str()))
            .collect()
    }

    /// Every byte the store holds: the SQLite file with its WAL, or a
    /// `pg_dump` of the PostgreSQL database (schema and data).
    pub fn stored_bytes(&self) -> Vec<u8> {
        match &self.pg {
            None => {
                let file = self.url.trim_start_matches("sqlite://");
                let mut bytes = std::fs::read(file).expect("the SQLite file");
                if let Ok(wal) = std::fs::read(format!("{file}-wal")) {
                    bytes.extend(wal);
                }
                bytes
            }
            Some(_) => {
                let out = Command::new("pg_dump")
                    .arg(&self.url)
                    .output()
                    .expect("pg_dump must be installed (postgresql-client)");
                assert!(
                    out.status.success(),
                    "pg_dump failed: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                out.stdout
            }
        }
    }

    /// Runs and asserts success; returns standard output.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "detect {args:?} failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("UTF-8 output")
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if let Some((admin, name)) = &self.pg {
            pg_exec(
                admin,
                &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
            );
        }
    }
}

pub fn run_in(dir: &Path, db: &str, args: &[&str], stdin: Option<&[u8]>) -> Output {
    run_in_env(dir, db, args, stdin, &[])
}

/// [`run_in`] with these environment variables set (DETECT_IP_KEY is
/// unset unless given here).
pub fn run_in_env(
    dir: &Path,
    db: &str,
    args: &[&str],
    stdin: Option<&[u8]>,
    env: &[(&str, &str)],
) -> Output {
    use std::io::Write;
    let mut cmd = Command::new(BIN);
    cmd.current_dir(dir)
        .arg("--db")
        .arg(db)
        .args(args)
        .env_remove("DETECT_DATABASE_URL")
        .env_remove("DETECT_IP_KEY")
        .envs(env.iter().copied())
        .env_remove("RUST_LOG")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("run detect");
    if let Some(input) = stdin {
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input)
            .expect("write stdin");
    }
    finish_within(child, RUN_LIMIT)
}

/// How many cases [`each_case`] runs at once.
const CASE_WORKERS: usize = 4;

/// `f` of every case, in the cases' order, a few cases at a time. For the
/// tests that run `detect` dozens or hundreds of times, one case after the
/// other: each run mostly waits (the process starting, its threads handing
/// work to each other, the store's round trips), so even on two cores a
/// few at once finish in a fraction of the time. A panic in `f` fails the
/// test as it would in a loop.
pub fn each_case<T: Sync, R: Send>(cases: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let mut done: Vec<Option<R>> = cases.iter().map(|_| None).collect();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..CASE_WORKERS.min(cases.len()))
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::SeqCst);
                        let Some(case) = cases.get(i) else { break mine };
                        mine.push((i, f(case)));
                    }
                })
            })
            .collect();
        for worker in workers {
            match worker.join() {
                Ok(results) => results.into_iter().for_each(|(i, r)| done[i] = Some(r)),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
    });
    done.into_iter()
        .map(|r| r.expect("every case ran"))
        .collect()
}

/// Runs `detect ARGS...` in `dir` with no `--db` and no
/// DETECT_DATABASE_URL: the default store, `detect.db` in `dir`.
pub fn run_default_store(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .current_dir(dir)
        .args(args)
        .env_remove("DETECT_DATABASE_URL")
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .output()
        .expect("run detect")
}

/// The distinct IP addresses (v4 and v6, as written) of a JSON-lines log.
pub fn ip_addresses_of(log: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(log).expect("the log");
    let mut ips: Vec<String> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["ip"].as_str().map(str::to_owned))
        .filter(|ip| ip.parse::<std::net::IpAddr>().is_ok())
        .collect();
    ips.sort();
    ips.dedup();
    ips
}

/// How long one run of `detect` may take in these tests: far above any of
/// them (seconds), far below CI's limit, so a run that hangs fails its test
/// with what it printed instead of stalling the whole suite.
pub const RUN_LIMIT: std::time::Duration = std::time::Duration::from_secs(300);

/// Runs `cmd` (stdin as the caller set it) and collects its output, or kills
/// it and fails after [`RUN_LIMIT`].
pub fn output_within(cmd: &mut Command) -> Output {
    let child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run detect");
    finish_within(child, RUN_LIMIT)
}

/// Waits for a child whose stdout and stderr are piped, reading both as it
/// runs; kills it and fails with its stderr after `limit`.
pub fn finish_within(mut child: std::process::Child, limit: std::time::Duration) -> Output {
    use std::io::Read;
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut p) = pipe {
                p.read_to_end(&mut buf).ok();
            }
            buf
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for detect") {
            break status;
        }
        if start.elapsed() > limit {
            child.kill().ok();
            child.wait().ok();
            let err = stderr.join().unwrap_or_default();
            panic!(
                "detect still running after {limit:?}, killed; it printed:\n{}",
                String::from_utf8_lossy(&err)
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    Output {
        status,
        stdout: stdout.join().expect("stdout reader"),
        stderr: stderr.join().expect("stderr reader"),
    }
}

/// `detect -v --db URL daemon --once --config CONFIG` in the store's
/// directory (no DETECT_IP_KEY, no RUST_LOG); fails unless it succeeds and
/// returns its log.
pub fn daemon_once(db: &TestDb, config: &Path) -> String {
    let out = output_within(
        Command::new(BIN)
            .current_dir(db.dir.path())
            .args(["-v", "--db", &db.url, "daemon", "--once", "--config"])
            .arg(config)
            .env_remove("DETECT_DATABASE_URL")
            .env_remove("DETECT_IP_KEY")
            .env_remove("RUST_LOG")
            .env("NO_COLOR", "1")
            .stdin(Stdio::null()),
    );
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "detect daemon --once failed:\n{log}");
    log
}

/// Writes `detect.toml` in `dir`.
pub fn write_config(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("detect.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// A path as a TOML string.
pub fn toml_str(p: &Path) -> String {
    format!("{:?}", p.to_str().unwrap())
}

/// Waits for `child` up to `limit`; `None` if it is still running.
pub fn wait_timeout(
    child: &mut std::process::Child,
    limit: std::time::Duration,
) -> Option<std::process::ExitStatus> {
    let start = std::time::Instant::now();
    while start.elapsed() < limit {
        if let Some(status) = child.try_wait().expect("wait") {
            return Some(status);
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    None
}

/// `detect report --input` of exactly these log lines, season 1, as JSON:
/// what a daemon's report of them must say.
pub fn report_of_lines(db: &TestDb, lines: &[String]) -> serde_json::Value {
    let all = db.dir.path().join("expected-input.jsonl");
    std::fs::write(&all, lines.join("\n") + "\n").unwrap();
    let args = [
        "report",
        "--input",
        all.to_str().unwrap(),
        "--season",
        "1",
        "--format",
        "json",
    ];
    serde_json::from_str(&db.ok(&args)).expect("a JSON report")
}

/// Whether a log line is a move: a record with both a username and an IP.
fn is_move(v: &serde_json::Value) -> bool {
    v["username"].is_string() && v["ip"].is_string()
}

/// Moves among log lines.
pub fn moves_in(lines: &[String]) -> i64 {
    lines
        .iter()
        .filter(|l| is_move(&serde_json::from_str(l).unwrap()))
        .count() as i64
}

/// The accounts with a move among log lines.
pub fn accounts_moving_in<S: AsRef<str>>(lines: &[S]) -> std::collections::BTreeSet<String> {
    lines
        .iter()
        .map(|l| serde_json::from_str::<serde_json::Value>(l.as_ref()).unwrap())
        .filter(is_move)
        .map(|v| v["username"].as_str().unwrap().to_owned())
        .collect()
}

/// Asserts that two sets of segments, numbered in any order, score season
/// 1 (30-minute buckets) to the same result.
pub fn assert_scored_alike(a: &schema::Segments, b: &schema::Segments) {
    let season = schema::Season::inferred(1);
    let params = schema::ScanParams {
        bucket_seconds: 1800,
        ..Default::default()
    };
    let scan = |s| scoring::scan(s, &season, &params).unwrap();
    assert_eq!(scan(a), scan(b));
}

/// A case file holds neither a raw IP of the season nor anything loaded
/// from outside (`what` names the file in a failure).
pub fn assert_case_file_self_contained(what: &str, html: &str, ips: &[String]) {
    for ip in ips {
        assert!(!html.contains(ip.as_str()), "raw IP {ip} in the {what}");
    }
    for outside in [
        "src=\"http",
        "href=\"http",
        "src=\"/",
        "href=\"/",
        "<script",
        "url(",
    ] {
        assert!(!html.contains(outside), "{outside} in the {what}");
    }
}
