//! Migration 0015 (`account` for a game account): a store of the previous
//! schema, with scans, a rescan's digests, segments and a verdict, migrates
//! on both back ends and reads as it did; the append-only triggers and the
//! renamed indexes hold afterwards.
//!
//! The previous schema is made from a store of this one by undoing 0015,
//! and checked against a store migrated only as far as 0014.

use crate::common::*;
use sqlx::Row;

/// Undoes (after 0021, [`crate::pair_evidence::undo_0021`]) migrations 0020 (the model versions), 0019 (the accounts seen), 0018 (the scan's model),
/// 0017 (the review queue), 0016 (the verdicts' `unseen` and `supersedes`)
/// and 0015: the schema of the release before 0015.
const UNDO_SQLITE: &str = "
DROP TABLE models;
ALTER TABLE scans DROP COLUMN model_version;
DELETE FROM _sqlx_migrations WHERE version = 20;
DROP TABLE accounts;
DELETE FROM _sqlx_migrations WHERE version = 19;
DROP INDEX scan_pairs_by_accounts;
ALTER TABLE scans DROP COLUMN model;
DELETE FROM _sqlx_migrations WHERE version = 18;
DROP TABLE review_flags;
DROP TABLE review_scans;
DELETE FROM _sqlx_migrations WHERE version = 17;
ALTER TABLE verdicts DROP COLUMN unseen;
ALTER TABLE verdicts DROP COLUMN supersedes;
DELETE FROM _sqlx_migrations WHERE version = 16;
ALTER TABLE scan_pairs RENAME COLUMN account_a TO user_a;
ALTER TABLE scan_pairs RENAME COLUMN account_b TO user_b;
ALTER TABLE segmentations RENAME COLUMN account_count TO user_count;
ALTER TABLE account_days RENAME TO user_days;
ALTER TABLE scan_accounts RENAME TO scan_users;
DROP INDEX segment_chunks_by_account;
CREATE INDEX segment_chunks_by_user ON segment_chunks (segmentation_id, username, first_bucket);
DROP INDEX verdict_accounts_by_account;
CREATE INDEX verdict_accounts_by_user ON verdict_accounts (username, verdict_id);
DELETE FROM _sqlx_migrations WHERE version = 15;
";

const UNDO_POSTGRES: &str = "
DROP TABLE models;
ALTER TABLE scans DROP COLUMN model_version;
DELETE FROM _sqlx_migrations WHERE version = 20;
DROP TABLE accounts;
DELETE FROM _sqlx_migrations WHERE version = 19;
DROP INDEX scan_pairs_by_accounts;
ALTER TABLE scans DROP COLUMN model;
DELETE FROM _sqlx_migrations WHERE version = 18;
DROP TABLE review_flags;
DROP TABLE review_scans;
DELETE FROM _sqlx_migrations WHERE version = 17;
ALTER TABLE verdicts DROP COLUMN unseen;
ALTER TABLE verdicts DROP COLUMN supersedes;
DELETE FROM _sqlx_migrations WHERE version = 16;
ALTER TABLE scan_pairs RENAME COLUMN account_a TO user_a;
ALTER TABLE scan_pairs RENAME COLUMN account_b TO user_b;
ALTER TABLE segmentations RENAME COLUMN account_count TO user_count;
ALTER TABLE account_days RENAME TO user_days;
ALTER TABLE user_days RENAME CONSTRAINT account_days_pkey TO user_days_pkey;
ALTER TABLE user_days RENAME CONSTRAINT account_days_segmentation_id_fkey TO user_days_segmentation_id_fkey;
ALTER TABLE scan_accounts RENAME TO scan_users;
ALTER TABLE scan_users RENAME CONSTRAINT scan_accounts_pkey TO scan_users_pkey;
ALTER TABLE scan_users RENAME CONSTRAINT scan_accounts_scan_id_fkey TO scan_users_scan_id_fkey;
ALTER INDEX segment_chunks_by_account RENAME TO segment_chunks_by_user;
ALTER INDEX verdict_accounts_by_account RENAME TO verdict_accounts_by_user;
DELETE FROM _sqlx_migrations WHERE version = 15;
";

/// Everything a moderator reads of season 1.
fn reads(db: &TestDb) -> Vec<String> {
    let mut out = Vec::new();
    for format in ["text", "json", "csv"] {
        out.push(db.ok(&["report", "--season", "1", "--format", format, "--all"]));
    }
    out.push(db.ok(&["verdict", "list"]));
    out
}

fn a_store_of_the_previous_schema_migrates(backend: Backend) {
    let db = TestDb::new(backend);
    let parts = golden_parts_by_time("random/03", &[0.5, 0.8, 0.95]);
    let files: Vec<_> = parts
        .iter()
        .enumerate()
        .map(|(i, lines)| {
            let f = db.dir.path().join(format!("part-{i}.jsonl"));
            std::fs::write(&f, lines.join("\n") + "\n").unwrap();
            f
        })
        .collect();
    db.ok(&["season", "add", "1", "--games", "^4pLeague_"]);
    // A whole scan, a rescan stored as a change, a whole scan.
    for f in &files[..3] {
        db.ok(&["ingest", f.to_str().unwrap()]);
        db.ok(&["scan", "--season", "1"]);
    }
    let json = db.ok(&["report", "--season", "1", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let p = &json["pairs"][0];
    let (a, b) = (
        p["account_a"].as_str().unwrap(),
        p["account_b"].as_str().unwrap(),
    );
    db.ok(&["verdict", "set", a, b, "--as", "household", "--by", "ann"]);
    let before = reads(&db);

    // Back to the previous release's schema, checked against one made by
    // its own migrations.
    let old = TestDb::new(backend);
    block_on(async {
        previous_release(&old.url, backend, 15).await;
        let p = pool(&db.url).await;
        crate::pair_evidence::undo_0021(&p).await;
        let undo = match backend {
            Backend::Sqlite => UNDO_SQLITE,
            Backend::Postgres => UNDO_POSTGRES,
        };
        sqlx::raw_sql(undo).execute(&p).await.expect("undo 0015");
        p.close().await;
        assert_eq!(
            schema_shape(&db.url, backend).await,
            schema_shape(&old.url, backend).await
        );
    });

    // Migrated again by the next command: the same reports and verdicts.
    assert_eq!(reads(&db), before);
    block_on(async {
        let p = pool(&db.url).await;
        for table in ["account_days", "scan_accounts"] {
            let n: i64 = sqlx::query(&format!("SELECT count(*) FROM {table}"))
                .fetch_one(&p)
                .await
                .unwrap()
                .get(0);
            assert!(n > 0, "{table} kept its rows");
        }
        // Migration 0019 names every account of the stored moves.
        let count = |sql: &'static str| sqlx::query(sql).fetch_one(&p);
        let accounts: i64 = count("SELECT count(*) FROM accounts").await.unwrap().get(0);
        let moved: i64 = count("SELECT count(DISTINCT username) FROM moves")
            .await
            .unwrap()
            .get(0);
        assert!(accounts > 0 && accounts == moved, "{accounts} of {moved}");
        let refused = sqlx::query("UPDATE verdict_accounts SET username = username")
            .execute(&p)
            .await;
        assert!(refused.is_err(), "verdicts stay append-only");
        let refused = sqlx::query("DELETE FROM verdict_accounts")
            .execute(&p)
            .await;
        assert!(refused.is_err(), "verdicts stay append-only");
        p.close().await;
        let shape = schema_shape(&db.url, backend).await;
        for index in ["segment_chunks_by_account", "verdict_accounts_by_account"] {
            assert!(
                shape
                    .iter()
                    .any(|s| s.starts_with(&format!("index {index} "))),
                "{index} in {shape:?}"
            );
        }
        assert!(!shape.iter().any(|s| s.contains("user_")), "{shape:?}");
    });
    // The next scan reads the kept digests: a rescan.
    db.ok(&["ingest", files[3].to_str().unwrap()]);
    let out = db.ok(&["scan", "--season", "1"]);
    assert!(out.contains("a rescan of #"), "{out}");
}

#[test]
fn a_store_of_the_previous_schema_migrates_sqlite() {
    a_store_of_the_previous_schema_migrates(Backend::Sqlite);
}

#[test]
fn a_store_of_the_previous_schema_migrates_postgres() {
    a_store_of_the_previous_schema_migrates(Backend::Postgres);
}
