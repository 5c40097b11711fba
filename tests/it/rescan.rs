//! Rescans on both back ends: a season scanned after each part of its
//! moves reads, report for report, as one scan of all of them; scans
//! stored as changes keep their bases through pruning.

use crate::common::*;
use store::Store;

/// The season's text, CSV (every pair) and JSON reports, scan ids and
/// times left out.
fn reports(db: &TestDb) -> Vec<String> {
    let mut out = Vec::new();
    for format in ["csv", "text", "json"] {
        let r = db.ok(&["report", "--season", "1", "--format", format, "--all"]);
        let kept: Vec<&str> = r
            .lines()
            .filter(|l| {
                !l.contains("scan #") && !l.contains("\"scan_id\"") && !l.contains("\"created_at\"")
            })
            .collect();
        out.push(kept.join("\n"));
    }
    out
}

/// Whole scan or rescan, file by file: a chain of two changes, then whole
/// scans and rescans by turns, since each part changes most pairs.
const KINDS: [bool; 5] = [false, true, true, false, true];

fn a_season_rescanned_part_by_part_reads_as_one_scan(backend: Backend) {
    let parted = TestDb::new(backend);
    let whole = TestDb::new(backend);
    for db in [&parted, &whole] {
        db.ok(&["season", "add", "1", "--games", "^4pLeague_"]);
    }
    let files = part_files(&parted);
    let mut kinds = Vec::new();
    for file in &files {
        let out = parted.ok(&["ingest", file.to_str().unwrap()]);
        // The count the cut kept is the store's.
        let stored = block_on(async {
            let store = Store::open(&parted.url).await.unwrap();
            let n = store.move_count().await.unwrap();
            store.close().await;
            n
        });
        assert!(out.contains(&format!("store: {stored} moves, ")), "{out}");
        let out = parted.ok(&["scan", "--season", "1"]);
        kinds.push(out.contains("a rescan of #"));
        if file == &files[1] {
            assert!(out.contains("pairs of 1 account scored again"), "{out}");
        }
        whole.ok(&["ingest", file.to_str().unwrap()]);
    }
    // A rescan that scores again more than half the pairs of the chain's
    // whole scan makes the next scan a whole one.
    assert_eq!(kinds, KINDS, "whole or rescan, part by part");
    whole.ok(&["scan", "--season", "1"]);
    assert_eq!(reports(&parted), reports(&whole));
    block_on(chain_reads_as_whole(&parted, &whole));
}

/// The golden case's moves in parts by time, with a move older than the
/// rest after the first part: the segments are cut again whole, and the
/// scan after it is still a rescan.
fn part_files(parted: &TestDb) -> Vec<std::path::PathBuf> {
    let parts = golden_parts_by_time("random/03", &[0.5, 0.8, 0.95]);
    let mut files = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        let path = parted.dir.path().join(format!("part{i}.jsonl"));
        std::fs::write(&path, part.join("\n") + "\n").unwrap();
        files.push(path);
    }
    let late = parted.dir.path().join("late.jsonl");
    std::fs::write(
        &late,
        "{\"username\": \"u003\", \"game\": \"4pLeague_S1_late\", \"timestamp_utc\": \"2015-05-01 02:00:00\", \"ip\": \"10.2.0.3\"}\n",
    )
    .unwrap();
    files.insert(1, late);
    files
}

/// The chain's accounts, similarities and pruning read as the whole scan's.
async fn chain_reads_as_whole(parted: &TestDb, whole: &TestDb) {
    let p = Store::open(&parted.url).await.unwrap();
    let w = Store::open(&whole.url).await.unwrap();
    for account in ["u003", "u010", "u017"] {
        let strip = |v: Vec<store::AccountPair>| {
            v.into_iter()
                .map(|p| (p.account_a, p.account_b, p.similarity, p.same_ip_count))
                .collect::<Vec<_>>()
        };
        let from_parts = strip(p.pairs_of_account(account).await.unwrap());
        assert!(!from_parts.is_empty(), "{account}");
        assert_eq!(
            from_parts,
            strip(w.pairs_of_account(account).await.unwrap())
        );
    }
    let latest = p.latest_scan(1).await.unwrap().unwrap();
    // Every pair's similarity alone, through the chain, for the chart.
    let sorted = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v
    };
    let every = w.latest_scan(1).await.unwrap().unwrap().result.pairs;
    let similarities = p.scan_similarities(latest.id).await.unwrap();
    assert_eq!(
        sorted(similarities.iter().map(|x| x.2).collect()),
        sorted(every.iter().map(|x| x.similarity).collect())
    );
    // The latest scan's own change, applied to its base's similarities,
    // gives its own (what a daemon holding them between ticks does).
    let by_pair = |mut v: Vec<store::PairSimilarity>| {
        v.sort_by(|x, y| (&x.0, &x.1).cmp(&(&y.0, &y.1)));
        v
    };
    let change = p.scan_change(latest.id).await.unwrap().expect("a rescan");
    assert!(!change.replaced.is_empty() && !change.pairs.is_empty());
    let named = |n: &String| change.replaced.contains(n);
    let mut applied: Vec<_> = p.scan_similarities(change.base).await.unwrap();
    applied.retain(|(a, b, _)| !named(a) && !named(b));
    applied.extend(change.pairs.iter().cloned());
    assert_eq!(by_pair(applied), by_pair(similarities));
    assert_eq!(
        p.scan_change(change.base).await.unwrap(),
        None,
        "a whole scan"
    );
    // The latest scan is a change to the fourth, a whole one: pruning
    // to one scan keeps both.
    assert_eq!(p.prune_scans(1, 1).await.unwrap(), 3);
    assert_eq!(p.scan_count(1).await.unwrap(), 2);
    assert_eq!(
        p.latest_scan(1).await.unwrap().unwrap().result,
        latest.result
    );
    p.close().await;
    w.close().await;
}

#[test]
fn a_season_rescanned_part_by_part_reads_as_one_scan_sqlite() {
    a_season_rescanned_part_by_part_reads_as_one_scan(Backend::Sqlite);
}

#[test]
fn a_season_rescanned_part_by_part_reads_as_one_scan_postgres() {
    a_season_rescanned_part_by_part_reads_as_one_scan(Backend::Postgres);
}

/// A scan of another bucket size starts a chain of its own; pruning to one
/// scan keeps the latest and the base it is stored as a change to.
#[test]
fn pruning_keeps_the_bases_of_the_scans_kept() {
    let db = TestDb::new(Backend::Sqlite);
    let parts = parts_by_time(&[0.6]);
    let first = db.dir.path().join("first.jsonl");
    let rest = db.dir.path().join("rest.jsonl");
    std::fs::write(&first, parts[0].join("\n") + "\n").unwrap();
    std::fs::write(&rest, parts[1].join("\n") + "\n").unwrap();
    db.ok(&["season", "add", "1", "--games", "^4pLeague_"]);
    db.ok(&["ingest", first.to_str().unwrap()]);
    assert!(!db.ok(&["scan", "--season", "1"]).contains("rescan"));
    assert!(!db
        .ok(&["scan", "--season", "1", "--bucket-minutes", "60"])
        .contains("rescan"));
    db.ok(&["ingest", rest.to_str().unwrap()]);
    let out = db.ok(&["scan", "--season", "1"]);
    assert!(out.contains("a rescan of #1"), "{out}");
    block_on(async {
        let store = Store::open(&db.url).await.unwrap();
        let before = store.latest_scan(1).await.unwrap().unwrap();
        assert_eq!(
            store.prune_scans(1, 1).await.unwrap(),
            1,
            "the 60-minute scan goes"
        );
        assert_eq!(store.scan_count(1).await.unwrap(), 2);
        let after = store.latest_scan(1).await.unwrap().unwrap();
        assert_eq!(after.result, before.result);
        store.close().await;
    });
}

/// A scan with nothing new stores no empty rescan: the latest scan still
/// holds, and says so.
#[test]
fn a_scan_with_nothing_new_stores_nothing() {
    let db = TestDb::new(Backend::Sqlite);
    let log = golden_dir().join("random/01/input.jsonl");
    db.ok(&["ingest", log.to_str().unwrap()]);
    db.ok(&["season", "add", "1", "--games", "^4pLeague_"]);
    let first = db.ok(&["scan", "--season", "1"]);
    assert!(first.starts_with("season 1: scan #1 stored:"), "{first}");
    let again = db.ok(&["scan", "--season", "1"]);
    assert!(
        again.starts_with("season 1: scan #1 still holds (nothing new: no scan stored)"),
        "{again}"
    );
    block_on(async {
        let store = Store::open(&db.url).await.unwrap();
        assert_eq!(store.scan_count(1).await.unwrap(), 1);
        store.close().await;
    });
    let report = db.ok(&["report", "--season", "1", "--format", "json"]);
    assert!(report.contains("\"scan_id\": 1"), "{report}");
}

/// Nothing new but another threshold: a scan is stored (its flags differ).
#[test]
fn a_scan_at_another_threshold_is_stored_though_nothing_is_new() {
    let db = TestDb::new(Backend::Sqlite);
    let log = golden_dir().join("random/01/input.jsonl");
    db.ok(&["ingest", log.to_str().unwrap()]);
    db.ok(&["season", "add", "1", "--games", "^4pLeague_"]);
    db.ok(&["scan", "--season", "1"]);
    let other = db.ok(&["scan", "--season", "1", "--threshold", "0.98"]);
    assert!(other.starts_with("season 1: scan #2 stored"), "{other}");
    assert!(other.ends_with("threshold 0.98\n"), "{other}");
}
