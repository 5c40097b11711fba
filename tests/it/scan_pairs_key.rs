//! Migration 0024 (SQLite keeps a scan's pairs in the order of their key,
//! without an index by similarity): a store of the previous release
//! migrates on both back ends and reads as it did, and the scans after it
//! store and read their pairs in the new table.
//!
//! The previous release's store is made from one of this release by
//! [`undo_0024`] and checked against a store migrated only as far as 0023.

use crate::common::*;
use crate::pair_evidence::{ingest_and_scan, reads, scanned, timeless};
use sqlx::{AnyPool, Row};

/// Undoes migration 0024 (after 0025, [`crate::scan_pair_blocks::undo_0025`])
/// on the store behind `p`: on SQLite, the pairs back in a table with row
/// ids and both indexes; PostgreSQL's 0024 changed nothing.
pub(crate) async fn undo_0024(p: &AnyPool) {
    crate::scan_pair_blocks::undo_0025(p).await;
    if p.connect_options()
        .database_url
        .scheme()
        .starts_with("sqlite")
    {
        sqlx::raw_sql(
            "CREATE TABLE scan_pairs_with_rowid (
                 scan_id INTEGER NOT NULL REFERENCES scans (id) ON DELETE CASCADE,
                 account_a TEXT NOT NULL, account_b TEXT NOT NULL,
                 similarity DOUBLE PRECISION NOT NULL,
                 score_sum BIGINT NOT NULL, score_weight BIGINT NOT NULL,
                 same_ip_count BIGINT NOT NULL, same_ip_score BIGINT NOT NULL,
                 other_ip_count BIGINT NOT NULL, other_ip_score BIGINT NOT NULL,
                 moved_stalled_count BIGINT NOT NULL, moved_stalled_score BIGINT NOT NULL,
                 stalled_moved_count BIGINT NOT NULL, stalled_moved_score BIGINT NOT NULL,
                 both_stalled_count BIGINT NOT NULL, both_stalled_score BIGINT NOT NULL,
                 max_boost BIGINT NOT NULL, max_boost_bucket BIGINT,
                 top_buckets TEXT NOT NULL, signals TEXT, evidence BLOB);
             INSERT INTO scan_pairs_with_rowid SELECT * FROM scan_pairs;
             DROP TABLE scan_pairs;
             ALTER TABLE scan_pairs_with_rowid RENAME TO scan_pairs;
             CREATE INDEX scan_pairs_by_similarity ON scan_pairs (scan_id, similarity);
             CREATE INDEX scan_pairs_by_accounts ON scan_pairs (scan_id, account_a, account_b);",
        )
        .execute(p)
        .await
        .expect("undo 0024");
    }
    sqlx::query("DELETE FROM _sqlx_migrations WHERE version = 24")
        .execute(p)
        .await
        .expect("undo 0024");
}

/// How SQLite keeps the pairs: whether the table has row ids, and which
/// index by similarity it has (of every pair, of the strong ones).
async fn sqlite_layout(url: &str) -> (bool, bool, bool) {
    let p = pool(url).await;
    let sql: String = sqlx::query("SELECT sql FROM sqlite_master WHERE name = 'scan_pairs'")
        .fetch_one(&p)
        .await
        .unwrap()
        .get(0);
    let mut index = Vec::new();
    for name in ["scan_pairs_by_similarity", "scan_pairs_strong"] {
        let n: i64 = sqlx::query("SELECT count(*) FROM sqlite_master WHERE name = $1")
            .bind(name)
            .fetch_one(&p)
            .await
            .unwrap()
            .get(0);
        index.push(n == 1);
    }
    p.close().await;
    (!sql.contains("WITHOUT ROWID"), index[0], index[1])
}

/// How SQLite reads the pairs of a scan at or above 0.9, as the store asks
/// for them (`store/src/scans/pairs.rs`).
async fn sqlite_plan_of_flagged(url: &str) -> String {
    let p = pool(url).await;
    let plan: Vec<String> = sqlx::query(
        "EXPLAIN QUERY PLAN SELECT evidence FROM scan_pairs \
         WHERE scan_id = $1 AND similarity >= $2 AND similarity >= 0.7",
    )
    .bind(1i64)
    .bind(0.9)
    .fetch_all(&p)
    .await
    .unwrap()
    .iter()
    .map(|r| r.get::<String, _>(3))
    .collect();
    p.close().await;
    plan.join("; ")
}

fn a_store_of_the_previous_release_reads_as_before(backend: Backend) {
    let parts = golden_parts_by_time("random/03", &[0.6]);
    let db = scanned(backend, &parts[..1]);
    let before = reads(&db);
    let old = TestDb::new(backend);
    block_on(async {
        let p = pool(&db.url).await;
        undo_0024(&p).await;
        p.close().await;
        assert_shaped_as_release_before(&db.url, &old.url, backend, 24).await;
        if backend == Backend::Sqlite {
            assert_eq!(sqlite_layout(&db.url).await, (true, true, false));
        }
    });
    // The next command migrates: the pairs read as before.
    assert_eq!(reads(&db), before);
    if backend == Backend::Sqlite {
        assert_eq!(block_on(sqlite_layout(&db.url)), (false, false, true));
        // The flagged pairs of a scan at 0.9, through the partial index.
        let plan = block_on(sqlite_plan_of_flagged(&db.url));
        assert!(plan.contains("USING INDEX scan_pairs_strong"), "{plan}");
    }
    // A rescan stores the pairs it scored again (as blocks since 0025),
    // and the season reads as one that never met the release before.
    let fresh = scanned(backend, &parts);
    let out = ingest_and_scan(&db, &parts[1]);
    assert!(out.contains("a rescan of #1"), "{out}");
    assert_eq!(timeless(&reads(&db)), timeless(&reads(&fresh)));
}

#[test]
fn a_store_of_the_previous_release_reads_as_before_sqlite() {
    a_store_of_the_previous_release_reads_as_before(Backend::Sqlite);
}

#[test]
fn a_store_of_the_previous_release_reads_as_before_postgres() {
    a_store_of_the_previous_release_reads_as_before(Backend::Postgres);
}
