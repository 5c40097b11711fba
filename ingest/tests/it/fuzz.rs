//! Fuzzing the reader and the segmenter: arbitrary bytes, and lines built
//! from hostile pieces, go through `open_log_with` and `segment_moves`. The
//! properties: nothing panics; every move read obeys the record rule; every
//! line is either a move, a skipped record or a bad line naming its line
//! number; memory stays bounded by the limits.
//!
//! The proptests here run a few hundred cases with every `cargo test`; the
//! ignored `fuzz_for_a_while` runs for `FUZZ_SECONDS` (scripts/fuzz). The
//! inputs that crashed `detect` before are regression tests below.

use detect_ingest::{open_log_with, segment_moves, sort_by_time, Limits};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use schema::Move;

fn limits() -> Limits {
    Limits {
        earliest: 946_684_800,
        latest: 4_102_444_800,
        max_field: 64,
        max_line: 512,
    }
}

/// Reads `bytes` as a file named `name`, segments what it read, and checks
/// the properties; returns (moves, skipped, bad lines).
fn read_and_segment(name: &str, bytes: &[u8]) -> (usize, usize, usize) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    let l = limits();
    let Ok(reader) = open_log_with(path.to_str().unwrap(), &l) else {
        return (0, 0, 0);
    };
    let (mut moves, mut skipped, mut bad) = (Vec::<Move>::new(), 0, 0);
    let mut last_line = 0;
    for line in reader {
        match line {
            Ok((n, detect_ingest::LogLine::Move(m))) => {
                assert!(n > last_line, "line numbers grow: {n} after {last_line}");
                last_line = n;
                assert_eq!(l.check_move(&m), Ok(()), "a move read breaks the rule");
                moves.push(m);
            }
            Ok((n, detect_ingest::LogLine::Skipped)) => {
                last_line = n;
                skipped += 1;
            }
            Err(e) => {
                let n = e.line.expect("a bad line names its line");
                assert!(n >= 1);
                assert!(e.message.len() < 400, "a short message: {}", e.message);
                bad += 1;
            }
        }
    }
    sort_by_time(&mut moves);
    let segments = segment_moves(&moves, 1800);
    assert!(segments.accounts.len() <= moves.len());
    (moves.len(), skipped, bad)
}

const HOSTILE: &[&str] = &[
    "",
    " ",
    "\t",
    "a",
    "alice",
    "=cmd|' /C calc'!A0",
    "a\nb",
    "\u{1b}[2J",
    "\u{0}",
    "\u{feff}",
    "\u{202e}evil",
    "\"",
    "\\",
    ",",
    "名前",
    "1e300",
    "-1e300",
    "9223372036854775807",
    "-9223372036854775808",
    "9999-12-31 23:59:59",
    "2016-12-31 23:59:60",
    "2015-05-03 16:29:00",
    "2015-02-30 10:00:00",
    "1430670540",
    "NaN",
];

fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::sample::select(HOSTILE).prop_map(str::to_owned),
        "[ -~]{0,80}",
        ".{0,12}",
        (1usize..2000).prop_map(|n| "x".repeat(n)),
    ]
}

fn json_value(p: String) -> String {
    // Times sometimes as bare numbers, else strings.
    if p.parse::<f64>().is_ok() && !p.is_empty() {
        p
    } else {
        serde_json::to_string(&p).unwrap()
    }
}

/// A log of lines built from pieces: JSON objects, CSV rows, or noise.
fn structured_log() -> impl Strategy<Value = (bool, Vec<u8>)> {
    let json_line = (piece(), piece(), piece(), piece()).prop_map(|(u, g, t, ip)| {
        format!(
            "{{\"username\": {}, \"game\": {}, \"timestamp_utc\": {}, \"ip\": {}}}",
            serde_json::to_string(&u).unwrap(),
            serde_json::to_string(&g).unwrap(),
            json_value(t),
            serde_json::to_string(&ip).unwrap()
        )
        .into_bytes()
    });
    let csv_line = (piece(), piece(), piece(), piece())
        .prop_map(|(u, g, t, ip)| format!("{u},{g},{t},{ip}").into_bytes());
    let noise = proptest::collection::vec(any::<u8>(), 0..200);
    let line = prop_oneof![4 => json_line, 3 => csv_line, 1 => noise];
    (any::<bool>(), proptest::collection::vec(line, 0..30)).prop_map(|(csv, lines)| {
        let mut out = Vec::new();
        if csv {
            out.extend_from_slice(b"username,game,timestamp_utc,ip\n");
        }
        for l in lines {
            out.extend_from_slice(&l);
            out.push(b'\n');
        }
        (csv, out)
    })
}

fn check_bytes(bytes: &[u8]) {
    for name in ["log", "log.jsonl", "log.csv"] {
        read_and_segment(name, bytes);
    }
}

proptest! {
    #![proptest_config(Config { cases: 64, ..Config::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        check_bytes(&bytes);
    }

    #[test]
    fn hostile_lines_never_panic((csv, bytes) in structured_log()) {
        read_and_segment(if csv { "log.csv" } else { "log.jsonl" }, &bytes);
    }
}

/// Runs both generators for `FUZZ_SECONDS` (default 60) with fresh random
/// seeds: `scripts/fuzz` runs it for ten minutes.
#[test]
#[ignore = "long: run by scripts/fuzz"]
fn fuzz_for_a_while() {
    let seconds: u64 = std::env::var("FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let until = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    let (mut rounds, mut cases) = (0u64, 0u64);
    while std::time::Instant::now() < until {
        let config = Config {
            cases: 256,
            failure_persistence: None,
            ..Config::default()
        };
        let mut runner = TestRunner::new(config.clone());
        runner
            .run(&proptest::collection::vec(any::<u8>(), 0..4096), |b| {
                check_bytes(&b);
                Ok(())
            })
            .unwrap();
        let mut runner = TestRunner::new(config);
        runner
            .run(&structured_log(), |(csv, b)| {
                read_and_segment(if csv { "log.csv" } else { "log.jsonl" }, &b);
                Ok(())
            })
            .unwrap();
        rounds += 1;
        cases += 512;
    }
    println!("fuzz: {cases} cases in {rounds} rounds over {seconds} s, no failure");
}

/// The inputs that poisoned a store or lost lines before: each is now one
/// bad line, and the good lines around it are read.
#[test]
fn seeds_that_crashed_before() {
    let good = r#"{"username": "a", "game": "g", "timestamp_utc": "2015-05-03 16:29:00", "ip": "1.2.3.4"}"#;
    for bad in [
        r#"{"username": "b", "game": "g", "timestamp": 1e300, "ip": "1"}"#,
        r#"{"username": "b", "game": "g", "timestamp": 9223372036854775807, "ip": "1"}"#,
        r#"{"username": "b", "game": "g", "timestamp": -9223372036854775808, "ip": "1"}"#,
        r#"{"username": "b", "game": "g", "timestamp_utc": "9999-12-31 23:59:59", "ip": "1"}"#,
        r#"{"username": "", "game": "g", "timestamp_utc": "2015-05-03 16:29:00", "ip": "1"}"#,
    ] {
        let log = format!("{good}\n{bad}\n{good}\n");
        assert_eq!(
            read_and_segment("s.jsonl", log.as_bytes()),
            (2, 0, 1),
            "{bad}"
        );
    }
    // A stray quote in CSV is one bad line, not the rest of the file.
    let csv =
        "username,game,timestamp_utc,ip\na,g,2015-05-03 16:29:00,10.0.0.1\nb\",g,2015-05-03 16:29:00,10.0.0.1\n"
            .to_owned()
            + &"c,g,2015-05-03 16:29:00,10.0.0.1\n".repeat(90);
    assert_eq!(read_and_segment("s.csv", csv.as_bytes()), (91, 0, 1));
    // One line of invalid UTF-8 loses no line after it.
    let mut bytes = format!("{good}\n").into_bytes();
    bytes.extend_from_slice(b"{\"username\": \"\xff\xfe\"}\n");
    for _ in 0..90 {
        bytes.extend_from_slice(format!("{good}\n").as_bytes());
    }
    assert_eq!(read_and_segment("s.jsonl", &bytes), (91, 0, 1));
    // An endless line is one bad line, read in bounded memory.
    let mut long = vec![b'x'; 10 << 20];
    long.push(b'\n');
    long.extend_from_slice(format!("{good}\n").as_bytes());
    assert_eq!(read_and_segment("s.jsonl", &long), (1, 0, 1));
}
