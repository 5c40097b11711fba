//! The one way moves come in: an [`IngestBatch`] numbers identical moves
//! (see [`Occurrences`]) and hands them to the store in bounded chunks, so
//! memory does not grow with a file, all in the batch's one transaction.
//! The command line, the daemon's watched directories and its site
//! databases all feed it.

use super::{IngestBatch, NewMove, Result};
use schema::model::Move;
use std::collections::HashMap;

/// Moves handed to the store per insert statement batch.
pub const INSERT_CHUNK: usize = 5000;

impl IngestBatch<'_> {
    /// Adds one move read from a file: numbered among identical moves of the
    /// batch, and stored once a chunk is full (or at commit).
    pub async fn push(&mut self, m: Move) -> Result<()> {
        let numbered = self.occurrences.number(m);
        self.pending.push(numbered);
        if self.pending.len() >= INSERT_CHUNK {
            self.flush().await?;
        }
        Ok(())
    }

    /// Stores the moves pushed and not yet stored.
    pub(super) async fn flush(&mut self) -> Result<()> {
        if !self.pending.is_empty() {
            let chunk = std::mem::take(&mut self.pending);
            self.insert(&chunk).await?;
            self.pending = chunk;
            self.pending.clear();
        }
        Ok(())
    }

    /// Moves stored for the first time so far (pushed moves count once they
    /// are flushed; [`IngestBatch::commit`] returns the final count).
    pub async fn stored_so_far(&mut self) -> Result<u64> {
        self.flush().await?;
        Ok(self.stored)
    }
}

/// Numbers identical records within one file, so that a log which really
/// holds the same move twice keeps both while a second ingest of the file
/// stores nothing. For time-sorted input only the current second is kept in
/// memory.
#[derive(Default)]
pub(super) struct Occurrences {
    seen: HashMap<(String, String, i64, String), u32>,
    latest: i64,
    sorted: bool,
}

impl Occurrences {
    pub(super) fn new() -> Self {
        Occurrences {
            seen: HashMap::new(),
            latest: i64::MIN,
            sorted: true,
        }
    }

    pub(super) fn number(&mut self, m: Move) -> NewMove {
        if m.timestamp < self.latest {
            self.sorted = false;
        } else if m.timestamp > self.latest {
            if self.sorted {
                self.seen.clear();
            }
            self.latest = m.timestamp;
        }
        let key = (m.username, m.game, m.timestamp, m.ip);
        let n = self.seen.entry(key.clone()).or_insert(0);
        let occurrence = *n;
        *n += 1;
        let (username, game, timestamp, ip) = key;
        NewMove {
            mv: Move {
                username,
                game,
                timestamp,
                ip,
            },
            occurrence,
        }
    }
}
