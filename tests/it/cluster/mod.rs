//! A scan on a Ballista cluster equals the one-process scan: a scheduler and
//! two executors (`detect scheduler`, `detect executor`) started on
//! 127.0.0.1 by the test and stopped by it, a golden random log exported as
//! Parquet, the plan run on them, every directed pair compared (similarity
//! to 1e-9, sum, weight and evidence exactly), with cliques and crowded
//! addresses. Feature `cluster`: `cargo test --features cluster --test it cluster::`.

use crate::common::{pair_differences, pairs_of_csv, Backend, TestDb};
use schema::{Mode, ScanParams, ScanResult, Season};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = crate::common::BIN;

/// A child process killed when dropped, pass or fail.
struct Node(Child);

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A command that must succeed did: its standard error otherwise.
fn succeeded(out: &std::process::Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A command that must be refused was, saying `why`.
fn refused(out: &std::process::Output, why: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "not refused: {why}");
    assert!(err.contains(why), "{err}");
}

fn free_addr() -> SocketAddr {
    let l = TcpListener::bind("127.0.0.1:0").expect("a free port on 127.0.0.1");
    l.local_addr().unwrap()
}

fn start(args: &[&str], log: &Path) -> Node {
    let log = std::fs::File::create(log).unwrap();
    let child = Command::new(BIN)
        .args(args)
        .env("DETECT_DATABASE_URL", "sqlite::memory:")
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .stdin(Stdio::null())
        .spawn()
        .expect("detect starts");
    Node(child)
}

fn wait_listening(addr: SocketAddr, node: &mut Node, what: &str) {
    let start = Instant::now();
    while TcpStream::connect(addr).is_err() {
        if let Some(status) = node.0.try_wait().unwrap() {
            panic!("the {what} exited before listening on {addr}: {status}");
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the {what} does not listen on {addr}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A scheduler and `n` executors on 127.0.0.1; their logs go into `dir`.
struct Cluster {
    scheduler: SocketAddr,
    _nodes: Vec<Node>,
}

fn start_cluster(n: usize, dir: &Path) -> Cluster {
    let scheduler = free_addr();
    let s = scheduler.to_string();
    let mut sched = start(&["scheduler", "--bind", &s], &dir.join("scheduler.log"));
    wait_listening(scheduler, &mut sched, "scheduler");
    let mut nodes = vec![sched];
    for i in 0..n {
        let bind = free_addr();
        let b = bind.to_string();
        let work = dir.join(format!("executor-{i}"));
        std::fs::create_dir_all(&work).unwrap();
        let w = work.display().to_string();
        let args = [
            "executor",
            "--scheduler",
            &s,
            "--bind",
            &b,
            "--slots",
            "2",
            "--work-dir",
            &w,
        ];
        let mut node = start(&args, &dir.join(format!("executor-{i}.log")));
        wait_listening(bind, &mut node, "executor");
        nodes.push(node);
    }
    Cluster {
        scheduler,
        _nodes: nodes,
    }
}

/// The segments of one log as `report --input` reads it (30-minute buckets).
fn segments_of(log: &Path) -> schema::Segments {
    app::pipeline::segments_from_files(
        &[log.display().to_string()],
        1800,
        false,
        &schema::rules::Limits::default(),
    )
    .expect("the log reads")
}

fn assert_same(got: &ScanResult, want: &ScanResult) {
    assert_eq!(got.participants, want.participants, "participants");
    assert_eq!(got.candidate_pairs, want.candidate_pairs, "candidate pairs");
    assert_eq!(got.pairs.len(), want.pairs.len(), "directed pairs");
    for (g, w) in got.pairs.iter().zip(&want.pairs) {
        let who = format!("{} -> {}", w.account_a, w.account_b);
        assert_eq!(
            (&g.account_a, &g.account_b),
            (&w.account_a, &w.account_b),
            "pair order at {who}"
        );
        assert!(
            (g.similarity - w.similarity).abs() <= 1e-9,
            "{who}: {} vs {}",
            g.similarity,
            w.similarity
        );
        assert_eq!((g.sum, g.weight), (w.sum, w.weight), "{who}: sum, weight");
        assert_eq!(g.evidence, w.evidence, "{who}: evidence");
    }
    assert_eq!(got.cliques, want.cliques, "cliques");
    assert_eq!(got.crowded, want.crowded, "crowded addresses");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_scan_equals_one_process_scan_on_a_golden_log() {
    let input = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/random/01/input.jsonl");
    let segments = segments_of(&input);
    let season = Season::new(1, None, None, Some("^4pLeague_".to_owned())).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let season_dir = tmp.path().join("season");
    let meta = cluster::export::write_season(&segments, &season, 3, 0, &season_dir).unwrap();
    assert!(meta.participants > 10 && meta.segments > 100, "{meta:?}");

    let nodes = start_cluster(2, tmp.path());
    let ctx = cluster::nodes::remote_context(&nodes.scheduler.to_string(), 4)
        .await
        .unwrap();
    // The default crowd limit, and one so low that some addresses are crowds.
    for (i, crowd_limit) in [schema::DEFAULT_CROWD_LIMIT, 3].into_iter().enumerate() {
        let params = ScanParams {
            mode: Mode::Reference,
            crowd_limit,
            ..ScanParams::default()
        };
        let want = scoring::scan(&segments, &season, &params).unwrap();
        if crowd_limit == schema::DEFAULT_CROWD_LIMIT {
            assert!(
                want.pairs.len() > 20 && want.flagged().count() > 0,
                "a log with flags"
            );
        } else {
            assert!(!want.pairs.is_empty(), "pairs left beside the crowds");
        }
        let out = tmp.path().join(format!("scan-{i}"));
        let got = cluster::scan::run(&ctx, &season_dir, &params, &out)
            .await
            .unwrap();
        assert_same(&got, &want);
        if crowd_limit == 3 {
            assert!(!want.crowded.is_empty(), "the low limit makes crowds");
        }
        // The results folder reads back the same (what import-scan stores).
        assert_same(&cluster::scan::read(&out).unwrap(), &want);
    }
}

/// The commands as run on a store: `detect export` then `detect
/// import-scan` of a results folder, and `detect scan --cluster local`, each
/// stored as a scan whose report equals the one-process scan's.
#[test]
fn export_scan_and_import_through_the_commands() {
    let db = TestDb::new(Backend::Sqlite);
    let log = crate::common::golden_dir().join("random/02/input.jsonl");
    db.ok(&["ingest", &log.display().to_string()]);
    db.ok(&["season", "add", "1", "--games", "^4pLeague_"]);
    let report = || db.ok(&["report", "--season", "1", "--format", "csv", "--all"]);
    db.ok(&["scan", "--season", "1", "--mode", "reference"]);
    let want = pairs_of_csv(&report());
    assert!(want.len() > 20, "a log with pairs: {}", want.len());

    let cluster_scan = |mode: &str, work: &Path, extra: &[&str]| {
        let w = work.display().to_string();
        let mut args = vec![
            "scan",
            "--season",
            "1",
            "--mode",
            mode,
            "--cluster",
            "local",
            "--work-dir",
            &w,
        ];
        args.extend_from_slice(extra);
        db.run(&args)
    };
    let work = db.dir.path().join("work");
    let out = cluster_scan("reference", &work, &["--partitions", "3"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    succeeded(&out);
    assert!(stdout.contains("scan #2 stored"), "{stdout}");
    assert_eq!(
        pair_differences(&pairs_of_csv(&report()), &want),
        Vec::<String>::new()
    );
    // The same work folder again would mix two scans: refused.
    let again = cluster_scan("reference", &work, &[]);
    refused(&again, "already holds");
    // Improved mode has no plan yet: refused with the reason, nothing stored.
    let improved = cluster_scan("improved", &db.dir.path().join("work-improved"), &[]);
    refused(&improved, "reference mode only");

    // A results folder stored again by import-scan: a third scan, same report.
    let scan_dir = work.join("scan-1");
    let out = db.ok(&["import-scan", &scan_dir.display().to_string()]);
    assert!(out.contains("scan #3 stored"), "{out}");
    assert_eq!(
        pair_differences(&pairs_of_csv(&report()), &want),
        Vec::<String>::new()
    );

    export_writes_the_layout(&db);
}

/// `detect export` writes the layout docs/scale-out.md describes, and
/// refuses to write over a season folder.
fn export_writes_the_layout(db: &TestDb) {
    let season_dir = db.dir.path().join("season-out");
    let out = db.ok(&[
        "export",
        "--season",
        "1",
        "--out",
        &season_dir.display().to_string(),
        "--partitions",
        "2",
    ]);
    assert!(out.contains("in 2 parts"), "{out}");
    let meta = cluster::export::read_meta(&season_dir).unwrap();
    assert_eq!((meta.season, meta.partitions), (1, 2));
    for sub in ["segments", "ip_days"] {
        for part in ["part-00000.parquet", "part-00001.parquet"] {
            assert!(season_dir.join(sub).join(part).is_file(), "{sub}/{part}");
        }
    }
    let refused = db.run(&[
        "export",
        "--season",
        "1",
        "--out",
        &season_dir.display().to_string(),
    ]);
    assert!(!refused.status.success(), "export over a season folder");
}

mod daemon;
mod from_logs;
