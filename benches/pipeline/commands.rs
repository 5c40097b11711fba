//! The stages that run a command: `detect` itself (on the world file or
//! the store the `ingest` stage filled) and the reference script.

use super::Options;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

pub struct Outcome {
    pub seconds: f64,
    pub peak_kb: u64,
    pub note: String,
}

/// Times a `detect` command on the world (see [`measured`] for memory).
pub fn external(stage: &str, detect: &Path, file: &Path, opts: &Options) -> Option<Outcome> {
    let store = store_of(file, opts);
    let db = format!("sqlite://{}", store.display());
    let f = file.to_str().unwrap();
    let args: Vec<String> = match stage {
        "report" => vec!["report", "--input", f, "--format", "csv", "--all"],
        "report-improved" => vec![
            "report", "--input", f, "--format", "csv", "--all", "--mode", "improved",
        ],
        "ingest" => {
            remove_store(&store);
            remove_store(&unscanned(&store));
            let args = ["--db", &db, "ingest", f].map(String::from);
            let o = measured(detect, &args)?;
            // Kept for `scan-store`, which must time a first scan each run.
            std::fs::copy(&store, unscanned(&store)).expect("copy the store");
            return Some(o);
        }
        "ingest-again" => {
            if !store.is_file() {
                return None;
            }
            vec!["--db", &db, "ingest", f]
        }
        "scan-store" => return first_scan(detect, &store),
        "tick" => return tick(detect, file, &db),
        "store-modes" => return store_modes(detect, file, &store),
        _ => unreachable!("not an external stage"),
    }
    .into_iter()
    .map(String::from)
    .collect();
    measured(detect, &args)
}

/// A first scan of the store as the `ingest` stage left it, on a copy:
/// the store itself may hold scans by now (the `tick` stage, an earlier
/// run), and a scan after another reads back what is unchanged. The
/// scanned copy then becomes the store, so that the `tick` stage after it
/// rescans a season scanned before, as a daemon's tick does.
fn first_scan(detect: &Path, store: &Path) -> Option<Outcome> {
    let kept = unscanned(store);
    if !kept.is_file() {
        eprintln!("scan-store: no {} (run the ingest stage)", kept.display());
        return None;
    }
    let copy = store.with_extension("scan.db");
    remove_store(&copy);
    std::fs::copy(&kept, &copy).expect("copy the store");
    // On disk before the scan starts: writing back the copy's 2 GB
    // meanwhile made scans of the 10M store 1 to 3 s slower.
    std::fs::File::open(&copy)
        .and_then(|f| f.sync_all())
        .expect("sync the copy");
    let db = format!("sqlite://{}", copy.display());
    let o = measured(
        detect,
        &["--db", &db, "scan", "--season", "1"].map(String::from),
    );
    remove_store(store);
    for ext in ["", "-wal", "-shm"] {
        let from = format!("{}{ext}", copy.display());
        if Path::new(&from).exists() {
            let to = format!("{}{ext}", store.display());
            std::fs::rename(&from, to).expect("the scanned copy as the store");
        }
    }
    o
}

/// The copy of the store that the `ingest` stage keeps unscanned.
fn unscanned(store: &Path) -> PathBuf {
    store.with_extension("ingested.db")
}

/// Removes a SQLite store and its journal files.
fn remove_store(p: &Path) {
    for ext in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{ext}", p.display()));
    }
}

/// The store the `ingest` stage fills from `file`.
pub fn store_of(file: &Path, opts: &Options) -> PathBuf {
    opts.data.join(format!(
        "{}.db",
        file.file_stem().unwrap().to_string_lossy()
    ))
}

/// The reference script on the same file (`--reference PATH`).
pub fn reference(script: &Path, file: &Path) -> Option<Outcome> {
    let out = std::env::temp_dir().join("detect-bench-reference-pairs.csv");
    let args = vec![
        script.to_string_lossy().into_owned(),
        "--pairs-out".to_owned(),
        out.to_string_lossy().into_owned(),
        file.to_string_lossy().into_owned(),
    ];
    let mut o = measured(Path::new("perl"), &args)?;
    o.note = "the reference script".into();
    Some(o)
}

/// Runs a command, timing it; its peak memory comes from GNU time
/// (`/usr/bin/time`, which scripts/bench installs), else it is shown as 0.
fn measured(program: &Path, args: &[String]) -> Option<Outcome> {
    let start = Instant::now();
    let time = Path::new("/usr/bin/time");
    let (program_used, full_args): (PathBuf, Vec<String>) = if time.is_file() {
        let mut a = vec![
            "-f".to_owned(),
            "MAXRSS %M".to_owned(),
            program.to_string_lossy().into_owned(),
        ];
        a.extend(args.iter().cloned());
        (time.to_owned(), a)
    } else {
        (program.to_owned(), args.to_vec())
    };
    let out = Command::new(&program_used)
        .args(&full_args)
        .env("TZ", "UTC")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .output()
        .expect("run command");
    let seconds = start.elapsed().as_secs_f64();
    let err = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        eprintln!("{} failed: {err}", program.display());
        return None;
    }
    let peak_kb = err
        .lines()
        .find_map(|l| l.strip_prefix("MAXRSS "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    Some(Outcome {
        seconds,
        peak_kb,
        note: String::new(),
    })
}

/// The release `detect` binary beside this benchmark.
pub fn release_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("own path");
    let dir = exe.parent().and_then(Path::parent).expect("target dir");
    let bin = dir.join("detect");
    assert!(
        bin.is_file(),
        "{} is missing: run `cargo build --release` first (scripts/bench does)",
        bin.display()
    );
    bin
}

/// Full scans in both modes on copies of a store ingested for this stage
/// alone (a scan after another would be a rescan in reference mode), best
/// of three each, alternating so both modes see the same machine.
fn store_modes(detect: &Path, file: &Path, store: &Path) -> Option<Outcome> {
    let ingested = store.with_extension("modes.db");
    let copy = store.with_extension("modes-copy.db");
    let remove = remove_store;
    remove(&ingested);
    let url = |p: &Path| format!("sqlite://{}", p.display());
    measured(
        detect,
        &["--db", &url(&ingested), "ingest", file.to_str()?].map(String::from),
    )?;
    let mut best = [f64::INFINITY; 2];
    let mut peak = [0u64; 2];
    for _ in 0..3 {
        for (k, mode) in ["reference", "improved"].into_iter().enumerate() {
            remove(&copy);
            std::fs::copy(&ingested, &copy).expect("copy the store");
            let scan = ["--db", &url(&copy), "scan", "--season", "1", "--mode", mode];
            let o = measured(detect, &scan.map(String::from))?;
            best[k] = best[k].min(o.seconds);
            peak[k] = peak[k].max(o.peak_kb);
        }
    }
    remove(&copy);
    remove(&ingested);
    Some(Outcome {
        seconds: best[1],
        peak_kb: peak[1],
        note: format!(
            "detect scan on a store, best of 3: reference {:.3} s ({:.0} MB), improved {:.3} s \
             ({:.0} MB), improved / reference {:.2}x",
            best[0],
            peak[0] as f64 / 1024.0,
            best[1],
            peak[1] as f64 / 1024.0,
            best[1] / best[0]
        ),
    })
}

/// Moves a tick brings.
pub const TICK_MOVES: usize = 1_000;

/// A daemon tick on the store the `ingest` stage filled: the world's last
/// 1,000 moves again one day later, ingested, then season 1 scanned
/// (what `detect daemon --once` does for a source and a season). Run it
/// after `ingest` in the same run: a second tick finds its file ingested.
fn tick(detect: &Path, file: &Path, db: &str) -> Option<Outcome> {
    let moves = file.with_extension("tick.jsonl");
    if !moves.is_file() {
        write_tick(file, &moves, 1);
    }
    let ingest = ["--db", db, "ingest", moves.to_str().unwrap()].map(String::from);
    let scan = ["--db", db, "scan", "--season", "1"].map(String::from);
    let i = measured(detect, &ingest)?;
    let s = measured(detect, &scan)?;
    Some(Outcome {
        seconds: i.seconds + s.seconds,
        peak_kb: i.peak_kb.max(s.peak_kb),
        note: format!(
            "ingest of {TICK_MOVES} moves {:.2} s ({:.0} MB), scan {:.2} s ({:.0} MB)",
            i.seconds,
            i.peak_kb as f64 / 1024.0,
            s.seconds,
            s.peak_kb as f64 / 1024.0
        ),
    })
}

/// The world's last moves, each `days` days later.
pub fn write_tick(world: &Path, out: &Path, days: i64) {
    let f = std::io::BufReader::new(std::fs::File::open(world).expect("open world"));
    let mut last: std::collections::VecDeque<String> = Default::default();
    for line in f.lines() {
        last.push_back(line.expect("read world"));
        if last.len() > TICK_MOVES {
            last.pop_front();
        }
    }
    let mut w = std::io::BufWriter::new(std::fs::File::create(out).expect("create tick"));
    for line in last {
        let mut v: serde_json::Value = serde_json::from_str(&line).expect("a world line");
        let t = v["timestamp_utc"].as_str().expect("timestamp_utc");
        let t = chrono::NaiveDateTime::parse_from_str(t, "%Y-%m-%d %H:%M:%S").expect("a time");
        let later = t + chrono::Duration::days(days);
        v["timestamp_utc"] = later.format("%Y-%m-%d %H:%M:%S").to_string().into();
        writeln!(w, "{v}").expect("write tick");
    }
    w.flush().expect("write tick");
}
