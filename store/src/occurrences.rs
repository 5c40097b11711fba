//! The one numbering of identical moves: a log that really holds the same
//! move twice keeps both, and the same move read again stores nothing new.

use super::NewMove;
use schema::Move;
use std::collections::HashMap;

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
