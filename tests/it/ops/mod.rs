//! Running `detect` for a site, through the binary on loopback: health and
//! readiness of `detect serve`, the metrics of `serve` and the daemon (they
//! move, and no label names an account or an address), JSON logs, and
//! `detect backup` / `detect check` (`backup.rs`).

mod backup;

use crate::common::*;
use crate::daemon::support::sample;
use reqwest::header::{AUTHORIZATION, COOKIE, SET_COOKIE};
use reqwest::StatusCode;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const PASSWORD: &str = "correct horse battery";
const TOKEN: &str = "a-metrics-token-of-some-length";

/// A child process killed when dropped, its standard error in a file.
pub struct Running {
    child: Child,
    pub log: PathBuf,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }
}

impl Running {
    pub fn start(mut cmd: Command, log: PathBuf) -> Running {
        let child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("start detect");
        Running { child, log }
    }

    /// The log so far.
    pub fn text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Waits (up to two minutes) for a log line holding `needle`; returns
    /// that line.
    pub fn wait_for(&mut self, needle: &str) -> String {
        self.wait_for_nth(needle, 1)
    }

    /// Waits for the `n`th log line holding `needle`; returns it.
    pub fn wait_for_nth(&mut self, needle: &str, n: usize) -> String {
        let start = Instant::now();
        loop {
            let text = self.text();
            if let Some(line) = text.lines().filter(|l| l.contains(needle)).nth(n - 1) {
                return line.to_owned();
            }
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("detect exited ({status}) before logging {needle:?}:\n{text}");
            }
            assert!(
                start.elapsed() < Duration::from_secs(120),
                "no {needle:?} within two minutes:\n{text}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// A store with the sample season in a watched directory and a daemon
/// configuration for it (`extra` appended to its top level).
pub fn daemon_setup(db: &TestDb, extra: &str) -> PathBuf {
    let dir = db.dir.path();
    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    std::fs::write(logs.join("a.jsonl"), sample().join("\n") + "\n").unwrap();
    write_config(
        dir,
        &format!(
            "report_dir = {}\n{extra}\n[schedule]\nscan = \"0 0 0 1 1 *\"\n\
             [[source]]\ndirectory = {}\n",
            toml_str(&dir.join("reports")),
            toml_str(&logs)
        ),
    )
}

/// `detect daemon` on `db` (text logs at info, `env` added).
pub fn daemon(db: &TestDb, config: &Path, env: &[(&str, &str)]) -> Running {
    let mut cmd = Command::new(BIN);
    cmd.current_dir(db.dir.path())
        .args(["--db", &db.url, "daemon", "--config"])
        .arg(config)
        .env_remove("DETECT_DATABASE_URL")
        .env_remove("DETECT_DAEMON_TEST_PAUSE_MS")
        .env("RUST_LOG", "info")
        .env("NO_COLOR", "1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    Running::start(cmd, db.dir.path().join("daemon.log"))
}

/// `detect serve` on `db`, `/metrics` behind `TOKEN`; its base URL.
fn serve(db: &TestDb) -> (Running, String) {
    let token = db.dir.path().join("metrics.token");
    std::fs::write(&token, format!("{TOKEN}\n")).unwrap();
    let mut cmd = Command::new(BIN);
    cmd.current_dir(db.dir.path())
        .args(["--db", &db.url, "serve", "--listen", "127.0.0.1:0"])
        .arg("--metrics-token-file")
        .arg(&token)
        .env_remove("DETECT_DATABASE_URL")
        .env("NO_COLOR", "1");
    let mut running = Running::start(cmd, db.dir.path().join("serve.log"));
    let line = running.wait_for("serving on ");
    let url = line
        .split_whitespace()
        .nth(2)
        .expect("serving on URL")
        .trim_end_matches('/')
        .to_owned();
    (running, url)
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap()
}

/// Status and body of a GET, with these headers.
async fn get(c: &reqwest::Client, url: &str, headers: &[(&str, &str)]) -> (StatusCode, String) {
    let mut request = c.get(url);
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    let response = request.send().await.expect("a response");
    (response.status(), response.text().await.unwrap())
}

/// Signs in as `name`; the session cookie, if the password was right.
async fn sign_in(c: &reqwest::Client, base: &str, name: &str, password: &str) -> Option<String> {
    let page = c.get(format!("{base}/login")).send().await.unwrap();
    let login = cookie(&page, "detect_login").expect("the sign-in cookie");
    let csrf = login.trim_start_matches("detect_login=").to_owned();
    let answer = c
        .post(format!("{base}/login"))
        .header(COOKIE, &login)
        .header("origin", base)
        .form(&[("name", name), ("password", password), ("csrf", &csrf)])
        .send()
        .await
        .unwrap();
    cookie(&answer, "detect_session").filter(|c| c != "detect_session=")
}

/// `name=value` of a cookie the response sets.
fn cookie(r: &reqwest::Response, name: &str) -> Option<String> {
    r.headers()
        .get_all(SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with(&format!("{name}=")))
        .map(|v| v.split(';').next().unwrap().to_owned())
}

/// The value of a sample (`name{labels} value`) in a scrape: the sum over
/// every label set holding each of `with`.
fn sample_sum(scrape: &str, name: &str, with: &[&str]) -> f64 {
    scrape
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter(|l| l.starts_with(&format!("{name}{{")) || l.starts_with(&format!("{name} ")))
        .filter(|l| with.iter().all(|w| l.contains(w)))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

/// Every label value of a scrape.
fn label_values(scrape: &str) -> Vec<String> {
    let mut values = Vec::new();
    for line in scrape.lines().filter(|l| !l.starts_with('#')) {
        let (Some(open), Some(close)) = (line.find('{'), line.rfind('}')) else {
            continue;
        };
        for pair in line[open + 1..close].split("\",") {
            if let Some((_, v)) = pair.split_once("=\"") {
                values.push(v.trim_end_matches('"').to_owned());
            }
        }
    }
    values
}

/// No label value names an account of the sample, the user, or looks like
/// an address.
fn assert_no_account_or_address(scrape: &str, what: &str) {
    let accounts: std::collections::BTreeSet<String> = sample()
        .iter()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["username"].to_string())
        .map(|s| s.trim_matches('"').to_owned())
        .collect();
    let address = regex::Regex::new(r"\d+\.\d+\.\d+\.\d+|:[0-9a-f]*:").unwrap();
    let values = label_values(scrape);
    assert!(!values.is_empty(), "{what}: no labels at all:\n{scrape}");
    for v in values {
        assert!(
            !accounts.contains(&v) && v != "alice" && !address.is_match(&v),
            "{what}: a label names an account or an address: {v:?}\n{scrape}"
        );
    }
}

#[test]
fn both_metrics_endpoints_move_and_name_no_account_or_address() {
    let db = TestDb::new(Backend::Sqlite);
    db.run_stdin(
        &["user", "add", "alice", "--role", "admin"],
        format!("{PASSWORD}\n").as_bytes(),
    );
    let config = daemon_setup(&db, "metrics_listen = \"127.0.0.1:0\"");
    let mut daemon = daemon(&db, &config, &[]);
    let line = daemon.wait_for("metrics served");
    let metrics_addr = line.rsplit("address=").next().unwrap().trim().to_owned();
    daemon.wait_for("tick finished");
    let (_serve, base) = serve(&db);
    block_on(async {
        let c = client();
        let (status, scrape) = get(&c, &format!("http://{metrics_addr}/metrics"), &[]).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(
            sample_sum(&scrape, "detect_ticks_started_total", &["scan"]),
            1.0
        );
        assert_eq!(
            sample_sum(&scrape, "detect_ticks_finished_total", &["scan"]),
            1.0
        );
        let moves = moves_in(&sample()) as f64;
        assert_eq!(
            sample_sum(&scrape, "detect_moves_ingested_total", &[]),
            moves
        );
        assert!(sample_sum(&scrape, "detect_pairs_scored_total", &["season=\"1\""]) > 0.0);
        assert!(sample_sum(&scrape, "detect_pairs_flagged", &["season=\"1\""]) > 0.0);
        assert!(sample_sum(&scrape, "detect_tick_duration_seconds_count", &[]) == 1.0);
        assert!(sample_sum(&scrape, "detect_scan_duration_seconds_count", &[]) == 1.0);
        assert_no_account_or_address(&scrape, "the daemon's metrics");

        // /metrics on serve: only to the token's bearer.
        let url = format!("{base}/metrics");
        assert_eq!(get(&c, &url, &[]).await.0, StatusCode::NOT_FOUND);
        let wrong = [(AUTHORIZATION.as_str(), "Bearer not-the-token-at-all")];
        assert_eq!(get(&c, &url, &wrong).await.0, StatusCode::NOT_FOUND);
        assert!(sign_in(&c, &base, "alice", "wrong password")
            .await
            .is_none());
        let session = sign_in(&c, &base, "alice", PASSWORD)
            .await
            .expect("signed in");
        let (status, _) = get(&c, &format!("{base}/season/1"), &[("cookie", &session)]).await;
        assert_eq!(status, StatusCode::OK);
        let bearer = format!("Bearer {TOKEN}");
        let (status, scrape) = get(&c, &url, &[(AUTHORIZATION.as_str(), &bearer)]).await;
        assert_eq!(status, StatusCode::OK, "{scrape}");
        assert_eq!(sample_sum(&scrape, "detect_sign_ins_total", &[]), 1.0);
        assert_eq!(
            sample_sum(&scrape, "detect_sign_in_failures_total", &["password"]),
            1.0
        );
        let season = ["route=\"/season/{season}\"", "status=\"2xx\""];
        assert_eq!(
            sample_sum(
                &scrape,
                "detect_http_request_duration_seconds_count",
                &season
            ),
            1.0,
            "{scrape}"
        );
        assert!(
            !scrape.contains("/season/1\""),
            "a concrete path as a label:\n{scrape}"
        );
        assert_no_account_or_address(&scrape, "serve's metrics");
    });
}

#[test]
fn health_and_readiness_say_nothing_more() {
    let db = TestDb::new(Backend::Sqlite);
    let (_serve, base) = serve(&db);
    block_on(async {
        let c = client();
        assert_eq!(
            get(&c, &format!("{base}/healthz"), &[]).await,
            (StatusCode::OK, "ok\n".into())
        );
        let ready = format!("{base}/readyz");
        assert_eq!(
            get(&c, &ready, &[]).await,
            (StatusCode::OK, "ready\n".into())
        );
        // A migration this version does not know (a newer detect wrote the
        // store): not ready, and the answer says nothing of why.
        let store = store::Store::open(&db.url).await.unwrap();
        store.close().await;
        let path = db.url.trim_start_matches("sqlite://");
        let conn = format!("sqlite://{path}");
        sqlite_exec(&conn, "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) VALUES (99999, 'future', 1, x'00', 0)").await;
        let (status, body) = get(&c, &ready, &[]).await;
        assert_eq!(
            (status, body.as_str()),
            (StatusCode::SERVICE_UNAVAILABLE, "not ready\n")
        );
        assert_eq!(
            get(&c, &format!("{base}/healthz"), &[]).await.0,
            StatusCode::OK
        );
    });
}

/// Runs one statement on an SQLite store outside `detect`.
pub async fn sqlite_exec(url: &str, sql: &str) {
    use sqlx::Connection;
    let mut conn = sqlx::SqliteConnection::connect(url).await.unwrap();
    sqlx::query(sql).execute(&mut conn).await.unwrap();
    conn.close().await.unwrap();
}

#[test]
fn json_logs_carry_the_text_lines_fields() {
    let db = TestDb::new(Backend::Sqlite);
    let config = daemon_setup(&db, "log_format = \"json\"");
    let out = output_within(
        Command::new(BIN)
            .current_dir(db.dir.path())
            .args(["--db", &db.url, "daemon", "--once", "--config"])
            .arg(&config)
            .env("RUST_LOG", "info")
            .env_remove("DETECT_DATABASE_URL"),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stderr)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    let finished = lines
        .iter()
        .find(|l| l["fields"]["message"] == "tick finished")
        .expect("a tick finished line");
    assert_eq!(finished["level"], "INFO");
    assert_eq!(finished["fields"]["kind"], "scan");
    assert_eq!(finished["fields"]["new_moves"], moves_in(&sample()));
    // The flag wins over the configuration.
    let out = output_within(
        Command::new(BIN)
            .current_dir(db.dir.path())
            .args([
                "--db",
                &db.url,
                "--log-format",
                "text",
                "daemon",
                "--once",
                "--config",
            ])
            .arg(&config)
            .env("RUST_LOG", "info")
            .env_remove("DETECT_DATABASE_URL"),
    );
    let text = String::from_utf8(out.stderr).unwrap();
    assert!(
        text.contains("tick finished") && !text.contains("{\""),
        "{text}"
    );
}
