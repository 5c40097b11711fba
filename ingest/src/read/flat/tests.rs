use super::super::JsonMove;
use super::flat_move;
use proptest::prelude::*;

/// serde_json's reading of a line, the definition the flat path must meet.
fn by_serde(line: &str) -> Result<JsonMove<'_>, String> {
    serde_json::from_str(line).map_err(|e| e.to_string())
}

/// Keys: the record's, one spelled with an escape, others ignored.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("username"),
        Just("game"),
        Just("ip"),
        Just("timestamp_utc"),
        Just("timestamp"),
        Just("user\\u006eame"),
        Just("extra"),
        Just(""),
    ]
    .prop_map(|k| format!("\"{k}\""))
}

/// Values as written: plain and escaped strings, raw bytes JSON refuses
/// inside a string, numbers of every form, literals and nested values.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-zA-Z0-9_.: -]{0,12}".prop_map(|s| format!("\"{s}\"")),
        2 => "[a-z\"\\\\\u{0}\u{1f}\u{7f}é日 ]{0,6}".prop_map(|s| format!("\"{s}\"")),
        1 => any::<String>().prop_map(|s| serde_json::to_string(&s).unwrap()),
        4 => "-?[0-9]{1,20}(\\.[0-9]{1,3})?([eE][+-]?[0-9]{1,3})?",
        2 => "0[0-9]{0,3}",
        1 => Just("null".to_owned()),
        1 => Just("nul".to_owned()),
        1 => Just("true".to_owned()),
        1 => Just("[1, {\"a\": \"b\"}]".to_owned()),
        1 => Just("{}".to_owned()),
    ]
}

/// White space, JSON's and other.
fn gap() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        8 => Just(""),
        8 => Just(" "),
        1 => Just("\t"),
        1 => Just("\n "),
        1 => Just("\r"),
        1 => Just("\u{b}"),
        1 => Just("\u{a0}"),
    ]
}

/// A line: an object of entries, with gaps and now and then a stray byte.
fn line() -> impl Strategy<Value = String> {
    let colon = prop_oneof![8 => Just(":"), 1 => Just("="), 1 => Just("")];
    let entry = (key(), gap(), colon, gap(), value())
        .prop_map(|(k, a, c, b, v)| format!("{k}{a}{c}{b}{v}"));
    (
        prop::collection::vec((entry, gap()), 0..5),
        gap(),
        prop_oneof![8 => Just(""), 1 => Just(","), 1 => Just("}"), 1 => Just("x")],
    )
        .prop_map(|(entries, end, tail)| {
            let body: Vec<String> = entries
                .into_iter()
                .map(|(e, g)| format!("{e}{g}"))
                .collect();
            format!("{{{}{end}}}{tail}", body.join(","))
        })
}

/// Whatever the flat path reads, serde_json reads the same; and the lines
/// are made so that the flat path reads many of them, not none.
#[test]
fn the_flat_path_reads_what_serde_reads() {
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(8192));
    let taken = std::cell::Cell::new(0u32);
    runner
        .run(&line(), |line| {
            if let Some(flat) = flat_move(&line) {
                taken.set(taken.get() + 1);
                prop_assert_eq!(Ok(flat), by_serde(&line), "{:?}", line);
            }
            Ok(())
        })
        .unwrap();
    assert!(
        taken.get() > 8192 / 10,
        "the flat path read {} lines",
        taken.get()
    );
}

proptest! {
    /// And the lines sites write take it.
    #[test]
    fn plain_lines_take_the_flat_path(
        user in "[a-zA-Z0-9_]{1,20}",
        game in "[a-zA-Z0-9_]{0,30}",
        time in prop_oneof!["[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}", "[1-9][0-9]{9}"],
        ip in "[0-9]{1,3}(\\.[0-9]{1,3}){3}",
        compact in any::<bool>(),
    ) {
        let (sep, colon) = if compact { (",", ":") } else { (", ", ": ") };
        let time = if time.contains(' ') { format!("\"{time}\"") } else { time };
        let line = format!(
            "{{\"username\"{colon}\"{user}\"{sep}\"game\"{colon}\"{game}\"{sep}\"timestamp_utc\"{colon}{time}{sep}\"ip\"{colon}\"{ip}\"}}"
        );
        let flat = flat_move(&line);
        prop_assert!(flat.is_some(), "{}", line);
        prop_assert_eq!(Ok(flat.unwrap()), by_serde(&line));
    }
}

#[test]
fn the_shipped_sample_season_takes_the_flat_path() {
    let log = include_str!("../../../../examples/sample-season.jsonl");
    let mut lines = 0;
    for line in log.lines().filter(|l| !l.trim().is_empty()) {
        let line = line.trim();
        assert_eq!(flat_move(line).ok_or(line), Ok(by_serde(line).unwrap()));
        lines += 1;
    }
    assert!(lines > 1000, "{lines} lines");
}

#[test]
fn lines_it_leaves_to_serde() {
    for line in [
        r#"{"username": "a\u0062"}"#,
        r#"{"username": "a", "username": "b"}"#,
        r#"{"username": 5}"#,
        r#"{"timestamp": -5}"#,
        r#"{"timestamp": 05}"#,
        r#"{"timestamp": 1430670540.5}"#,
        r#"{"timestamp": 1e9}"#,
        r#"{"timestamp": 1234567890123456789}"#,
        r#"{"username": null, "username": "a"}"#,
        r#"{"extra": [1]}"#,
        r#"{"a": "b",}"#,
        r#"{"a": "b"} x"#,
        "{\"a\": \"b\u{1}\"}",
        "[1]",
    ] {
        assert!(flat_move(line).is_none(), "{line}");
    }
    // And what it takes, it reads in full.
    let flat = flat_move(r#"{"extra":"x","ip":"1.2.3.4","timestamp":0,"username":"é"}"#).unwrap();
    assert_eq!(
        Ok(flat),
        by_serde(r#"{"extra":"x","ip":"1.2.3.4","timestamp":0,"username":"é"}"#)
    );
}

proptest! {
    /// Eight bytes at a time finds the byte a byte-by-byte look finds.
    #[test]
    fn the_first_special_byte_is_found_a_word_at_a_time(
        bytes in prop::collection::vec(prop_oneof![
            4 => 0x20u8..0x7f,
            1 => Just(b'"'),
            1 => Just(b'\\'),
            1 => 0u8..0x20,
            2 => 0x80u8..=0xff,
        ], 0..40),
    ) {
        let want = bytes.iter().position(|&c| c == b'"' || c == b'\\' || c < 0x20);
        prop_assert_eq!(super::first_special(&bytes), want);
    }
}
