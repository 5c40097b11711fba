//! Verdicts, the audit log and sent alerts in the store, on both back ends:
//! what is recorded comes back, newest first, and the append-only tables
//! refuse any UPDATE or DELETE even in plain SQL.

use crate::common::*;
use schema::{NewVerdict, VerdictKind};
use store::{Store, StoreError, VerdictError};

fn verdict(accounts: &[&str], kind: VerdictKind, by: &str) -> NewVerdict {
    NewVerdict {
        accounts: accounts.iter().map(|s| s.to_string()).collect(),
        kind,
        note: format!("<b>{by}</b> & 'co'"),
        by: by.into(),
        season: Some(7),
        similarity: Some(0.93),
        // These accounts never moved in this store.
        unseen: true,
        supersedes: None,
    }
}

async fn verdicts_round_trip(store: &Store) {
    let first = store
        .add_verdict(&verdict(
            &["zed", "amy", "zed"],
            VerdictKind::Suspicious,
            "mod1",
        ))
        .await
        .unwrap();
    let clique = store
        .add_verdict(&verdict(
            &["cat", "amy", "zed"],
            VerdictKind::Household,
            "mod2",
        ))
        .await
        .unwrap();
    let mut other = verdict(&["bob", "cat"], VerdictKind::Cleared, "mod1");
    other.season = None;
    other.similarity = None;
    store.add_verdict(&other).await.unwrap();

    let pair = store.verdicts_for_pair("zed", "amy").await.unwrap();
    let ids: Vec<i64> = pair.iter().map(|v| v.id).collect();
    assert_eq!(ids, [clique, first], "newest first, clique verdicts count");
    assert_eq!(pair[1].accounts, ["amy", "zed"], "sorted, deduplicated");
    assert_eq!(pair[1].kind, VerdictKind::Suspicious);
    assert_eq!(pair[1].note, "<b>mod1</b> & 'co'");
    assert_eq!(pair[1].by, "mod1");
    assert_eq!(pair[1].season, Some(7));
    assert_eq!(pair[1].similarity, Some(0.93));
    assert!(pair[1].at > 1_700_000_000);
    assert_eq!(pair[0].accounts, ["amy", "cat", "zed"]);

    assert_eq!(store.verdicts_for_pair("bob", "amy").await.unwrap(), []);
    assert_eq!(store.verdicts_for_pair("amy", "amy").await.unwrap(), []);
    let cat = store.verdicts_for_account("cat").await.unwrap();
    assert_eq!(cat.len(), 2);
    assert_eq!(cat[0].kind, VerdictKind::Cleared);
    assert_eq!(cat[0].season, None);
    assert_eq!(cat[0].similarity, None);
    assert_eq!(store.verdicts().await.unwrap().len(), 3);

    for bad in [&["amy"][..], &["amy", "amy"][..], &["amy", ""][..]] {
        let err = store
            .add_verdict(&verdict(bad, VerdictKind::Cleared, "mod1"))
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::Verdict(_)), "{bad:?}: {err}");
    }
    let err = store
        .add_verdict(&verdict(&["a", "b"], VerdictKind::Cleared, " "))
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Verdict(VerdictError::NoDecider)));
    assert_eq!(store.verdicts().await.unwrap().len(), 3, "nothing stored");
}

async fn audit_round_trip(store: &Store) {
    store.record_audit("ann", "sign-in", "").await.unwrap();
    store
        .record_audit("bo", "view-pair", "amy zed")
        .await
        .unwrap();
    store
        .record_audit("ann", "reveal-ips", "amy zed")
        .await
        .unwrap();
    let all = store.audit_log(None, None).await.unwrap();
    let actions: Vec<&str> = all.iter().map(|e| e.action.as_str()).collect();
    assert_eq!(actions, ["sign-in", "view-pair", "reveal-ips"]);
    let ann = store.audit_log(None, Some("ann")).await.unwrap();
    assert_eq!(ann.len(), 2);
    assert!(ann.iter().all(|e| e.by == "ann"));
    assert_eq!(ann[1].target, "amy zed");
    let later = store.audit_log(Some(all[0].at + 3600), None).await.unwrap();
    assert!(later.is_empty());
    assert_eq!(
        store.audit_log(Some(all[0].at), None).await.unwrap().len(),
        3
    );
}

async fn alerts_are_recorded_once(store: &Store) {
    assert!(!store.alert_sent("pair:7:a:b", "d1").await.unwrap());
    store.record_alert_sent("pair:7:a:b", "d1").await.unwrap();
    store.record_alert_sent("pair:7:a:b", "d1").await.unwrap();
    assert!(store.alert_sent("pair:7:a:b", "d1").await.unwrap());
    assert!(!store.alert_sent("pair:7:a:b", "d2").await.unwrap());
}

/// Every UPDATE, DELETE (and on PostgreSQL, TRUNCATE) of the append-only
/// tables fails, and the rows stay as they were.
async fn append_only_in_plain_sql(url: &str, backend: Backend) {
    use sqlx::{Connection, Row};
    let mut conn = sqlx::AnyConnection::connect(url).await.expect("connect");
    let mut statements = vec![
        "UPDATE verdicts SET kind = 'same-person'",
        "UPDATE verdicts SET note = ''",
        "DELETE FROM verdicts",
        "UPDATE verdict_accounts SET username = 'x'",
        "DELETE FROM verdict_accounts",
        "UPDATE audit_log SET by_name = 'nobody'",
        "DELETE FROM audit_log",
    ];
    if backend == Backend::Postgres {
        statements.extend([
            "TRUNCATE verdicts CASCADE",
            "TRUNCATE verdict_accounts",
            "TRUNCATE audit_log",
        ]);
    }
    for sql in statements {
        let err = sqlx::query(sql)
            .execute(&mut conn)
            .await
            .expect_err(&format!("{sql} must be refused"));
        assert!(err.to_string().contains("append-only"), "{sql}: {err}");
    }
    let count = |table: &'static str| format!("SELECT COUNT(*) FROM {table}");
    for (table, n) in [("verdicts", 3), ("verdict_accounts", 7), ("audit_log", 3)] {
        let got: i64 = sqlx::query(&count(table))
            .fetch_one(&mut conn)
            .await
            .unwrap()
            .try_get(0)
            .unwrap();
        assert_eq!(got, n, "{table}");
    }
    let kinds: Vec<String> = sqlx::query("SELECT kind FROM verdicts ORDER BY id")
        .fetch_all(&mut conn)
        .await
        .unwrap()
        .iter()
        .map(|r| r.try_get(0).unwrap())
        .collect();
    assert_eq!(kinds, ["suspicious", "household", "cleared"]);
    conn.close().await.ok();
}

/// A verdict naming an account without a stored move is refused (nothing
/// stored) unless the decider says `unseen`, and is recorded as such; a
/// verdict superseding another names the same accounts and says why, and
/// both rows stay, the newer first.
async fn unseen_and_superseding(store: &Store) {
    assert!(store.account_seen("u011").await.unwrap());
    assert!(!store.account_seen("u03").await.unwrap());
    let mut typo = verdict(&["u011", "u03"], VerdictKind::SamePerson, "ann");
    typo.unseen = false;
    let err = store.add_verdict(&typo).await.unwrap_err();
    assert!(
        matches!(&err, StoreError::Verdict(VerdictError::Unseen(a)) if a == &["u03"]),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "u03 has no stored move on this site (a typo?): nothing recorded; --unseen records it anyway"
    );
    assert_eq!(store.verdicts().await.unwrap(), [], "nothing stored");

    typo.unseen = true;
    let first = store.add_verdict(&typo).await.unwrap();
    let seen = verdict(&["u011", "u018"], VerdictKind::Suspicious, "ann");
    let other = store.add_verdict(&seen).await.unwrap();
    let all = store.verdicts().await.unwrap();
    assert!(all.iter().find(|v| v.id == first).unwrap().unseen);
    assert!(
        !all.iter().find(|v| v.id == other).unwrap().unseen,
        "all seen"
    );

    let mut fix = verdict(&["u03", "u011"], VerdictKind::Cleared, "bo");
    (fix.unseen, fix.supersedes, fix.note) = (false, Some(first), String::new());
    let no_reason = store.add_verdict(&fix).await.unwrap_err();
    assert!(matches!(
        no_reason,
        StoreError::Verdict(VerdictError::NoReason)
    ));
    fix.note = "u03 was a typo for u030".into();
    fix.supersedes = Some(first + 1000);
    let missing = store.add_verdict(&fix).await.unwrap_err();
    assert!(matches!(
        missing,
        StoreError::Verdict(VerdictError::NoSuchVerdict(_))
    ));
    fix.supersedes = Some(other);
    let elsewhere = store.add_verdict(&fix).await.unwrap_err();
    assert!(matches!(
        elsewhere,
        StoreError::Verdict(VerdictError::OtherAccounts(..))
    ));
    assert_eq!(store.verdicts().await.unwrap().len(), 2, "nothing stored");

    fix.supersedes = Some(first);
    let second = store.add_verdict(&fix).await.unwrap();
    let pair = store.verdicts_for_pair("u011", "u03").await.unwrap();
    let ids: Vec<i64> = pair.iter().map(|v| v.id).collect();
    assert_eq!(ids, [second, first], "both rows stay, the newer first");
    assert_eq!(pair[0].supersedes, Some(first));
    assert_eq!(pair[0].by, "bo");
    assert_eq!(pair[0].note, "u03 was a typo for u030");
    assert!(pair[0].unseen, "u03 still has no move: recorded as unseen");
    assert_eq!(pair[0].kind, VerdictKind::Cleared);
    assert_eq!(pair[1].kind, VerdictKind::SamePerson);
}

fn unseen_and_superseding_verdicts(backend: Backend) {
    let db = TestDb::new(backend);
    let log = golden_dir().join("random/01/input.jsonl");
    db.ok(&["ingest", log.to_str().unwrap()]);
    db.ok(&["season", "add", "1", "--games", "^4pLeague_"]);
    db.ok(&["scan", "--season", "1"]);
    block_on(async {
        let store = Store::open(&db.url).await.expect("open");
        unseen_and_superseding(&store).await;
        // Names the site has seen, for a search that found none.
        assert_eq!(store.accounts_like("U011", 10).await.unwrap(), ["u011"]);
        let like = store.accounts_like("u01", 3).await.unwrap();
        assert_eq!(like.len(), 3, "{like:?}");
        assert!(like.iter().all(|n| n.starts_with("u01")), "{like:?}");
        assert_eq!(store.accounts_like("nobody", 10).await.unwrap(), [""; 0]);
        store.close().await;
    });
}

#[test]
fn unseen_and_superseding_verdicts_sqlite() {
    unseen_and_superseding_verdicts(Backend::Sqlite);
}

#[test]
fn unseen_and_superseding_verdicts_postgres() {
    unseen_and_superseding_verdicts(Backend::Postgres);
}

fn verdicts_and_audit(backend: Backend) {
    let db = TestDb::new(backend);
    block_on(async {
        let store = Store::open(&db.url).await.expect("open");
        verdicts_round_trip(&store).await;
        audit_round_trip(&store).await;
        alerts_are_recorded_once(&store).await;
        store.close().await;
        append_only_in_plain_sql(&db.url, backend).await;
    });
}

#[test]
fn verdicts_and_audit_sqlite() {
    verdicts_and_audit(Backend::Sqlite);
}

#[test]
fn verdicts_and_audit_postgres() {
    verdicts_and_audit(Backend::Postgres);
}
