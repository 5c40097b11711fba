//! Command-line conventions: empty seasons never look clean, one IP
//! pseudonym per address across explain, timeline and report, a closed
//! standard output ends every printing command quietly, no ANSI codes off a
//! terminal, shell completions and the manual page, exit statuses.

use crate::common::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/sample-season.jsonl")
}

/// A store holding the sample season (league season 1).
fn sample_db() -> TestDb {
    let db = TestDb::new(Backend::Sqlite);
    db.ok(&["ingest", sample().to_str().unwrap()]);
    db
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn an_empty_season_warns_and_its_report_fails_with_one_sentence() {
    let db = sample_db();
    let out = db.run(&["season", "add", "7", "--games", "^4pLeague_S7_"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("matches 0 stored games and 0 accounts"),
        "{text}"
    );
    let err = stderr(&out);
    assert!(
        err.starts_with("warning: season 7 matches no stored move"),
        "{err}"
    );
    assert!(err.contains("4pLeague_S1_"), "names stored games: {err}");

    let out = db.run(&["report", "--season", "7"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("error: season 7 has no participants"),
        "{err}"
    );

    // The season that matches says so, without a warning.
    let out = db.run(&["season", "add", "1"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("matches 162 stored games and 39 accounts"),
        "{text}"
    );
    assert!(stderr(&out).is_empty());
}

/// `IP-n` -> address, from the same command with and without --show-ips
/// (the lines correspond one to one).
fn explain_names(db: &TestDb, a: &str, b: &str) -> BTreeMap<String, String> {
    let pseudo = db.ok(&["explain", "--season", "1", a, b]);
    let raw = db.ok(&["explain", "--season", "1", a, b, "--show-ips"]);
    let mut map = BTreeMap::new();
    for (p, r) in pseudo.lines().zip(raw.lines()) {
        let (Some(ps), Some(rs)) = (p.rfind("same IP ("), r.rfind("same IP (")) else {
            continue;
        };
        let inner = |s: &str, at: usize| {
            let s = &s[at + "same IP (".len()..];
            s[..s.find(')').unwrap()].to_owned()
        };
        for (x, y) in inner(p, ps).split(", ").zip(inner(r, rs).split(", ")) {
            assert!(x.starts_with("IP-"), "{x}");
            if let Some(old) = map.insert(x.to_owned(), y.to_owned()) {
                assert_eq!(old, y, "{x} names two addresses");
            }
        }
    }
    assert!(!map.is_empty(), "{pseudo}");
    map
}

/// `data-ip` -> column label of a timeline drawn with raw addresses.
fn timeline_names(svg: &str) -> BTreeMap<String, String> {
    let doc = roxmltree::Document::parse(svg).expect("SVG");
    let mut map = BTreeMap::new();
    for g in doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("ip-column"))
    {
        let key = g.attribute("data-ip").unwrap();
        if key == "other" {
            continue;
        }
        let label = g
            .children()
            .find(|c| c.attribute("class") == Some("ip-label"))
            .and_then(|l| l.text())
            .unwrap()
            .trim()
            .to_owned();
        map.insert(key.to_owned(), label);
    }
    map
}

#[test]
fn an_address_has_one_pseudonym_in_explain_timeline_and_report() {
    let db = sample_db();
    let (a, b) = ("u017", "u034");
    let from_explain = explain_names(&db, a, b);
    let svg = db.ok(&["timeline", "--season", "1", a, b, "--show-ips"]);
    let from_timeline = timeline_names(&svg);
    for (ip, addr) in &from_explain {
        if let Some(t) = from_timeline.get(ip) {
            assert_eq!(t, addr, "{ip}: explain and timeline disagree");
        }
    }
    let shared = from_explain
        .keys()
        .filter(|k| from_timeline.contains_key(*k))
        .count();
    assert!(shared > 0, "{from_explain:?} {from_timeline:?}");

    // The report: its evidence is explain's text, and its clique timelines
    // use the same names for the same addresses.
    let dir = db.dir.path().join("report");
    db.ok(&[
        "report",
        "--season",
        "1",
        "--out",
        dir.to_str().unwrap(),
        "--show-ips",
    ]);
    let svg = std::fs::read_to_string(dir.join("clique-1.svg")).unwrap();
    let from_report = timeline_names(&svg);
    for (ip, addr) in &from_explain {
        if let Some(r) = from_report.get(ip) {
            assert_eq!(r, addr, "{ip}: explain and report disagree");
        }
    }
    let dir = db.dir.path().join("report-pseudo");
    db.ok(&["report", "--season", "1", "--out", dir.to_str().unwrap()]);
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    let explain = db.ok(&["explain", "--season", "1", a, b]);
    let first_bucket = explain
        .lines()
        .find(|l| l.contains("same IP (IP-"))
        .unwrap()
        .trim();
    assert!(html.contains(first_bucket), "{first_bucket}");
    // And the pseudonyms do not move when another report is drawn.
    assert_eq!(explain_names(&db, a, b), from_explain);
}

/// Runs `detect ARGS | CONSUMER` in bash; returns detect's status and
/// standard error.
fn piped(db: &TestDb, args: &[&str], consumer: &str) -> (i32, String) {
    let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
    let script = format!(
        "'{}' --db '{}' {} 2>\"$ERR\" | {consumer}; exit ${{PIPESTATUS[0]}}",
        BIN,
        db.url,
        quoted.join(" ")
    );
    let err = db.dir.path().join("stderr.txt");
    let out = Command::new("bash")
        .arg("-c")
        .arg(&script)
        .env("ERR", &err)
        .current_dir(db.dir.path())
        .output()
        .expect("bash");
    (
        out.status.code().unwrap_or(-1),
        std::fs::read_to_string(&err).unwrap_or_default(),
    )
}

#[test]
fn a_closed_pipe_ends_every_printing_command_quietly() {
    let db = sample_db();
    let world = db.dir.path().join("world");
    let world = world.to_str().unwrap();
    let log = sample();
    let log = log.to_str().unwrap();
    let commands: Vec<Vec<&str>> = vec![
        vec!["--help"],
        vec!["report", "--help"],
        vec!["season", "list"],
        vec!["season", "add", "1"],
        vec!["buckets", "--season", "1"],
        vec!["scan", "--season", "1"],
        vec!["report", "--season", "1"],
        vec!["report", "--season", "1", "--format", "json", "--all"],
        vec!["report", "--season", "1", "--format", "csv", "--all"],
        vec!["report", "--season", "1", "--format", "reference-csv"],
        vec!["report", "--season", "1", "--format", "html"],
        vec!["report", "--input", log],
        vec!["explain", "--season", "1", "u017", "u034"],
        vec!["timeline", "--season", "1", "u017", "u034"],
        vec!["compare", "--season", "1", "--season", "1"],
        vec!["completions", "bash"],
        vec!["man"],
        vec![
            "simulate",
            "--accounts",
            "40",
            "--days",
            "3",
            "--cliques",
            "1",
            "--out",
            world,
        ],
        vec!["ingest", log],
    ];
    for args in &commands {
        for consumer in ["head -1 >/dev/null", "true"] {
            let (status, err) = piped(&db, args, consumer);
            assert_eq!(status, 0, "detect {args:?} | {consumer}: {err}");
            assert!(
                !err.contains("panicked"),
                "detect {args:?} | {consumer}: {err}"
            );
            assert!(
                !err.contains("Broken pipe"),
                "detect {args:?} | {consumer}: {err}"
            );
        }
    }
}

#[test]
fn no_ansi_codes_off_a_terminal_unless_asked() {
    let db = sample_db();
    let has_escape = |b: &[u8]| b.windows(2).any(|w| w == b"\x1b[");
    for args in [
        vec!["-v", "report", "--season", "1"],
        vec!["-vv", "explain", "--season", "1", "u017", "u034"],
        vec!["--help"],
        vec!["report", "--nonsense"],
    ] {
        let out = db.run(&args);
        assert!(!has_escape(&out.stdout), "{args:?} stdout");
        assert!(!has_escape(&out.stderr), "{args:?} stderr");
        assert!(
            !out.stderr.is_empty() || !out.stdout.is_empty(),
            "{args:?} printed nothing"
        );
    }
    // The test can fail: asked for, colour is there.
    let out = db.run(&["--color", "always", "-v", "scan", "--season", "1"]);
    assert!(has_escape(&out.stderr), "{}", stderr(&out));
    // -q: results only.
    let out = db.run(&["-q", "-v", "report", "--season", "1", "--out", "r"]);
    assert!(out.status.success());
    assert!(out.stderr.is_empty(), "{}", stderr(&out));
}

#[test]
fn completions_for_bash_zsh_and_fish_and_a_manual_page() {
    let db = TestDb::new(Backend::Sqlite);
    for shell in ["bash", "zsh", "fish", "FISH"] {
        let text = db.ok(&["completions", shell]);
        for word in ["detect", "explain", "timeline", "--season", "reference-csv"] {
            assert!(text.contains(word), "{shell}: no {word}");
        }
    }
    let man = db.ok(&["man"]);
    assert!(
        man.starts_with(".ie") || man.contains(".TH detect"),
        "{}",
        &man[..200]
    );
    assert!(man.contains("completions"));
    let dir = db.dir.path().join("man1");
    db.ok(&["man", "--out", dir.to_str().unwrap()]);
    assert!(dir.join("detect.1").is_file() && dir.join("detect-report.1").is_file());
}

#[test]
fn help_describes_every_argument_with_examples() {
    let db = TestDb::new(Backend::Sqlite);
    for cmd in [
        "ingest", "buckets", "scan", "report", "explain", "timeline", "compare", "simulate",
        "eval", "demo", "daemon",
    ] {
        let help = db.ok(&[cmd, "--help"]);
        assert!(help.contains("Example"), "{cmd}: no example");
        // An argument's description follows its name on the same line or,
        // when clap wraps, on the next line, further indented.
        let lines: Vec<&str> = help.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let t = line.trim_start();
            let value_list = t.starts_with("- ");
            if (t.starts_with('-') || t.starts_with('<')) && !value_list && line.starts_with("  ") {
                let indent = line.len() - t.len();
                let next = lines.get(i + 1).copied().unwrap_or("");
                let next_indent = next.len() - next.trim_start().len();
                assert!(
                    t.trim_end().contains("  ")
                        || (!next.trim().is_empty() && next_indent > indent),
                    "{cmd}: argument without a description: {line:?}"
                );
            }
        }
    }
}

#[test]
fn exit_code_three_on_flags_only_when_asked() {
    let db = sample_db();
    assert_eq!(db.run(&["report", "--season", "1"]).status.code(), Some(0));
    let out = db.run(&["report", "--season", "1", "--exit-code"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(!out.stdout.is_empty() && out.stderr.is_empty());
    let out = db.run(&[
        "report",
        "--season",
        "1",
        "--exit-code",
        "--threshold",
        "0.9999",
    ]);
    assert_eq!(out.status.code(), Some(0));
    // Value names are case-insensitive.
    let json = db.ok(&["report", "--season", "1", "--format", "JSON"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["summary"]["flagged_pairs"], 7);
}

/// CSV columns are the JSON field names, with the same values.
#[test]
fn csv_and_json_agree() {
    let db = sample_db();
    let text = db.ok(&["report", "--season", "1", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let csv = db.ok(&["report", "--season", "1", "--format", "csv"]);
    let mut r = csv::Reader::from_reader(csv.as_bytes());
    let header = r.headers().unwrap().clone();
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    let pairs = json["pairs"].as_array().unwrap();
    assert_eq!(rows.len(), pairs.len());
    for (row, pair) in rows.iter().zip(pairs) {
        for (name, cell) in header.iter().zip(row.iter()) {
            // The triage columns: JSON gives them at report level
            // (`flag_verdicts`, `known_relationships`).
            if name == "status" || name == "verdict" {
                continue;
            }
            let mut v = pair;
            for part in name.split('.') {
                v = &v[part];
            }
            match v {
                serde_json::Value::String(s) => assert_eq!(cell, s, "{name}"),
                serde_json::Value::Null => assert_eq!(cell, "", "{name}"),
                serde_json::Value::Number(n) if n.is_f64() => {
                    // Digit for digit as the JSON text has it (however it
                    // is spaced).
                    let key = name.rsplit('.').next().unwrap_or(name);
                    assert!(
                        compact.contains(&format!("\"{key}\":{cell}")),
                        "{name} {cell} ({n})"
                    );
                }
                other => assert_eq!(cell, other.to_string(), "{name}"),
            }
        }
    }
}

/// `-q` prints only results: ingest says nothing when all went well, and
/// the text report leaves out its guide and footnotes, not its figures.
#[test]
fn quiet_ingest_and_report_print_results_only() {
    let db = TestDb::new(Backend::Sqlite);
    let out = db.run(&["-q", "ingest", sample().to_str().unwrap()]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    assert_eq!(stderr(&out), "");
    let loud = db.ok(&["report", "--season", "1"]);
    let quiet = db.ok(&["-q", "report", "--season", "1"]);
    assert!(loud.contains("How to read this") && loud.contains("* flagged direction"));
    assert!(
        !quiet.contains("How to read this") && !quiet.contains("* flagged direction"),
        "{quiet}"
    );
    for figure in ["flagged pairs", "Flagged pairs", "Cliques"] {
        assert!(quiet.contains(figure), "{figure}: {quiet}");
    }
}

/// Logs read into memory without `--season` are not titled "Season 0"
/// (the text report).
#[test]
fn a_report_of_logs_without_a_season_is_not_season_0() {
    let db = TestDb::new(Backend::Sqlite);
    let log = sample();
    let text = db.ok(&["report", "--input", log.to_str().unwrap()]);
    assert!(
        text.starts_with("Logs read into memory (games ^4pLeague_"),
        "{text}"
    );
    assert!(!text.contains("eason 0"), "{text}");
    let seventh = db.ok(&["report", "--input", log.to_str().unwrap(), "--season", "1"]);
    assert!(seventh.starts_with("Season 1 ("), "{seventh}");
}

/// Nor are the HTML and JSON reports of such logs: the page's title, its
/// pictures and the evidence of its pairs name no season 0, and `--season
/// 3` titles them Season 3.
#[test]
fn html_and_json_reports_of_logs_without_a_season_are_not_season_0() {
    let db = TestDb::new(Backend::Sqlite);
    let log = sample();
    let log = log.to_str().unwrap();
    let html = db.ok(&["report", "--input", log, "--format", "html"]);
    assert!(html.contains("<title>detect: Logs read into memory</title>"));
    assert!(
        html.contains("<pre class=\"evidence\">"),
        "no evidence drawn"
    );
    assert!(!html.to_lowercase().contains("season 0"));
    let json = db.ok(&["report", "--input", log, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["title"], "Logs read into memory");
    assert!(v["season"]["number"].is_null(), "{}", v["season"]);
    assert_eq!(v["season"]["games"], "^4pLeague_");
    assert!(!json.to_lowercase().contains("season 0"));
    let third = [
        "report",
        "--input",
        log,
        "--season",
        "3",
        "--games",
        "^4pLeague_",
    ];
    let html = db.ok(&[&third[..], &["--format", "html"]].concat());
    assert!(html.contains("<title>detect: Season 3</title>"));
    assert!(html.contains("Season 3, clique 1: ") && html.contains(", season 3 ("));
    let json = db.ok(&[&third[..], &["--format", "json"]].concat());
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["title"], "Season 3");
    assert_eq!(v["season"]["number"], 3);
}
