//! `report --out DIR` replaces the directory's pictures as a whole: the
//! clique pictures of an earlier report with more cliques are removed,
//! other files are left alone. A picture drawn for the same key is read
//! back instead of drawn again, and drawn again once what it shows changes.

use crate::common::*;

#[test]
fn report_out_removes_the_cliques_of_an_earlier_report() {
    let db = TestDb::new(Backend::Sqlite);
    // Two accounts moving together from one IP: one clique.
    let mut log = String::new();
    for bucket in 0..12 {
        for (k, name) in ["ann", "ben"].iter().enumerate() {
            let t = 1_430_640_000 + bucket * 1800 + k as i64 * 60;
            log.push_str(&format!(
                "{{\"username\": \"{name}\", \"game\": \"4pLeague_S1_G{k}\", \"timestamp\": {t}, \"ip\": \"10.1.1.1\"}}\n"
            ));
        }
    }
    let path = db.dir.path().join("m.jsonl");
    std::fs::write(&path, log).unwrap();
    db.ok(&["ingest", path.to_str().unwrap()]);
    let out = db.dir.path().join("report");
    std::fs::create_dir(&out).unwrap();
    for stale in ["clique-2.svg", "clique-7.svg", "clique-7-overview.svg"] {
        std::fs::write(out.join(stale), "<svg/>").unwrap();
    }
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    db.ok(&["report", "--season", "1", "--out", out.to_str().unwrap()]);
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "clique-1-overview.svg",
            "clique-1.svg",
            "distribution.svg",
            "index.html",
            "notes.txt",
            "pictures.keys"
        ]
    );
    // A picture with the same key is read back, not drawn: a marker put in
    // its file stays, in the file and, for the overview, on the page.
    let marked = "<svg><!-- kept --></svg>";
    std::fs::write(out.join("clique-1.svg"), marked).unwrap();
    std::fs::write(
        out.join("clique-1-overview.svg"),
        "<svg><!-- kept overview --></svg>",
    )
    .unwrap();
    db.ok(&["report", "--season", "1", "--out", out.to_str().unwrap()]);
    assert_eq!(
        std::fs::read_to_string(out.join("clique-1.svg")).unwrap(),
        marked
    );
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(page.contains("<!-- kept overview -->"));
    // One more move of ann's: the clique's pictures are drawn again.
    let more = db.dir.path().join("more.jsonl");
    std::fs::write(
        &more,
        "{\"username\": \"ann\", \"game\": \"4pLeague_S1_G0\", \"timestamp\": 1430665000, \"ip\": \"10.1.1.1\"}\n",
    )
    .unwrap();
    db.ok(&["ingest", more.to_str().unwrap()]);
    db.ok(&["report", "--season", "1", "--out", out.to_str().unwrap()]);
    let drawn = std::fs::read_to_string(out.join("clique-1.svg")).unwrap();
    assert!(drawn.starts_with("<svg") && drawn.contains("ann") && !drawn.contains("kept"));
    // Without the keys file every picture is drawn again.
    std::fs::write(out.join("clique-1.svg"), marked).unwrap();
    std::fs::remove_file(out.join("pictures.keys")).unwrap();
    db.ok(&["report", "--season", "1", "--out", out.to_str().unwrap()]);
    assert_ne!(
        std::fs::read_to_string(out.join("clique-1.svg")).unwrap(),
        marked
    );
}
