//! `detect serve` in a real headless browser: Chromium driven by
//! chromedriver over WebDriver (fantoccini), both from the distribution's
//! packages, named by DETECT_TEST_CHROMIUM and DETECT_TEST_CHROMEDRIVER
//! (`bash .ci/run` sets them). Without them the test fails, loudly.
//!
//! The world is the sample season with two accounts renamed to hostile
//! names (`<script>`, quotes, `&`, `]]>`): they form a flagged clique, so
//! every page and the SVG timeline must show them as text.

mod queue;
mod review;
mod same_words;
mod steps;

use crate::common::browser::{env_path, free_port};
use crate::common::*;
use fantoccini::{Client, ClientBuilder, Locator};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use steps::*;

const HOSTILE_A: &str = "<script>alert(\"x\")</script>";
const HOSTILE_B: &str = "q\"uo'te & ]]> <b>";

/// A child process killed when dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        self.0.kill().ok();
        self.0.wait().ok();
    }
}

/// The sample season with u014 and u036 (a flagged clique) renamed, and
/// every IP address in it.
fn hostile_world(dir: &std::path::Path) -> (std::path::PathBuf, Vec<String>) {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/sample-season.jsonl"),
    )
    .expect("sample season");
    let mut out = String::new();
    let mut ips = Vec::new();
    for line in text.lines() {
        let mut v: serde_json::Value = serde_json::from_str(line).expect("JSON line");
        match v["username"].as_str() {
            Some("u014") => v["username"] = HOSTILE_A.into(),
            Some("u036") => v["username"] = HOSTILE_B.into(),
            _ => {}
        }
        if let Some(ip) = v["ip"].as_str() {
            ips.push(ip.to_owned());
        }
        out.push_str(&v.to_string());
        out.push('\n');
    }
    ips.sort();
    ips.dedup();
    let path = dir.join("hostile.jsonl");
    std::fs::write(&path, out).expect("write the world");
    (path, ips)
}

/// `detect serve` on a free loopback port; returns it with its base URL.
fn serve(db: &TestDb) -> (Running, String) {
    let mut child = Command::new(BIN)
        .current_dir(db.dir.path())
        .args(["--db", &db.url, "serve", "--listen", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start detect serve");
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let first = lines
        .next()
        .expect("detect serve says where it listens")
        .expect("stderr");
    std::thread::spawn(move || lines.for_each(drop));
    let url = first
        .strip_prefix("serving on ")
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("unexpected first line of detect serve: {first}"))
        .trim_end_matches('/')
        .to_owned();
    (Running(child), url)
}

fn chromedriver() -> (Running, String) {
    let driver = env_path("DETECT_TEST_CHROMEDRIVER");
    let port = free_port();
    let child = Command::new(driver)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromedriver");
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "chromedriver did not listen");
        std::thread::sleep(Duration::from_millis(100));
    }
    (Running(child), format!("http://127.0.0.1:{port}"))
}

async fn browser(driver: &str, profile: &std::path::Path) -> Client {
    let chromium = env_path("DETECT_TEST_CHROMIUM");
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".to_owned(),
        serde_json::json!({
            "binary": chromium,
            "args": [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--window-size=1400,1000",
                format!("--user-data-dir={}", profile.display()),
            ],
        }),
    );
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    ClientBuilder::new(connector)
        .capabilities(caps)
        .connect(driver)
        .await
        .expect("a WebDriver session with headless Chromium")
}

/// Types `text` into the element with id `id`.
async fn fill(c: &Client, id: &str, text: &str) {
    let field = c.find(Locator::Id(id)).await;
    let field = field.unwrap_or_else(|e| panic!("no #{id} on the page: {e}"));
    field.send_keys(text).await.unwrap();
}

/// Clicks the element with id `id`.
async fn click(c: &Client, id: &str) {
    let button = c.find(Locator::Id(id)).await;
    let button = button.unwrap_or_else(|e| panic!("no #{id} on the page: {e}"));
    button.click().await.unwrap();
}

/// Chooses `value` in the `<select>` with id `id`.
async fn choose(c: &Client, id: &str, value: &str) {
    let select = c.find(Locator::Id(id)).await;
    let select = select.unwrap_or_else(|e| panic!("no #{id} on the page: {e}"));
    select.select_by_value(value).await.unwrap();
}

async fn sign_in(c: &Client, base: &str, name: &str, password: &str) {
    c.goto(&format!("{base}/")).await.unwrap();
    assert!(c.current_url().await.unwrap().path().ends_with("/login"));
    fill(c, "name", name).await;
    fill(c, "password", password).await;
    click(c, "sign-in").await;
    c.wait().for_element(Locator::Id("sign-out")).await.unwrap();
}

async fn sign_out(c: &Client, base: &str) {
    c.goto(&format!("{base}/")).await.unwrap();
    click(c, "sign-out").await;
    c.wait().for_element(Locator::Id("sign-in")).await.unwrap();
}

async fn text_of(c: &Client, css: &str) -> String {
    c.find(Locator::Css(css))
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

/// The page is the app's own markup: no script element (a hostile name
/// that became markup would add one), no raw IP address.
async fn assert_clean(c: &Client, ips: &[String], raw_ips_allowed: bool) {
    let scripts = c
        .execute("return document.querySelectorAll('script').length", vec![])
        .await
        .unwrap();
    assert_eq!(
        scripts,
        serde_json::json!(0),
        "a script element on the page"
    );
    if !raw_ips_allowed {
        let source = c.source().await.unwrap();
        for ip in ips {
            assert!(
                !source.contains(ip.as_str()),
                "raw IP {ip} on {}",
                c.current_url().await.unwrap()
            );
        }
    }
}

/// Submits a form built in the page: the fields given, nothing else.
async fn forge(c: &Client, fields: serde_json::Value) {
    c.execute(
        "const f = document.createElement('form'); f.method = 'post'; f.action = '/verdict';
         for (const [k, v] of Object.entries(arguments[0])) {
           const i = document.createElement('input'); i.type = 'hidden'; i.name = k; i.value = v; f.appendChild(i);
         }
         document.body.appendChild(f); f.submit();",
        vec![fields],
    )
    .await
    .unwrap();
    c.wait()
        .for_element(Locator::Id("error-message"))
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moderators_work_in_a_real_browser() {
    let db = TestDb::new(Backend::Sqlite);
    let (world, ips) = hostile_world(db.dir.path());
    db.ok(&["ingest", world.to_str().unwrap()]);
    db.ok(&["scan", "--season", "1"]);
    add_users(&db);
    let (_app, base) = serve(&db);
    let (_driver, driver_url) = chromedriver();
    let profile = tempfile::tempdir().unwrap();
    let c = browser(&driver_url, profile.path()).await;

    signed_out_goes_to_sign_in(&c, &base).await;
    hostile_next_stays_on_the_site(&c, &base).await;
    sign_in(&c, &base, "mo", "moderator-pass").await;
    let clique_url = open_hostile_clique(&c, &ips).await;
    timeline_is_drawn(&c, &ips).await;
    screenshot_if_asked(&c, &base, &clique_url).await;
    record_household_verdict(&c, &ips).await;
    known_not_flagged(&c, &base).await;
    c.goto(clique_url.as_str()).await.unwrap();
    forged_form_refused(&c).await;
    account_page(&c, &base, &ips).await;
    sign_out(&c, &base).await;
    c.goto(&format!("{base}/season/1")).await.unwrap();
    assert_eq!(c.current_url().await.unwrap().path(), "/login");
    viewer_cannot_record(&c, &base, &clique_url, &ips).await;
    admin_reads_audit(&c, &base, &ips).await;
    improved_scan_says_so(&db, &c, &base).await;
    c.close().await.unwrap();
    one_household_verdict_stored(&db).await;
}
