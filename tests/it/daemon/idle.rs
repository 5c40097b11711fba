//! A scan tick with nothing new (no move, no verdict) writes no report: the
//! season's report stays as it was. A verdict recorded between ticks is
//! published by the next one, from the flagged pairs and the similarities
//! the daemon holds, as a report of the whole scan shows it.

use super::support::*;
use crate::common::*;
use serde_json::Value;
use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

/// Waits until `done` holds of the daemon's log (the daemon failing the
/// test if it exits or takes a minute).
fn wait_for(child: &mut Child, log: &Path, what: &str, done: impl Fn(&str) -> bool) {
    let started = Instant::now();
    while !done(&std::fs::read_to_string(log).unwrap_or_default()) {
        assert!(child.try_wait().unwrap().is_none(), "the daemon exited");
        if started.elapsed() > Duration::from_secs(60) {
            child.kill().ok();
            panic!("not seen in a minute: {what}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn count(log: &str, what: &str) -> usize {
    log.lines().filter(|l| l.contains(what)).count()
}

/// The summary's row of flagged directed pairs in a report page.
fn flagged_row(page: &Path) -> String {
    let html = std::fs::read_to_string(page).unwrap();
    let at = html
        .find("Flagged directed pairs</th><td>")
        .expect("the row");
    html[at..].split("</td>").next().unwrap().to_owned()
}

#[test]
fn an_idle_tick_writes_no_report_and_a_verdict_is_published_as_a_whole_scan_shows_it() {
    let store = TestDb::new(Backend::Sqlite);
    let dir = store.dir.path();
    let logs = dir.join("logs");
    std::fs::create_dir(&logs).unwrap();
    std::fs::write(logs.join("a.jsonl"), sample().join("\n") + "\n").unwrap();
    let (mut child, log) = scanning_daemon(
        &store,
        &logs,
        "info,sqlx=error,detect_app::daemon::tick=debug,detect_app::daemon::reports=debug",
    );
    let reports = dir.join("reports");
    let json = reports.join("season-1.json");
    wait_for(&mut child, &log, "a report written", |l| {
        count(l, "report published") >= 1
    });
    let first = std::fs::read(&json).unwrap();
    let written = std::fs::metadata(&json).unwrap().modified().unwrap();
    // Two idle ticks: the report is neither written nor changed.
    wait_for(&mut child, &log, "two idle ticks", |l| {
        count(l, "report unchanged, not written again") >= 2
    });
    assert_eq!(
        std::fs::metadata(&json).unwrap().modified().unwrap(),
        written
    );
    assert_eq!(std::fs::read(&json).unwrap(), first);
    // A verdict on the strongest flagged pair: the next tick publishes it.
    let v: Value = serde_json::from_slice(&first).unwrap();
    let pair = &v["pairs"][0];
    let (a, b) = (
        pair["account_a"].as_str().unwrap(),
        pair["account_b"].as_str().unwrap(),
    );
    // Reports written whole: each tick logs its report published, after
    // its files, and an idle tick logs it unchanged before that.
    let reports_written = |l: &str| count(l, "report published") - count(l, "report unchanged");
    let before = reports_written(&std::fs::read_to_string(&log).unwrap());
    store.ok(&["verdict", "set", "--as", "household", "--by", "mod", a, b]);
    // The JSON is written before the pictures and the page: the report is
    // whole once the tick that wrote it logs it published.
    wait_for(&mut child, &log, "the verdict published", |l| {
        let now: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        now["known_relationships"].as_array().map(Vec::len) == Some(1)
            && reports_written(l) > before
    });
    child.kill().ok();
    child.wait().ok();
    // As a report of the whole stored scan shows it: the chart (every pair
    // but the known relationship's) and the share of flags.
    let out = dir.join("whole");
    store.ok(&["report", "--season", "1", "--out", out.to_str().unwrap()]);
    let daemon = reports.join("season-1");
    let chart = |d: &Path| std::fs::read(d.join("distribution.svg")).unwrap();
    assert!(
        chart(&daemon) == chart(&out),
        "the daemon's chart after the verdict"
    );
    assert_eq!(
        flagged_row(&daemon.join("index.html")),
        flagged_row(&out.join("index.html"))
    );
}
