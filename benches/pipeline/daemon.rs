//! The `daemon-tick` stage: scan ticks of a running `detect daemon`, which
//! holds its segments from one tick to the next, on a copy of the store the
//! `ingest` stage filled (run `scan-store` before it, so that its first tick
//! finds a scan to rescan).
//!
//! The daemon starts (its first tick loads the segments and writes the
//! season's report, not measured), then the world's last 1,000 moves are
//! dropped into its directory source two days later and, after that tick,
//! three days later. Each tick's ingest and rescan (from its start to the
//! rescan stored, what the `tick` stage measures as two commands) and the
//! whole tick with the season's report are read from the daemon's log; the
//! peak is the daemon's (its first tick, which draws every clique picture,
//! included), and its resident memory after the ticks is in the note.

use super::commands::{write_tick, Outcome, TICK_MOVES};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// One measured tick: seconds to the rescan stored, and the whole tick.
struct Tick {
    rescan: f64,
    whole: f64,
}

pub fn daemon_tick(detect: &Path, file: &Path, store: &Path, data: &Path) -> Option<Outcome> {
    if !store.is_file() {
        return None;
    }
    let dir = data.join("daemon-tick");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("logs")).expect("daemon-tick dir");
    let db = dir.join("store.db");
    std::fs::copy(store, &db).expect("copy the store");
    let config = dir.join("detect.toml");
    std::fs::write(
        &config,
        format!(
            "database = \"sqlite://{}\"\nreport_dir = \"{}\"\nseasons = [1]\n\
             [schedule]\nscan = \"*/2 * * * * *\"\n[[source]]\ndirectory = \"{}\"\n",
            db.display(),
            dir.join("reports").display(),
            dir.join("logs").display()
        ),
    )
    .expect("write the configuration");
    let log = dir.join("daemon.log");
    let mut child = Command::new(detect)
        .args(["daemon", "--config"])
        .arg(&config)
        .env("RUST_LOG", "info,sqlx=error")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).expect("daemon log"))
        .spawn()
        .expect("start the daemon");
    wait_for(&mut child, &log, |l| finished(l).count() >= 1)?;
    let mut ticks = Vec::new();
    for days in [2, 3] {
        let before = with_moves(&log);
        let hidden = dir.join(format!("logs/.tick-{days}.jsonl"));
        write_tick(file, &hidden, days);
        std::fs::rename(&hidden, dir.join(format!("logs/tick-{days}.jsonl"))).ok()?;
        wait_for(&mut child, &log, |l| with_moves_in(l) > before)?;
        ticks.push(last_tick(&std::fs::read_to_string(&log).ok()?)?);
    }
    let (peak_kb, resident_kb) = (
        status_kb(child.id(), "VmHWM:"),
        status_kb(child.id(), "VmRSS:"),
    );
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
    let last = ticks.last()?;
    Some(Outcome {
        seconds: last.rescan,
        peak_kb,
        note: format!(
            "{TICK_MOVES} moves ingested and rescanned in a running daemon: {:.2} s, then {:.2} s; \
             the whole ticks, with the season's report: {:.1} s, {:.1} s; resident after them {:.0} MB",
            ticks[0].rescan,
            ticks[1].rescan,
            ticks[0].whole,
            ticks[1].whole,
            resident_kb as f64 / 1024.0
        ),
    })
}

/// The log's finished ticks.
fn finished(log: &str) -> impl Iterator<Item = &str> {
    log.lines().filter(|l| l.contains("tick finished"))
}

fn with_moves_in(log: &str) -> usize {
    finished(log).filter(|l| !l.contains("new_moves=0")).count()
}

fn with_moves(log: &Path) -> usize {
    with_moves_in(&std::fs::read_to_string(log).unwrap_or_default())
}

/// Waits (an hour at most) until the log satisfies `done`; `None` if the
/// daemon exits or the hour passes.
fn wait_for(child: &mut Child, log: &Path, done: impl Fn(&str) -> bool) -> Option<()> {
    let started = Instant::now();
    while !done(&std::fs::read_to_string(log).unwrap_or_default()) {
        if child.try_wait().ok()?.is_some() || started.elapsed() > Duration::from_secs(3600) {
            eprintln!(
                "daemon-tick: the daemon stopped or took an hour; its log: {}",
                log.display()
            );
            let _ = child.kill();
            return None;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Some(())
}

/// The last tick with moves: from its start to its rescan (or scan)
/// stored, and its whole time.
fn last_tick(log: &str) -> Option<Tick> {
    let time = |l: &str| {
        chrono::DateTime::parse_from_rfc3339(l.split_whitespace().next()?)
            .ok()
            .map(|t| t.timestamp_micros() as f64 / 1e6)
    };
    let lines: Vec<&str> = log.lines().collect();
    let end = lines
        .iter()
        .rposition(|l| l.contains("tick finished") && !l.contains("new_moves=0"))?;
    let start = lines[..end]
        .iter()
        .rposition(|l| l.contains("tick started"))?;
    let stored = lines[start..end]
        .iter()
        .find(|l| l.contains("rescan stored") || l.contains("scan stored"))?;
    let t0 = time(lines[start])?;
    Some(Tick {
        rescan: time(stored)? - t0,
        whole: time(lines[end])? - t0,
    })
}

/// A memory figure of the process (`VmHWM:`, its peak, or `VmRSS:`), in
/// kB; 0 if unknown.
fn status_kb(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))?
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()
        })
        .unwrap_or(0)
}
