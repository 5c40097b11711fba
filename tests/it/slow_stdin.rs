//! An ingest whose input is slow does not hold the store's write lock
//! while it waits (issue 36, item 10): standard input and named pipes are
//! read into a temporary file first, then stored in one transaction. Before,
//! `scan` and `verdict set` failed after 10 s with "database is locked".

use crate::common::*;
use std::io::Write;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

fn sample() -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/sample-season.jsonl")
        .to_string_lossy()
        .into_owned()
}

/// A store with the sample season scanned.
fn scanned() -> TestDb {
    let db = TestDb::new(Backend::Sqlite);
    db.ok(&["ingest", &sample()]);
    db.ok(&["scan", "--season", "1"]);
    db
}

fn ingest(db: &TestDb, path: &str) -> Child {
    Command::new(BIN)
        .current_dir(db.dir.path())
        .args(["--db", &db.url, "ingest", path])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start detect ingest")
}

/// What a waiting ingest must not block: a verdict and a scan, each
/// within the store's busy timeout.
fn others_proceed(db: &TestDb) {
    db.ok(&[
        "verdict",
        "set",
        "u014",
        "u036",
        "--as",
        "household",
        "--by",
        "mo",
    ]);
    db.ok(&["scan", "--season", "1"]);
}

const NEW_MOVES: &str = "{\"username\": \"late1\", \"game\": \"casual_1\", \"timestamp_utc\": \"2015-05-10 00:10:00\", \"ip\": \"192.0.2.1\"}\n\
{\"username\": \"late2\", \"game\": \"casual_1\", \"timestamp_utc\": \"2015-05-10 00:11:00\", \"ip\": \"192.0.2.2\"}\n";

fn finished(child: Child) -> String {
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_slow_standard_input_does_not_hold_the_write_lock() {
    let db = scanned();
    let mut child = ingest(&db, "-");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&NEW_MOVES.as_bytes()[..40]).unwrap();
    stdin.flush().unwrap();
    std::thread::sleep(Duration::from_millis(500));
    others_proceed(&db);
    stdin.write_all(&NEW_MOVES.as_bytes()[40..]).unwrap();
    drop(stdin);
    let out = finished(child);
    assert!(out.contains("<stdin>: 2 moves read, 2 stored"), "{out}");
}

#[test]
fn a_named_pipe_with_no_writer_does_not_hold_the_write_lock() {
    let db = scanned();
    let fifo = db.dir.path().join("moves.jsonl");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let child = ingest(&db, fifo.to_str().unwrap());
    std::thread::sleep(Duration::from_millis(500));
    others_proceed(&db);
    std::fs::write(&fifo, NEW_MOVES).unwrap();
    let out = finished(child);
    assert!(out.contains("moves.jsonl: 2 moves read, 2 stored"), "{out}");
}
