//! Improved mode's model from the site's own verdicts, end to end on
//! SQLite and PostgreSQL: `detect model fit` refuses a season without an
//! improved scan, fits on the judged pairs of one, and a scan with
//! `--model FILE` records the model, which its report names; the shipped
//! model's scan is not taken for it. `--model` is refused in reference mode
//! and a bad model file is named in the error.

use crate::common::*;
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};

fn fit_and_scan_with_the_sites_model(backend: Backend) {
    let db = TestDb::new(backend);
    let dir = db.dir.path();
    db.ok(&[
        "simulate",
        "--out",
        "w",
        "--seed",
        "3",
        "--accounts",
        "200",
        "--cliques",
        "15",
        "--days",
        "14",
    ]);
    db.ok(&["ingest", "w/moves.jsonl", "-q"]);
    let no_scan = db.run(&["model", "fit", "--season", "1"]);
    assert_eq!(no_scan.status.code(), Some(1));
    let err = String::from_utf8_lossy(&no_scan.stderr);
    assert!(err.contains("season 1 has no improved scan"), "{err}");

    db.ok(&["scan", "--season", "1", "--mode", "improved"]);
    // Judge a dozen pairs of each kind, as the truth has them.
    let truth: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("w/truth.json")).unwrap()).unwrap();
    let mut person = HashMap::new();
    for p in truth["people"].as_array().unwrap() {
        for a in p["accounts"].as_array().unwrap() {
            person.insert(
                a.as_str().unwrap().to_owned(),
                p["person"].as_str().unwrap().to_owned(),
            );
        }
    }
    let report: Value = serde_json::from_str(&db.ok(&[
        "report", "--season", "1", "--mode", "improved", "--format", "json", "--all",
    ]))
    .unwrap();
    let mut pairs = BTreeSet::new();
    let (mut same, mut different) = (Vec::new(), Vec::new());
    for p in report["pairs"].as_array().unwrap() {
        let (a, b) = (
            p["account_a"].as_str().unwrap(),
            p["account_b"].as_str().unwrap(),
        );
        let key = if a < b { (a, b) } else { (b, a) };
        if !pairs.insert(key) {
            continue;
        }
        if person[a] == person[b] {
            &mut same
        } else {
            &mut different
        }
        .push(key);
    }
    assert!(
        same.len() >= 12 && different.len() >= 12,
        "{} {}",
        same.len(),
        different.len()
    );
    for (pairs, kind) in [(&same, "same-person"), (&different, "household")] {
        for (a, b) in pairs.iter().take(12) {
            db.ok(&["verdict", "set", a, b, "--as", kind, "--by", "ann"]);
        }
    }

    let fitted = db.run(&[
        "model",
        "fit",
        "--season",
        "1",
        "--name",
        "site one",
        "--out",
        "site.json",
        "--save",
    ]);
    let err = String::from_utf8_lossy(&fitted.stderr);
    assert!(fitted.status.success(), "{err}");
    // The shipped model is version 1, from the first scan.
    assert_eq!(
        String::from_utf8_lossy(&fitted.stdout).trim(),
        "stored as model version 2: site one"
    );
    assert!(
        err.contains("fitted on 24 judged pairs of scan #1 (12 one person, 12 different people)"),
        "{err}"
    );
    assert!(
        err.contains("cross-validated on these verdicts (5 folds, flags at "),
        "{err}"
    );
    let model: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("site.json")).unwrap()).unwrap();
    assert_eq!(model["name"], "site one");
    // Measured as the fit printed it, and listed as fitted on season 1.
    assert!(
        model["provenance"]["measured"]
            .as_str()
            .unwrap()
            .starts_with("cross-validated on the verdicts it was fitted on (5 folds"),
        "{model}"
    );
    let list = db.ok(&["model", "list"]);
    assert!(
        list.contains("fitted on season 1 (detect model fit)"),
        "{list}"
    );

    let scanned = db.ok(&[
        "scan",
        "--season",
        "1",
        "--mode",
        "improved",
        "--model",
        "site.json",
    ]);
    assert!(scanned.contains("scan #2 stored"), "{scanned}");
    let text = db.ok(&[
        "report",
        "--season",
        "1",
        "--mode",
        "improved",
        "--model",
        "site.json",
    ]);
    assert!(
        text.contains("scan #2 of") && text.contains("\nmodel: site one, version 2 of the store\n"),
        "{text}"
    );
    // The shipped model's report does not take the site model's scan.
    let shipped = db.ok(&["report", "--season", "1", "--mode", "improved"]);
    assert!(
        !shipped.contains("site one") && shipped.contains("\nmodel: "),
        "{shipped}"
    );
    assert!(!shipped.contains("scan #2 of"), "{shipped}");

    let reference = db.run(&["scan", "--season", "1", "--model", "site.json"]);
    assert_eq!(reference.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&reference.stderr).contains("--model is for improved mode"));
    // The file scored as the version --save stored: the same model.
    let list = db.ok(&["model", "list"]);
    assert!(!list.contains("imported from site.json"), "{list}");
    std::fs::write(dir.join("bad.json"), "{\"format\": 1,\n").unwrap();
    let bad = db.run(&[
        "scan", "--season", "1", "--mode", "improved", "--model", "bad.json",
    ]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("bad.json: "),
        "{:?}",
        bad
    );
}

#[test]
fn a_model_fitted_on_verdicts_scores_and_is_recorded_on_sqlite() {
    fit_and_scan_with_the_sites_model(Backend::Sqlite);
}

#[test]
fn a_model_fitted_on_verdicts_scores_and_is_recorded_on_postgres() {
    fit_and_scan_with_the_sites_model(Backend::Postgres);
}
