//! Migration 0025 (a scan's pairs as one block per account a): a store of
//! the previous release migrates on both back ends and reads as it did,
//! the scans after it store blocks, and every way the store reads a
//! scan's pairs finds the same pairs in blocks as in rows.
//!
//! The previous release's store is made from one of this release by
//! [`undo_0025`], which writes every block's pairs back as rows from its
//! own reading of the documented layout (`store/src/scans/blocks.rs`), and
//! is checked against a store migrated only as far as 0024.

use crate::common::*;
use crate::pair_evidence::{ingest_and_scan, reads, scanned, timeless};
use sqlx::{AnyPool, Row};

/// Undoes migration 0025 on the store behind `p`: every block's pairs
/// back as rows of `scan_pairs`, the table dropped.
pub(crate) async fn undo_0025(p: &AnyPool) {
    let blocks = sqlx::query("SELECT scan_id, account_a, pairs FROM scan_pair_blocks")
        .fetch_all(p)
        .await
        .expect("blocks");
    for r in blocks {
        let (scan, a, data): (i64, String, Vec<u8>) = (r.get(0), r.get(1), r.get(2));
        for pair in Pair::all(&data) {
            sqlx::query(
                "INSERT INTO scan_pairs (scan_id, account_a, account_b, similarity, score_sum, \
                 score_weight, same_ip_count, same_ip_score, other_ip_count, other_ip_score, \
                 moved_stalled_count, moved_stalled_score, stalled_moved_count, \
                 stalled_moved_score, both_stalled_count, both_stalled_score, max_boost, \
                 max_boost_bucket, top_buckets, evidence, signals) \
                 VALUES ($1, $2, $3, $4, $5, $6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL, '', $7, $8)",
            )
            .bind(scan)
            .bind(&a)
            .bind(pair.account_b)
            .bind(pair.similarity)
            .bind(pair.sum)
            .bind(pair.weight)
            .bind(pair.evidence)
            .bind(pair.signals)
            .execute(p)
            .await
            .expect("a pair as the previous release stored it");
        }
    }
    sqlx::raw_sql(
        "DROP TABLE scan_pair_blocks;
         DELETE FROM _sqlx_migrations WHERE version = 25;",
    )
    .execute(p)
    .await
    .expect("undo 0025");
}

/// One pair of a block, as the layout documents it.
struct Pair {
    account_b: String,
    similarity: f64,
    sum: i64,
    weight: i64,
    /// The evidence's bytes, as a row holds them.
    evidence: Vec<u8>,
    signals: Option<String>,
}

impl Pair {
    fn all(data: &[u8]) -> Vec<Pair> {
        let mut at = 0;
        let mut out = Vec::new();
        let int = |at: &mut usize| {
            let mut v = 0u64;
            let mut shift = 0;
            loop {
                let b = data[*at];
                *at += 1;
                v |= u64::from(b & 0x7f) << shift;
                shift += 7;
                if b < 0x80 {
                    return v;
                }
            }
        };
        let signed = |v: u64| ((v >> 1) as i64) ^ -((v & 1) as i64);
        while at < data.len() {
            let len = int(&mut at) as usize;
            let account_b = String::from_utf8(data[at..at + len].to_vec()).unwrap();
            at += len;
            let similarity =
                f64::from_bits(u64::from_le_bytes(data[at..at + 8].try_into().unwrap()));
            at += 8;
            let sum = signed(int(&mut at));
            let weight = signed(int(&mut at));
            // The evidence: five cells' count and score, the boost and its
            // bucket, the number of top buckets and four numbers each.
            let from = at;
            for _ in 0..12 {
                int(&mut at);
            }
            for _ in 0..int(&mut at) * 4 {
                int(&mut at);
            }
            let evidence = data[from..at].to_vec();
            let signals = match int(&mut at) as usize {
                0 => None,
                n => {
                    let text = String::from_utf8(data[at..at + n - 1].to_vec()).unwrap();
                    at += n - 1;
                    Some(text)
                }
            };
            out.push(Pair {
                account_b,
                similarity,
                sum,
                weight,
                evidence,
                signals,
            });
        }
        out
    }
}

/// The rows of `scan_pairs` and of `scan_pair_blocks`.
fn stored(db: &TestDb) -> (i64, i64) {
    block_on(async {
        let p = pool(&db.url).await;
        let mut n = Vec::new();
        for table in ["scan_pairs", "scan_pair_blocks"] {
            let r = sqlx::query(&format!("SELECT count(*) FROM {table}"))
                .fetch_one(&p)
                .await
                .unwrap();
            n.push(r.get::<i64, _>(0));
        }
        p.close().await;
        (n[0], n[1])
    })
}

/// Every way the store reads a scan's pairs beyond [`reads`] (every
/// pair): the pairs at or above a similarity, those naming an account, a
/// directed pair's other direction, the largest similarity among a few
/// accounts; for accounts of the strongest pairs and of weak ones.
fn more_reads(db: &TestDb) -> Vec<String> {
    block_on(async {
        let store = store::Store::open(&db.url).await.expect("open");
        let all = store.latest_scan(1).await.unwrap().expect("a scan");
        let pairs = &all.result.pairs;
        assert!(pairs.len() > 20, "{}", pairs.len());
        let mut names: Vec<String> = pairs[..3]
            .iter()
            .chain(&pairs[pairs.len() - 3..])
            .flat_map(|p| [p.account_a.clone(), p.account_b.clone()])
            .collect();
        names.push("no such account".to_owned());
        let mut out = Vec::new();
        for min in [0.9, 0.5, -1.0] {
            let scan = store.latest_scan_at_least(1, min).await.unwrap().unwrap();
            out.push(format!("{:?}", scan.result.pairs));
        }
        for name in &names {
            out.push(format!("{:?}", store.pairs_of_account(name).await.unwrap()));
        }
        let mut flagged = store.latest_scan_at_least(1, 0.9).await.unwrap().unwrap();
        store.complete_directions(&mut flagged).await.unwrap();
        out.push(format!("{:?}", flagged.result.pairs));
        for among in [&names[..2], &names[..4], &names[8..]] {
            out.push(format!(
                "{:?}",
                store.decision_level(among, Some(1)).await.unwrap()
            ));
        }
        out
    })
}

fn a_store_of_the_previous_release_reads_as_before(backend: Backend) {
    let parts = golden_parts_by_time("random/03", &[0.6]);
    let db = scanned(backend, &parts[..1]);
    let (rows, blocks) = stored(&db);
    assert!(
        rows == 0 && blocks > 0,
        "this release stores blocks: {rows} {blocks}"
    );
    let before = (reads(&db), more_reads(&db));
    let old = TestDb::new(backend);
    block_on(async {
        let p = pool(&db.url).await;
        undo_0025(&p).await;
        p.close().await;
        assert_shaped_as_release_before(&db.url, &old.url, backend, 25).await;
    });
    // The next command migrates: the pairs, still rows, read as before.
    assert_eq!((reads(&db), more_reads(&db)), before);
    let (rows, blocks) = stored(&db);
    assert!(rows > 0 && blocks == 0, "{rows} {blocks}");
    // A rescan stores the pairs it scored again as blocks, and the season
    // reads as one that never met the release before.
    let fresh = scanned(backend, &parts);
    let out = ingest_and_scan(&db, &parts[1]);
    assert!(out.contains("a rescan of #1"), "{out}");
    let (rows_after, blocks) = stored(&db);
    assert!(rows_after == rows && blocks > 0, "{rows_after} {blocks}");
    assert_eq!(timeless(&reads(&db)), timeless(&reads(&fresh)));
    assert_eq!(more_reads(&db), more_reads(&fresh));
}

#[test]
fn a_store_of_the_previous_release_reads_as_before_sqlite() {
    a_store_of_the_previous_release_reads_as_before(Backend::Sqlite);
}

#[test]
fn a_store_of_the_previous_release_reads_as_before_postgres() {
    a_store_of_the_previous_release_reads_as_before(Backend::Postgres);
}

/// `detect check` reads every block: one that does not decode, and a scan
/// whose pairs are not as many as it stored, are each a sentence.
fn check_reads_every_block(backend: Backend) {
    let parts = golden_parts_by_time("random/03", &[0.6]);
    let db = scanned(backend, &parts[..1]);
    let out = db.run(&["check"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let cut = match backend {
        Backend::Sqlite => "substr(pairs, 1, 5)",
        Backend::Postgres => "substring(pairs from 1 for 5)",
    };
    block_on(async {
        let p = pool(&db.url).await;
        sqlx::query(&format!(
            "UPDATE scan_pair_blocks SET pairs = {cut} WHERE account_a = \
             (SELECT MIN(account_a) FROM scan_pair_blocks)"
        ))
        .execute(&p)
        .await
        .unwrap();
        p.close().await;
    });
    let out = db.run(&["check"]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert_eq!(
        lines[0],
        "scan #1: a block of pairs: a chunk cut short; its pairs cannot be read."
    );
    assert!(
        lines[1].starts_with("scan #1 stored ") && lines[1].ends_with(" read."),
        "{stdout}"
    );
}

#[test]
fn check_reads_every_block_sqlite() {
    check_reads_every_block(Backend::Sqlite);
}

#[test]
fn check_reads_every_block_postgres() {
    check_reads_every_block(Backend::Postgres);
}
