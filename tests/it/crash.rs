//! `kill -9` during an ingest leaves the store complete or untouched, never
//! partial or doubled, on SQLite and on PostgreSQL alike (issue 36: the
//! trials held on SQLite; these run them on both). An ingest of one file is
//! one transaction; a killed client's transaction is rolled back by the
//! database (SQLite's journal, PostgreSQL's closed connection).

use crate::common::*;
use std::process::{Command, Stdio};
use std::time::Duration;

const MOVES: usize = 60_000;

/// A log of `MOVES` distinct moves.
fn big_log(dir: &std::path::Path) -> String {
    let mut text = String::with_capacity(MOVES * 110);
    for i in 0..MOVES {
        text.push_str(&format!(
            "{{\"username\": \"a{}\", \"game\": \"4pLeague_S1_G{}\", \"timestamp\": {}, \"ip\": \"10.{}.{}.{}\"}}\n",
            i % 500,
            i % 97,
            1_430_600_000 + i as i64 * 7,
            (i >> 16) & 255,
            (i >> 8) & 255,
            i & 255
        ));
    }
    let path = dir.join("big.jsonl");
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

fn stored(db: &TestDb) -> i64 {
    block_on(async {
        let store = store::Store::open(&db.url).await.unwrap();
        let n = store.move_count().await.unwrap();
        store.close().await;
        n
    })
}

/// Whether an ingest's transaction has written to the store: SQLite's
/// write-ahead log has grown, or a PostgreSQL session of the store's
/// database holds a transaction id.
fn writing(db: &TestDb, wal_before: u64) -> bool {
    match db.url.strip_prefix("sqlite://") {
        Some(file) => std::fs::metadata(format!("{file}-wal")).map_or(0, |m| m.len()) > wal_before,
        None => block_on(async {
            use sqlx::Connection;
            let name = db.url.rsplit('/').next().unwrap().to_owned();
            let mut c = sqlx::PgConnection::connect(&postgres_admin_url())
                .await
                .unwrap();
            let n: i64 = sqlx::query_scalar(
                "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = $1 AND backend_xid IS NOT NULL",
            )
            .bind(name)
            .fetch_one(&mut c)
            .await
            .unwrap();
            c.close().await.ok();
            n > 0
        }),
    }
}

/// Starts `detect ingest FILE`, waits until its transaction writes, and
/// kills it `after` that.
fn killed_ingest(db: &TestDb, file: &str, after: Duration) {
    let wal = |db: &TestDb| {
        db.url
            .strip_prefix("sqlite://")
            .and_then(|f| std::fs::metadata(format!("{f}-wal")).ok())
            .map_or(0, |m| m.len())
    };
    let wal_before = wal(db);
    let mut child = Command::new(BIN)
        .current_dir(db.dir.path())
        .args(["--db", &db.url, "ingest", file])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while !writing(db, wal_before) && child.try_wait().unwrap().is_none() {
        assert!(
            std::time::Instant::now() < deadline,
            "the ingest never wrote"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(after);
    child.kill().ok(); // SIGKILL
    child.wait().unwrap();
}

fn kill_during_ingest(backend: Backend) {
    let db = TestDb::new(backend);
    let file = big_log(db.dir.path());
    let mut outcomes = Vec::new();
    for ms in [0, 0, 20, 50, 100, 200, 400, 800, 1600, 3200] {
        killed_ingest(&db, &file, Duration::from_millis(ms));
        let n = stored(&db);
        assert!(
            n == 0 || n == MOVES as i64,
            "{backend:?}: killed {ms} ms into its writing, {n} moves stored"
        );
        outcomes.push(n);
        if n > 0 {
            break;
        }
    }
    eprintln!("{backend:?}: moves stored after each kill: {outcomes:?}");
    // Whatever the kills left, one more ingest completes the store, once.
    db.ok(&["ingest", &file]);
    db.ok(&["ingest", &file]);
    assert_eq!(stored(&db), MOVES as i64, "{backend:?}: {outcomes:?}");
    db.ok(&["scan", "--season", "1"]);
}

#[test]
fn kill_during_ingest_leaves_sqlite_whole_or_untouched() {
    kill_during_ingest(Backend::Sqlite);
}

#[test]
fn kill_during_ingest_leaves_postgres_whole_or_untouched() {
    kill_during_ingest(Backend::Postgres);
}
