//! The store's scan bookkeeping on both back ends: scans are kept whole and
//! pruned whole.

mod common;

use common::*;
use schema::store::Store;

fn scans_are_pruned_whole(backend: Backend) {
    let db = TestDb::new(backend);
    let log = golden_dir().join("random/01/input.jsonl");
    db.ok(&["ingest", log.to_str().unwrap()]);
    db.ok(&["season", "add", "1", "--games", "^4pLeague_"]);
    for threshold in ["0.9", "0.8", "0.7"] {
        db.ok(&["scan", "--season", "1", "--threshold", threshold]);
    }
    block_on(async {
        let store = Store::open(&db.url).await.expect("open");
        assert_eq!(store.scan_count(1).await.unwrap(), 3);
        let before = store.latest_scan(1).await.unwrap().expect("a scan");
        assert_eq!(store.prune_scans(1, 1).await.unwrap(), 2);
        assert_eq!(store.scan_count(1).await.unwrap(), 1);
        assert_eq!(store.prune_scans(1, 1).await.unwrap(), 0);
        let after = store
            .latest_scan(1)
            .await
            .unwrap()
            .expect("the newest scan stays");
        assert_eq!(after.id, before.id);
        assert_eq!(after.result, before.result);
        assert_eq!(after.result.pairs.len(), 48);
        store.close().await;
    });
}

#[test]
fn scans_are_pruned_whole_sqlite() {
    scans_are_pruned_whole(Backend::Sqlite);
}

#[test]
fn scans_are_pruned_whole_postgres() {
    scans_are_pruned_whole(Backend::Postgres);
}

#[test]
fn a_report_reuses_the_current_scan_of_its_bucket_size() {
    let db = TestDb::new(Backend::Sqlite);
    let log = golden_dir().join("random/01/input.jsonl");
    db.ok(&["ingest", log.to_str().unwrap()]);
    let count = || {
        block_on(async {
            let store = Store::open(&db.url).await.expect("open");
            let n = store.scan_count(1).await.unwrap();
            store.close().await;
            n
        })
    };
    db.ok(&["report", "--season", "1"]);
    assert_eq!(count(), 1);
    db.ok(&["report", "--season", "1", "--bucket-minutes", "60"]);
    assert_eq!(count(), 2);
    // Back to 30 minutes: the first scan still holds, whatever the threshold.
    db.ok(&["report", "--season", "1", "--threshold", "0.5"]);
    db.ok(&["report", "--season", "1", "--bucket-minutes", "60"]);
    assert_eq!(count(), 2);
    // New moves make both stale.
    let more = db.dir.path().join("more.jsonl");
    std::fs::write(
        &more,
        "{\"username\": \"u000\", \"game\": \"4pLeague_S1_X\", \"timestamp_utc\": \"2015-06-01 10:00:00\", \"ip\": \"9.9.9.9\"}\n",
    )
    .unwrap();
    db.ok(&["ingest", more.to_str().unwrap()]);
    db.ok(&["report", "--season", "1"]);
    assert_eq!(count(), 3);
}
