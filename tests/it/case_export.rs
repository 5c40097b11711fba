//! `detect case export`: the case file of a pair or a clique written to a
//! file, as the web's "Export case file" builds it (the browser test in
//! `web/queue.rs` compares the two): self-contained, pseudonyms only.

use crate::common::*;
use std::path::{Path, PathBuf};

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/sample-season.jsonl")
}

#[test]
fn case_export_writes_the_case_of_a_pair_and_of_a_clique() {
    let db = TestDb::new(Backend::Sqlite);
    let log = sample();
    db.ok(&["ingest", log.to_str().unwrap()]);
    db.ok(&["scan", "--season", "1"]);
    let report: serde_json::Value =
        serde_json::from_str(&db.ok(&["report", "--season", "1", "--format", "json"])).unwrap();
    let pair = &report["pairs"][0];
    let (a, b) = (
        pair["account_a"].as_str().unwrap(),
        pair["account_b"].as_str().unwrap(),
    );
    let note = "appeal of the pair";
    db.ok(&[
        "verdict",
        "set",
        a,
        b,
        "--as",
        "suspicious",
        "--by",
        "ann",
        "--note",
        note,
    ]);
    let ips = ip_addresses_of(&log);
    assert!(!ips.is_empty());

    let file = db.dir.path().join("case.html");
    let f = file.to_str().unwrap();
    db.ok(&[
        "case", "export", "--season", "1", a, b, "--by", "ann", "--out", f,
    ]);
    let html = std::fs::read_to_string(&file).expect("the case file");
    assert!(
        html.contains(&format!("<h1>Season 1: {a} and {b}</h1>")),
        "{html}"
    );
    assert!(html.contains("Case file exported by ann on "));
    assert!(html.contains(note), "the verdict history");
    assert!(html.contains("<pre class=\"evidence\">") && html.contains("IP-"));
    assert!(html.contains("<div class=\"timeline\" id=\"timeline\"><svg"));
    assert_case_file_self_contained("case file", &html, &ips);

    let clique = db.dir.path().join("clique.html");
    let c = clique.to_str().unwrap();
    db.ok(&[
        "case", "export", "--season", "1", "--clique", "1", "--by", "bo", "-o", c,
    ]);
    let html = std::fs::read_to_string(&clique).expect("the clique's case file");
    assert!(html.contains("<h1>Season 1, clique 1: "), "{html}");
    assert_case_file_self_contained("case file", &html, &ips);
    let audit = db.ok(&["audit"]);
    assert_eq!(audit.matches("export-case").count(), 2, "{audit}");

    // No such clique, no such pair: exit 1, one sentence, no file.
    let none = db.dir.path().join("none.html");
    let n = none.to_str().unwrap();
    for args in [&["--clique", "99"][..], &["u001", "nobody"][..]] {
        let out = db.run(
            &[
                &["case", "export", "--season", "1", "--by", "bo", "-o", n][..],
                args,
            ]
            .concat(),
        );
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(!none.exists(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("clique 99") || err.contains("not a scored pair"),
            "{err}"
        );
    }
}
