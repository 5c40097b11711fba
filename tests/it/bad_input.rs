//! The bad-input corpus (tests/bad_input, written by its generate.py): one
//! file per kind of bad line, with good lines around it, and cases.tsv, the
//! table of expectations. For every kind:
//! - `detect ingest FILE` exits 1 with `FILE, line N: <what is wrong>`, and
//!   the store is byte for byte what it was;
//! - `detect ingest --skip-bad FILE` stores exactly the good lines (or, for
//!   a file with no usable header or a broken stream, still fails).
//!
//! Both on SQLite (the store compared byte for byte) and on PostgreSQL (its
//! tables' rows compared). And a store that already holds what the rule
//! refuses (an out-of-range time, an empty name, put there by SQL) still
//! reports, leaving them out.

use crate::common::*;
use std::path::{Path, PathBuf};

struct Case {
    file: String,
    /// `None`: any line.
    line: Option<u64>,
    fragment: String,
    /// Good moves stored with --skip-bad; `None`: rejected anyway.
    skip_bad: Option<u64>,
}

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad_input")
}

fn cases() -> Vec<Case> {
    let table = std::fs::read_to_string(corpus().join("cases.tsv")).unwrap();
    table
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 4, "a row of cases.tsv: {l}");
            Case {
                file: f[0].to_owned(),
                line: f[1].parse().ok(),
                fragment: f[2].to_owned(),
                skip_bad: f[3].parse().ok(),
            }
        })
        .collect()
}

const SEED: &str = r#"{"username": "seed_a", "game": "4pLeague_S1_G9", "timestamp_utc": "2015-05-02 10:00:00", "ip": "10.9.9.9"}
{"username": "seed_b", "game": "4pLeague_S1_G9", "timestamp_utc": "2015-05-02 10:05:00", "ip": "10.9.9.9"}
"#;

/// The store's files, byte for byte: the database, and its write-ahead log
/// if one is left beside it (the shared-memory index `-shm` is no content).
fn store_bytes(db: &TestDb) -> Vec<(String, Vec<u8>)> {
    // Whether the last process to close the store folded its log into the
    // file depends on timing; fold it now (committed pages only), so the
    // comparison sees content, not the moment of a checkpoint.
    let file = db.url.trim_start_matches("sqlite://").to_owned();
    block_on(async {
        use sqlx::{ConnectOptions, Connection};
        let mut conn = sqlx::sqlite::SqliteConnectOptions::new()
            .filename(&file)
            .connect()
            .await
            .unwrap();
        sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
            .execute(&mut conn)
            .await
            .unwrap();
        conn.close().await.unwrap();
    });
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(db.dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("detect.db") && !n.ends_with("-shm"))
        })
        .filter(|p| {
            !(p.to_string_lossy().ends_with("-wal") && std::fs::metadata(p).unwrap().len() == 0)
        })
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

/// What a store holds: SQLite's files byte for byte; PostgreSQL's tables
/// of moves, games, file digests and state, row by row.
fn store_content(db: &TestDb) -> Vec<(String, Vec<u8>)> {
    if db.url.starts_with("sqlite://") {
        return store_bytes(db);
    }
    block_on(async {
        use sqlx::{Connection, Row};
        let mut c = sqlx::PgConnection::connect(&db.url).await.unwrap();
        let mut out = Vec::new();
        for (table, sql) in [
            ("moves", "SELECT concat_ws('|', site, username, game, ts, ip, occurrence) FROM moves ORDER BY 1"),
            ("games", "SELECT concat_ws('|', site, name) FROM games ORDER BY 1"),
            ("file_digests", "SELECT concat_ws('|', site, digest, bytes, moves) FROM file_digests ORDER BY 1"),
            ("store_state", "SELECT concat_ws('|', key, value) FROM store_state ORDER BY 1"),
        ] {
            let rows = sqlx::query(sql).fetch_all(&mut c).await.unwrap();
            let text: Vec<String> = rows.iter().map(|r| r.get::<String, _>(0)).collect();
            out.push((table.to_owned(), text.join("\n").into_bytes()));
        }
        c.close().await.ok();
        out
    })
}

#[test]
fn every_kind_of_bad_line_is_named_and_stores_nothing_sqlite() {
    every_kind_of_bad_line_is_named_and_stores_nothing(Backend::Sqlite);
}

#[test]
fn every_kind_of_bad_line_is_named_and_stores_nothing_postgres() {
    every_kind_of_bad_line_is_named_and_stores_nothing(Backend::Postgres);
}

fn every_kind_of_bad_line_is_named_and_stores_nothing(backend: Backend) {
    let cases = cases();
    assert!(cases.len() >= 40, "the corpus has {} kinds", cases.len());
    let db = TestDb::new(backend);
    let seed = db.dir.path().join("seed.jsonl");
    std::fs::write(&seed, SEED).unwrap();
    db.ok(&["ingest", seed.to_str().unwrap()]);
    let before = store_content(&db);
    let mut failures = Vec::new();
    for case in &cases {
        let path = corpus().join(&case.file);
        let path = path.to_str().unwrap();
        let out = db.run(&["ingest", path]);
        let err = String::from_utf8_lossy(&out.stderr);
        if out.status.code() != Some(1) {
            failures.push(format!(
                "{}: exit {:?}, not 1",
                case.file,
                out.status.code()
            ));
        }
        let place = match case.line {
            Some(n) => format!("{path}, line {n}: "),
            None => format!("{path}, line "),
        };
        if !err.contains(&place) || !err.contains(&case.fragment) {
            failures.push(format!(
                "{}: wanted `{place}` and `{}` in: {err}",
                case.file, case.fragment
            ));
        }
        if err.contains("10.0.0.9") || err.contains("10.0.0.77") {
            failures.push(format!("{}: the message shows an IP: {err}", case.file));
        }
        let after = store_content(&db);
        if after != before {
            let sizes = |v: &[(String, Vec<u8>)]| {
                v.iter()
                    .map(|(n, b)| format!("{n} {}", b.len()))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            failures.push(format!(
                "{}: the store changed: {} -> {}",
                case.file,
                sizes(&before),
                sizes(&after)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn skip_bad_stores_every_good_line_and_only_those_sqlite() {
    skip_bad_stores_every_good_line_and_only_those(Backend::Sqlite);
}

#[test]
fn skip_bad_stores_every_good_line_and_only_those_postgres() {
    skip_bad_stores_every_good_line_and_only_those(Backend::Postgres);
}

fn skip_bad_stores_every_good_line_and_only_those(backend: Backend) {
    let failures: Vec<String> = each_case(&cases(), |case| {
        let db = TestDb::new(backend);
        let path = corpus().join(&case.file);
        let out = db.run(&["ingest", "--skip-bad", path.to_str().unwrap()]);
        let text = String::from_utf8_lossy(&out.stdout);
        match case.skip_bad {
            Some(good) => {
                let want = format!("{good} moves read, {good} stored");
                if !out.status.success()
                    || !text.contains(&want)
                    || !text.contains("1 bad lines skipped")
                {
                    return Some(format!(
                        "{}: wanted `{want}` and one bad line, got {:?}: {text}{}",
                        case.file,
                        out.status.code(),
                        String::from_utf8_lossy(&out.stderr)
                    ));
                }
                None
            }
            None if out.status.code() != Some(1) => {
                Some(format!("{}: --skip-bad did not reject it", case.file))
            }
            None => None,
        }
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Rows an older version stored (an out-of-range time, an empty name, a
/// blank one) are left out, reported once, and the season still reports.
#[test]
fn a_store_holding_refused_rows_still_reports() {
    let db = TestDb::new(Backend::Sqlite);
    let seed = db.dir.path().join("seed.jsonl");
    std::fs::write(&seed, SEED).unwrap();
    db.ok(&["ingest", seed.to_str().unwrap()]);
    let file = db.url.trim_start_matches("sqlite://").to_owned();
    block_on(async {
        use sqlx::ConnectOptions;
        let mut conn = sqlx::sqlite::SqliteConnectOptions::new()
            .filename(&file)
            .connect()
            .await
            .unwrap();
        for (account, ts) in [
            ("mallory", i64::MAX),
            ("mallory", i64::MIN),
            ("mallory", 253_402_300_799),
            ("", 1_430_600_000),
            ("  ", 1_430_600_100),
        ] {
            sqlx::query(
                "INSERT INTO moves (username, game, ts, ip, occurrence) VALUES ($1, '4pLeague_S1_G9', $2, '10.9.9.9', 0)",
            )
            .bind(account)
            .bind(ts)
            .execute(&mut conn)
            .await
            .unwrap();
        }
    });
    // A new ingest makes the segments be cut again from every stored move.
    let more = db.dir.path().join("more.jsonl");
    std::fs::write(
        &more,
        r#"{"username": "seed_a", "game": "4pLeague_S1_G9", "timestamp_utc": "2015-05-02 11:00:00", "ip": "10.9.9.9"}
"#,
    )
    .unwrap();
    let out = db.run(&["ingest", more.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.matches("break the record rule").count(),
        1,
        "reported once: {err}"
    );
    assert!(err.contains("rows=5"), "{err}");
    assert!(
        !err.contains('\u{1b}'),
        "no colour codes in a log that is not a terminal: {err}"
    );
    let out = db.run(&["report", "--season", "1", "--all"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("seed_a") && text.contains("seed_b"), "{text}");
    assert!(!text.contains("mallory"), "{text}");
}

/// A log of `n` good lines of season 1 over three weeks, some 3 MB: large
/// enough that `report --input` parses it in ranges side by side.
fn large_log(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| {
            format!(
                "{{\"username\": \"u{:03}\", \"game\": \"4pLeague_S1_{}\", \"timestamp\": {}, \"ip\": \"10.0.{}.{}\"}}",
                (i * 7919) % 97,
                i % 41,
                1_430_000_000 + i as i64 * 61,
                (i * 31) % 5,
                (i * 13) % 23
            )
        })
        .collect()
}

/// A large plain log, read in ranges, reads as the same log gzipped (read
/// in one piece); a bad line deep in it is named by its line in the file,
/// and of two bad lines the first is.
#[test]
fn report_input_reads_a_large_log_in_ranges_as_one() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let mut lines = large_log(30_000);
    let plain = dir.path().join("large.jsonl");
    std::fs::write(&plain, lines.join("\n") + "\n").unwrap();
    let gz = dir.path().join("large.jsonl.gz");
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).unwrap(),
        flate2::Compression::fast(),
    );
    enc.write_all((lines.join("\n") + "\n").as_bytes()).unwrap();
    enc.finish().unwrap();
    let ranges = ingest::ranges::json_ranges(plain.to_str().unwrap()).unwrap();
    assert!(ranges.len() >= 4, "{ranges:?}");
    let db = TestDb::new(Backend::Sqlite);
    let report = |path: &Path| {
        db.ok(&[
            "report",
            "--input",
            path.to_str().unwrap(),
            "--season",
            "1",
            "--format",
            "csv",
            "--all",
        ])
    };
    let from_plain = report(&plain);
    assert!(from_plain.lines().count() > 100, "{from_plain}");
    assert_eq!(from_plain, report(&gz));
    // The log with these lines, which `report --input` refuses naming `line`.
    let fails_at = |lines: &[String], line: usize| {
        std::fs::write(&plain, lines.join("\n") + "\n").unwrap();
        let args = [
            "report",
            "--input",
            plain.to_str().unwrap(),
            "--season",
            "1",
        ];
        let out = db.run(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert!(err.contains(&format!("large.jsonl, line {line}")), "{err}");
    };
    lines[26_000] = "{\"username\": \"u001\", \"timestamp\": \"not a time\", \"ip\": \"1\"}".into();
    fails_at(&lines, 26_001);
    lines[12_000] = "{\"username\": \"u001\", \"timestamp\": [], \"ip\": \"1\"}".into();
    fails_at(&lines, 12_001);
}
