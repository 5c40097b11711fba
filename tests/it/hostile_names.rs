//! Hostile account names through every output a person reads: the CSV
//! report (no cell starts a formula), the text report, `explain` and the
//! daemon's log (no raw control character; a newline in a name cannot start
//! a line of its own).

use crate::common::*;
use std::process::Stdio;

/// Names that are formulas to a spreadsheet, or that hold control
/// characters and bidirectional overrides.
const HOSTILE: &[&str] = &[
    "=HYPERLINK(\"http://x\",\"y\")",
    "+1+1",
    "-2-2",
    "@SUM(A1)",
    "\tTAB",
    "\rCR",
    "evil\nFORGED log line",
    "\u{1b}[2J\u{1b}[31mred",
    "bell\u{7}",
    "\u{202e}desrever",
];

/// Every hostile account moves in every bucket of a day from one IP: each
/// pair is flagged (similarity 1) and they form one clique.
fn log() -> String {
    let mut out = String::new();
    for bucket in 0..12 {
        for (k, name) in HOSTILE.iter().enumerate() {
            let t = 1_430_640_000 + bucket * 1800 + k as i64 * 60;
            out.push_str(&format!(
                "{{\"username\": {}, \"game\": \"4pLeague_S1_G{k}\", \"timestamp\": {t}, \"ip\": \"10.1.1.1\"}}\n",
                serde_json::to_string(name).unwrap()
            ));
        }
    }
    out
}

/// No control character but the line end, and no line that starts with
/// what followed a newline in a name.
fn assert_no_raw_controls(what: &str, text: &str) {
    for (i, c) in text.char_indices() {
        assert!(
            c == '\n' || !c.is_control(),
            "{what}: raw control character {c:?} at byte {i}:\n{text}"
        );
        assert!(
            !('\u{202a}'..='\u{202e}').contains(&c),
            "{what}: raw bidirectional override at byte {i}"
        );
    }
    assert!(
        !text.lines().any(|l| l.trim_start().starts_with("FORGED")),
        "{what}: a name's newline started a line:\n{text}"
    );
}

fn ok(out: std::process::Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn csv_text_and_explain_neutralise_hostile_names() {
    let db = TestDb::new(Backend::Sqlite);
    let path = db.dir.path().join("hostile.jsonl");
    std::fs::write(&path, log()).unwrap();
    db.ok(&["ingest", path.to_str().unwrap()]);

    let csv = ok(db.run(&["report", "--season", "1", "--format", "csv"]));
    let mut rows = csv::Reader::from_reader(csv.as_bytes());
    let status = rows.headers().unwrap().iter().position(|h| h == "status");
    let status = status.expect("the CSV report has a status column");
    let mut cells = 0;
    for row in rows.records() {
        let row = row.unwrap();
        // The status is found by the names as they are, not as the CSV
        // neutralises them.
        assert_eq!(&row[status], "flag", "{row:?}");
        for cell in [&row[1], &row[2]] {
            cells += 1;
            assert!(
                !cell.starts_with(['=', '+', '-', '@', '\t', '\r']),
                "a cell starts a formula: {cell:?}"
            );
        }
    }
    let n = HOSTILE.len();
    assert_eq!(cells, 2 * n * (n - 1), "every directed pair is flagged");
    assert_no_raw_controls("csv", &csv);
    assert!(csv.contains("'=HYPERLINK"), "{csv}");

    let text = ok(db.run(&["report", "--season", "1"]));
    assert_no_raw_controls("text report", &text);
    assert!(text.contains("evil\\nFORGED"), "{text}");
    assert!(text.contains("\\u{1b}[2J"), "{text}");

    let explain = ok(db.run(&[
        "explain",
        "--season",
        "1",
        "--show-ips",
        HOSTILE[6],
        HOSTILE[7],
    ]));
    assert_no_raw_controls("explain", &explain);
    assert!(explain.contains("FLAGGED"), "{explain}");

    // A name that is not in the store is named escaped in the error.
    let out = db.run(&["explain", "--season", "1", "no\none", HOSTILE[0]]);
    assert!(!out.status.success());
    assert_no_raw_controls("explain error", &String::from_utf8_lossy(&out.stderr));
}

#[test]
fn the_daemon_log_shows_hostile_names_escaped() {
    let db = TestDb::new(Backend::Sqlite);
    let dir = db.dir.path();
    let logs = dir.join("logs");
    std::fs::create_dir(&logs).unwrap();
    std::fs::write(logs.join("hostile.jsonl"), log()).unwrap();
    let config = dir.join("detect.toml");
    std::fs::write(
        &config,
        format!(
            "report_dir = {:?}\nseasons = \"current\"\n[schedule]\nscan = \"0 0 * * * *\"\n\
             [[source]]\ndirectory = {:?}\n",
            dir.join("reports").to_str().unwrap(),
            logs.to_str().unwrap()
        ),
    )
    .unwrap();
    let out = output_within(
        std::process::Command::new(BIN)
            .current_dir(dir)
            .args(["-v", "--db", &db.url, "daemon", "--config"])
            .arg(&config)
            .arg("--once")
            .env_remove("RUST_LOG")
            .env_remove("DETECT_DATABASE_URL")
            .stdin(Stdio::null()),
    );
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{log}");
    assert!(log.contains("newly flagged"), "{log}");
    assert!(log.contains("evil\\nFORGED"), "{log}");
    assert_no_raw_controls("daemon log", &log);
}
