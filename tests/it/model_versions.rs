//! The store's model versions, end to end on SQLite and PostgreSQL: an
//! improved scan records the stored version it scored with (the shipped
//! model, an imported file, `--model-version N`), `detect model list`
//! counts them, a bad file is refused naming it and stores nothing, and a
//! model exported from one store imports into another unchanged.

use crate::common::*;
use scoring::improved::Model;

/// The shipped model under another name and with `intercept`, as a
/// site's file would be.
fn site_model(name: &str, intercept: f64) -> String {
    let mut m: serde_json::Value = serde_json::from_str(&Model::shipped().to_json()).unwrap();
    m["name"] = name.into();
    m["intercept"] = intercept.into();
    // Laid out unlike this build's files: an export writes these bytes.
    m.to_string()
}

/// Not the shipped model's intercept: the weights `explain` shows say
/// which model they are.
const SITE_INTERCEPT: f64 = -0.75;

/// The row of `detect model list` for version `v`.
fn listed(db: &TestDb, v: &str) -> String {
    let list = db.ok(&["model", "list"]);
    list.lines()
        .find(|l| l.split_whitespace().next() == Some(v))
        .unwrap_or_else(|| panic!("no version {v} in:\n{list}"))
        .to_owned()
}

fn fails(db: &TestDb, args: &[&str]) -> String {
    let out = db.run(args);
    assert_eq!(out.status.code(), Some(1), "{args:?} {out:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn a_scan_records_its_model_version(backend: Backend) {
    let db = TestDb::new(backend);
    let dir = db.dir.path();
    db.ok(&[
        "simulate",
        "--out",
        "w",
        "--seed",
        "5",
        "--accounts",
        "120",
        "--cliques",
        "8",
        "--days",
        "7",
    ]);
    db.ok(&["ingest", "w/moves.jsonl", "-q"]);
    assert!(db
        .ok(&["model", "list"])
        .contains("no model versions stored yet"));
    db.ok(&["scan", "--season", "1", "--mode", "improved"]);
    let shipped = listed(&db, "1");
    assert!(
        shipped.contains(Model::shipped().name()) && shipped.contains("shipped (a scan)"),
        "{shipped}"
    );
    assert_eq!(scans_of(&shipped), 1, "{shipped}");

    std::fs::write(
        dir.join("site.json"),
        site_model("site model", SITE_INTERCEPT),
    )
    .unwrap();
    let imported = db.ok(&["model", "import", "site.json"]);
    assert_eq!(imported.trim(), "stored as model version 2: site model");
    let again = db.ok(&["model", "import", "site.json"]);
    assert!(again.contains("already, as model version 2"), "{again}");

    // The daemon scores with a stored version too.
    let reports = dir.join("reports");
    let config = write_config(
        dir,
        &format!(
            "mode = \"improved\"\nmodel_version = 2\nseasons = [1]\nreport_dir = {}\n",
            toml_str(&reports)
        ),
    );
    daemon_once(&db, &config);
    let text = std::fs::read_to_string(reports.join("season-1.txt")).unwrap();
    assert!(
        text.contains("scan #2 of")
            && text.contains("\nmodel: site model, version 2 of the store\n"),
        "{text}"
    );

    // Improved mode with the stored version 2, as every command takes it.
    let with_v2 = |command: &str, more: &[&str]| -> Vec<String> {
        let head = [
            command,
            "--season",
            "1",
            "--mode",
            "improved",
            "--model-version",
            "2",
        ];
        head.iter().chain(more).map(|s| s.to_string()).collect()
    };
    let ok = |args: Vec<String>| db.ok(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let scanned = ok(with_v2("scan", &[]));
    assert!(scanned.contains("scan #3 stored"), "{scanned}");
    db.ok(&[
        "scan",
        "--season",
        "1",
        "--mode",
        "improved",
        "--model",
        "site.json",
    ]);
    let row = listed(&db, "2");
    assert!(
        row.contains("site model") && row.contains("imported from site.json (detect model import)"),
        "{row}"
    );
    assert!(
        scans_of(&row) == 3 && scans_of(&listed(&db, "1")) == 1,
        "{row}"
    );
    let text = ok(with_v2("report", &[]));
    assert!(
        text.contains("scan #4 of")
            && text.contains("\nmodel: site model, version 2 of the store\n"),
        "{text}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&ok(with_v2("report", &["--format", "json"]))).unwrap();
    assert_eq!(json["scan"]["model_version"], 2, "{}", json["scan"]);
    // The evidence of a pair is weighed by the scan's model, not the shipped one.
    let pair = json["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["evidence"]["signals"]["timing"].is_null())
        .expect("a flagged pair that shared an address");
    let (a, b) = (
        pair["account_a"].as_str().unwrap(),
        pair["account_b"].as_str().unwrap(),
    );
    let explained = ok(with_v2("explain", &[a, b]));
    assert!(
        explained.contains("probability (site model)")
            && explained.contains(&format!("from {SITE_INTERCEPT:+.2})")),
        "{explained}"
    );

    let e = fails(
        &db,
        &[
            "scan",
            "--season",
            "1",
            "--mode",
            "improved",
            "--model-version",
            "9",
        ],
    );
    assert!(e.contains("the store holds no model version 9"), "{e}");
    let e = fails(&db, &["scan", "--season", "1", "--model-version", "2"]);
    assert!(e.contains("--model-version is for improved mode"), "{e}");

    // A bad file is named and stores nothing.
    std::fs::write(dir.join("bad.json"), "{\"format\": 1,\n").unwrap();
    let before = db.ok(&["model", "list"]);
    let e = fails(&db, &["model", "import", "bad.json"]);
    assert!(e.contains("bad.json: "), "{e}");
    assert_eq!(db.ok(&["model", "list"]), before);

    // An export writes the imported bytes back.
    db.ok(&["model", "export", "2", "--out", "back.json"]);
    assert_eq!(
        std::fs::read(dir.join("back.json")).unwrap(),
        std::fs::read(dir.join("site.json")).unwrap()
    );
    let e = fails(&db, &["model", "export", "9", "--out", "none.json"]);
    assert!(e.contains("no model version 9"), "{e}");
    assert!(!dir.join("none.json").exists());
}

/// The scans column of a `detect model list` row.
fn scans_of(row: &str) -> u64 {
    let words: Vec<&str> = row.split_whitespace().collect();
    // version, name words..., scans, date, time, UTC, source...
    let at = words.iter().position(|w| *w == "UTC").expect("a date") - 3;
    words[at].parse().unwrap_or_else(|_| panic!("{row}"))
}

#[test]
fn a_scan_records_its_model_version_on_sqlite() {
    a_scan_records_its_model_version(Backend::Sqlite);
}

#[test]
fn a_scan_records_its_model_version_on_postgres() {
    a_scan_records_its_model_version(Backend::Postgres);
}

#[test]
fn a_model_exported_from_one_store_imports_into_another() {
    let sqlite = TestDb::new(Backend::Sqlite);
    let postgres = TestDb::new(Backend::Postgres);
    let file = sqlite.dir.path().join("site.json");
    std::fs::write(&file, site_model("north", Model::shipped().intercept())).unwrap();
    let name = file.to_str().unwrap();
    let out = sqlite.ok(&["model", "import", name, "--name", "north, May"]);
    assert_eq!(out.trim(), "stored as model version 1: north, May");
    let moved = sqlite.dir.path().join("moved.json");
    sqlite.ok(&["model", "export", "1", "--out", moved.to_str().unwrap()]);
    let out = postgres.ok(&["model", "import", moved.to_str().unwrap()]);
    assert_eq!(out.trim(), "stored as model version 1: north, May");
    let back = postgres.dir.path().join("back.json");
    postgres.ok(&["model", "export", "1", "--out", back.to_str().unwrap()]);
    let (moved, back) = (
        std::fs::read_to_string(&moved).unwrap(),
        std::fs::read_to_string(&back).unwrap(),
    );
    assert_eq!(moved, back);
    let (a, b) = (
        Model::from_json(&moved).unwrap(),
        Model::from_json(&back).unwrap(),
    );
    assert_eq!(a, b);
    assert_eq!(a, Model::shipped().renamed("north, May"));
    let row = listed(&postgres, "1");
    assert!(
        row.contains("imported from") && row.contains("moved.json"),
        "{row}"
    );
}
