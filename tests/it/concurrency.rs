//! Concurrent writers on one SQLite store: two `detect ingest` processes at
//! once both succeed (the second waits for the first's write lock instead
//! of failing with `database is locked`), and every move is stored once.

use crate::common::*;
use std::process::{Command, Stdio};

/// `n` moves of `prefix`'s accounts, one a minute, with `shared` lines at
/// the start that both logs hold.
fn log(prefix: &str, n: usize, shared: usize) -> String {
    let mut out = String::new();
    let line = |account: String, i: usize| {
        let t = 1_430_000_000 + i as i64 * 60;
        format!(
            "{{\"username\": \"{account}\", \"game\": \"4pLeague_S1_G{}\", \"timestamp\": {t}, \"ip\": \"10.0.{}.{}\"}}\n",
            i % 50,
            i % 7,
            i % 11
        )
    };
    for i in 0..shared {
        out.push_str(&line(format!("both{}", i % 40), i));
    }
    for i in shared..n {
        out.push_str(&line(format!("{prefix}{}", i % 40), i));
    }
    out
}

fn moves_in(db: &TestDb) -> i64 {
    let file = db.url.trim_start_matches("sqlite://").to_owned();
    block_on(async {
        use sqlx::ConnectOptions;
        let mut conn = sqlx::sqlite::SqliteConnectOptions::new()
            .filename(&file)
            .connect()
            .await
            .unwrap();
        let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM moves")
            .fetch_one(&mut conn)
            .await
            .unwrap();
        let (dups,): (i64,) = sqlx::query_as(
            "SELECT COUNT(*) FROM (SELECT 1 FROM moves GROUP BY ts, username, game, ip, occurrence HAVING COUNT(*) > 1)",
        )
        .fetch_one(&mut conn)
        .await
        .unwrap();
        assert_eq!(dups, 0, "a move is stored twice");
        n
    })
}

#[test]
fn two_concurrent_ingests_both_succeed_and_store_each_move_once() {
    let db = TestDb::new(Backend::Sqlite);
    // The store exists (migrated) before the two writers start.
    db.ok(&["season", "list"]);
    let (n, shared) = (30_000, 3_000);
    let a = db.dir.path().join("a.jsonl");
    let b = db.dir.path().join("b.jsonl");
    std::fs::write(&a, log("a", n, shared)).unwrap();
    std::fs::write(&b, log("b", n, shared)).unwrap();
    for round in 0..2 {
        let spawn = |file: &std::path::Path| {
            Command::new(env!("CARGO_BIN_EXE_detect"))
                .current_dir(db.dir.path())
                .args(["--db", &db.url, "ingest", file.to_str().unwrap()])
                .env_remove("RUST_LOG")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (pa, pb) = (spawn(&a), spawn(&b));
        for (name, p) in [("a", pa), ("b", pb)] {
            let out = p.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "round {round}: ingest of {name} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        // Each move once: the shared lines are stored by one of the two,
        // and a second round stores nothing new.
        assert_eq!(moves_in(&db), (2 * n - shared) as i64, "round {round}");
    }
}
