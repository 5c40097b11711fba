//! Crowded addresses: an (IP, day) with more participating accounts than
//! the crowd limit gives no candidate pairs and is named in the report by
//! pseudonym, in text and JSON, also when the report comes from the stored
//! scan. At the limit every pair is kept. (Speed and memory of a crowd of
//! 50,000 accounts: scripts/bench-crowd.)

use crate::common::*;

/// `crowd` accounts moving once each from 10.66.66.66 on 2015-05-03, and
/// `pair` accounts sharing 10.2.2.2 that day.
fn log(crowd: usize) -> String {
    let mut out = String::new();
    for k in 0..crowd {
        out.push_str(&format!(
            "{{\"username\": \"crowd{k:03}\", \"game\": \"4pLeague_S1_C{k}\", \"timestamp\": {}, \"ip\": \"10.66.66.66\"}}\n",
            1_430_640_000 + k as i64 * 7
        ));
    }
    for (k, name) in ["pair_a", "pair_b"].iter().enumerate() {
        out.push_str(&format!(
            "{{\"username\": \"{name}\", \"game\": \"4pLeague_S1_P\", \"timestamp\": {}, \"ip\": \"10.2.2.2\"}}\n",
            1_430_650_000 + k as i64 * 60
        ));
    }
    out
}

fn store_with(crowd: usize) -> TestDb {
    let db = TestDb::new(Backend::Sqlite);
    let path = db.dir.path().join("moves.jsonl");
    std::fs::write(&path, log(crowd)).unwrap();
    db.ok(&["ingest", path.to_str().unwrap()]);
    db
}

#[test]
fn a_crowd_over_the_limit_is_left_out_and_named_by_pseudonym() {
    let db = store_with(30);
    let scan = db.ok(&["scan", "--season", "1", "--crowd-limit", "20"]);
    assert!(scan.contains("1 candidate pairs"), "{scan}");
    // From the stored scan: the crowd is stored with it.
    let text = db.ok(&["report", "--season", "1", "--all", "--crowd-limit", "20"]);
    assert!(text.contains("scan #1"), "the stored scan: {text}");
    assert!(
        text.contains("Crowded addresses: more than 20 accounts on one day"),
        "{text}"
    );
    assert!(
        text.contains("crowded-IP-1  2015-05-03  30 accounts"),
        "{text}"
    );
    assert!(
        !text.contains("10.66.66.66"),
        "raw IP in the report: {text}"
    );
    assert!(
        text.contains("pair_a") && !text.contains("crowd001"),
        "{text}"
    );

    let json = db.ok(&[
        "report",
        "--season",
        "1",
        "--format",
        "json",
        "--crowd-limit",
        "20",
    ]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        v["crowded"],
        serde_json::json!([{"address": "crowded-IP-1", "day": "2015-05-03", "accounts": 30}])
    );
    assert_eq!(v["params"]["crowd_limit"], 20);
    assert!(!json.contains("10.66.66.66"));
}

#[test]
fn at_the_limit_every_pair_is_kept() {
    let db = store_with(20);
    let text = db.ok(&["report", "--season", "1", "--all", "--crowd-limit", "20"]);
    // 20 accounts: 190 pairs, and the pair beside them.
    assert!(text.contains("candidate pairs   191"), "{text}");
    assert!(!text.contains("Crowded addresses"), "{text}");
    // The same store with a lower limit: a new scan, the crowd left out.
    let text = db.ok(&["report", "--season", "1", "--crowd-limit", "19"]);
    assert!(text.contains("candidate pairs   1 "), "{text}");
    assert!(
        text.contains("crowded-IP-1  2015-05-03  20 accounts"),
        "{text}"
    );
}
