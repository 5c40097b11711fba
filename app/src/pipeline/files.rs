//! Segments straight from log files, without a store (`report --input`).

use super::spinner;
use anyhow::Result;
use ingest::ranges::{json_ranges, lines_before, open_log_range};
use ingest::{open_log_with, Limits, ReadError, Segmenter};
use schema::{Names, Segments};
use scoring::improved::MoveTimes;
use std::ops::Range;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

/// Reads logs straight into segments, storing nothing: `detect report
/// --input`. Sorts by time (stably) unless `reference_order`.
///
/// Parsing and segmenting overlap (`read_moves`): reader threads parse
/// the logs, a plain JSON-lines log in ranges side by side, and this thread
/// interns the names and segments the moves in file order as they come. A
/// log found out of time order is read again, sorted and segmented at the
/// end; only standard input, which cannot be read twice, has its moves kept
/// meanwhile.
pub fn segments_from_files(
    files: &[String],
    bucket_seconds: i64,
    reference_order: bool,
    limits: &Limits,
) -> Result<Segments> {
    read_segments(files, bucket_seconds, reference_order, limits, None)
}

/// [`segments_from_files`] and every move's second and address beside them
/// (improved mode), from the same one read of the logs: standard input
/// cannot be read twice.
pub fn segments_and_times_from_files(
    files: &[String],
    bucket_seconds: i64,
    reference_order: bool,
    limits: &Limits,
) -> Result<(Segments, MoveTimes)> {
    let mut times = MoveTimes::default();
    let segments = read_segments(
        files,
        bucket_seconds,
        reference_order,
        limits,
        Some(&mut times),
    )?;
    let times = times.finish_for(&segments);
    Ok((segments, times))
}

/// Segments, and the move times into `times` when given (on the first read
/// only: a log out of time order is read again for its segments alone).
fn read_segments(
    files: &[String],
    bucket_seconds: i64,
    reference_order: bool,
    limits: &Limits,
    mut times: Option<&mut MoveTimes>,
) -> Result<Segments> {
    let keep = !reference_order && files.iter().any(|f| f == "-");
    let mut seg = Segmenter::new(bucket_seconds);
    let mut kept: Vec<Compact> = Vec::new();
    let mut latest = i64::MIN;
    let mut in_order = true;
    let tables = read_moves(files, limits, |chunk| {
        if let Some(times) = times.as_deref_mut() {
            for m in chunk {
                times.push_ids(m.account, m.timestamp, m.ip);
            }
        }
        for m in chunk {
            in_order &= m.timestamp >= latest;
            latest = latest.max(m.timestamp);
            if in_order || reference_order {
                seg.push_ids(m.account, m.game, m.timestamp, m.ip);
            }
        }
        if keep {
            kept.extend_from_slice(chunk);
        }
    })?;
    if in_order || reference_order {
        return Ok(seg.finish_with_names(tables.accounts, tables.games, tables.ips));
    }
    drop(seg);
    let (mut moves, tables) = if keep {
        (kept, tables)
    } else {
        let mut moves = Vec::new();
        let tables = read_moves(files, limits, |chunk| moves.extend_from_slice(chunk))?;
        (moves, tables)
    };
    moves.sort_by_key(|m| m.timestamp);
    let mut seg = Segmenter::new(bucket_seconds);
    for m in &moves {
        seg.push_ids(m.account, m.game, m.timestamp, m.ip);
    }
    Ok(seg.finish_with_names(tables.accounts, tables.games, tables.ips))
}

/// A move with its names interned: 24 bytes.
#[derive(Clone, Copy)]
struct Compact {
    timestamp: i64,
    account: u32,
    game: u32,
    ip: u32,
}

/// The names of the moves read.
#[derive(Default)]
struct Tables {
    accounts: Names,
    games: Names,
    ips: Names,
}

/// Moves as a reader hands them over, names not yet interned: each move's
/// `account`, `game` and `ip` are where its account, game and address end in
/// `text` (each starts where the one before ends).
struct Chunk {
    moves: Vec<Compact>,
    text: String,
}

impl Chunk {
    const MOVES: usize = 16_384;

    fn new() -> Chunk {
        Chunk {
            moves: Vec::with_capacity(Chunk::MOVES),
            text: String::with_capacity(Chunk::MOVES * 40),
        }
    }

    /// The moves with their names interned in `t`.
    fn resolve(self, t: &mut Tables) -> Vec<Compact> {
        let mut moves = self.moves;
        let mut start = 0;
        let mut next = |end: u32, names: &mut Names| {
            let id = names.intern(&self.text[start..end as usize]);
            start = end as usize;
            id
        };
        for m in &mut moves {
            m.account = next(m.account, &mut t.accounts);
            m.game = next(m.game, &mut t.games);
            m.ip = next(m.ip, &mut t.ips);
        }
        moves
    }
}

/// One piece of reading: a whole log, or a range of a plain JSON-lines log.
struct Unit {
    path: String,
    range: Option<Range<u64>>,
}

/// What a reader sends for a unit: chunks, then at most one error.
type Sent = std::result::Result<Chunk, ReadError>;

/// Reads the logs on reader threads, a unit each in turn, and hands every
/// chunk of moves, in file order and with its names interned, to `each`.
/// The first bad line in file order ends the reading with its error.
fn read_moves(
    files: &[String],
    limits: &Limits,
    mut each: impl FnMut(&[Compact]),
) -> Result<Tables> {
    let units: Vec<Unit> = files
        .iter()
        .flat_map(|path| match json_ranges(path) {
            Some(ranges) if ranges.len() > 1 => ranges
                .into_iter()
                .map(|r| Unit {
                    path: path.clone(),
                    range: Some(r),
                })
                .collect(),
            _ => vec![Unit {
                path: path.clone(),
                range: None,
            }],
        })
        .collect();
    let readers = units.len().clamp(1, 2);
    let mut work: Vec<Vec<(&Unit, SyncSender<Sent>)>> = (0..readers).map(|_| Vec::new()).collect();
    let mut receivers: Vec<Receiver<Sent>> = Vec::new();
    for (k, unit) in units.iter().enumerate() {
        let (tx, rx) = sync_channel(capacity(unit));
        work[k % readers].push((unit, tx));
        receivers.push(rx);
    }
    std::thread::scope(|s| {
        for mine in work {
            s.spawn(move || {
                for (unit, tx) in mine {
                    if read_unit(unit, limits, &tx).is_err() {
                        return;
                    }
                }
            });
        }
        let mut tables = Tables::default();
        let mut bar = None;
        for (unit, rx) in units.iter().zip(receivers) {
            if unit.range.as_ref().is_none_or(|r| r.start == 0) {
                bar = Some(spinner(format!(
                    "reading {}",
                    viz::escape::terminal(&unit.path)
                )));
            }
            for sent in rx {
                match sent {
                    Ok(chunk) => each(&chunk.resolve(&mut tables)),
                    Err(e) => return Err(in_file(e, unit).into()),
                }
            }
        }
        drop(bar);
        Ok(tables)
    })
}

/// Chunks enough to hold a whole range (a move is some 40 bytes or more of
/// log), so that a reader a range ahead does not wait.
fn capacity(unit: &Unit) -> usize {
    unit.range
        .as_ref()
        .map_or(8, |r| (r.end - r.start) as usize / (40 * Chunk::MOVES) + 2)
}

/// A range's error with its line counted in the whole file.
fn in_file(mut e: ReadError, unit: &Unit) -> ReadError {
    if let (Some(line), Some(r)) = (e.line, &unit.range) {
        if r.start > 0 {
            match lines_before(&unit.path, r.start) {
                Ok(before) => e.line = Some(line + before),
                Err(_) => e.line = None,
            }
        }
    }
    e
}

/// Reads one unit into chunks sent on `tx`; `Err` when the reading ends
/// early (a bad line, sent on, or nobody listening any more).
fn read_unit(unit: &Unit, limits: &Limits, tx: &SyncSender<Sent>) -> Result<(), ()> {
    let opened = match &unit.range {
        Some(r) => open_log_range(&unit.path, limits, r.clone()),
        None => open_log_with(&unit.path, limits),
    };
    let mut reader = match opened {
        Ok(r) => r,
        Err(e) => return tx.send(Err(e)).map_err(|_| ()).and(Err(())),
    };
    let mut chunk = Chunk::new();
    while let Some(line) = reader.next_ref() {
        match line {
            Ok((_, Some(m))) => {
                let end =
                    |text: &String| u32::try_from(text.len()).expect("a chunk's names fit in 4 GB");
                chunk.text.push_str(&m.username);
                let account = end(&chunk.text);
                chunk.text.push_str(&m.game);
                let game = end(&chunk.text);
                chunk.text.push_str(&m.ip);
                let ip = end(&chunk.text);
                chunk.moves.push(Compact {
                    timestamp: m.timestamp,
                    account,
                    game,
                    ip,
                });
                if chunk.moves.len() == Chunk::MOVES {
                    tx.send(Ok(std::mem::replace(&mut chunk, Chunk::new())))
                        .map_err(|_| ())?;
                }
            }
            Ok((_, None)) => {}
            Err(e) => {
                let _ = tx.send(Err(e));
                return Err(());
            }
        }
    }
    if !chunk.moves.is_empty() {
        tx.send(Ok(chunk)).map_err(|_| ())?;
    }
    Ok(())
}
