//! Migration 0021 (a pair's evidence as one value of bytes): a store whose
//! pairs were saved by the previous release, their evidence in thirteen
//! columns, migrates on both back ends and reads byte for byte as it did;
//! new scans save the one value.
//!
//! The previous release's store is made from one of this release by
//! [`undo_0021`], which writes each pair's evidence back into the columns
//! from its own reading of the documented layout
//! (`store/src/scans/evidence.rs`), and is checked against a store
//! migrated only as far as 0020.

use crate::common::*;
use sqlx::{AnyPool, Row};

/// Undoes migration 0021 (after 0022) on the store behind `p`: every pair's evidence
/// into the columns the previous release kept it in, the column and the
/// index as they were.
pub(crate) async fn undo_0021(p: &AnyPool) {
    crate::moves_index::undo_0022(p).await;
    let rows = sqlx::query("SELECT scan_id, account_a, account_b, evidence FROM scan_pairs")
        .fetch_all(p)
        .await
        .expect("pairs");
    for r in rows {
        let (scan, a, b): (i64, String, String) = (r.get(0), r.get(1), r.get(2));
        let data: Vec<u8> = r.get(3);
        let e = Evidence::read(&data);
        let mut q = sqlx::query(
            "UPDATE scan_pairs SET same_ip_count = $1, same_ip_score = $2, other_ip_count = $3, \
             other_ip_score = $4, moved_stalled_count = $5, moved_stalled_score = $6, \
             stalled_moved_count = $7, stalled_moved_score = $8, both_stalled_count = $9, \
             both_stalled_score = $10, max_boost = $11, max_boost_bucket = $12, top_buckets = $13 \
             WHERE scan_id = $14 AND account_a = $15 AND account_b = $16",
        );
        for (count, score) in e.cells {
            q = q.bind(count as i64).bind(score);
        }
        q.bind(e.max_boost as i64)
            .bind(e.max_boost_bucket)
            .bind(e.top_buckets)
            .bind(scan)
            .bind(a)
            .bind(b)
            .execute(p)
            .await
            .expect("a pair as the previous release stored it");
    }
    sqlx::raw_sql(
        "ALTER TABLE scan_pairs DROP COLUMN evidence;
         CREATE INDEX scan_pairs_by_scan ON scan_pairs (scan_id);
         DELETE FROM _sqlx_migrations WHERE version = 21;",
    )
    .execute(p)
    .await
    .expect("undo 0021");
}

/// A pair's evidence as the layout documents it, with the top buckets as
/// the JSON the previous release stored.
struct Evidence {
    cells: [(u64, i64); 5],
    max_boost: u64,
    max_boost_bucket: Option<i64>,
    top_buckets: String,
}

impl Evidence {
    fn read(data: &[u8]) -> Evidence {
        let mut at = 0;
        let mut int = || {
            let mut v = 0u64;
            let mut shift = 0;
            loop {
                let b = data[at];
                at += 1;
                v |= u64::from(b & 0x7f) << shift;
                shift += 7;
                if b < 0x80 {
                    return v;
                }
            }
        };
        let signed = |v: u64| ((v >> 1) as i64) ^ -((v & 1) as i64);
        let mut cells = [(0u64, 0i64); 5];
        for c in &mut cells {
            *c = (int(), signed(int()));
        }
        let max_boost = int();
        let max_boost_bucket = match int() {
            0 => None,
            b => Some(signed(b - 1)),
        };
        let names = [
            "same_ip",
            "other_ip",
            "moved_stalled",
            "stalled_moved",
            "both_stalled",
        ];
        let top: Vec<serde_json::Value> = (0..int())
            .map(|_| {
                let (bucket, cell, score, run) = (signed(int()), int(), signed(int()), int());
                serde_json::json!({
                    "bucket": bucket, "cell": names[cell as usize], "score": score, "run": run
                })
            })
            .collect();
        Evidence {
            cells,
            max_boost,
            max_boost_bucket,
            top_buckets: serde_json::to_string(&top).unwrap(),
        }
    }
}

/// Everything a moderator reads of season 1's pairs.
pub(crate) fn reads(db: &TestDb) -> Vec<String> {
    let mut out: Vec<String> = ["text", "json", "csv"]
        .iter()
        .map(|f| db.ok(&["report", "--season", "1", "--format", f, "--all"]))
        .collect();
    let json: serde_json::Value = serde_json::from_str(&out[1]).unwrap();
    let p = &json["pairs"][0];
    let (a, b) = (
        p["account_a"].as_str().unwrap(),
        p["account_b"].as_str().unwrap(),
    );
    out.push(db.ok(&["explain", a, b, "--season", "1"]));
    out
}

/// A store of season 1 with the moves of `parts` ingested, each followed
/// by a scan (a whole scan, then rescans stored as changes to it).
pub(crate) fn scanned(backend: Backend, parts: &[Vec<String>]) -> TestDb {
    let db = TestDb::new(backend);
    db.ok(&["season", "add", "1", "--games", "^4pLeague_"]);
    for lines in parts {
        ingest_and_scan(&db, lines);
    }
    db
}

/// Ingests `lines` into season 1's store and scans; returns what the scan
/// printed.
pub(crate) fn ingest_and_scan(db: &TestDb, lines: &[String]) -> String {
    let f = tempfile::NamedTempFile::new_in(db.dir.path()).unwrap();
    std::fs::write(f.path(), lines.join("\n") + "\n").unwrap();
    db.ok(&["ingest", f.path().to_str().unwrap()]);
    db.ok(&["scan", "--season", "1"])
}

/// How many of the stored pairs have their evidence in one value, and how
/// many in the columns.
fn stored_forms(db: &TestDb) -> (i64, i64) {
    block_on(async {
        let p = pool(&db.url).await;
        let r = sqlx::query("SELECT count(evidence), count(*) - count(evidence) FROM scan_pairs")
            .fetch_one(&p)
            .await
            .unwrap();
        p.close().await;
        (r.get(0), r.get(1))
    })
}

/// The JSON and CSV reports without the times the scans were made.
pub(crate) fn timeless(reads: &[String]) -> Vec<String> {
    reads[1..3]
        .iter()
        .map(|r| {
            r.lines()
                .filter(|l| !l.contains("created_at"))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect()
}

fn pairs_saved_by_the_previous_release_read_as_before(backend: Backend) {
    let parts = golden_parts_by_time("random/03", &[0.5, 0.8]);
    let db = scanned(backend, &parts[..2]);
    assert_eq!(
        stored_forms(&db).1,
        0,
        "this release saves one value a pair"
    );
    let before = reads(&db);

    // Back to the previous release's store, checked against one made by
    // its own migrations.
    let old = TestDb::new(backend);
    block_on(async {
        let p = pool(&db.url).await;
        undo_0021(&p).await;
        p.close().await;
        assert_shaped_as_release_before(&db.url, &old.url, backend, 21).await;
    });

    // Migrated again by the next command, the pairs still in their
    // columns: the same reports and explanation, byte for byte.
    assert_eq!(reads(&db), before);
    let (packed, columns) = stored_forms(&db);
    assert_eq!(packed, 0, "the migration leaves stored pairs as they were");
    assert!(columns > 0);

    // A rescan on top stores its pairs in this release's form (blocks,
    // since 0025, each pair's evidence in one value: tests/it/
    // scan_pair_blocks.rs), not in the columns; the season reads as in a
    // store that never had the columns' form.
    ingest_and_scan(&db, &parts[2]);
    let fresh = scanned(backend, &parts);
    let (packed, columns_after) = stored_forms(&db);
    assert!(
        packed == 0 && columns_after == columns,
        "{packed} {columns_after}"
    );
    assert_eq!(timeless(&reads(&db)), timeless(&reads(&fresh)));
}

#[test]
fn pairs_saved_by_the_previous_release_read_as_before_sqlite() {
    pairs_saved_by_the_previous_release_read_as_before(Backend::Sqlite);
}

#[test]
fn pairs_saved_by_the_previous_release_read_as_before_postgres() {
    pairs_saved_by_the_previous_release_read_as_before(Backend::Postgres);
}
