//! Segments straight from log files, without a store (`report --input`).

use super::spinner;
use anyhow::{anyhow, Result};
use ingest::{open_log_with, Limits, Segmenter};
use schema::{Names, Segments};

/// Reads logs straight into segments, storing nothing: `detect report
/// --input`. Sorts by time (stably) unless `reference_order`.
///
/// Reading and segmenting overlap: a reader thread parses lines and interns
/// names into 24-byte moves, sent in chunks; this thread segments them as
/// they come. A log found out of time order is read again, sorted and
/// segmented at the end; only standard input, which cannot be read twice,
/// has its moves kept meanwhile.
pub fn segments_from_files(
    files: &[String],
    bucket_seconds: i64,
    reference_order: bool,
    limits: &Limits,
) -> Result<Segments> {
    let keep = !reference_order && files.iter().any(|f| f == "-");
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<Compact>>(8);
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
    let mut kept: Vec<Vec<Compact>> = Vec::new();
    let mut latest = i64::MIN;
    let mut in_order = true;
    for chunk in rx {
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
        return Ok(seg.finish_with_names(names.0, names.1, names.2));
    }
    drop(seg);
    let (mut moves, (users, games, ips)) = if keep {
        (kept.concat(), names)
    } else {
        let mut moves = Vec::new();
        let names = read_compact(files, limits, |chunk| {
            moves.extend_from_slice(&chunk);
            Ok(())
        })?;
        (moves, names)
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

/// Reads logs into chunks of [`Compact`] moves handed to `each`; returns the
/// tables of user, game and IP names.
fn read_compact(
    files: &[String],
    limits: &Limits,
    mut each: impl FnMut(Vec<Compact>) -> Result<()>,
) -> Result<(Names, Names, Names)> {
    const CHUNK: usize = 16_384;
    let (mut users, mut games, mut ips) = (Names::default(), Names::default(), Names::default());
    for path in files {
        let mut reader = open_log_with(path, limits)?;
        let bar = spinner(format!("reading {}", reader.file()));
        let mut chunk = Vec::with_capacity(CHUNK);
        let mut lines = 0u64;
        while let Some(line) = reader.next_ref() {
            if let (_, Some(m)) = line? {
                chunk.push(Compact {
                    timestamp: m.timestamp,
                    user: users.intern(&m.username),
                    game: games.intern(&m.game),
                    ip: ips.intern(&m.ip),
                });
                if chunk.len() == CHUNK {
                    lines += CHUNK as u64;
                    bar.set_position(lines);
                    each(std::mem::replace(&mut chunk, Vec::with_capacity(CHUNK)))?;
                }
            }
        }
        bar.finish_and_clear();
        if !chunk.is_empty() {
            each(chunk)?;
        }
    }
    Ok((users, games, ips))
}
