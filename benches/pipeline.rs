//! The benchmark harness of `detect`: throughput and peak memory of every
//! stage on simulated worlds. Run it with `bash scripts/bench` (or
//! `cargo bench --bench pipeline -- [OPTIONS]`); BENCHMARKS.md records the
//! figures.
//!
//! Every stage runs in its own process (this binary started again with
//! `--stage`), so each peak-memory figure (VmHWM) is that stage's own.
//!
//! Stages, on a world of N moves:
//! - `floor`: the parse floor every ratio is taken to: single thread, the
//!   whole file read into memory at once, each line parsed by serde_json
//!   into borrowed `&str` fields, the time turned into its epoch, bucket and
//!   day, nothing else;
//! - `parse`: the product's reader (`ingest::open_log`, limits checked) on
//!   the file, nothing else;
//! - `segment`: parse, sort, segment in memory (ingest in memory);
//! - `ingest`: `detect ingest` into a fresh SQLite store (store, dedupe,
//!   segment, save segments);
//! - `scan`: score every candidate pair of the season from in-memory
//!   segments (pairs per second, scan alone);
//! - `report`: `detect report --input FILE --format csv --all`, end to end;
//! - `report-improved` (only when named in `--stages`): the same in
//!   improved mode;
//! - `scan-store`: a first `detect scan` of the store the `ingest` stage
//!   filled, on a copy of it as ingested (each run, scans there or not),
//!   which then becomes the store;
//! - `tick`: then the world's last 1,000 moves a day later ingested into
//!   that store and the season scanned again, what a daemon tick does;
//! - `daemon-tick` (only when named in `--stages`): two ticks of 1,000 moves
//!   in a running `detect daemon` on a copy of that store (the daemon
//!   holds its segments between ticks; `pipeline/daemon.rs`);
//! - `scan-modes` (only when named in `--stages`): the `scan` stage in
//!   reference and in improved mode on the same segments, best of three
//!   each, and the ratio of improved to reference;
//! - `store-modes` (only when named in `--stages`): `detect scan` in
//!   reference and in improved mode, end to end on a store (load the
//!   segments, read the move times in improved mode, score, save), each
//!   run on a fresh copy of a store ingested once for this stage, best of
//!   three each, and the ratio of improved to reference;
//! - `reference` (only with `--reference PATH`): the reference script on the
//!   same file.
//!
//! Before the stages, the world's shape is printed (segments a move,
//! counted by bucket as the reference counts them; records held), and
//! segments a move beside every figure.
//!
//! Options: `--moves N[k|m]` (repeatable; default 1m and 400k), `--days D`,
//! `--sparse K` (a world shaped like a real site's: one move in K kept of
//! a world with K times the accounts, so games wait days; see
//! `pipeline/world.rs`),
//! `--stages a,b,c`, `--reference PATH`, `--data DIR` (default
//! target/bench-data; worlds are generated once and kept), `--repeat N`
//! (default 3: the in-memory stages and `report` run N times, alternating
//! with the floor, and the best time of each is shown; ratios are to the
//! best floor of the same run).

#[path = "pipeline/commands.rs"]
mod commands;
#[path = "pipeline/daemon.rs"]
mod daemon;
#[path = "pipeline/world.rs"]
mod world;

use commands::{external, reference, release_binary, store_of, Outcome};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;
use world::{line_count, world};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(i) = args.iter().position(|a| a == "--stage") {
        let stage = args[i + 1].clone();
        let file = PathBuf::from(&args[i + 2]);
        let extra = args.get(i + 3).cloned();
        let report = run_stage(&stage, &file, extra.as_deref());
        println!("RESULT {report}");
        return;
    }
    let opts = Options::parse(&args);
    std::fs::create_dir_all(&opts.data).expect("data dir");
    let detect = release_binary();
    println!(
        "detect benchmark: {} cores, stages {}",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        opts.stages.join(",")
    );
    for &moves in &opts.moves {
        let file = world(&opts, moves);
        let size = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
        let count = line_count(&file);
        println!();
        let shape = child("shape", &file).map_or_else(String::new, |o| o.note);
        let per_move = shape.split(' ').next().unwrap_or("?").to_owned();
        println!(
            "== world of {count} moves over {} days ({:.0} MB): {}",
            opts.days,
            size as f64 / 1e6,
            file.display()
        );
        println!("   {shape}");
        // Round after round, so that every stage sees the same machine; the
        // heavy store stages and the reference run once.
        let mut best: Vec<Option<Outcome>> = opts.stages.iter().map(|_| None).collect();
        for round in 0..opts.repeat.max(1) {
            for (k, stage) in opts.stages.iter().enumerate() {
                if round > 0 && !repeatable(stage) {
                    continue;
                }
                let outcome = match stage.as_str() {
                    "report" | "report-improved" | "ingest" | "ingest-again" | "scan-store"
                    | "tick" | "store-modes" => external(stage, &detect, &file, &opts),
                    "daemon-tick" => {
                        daemon::daemon_tick(&detect, &file, &store_of(&file, &opts), &opts.data)
                    }
                    "reference" => match &opts.reference {
                        Some(script) => reference(script, &file),
                        None => continue,
                    },
                    _ => child(stage, &file),
                };
                let Some(o) = outcome else { continue };
                if best[k].as_ref().is_none_or(|b| o.seconds < b.seconds) {
                    best[k] = Some(o);
                }
            }
        }
        let floor = opts
            .stages
            .iter()
            .zip(&best)
            .find(|(s, _)| *s == "floor")
            .and_then(|(_, o)| o.as_ref().map(|o| o.seconds));
        for (stage, o) in opts.stages.iter().zip(&best) {
            let Some(o) = o else { continue };
            let per_sec = count as f64 / o.seconds;
            let ratio = floor
                .map(|f| format!("{:6.2}x floor", o.seconds / f))
                .unwrap_or_default();
            println!(
                "{:<15} {:>8.3} s  {:>11.0} moves/s  peak {:>7.0} MB  {ratio}  {per_move} seg/move  {}",
                stage,
                o.seconds,
                per_sec,
                o.peak_kb as f64 / 1024.0,
                o.note
            );
        }
    }
}

/// Stages cheap enough to repeat (best of `--repeat`).
fn repeatable(stage: &str) -> bool {
    matches!(
        stage,
        "floor" | "parse" | "segment" | "scan" | "scan-store" | "report" | "report-improved"
    )
}

pub struct Options {
    moves: Vec<u64>,
    days: u32,
    stages: Vec<String>,
    reference: Option<PathBuf>,
    pub data: PathBuf,
    repeat: u32,
    /// Keep one move in this many of a world with as many times the
    /// accounts (1: the simulator's dense world); see `world.rs`.
    sparse: u32,
}

impl Options {
    fn parse(args: &[String]) -> Options {
        let mut o = Options {
            moves: vec![],
            days: 28,
            stages: [
                "floor",
                "parse",
                "segment",
                "ingest",
                "ingest-again",
                "scan",
                "report",
                "scan-store",
                "tick",
                "reference",
            ]
            .map(String::from)
            .to_vec(),
            reference: None,
            data: Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data"),
            repeat: 3,
            sparse: 1,
        };
        let mut it = args.iter().filter(|a| *a != "--bench");
        while let Some(a) = it.next() {
            let mut value = || {
                it.next()
                    .cloned()
                    .unwrap_or_else(|| panic!("{a} needs a value"))
            };
            match a.as_str() {
                "--moves" => o.moves.push(parse_count(&value())),
                "--days" => o.days = value().parse().expect("--days N"),
                "--stages" => o.stages = value().split(',').map(String::from).collect(),
                "--reference" => o.reference = Some(PathBuf::from(value())),
                "--data" => o.data = PathBuf::from(value()),
                "--repeat" => o.repeat = value().parse().expect("--repeat N"),
                "--sparse" => o.sparse = value().parse::<u32>().expect("--sparse K").max(1),
                other => {
                    panic!("unknown option {other}; see the doc comment of benches/pipeline.rs")
                }
            }
        }
        if o.moves.is_empty() {
            o.moves = vec![1_000_000, 400_000];
        }
        o
    }
}

fn parse_count(s: &str) -> u64 {
    let s = s.to_ascii_lowercase();
    let (num, mult) = if let Some(n) = s.strip_suffix('m') {
        (n, 1_000_000.0)
    } else if let Some(n) = s.strip_suffix('k') {
        (n, 1_000.0)
    } else {
        (s.as_str(), 1.0)
    };
    (num.parse::<f64>().expect("a move count like 400k or 10m") * mult) as u64
}

/// Runs an in-process stage in a child process of this binary.
fn child(stage: &str, file: &Path) -> Option<Outcome> {
    let exe = std::env::current_exe().expect("own path");
    let out = Command::new(exe)
        .args(["--stage", stage, file.to_str().unwrap()])
        .output()
        .expect("run stage");
    assert!(
        out.status.success(),
        "stage {stage} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find_map(|l| l.strip_prefix("RESULT "))?;
    let mut parts = line.splitn(3, ' ');
    Some(Outcome {
        seconds: parts.next()?.parse().ok()?,
        peak_kb: parts.next()?.parse().ok()?,
        note: parts.next().unwrap_or("").to_owned(),
    })
}

/// Runs one in-process stage; returns "seconds peak_kb note".
fn run_stage(stage: &str, file: &Path, _extra: Option<&str>) -> String {
    let path = file.to_str().unwrap();
    let start = Instant::now();
    let note = match stage {
        "floor" => floor(file),
        "parse" => parse_only(path),
        "segment" => {
            let n: usize = segment(path).by_account.iter().map(Vec::len).sum();
            format!("{n} segments")
        }
        "scan" => {
            let out = scan_alone(path);
            return format!("{:.4} {} {out}", start.elapsed().as_secs_f64(), peak_kb());
        }
        "scan-modes" => scan_modes(path),
        "shape" => world::shape(&segment(path), line_count(file)),
        other => panic!("unknown stage {other}"),
    };
    format!("{:.4} {} {note}", start.elapsed().as_secs_f64(), peak_kb())
}

/// Every line parsed, nothing kept.
fn parse_only(path: &str) -> String {
    let mut n = 0u64;
    let mut reader = ingest::open_log(path).expect("open");
    while let Some(line) = reader.next_ref() {
        if let (_, Some(m)) = line.expect("line") {
            n += m.timestamp as u64 & 1;
        }
    }
    format!("(parity {n})")
}

/// The log's segments, in 30-minute buckets.
fn segment(path: &str) -> schema::Segments {
    app::pipeline::segments_from_files(&[path.to_owned()], 1800, false, &ingest::Limits::default())
        .expect("segment")
}

/// Reference mode's scan of the log's segments, timed alone.
fn scan_alone(path: &str) -> String {
    let segs = segment(path);
    let season = schema::Season::inferred(1);
    let t = Instant::now();
    let result = scoring::scan(&segs, &season, &schema::ScanParams::default()).expect("scan");
    let s = t.elapsed().as_secs_f64();
    let directed = result.pairs.len();
    format!(
        "scan alone {s:.3} s: {} candidate pairs, {directed} directed, {:.0} directed pairs/s",
        result.candidate_pairs,
        directed as f64 / s
    )
}

/// Both modes' scans of the same segments, best of three, alternating so
/// both see the same machine; and what reading the moves by second beside
/// the segments costs (improved mode's times come from the same read).
fn scan_modes(path: &str) -> String {
    let read = |times: bool| {
        let t = Instant::now();
        let files = [path.to_owned()];
        let limits = ingest::Limits::default();
        let out = if times {
            let (s, t) = app::pipeline::segments_and_times_from_files(&files, 1800, false, &limits)
                .expect("segment");
            (s, Some(t))
        } else {
            (segment(path), None)
        };
        (out, t.elapsed().as_secs_f64())
    };
    let (_, without_s) = read(false);
    let ((segs, times), with_s) = read(true);
    let times = times.expect("move times");
    let times_s = with_s - without_s;
    let season = schema::Season::inferred(1);
    // Wall time and this process's CPU time (steadier on a busy machine).
    let mut best = [f64::INFINITY; 2];
    let mut cpu = [f64::INFINITY; 2];
    for _ in 0..3 {
        for (k, mode) in [schema::Mode::Reference, schema::Mode::Improved]
            .into_iter()
            .enumerate()
        {
            let params = schema::ScanParams {
                mode,
                ..schema::ScanParams::default()
            };
            let (t, c) = (Instant::now(), cpu_seconds());
            let result =
                scoring::scan_with_times(&segs, Some(&times), &season, &params).expect("scan");
            std::hint::black_box(result.pairs.len());
            best[k] = best[k].min(t.elapsed().as_secs_f64());
            cpu[k] = cpu[k].min(cpu_seconds() - c);
        }
    }
    format!(
        "scan alone, best of 3: reference {:.3} s ({:.2} s CPU), improved {:.3} s ({:.2} s CPU), \
         improved / reference {:.2}x wall, {:.2}x CPU; reading the moves by second beside the segments {:+.3} s",
        best[0],
        cpu[0],
        best[1],
        cpu[1],
        best[1] / best[0],
        cpu[1] / cpu[0],
        times_s
    )
}

/// One line as the floor reads it: borrowed fields, nothing kept.
#[derive(serde::Deserialize)]
struct FloorLine<'a> {
    #[serde(borrow)]
    username: &'a str,
    #[serde(borrow, default)]
    game: &'a str,
    #[serde(borrow)]
    timestamp_utc: &'a str,
    #[serde(borrow)]
    ip: &'a str,
}

/// The parse floor: the whole file read at once, each line parsed by
/// serde_json into borrowed fields, its time turned into epoch, bucket and
/// day; a checksum keeps the work from being optimised away.
fn floor(file: &Path) -> String {
    let data = std::fs::read(file).expect("read world");
    let text = std::str::from_utf8(&data).expect("UTF-8 world");
    let mut check = 0u64;
    let mut n = 0u64;
    for line in text.lines() {
        if line.is_empty() {
            continue;
        }
        let rec: FloorLine = serde_json::from_str(line).expect("floor: a move line");
        let t = ingest::time::parse_time(rec.timestamp_utc).expect("floor: time");
        let bucket = schema::bucket_of(t, schema::DEFAULT_BUCKET_SECONDS);
        let day = schema::day_of(t);
        check = check.wrapping_add(
            (bucket ^ day) as u64 + (rec.username.len() + rec.game.len() + rec.ip.len()) as u64,
        );
        n += 1;
    }
    format!("({n} lines, check {check})")
}

/// This process's CPU time so far (user and system, all threads), in
/// seconds, from /proc/self/stat (clock ticks of 1/100 s).
fn cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            let rest = s.rsplit_once(')')?.1;
            let f: Vec<&str> = rest.split_whitespace().collect();
            Some((f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?) as f64 / 100.0)
        })
        .unwrap_or(0.0)
}

/// This process's peak resident memory (VmHWM), in kB.
fn peak_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}
