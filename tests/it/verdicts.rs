//! Verdicts end to end, on SQLite and PostgreSQL: a "household" verdict on a
//! flagged pair moves it to the known relationships of `detect report` (text
//! and JSON) and of the daemon's reports; the daemon alerts a webhook (a
//! tiny receiver on 127.0.0.1 started here) once for each new flag without a
//! verdict, never for the known pair, never twice, and never with an IP.

use crate::common::*;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// A webhook receiver on 127.0.0.1: answers 500 to the first `fail_first`
/// requests, 200 to the rest, and keeps every body it got.
struct Receiver {
    url: String,
    bodies: Arc<Mutex<Vec<(u16, String)>>>,
}

impl Receiver {
    fn start(fail_first: usize) -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let url = format!(
            "http://{}/hook/SECRET-TOKEN",
            listener.local_addr().unwrap()
        );
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let seen = bodies.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { break };
                let mut reader = BufReader::new(stream);
                let mut length = 0usize;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        break;
                    }
                    let lower = line.to_ascii_lowercase();
                    if let Some(v) = lower.strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap_or(0);
                    }
                    if line == "\r\n" {
                        break;
                    }
                }
                let mut body = vec![0; length];
                reader.read_exact(&mut body).ok();
                let mut seen = seen.lock().unwrap();
                let status = if seen.len() < fail_first { 500 } else { 200 };
                seen.push((status, String::from_utf8_lossy(&body).into_owned()));
                drop(seen);
                let reason = if status == 200 {
                    "OK"
                } else {
                    "Internal Server Error"
                };
                let mut stream = reader.into_inner();
                write!(
                    stream,
                    "HTTP/1.1 {status} {reason}\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok"
                )
                .ok();
            }
        });
        Receiver { url, bodies }
    }

    /// The bodies answered with 200.
    fn delivered(&self) -> Vec<Value> {
        self.bodies
            .lock()
            .unwrap()
            .iter()
            .filter(|(s, _)| *s == 200)
            .map(|(_, b)| serde_json::from_str(b).expect("a JSON body"))
            .collect()
    }

    fn requests(&self) -> usize {
        self.bodies.lock().unwrap().len()
    }
}

/// The golden log split in two: without u014 and u019, and their moves.
fn split_log() -> (Vec<String>, Vec<String>, Vec<String>) {
    let text = std::fs::read_to_string(golden_dir().join("random/01/input.jsonl")).unwrap();
    let (mut first, mut second, mut ips) = (Vec::new(), Vec::new(), Vec::new());
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if let Some(ip) = v["ip"].as_str() {
            ips.push(ip.to_owned());
        }
        match v["username"].as_str() {
            Some("u014" | "u019") => second.push(line.to_owned()),
            _ => first.push(line.to_owned()),
        }
    }
    (first, second, ips)
}

fn write_lines(path: &Path, lines: &[String]) {
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
}

fn config(dir: &Path, logs: &Path, receiver: &Receiver, retries: u32) -> PathBuf {
    let path = dir.join("detect.toml");
    std::fs::write(
        &path,
        format!(
            "seasons = [1]\nreport_dir = {:?}\npublic_url = \"https://mods.example/detect/\"\n\
             [[source]]\ndirectory = {:?}\n[[alert]]\nurl = {:?}\nretries = {retries}\n",
            dir.join("reports").display().to_string(),
            logs.display().to_string(),
            receiver.url
        ),
    )
    .unwrap();
    path
}

fn once(db: &TestDb, config: &Path) -> std::process::Output {
    run_in(
        db.dir.path(),
        &db.url,
        &["daemon", "--config", config.to_str().unwrap(), "--once"],
        None,
    )
}

fn once_ok(db: &TestDb, config: &Path) -> String {
    let out = once(db, config);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "daemon --once failed:\n{stderr}");
    stderr
}

fn pair_names(v: &Value, key: &str) -> Vec<(String, String)> {
    v[key]
        .as_array()
        .unwrap_or_else(|| panic!("{key} in {v}"))
        .iter()
        .map(|p| {
            (
                p["account_a"].as_str().unwrap().to_owned(),
                p["account_b"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn accounts(alert: &Value) -> Vec<String> {
    serde_json::from_value(alert["detect"]["accounts"].clone()).unwrap()
}

/// `detect report` lists u011/u018 under known relationships, not among
/// flags, in text and in JSON.
fn known_not_flagged_in_reports(db: &TestDb) {
    let text = db.ok(&["report", "--season", "1"]);
    let (flags, known) = text
        .split_once("Known relationships")
        .unwrap_or_else(|| panic!("no known relationships section:\n{text}"));
    assert!(!flags.contains("u011"), "{text}");
    assert!(
        known.contains("u011  u018") && known.contains("household"),
        "{text}"
    );
    assert!(known.contains("siblings, same flat"), "{text}");
    let json: Value =
        serde_json::from_str(&db.ok(&["report", "--season", "1", "--format", "json"])).unwrap();
    assert!(pair_names(&json, "pairs").is_empty(), "{json}");
    assert_eq!(
        pair_names(&json, "known_relationships"),
        [("u011".to_owned(), "u018".to_owned())]
    );
    assert_eq!(
        json["known_relationships"][0]["verdict"]["kind"],
        "household"
    );
    assert_eq!(json["cliques"], Value::Array(vec![]));
}

fn household_verdict_and_alerts(backend: Backend) {
    let db = TestDb::new(backend);
    let dir = db.dir.path();
    let (first, second, ips) = split_log();
    let logs = dir.join("logs");
    std::fs::create_dir(&logs).unwrap();
    write_lines(&logs.join("a.jsonl"), &first);
    db.ok(&["season", "add", "1", "--games", "^4pLeague_"]);
    let receiver = Receiver::start(0);
    let config = config(dir, &logs, &receiver, 2);

    // Tick 1: u011/u018 is flagged, alerted once.
    let log = once_ok(&db, &config);
    assert!(
        !log.contains("SECRET-TOKEN"),
        "the webhook URL is a secret:\n{log}"
    );
    let got = receiver.delivered();
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(accounts(&got[0]), ["u011", "u018"]);
    assert_eq!(
        got[0]["detect"]["url"],
        "https://mods.example/detect/pair/u011/u018"
    );

    // A moderator decides: household.
    let out = db.ok(&[
        "verdict",
        "set",
        "u018",
        "u011",
        "--as",
        "household",
        "--by",
        "ann",
        "--note",
        "siblings, same flat",
    ]);
    assert!(out.contains("different people: household"), "{out}");

    known_not_flagged_in_reports(&db);

    // Tick 2: a new pair appears; only it is alerted.
    write_lines(&logs.join("b.jsonl"), &second);
    once_ok(&db, &config);
    let got = receiver.delivered();
    assert_eq!(got.len(), 2, "exactly one more webhook: {got:?}");
    assert_eq!(accounts(&got[1]), ["u014", "u019"]);
    let text = got[1]["text"].as_str().unwrap();
    assert!(text.contains("newly flagged pair u014 and u019"), "{text}");
    assert!(
        text.contains("https://mods.example/detect/pair/u014/u019"),
        "{text}"
    );
    for body in &got {
        let s = body.to_string();
        for ip in &ips {
            assert!(
                !s.contains(ip.as_str()),
                "an alert carries the IP {ip}: {s}"
            );
        }
    }
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("reports/season-1.json")).unwrap())
            .unwrap();
    assert_eq!(
        pair_names(&report, "known_relationships"),
        [("u011".to_owned(), "u018".to_owned())]
    );
    assert!(pair_names(&report, "pairs")
        .iter()
        .all(|(a, b)| a != "u011" && b != "u011"));

    // Tick 3: nothing new, nothing sent.
    once_ok(&db, &config);
    assert_eq!(receiver.requests(), 2);
}

#[test]
fn household_verdict_and_alerts_sqlite() {
    household_verdict_and_alerts(Backend::Sqlite);
}

#[test]
fn household_verdict_and_alerts_postgres() {
    household_verdict_and_alerts(Backend::Postgres);
}

/// A webhook that fails is retried within the tick; one that keeps failing
/// makes the tick fail, records nothing and is tried again next tick.
#[test]
fn failed_alerts_are_retried_and_sent_once() {
    let db = TestDb::new(Backend::Sqlite);
    let dir = db.dir.path();
    let (first, _, _) = split_log();
    let logs = dir.join("logs");
    std::fs::create_dir(&logs).unwrap();
    write_lines(&logs.join("a.jsonl"), &first);
    db.ok(&["season", "add", "1", "--games", "^4pLeague_"]);

    // Fails three times: with one retry the first tick gives up.
    let receiver = Receiver::start(3);
    let config = config(dir, &logs, &receiver, 1);
    let out = once(&db, &config);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a lost alert fails --once");
    assert!(stderr.contains("500"), "{stderr}");
    assert!(!stderr.contains("SECRET-TOKEN"), "{stderr}");
    assert_eq!(receiver.requests(), 2);
    assert!(receiver.delivered().is_empty());
    // Next tick: the third attempt fails, the retry gets through.
    once_ok(&db, &config);
    assert_eq!(receiver.requests(), 4);
    assert_eq!(receiver.delivered().len(), 1);
    once_ok(&db, &config);
    assert_eq!(receiver.requests(), 4, "never sent twice");
}

/// The HTML report escapes the verdict's note and author; the CSV's rows
/// carry each pair's status and verdict.
fn reports_show_verdicts(db: &TestDb) {
    let html = db.ok(&["report", "--season", "1", "--format", "html"]);
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot; ]]&gt;"));
    assert!(!html.contains("<script>") && !html.contains("<b>mod"));
    assert!(html.contains("id=\"known-relationships\""));
    let csv = db.ok(&["report", "--season", "1", "--format", "csv"]);
    let mut rows = csv::Reader::from_reader(csv.as_bytes());
    let header = rows.headers().unwrap().clone();
    let col = |n: &str| header.iter().position(|h| h == n).unwrap();
    let (ua, st, vd) = (col("account_a"), col("status"), col("verdict"));
    let got: Vec<(String, String, String)> = rows
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[ua].to_owned(), r[st].to_owned(), r[vd].to_owned())
        })
        .collect();
    assert!(
        got.contains(&("u011".into(), "known".into(), "cleared".into())),
        "{got:?}"
    );
    assert!(
        got.contains(&("u014".into(), "flag".into(), "same-person".into())),
        "{got:?}"
    );
}

/// Names are shown as text in every report format; CSV rows carry the
/// verdict; `detect audit` lists the verdict with who set it.
#[test]
fn verdict_list_audit_and_report_formats() {
    let db = TestDb::new(Backend::Sqlite);
    let log = golden_dir().join("random/01/input.jsonl");
    db.ok(&["ingest", log.to_str().unwrap()]);
    db.ok(&["season", "add", "1", "--games", "^4pLeague_"]);
    db.ok(&["scan", "--season", "1"]);
    let note = "<script>alert(1)</script> & \"quotes\" ]]> \u{1b}[31m";
    db.ok(&[
        "verdict",
        "set",
        "u011",
        "u018",
        "--as",
        "cleared",
        "--by",
        "<b>mod</b>",
        "--note",
        note,
    ]);
    db.ok(&[
        "verdict",
        "set",
        "u014",
        "u019",
        "u011",
        "--as",
        "same-person",
        "--by",
        "bo",
    ]);
    let list = db.ok(&["verdict", "list", "--account", "u018"]);
    assert!(
        list.contains("cleared") && list.contains("<script>"),
        "{list}"
    );
    assert!(
        !list.contains('\u{1b}'),
        "no escape sequence reaches the terminal"
    );
    assert!(!list.contains("same person"), "{list}");
    let all: Value =
        serde_json::from_str(&db.ok(&["verdict", "list", "--format", "json"])).unwrap();
    assert_eq!(
        all[0]["accounts"],
        serde_json::json!(["u011", "u014", "u019"])
    );
    assert_eq!(all[1]["note"], note);

    reports_show_verdicts(&db);

    let audit = db.ok(&["audit", "--by", "bo"]);
    assert_eq!(audit.lines().count(), 1, "{audit}");
    assert!(
        audit.contains("verdict") && audit.contains("same-person u011 u014 u019"),
        "{audit}"
    );
    assert_eq!(
        db.ok(&["audit", "--since", "2000-01-01"]).lines().count(),
        2
    );
    assert!(db
        .ok(&["audit", "--since", "2999-01-01"])
        .contains("No audit entries"));
    let bad = db.run(&["audit", "--since", "yesterday"]);
    assert!(!bad.status.success());
}

/// `verdict set` naming an account without a move exits 1 with one
/// sentence and stores nothing; `--unseen` records it, marked; a verdict
/// `--supersedes` it with a note, and `verdict list` shows both rows.
#[test]
fn verdict_on_an_unseen_account_is_refused_and_a_mistake_superseded() {
    let db = TestDb::new(Backend::Sqlite);
    let log = golden_dir().join("random/01/input.jsonl");
    db.ok(&["ingest", log.to_str().unwrap()]);
    let typo = [
        "verdict",
        "set",
        "u017",
        "u03",
        "--as",
        "same-person",
        "--by",
        "ann",
    ];
    let out = db.run(&typo);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("u03 has no stored move") && err.contains("--unseen"),
        "{err}"
    );
    assert!(db.ok(&["verdict", "list"]).contains("No verdicts."));

    let set = db.ok(&[&typo[..], &["--unseen"]].concat());
    assert!(set.starts_with("verdict #1: same person"), "{set}");
    let no_why = db.run(&[
        "verdict",
        "set",
        "u017",
        "u03",
        "--as",
        "cleared",
        "--by",
        "bo",
        "--supersedes",
        "1",
    ]);
    assert_eq!(
        no_why.status.code(),
        Some(2),
        "--supersedes requires --note"
    );
    let fix = db.ok(&[
        "verdict",
        "set",
        "u03",
        "u017",
        "--as",
        "cleared",
        "--by",
        "bo",
        "--supersedes",
        "1",
        "--note",
        "u03 was a typo",
    ]);
    assert!(
        fix.contains("verdict #2") && fix.contains("superseding #1"),
        "{fix}"
    );
    let list = db.ok(&["verdict", "list"]);
    let lines: Vec<&str> = list.lines().filter(|l| l.starts_with('#')).collect();
    assert_eq!(lines.len(), 2, "{list}");
    assert!(
        lines[0].starts_with("#2") && lines[0].contains("supersedes #1"),
        "{list}"
    );
    assert!(
        lines[1].starts_with("#1") && lines[1].contains("SUPERSEDED by #2"),
        "{list}"
    );
    assert!(lines[1].contains("--unseen"), "{list}");
    let json: Value =
        serde_json::from_str(&db.ok(&["verdict", "list", "--format", "json"])).unwrap();
    assert_eq!(json[0]["supersedes"], 1);
    assert_eq!(json[1]["unseen"], true);
}
