//! `detect daemon` on a bad configuration (unknown key, bad cron
//! expression, missing directory, unreachable database, ...): it fails at
//! start, fast, with one sentence naming what is wrong.

use crate::common::*;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs the daemon on `config` (not --once) and returns its one line of
/// error.
fn start_fails(dir: &Path, config: &str) -> String {
    write_config(dir, config);
    let start = Instant::now();
    let mut child = Command::new(BIN)
        .current_dir(dir)
        .args([
            "--db",
            "sqlite://store.db",
            "daemon",
            "--config",
            "detect.toml",
        ])
        .env_remove("DETECT_DATABASE_URL")
        // The daemon logs at info by default; the error is what is judged.
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status = wait_timeout(&mut child, Duration::from_secs(20)).unwrap_or_else(|| {
        child.kill().ok();
        panic!("the daemon started on a bad configuration:\n{config}")
    });
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(!status.success(), "{config}");
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "slow to fail: {stderr}"
    );
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "not one sentence:\n{stderr}");
    lines[0]
        .strip_prefix("error: ")
        .expect("error: ...")
        .to_owned()
}

const SCHEDULE: &str = "[schedule]\nscan = \"0 0 * * * *\"\n";

#[test]
fn bad_configurations_fail_at_start_with_one_sentence() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    for (config, want) in &bad_configurations() {
        let got = start_fails(dir, config);
        assert!(
            got.starts_with(want) || got.contains(want),
            "{config}\n got: {got}\nwant: {want}"
        );
        assert!(!got.contains("secret"), "a password in an error: {got}");
    }
    site_query_errors(dir);
    // Nothing was created by the failed starts.
    assert!(!dir.join("store.db").exists());
}

/// Configurations that cannot start, each with (a part of) its sentence.
fn bad_configurations() -> Vec<(String, &'static str)> {
    let sched = SCHEDULE;
    vec![
        (
            format!("databse = \"sqlite://x.db\"\n{sched}"),
            "the configuration detect.toml, line 1: unknown field `databse`, expected one of `database`,",
        ),
        (
            format!("{sched}[[source]]\ndirectroy = \"/tmp\"\n"),
            "the configuration detect.toml, line 4: unknown field `directroy`",
        ),
        (
            "[schedule]\nscan = \"*/x * * * * *\"\n".to_owned(),
            "the configuration detect.toml: schedule.scan \"*/x * * * * *\" is not a cron expression",
        ),
        (
            "[schedule]\ningest = \"*/5 * * * *\"\n".to_owned(),
            "schedule.ingest \"*/5 * * * *\" is not a cron expression: it has 5 fields",
        ),
        (
            format!("threshold = 1.2\n{sched}"),
            "the configuration detect.toml: threshold must lie between 0 and 1, not 1.2",
        ),
        (
            format!("seasons = []\n{sched}"),
            "the configuration detect.toml: seasons is an empty list",
        ),
        (
            format!("{sched}[[source]]\ndirectory = \"/no/such/logs\"\n"),
            "the configuration detect.toml: source 1 (the [[source]] table number 1): the directory /no/such/logs cannot be opened",
        ),
        (
            "threshold = 0.9\n".to_owned(),
            "the configuration detect.toml: [schedule] names no `scan`",
        ),
        (
            format!("database = \"postgres://postgres:secret@127.0.0.1:1/nothing\"\n{sched}"),
            "cannot open the database postgres://postgres:***@127.0.0.1:1/nothing: ",
        ),
        (
            format!(
                "{sched}[[source]]\nurl = \"postgres://reader:secret@127.0.0.1:1/site\"\nkey = \"id\"\n\
                 query = \"SELECT * FROM moves WHERE id > $1\"\n"
            ),
            "cannot open the site database postgres://reader:***@127.0.0.1:1/site: ",
        ),
    ]
}

/// The site database is there, but the query is wrong.
fn site_query_errors(dir: &Path) {
    let sched = SCHEDULE;
    let site = TestDb::new(Backend::Postgres);
    pg_exec(
        &site.url,
        "CREATE TABLE moves (id serial PRIMARY KEY, username text, game text, ip text)",
    );
    let got = start_fails(
        dir,
        &format!(
            "{sched}[[source]]\nurl = {:?}\nkey = \"id\"\n\
             query = \"SELECT id, username, game, 0 AS timestamp FROM moves WHERE id > $1\"\n",
            site.url
        ),
    );
    assert!(got.contains("returns no column `ip`"), "{got}");
    let got = start_fails(
        dir,
        &format!(
            "{sched}[[source]]\nurl = {:?}\nkey = \"id\"\nquery = \"SELECT * FROM movez WHERE id > $1\"\n",
            site.url
        ),
    );
    assert!(
        got.contains("the query of the site database") && got.contains("movez"),
        "{got}"
    );
}
