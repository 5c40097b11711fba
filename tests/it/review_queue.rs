//! The review queue in the store, on both back ends: every flagged pair of
//! the latest scan once, most urgent first, filters and pages in SQL, a
//! verdict moving a pair out of "to review", a re-opened known relationship
//! first, and "next" walking the queue.

use crate::common::*;
use schema::{NewVerdict, VerdictKind};
use store::{FlagStatus, QueueFilter, QueueItem, QueueStatus, Store};

const MARGIN: f64 = 0.05;

/// The queue's whole list, read a page of `n` at a time.
async fn paged(store: &Store, filter: &QueueFilter, n: u64) -> Vec<QueueItem> {
    let mut out = Vec::new();
    loop {
        let page = store
            .review_queue(filter, MARGIN, out.len() as u64, n)
            .await
            .unwrap();
        assert!(page.items.len() as u64 <= n);
        let done = page.items.is_empty();
        out.extend(page.items);
        if done {
            assert_eq!(out.len() as u64, page.total, "the total counts every page");
            return out;
        }
    }
}

fn urgency_key(i: &QueueItem) -> (FlagStatus, f64, usize, u32) {
    (
        i.status,
        -i.score,
        usize::MAX - i.group,
        u32::MAX - i.season,
    )
}

fn verdict(a: &str, b: &str, kind: VerdictKind, level: f64) -> NewVerdict {
    NewVerdict {
        accounts: vec![a.into(), b.into()],
        kind,
        note: "checked".into(),
        by: "mo".into(),
        season: Some(1),
        similarity: Some(level),
        unseen: false,
        supersedes: None,
    }
}

/// The season page's read: the flagged pairs and their other direction.
async fn both_directions_read(
    store: &Store,
    scan: &store::StoredScan,
    flagged: &[(String, String)],
) {
    let shown = store.latest_scan_flagged(1).await.unwrap().unwrap();
    for (a, b) in flagged {
        for (x, y) in [(a, b), (b, a)] {
            let want = scan
                .result
                .pairs
                .iter()
                .find(|p| &p.account_a == x && &p.account_b == y);
            let got = shown
                .result
                .pairs
                .iter()
                .find(|p| &p.account_a == x && &p.account_b == y);
            assert_eq!(got, want, "{x} -> {y}");
        }
    }
}

/// Most urgent first, each pair in its clique; filters select in SQL.
async fn order_and_filters(store: &Store, scan: &store::StoredScan, items: &[QueueItem]) {
    let all = QueueFilter {
        status: QueueStatus::All,
        ..Default::default()
    };
    assert!(items.iter().all(|i| i.status == FlagStatus::Open));
    for w in items.windows(2) {
        assert!(
            urgency_key(&w[0]) <= urgency_key(&w[1]),
            "most urgent first: {:?} before {:?}",
            w[0],
            w[1]
        );
    }
    for i in items {
        let c = i.clique.map(|k| &scan.result.cliques[k - 1]);
        assert_eq!(i.group, c.map_or(2, |c| c.members.len()));
        assert!(
            c.is_none_or(|c| c.members.contains(&i.account_a) && c.members.contains(&i.account_b))
        );
    }

    // Filters.
    let cut = items[items.len() / 2].score;
    let strong = QueueFilter {
        min_score: Some(cut),
        ..all.clone()
    };
    let got = paged(store, &strong, 100).await;
    assert_eq!(
        got,
        items
            .iter()
            .filter(|i| i.score >= cut)
            .cloned()
            .collect::<Vec<_>>()
    );
    let big = QueueFilter {
        min_group: Some(3),
        ..all.clone()
    };
    let got = paged(store, &big, 100).await;
    assert_eq!(
        got,
        items
            .iter()
            .filter(|i| i.group >= 3)
            .cloned()
            .collect::<Vec<_>>()
    );
    let other = QueueFilter {
        season: Some(2),
        ..all.clone()
    };
    assert!(paged(store, &other, 100).await.is_empty());
}

/// "Next" walks the order; a pair not in the queue starts it.
async fn next_walks_the_order(store: &Store, items: &[QueueItem]) {
    let to_review = QueueFilter::default();
    let next = |a: String, b: String| {
        let store = store.clone();
        let f = to_review.clone();
        async move { store.review_next(&f, MARGIN, 1, &a, &b).await.unwrap() }
    };
    assert_eq!(
        next(items[0].account_a.clone(), items[0].account_b.clone())
            .await
            .as_ref(),
        Some(&items[1])
    );
    let last = items.last().unwrap();
    assert_eq!(
        next(last.account_a.clone(), last.account_b.clone()).await,
        None
    );
    assert_eq!(
        next("nobody".into(), "else".into()).await.as_ref(),
        Some(&items[0])
    );
}

/// A verdict judges the first pair; a household decided well below
/// today's score re-opens the second, which comes first.
async fn verdicts_move_flags(store: &Store, items: &[QueueItem]) {
    let all = QueueFilter {
        status: QueueStatus::All,
        ..Default::default()
    };
    let to_review = QueueFilter::default();
    let (first, second) = (&items[0], &items[1]);
    store
        .add_verdict(&verdict(
            &first.account_a,
            &first.account_b,
            VerdictKind::SamePerson,
            first.score,
        ))
        .await
        .unwrap();
    store
        .add_verdict(&verdict(
            &second.account_a,
            &second.account_b,
            VerdictKind::Household,
            second.score - 0.2,
        ))
        .await
        .unwrap();
    let open = paged(store, &to_review, 3).await;
    assert_eq!(open.len(), items.len() - 1);
    assert_eq!(
        (open[0].account_a.as_str(), open[0].status),
        (second.account_a.as_str(), FlagStatus::Reopened)
    );
    assert_eq!(open[0].verdict, Some(VerdictKind::Household));
    let judged = QueueFilter {
        status: QueueStatus::Judged,
        ..all.clone()
    };
    let got = paged(store, &judged, 3).await;
    assert_eq!(got.len(), 1);
    assert_eq!(
        (got[0].account_b.as_str(), got[0].verdict),
        (first.account_b.as_str(), Some(VerdictKind::SamePerson))
    );
}

fn queue_in_sql(backend: Backend) {
    let db = TestDb::new(backend);
    let log = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/sample-season.jsonl");
    db.ok(&["ingest", log.to_str().unwrap()]);
    db.ok(&["scan", "--season", "1", "--threshold", "0.9"]);
    block_on(async {
        let store = Store::open(&db.url).await.expect("open");
        let scan = store.latest_scan(1).await.unwrap().unwrap();
        let t = scan.result.params.threshold;
        let mut flagged: Vec<(String, String)> = scan
            .result
            .pairs
            .iter()
            .filter(|p| p.similarity >= t)
            .map(|p| {
                let (a, b) = (p.account_a.clone(), p.account_b.clone());
                if a < b {
                    (a, b)
                } else {
                    (b, a)
                }
            })
            .collect();
        flagged.sort();
        flagged.dedup();
        assert!(flagged.len() >= 6, "{} flagged pairs", flagged.len());

        both_directions_read(&store, &scan, &flagged).await;
        let all = QueueFilter {
            status: QueueStatus::All,
            ..Default::default()
        };
        let items = paged(&store, &all, 4).await;
        let mut listed: Vec<(String, String)> = items
            .iter()
            .map(|i| (i.account_a.clone(), i.account_b.clone()))
            .collect();
        listed.sort();
        assert_eq!(listed, flagged, "each flagged pair once");
        order_and_filters(&store, &scan, &items).await;
        next_walks_the_order(&store, &items).await;
        verdicts_move_flags(&store, &items).await;

        // A new scan at another threshold (a rescan, stored as a change to
        // the first) rebuilds the season's rows.
        db.ok(&["scan", "--season", "1", "--threshold", "0.982"]);
        let fewer = paged(&store, &all, 100).await;
        assert!(!fewer.is_empty() && fewer.len() < items.len(), "{fewer:?}");
        assert!(fewer.iter().all(|i| i.score >= 0.982), "{fewer:?}");
        store.close().await;
    });
}

#[test]
fn queue_in_sql_sqlite() {
    queue_in_sql(Backend::Sqlite);
}

#[test]
fn queue_in_sql_postgres() {
    queue_in_sql(Backend::Postgres);
}
