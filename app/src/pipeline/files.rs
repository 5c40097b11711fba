//! Segments straight from log files, without a store (`report --input`).

use super::spinner;
use anyhow::Result;
use ingest::ranges::{json_ranges, lines_before, open_log_range};
use ingest::{open_log_with, IdMove, Limits, NewNames, ReadError, ReaderNames, Segmenter};
use schema::{AccountId, Names, Segment, Segments};
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
    read_segments(files, bucket_seconds, reference_order, limits, None, None)
}

/// Where [`segments_settling_from_files`] hands over what it settles.
pub type Settle<'s> = &'s mut dyn FnMut(Handover<'_>) -> Result<()>;

/// What [`segments_settling_from_files`] hands over while it reads.
pub enum Handover<'a> {
    /// Segments no later move can change, by account (ids of `accounts`,
    /// which only grows: the ids hold in the [`Segments`] returned at the
    /// end). An account's hand-overs come in bucket order, and all of them
    /// before what the returned [`Segments`] holds for it.
    Settled {
        accounts: &'a Names,
        settled: Vec<(AccountId, Vec<Segment>)>,
    },
    /// Everything handed over so far is void: the logs were found out of
    /// time order and are segmented again, sorted, from the start.
    Restart,
}

/// [`segments_from_files`] that hands each account's settled segments to
/// `each` as the reading goes, so that memory follows the accounts and
/// their latest segments, not the season (`detect export --input`): the
/// returned [`Segments`] hold the rest of each account's segments, and
/// every sighting and day in a game. Reference order hands nothing over
/// (a move out of time order can change any earlier segment there): the
/// returned [`Segments`] are then all of them.
pub fn segments_settling_from_files(
    files: &[String],
    bucket_seconds: i64,
    reference_order: bool,
    limits: &Limits,
    each: Settle<'_>,
) -> Result<Segments> {
    read_segments(
        files,
        bucket_seconds,
        reference_order,
        limits,
        None,
        Some(each),
    )
}

/// Moves segmented between two hand-overs of settled segments, at least,
/// per account met: a hand-over walks every account.
const SETTLE_EVERY: usize = 8;

/// A sink of settled segments and the first error it gave.
struct Settling<'s> {
    each: Settle<'s>,
    since: usize,
    failed: Option<anyhow::Error>,
}

impl Settling<'_> {
    /// Counts `moves` segmented, and hands the settled segments over once
    /// [`SETTLE_EVERY`] moves an account have been segmented since the last time.
    fn moved(&mut self, moves: usize, seg: &mut Segmenter, accounts: &Names) {
        self.since += moves;
        if self.failed.is_some() || self.since < SETTLE_EVERY * accounts.len().max(1) {
            return;
        }
        self.since = 0;
        let settled = seg.take_settled();
        if let Err(e) = (self.each)(Handover::Settled { accounts, settled }) {
            self.failed = Some(e);
        }
    }

    fn restart(&mut self) -> Result<()> {
        self.since = 0;
        match self.failed.take() {
            Some(e) => Err(e),
            None => (self.each)(Handover::Restart),
        }
    }

    fn check(&mut self) -> Result<()> {
        self.failed.take().map_or(Ok(()), Err)
    }
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
        None,
    )?;
    let times = times.finish_for(&segments);
    Ok((segments, times))
}

/// Segments, and the move times into `times` when given (on the first read
/// only: a log out of time order is read again for its segments alone);
/// settled segments handed to `settle` as they come when given (not in
/// reference order).
fn read_segments(
    files: &[String],
    bucket_seconds: i64,
    reference_order: bool,
    limits: &Limits,
    mut times: Option<&mut MoveTimes>,
    settle: Option<Settle<'_>>,
) -> Result<Segments> {
    let keep = !reference_order && files.iter().any(|f| f == "-");
    let mut settle = settle.filter(|_| !reference_order).map(|each| Settling {
        each,
        since: 0,
        failed: None,
    });
    let mut seg = Segmenter::new(bucket_seconds);
    let mut kept: Vec<IdMove> = Vec::new();
    let mut latest = i64::MIN;
    let mut in_order = true;
    let tables = read_moves(files, limits, |chunk, tables| {
        if let Some(times) = times.as_deref_mut() {
            for m in chunk {
                times.push_ids(m.account, m.timestamp, m.ip);
            }
        }
        // The moves up to the first one out of time order (all of them in
        // reference order): after it, the log is read again and sorted.
        let mut pushed = 0;
        while in_order && pushed < chunk.len() {
            in_order = chunk[pushed].timestamp >= latest;
            latest = latest.max(chunk[pushed].timestamp);
            pushed += usize::from(in_order);
        }
        seg.push_all(if reference_order {
            chunk
        } else {
            &chunk[..pushed]
        });
        if let (Some(s), true) = (settle.as_mut(), in_order) {
            s.moved(chunk.len(), &mut seg, &tables.accounts);
        }
        if keep {
            kept.extend_from_slice(chunk);
        }
    })?;
    if in_order || reference_order {
        if let Some(s) = settle.as_mut() {
            s.check()?;
        }
        return Ok(seg.finish_with_names(tables.accounts, tables.games, tables.ips));
    }
    drop(seg);
    if let Some(s) = settle.as_mut() {
        s.restart()?;
    }
    let (mut moves, tables) = if keep {
        (kept, tables)
    } else {
        let mut moves = Vec::new();
        let tables = read_moves(files, limits, |chunk, _| moves.extend_from_slice(chunk))?;
        (moves, tables)
    };
    moves.sort_by_key(|m| m.timestamp);
    let mut seg = Segmenter::new(bucket_seconds);
    for m in &moves {
        seg.push_ids(m.account, m.game, m.timestamp, m.ip);
        if let Some(s) = settle.as_mut() {
            s.moved(1, &mut seg, &tables.accounts);
        }
    }
    drop(moves);
    if let Some(s) = settle.as_mut() {
        s.check()?;
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
/// chunk of moves, in file order and with its names interned, to `each`
/// with the tables of names so far.
/// The first bad line in file order ends the reading with its error.
fn read_moves(
    files: &[String],
    limits: &Limits,
    mut each: impl FnMut(&[IdMove], &Tables),
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
                    Ok(chunk) => {
                        let moves = chunk.resolve(&mut tables, &mut maps[k % readers]);
                        each(&moves, &tables);
                    }
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
