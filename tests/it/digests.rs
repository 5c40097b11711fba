//! A file ingested before (same bytes, same site) is skipped unread, on
//! both stores: its digest is stored in the transaction of its moves, so a
//! failed ingest records none, and another site or standard input is read.

use crate::common::*;

const LOG: &str = r#"{"username": "alice", "game": "4pLeague_S7_G1", "timestamp_utc": "2015-05-03 10:05:00", "ip": "10.0.0.1"}
{"username": "bob", "game": "4pLeague_S7_G1", "timestamp_utc": "2015-05-03 10:06:00", "ip": "10.0.0.1"}
{"username": "alice", "game": "4pLeague_S7_G1", "timestamp_utc": "2015-05-03 14:05:00", "ip": "10.0.0.1"}
{"username": "bob", "game": "4pLeague_S7_G1", "timestamp_utc": "2015-05-03 14:06:00", "ip": "10.0.0.1"}
{"username": null, "game": "4pLeague_S7_G1", "timestamp_utc": "2015-05-03 14:07:00", "ip": "10.0.0.1"}
"#;

const NEW_MOVE: &str = r#"{"username": "carol", "game": "4pLeague_S7_G1", "timestamp_utc": "2015-05-03 18:00:00", "ip": "10.0.0.2"}"#;

const BAD_LINE: &str = r#"{"username": "carol", "timestamp": "not a time", "ip": "1"}"#;

fn write(db: &TestDb, name: &str, content: &str) -> String {
    let path = db.dir.path().join(name);
    std::fs::write(&path, content).unwrap();
    path.to_str().unwrap().to_owned()
}

/// The site's stored moves, as `buckets` lists them.
fn buckets(db: &TestDb, site: &str) -> String {
    db.ok(&["--site", site, "buckets", "--season", "7"])
}

fn same_file_is_skipped(backend: Backend) {
    let db = TestDb::new(backend);
    let log = write(&db, "a.jsonl", LOG);
    let first = db.ok(&["ingest", &log]);
    assert!(first.contains("4 moves read, 4 stored"), "{first}");
    let before = buckets(&db, "default");

    let again = db.ok(&["ingest", &log]);
    assert_eq!(
        again.lines().next(),
        Some(format!("already stored: {log} (4 moves)").as_str())
    );
    assert!(!again.contains("purged"), "{again}");
    // Nothing new: the segments are not loaded or cut again.
    assert!(
        again.contains("store: 4 moves, nothing new; its 30-minute segments are current"),
        "{again}"
    );
    assert_eq!(buckets(&db, "default"), before);

    // One line appended: the file is read, and only the new move stored.
    let grown = format!("{LOG}{NEW_MOVE}\n");
    std::fs::write(&log, grown).unwrap();
    let changed = db.ok(&["ingest", &log]);
    assert!(
        changed.contains("5 moves read, 1 stored, 1 skipped (no username or ip), 4 duplicates"),
        "{changed}"
    );
    assert!(changed.contains("\nstore: 5 moves,"), "{changed}");
    let after = db.ok(&["ingest", &log]);
    assert_eq!(
        after.lines().next(),
        Some(format!("already stored: {log} (5 moves)").as_str())
    );

    // The same file into another site is that site's first sight of it.
    let other = db.ok(&["--site", "other", "ingest", &log]);
    assert!(other.contains("5 moves read, 5 stored"), "{other}");
    assert_eq!(buckets(&db, "other"), buckets(&db, "default"));

    // Standard input cannot be read twice to be checked: it is always read.
    for _ in 0..2 {
        let out = db.run_stdin(&["ingest", "-"], LOG.as_bytes());
        assert!(out.status.success(), "{out:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("4 moves read, 0 stored"), "{text}");
    }
}

#[test]
fn same_file_is_skipped_sqlite() {
    same_file_is_skipped(Backend::Sqlite);
}

#[test]
fn same_file_is_skipped_postgres() {
    same_file_is_skipped(Backend::Postgres);
}

fn failed_ingest_records_no_digest(backend: Backend) {
    let db = TestDb::new(backend);
    let log = write(&db, "bad.jsonl", &format!("{LOG}{BAD_LINE}\n"));
    let out = db.run(&["ingest", &log]);
    assert!(!out.status.success(), "a bad line must reject the file");

    // The very same bytes again: read again (and rejected again), not
    // skipped as already stored.
    let out = db.run(&["ingest", &log]);
    assert!(!out.status.success(), "the failed file was not read again");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("{log}, line 6:")), "{err}");

    // With --skip-bad the same bytes are read and the good lines stored.
    let skipped = db.ok(&["ingest", "--skip-bad", &log]);
    assert!(skipped.contains("4 moves read, 4 stored"), "{skipped}");

    // Fixed (the bad line made a good one), the file is read and stored.
    std::fs::write(&log, format!("{LOG}{NEW_MOVE}\n")).unwrap();
    let out = db.ok(&["ingest", &log]);
    assert!(out.contains("5 moves read, 1 stored"), "{out}");
}

#[test]
fn failed_ingest_records_no_digest_sqlite() {
    failed_ingest_records_no_digest(Backend::Sqlite);
}

#[test]
fn failed_ingest_records_no_digest_postgres() {
    failed_ingest_records_no_digest(Backend::Postgres);
}
