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

/// Each user's segments by name: `(bucket, stalled, stall IP, [(IP, count)])`.
type Named = Vec<(String, Vec<(i64, bool, Option<String>, Vec<(String, u32)>)>)>;

fn by_name(s: &schema::Segments) -> Named {
    let mut named: Named = s
        .by_user
        .iter()
        .enumerate()
        .map(|(u, segs)| {
            let segs = segs
                .iter()
                .map(|g| {
                    let stall_ip = g.stall_ip.map(|ip| s.ips.name(ip.get()).to_owned());
                    let moves = g
                        .moves
                        .iter()
                        .map(|&(ip, n)| (s.ips.name(ip).to_owned(), n))
                        .collect();
                    (g.bucket, g.stalled, stall_ip, moves)
                })
                .collect();
            (s.users.name(u as schema::UserId).to_owned(), segs)
        })
        .collect();
    named.sort();
    named
}

/// A cut that saves segments page by page as they settle, loaded back, is
/// the cut made whole in memory: segments, sightings and game days.
fn a_streamed_cut_loads_as_the_whole_cut(backend: Backend) {
    let db = TestDb::new(backend);
    let log = golden_dir().join("random/01/input.jsonl");
    db.ok(&["ingest", log.to_str().unwrap()]);
    block_on(async {
        let store = Store::open(&db.url).await.expect("open");
        let whole = detect::pipeline::cut_segments(&store, 1800, false, true)
            .await
            .unwrap()
            .segments
            .expect("kept");
        // Pages of 7 moves: settled segments go out dozens of times.
        let cut = detect::pipeline::cut_segments_in_pages(&store, 1800, false, false, 7)
            .await
            .unwrap();
        assert!(cut.segments.is_none());
        let loaded = store.load_segmentation(1800).await.unwrap().expect("saved");
        let loaded = loaded.segments;
        let total: usize = whole.by_user.iter().map(Vec::len).sum();
        assert_eq!(cut.counts.segments, total as u64);
        assert_eq!(cut.users, whole.users.len());
        assert!(total > 100, "the log is big enough to page: {total}");
        assert_eq!(by_name(&loaded), by_name(&whole));
        let days = |s: &schema::Segments| {
            let mut d: Vec<_> = s
                .ip_days
                .iter()
                .map(|d| {
                    (
                        s.users.name(d.user).to_owned(),
                        d.day,
                        s.ips.name(d.ip).to_owned(),
                    )
                })
                .collect();
            d.sort();
            d
        };
        assert_eq!(days(&loaded), days(&whole));
        let games = |s: &schema::Segments| {
            let mut g: Vec<_> = s
                .game_days
                .iter()
                .map(|d| {
                    let user = s.users.name(d.user).to_owned();
                    (
                        user,
                        s.games.name(d.game).to_owned(),
                        d.first_day,
                        d.last_day,
                    )
                })
                .collect();
            g.sort();
            g
        };
        assert_eq!(games(&loaded), games(&whole));
        store.close().await;
    });
}

#[test]
fn a_streamed_cut_loads_as_the_whole_cut_sqlite() {
    a_streamed_cut_loads_as_the_whole_cut(Backend::Sqlite);
}

#[test]
fn a_streamed_cut_loads_as_the_whole_cut_postgres() {
    a_streamed_cut_loads_as_the_whole_cut(Backend::Postgres);
}
