//! Migration 0023 (the moves generation each account's segment rows were
//! written at): a store of the previous release migrates on both back ends
//! and reads as before; its rows count as written at generation 0, and a
//! copy of its segments loaded after the migration is brought up to date by
//! reading again only the accounts an ingest wrote since.
//!
//! The previous release's store is made from one of this release by
//! [`undo_0023`] and checked against a store migrated only as far as 0022.

use crate::common::*;
use crate::pair_evidence::{reads, scanned};
use sqlx::AnyPool;
use store::Store;

/// Undoes migration 0023 (after 0024, [`crate::scan_pairs_key::undo_0024`])
/// on the store behind `p`: the rows without their generation.
pub(crate) async fn undo_0023(p: &AnyPool) {
    crate::scan_pairs_key::undo_0024(p).await;
    sqlx::raw_sql(
        "DROP INDEX segment_chunks_by_generation;
         DROP INDEX account_days_by_generation;
         ALTER TABLE segment_chunks DROP COLUMN generation;
         ALTER TABLE account_days DROP COLUMN generation;
         DELETE FROM _sqlx_migrations WHERE version = 23;",
    )
    .execute(p)
    .await
    .expect("undo 0023");
}

fn a_store_of_the_previous_release_is_brought_up_to_date(backend: Backend) {
    let parts = golden_parts_by_time("random/03", &[0.6, 0.62]);
    let db = scanned(backend, &parts[..1]);
    let before = reads(&db);
    let old = TestDb::new(backend);
    block_on(async {
        let p = pool(&db.url).await;
        undo_0023(&p).await;
        p.close().await;
        assert_shaped_as_release_before(&db.url, &old.url, backend, 23).await;
    });
    // The next command migrates: the reads unchanged.
    assert_eq!(reads(&db), before);
    let mut held = block_on(async {
        let store = Store::open(&db.url).await.unwrap();
        let held = store.load_segmentation(1800).await.unwrap().unwrap();
        store.close().await;
        held
    });
    // The rows of the release before are at generation 0: what the next
    // ingest's extension writes is newer than the copy.
    let part = tempfile::NamedTempFile::new_in(db.dir.path()).unwrap();
    std::fs::write(part.path(), parts[1].join("\n") + "\n").unwrap();
    let out = db.ok(&["ingest", part.path().to_str().unwrap()]);
    assert!(out.contains("new moves cut onto"), "{out}");
    let moved = accounts_moving_in(&parts[1]);
    block_on(async {
        let store = Store::open(&db.url).await.unwrap();
        let read = store.refresh_segmentation(&mut held).await.unwrap();
        let read: Option<std::collections::BTreeSet<String>> =
            read.map(|names| names.into_iter().collect());
        assert_eq!(read.as_ref(), Some(&moved), "the accounts who moved");
        assert!(
            moved.len() < held.segments.accounts.len(),
            "some accounts kept"
        );
        let loaded = store.load_segmentation(1800).await.unwrap().unwrap();
        assert_eq!(held.generation, loaded.generation);
        assert_scored_alike(&held.segments, &loaded.segments);
        store.close().await;
    });
}

#[test]
fn a_store_of_the_previous_release_is_brought_up_to_date_sqlite() {
    a_store_of_the_previous_release_is_brought_up_to_date(Backend::Sqlite);
}

#[test]
fn a_store_of_the_previous_release_is_brought_up_to_date_postgres() {
    a_store_of_the_previous_release_is_brought_up_to_date(Backend::Postgres);
}
