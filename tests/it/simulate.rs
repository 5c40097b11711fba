//! `detect simulate`, `detect eval` and `detect demo` end to end.

use crate::common::*;

#[test]
fn simulate_ingest_and_eval() {
    let db = TestDb::new(Backend::Sqlite);
    let world = db.dir.path().join("world");
    let args = [
        "simulate",
        "--seed",
        "3",
        "--accounts",
        "60",
        "--days",
        "6",
        "--cliques",
        "3",
        "--out",
    ];
    let mut args: Vec<&str> = args.to_vec();
    args.push(world.to_str().unwrap());
    let out = db.ok(&args);
    assert!(out.contains("3 multi-account people"), "{out}");
    let moves = world.join("moves.jsonl");
    let truth = world.join("truth.json");
    // Same seed, same bytes.
    let again = db.dir.path().join("again");
    args.pop();
    args.push(again.to_str().unwrap());
    db.ok(&args);
    assert_eq!(
        std::fs::read(&moves).unwrap(),
        std::fs::read(again.join("moves.jsonl")).unwrap()
    );

    db.ok(&["ingest", moves.to_str().unwrap()]);
    let json = db.ok(&[
        "eval",
        "--season",
        "1",
        "--truth",
        truth.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let e: serde_json::Value = serde_json::from_str(&json).expect("eval JSON");
    let und = &e["undirected"];
    let (tp, fp, fn_) = (
        und["tp"].as_u64().unwrap(),
        und["fp"].as_u64().unwrap(),
        und["fn"].as_u64().unwrap(),
    );
    // The figures agree with each other and with the scan's own report.
    assert_eq!(und["true_pairs"].as_u64().unwrap(), tp + fn_);
    if tp + fp > 0 {
        let precision = und["precision"].as_f64().unwrap();
        assert!((precision - tp as f64 / (tp + fp) as f64).abs() < 1e-12);
    }
    let report: serde_json::Value =
        serde_json::from_str(&db.ok(&["report", "--season", "1", "--format", "json"])).unwrap();
    assert_eq!(
        report["summary"]["flagged_pairs"].as_u64().unwrap(),
        tp + fp
    );
    let text = db.ok(&["eval", "--season", "1", "--truth", truth.to_str().unwrap()]);
    assert!(text.contains("undirected"), "{text}");

    let out = db.run(&["eval", "--season", "1", "--truth", moves.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a truth file"));
}

#[test]
fn demo_runs_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let demo = dir.path().join("demo");
    let out = run_default_store(dir.path(), &["demo", "--dir", demo.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    for part in [
        "participants",
        "Cliques",
        "evaluating against the simulator's ground truth",
        "ROC AUC",
        "Report:",
    ] {
        assert!(
            text.contains(part),
            "the demo does not print {part:?}:\n{text}"
        );
    }
    assert!(demo.join("report/index.html").is_file());
    assert!(demo.join("report/clique-1.svg").is_file());
    assert!(demo.join("detect.db").is_file());
    // Flagged pairs are mostly true: the evaluation's undirected precision.
    let header = text
        .lines()
        .find(|l| l.starts_with("pairs"))
        .expect("a header");
    let column = header
        .split_whitespace()
        .position(|c| c == "prec")
        .expect("prec");
    let line = text
        .lines()
        .find(|l| l.starts_with("undirected"))
        .expect("an undirected line");
    let precision: f64 = line
        .split_whitespace()
        .nth(column)
        .unwrap()
        .parse()
        .unwrap();
    assert!(precision > 0.5, "{line}");
}

/// Improved mode reads each move's second beside the segments, in the same
/// one read of the log: a report from standard input (which cannot be read
/// twice) is the report from the file, in time order or not.
#[test]
fn improved_reports_read_standard_input_once() {
    let db = TestDb::new(Backend::Sqlite);
    let world = db.dir.path().join("world");
    db.ok(&[
        "simulate",
        "--seed",
        "5",
        "--accounts",
        "80",
        "--days",
        "8",
        "--cliques",
        "4",
        "--out",
        world.to_str().unwrap(),
    ]);
    let log = std::fs::read_to_string(world.join("moves.jsonl")).unwrap();
    // The same moves out of time order: every second line first.
    let lines: Vec<&str> = log.lines().collect();
    let shuffled: String = lines
        .iter()
        .step_by(2)
        .chain(lines.iter().skip(1).step_by(2))
        .map(|l| format!("{l}\n"))
        .collect();
    let shuffled_path = db.dir.path().join("shuffled.jsonl");
    std::fs::write(&shuffled_path, &shuffled).unwrap();
    let report = [
        "report", "--season", "1", "--mode", "improved", "--format", "csv", "--all", "--input",
    ];
    let path = world.join("moves.jsonl");
    let from_file = db.ok(&[&report[..], &[path.to_str().unwrap()]].concat());
    assert!(from_file.lines().count() > 10, "{from_file}");
    let stdout = |out: std::process::Output| {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let args = [&report[..], &["-"]].concat();
    assert_eq!(stdout(db.run_stdin(&args, log.as_bytes())), from_file);
    assert_eq!(stdout(db.run_stdin(&args, shuffled.as_bytes())), from_file);
    let from_shuffled = db.ok(&[&report[..], &[shuffled_path.to_str().unwrap()]].concat());
    assert_eq!(from_shuffled, from_file);
}

/// A world that needs more address blocks than there are is refused in one
/// sentence (it used to search for a free block forever) and leaves no
/// empty log behind.
#[test]
fn a_world_too_large_for_the_address_space_is_refused() {
    let db = TestDb::new(Backend::Sqlite);
    let world = db.dir.path().join("world");
    let out = db.run(&[
        "simulate",
        "--accounts",
        "150000",
        "--out",
        world.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "a world of 150000 accounts over 28 days needs more than the 55296 address blocks"
        ) && !err.contains("cannot write"),
        "{err}"
    );
    assert!(!world.join("moves.jsonl").exists());
    assert!(!world.join("truth.json").exists());
}
