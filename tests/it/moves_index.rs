//! Migration 0022 (the index of moves by time alone dropped): a store of
//! the previous release migrates on both back ends and reads as it did,
//! and a purge, the one query of moves by time across sites, still reads
//! an index rather than every move.
//!
//! The previous release's store is made from one of this release by
//! [`undo_0022`] and checked against a store migrated only as far as 0021.

use crate::common::*;
use crate::pair_evidence::{reads, scanned};
use sqlx::{AnyPool, Row};

/// Undoes migration 0022 (after 0023,
/// [`crate::segment_generations::undo_0023`]) on the store behind `p`: the
/// index as it was.
pub(crate) async fn undo_0022(p: &AnyPool) {
    crate::segment_generations::undo_0023(p).await;
    sqlx::raw_sql(
        "CREATE INDEX moves_by_time ON moves (ts, id);
         DELETE FROM _sqlx_migrations WHERE version = 22;",
    )
    .execute(p)
    .await
    .expect("undo 0022");
}

fn a_store_of_the_previous_release_reads_as_before(backend: Backend) {
    let parts = golden_parts_by_time("random/03", &[0.6]);
    let db = scanned(backend, &parts[..1]);
    let before = reads(&db);
    let old = TestDb::new(backend);
    block_on(async {
        let p = pool(&db.url).await;
        undo_0022(&p).await;
        p.close().await;
        assert_shaped_as_release_before(&db.url, &old.url, backend, 22).await;
        assert!(index_names(&db.url, backend)
            .await
            .contains("moves_by_time"));
    });
    // The next command migrates: the index is gone, the reads unchanged.
    assert_eq!(reads(&db), before);
    let indexes = block_on(index_names(&db.url, backend));
    assert!(!indexes.contains("moves_by_time"), "{indexes}");
    assert!(indexes.contains("moves_by_site_time"), "{indexes}");
}

/// The names of the store's indexes, one string.
async fn index_names(url: &str, backend: Backend) -> String {
    let p = pool(url).await;
    let q = match backend {
        Backend::Sqlite => "SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name",
        Backend::Postgres => {
            "SELECT indexname::text FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1"
        }
    };
    let names: Vec<String> = sqlx::query(q)
        .fetch_all(&p)
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    p.close().await;
    names.join(" ")
}

#[test]
fn a_store_of_the_previous_release_reads_as_before_sqlite() {
    a_store_of_the_previous_release_reads_as_before(Backend::Sqlite);
}

#[test]
fn a_store_of_the_previous_release_reads_as_before_postgres() {
    a_store_of_the_previous_release_reads_as_before(Backend::Postgres);
}

/// A purge deletes by time across sites: SQLite plans it on the unique
/// index, which begins with the time, not on a scan of every move.
#[test]
fn a_purge_reads_an_index_of_moves_by_time() {
    let parts = golden_parts_by_time("random/03", &[0.6]);
    let db = scanned(Backend::Sqlite, &parts[..1]);
    let plan = block_on(async {
        let p = pool(&db.url).await;
        let rows = sqlx::query("EXPLAIN QUERY PLAN DELETE FROM moves WHERE ts < 0")
            .fetch_all(&p)
            .await
            .unwrap();
        p.close().await;
        rows.iter()
            .map(|r| r.get::<String, _>(3))
            .collect::<Vec<_>>()
            .join("\n")
    });
    assert!(
        plan.contains("SEARCH moves USING") && plan.contains("INDEX") && plan.contains("ts<?"),
        "{plan}"
    );
}
