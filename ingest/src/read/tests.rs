use super::*;
use std::io::Write;

fn read_all(name: &str, content: &[u8]) -> Vec<Result<(u64, LogLine), ReadError>> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, content).unwrap();
    open_log(path.to_str().unwrap()).unwrap().collect()
}

fn mv(u: &str, g: &str, t: i64, ip: &str) -> LogLine {
    LogLine::Move(Move {
        username: u.into(),
        game: g.into(),
        timestamp: t,
        ip: ip.into(),
    })
}

#[test]
fn json_lines_with_every_time_format_and_skips() {
    let log = br#"{"username": "a", "game": "g", "timestamp_utc": "2015-05-03 16:29:00", "ip": "1.2.3.4", "extra": [1]}
{"username": "b", "timestamp": 1430670540, "ip": "10.0.0.2"}

{"username": null, "game": "g", "timestamp": "2015-05-03T18:29:00+02:00", "ip": "1"}
{"username": "c", "game": "g", "timestamp": "2015-05-03T16:29:00Z"}
{"ip": "1", "timestamp": "no time at all"}
"#;
    let lines: Vec<_> = read_all("log", log)
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(
        lines,
        vec![
            (1, mv("a", "g", 1_430_670_540, "1.2.3.4")),
            (2, mv("b", "", 1_430_670_540, "10.0.0.2")),
            (4, LogLine::Skipped),
            (5, LogLine::Skipped),
            (6, LogLine::Skipped),
        ]
    );
}

#[test]
fn odd_json_values_get_clear_errors() {
    let log = b"{\"username\": \"a\", \"timestamp\": 1430670540.7, \"ip\": \"10.0.0.1\"}\n[1, 2]\n{\"username\": \"a\", \"timestamp\": true, \"ip\": \"1\"}\n";
    let lines = read_all("odd.jsonl", log);
    assert_eq!(
        lines[0].clone().unwrap(),
        (1, mv("a", "", 1_430_670_540, "10.0.0.1"))
    );
    let e = lines[1].clone().unwrap_err();
    assert!(e.message.contains("must be one JSON object"), "{e}");
    let e = lines[2].clone().unwrap_err();
    assert!(e.message.contains("must be text or epoch seconds"), "{e}");
}

#[test]
fn bad_lines_name_the_file_and_line() {
    let log = b"{\"username\": \"a\", \"timestamp\": \"2015-05-03 16:29:00\", \"ip\": \"10.0.0.1\"}\n{oops\n{\"username\": \"a\", \"timestamp\": \"soon\", \"ip\": \"1\"}\n";
    let lines = read_all("moves.jsonl", log);
    assert!(lines[0].is_ok());
    let e = lines[1].clone().unwrap_err();
    assert_eq!(e.line, Some(2));
    assert!(
        e.to_string().contains("moves.jsonl, line 2: bad JSON"),
        "{e}"
    );
    let e = lines[2].clone().unwrap_err();
    assert!(
        e.to_string()
            .contains("line 3: cannot read the time \"soon\""),
        "{e}"
    );
}

#[test]
fn csv_with_header_and_quoting() {
    let log = b"ip,username,timestamp_utc,game\n1.2.3.4,\"a,b\",2015-05-03 16:29:00,g1\n,c,2015-05-03 16:29:00,g1\n5,d,bad,g\n";
    let lines = read_all("moves.csv", log);
    assert_eq!(
        lines[0].clone().unwrap(),
        (2, mv("a,b", "g1", 1_430_670_540, "1.2.3.4"))
    );
    // An empty cell is CSV's missing value, JSON's null: skipped.
    assert_eq!(lines[1].clone().unwrap(), (3, LogLine::Skipped));
    assert_eq!(lines[2].clone().unwrap_err().line, Some(4));
}

#[test]
fn csv_without_needed_column_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.csv");
    std::fs::write(&path, "user,time\nx,1\n").unwrap();
    let e = open_log(path.to_str().unwrap()).err().unwrap();
    assert!(e.message.contains("no `username` column"), "{e}");
}

#[test]
fn gzip_is_recognised_by_content() {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(b"{\"username\": \"a\", \"timestamp\": 1430670540, \"ip\": \"10.0.0.1\"}\n")
        .unwrap();
    let bytes = gz.finish().unwrap();
    let lines = read_all("moves.jsonl.gz", &bytes);
    assert_eq!(
        lines[0].clone().unwrap(),
        (1, mv("a", "", 1_430_670_540, "10.0.0.1"))
    );
    let lines = read_all("noext", &bytes);
    assert_eq!(lines.len(), 1);
}

#[test]
fn missing_file_is_one_clear_error() {
    let e = open_log("/nonexistent/moves.jsonl").err().unwrap();
    assert!(
        e.to_string()
            .starts_with("/nonexistent/moves.jsonl: cannot open"),
        "{e}"
    );
}

/// Issue 36, item 12: an address had as many spellings as a log gave it
/// (spaces kept, ports kept, IPv4-mapped IPv6 kept, so every mapped
/// address shared `::/64`); now each has one, in JSON and CSV alike.
#[test]
fn every_spelling_of_an_address_is_read_as_one() {
    let spellings = [
        " 198.51.100.7 ",
        "198.51.100.7:51234",
        "::ffff:198.51.100.7",
        "[::ffff:198.51.100.7]:443",
    ];
    let mut json = Vec::new();
    let mut csv = b"username,game,timestamp_utc,ip\n".to_vec();
    for ip in spellings {
        json.extend(
            format!("{{\"username\": \"a\", \"game\": \"g\", \"timestamp\": 1430670540, \"ip\": \"{ip}\"}}\n")
                .as_bytes(),
        );
        csv.extend(format!("a,g,2015-05-03 16:29:00,{ip}\n").as_bytes());
    }
    for (name, log) in [("spellings.jsonl", json), ("spellings.csv", csv)] {
        for line in read_all(name, &log) {
            let (_, line) = line.unwrap();
            assert_eq!(line, mv("a", "g", 1_430_670_540, "198.51.100.7"), "{name}");
        }
    }
    let v6 = read_all(
        "v6.jsonl",
        b"{\"username\": \"a\", \"game\": \"g\", \"timestamp\": 1430670540, \"ip\": \"[2001:DB8:0::1]:8080\"}\n",
    );
    assert_eq!(
        v6[0].clone().unwrap().1,
        mv("a", "g", 1_430_670_540, "2001:db8::1")
    );
}

/// The values the reference keeps as addresses stay (golden cases 10 and
/// 21); anything else that is no address is a bad line.
#[test]
fn what_is_no_address_is_a_bad_line_but_the_references_readings_stay() {
    let log = br#"{"username": "a", "game": "g", "timestamp": 1430670540, "ip": ""}
{"username": "a", "game": "g", "timestamp": 1430670540, "ip": "delay"}
{"username": "a", "game": "g", "timestamp": 1430670540, "ip": "unknown"}
"#;
    let lines = read_all("odd-ips.jsonl", log);
    assert_eq!(lines[0].clone().unwrap().1, mv("a", "g", 1_430_670_540, ""));
    assert_eq!(
        lines[1].clone().unwrap().1,
        mv("a", "g", 1_430_670_540, "delay")
    );
    let e = lines[2].clone().unwrap_err();
    assert_eq!(e.line, Some(3));
    assert!(e.message.contains("the ip is not an IP address"), "{e}");
}

/// A missing or null `game` is the game `""`, as the reference reads it
/// (golden case 20); README's Input rules say so.
#[test]
fn a_missing_or_null_game_is_the_game_named_empty() {
    let log = br#"{"username": "a", "timestamp": 1430670540, "ip": "10.0.0.1"}
{"username": "b", "game": null, "timestamp": 1430670540, "ip": "10.0.0.1"}
"#;
    let lines: Vec<_> = read_all("no-game.jsonl", log)
        .into_iter()
        .map(|l| l.unwrap().1)
        .collect();
    assert_eq!(
        lines,
        [
            mv("a", "", 1_430_670_540, "10.0.0.1"),
            mv("b", "", 1_430_670_540, "10.0.0.1")
        ]
    );
}

/// Issue 36, item 12: `1e300` was reported as 9223372036854775807.
#[test]
fn a_time_beyond_epoch_seconds_is_refused_as_written() {
    let lines = read_all(
        "huge.jsonl",
        b"{\"username\": \"a\", \"game\": \"g\", \"timestamp\": 1e300, \"ip\": \"10.0.0.1\"}\n",
    );
    let e = lines[0].clone().unwrap_err();
    assert!(e.message.starts_with("the time 1e300 lies outside"), "{e}");
    assert!(!e.message.contains("9223372036854775807"), "{e}");
}

/// Issue 36, item 12: a file name with a newline or an escape sequence was
/// printed raw.
#[test]
fn a_file_name_is_shown_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("evil\nname\u{1b}[31m.jsonl");
    std::fs::write(&path, b"not json\n").unwrap();
    let e = open_log(path.to_str().unwrap())
        .unwrap()
        .next()
        .unwrap()
        .unwrap_err();
    let shown = e.to_string();
    assert!(
        shown.contains("evil\\nname\\u{1b}[31m.jsonl, line 1:"),
        "{shown}"
    );
    assert!(
        !shown.contains('\n') && !shown.contains('\u{1b}'),
        "{shown}"
    );
}
