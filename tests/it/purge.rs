//! Retention: `detect purge` in the middle of a season deletes the moves
//! before the cutoff, leaves the stored scan's report as it was, and a new
//! scan covers exactly what remains (as a store fed only those moves); the
//! daemon's `retention_days` purges once a day.

use crate::common::*;
use store::Store;

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/sample-season.jsonl");

/// Log lines with their times (lines without one have `None`).
fn sample() -> Vec<(String, Option<i64>)> {
    std::fs::read_to_string(SAMPLE)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let t = v["timestamp_utc"]
                .as_str()
                .map(|t| ingest::time::parse_time(t).unwrap());
            (l.to_owned(), t)
        })
        .collect()
}

fn is_move(line: &str) -> bool {
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    v["username"].is_string() && v["ip"].is_string()
}

/// Moves stored, and the time of the oldest.
fn stored_moves(url: &str) -> (i64, Option<i64>) {
    block_on(async {
        let store = Store::open(url).await.unwrap();
        let mut oldest: Option<i64> = None;
        store
            .for_each_move(false, |m| {
                oldest = Some(oldest.map_or(m.timestamp, |o| o.min(m.timestamp)))
            })
            .await
            .unwrap();
        let n = store.move_count().await.unwrap();
        store.close().await;
        (n, oldest)
    })
}

fn csv(db: &TestDb) -> Vec<(String, String, f64)> {
    pairs_of_csv(&db.ok(&["report", "--season", "1", "--format", "csv", "--all"]))
}

fn purge_in_the_middle_of_a_season(backend: Backend) {
    let db = TestDb::new(backend);
    let lines = sample();
    db.ok(&["ingest", SAMPLE]);
    db.ok(&["scan", "--season", "1"]);
    let before = csv(&db);
    assert!(!before.is_empty());

    // A cutoff half-way through the season's three days.
    let times: Vec<i64> = lines.iter().filter_map(|l| l.1).collect();
    let middle = (times.iter().min().unwrap() + times.iter().max().unwrap()) / 2;
    let hours = (chrono::Utc::now().timestamp() - middle) / 3600;
    let out = db.ok(&["purge", "--older-than", &format!("{hours}h")]);
    let at = out
        .strip_prefix("purged everything before ")
        .and_then(|s| s.split(" UTC").next())
        .unwrap_or_else(|| panic!("{out}"));
    let cutoff = ingest::time::parse_time(at).unwrap();
    assert!((cutoff - middle).abs() < 7200, "{out}");

    let kept: Vec<&str> = lines
        .iter()
        .filter(|(_, t)| t.is_none_or(|t| t >= cutoff))
        .map(|(l, _)| l.as_str())
        .collect();
    let kept_moves = kept.iter().filter(|l| is_move(l)).count() as i64;
    let total_moves = lines.iter().filter(|(l, _)| is_move(l)).count() as i64;
    assert!(kept_moves > 100 && kept_moves < total_moves - 100);
    let (n, oldest) = stored_moves(&db.url);
    assert_eq!(n, kept_moves);
    assert!(oldest.unwrap() >= cutoff);
    // The segments held the purged moves' addresses: they went with them.
    block_on(async {
        let store = Store::open(&db.url).await.unwrap();
        assert_eq!(store.segmentation_state(1800).await.unwrap(), None);
        store.close().await;
    });
    assert!(out.contains("1 stored segmentations deleted"), "{out}");
    assert!(
        out.contains(&format!("{} moves and", total_moves - kept_moves)),
        "{out}"
    );

    // The stored scan still reports, unchanged.
    assert_eq!(csv(&db), before);

    purged_stays_purged(&db, total_moves, kept_moves);

    // A new scan covers only what remains: as a store fed only that.
    db.ok(&["scan", "--season", "1"]);
    let after = csv(&db);
    assert_ne!(after, before);
    let fresh = TestDb::new(Backend::Sqlite);
    let kept_log = fresh.dir.path().join("kept.jsonl");
    std::fs::write(&kept_log, kept.join("\n") + "\n").unwrap();
    fresh.ok(&["ingest", kept_log.to_str().unwrap()]);
    assert_eq!(after, csv(&fresh));
}

/// What was purged stays purged: ingesting the log again stores nothing
/// (the same file is skipped unread, and says why), and a copy with one
/// more line is read while its old moves stay purged.
fn purged_stays_purged(db: &TestDb, total_moves: i64, kept_moves: i64) {
    let again = db.ok(&["ingest", SAMPLE]);
    assert!(
        again.contains(&format!("already stored: {SAMPLE} ({total_moves} moves)"))
            && again.contains("purged moves are not brought back"),
        "{again}"
    );
    assert_eq!(stored_moves(&db.url).0, kept_moves);
    let grown = db.dir.path().join("grown.jsonl");
    let mut text = std::fs::read_to_string(SAMPLE).unwrap();
    text.push('\n');
    std::fs::write(&grown, text).unwrap();
    let again = db.ok(&["ingest", grown.to_str().unwrap()]);
    assert!(
        again.contains(" 0 stored, ")
            && again.contains(&format!(
                "{kept_moves} duplicates ignored, {} older than the store's purge cutoff not stored",
                total_moves - kept_moves
            )),
        "{again}"
    );
    assert_eq!(stored_moves(&db.url).0, kept_moves);
}

#[test]
fn purge_in_the_middle_of_a_season_sqlite() {
    purge_in_the_middle_of_a_season(Backend::Sqlite);
}

#[test]
fn purge_in_the_middle_of_a_season_postgres() {
    purge_in_the_middle_of_a_season(Backend::Postgres);
}

#[test]
fn purge_needs_a_cutoff_it_can_read() {
    let db = TestDb::new(Backend::Sqlite);
    for (args, says) in [
        (vec!["purge"], "--older-than"),
        (
            vec!["purge", "--older-than", "90"],
            "not an age such as 90d",
        ),
        (
            vec!["purge", "--before", "last tuesday"],
            "cannot read the time",
        ),
    ] {
        let out = db.run(&args);
        assert!(!out.status.success());
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(e.contains(says), "{args:?}: {e}");
    }
    let out = db.ok(&["purge", "--before", "2015-05-11"]);
    assert!(
        out.contains("before 2015-05-11 00:00:00 UTC: 0 moves"),
        "{out}"
    );
}

#[test]
fn the_daemon_purges_once_a_day() {
    let db = TestDb::new(Backend::Sqlite);
    let dir = db.dir.path();
    let logs = dir.join("logs");
    std::fs::create_dir(&logs).unwrap();
    std::fs::copy(SAMPLE, logs.join("a.jsonl")).unwrap();
    let lines = sample();
    let times: Vec<i64> = lines.iter().filter_map(|l| l.1).collect();
    let middle = (times.iter().min().unwrap() + times.iter().max().unwrap()) / 2;
    let days = (chrono::Utc::now().timestamp() - middle) / 86_400;
    let config = dir.join("detect.toml");
    std::fs::write(
        &config,
        format!(
            "report_dir = {:?}\nseasons = [1]\nretention_days = {days}\nip_key = \"daemon key\"\n\
             [[source]]\ndirectory = {:?}\n",
            dir.join("reports").to_str().unwrap(),
            logs.to_str().unwrap()
        ),
    )
    .unwrap();
    let kept_after = |now: i64| {
        lines
            .iter()
            .filter(|(l, t)| is_move(l) && t.is_some_and(|t| t >= now - days * 86_400))
            .count() as i64
    };
    let start = chrono::Utc::now().timestamp();
    let log = daemon_once(&db, &config);
    let end = chrono::Utc::now().timestamp();
    assert!(
        log.contains(&format!("retention of {days} days: purged")),
        "{log}"
    );
    let (n, _) = stored_moves(&db.url);
    assert!(
        (kept_after(end)..=kept_after(start)).contains(&n) && n > 0,
        "{n} moves left"
    );
    // Keyed by the configuration's ip_key: no raw address stored.
    assert!(db.raw_ips_stored(std::path::Path::new(SAMPLE)).is_empty());
    // Not again on the same day.
    let log = daemon_once(&db, &config);
    assert!(!log.contains("retention of"), "{log}");
    assert_eq!(stored_moves(&db.url).0, n);
}

/// The stored IP pseudonyms of season 1 (address to number), and the
/// distinct addresses of the stored moves.
fn pseudonyms_and_addresses(url: &str) -> (Vec<(String, u32)>, Vec<String>) {
    block_on(async {
        let store = Store::open(url).await.unwrap();
        let mut names: Vec<(String, u32)> = store
            .ip_pseudonyms(1, &[])
            .await
            .unwrap()
            .into_iter()
            .collect();
        names.sort();
        let mut ips = Vec::new();
        store
            .for_each_move(false, |m| ips.push(m.ip))
            .await
            .unwrap();
        ips.sort();
        ips.dedup();
        store.close().await;
        (names, ips)
    })
}

/// A purge retires the IP pseudonyms of addresses no move holds any more:
/// no purged address lingers in `ip_pseudonyms` (raw, in a plain store),
/// the addresses that remain keep their names, and the old scan's report
/// prints as before.
fn purge_retires_pseudonyms_of_purged_addresses(backend: Backend) {
    let db = TestDb::new(backend);
    let lines = sample();
    db.ok(&["ingest", SAMPLE]);
    db.ok(&["scan", "--season", "1"]);
    db.ok(&["buckets", "--season", "1"]);
    let report = db.ok(&["report", "--season", "1", "--format", "csv", "--all"]);
    let (before, _) = pseudonyms_and_addresses(&db.url);
    assert!(before.len() > 10, "{before:?}");

    let times: Vec<i64> = lines.iter().filter_map(|l| l.1).collect();
    let middle = (times.iter().min().unwrap() + times.iter().max().unwrap()) / 2;
    let hours = (chrono::Utc::now().timestamp() - middle) / 3600;
    db.ok(&["purge", "--older-than", &format!("{hours}h")]);

    let (after, left) = pseudonyms_and_addresses(&db.url);
    assert_eq!(after.len(), before.len(), "every number stays taken");
    let mut retired = 0;
    for (ip, n) in &before {
        if left.contains(ip) {
            assert!(after.contains(&(ip.clone(), *n)), "{ip} keeps IP-{n}");
        } else {
            retired += 1;
            assert!(
                after.contains(&(format!("purged IP-{n}"), *n)),
                "IP-{n} of a purged address is retired: {after:?}"
            );
            assert!(!after.iter().any(|(a, _)| a == ip), "{ip} lingers");
        }
    }
    assert!(retired > 0 && retired < before.len(), "{retired} retired");
    assert_eq!(
        db.ok(&["report", "--season", "1", "--format", "csv", "--all"]),
        report,
        "the old scan's report prints as before"
    );
    // Reading the season again names what remains as before.
    db.ok(&["buckets", "--season", "1"]);
    assert_eq!(pseudonyms_and_addresses(&db.url).0, after);
}

#[test]
fn purge_retires_pseudonyms_of_purged_addresses_sqlite() {
    purge_retires_pseudonyms_of_purged_addresses(Backend::Sqlite);
}

#[test]
fn purge_retires_pseudonyms_of_purged_addresses_postgres() {
    purge_retires_pseudonyms_of_purged_addresses(Backend::Postgres);
}
