//! Improved mode's timing pairs end to end: a puppet that only ever plays
//! through a VPN exit never shares an address with its owner, yet `detect
//! scan --mode improved` flags the pair from when they play, `explain` says
//! why, and the store's scan reads as `report --input`'s. On SQLite and
//! PostgreSQL.

use crate::common::*;
use std::fmt::Write as _;

const DAYS: i64 = 14;
const EXIT: &str = "203.0.113.7";

/// `owner` plays from home at a different hour each day (6, 10, 14, 18 or
/// 22 o'clock in turn) and `shadow` an hour later, always through the VPN
/// exit; eight strangers use the exit now and then; `neighbour` plays from
/// its own address every evening at seven.
fn log() -> String {
    let mut out = String::new();
    let mut line = |account: &str, day: i64, hour: i64, minute: i64, ip: &str| {
        let game = format!("4pLeague_S1_D1L1G{}", day % 3 + 1);
        writeln!(
            out,
            r#"{{"username": "{account}", "game": "{game}", "timestamp_utc": "2026-03-{:02} {hour:02}:{minute:02}:00", "ip": "{ip}"}}"#,
            day + 1
        )
        .unwrap();
    };
    for day in 0..DAYS {
        let hour = 6 + 4 * (day % 5);
        for m in [0, 2] {
            line("owner", day, hour, m, "198.51.100.20");
            line("shadow", day, hour + 1, m, EXIT);
            line("neighbour", day, 19, m, "192.0.2.55");
        }
    }
    for k in 0..8 {
        line(&format!("stranger{k}"), k, 3, 30, EXIT);
    }
    out
}

fn a_hidden_puppet_is_found_by_timing(backend: Backend) {
    let db = TestDb::new(backend);
    let path = db.dir.path().join("moves.jsonl");
    std::fs::write(&path, log()).unwrap();
    let path = path.to_str().unwrap();
    db.ok(&["ingest", path]);
    db.ok(&["scan", "--season", "1", "--mode", "improved"]);
    let csv = db.ok(&[
        "report", "--season", "1", "--format", "csv", "--mode", "improved",
    ]);
    let flagged: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(flagged.len(), 2, "both directions of one pair:\n{csv}");
    for row in &flagged {
        assert!(
            row.contains("owner") && row.contains("shadow"),
            "only owner and shadow are flagged:\n{csv}"
        );
    }
    let text = db.ok(&[
        "explain", "--season", "1", "--mode", "improved", "shadow", "owner",
    ]);
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for part in [
        "Timing: shadow and owner never moved from one address on one day",
        "14 of shadow's 14 sittings began within 2 hours after a move of owner",
        "by chance, reading the same hours on other days: 0%",
        "of the stretches both played in, owner opened 14 and shadow 0",
    ] {
        assert!(text.contains(part), "explain lacks {part:?}:\n{text}");
    }
    assert!(!text.contains(EXIT), "a raw IP without --show-ips: {text}");
    // The store's scan reads as the same scan of the log in memory.
    let all = db.ok(&[
        "report", "--season", "1", "--format", "csv", "--all", "--mode", "improved",
    ]);
    let memory = db.ok(&[
        "report", "--input", path, "--season", "1", "--format", "csv", "--all", "--mode",
        "improved",
    ]);
    assert_eq!(all, memory);
    // With the evidence too: the store keeps improved signals once per pair
    // and gives the other direction its own, swapped.
    let pairs = |args: &[&str]| {
        let report: serde_json::Value = serde_json::from_str(&db.ok(args)).unwrap();
        report["pairs"].clone()
    };
    let json = [
        "--season", "1", "--format", "json", "--all", "--mode", "improved",
    ];
    let stored = pairs(&[&["report"][..], &json].concat());
    assert!(stored.as_array().unwrap().len() > 4);
    assert!(stored
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p["evidence"]["signals"].is_object()));
    assert_eq!(
        stored,
        pairs(&[&["report", "--input", path][..], &json].concat())
    );
    // Reference mode never sees the pair: they shared no address.
    db.ok(&["scan", "--season", "1", "--mode", "reference"]);
    let reference = db.ok(&["report", "--season", "1", "--format", "csv", "--all"]);
    assert!(
        !reference
            .lines()
            .any(|l| l.contains("owner") && l.contains("shadow")),
        "{reference}"
    );
}

#[test]
fn a_hidden_puppet_is_found_by_timing_sqlite() {
    a_hidden_puppet_is_found_by_timing(Backend::Sqlite);
}

#[test]
fn a_hidden_puppet_is_found_by_timing_postgres() {
    a_hidden_puppet_is_found_by_timing(Backend::Postgres);
}
