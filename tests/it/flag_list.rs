//! One flag list per scan: `report` (text, JSON, CSV) shows the threshold
//! the scan was made at unless asked for another, and `scan` and `report`
//! count the same flagged pairs, each saying how many known relationships
//! (pairs judged different people or cleared) it leaves out.

use crate::common::*;
use serde_json::Value;

fn scan_db() -> TestDb {
    let db = TestDb::new(Backend::Sqlite);
    let log = golden_dir().join("random/01/input.jsonl");
    db.ok(&["ingest", log.to_str().unwrap()]);
    db.ok(&["season", "add", "1", "--games", "^4pLeague_"]);
    db
}

fn json_report(db: &TestDb, extra: &[&str]) -> Value {
    let args = [&["report", "--season", "1", "--format", "json"][..], extra].concat();
    serde_json::from_str(&db.ok(&args)).unwrap()
}

#[test]
fn report_shows_the_threshold_of_the_scan_and_the_counts_of_scan() {
    let db = scan_db();
    let scan = db.ok(&["scan", "--season", "1", "--threshold", "0.98"]);
    assert!(
        scan.contains(
            "2 flagged pairs (no known relationship among them), 2 cliques; threshold 0.98"
        ),
        "{scan}"
    );
    let text = db.ok(&["report", "--season", "1"]);
    assert!(text.contains("threshold 0.98\n"), "{text}");
    assert!(
        text.contains(
            "flagged pairs     2 (3 directions at or above 0.98; no known relationship among them)"
        ),
        "{text}"
    );
    assert!(
        !text.contains("0.9\n") && !text.contains("above 0.9;"),
        "{text}"
    );
    let json = json_report(&db, &[]);
    assert_eq!(json["params"]["threshold"], 0.98);
    assert_eq!(json["summary"]["flagged_pairs"], 2);
    assert_eq!(json["scan"]["known_not_counted"], 0);

    db.ok(&[
        "verdict",
        "set",
        "u011",
        "u018",
        "--as",
        "household",
        "--by",
        "ann",
    ]);
    let json = json_report(&db, &[]);
    assert_eq!(json["params"]["threshold"], 0.98, "still the scan's");
    assert_eq!(json["summary"]["flagged_pairs"], 1);
    assert_eq!(json["summary"]["cliques"], 1);
    assert_eq!(json["scan"]["known_not_counted"], 1);
    let text = db.ok(&["report", "--season", "1"]);
    assert!(
        text.contains(
            "flagged pairs     1 (2 directions at or above 0.98; 1 known relationship not counted)"
        ),
        "{text}"
    );
    let csv = db.ok(&["report", "--season", "1", "--format", "csv"]);
    let flags = csv.lines().filter(|l| l.ends_with(",flag,")).count();
    assert_eq!(flags, 2, "the two directions of u014/u019 at 0.98: {csv}");
    assert!(
        csv.contains("u011,u018,") && csv.contains(",known,household"),
        "{csv}"
    );
    let rescan = db.ok(&["scan", "--season", "1", "--threshold", "0.98"]);
    assert!(
        rescan.contains(
            "1 flagged pairs (1 known relationship not counted), 1 cliques; threshold 0.98"
        ),
        "{rescan}"
    );

    // Another threshold only when asked.
    let lower = json_report(&db, &["--threshold", "0.9"]);
    assert_eq!(lower["params"]["threshold"], 0.9);
    assert_eq!(json_report(&db, &[])["params"]["threshold"], 0.98);
}
