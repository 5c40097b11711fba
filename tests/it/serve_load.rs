//! `detect serve` under load and abuse, on loopback, bounded: a signed-in
//! moderator reads pages while 500 clients flood sign-in with wrong
//! passwords (each request from a new address, through a trusted proxy, so
//! no limit stops them before the password check) and 500 connections sit
//! idle. The server runs under a 4 GiB address-space limit (`ulimit -v`)
//! and must stay alive with its peak resident memory under 1 GiB; every
//! answer the moderator gets carries the security headers.
//!
//! It prints the peak and the moderator's median and p99 page time
//! (`scripts/serve-load` runs it on a release build for BENCHMARKS.md);
//! times are printed, never asserted.

use crate::common::*;
use reqwest::header::{COOKIE, SET_COOKIE};
use reqwest::StatusCode;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const FLOODERS: usize = 500;
const IDLE: usize = 500;
const FLOOD: Duration = Duration::from_secs(15);
const ADDRESS_SPACE_KIB: u64 = 4 * 1024 * 1024;
const PEAK_LIMIT_KIB: u64 = 1024 * 1024;

/// A child process killed when dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        self.0.kill().ok();
        self.0.wait().ok();
    }
}

/// The binary under test: the build's own, or `DETECT_BIN` (the release
/// build `scripts/serve-load` measures).
fn binary() -> String {
    std::env::var("DETECT_BIN").unwrap_or_else(|_| BIN.to_owned())
}

/// `detect serve` under the address-space limit, behind a "proxy" on
/// 127.0.0.1; returns it and its base URL.
fn serve(db: &TestDb) -> (Running, String) {
    use std::io::{BufRead, BufReader};
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {ADDRESS_SPACE_KIB} && exec \"$0\" \"$@\""
        ))
        .arg(binary())
        .args(["--db", &db.url, "serve", "--listen", "127.0.0.1:0"])
        .args(["--trusted-proxy", "127.0.0.1"])
        .current_dir(db.dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start detect serve");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let first = lines.next().expect("a first line").expect("stderr");
    std::thread::spawn(move || lines.for_each(drop));
    let url = first
        .strip_prefix("serving on ")
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("unexpected first line: {first}"))
        .trim_end_matches('/')
        .to_owned();
    (Running(child), url)
}

/// A field of /proc/PID/status, in KiB.
fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in {status}"))
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap()
}

fn cookie(r: &reqwest::Response, name: &str) -> Option<String> {
    r.headers()
        .get_all(SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with(&format!("{name}=")))
        .map(|v| v.split(';').next().unwrap().to_owned())
}

/// Signs in through the form as a browser would; the response.
async fn sign_in(
    c: &reqwest::Client,
    base: &str,
    name: &str,
    password: &str,
    from: &str,
) -> reqwest::Result<reqwest::Response> {
    let page = c.get(format!("{base}/login")).send().await?;
    let token = cookie(&page, "detect_login").expect("the sign-in cookie");
    let value = token.trim_start_matches("detect_login=").to_owned();
    c.post(format!("{base}/login"))
        .header(COOKIE, token)
        .header("origin", base)
        .header("x-forwarded-for", from)
        .form(&[("name", name), ("password", password), ("csrf", &value)])
        .send()
        .await
}

/// What the flood got back, by kind.
#[derive(Default)]
struct Answers {
    checked: AtomicU64,
    busy: AtomicU64,
    limited: AtomicU64,
    other: AtomicU64,
    failed: AtomicU64,
}

impl Answers {
    fn count(&self, r: reqwest::Result<reqwest::Response>) {
        let counter = match r.map(|r| r.status()) {
            Ok(StatusCode::OK) => &self.checked,
            Ok(StatusCode::SERVICE_UNAVAILABLE) => &self.busy,
            Ok(StatusCode::TOO_MANY_REQUESTS) => &self.limited,
            Ok(_) => &self.other,
            Err(_) => &self.failed,
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }
}

/// 500 clients signing in with wrong passwords until `until`, each request
/// from an address of its own.
fn flood(base: &str, until: Instant, answers: &Arc<Answers>) -> Vec<tokio::task::JoinHandle<()>> {
    let next = Arc::new(AtomicU64::new(0));
    (0..FLOODERS)
        .map(|i| {
            let (base, answers, next) = (base.to_owned(), answers.clone(), next.clone());
            tokio::spawn(async move {
                let c = client();
                while Instant::now() < until {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    let from = format!("10.{}.{}.{}", n >> 16 & 255, n >> 8 & 255, n & 255);
                    let r = sign_in(&c, &base, &format!("flood{i}"), "wrong", &from).await;
                    answers.count(r);
                }
            })
        })
        .collect()
}

/// The pages a moderator reads: the seasons, season 1, a pair of it.
async fn moderator_pages(c: &reqwest::Client, base: &str, session: &str) -> Vec<String> {
    let season = c
        .get(format!("{base}/season/1"))
        .header(COOKIE, session)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let pair = season
        .split("href=\"")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .find(|h| h.starts_with("/pair/"))
        .expect("a pair on the season page")
        .replace("&amp;", "&");
    vec!["/".to_owned(), "/season/1".to_owned(), pair]
}

/// The moderator reads pages one after another until `until`; the time of
/// each, in milliseconds.
async fn read_pages(base: &str, session: &str, pages: &[String], until: Instant) -> Vec<f64> {
    let c = client();
    let mut times = Vec::new();
    for page in pages.iter().cycle() {
        if Instant::now() >= until {
            break;
        }
        let started = Instant::now();
        let r = c
            .get(format!("{base}{page}"))
            .header(COOKIE, session)
            .send()
            .await
            .unwrap_or_else(|e| panic!("{page}: {e}"));
        assert_eq!(r.status(), StatusCode::OK, "{page}");
        for h in [
            "content-security-policy",
            "x-frame-options",
            "x-content-type-options",
            "referrer-policy",
        ] {
            assert!(r.headers().contains_key(h), "{page}: no {h}");
        }
        assert_eq!(r.headers()["cache-control"], "no-store", "{page}");
        r.bytes().await.unwrap();
        times.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    times
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn serve_survives_a_sign_in_flood_and_idle_connections() {
    let db = TestDb::new(Backend::Sqlite);
    let sample =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/sample-season.jsonl");
    db.ok(&["ingest", sample.to_str().unwrap()]);
    db.ok(&["scan", "--season", "1"]);
    let out = db.run_stdin(
        &["user", "add", "mo", "--role", "moderator"],
        b"moderator-pass\n",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (mut app, base) = serve(&db);
    let pid = app.0.id();

    let signed_in = sign_in(&client(), &base, "mo", "moderator-pass", "192.0.2.10")
        .await
        .unwrap();
    assert_eq!(signed_in.status(), StatusCode::SEE_OTHER);
    let session = cookie(&signed_in, "detect_session").expect("a session");
    let pages = moderator_pages(&client(), &base, &session).await;

    let addr = base.trim_start_matches("http://").to_owned();
    let mut idle = Vec::with_capacity(IDLE);
    for _ in 0..IDLE {
        idle.push(
            tokio::net::TcpStream::connect(&addr)
                .await
                .expect("an idle connection"),
        );
    }
    let until = Instant::now() + FLOOD;
    let answers = Arc::new(Answers::default());
    let flooders = flood(&base, until, &answers);
    let mut times = read_pages(&base, &session, &pages, until).await;
    for f in flooders {
        f.await.unwrap();
    }
    drop(idle);

    let alive = app.0.try_wait().expect("the child's state").is_none();
    let peak = status_kib(pid, "VmHWM:");
    let load = |c: &AtomicU64| c.load(Ordering::Relaxed);
    times.sort_by(f64::total_cmp);
    println!(
        "serve under a flood of {FLOODERS} wrong sign-ins and {IDLE} idle connections for {} s: \
         peak resident {:.0} MiB; moderator pages {} at median {:.1} ms, p99 {:.1} ms; \
         flood answers: {} checked, {} busy (503), {} limited (429), {} other, {} failed",
        FLOOD.as_secs(),
        peak as f64 / 1024.0,
        times.len(),
        percentile(&times, 0.5),
        percentile(&times, 0.99),
        load(&answers.checked),
        load(&answers.busy),
        load(&answers.limited),
        load(&answers.other),
        load(&answers.failed),
    );
    assert!(alive, "detect serve died");
    assert!(peak < PEAK_LIMIT_KIB, "peak resident memory {peak} KiB");
    assert_eq!(load(&answers.other), 0, "answers other than 200, 429, 503");
    assert!(load(&answers.checked) > 0, "no password was checked at all");
    // Still serving after the flood.
    let r = client()
        .get(format!("{base}/"))
        .header(COOKIE, &session)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
}
