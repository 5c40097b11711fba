//! A season straight from logs: `detect export --input` writes the layout a
//! cluster scans, and `detect report --input --cluster` prints what
//! `report --input` prints, storing nothing.

use super::*;

/// `detect export --input LOG`, run as a user runs it.
fn export_input(log: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let (log, out) = (log.display().to_string(), out.display().to_string());
    let mut args = vec!["export", "--input", &log, "--out", &out];
    args.extend_from_slice(extra);
    Command::new(BIN)
        .args(&args)
        .env("DETECT_DATABASE_URL", "sqlite::memory:")
        .output()
        .expect("detect runs")
}

/// `detect report --input LOG --mode reference --format csv --all`: the
/// directed pairs as `pairs_of_csv` reads them.
fn report_input_pairs(log: &Path, crowd_limit: usize) -> Vec<(String, String, f64)> {
    let limit = crowd_limit.to_string();
    let out = Command::new(BIN)
        .args(["report", "--input", &log.display().to_string()])
        .args(["--mode", "reference", "--crowd-limit", &limit])
        .args(["--format", "csv", "--all"])
        .env("DETECT_DATABASE_URL", "sqlite::memory:")
        .output()
        .expect("detect runs");
    succeeded(&out);
    pairs_of_csv(&String::from_utf8_lossy(&out.stdout))
}

/// `detect export --input` of a golden log (as written, and its lines
/// reversed, which the reading sorts again), scanned on a cluster, equals
/// `report --input` of the same log: the directed pairs the command prints,
/// and every pair's sum, weight and evidence, the cliques and the crowded
/// addresses of the in-memory scan it runs. Reference mode: the only one
/// a cluster scans.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn export_from_logs_scans_like_report_input() {
    let golden = crate::common::golden_dir().join("random/03/input.jsonl");
    let tmp = tempfile::tempdir().unwrap();
    let reversed = tmp.path().join("reversed.jsonl");
    let text = std::fs::read_to_string(&golden).unwrap();
    let lines: Vec<&str> = text.lines().rev().collect();
    std::fs::write(&reversed, lines.join("\n") + "\n").unwrap();

    let nodes = start_cluster(2, tmp.path());
    let ctx = cluster::nodes::remote_context(&nodes.scheduler.to_string(), 4)
        .await
        .unwrap();
    let season = Season::new(0, None, None, Some("^4pLeague_".to_owned())).unwrap();
    for (k, log) in [&golden, &reversed].into_iter().enumerate() {
        let season_dir = tmp.path().join(format!("season-{k}"));
        let out = export_input(log, &season_dir, &["--partitions", "3"]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        succeeded(&out);
        assert!(stdout.contains("in 3 parts"), "{stdout}");
        assert!(!season_dir.join(".spill").exists(), "the spill is deleted");
        let segments = segments_of(log);
        let meta = cluster::export::read_meta(&season_dir).unwrap();
        let held = cluster::export::write_season(
            &segments,
            &season,
            3,
            0,
            &tmp.path().join(format!("held-{k}")),
        )
        .unwrap();
        assert_eq!(
            meta, held,
            "the same rows as the export of segments held whole"
        );
        for sub in ["segments", "ip_days"] {
            for part in [
                "part-00000.parquet",
                "part-00001.parquet",
                "part-00002.parquet",
            ] {
                let read =
                    |d: &str| std::fs::read(tmp.path().join(d).join(sub).join(part)).unwrap();
                assert!(
                    read(&format!("season-{k}")) == read(&format!("held-{k}")),
                    "{sub}/{part} differs from the export of segments held whole"
                );
            }
        }
        for (i, crowd_limit) in [schema::DEFAULT_CROWD_LIMIT, 3].into_iter().enumerate() {
            let params = ScanParams {
                mode: Mode::Reference,
                crowd_limit,
                ..ScanParams::default()
            };
            let want = scoring::scan(&segments, &season, &params).unwrap();
            assert!(want.pairs.len() > 20, "a log with pairs");
            let scan_dir = tmp.path().join(format!("scan-{k}-{i}"));
            let got = cluster::scan::run(&ctx, &season_dir, &params, &scan_dir)
                .await
                .unwrap();
            assert_same(&got, &want);
            if crowd_limit == 3 {
                assert!(!got.crowded.is_empty(), "the low limit makes crowds");
            }
            let printed: Vec<(String, String, f64)> = got
                .pairs
                .iter()
                .map(|p| (p.account_a.clone(), p.account_b.clone(), p.similarity))
                .collect();
            let report = report_input_pairs(log, crowd_limit);
            assert_eq!(report.len(), printed.len(), "directed pairs");
            assert_eq!(pair_differences(&printed, &report), Vec::<String>::new());
        }
    }
    report_on_the_cluster(&golden, &tmp.path().join("season-0"), &nodes);
}

/// `detect report --input ... --cluster URL --work-dir DIR`, run as a user
/// runs it.
fn report_cluster(input: &Path, url: &str, work: &Path, extra: &[&str]) -> std::process::Output {
    let (input, work) = (input.display().to_string(), work.display().to_string());
    let mut args = vec![
        "report",
        "--input",
        &input,
        "--cluster",
        url,
        "--work-dir",
        &work,
    ];
    args.extend_from_slice(extra);
    Command::new(BIN)
        .args(&args)
        .env("DETECT_DATABASE_URL", "sqlite::memory:")
        .output()
        .expect("detect runs")
}

/// `report --input --cluster` prints the report `report --input` prints of
/// the same log, byte for byte in text and CSV: from the season folder
/// `detect export --input` wrote (on the cluster), and from the log itself,
/// exported into the work folder first (in this process); the results
/// folder it leaves is what `import-scan` reads. Improved mode and a work
/// folder that already holds the scan are refused.
fn report_on_the_cluster(log: &Path, season_dir: &Path, nodes: &Cluster) {
    let tmp = tempfile::tempdir().unwrap();
    let remote = nodes.scheduler.to_string();
    let plain = |format: &str| {
        let out = Command::new(BIN)
            .args(["report", "--input", &log.display().to_string()])
            .args(["--mode", "reference", "--all", "--format", format])
            .env("DETECT_DATABASE_URL", "sqlite::memory:")
            .output()
            .expect("detect runs");
        succeeded(&out);
        String::from_utf8(out.stdout).unwrap()
    };
    let runs = [
        (season_dir, remote.as_str(), "folder", "text"),
        (season_dir, remote.as_str(), "folder-csv", "csv"),
        (log, "local", "log", "text"),
    ];
    for (input, url, name, format) in runs {
        let work = tmp.path().join(name);
        let extra = [
            "--mode",
            "reference",
            "--all",
            "--format",
            format,
            "--partitions",
            "3",
        ];
        let out = report_cluster(input, url, &work, &extra);
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            plain(format),
            "{name}"
        );
        let want = scoring::scan(
            &segments_of(log),
            &Season::new(0, None, None, Some("^4pLeague_".to_owned())).unwrap(),
            &ScanParams {
                mode: Mode::Reference,
                ..ScanParams::default()
            },
        )
        .unwrap();
        assert_same(&cluster::scan::read(&work.join("scan-0")).unwrap(), &want);
        // Logs are exported into the work folder; a folder is scanned where it lies.
        assert_eq!(work.join("season-0").is_dir(), input == log, "{name}");
    }
    let again = report_cluster(
        season_dir,
        "local",
        &tmp.path().join("folder"),
        &["--mode", "reference"],
    );
    refused(&again, "already holds");
    let improved = report_cluster(
        season_dir,
        "local",
        &tmp.path().join("improved"),
        &["--mode", "improved"],
    );
    refused(&improved, "reference mode only");
}

/// A bad line stops `detect export --input` naming the file and the line,
/// and leaves no folder behind (nor its staging folder, nor the segments
/// already spilled from the logs before it); a folder that holds something
/// is refused before any reading.
#[test]
fn export_from_logs_refuses_a_bad_line_leaving_nothing() {
    let golden = crate::common::golden_dir().join("random/03/input.jsonl");
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("bad.jsonl");
    let text = std::fs::read_to_string(&golden).unwrap();
    let last = text.lines().last().unwrap();
    std::fs::write(&bad, format!("{last}\n{last}\n{{\"username\": \"x\"\n")).unwrap();
    let out_dir = tmp.path().join("season");
    // The golden log first: its segments are handed over before the bad line.
    let (g, b, o) = (
        golden.display().to_string(),
        bad.display().to_string(),
        out_dir.display().to_string(),
    );
    let out = Command::new(BIN)
        .args(["export", "--input", &g, &b, "--out", &o])
        .env("DETECT_DATABASE_URL", "sqlite::memory:")
        .output()
        .expect("detect runs");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.jsonl, line 3: bad JSON"), "{err}");
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, vec!["bad.jsonl".to_owned()], "nothing written");

    // An empty folder is written into; one that holds a season is refused.
    std::fs::create_dir(&out_dir).unwrap();
    let out = export_input(&golden, &out_dir, &["--partitions", "2"]);
    succeeded(&out);
    assert!(out_dir.join("segments/part-00001.parquet").is_file());
    let again = export_input(&golden, &out_dir, &[]);
    refused(&again, "not an empty folder");
}
