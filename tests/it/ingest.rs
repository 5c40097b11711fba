//! Ingest behaviour on both stores: idempotence, atomic rejection of bad
//! files, --skip-bad, formats (CSV, gzip, stdin), and reports on inferred
//! seasons with no setup.

use crate::common::*;

const LOG: &str = r#"{"username": "alice", "game": "4pLeague_S7_G1", "timestamp_utc": "2015-05-03 10:05:00", "ip": "10.0.0.1"}
{"username": "bob", "game": "4pLeague_S7_G1", "timestamp_utc": "2015-05-03 10:06:00", "ip": "10.0.0.1"}
{"username": "alice", "game": "4pLeague_S7_G1", "timestamp_utc": "2015-05-03 14:05:00", "ip": "10.0.0.1"}
{"username": "bob", "game": "4pLeague_S7_G1", "timestamp_utc": "2015-05-03 14:06:00", "ip": "10.0.0.1"}
{"username": null, "game": "4pLeague_S7_G1", "timestamp_utc": "2015-05-03 14:07:00", "ip": "10.0.0.1"}
"#;

fn counts(out: &str) -> (u64, u64, u64, u64) {
    // "<file>: N moves read, N stored, N skipped (...), N duplicates ignored"
    let line = out.lines().next().expect("summary line");
    let nums: Vec<u64> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    let n = nums.len();
    (nums[n - 4], nums[n - 3], nums[n - 2], nums[n - 1])
}

fn write(db: &TestDb, name: &str, content: &[u8]) -> String {
    let path = db.dir.path().join(name);
    std::fs::write(&path, content).unwrap();
    path.to_str().unwrap().to_owned()
}

fn stored_buckets(db: &TestDb) -> String {
    db.ok(&["buckets", "--season", "7"])
}

fn idempotent_and_overlapping(backend: Backend) {
    let db = TestDb::new(backend);
    let log = write(&db, "a.jsonl", LOG.as_bytes());
    let first = db.ok(&["ingest", &log]);
    assert_eq!(counts(&first), (4, 4, 1, 0), "{first}");
    let before = stored_buckets(&db);
    // The same file again is recognised by its digest and not read.
    let again = db.ok(&["ingest", &log]);
    assert_eq!(
        again.lines().next(),
        Some(format!("already stored: {log} (4 moves)").as_str())
    );
    assert_eq!(stored_buckets(&db), before);

    // An overlapping export: the last two moves again, and one new move.
    let lines: Vec<&str> = LOG.lines().collect();
    let overlap = format!(
        "{}\n{}\n{}\n",
        lines[2],
        lines[3],
        r#"{"username": "bob", "game": "4pLeague_S7_G1", "timestamp_utc": "2015-05-03 18:00:00", "ip": "10.0.0.2"}"#
    );
    let b = write(&db, "b.jsonl", overlap.as_bytes());
    assert_eq!(counts(&db.ok(&["ingest", &b])), (3, 1, 0, 2));
    assert_ne!(stored_buckets(&db), before);
}

#[test]
fn ingest_is_idempotent_sqlite() {
    idempotent_and_overlapping(Backend::Sqlite);
}

#[test]
fn ingest_is_idempotent_postgres() {
    idempotent_and_overlapping(Backend::Postgres);
}

fn bad_file_is_rejected_whole(backend: Backend) {
    let db = TestDb::new(backend);
    let good = write(&db, "good.jsonl", LOG.as_bytes());
    db.ok(&["ingest", &good]);
    let before = stored_buckets(&db);

    let bad_log = format!(
        "{}\n{}\n{{\"username\": \"carol\", \"timestamp\": \"not a time\", \"ip\": \"1\"}}\n",
        r#"{"username": "carol", "game": "4pLeague_S7_G2", "timestamp_utc": "2015-05-03 10:05:00", "ip": "10.0.0.1"}"#,
        r#"{"username": "carol", "game": "4pLeague_S7_G2", "timestamp_utc": "2015-05-03 12:05:00", "ip": "10.0.0.1"}"#,
    );
    let bad = write(&db, "bad.jsonl", bad_log.as_bytes());
    let out = db.run(&["ingest", &bad]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.jsonl, line 3"), "{err}");
    assert!(err.contains("cannot read the time \"not a time\""), "{err}");
    assert!(err.contains("nothing of this file was stored"), "{err}");
    assert_eq!(
        stored_buckets(&db),
        before,
        "the rejected file changed the store"
    );

    let broken_json = write(&db, "broken.jsonl", b"{\"username\": \"carol\"\n");
    let out = db.run(&["ingest", &broken_json]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("broken.jsonl, line 1: bad JSON"),
        "{err}"
    );

    let out = db.ok(&["ingest", "--skip-bad", &bad]);
    assert!(out.contains("2 moves read, 2 stored"), "{out}");
    assert!(out.contains("1 bad lines skipped"), "{out}");
    assert!(out.contains("line 3: cannot read the time"), "{out}");
    assert_ne!(stored_buckets(&db), before);
}

#[test]
fn bad_file_is_rejected_whole_sqlite() {
    bad_file_is_rejected_whole(Backend::Sqlite);
}

#[test]
fn bad_file_is_rejected_whole_postgres() {
    bad_file_is_rejected_whole(Backend::Postgres);
}

/// `n` distinct moves from `from` on, a minute apart, as JSON lines.
fn many_moves(from: usize, n: usize) -> String {
    (from..from + n)
        .map(|i| {
            format!(
                "{{\"username\": \"u{}\", \"game\": \"4pLeague_S7_G{}\", \"timestamp\": {}, \"ip\": \"10.0.{}.{}\"}}\n",
                i % 300,
                i % 50,
                1_430_640_000 + 60 * i as i64,
                i % 7,
                i % 11 + 1
            )
        })
        .collect()
}

/// A file is stored a chunk at a time while the next is read: counts over
/// several chunks in flight, with moves stored before among them, and the
/// same store as one file of the same moves.
fn files_of_several_chunks(backend: Backend) {
    let db = TestDb::new(backend);
    let a = write(&db, "a.jsonl", many_moves(0, 12_000).as_bytes());
    assert_eq!(counts(&db.ok(&["ingest", &a])), (12_000, 12_000, 0, 0));
    // The last 7,000 again, and 3,000 new ones.
    let b = write(&db, "b.jsonl", many_moves(5_000, 10_000).as_bytes());
    assert_eq!(counts(&db.ok(&["ingest", &b])), (10_000, 3_000, 0, 7_000));

    let whole = TestDb::new(backend);
    let all = write(&whole, "all.jsonl", many_moves(0, 15_000).as_bytes());
    assert_eq!(counts(&whole.ok(&["ingest", &all])), (15_000, 15_000, 0, 0));
    assert_eq!(stored_buckets(&db), stored_buckets(&whole));
}

#[test]
fn files_of_several_chunks_sqlite() {
    files_of_several_chunks(Backend::Sqlite);
}

#[test]
fn files_of_several_chunks_postgres() {
    files_of_several_chunks(Backend::Postgres);
}

#[test]
fn csv_gzip_and_stdin_read_the_same_moves() {
    use std::io::Write;
    let reference = TestDb::new(Backend::Sqlite);
    let log = write(&reference, "a.jsonl", LOG.as_bytes());
    reference.ok(&["ingest", &log]);
    let want = stored_buckets(&reference);

    let stdin = TestDb::new(Backend::Sqlite);
    let out = stdin.run_stdin(&["ingest", "-"], LOG.as_bytes());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stored_buckets(&stdin), want);

    let gz = TestDb::new(Backend::Sqlite);
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(LOG.as_bytes()).unwrap();
    let path = write(&gz, "a.jsonl.gz", &enc.finish().unwrap());
    gz.ok(&["ingest", &path]);
    assert_eq!(stored_buckets(&gz), want);

    let csv = TestDb::new(Backend::Sqlite);
    let mut text = String::from("timestamp,username,game,ip\n");
    for line in LOG.lines() {
        let j: serde_json::Value = serde_json::from_str(line).unwrap();
        text.push_str(&format!(
            "{},{},{},{}\n",
            j["timestamp_utc"].as_str().unwrap().replace(' ', "T") + "+00:00",
            j["username"].as_str().unwrap_or(""),
            j["game"].as_str().unwrap(),
            j["ip"].as_str().unwrap()
        ));
    }
    let path = write(&csv, "a.csv", text.as_bytes());
    assert_eq!(counts(&csv.ok(&["ingest", &path])), (4, 4, 1, 0));
    assert_eq!(stored_buckets(&csv), want);
}

#[test]
fn report_on_an_inferred_season_needs_no_setup() {
    let db = TestDb::new(Backend::Sqlite);
    let log = write(&db, "log.jsonl", LOG.as_bytes());
    // The default store: detect.db in the current directory.
    let run = |args: &[&str]| {
        let out = run_default_store(db.dir.path(), args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    run(&["ingest", &log]);
    let report = run(&["report", "--season", "7"]);
    assert!(db.dir.path().join("detect.db").is_file());
    assert!(report.contains("Season 7"), "{report}");
    assert!(report.contains("inferred from game names"), "{report}");
    assert!(report.contains("participants      2"), "{report}");
    // alice -> bob 40/60 (0.83), bob -> alice 20/40 (0.75): below 0.9.
    assert!(report.contains("No pair reaches the threshold"), "{report}");
    let csv = run(&["report", "--season", "7", "--format", "csv", "--all"]);
    let pairs = pairs_of_csv(&csv);
    let want = [
        (
            "alice".to_owned(),
            "bob".to_owned(),
            40.0 / 60.0 / 2.0 + 0.5,
        ),
        (
            "bob".to_owned(),
            "alice".to_owned(),
            20.0 / 40.0 / 2.0 + 0.5,
        ),
    ];
    assert_eq!(
        pair_differences(&pairs, &want),
        Vec::<String>::new(),
        "{csv}"
    );

    let out = run_default_store(db.dir.path(), &["report", "--season", "8"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("season 8 is not defined"), "{err}");
}

#[test]
fn an_unreachable_store_is_one_clear_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let started = std::time::Instant::now();
    let out = run_in(
        dir.path(),
        "postgres://someone:secret@127.0.0.1:1/nothing",
        &["report", "--season", "1"],
        None,
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(
            "error: cannot open the database postgres://someone:***@127.0.0.1:1/nothing"
        ),
        "{err}"
    );
    assert!(err.contains("refused"), "{err}");
    assert!(!err.contains("secret"), "the password leaked: {err}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "slow to fail"
    );
}

#[test]
fn report_input_names_a_bad_line_and_reads_unsorted_logs() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.jsonl");
    let lines: Vec<&str> = LOG.lines().collect();
    std::fs::write(&bad, format!("{}\n{{\"username\": \"x\"\n", lines[0])).unwrap();
    let db = dir.path().join("unused.db");
    let out = run_in(
        dir.path(),
        db.to_str().unwrap(),
        &["report", "--input", bad.to_str().unwrap()],
        None,
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.jsonl, line 2: bad JSON"), "{err}");

    // The same moves in reverse order give the same report: --input sorts.
    let sorted = dir.path().join("sorted.jsonl");
    let reversed = dir.path().join("reversed.jsonl");
    std::fs::write(&sorted, LOG).unwrap();
    let mut rev = lines.clone();
    rev.reverse();
    std::fs::write(&reversed, rev.join("\n") + "\n").unwrap();
    let csv = |f: &std::path::Path| {
        let out = run_in(
            dir.path(),
            db.to_str().unwrap(),
            &[
                "report",
                "--input",
                f.to_str().unwrap(),
                "--season",
                "7",
                "--format",
                "csv",
                "--all",
            ],
            None,
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    assert_eq!(csv(&sorted), csv(&reversed));
    assert!(!db.exists());
}
