//! A daemon holds each site's segments from one scan tick to the next and
//! reads again only the accounts whose stored rows changed: its reports,
//! tick after tick in one process, are those of one scan of every move.

use super::support::*;
use crate::common::*;
use std::path::Path;
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

#[test]
fn a_daemon_holding_its_segments_reports_as_one_scan() {
    let store = TestDb::new(Backend::Sqlite);
    let dir = store.dir.path();
    let logs = dir.join("logs");
    std::fs::create_dir(&logs).unwrap();
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
    child.kill().ok();
    child.wait().ok();
    let log = std::fs::read_to_string(&log).unwrap();
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
}
