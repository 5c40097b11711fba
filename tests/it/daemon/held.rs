//! A daemon holds each site's segments from one scan tick to the next and
//! reads again only the accounts whose stored rows changed: its reports,
//! tick after tick in one process, are those of one scan of every move.

use super::support::*;
use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

/// Ticks finished in the log with new moves.
fn ticks_with_moves(log: &Path) -> usize {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("tick finished") && !l.contains("new_moves=0"))
        .count()
}

/// Waits until `n` ticks brought new moves (the daemon failing the test if
/// it exits or takes a minute).
fn wait_for_ticks(child: &mut Child, log: &Path, n: usize) {
    let started = Instant::now();
    while ticks_with_moves(log) < n {
        assert!(child.try_wait().unwrap().is_none(), "the daemon exited");
        if started.elapsed() > Duration::from_secs(60) {
            child.kill().ok();
            panic!("{n} ticks with moves not seen in a minute");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Writes `lines` as `name` in `logs` whole (a hidden file renamed, as the
/// directory source skips hidden files).
fn drop_file(logs: &Path, name: &str, lines: &[String]) {
    let hidden = logs.join(format!(".{name}"));
    std::fs::write(&hidden, lines.join("\n") + "\n").unwrap();
    std::fs::rename(hidden, logs.join(name)).unwrap();
}

/// A SQLite test store and an empty folder of logs beside it.
fn store_and_logs() -> (TestDb, PathBuf) {
    let store = TestDb::new(Backend::Sqlite);
    let logs = store.dir.path().join("logs");
    std::fs::create_dir(&logs).unwrap();
    (store, logs)
}

/// Stops a daemon and returns its log.
fn stopped(mut child: Child, log: &Path) -> String {
    child.kill().ok();
    child.wait().ok();
    std::fs::read_to_string(log).unwrap()
}

#[test]
fn a_daemon_holding_its_segments_reports_as_one_scan() {
    let (store, logs) = store_and_logs();
    let dir = store.dir.path();
    let lines = sample();
    let parts = [&lines[..2000], &lines[2000..3000], &lines[3000..]];
    drop_file(&logs, "a.jsonl", parts[0]);
    let (mut child, log) = scanning_daemon(
        &store,
        &logs,
        "info,sqlx=error,detect_app::pipeline::held=debug,\
         detect_app::pipeline::scan=debug,detect_app::daemon::similarities=debug",
    );
    let mut seen = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            drop_file(&logs, &format!("{i}.jsonl"), part);
        }
        seen.extend_from_slice(part);
        wait_for_ticks(&mut child, &log, i + 1);
        assert_report_matches(&store, &dir.join("reports"), &seen);
        // The chart of every pair, as a report from the store draws it.
        let out = dir.join(format!("report-{i}"));
        store.ok(&["report", "--season", "1", "--out", out.to_str().unwrap()]);
        let chart = |d: &std::path::Path| std::fs::read(d.join("distribution.svg")).unwrap();
        assert!(
            chart(&dir.join("reports").join("season-1")) == chart(&out),
            "the daemon's chart after part {i}"
        );
    }
    let log = stopped(child, &log);
    // Brought up to date, not loaded again: some accounts read, not none;
    // and the chart's similarities from the copy held after a rescan.
    assert!(
        log.lines()
            .any(|l| l.contains("held segments brought up to date") && !l.contains("accounts=0")),
        "{log}"
    );
    assert!(
        log.contains("similarities brought up to date from the copy held"),
        "{log}"
    );
    // A rescan of a scan made from the copy held takes again only the
    // digests of the accounts read again since.
    assert!(
        log.contains("digests taken again of the accounts changed since the base scan"),
        "{log}"
    );
    // The rescan after a rescan starts from the base the daemon held.
    assert!(
        log.contains("a rescan of the scan held, from its base held"),
        "{log}"
    );
}

/// Two rescans in a row, each of a few accounts' moves: the second starts
/// from the base the daemon held after the first, and the flagged pairs of
/// the accounts neither touched stay in its report.
#[test]
fn a_rescan_of_a_rescan_keeps_the_pairs_it_did_not_touch() {
    let (store, logs) = store_and_logs();
    let dir = store.dir.path();
    let lines = sample();
    let n = lines.len();
    let parts = [&lines[..n - 12], &lines[n - 12..n - 6], &lines[n - 6..]];
    drop_file(&logs, "a.jsonl", parts[0]);
    let (mut child, log) = scanning_daemon(&store, &logs, "info,sqlx=error,detect_app=debug");
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            drop_file(&logs, &format!("{i}.jsonl"), part);
        }
        wait_for_ticks(&mut child, &log, i + 1);
        assert_report_matches(&store, &dir.join("reports"), &lines[..n - 12 + 6 * i]);
    }
    let log = stopped(child, &log);
    let rescans = log.matches("rescan stored").count();
    assert_eq!(rescans, 2, "{log}");
    assert!(
        log.contains("a rescan of the scan held, from its base held"),
        "{log}"
    );
}

/// A daemon started on a store whose latest scan is current holds that
/// scan's base while it waits; it checks that the segments it holds give
/// the scan's digests, and its first rescan then takes again the digests of
/// the accounts that moved only, and reports as one scan.
#[test]
fn a_restarted_daemon_rescans_from_the_scan_it_found() {
    let (store, logs) = store_and_logs();
    let dir = store.dir.path();
    let lines = sample();
    let n = lines.len();
    drop_file(&logs, "a.jsonl", &lines[..n - 12]);
    let (mut child, log) = scanning_daemon(&store, &logs, "info,sqlx=error");
    wait_for_ticks(&mut child, &log, 1);
    stopped(child, &log);
    let (mut child, log) = scanning_daemon(&store, &logs, "info,sqlx=error,detect_app=debug");
    let started = Instant::now();
    while !std::fs::read_to_string(&log)
        .unwrap_or_default()
        .contains("tick finished")
    {
        assert!(started.elapsed() < Duration::from_secs(60), "no tick");
        std::thread::sleep(Duration::from_millis(100));
    }
    drop_file(&logs, "b.jsonl", &lines[n - 12..]);
    wait_for_ticks(&mut child, &log, 1);
    assert_report_matches(&store, &dir.join("reports"), &lines);
    let log = stopped(child, &log);
    assert!(
        log.contains("the latest scan's digests compared with the segments held scan=1 same=true"),
        "{log}"
    );
    assert!(
        log.contains("a rescan of the scan held, from its base held"),
        "{log}"
    );
    // The accounts who moved in the last lines, not all forty.
    let moved: std::collections::BTreeSet<&str> = lines[n - 12..]
        .iter()
        .filter_map(|l| l.split("\"username\": \"").nth(1)?.split('"').next())
        .collect();
    assert!(moved.len() < 12, "{moved:?}");
    let taken = format!(
        "digests taken again of the accounts changed since the base scan accounts={}",
        moved.len()
    );
    assert!(log.contains(&taken), "{log}");
}
