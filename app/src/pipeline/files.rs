//! Segments straight from log files, without a store (`report --input`).

use super::spinner;
use anyhow::Result;
use ingest::ranges::{json_ranges, lines_before, open_log_range};
use ingest::{open_log_with, IdMove, Limits, NewNames, ReadError, ReaderNames, Segmenter};
use schema::{Names, Segments};
use scoring::improved::MoveTimes;
use std::ops::Range;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

/// Reads logs straight into segments, storing nothing: `detect report
/// --input`. Sorts by time (stably) unless `reference_order`.
///
/// Parsing and segmenting overlap (`read_moves`): reader threads parse
/// the logs, a plain JSON-lines log in ranges side by side, and intern the
/// names each in tables of its own; this thread maps their ids to the
/// merged tables' and segments the moves in file order as they come. A
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
    let mut kept: Vec<IdMove> = Vec::new();
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

/// The names of the moves read.
#[derive(Default)]
struct Tables {
    accounts: Names,
    games: Names,
    ips: Names,
}

/// Moves as a reader hands them over: by the reader's own ids, with the
/// names it met since its last chunk.
struct Chunk {
    moves: Vec<IdMove>,
    new: NewNames,
}

impl Chunk {
    const MOVES: usize = 16_384;

    fn new() -> Chunk {
        Chunk {
            moves: Vec::with_capacity(Chunk::MOVES),
            new: NewNames::default(),
        }
    }

    /// The moves by the ids of `t`, through `map` (the reader's ids in `t`,
    /// which the chunk's new names extend: interned here in the reader's
    /// order, which is file order, so ids still follow first appearance).
    fn resolve(self, t: &mut Tables, map: &mut IdMap) -> Vec<IdMove> {
        let extend = |map: &mut Vec<u32>, names: Vec<String>, table: &mut Names| {
            map.extend(names.iter().map(|n| table.intern(n)));
        };
        extend(&mut map.accounts, self.new.accounts, &mut t.accounts);
        extend(&mut map.games, self.new.games, &mut t.games);
        extend(&mut map.ips, self.new.ips, &mut t.ips);
        let mut moves = self.moves;
        for m in &mut moves {
            m.account = map.accounts[m.account as usize];
            m.game = map.games[m.game as usize];
            m.ip = map.ips[m.ip as usize];
        }
        moves
    }
}

/// One reader's ids in the merged tables, by the reader's id.
#[derive(Default)]
struct IdMap {
    accounts: Vec<u32>,
    games: Vec<u32>,
    ips: Vec<u32>,
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
    mut each: impl FnMut(&[IdMove]),
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
                let mut names = ReaderNames::default();
                for (unit, tx) in mine {
                    if read_unit(unit, limits, &mut names, &tx).is_err() {
                        return;
                    }
                }
            });
        }
        let mut tables = Tables::default();
        let mut maps: Vec<IdMap> = (0..readers).map(|_| IdMap::default()).collect();
        let mut bar = None;
        for (k, (unit, rx)) in units.iter().zip(receivers).enumerate() {
            if unit.range.as_ref().is_none_or(|r| r.start == 0) {
                bar = Some(spinner(format!(
                    "reading {}",
                    viz::escape::terminal(&unit.path)
                )));
            }
            for sent in rx {
                match sent {
                    Ok(chunk) => each(&chunk.resolve(&mut tables, &mut maps[k % readers])),
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

/// Reads one unit into chunks sent on `tx`, by the ids of the reader's
/// `names`; `Err` when the reading ends early (a bad line, sent on, or
/// nobody listening any more).
fn read_unit(
    unit: &Unit,
    limits: &Limits,
    names: &mut ReaderNames,
    tx: &SyncSender<Sent>,
) -> Result<(), ()> {
    let opened = match &unit.range {
        Some(r) => open_log_range(&unit.path, limits, r.clone()),
        None => open_log_with(&unit.path, limits),
    };
    let mut reader = match opened {
        Ok(r) => r,
        Err(e) => return tx.send(Err(e)).map_err(|_| ()).and(Err(())),
    };
    let mut chunk = Chunk::new();
    while let Some(line) = reader.next_ids(names) {
        match line {
            Ok((_, Some(m))) => {
                chunk.moves.push(m);
                if chunk.moves.len() == Chunk::MOVES {
                    chunk.new = names.take_new();
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
        chunk.new = names.take_new();
        tx.send(Ok(chunk)).map_err(|_| ())?;
    }
    Ok(())
}
