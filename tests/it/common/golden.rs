//! The golden data the tests read: its folders, its CSV and bucket files,
//! and its logs cut into parts by time.

use std::path::{Path, PathBuf};

/// The vendored golden data, `tests/golden` (see its README.md).
pub fn golden_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    assert!(
        dir.is_dir(),
        "the golden data is missing: expected {} (vendored in the repository)",
        dir.display()
    );
    dir
}

/// Every golden folder (cases and random), sorted.
pub fn golden_folders() -> Vec<PathBuf> {
    let root = golden_dir();
    let mut dirs = Vec::new();
    for group in ["cases", "random"] {
        for entry in std::fs::read_dir(root.join(group)).expect("golden group") {
            let path = entry.expect("entry").path();
            if path.join("input.jsonl").is_file() {
                dirs.push(path);
            }
        }
    }
    dirs.sort();
    assert!(
        dirs.len() >= 24,
        "expected the golden cases, found {}",
        dirs.len()
    );
    dirs
}

/// Directed pairs and similarities of a CSV with the columns `similarity`,
/// `account_a` and `account_b` anywhere (`--format csv`), or `user_a` and
/// `user_b` as the reference names them (`--format reference-csv` and the
/// reference's own files).
pub fn pairs_of_csv(text: &str) -> Vec<(String, String, f64)> {
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let header = r.headers().expect("CSV header").clone();
    let col = |names: &[&str]| {
        header
            .iter()
            .position(|h| names.contains(&h))
            .unwrap_or_else(|| panic!("no column {names:?} in {header:?}"))
    };
    let s = col(&["similarity"]);
    let (a, b) = (col(&["account_a", "user_a"]), col(&["account_b", "user_b"]));
    let mut out: Vec<(String, String, f64)> = r
        .records()
        .map(|rec| {
            let rec = rec.expect("CSV record");
            (
                rec[a].to_owned(),
                rec[b].to_owned(),
                rec[s].parse::<f64>().expect("similarity"),
            )
        })
        .collect();
    out.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    out
}

/// Compares pairs as sets with similarities within 1e-9; returns the
/// differences.
pub fn pair_differences(
    got: &[(String, String, f64)],
    want: &[(String, String, f64)],
) -> Vec<String> {
    use std::collections::BTreeMap;
    let g: BTreeMap<_, _> = got.iter().map(|(a, b, s)| ((a, b), *s)).collect();
    let w: BTreeMap<_, _> = want.iter().map(|(a, b, s)| ((a, b), *s)).collect();
    let mut diffs = Vec::new();
    for (k, s) in &w {
        match g.get(k) {
            None => diffs.push(format!("missing pair {k:?}")),
            Some(x) if (x - s).abs() > 1e-9 => diffs.push(format!("pair {k:?}: got {x}, want {s}")),
            _ => {}
        }
    }
    for k in g.keys() {
        if !w.contains_key(k) {
            diffs.push(format!("extra pair {k:?}"));
        }
    }
    diffs
}

/// Bucket records as sorted, comparable tuples from JSON lines.
pub fn bucket_records(text: &str) -> Vec<(String, i64, String, u64, u64)> {
    let mut v: Vec<_> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let j: serde_json::Value = serde_json::from_str(l).expect("bucket JSON");
            (
                j["user"].as_str().expect("user").to_owned(),
                j["timestamp"].as_i64().expect("timestamp"),
                j["ip"].as_str().expect("ip").to_owned(),
                j["count"].as_u64().expect("count"),
                j["delay"].as_u64().expect("delay"),
            )
        })
        .collect();
    v.sort();
    v
}

/// The golden log's lines sorted by time (ties in file order), cut into
/// parts at these fractions; the last cut falls between two moves of one
/// second when the log has such a pair near it.
pub fn parts_by_time(fractions: &[f64]) -> Vec<Vec<String>> {
    golden_parts_by_time("random/01", fractions)
}

/// [`parts_by_time`] of another golden log (`random/03`: 57 accounts).
pub fn golden_parts_by_time(name: &str, fractions: &[f64]) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(golden_dir().join(name).join("input.jsonl")).unwrap();
    let mut lines: Vec<(String, String)> = text
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["timestamp_utc"].as_str().unwrap().to_owned(),
                l.to_owned(),
            )
        })
        .collect();
    lines.sort_by(|a, b| a.0.cmp(&b.0));
    let mut cuts: Vec<usize> = fractions
        .iter()
        .map(|f| (f * lines.len() as f64) as usize)
        .collect();
    if let Some(last) = cuts.last_mut() {
        let tie = (*last..lines.len()).find(|&i| i > 0 && lines[i].0 == lines[i - 1].0);
        *last = tie.unwrap_or(*last);
    }
    let mut parts = Vec::new();
    let mut from = 0;
    for to in cuts.into_iter().chain([lines.len()]) {
        parts.push(lines[from..to].iter().map(|l| l.1.clone()).collect());
        from = to;
    }
    parts
}
