//! `report --out DIR` replaces the directory's pictures as a whole: the
//! clique pictures of an earlier report with more cliques are removed,
//! other files are left alone.

mod common;

use common::*;

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
    for stale in ["clique-2.svg", "clique-7.svg"] {
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
            "clique-1.svg",
            "distribution.svg",
            "index.html",
            "notes.txt"
        ]
    );
}
