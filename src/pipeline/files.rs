//! Segments straight from log files, without a store (`report --input`).

use super::spinner;
use anyhow::{anyhow, Result};
use ingest::{open_log_with, Limits, Segmenter};
use schema::{Names, Segments};

/// Reads logs straight into segments, storing nothing: `detect report
/// --input`. Sorts by time (stably) unless `reference_order`.
///
/// Reading and segmenting overlap: a reader thread parses lines and interns
/// user and game names into 24-byte moves, sent in chunks with their
/// addresses as text; this thread interns the addresses and segments the
/// moves as they come (the reader was the slower of the two). A log found out of time order is read again, sorted and
/// segmented at the end; only standard input, which cannot be read twice,
/// has its moves kept meanwhile.
pub fn segments_from_files(
    files: &[String],
    bucket_seconds: i64,
    reference_order: bool,
    limits: &Limits,
) -> Result<Segments> {
    let keep = !reference_order && files.iter().any(|f| f == "-");
    let (tx, rx) = std::sync::mpsc::sync_channel::<Chunk>(8);
    let reader = {
        let files = files.to_vec();
        let limits = *limits;
        std::thread::spawn(move || {
            read_compact(&files, &limits, |chunk| {
                tx.send(chunk).map_err(|_| anyhow!("the segmenter stopped"))
            })
        })
    };
    let mut seg = Segmenter::new(bucket_seconds);
    let mut ips = Names::default();
    let mut kept: Vec<Vec<Compact>> = Vec::new();
    let mut latest = i64::MIN;
    let mut in_order = true;
    for chunk in rx {
        let chunk = chunk.resolve(&mut ips);
        for m in &chunk {
            in_order &= m.timestamp >= latest;
            latest = latest.max(m.timestamp);
            if in_order || reference_order {
                seg.push_ids(m.user, m.game, m.timestamp, m.ip);
            }
        }
        if keep {
            kept.push(chunk);
        }
    }
    let names = reader
        .join()
        .map_err(|_| anyhow!("the log reader panicked"))??;
    if in_order || reference_order {
        return Ok(seg.finish_with_names(names.0, names.1, ips));
    }
    drop(seg);
    let (mut moves, (users, games), ips) = if keep {
        (kept.concat(), names, ips)
    } else {
        let mut moves = Vec::new();
        let mut ips = Names::default();
        let names = read_compact(files, limits, |chunk| {
            moves.extend_from_slice(&chunk.resolve(&mut ips));
            Ok(())
        })?;
        (moves, names, ips)
    };
    moves.sort_by_key(|m| m.timestamp);
    let mut seg = Segmenter::new(bucket_seconds);
    for m in &moves {
        seg.push_ids(m.user, m.game, m.timestamp, m.ip);
    }
    Ok(seg.finish_with_names(users, games, ips))
}

/// A move with its names interned: 24 bytes.
#[derive(Clone, Copy)]
struct Compact {
    timestamp: i64,
    user: u32,
    game: u32,
    ip: u32,
}

/// Moves as the reader hands them over: users and games interned, each
/// move's `ip` the end of its address in `ips` (it starts where the
/// previous move's ends).
struct Chunk {
    moves: Vec<Compact>,
    ips: String,
}

impl Chunk {
    const MOVES: usize = 16_384;

    fn new() -> Chunk {
        Chunk {
            moves: Vec::with_capacity(Chunk::MOVES),
            ips: String::with_capacity(Chunk::MOVES * 16),
        }
    }

    /// The moves with their addresses interned in `ips`.
    fn resolve(self, ips: &mut Names) -> Vec<Compact> {
        let mut moves = self.moves;
        let mut start = 0;
        for m in &mut moves {
            let end = m.ip as usize;
            m.ip = ips.intern(&self.ips[start..end]);
            start = end;
        }
        moves
    }
}

/// Reads logs into [`Chunk`]s handed to `each`; returns the tables of user
/// and game names.
fn read_compact(
    files: &[String],
    limits: &Limits,
    mut each: impl FnMut(Chunk) -> Result<()>,
) -> Result<(Names, Names)> {
    let (mut users, mut games) = (Names::default(), Names::default());
    for path in files {
        let mut reader = open_log_with(path, limits)?;
        let bar = spinner(format!("reading {}", reader.file()));
        let mut chunk = Chunk::new();
        let mut lines = 0u64;
        while let Some(line) = reader.next_ref() {
            if let (_, Some(m)) = line? {
                chunk.ips.push_str(&m.ip);
                chunk.moves.push(Compact {
                    timestamp: m.timestamp,
                    user: users.intern(&m.username),
                    game: games.intern(&m.game),
                    ip: u32::try_from(chunk.ips.len()).expect("a chunk's addresses fit in 4 GB"),
                });
                if chunk.moves.len() == Chunk::MOVES {
                    lines += Chunk::MOVES as u64;
                    bar.set_position(lines);
                    each(std::mem::replace(&mut chunk, Chunk::new()))?;
                }
            }
        }
        bar.finish_and_clear();
        if !chunk.moves.is_empty() {
            each(chunk)?;
        }
    }
    Ok((users, games))
}
