//! `detect explain` on golden case 06 (a joint stall of 9 buckets, then
//! same-IP moves), whose arithmetic its NOTES give: k0 +10, k1 +11,
//! k2..k8 +1 x 7, k9 +19, k10 +20; sum 67, weight 87, both ways.

use crate::common::*;

fn words(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn explain_shows_cells_boost_and_strongest_buckets() {
    let db = TestDb::new(Backend::Sqlite);
    let log = golden_dir().join("cases/06-stall-run-boost/input.jsonl");
    db.ok(&["ingest", log.to_str().unwrap()]);
    db.ok(&["season", "add", "1", "--games", "^4pLeague_"]);
    let text = words(&db.ok(&["explain", "--season", "1", "alice", "bob", "--top", "2"]));
    for part in [
        "alice -> bob: similarity 0.8851 (not flagged); score 67 of weight 87",
        "bob -> alice: similarity 0.8851",
        "4 x +60 windows where both moved from the same IP",
        "7 x +7 windows where both kept games waiting",
        "Longest joint wait before a same-IP move: 5 h (10 buckets), ending 2015-05-03 15:00 UTC",
        "2015-05-03 15:00 +20 both moved from the same IP (IP-1), after 5 h (10 buckets) of joint waiting",
        "2015-05-03 14:30 +19 both moved from the same IP (IP-1), after 4.5 h (9 buckets) of joint waiting",
    ] {
        assert!(text.contains(part), "explain lacks {part:?}:\n{text}");
    }
    assert!(
        !text.contains("10.0.0."),
        "a raw IP without --show-ips: {text}"
    );
    let raw = words(&db.ok(&["explain", "--season", "1", "alice", "bob", "--show-ips"]));
    assert!(raw.contains("(10.0.0.1)"), "{raw}");

    let out = db.run(&["explain", "--season", "1", "alice", "nobody"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no account named \"nobody\""));
}
