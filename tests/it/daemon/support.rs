//! What the daemon's end-to-end tests share: the sample season, the store's
//! state after a tick, running `detect daemon --once` or a daemon scanning
//! every second, and the check that a daemon's report agrees with `detect
//! report --input` on the same lines.

use crate::common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

pub const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/sample-season.jsonl");

pub fn sample() -> Vec<String> {
    std::fs::read_to_string(SAMPLE)
        .expect("the sample season")
        .lines()
        .map(str::to_owned)
        .collect()
}

/// What the store holds: its moves, its source marks of files, and whether
/// its latest scan of season 1 is whole.
pub struct StoreState {
    pub moves: i64,
    pub marked_files: Vec<String>,
}

pub fn store_state(url: &str, files: &[&str], dir: &Path) -> StoreState {
    block_on(async {
        let store = store::Store::open(url).await.expect("open the store");
        let moves = store.move_count().await.unwrap();
        let mut marked_files = Vec::new();
        for f in files {
            let source = format!("file:{}", dir.join(f).canonicalize().unwrap().display());
            if store.source_mark(&source).await.unwrap().is_some() {
                marked_files.push(f.to_string());
            }
        }
        if let Some(scan) = store.latest_scan(1).await.unwrap() {
            // A scan is visible whole or not at all: every candidate pair in
            // both directions, and cliques made of flagged pairs.
            assert_eq!(
                scan.result.pairs.len(),
                2 * scan.result.candidate_pairs,
                "a half-written scan is visible"
            );
            assert!(scan.result.candidate_pairs > 0);
        }
        store.close().await;
        StoreState {
            moves,
            marked_files,
        }
    })
}

/// `detect -v --db URL daemon --config CONFIG [ARGS]` in `dir`.
pub fn daemon_cmd(
    dir: &Path,
    db: &str,
    config: &Path,
    args: &[&str],
    pause_ms: Option<u64>,
) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.current_dir(dir)
        .args(["-v", "--db", db, "daemon", "--config"])
        .arg(config)
        .args(args)
        .env_remove("DETECT_DATABASE_URL")
        .env_remove("RUST_LOG")
        .env_remove("DETECT_DAEMON_TEST_PAUSE_MS")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null());
    if let Some(ms) = pause_ms {
        cmd.env("DETECT_DAEMON_TEST_PAUSE_MS", ms.to_string());
    }
    cmd
}

/// A running daemon scanning season 1 every second, moves from the
/// directory `logs`, reports in `DIR/reports`, its log (at `rust_log`) in
/// `DIR/daemon.log`, returned beside it.
pub fn scanning_daemon(store: &TestDb, logs: &Path, rust_log: &str) -> (Child, PathBuf) {
    let dir = store.dir.path();
    let config = write_config(
        dir,
        &format!(
            "report_dir = \"reports\"\nseasons = [1]\n[schedule]\nscan = \"* * * * * *\"\n\
             [[source]]\ndirectory = {}\n",
            toml_str(logs)
        ),
    );
    let log = dir.join("daemon.log");
    let child = daemon_cmd(dir, &store.url, &config, &[], None)
        .env("RUST_LOG", rust_log)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .expect("start the daemon");
    (child, log)
}

/// Runs `detect daemon --once` (killed, failing the test, if it hangs).
pub fn once(dir: &Path, db: &str, config: &Path) -> Output {
    output_within(&mut daemon_cmd(dir, db, config, &["--once"], None))
}

pub fn once_ok(dir: &Path, db: &str, config: &Path) -> String {
    let out = once(dir, db, config);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "detect daemon --once failed:\n{stderr}"
    );
    stderr
}

/// The pairs, summary and cliques of a JSON report, comparable.
pub fn report_core(v: &Value) -> (Value, Vec<(String, String, f64)>, Value) {
    let pairs = v["pairs"]
        .as_array()
        .expect("pairs")
        .iter()
        .map(|p| {
            (
                p["account_a"].as_str().unwrap().to_owned(),
                p["account_b"].as_str().unwrap().to_owned(),
                p["similarity"].as_f64().unwrap(),
            )
        })
        .collect();
    (v["summary"].clone(), pairs, v["cliques"].clone())
}

/// The daemon's report of season 1 agrees with `detect report --input` on
/// exactly these log lines, analysed in memory.
pub fn assert_report_matches(db: &TestDb, report_dir: &Path, lines: &[String]) {
    let want = report_of_lines(db, lines);
    let got: Value = serde_json::from_str(
        &std::fs::read_to_string(report_dir.join("season-1.json")).expect("the daemon's report"),
    )
    .expect("a whole JSON report");
    let (ws, wp, wc) = report_core(&want);
    let (gs, gp, gc) = report_core(&got);
    // The chart shows every directed pair, after a rescan too (whose
    // result holds only the flagged ones).
    let chart = std::fs::read_to_string(report_dir.join("season-1").join("distribution.svg"))
        .expect("the daemon's chart");
    let directed = 2 * ws["candidate_pairs"].as_u64().unwrap();
    assert!(
        chart.contains(&format!(" of {directed} directed pairs")),
        "the chart of every pair"
    );
    assert_eq!(gs, ws, "summary");
    assert_eq!(gc, wc, "cliques");
    assert_eq!(gp.len(), wp.len(), "flagged pairs");
    for (g, w) in gp.iter().zip(&wp) {
        assert!(
            g.0 == w.0 && g.1 == w.1 && (g.2 - w.2).abs() < 1e-9,
            "{g:?} != {w:?}"
        );
    }
    assert!(report_dir.join("season-1.txt").is_file());
    assert!(
        report_dir.join("season-1/index.html").is_file()
            && report_dir.join("season-1/distribution.svg").is_file(),
        "the daemon writes the HTML report with its pictures"
    );
}
