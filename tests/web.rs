//! `detect serve` in a real headless browser: Chromium driven by
//! chromedriver over WebDriver (fantoccini), both from the distribution's
//! packages, named by DETECT_TEST_CHROMIUM and DETECT_TEST_CHROMEDRIVER
//! (`bash .ci/run` sets them). Without them the test fails, loudly.
//!
//! The world is the sample season with two accounts renamed to hostile
//! names (`<script>`, quotes, `&`, `]]>`): they form a flagged clique, so
//! every page and the SVG timeline must show them as text.

mod common;

use common::*;
use fantoccini::{Client, ClientBuilder, Locator};
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

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

fn env_path(var: &str) -> String {
    let path = std::env::var(var).unwrap_or_else(|_| {
        panic!(
            "{var} is not set: the web tests need Chromium and chromedriver from the distribution \
             (apt-get install chromium chromium-driver; DETECT_TEST_CHROMIUM=/usr/bin/chromium \
             DETECT_TEST_CHROMEDRIVER=/usr/bin/chromedriver; bash .ci/run sets both)"
        )
    });
    assert!(
        std::path::Path::new(&path).exists(),
        "{var}={path}: no such file"
    );
    path
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
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

async fn sign_in(c: &Client, base: &str, name: &str, password: &str) {
    c.goto(&format!("{base}/")).await.unwrap();
    assert!(c.current_url().await.unwrap().path().ends_with("/login"));
    c.find(Locator::Id("name"))
        .await
        .unwrap()
        .send_keys(name)
        .await
        .unwrap();
    c.find(Locator::Id("password"))
        .await
        .unwrap()
        .send_keys(password)
        .await
        .unwrap();
    c.find(Locator::Id("sign-in"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    c.wait().for_element(Locator::Id("sign-out")).await.unwrap();
}

async fn sign_out(c: &Client, base: &str) {
    c.goto(&format!("{base}/")).await.unwrap();
    c.find(Locator::Id("sign-out"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
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
    for (name, role, password) in [
        ("mo", "moderator", "moderator-pass"),
        ("vi", "viewer", "viewer-pass-1"),
        ("ad", "admin", "admin-pass-12"),
    ] {
        let out = db.run_stdin(
            &["user", "add", name, "--role", role],
            format!("{password}\n").as_bytes(),
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let (_app, base) = serve(&db);
    let (_driver, driver_url) = chromedriver();
    let profile = tempfile::tempdir().unwrap();
    let c = browser(&driver_url, profile.path()).await;

    // Without sign-in, a page sends the browser to the sign-in page.
    c.goto(&format!("{base}/season/1")).await.unwrap();
    let url = c.current_url().await.unwrap();
    assert_eq!(url.path(), "/login", "{url}");
    assert_eq!(url.query(), Some("next=%2Fseason%2F1"));

    // A moderator opens the season, then the hostile clique.
    sign_in(&c, &base, "mo", "moderator-pass").await;
    c.find(Locator::LinkText("Season 1"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    c.wait().for_element(Locator::Id("cliques")).await.unwrap();
    let scan = text_of(&c, "#scan").await;
    assert!(
        scan.contains("reference mode") && !scan.contains("calibrated"),
        "{scan}"
    );
    let cliques = text_of(&c, "#cliques").await;
    assert!(
        cliques.contains(HOSTILE_A) && cliques.contains(HOSTILE_B),
        "{cliques}"
    );
    assert_clean(&c, &ips, false).await;
    let rows = c.find_all(Locator::Css("#cliques tr")).await.unwrap();
    let mut hostile_row = None;
    for r in rows {
        if r.text().await.unwrap().contains(HOSTILE_A) {
            hostile_row = Some(r);
        }
    }
    let link = hostile_row
        .unwrap()
        .find(Locator::Css("a.clique-link"))
        .await
        .unwrap();
    link.click().await.unwrap();
    c.wait()
        .for_element(Locator::Css("#timeline svg"))
        .await
        .unwrap();
    let clique_url = c.current_url().await.unwrap();
    assert!(clique_url.path().starts_with("/clique/1/"), "{clique_url}");
    let members = text_of(&c, "#members").await;
    assert!(
        members.contains(HOSTILE_A) && members.contains(HOSTILE_B),
        "{members}"
    );
    // The timeline: inline, wide enough at 1400 px, names as SVG text, hover titles.
    let svg = c.find(Locator::Css("#timeline svg")).await.unwrap();
    let (_, _, width, height) = svg.rectangle().await.unwrap();
    assert!(
        width >= 1200.0 && height >= 200.0,
        "timeline drawn {width} x {height}"
    );
    let svg_text = c
        .execute(
            "return document.querySelector('#timeline svg').textContent",
            vec![],
        )
        .await
        .unwrap();
    let svg_text = svg_text.as_str().unwrap();
    assert!(
        svg_text.contains(HOSTILE_A) && svg_text.contains(HOSTILE_B),
        "{svg_text}"
    );
    let titles = c
        .execute(
            "return document.querySelectorAll('#timeline svg title').length",
            vec![],
        )
        .await
        .unwrap();
    assert!(titles.as_u64().unwrap() > 10, "hover titles: {titles}");
    assert_clean(&c, &ips, false).await;
    if let Ok(path) = std::env::var("DETECT_TEST_SCREENSHOT") {
        // The README's picture: the first clique, plain names.
        c.goto(&format!("{base}/clique/1/1")).await.unwrap();
        c.wait()
            .for_element(Locator::Css("#timeline svg"))
            .await
            .unwrap();
        std::fs::write(&path, c.screenshot().await.unwrap()).unwrap();
        c.goto(clique_url.as_str()).await.unwrap();
        c.wait()
            .for_element(Locator::Id("verdict-kind"))
            .await
            .unwrap();
    }

    // A household verdict on the whole clique, then seen in its pair's history.
    c.find(Locator::Id("verdict-kind"))
        .await
        .unwrap()
        .select_by_value("household")
        .await
        .unwrap();
    c.find(Locator::Id("verdict-note"))
        .await
        .unwrap()
        .send_keys("siblings <i>& co</i>")
        .await
        .unwrap();
    c.find(Locator::Id("record-verdict"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    c.wait().for_element(Locator::Id("verdicts")).await.unwrap();
    c.find(Locator::Css("#clique-pairs a.evidence-link"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    c.wait().for_element(Locator::Id("evidence")).await.unwrap();
    assert!(c.current_url().await.unwrap().path().starts_with("/pair/"));
    let history = text_of(&c, "#verdicts").await;
    for part in ["different people: household", "siblings <i>& co</i>", "mo"] {
        assert!(
            history.contains(part),
            "pair history lacks {part:?}: {history}"
        );
    }
    let evidence = text_of(&c, "#evidence").await;
    assert!(
        evidence.contains(HOSTILE_A) && evidence.contains("IP-1"),
        "{evidence}"
    );
    assert_clean(&c, &ips, false).await;

    // The season now lists the pair among known relationships, not flags.
    c.goto(&format!("{base}/season/1")).await.unwrap();
    let known = text_of(&c, "#known").await;
    assert!(
        known.contains(HOSTILE_A) && known.contains("household"),
        "{known}"
    );
    assert!(!text_of(&c, "#flagged").await.contains(HOSTILE_A));
    c.goto(clique_url.as_str()).await.unwrap();

    // A forged form without the CSRF token is refused.
    forge(
        &c,
        serde_json::json!({"season": "1", "clique": "1", "kind": "same-person"}),
    )
    .await;
    assert!(text_of(&c, "h1").await.starts_with("403"));
    assert!(text_of(&c, "#error-message")
        .await
        .contains("security token"));

    // The account page ("find alts of X") of a hostile name.
    c.goto(&format!("{base}/")).await.unwrap();
    let search = c.find(Locator::Css("input[name=name]")).await.unwrap();
    search.send_keys(HOSTILE_B).await.unwrap();
    search.send_keys("\u{E007}").await.unwrap(); // Enter
    c.wait().for_element(Locator::Id("links")).await.unwrap();
    let links = text_of(&c, "#links").await;
    assert!(links.contains(HOSTILE_A), "{links}");
    assert!(text_of(&c, "h1").await.contains(HOSTILE_B));
    assert_clean(&c, &ips, false).await;
    sign_out(&c, &base).await;
    c.goto(&format!("{base}/season/1")).await.unwrap();
    assert_eq!(c.current_url().await.unwrap().path(), "/login");

    // A viewer reads but cannot record a verdict, even with the right token.
    sign_in(&c, &base, "vi", "viewer-pass-1").await;
    c.goto(clique_url.as_str()).await.unwrap();
    c.wait().for_element(Locator::Id("timeline")).await.unwrap();
    assert!(
        c.find(Locator::Id("verdict-form")).await.is_err(),
        "a viewer sees a verdict form"
    );
    assert_clean(&c, &ips, false).await;
    let csrf = c
        .find(Locator::Css("header input[name=csrf]"))
        .await
        .unwrap()
        .attr("value")
        .await
        .unwrap()
        .unwrap();
    forge(
        &c,
        serde_json::json!({"csrf": csrf, "season": "1", "clique": "1", "kind": "same-person"}),
    )
    .await;
    assert!(text_of(&c, "h1").await.starts_with("403"));
    assert!(text_of(&c, "#error-message").await.contains("moderator"));
    c.goto(&format!("{base}/audit")).await.unwrap();
    assert!(
        text_of(&c, "h1").await.starts_with("403"),
        "a viewer reads the audit log"
    );
    sign_out(&c, &base).await;

    // The admin reads the audit log: every evidence view, with its viewer.
    sign_in(&c, &base, "ad", "admin-pass-12").await;
    c.goto(&format!("{base}/audit?by=mo")).await.unwrap();
    let audit = text_of(&c, "#audit").await;
    for action in [
        "sign-in",
        "view-clique",
        "view-pair",
        "view-account",
        "verdict",
    ] {
        assert!(
            audit.contains(action),
            "the audit log lacks {action}: {audit}"
        );
    }
    assert!(audit.contains(HOSTILE_B));
    assert_clean(&c, &ips, true).await;

    // An improved scan says so, and what its similarities mean.
    db.ok(&["scan", "--season", "1", "--mode", "improved"]);
    c.goto(&format!("{base}/season/1")).await.unwrap();
    let scan = text_of(&c, "#scan").await;
    assert!(scan.contains("improved mode"), "{scan}");
    assert!(scan.contains(scoring::improved::CALIBRATED), "{scan}");
    c.close().await.unwrap();

    // Only the one household verdict was stored, on the whole clique.
    let store = schema::store::Store::open(&db.url).await.unwrap();
    let verdicts = store.verdicts().await.unwrap();
    assert_eq!(verdicts.len(), 1, "{verdicts:?}");
    assert_eq!(verdicts[0].kind.as_str(), "household");
    assert_eq!(verdicts[0].accounts, [HOSTILE_A, HOSTILE_B]);
    assert_eq!(verdicts[0].by, "mo");
    store.close().await;
}
