//! The event queue: what can happen (logins, moves, game openings) and the
//! order in which it happens.

use super::Sim;
use std::cmp::Ordering;

#[derive(Debug, Clone, Copy)]
pub(super) enum Ev {
    /// An account logs in until `until`, from `ip`.
    Activate { account: u32, until: i64, ip: u32 },
    /// An account moves in a game.
    Move { game: u32, account: u32, ip: u32 },
    /// A new game opens: its first player's turn begins.
    Open { game: u32 },
}

pub(super) struct Entry {
    pub(super) t: i64,
    pub(super) seq: u64,
    pub(super) ev: Ev,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        (self.t, self.seq) == (o.t, o.seq)
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    /// Reversed: the heap pops the earliest event, ties in push order.
    fn cmp(&self, o: &Self) -> Ordering {
        (o.t, o.seq).cmp(&(self.t, self.seq))
    }
}

impl Sim {
    pub(super) fn push(&mut self, t: i64, ev: Ev) {
        debug_assert!(t >= self.now);
        self.seq += 1;
        self.heap.push(Entry {
            t,
            seq: self.seq,
            ev,
        });
    }
}
