//! One account's moves indexed for hand-offs ([`MoveIndex`]), built once
//! per scan: by address, and by cells of time (64 slices of
//! 32 seconds each) with bit masks of the slices moved in and of
//! those beside them, so that the search for close moves
//! ([`super::handoffs::indexed`]) compares moves only where two can be
//! that close.

use super::moves::groups;
use schema::{Epoch, IpId};

/// The width of a slice of time: two moves this far apart or less lie in
/// one slice or in two side by side.
pub(super) const SLICE_SECONDS: i64 = 32;
/// A cell is 64 slices.
pub(super) const CELL_SECONDS: i64 = 64 * SLICE_SECONDS;

/// One account's moves (sorted by time) and their index.
pub type Indexed<'a> = (&'a [(Epoch, IpId)], &'a MoveIndex);

/// One account's moves (sorted by time), indexed by address and by cell
/// of time. Build with [`MoveIndex::new`] on the moves it is used with.
#[derive(Debug, Clone, Default)]
pub struct MoveIndex {
    /// The addresses moved from, ascending; the moves (indexes, ascending)
    /// from `ips[i]` are `by_ip[ip_from[i]..ip_from[i + 1]]`.
    pub(super) ips: Vec<IpId>,
    pub(super) ip_from: Vec<u32>,
    pub(super) by_ip: Vec<u32>,
    /// The word number of the first word of `cells`.
    pub(super) first: i64,
    /// The cells with a move, as bits (absolute cell numbers, 64 a word).
    pub(super) cells: Vec<u64>,
    /// Cells with a move in the words before each word.
    pub(super) rank: Vec<u32>,
    /// Per cell with a move: the slices with a move, and where its moves
    /// begin (one more entry, the end).
    pub(super) slices: Vec<u64>,
    pub(super) cell_from: Vec<u32>,
    /// The cells with a move in them or beside them, as bits (same words
    /// as `cells`), with their ranks and, per such cell, the slices with a
    /// move in them or beside them (across cells too).
    pub(super) near: Vec<u64>,
    pub(super) near_rank: Vec<u32>,
    pub(super) near_slices: Vec<u64>,
}

impl MoveIndex {
    pub fn new(moves: &[(Epoch, IpId)]) -> Self {
        let mut index = MoveIndex {
            ip_from: vec![0],
            ..MoveIndex::default()
        };
        let (Some(lo), Some(hi)) = (moves.first(), moves.last()) else {
            return index;
        };
        index.group_by_address(moves);
        // A word of margin each side, for the cells beside.
        index.first = lo.0.div_euclid(CELL_SECONDS).div_euclid(64) - 1;
        let words = (hi.0.div_euclid(CELL_SECONDS).div_euclid(64) - index.first + 2) as usize;
        index.cells = vec![0; words];
        let mut cells = Vec::new();
        for (i, &(t, _)) in moves.iter().enumerate() {
            let cell = t.div_euclid(CELL_SECONDS);
            if cells.last() != Some(&cell) {
                cells.push(cell);
                index.slices.push(0);
                index.cell_from.push(i as u32);
            }
            let slice = t.rem_euclid(CELL_SECONDS) / SLICE_SECONDS;
            *index.slices.last_mut().expect("pushed") |= 1 << slice;
        }
        index.cell_from.push(moves.len() as u32);
        let near = near_slices(&cells, &index.slices);
        index.near = vec![0; words];
        for (row, list) in [(&mut index.cells, &cells), (&mut index.near, &near.0)] {
            for &c in list {
                let at = (c - index.first * 64) as usize;
                row[at / 64] |= 1 << (at % 64);
            }
        }
        index.near_slices = near.1;
        index.rank = ranks(&index.cells);
        index.near_rank = ranks(&index.near);
        index
    }

    fn group_by_address(&mut self, moves: &[(Epoch, IpId)]) {
        let mut pairs: Vec<(IpId, u32)> = moves
            .iter()
            .enumerate()
            .map(|(i, m)| (m.1, i as u32))
            .collect();
        pairs.sort_unstable();
        (self.ips, self.ip_from, self.by_ip) = groups(&pairs);
    }

    /// The moves (indexes) from the `i`-th address.
    pub(super) fn group(&self, i: usize) -> &[u32] {
        &self.by_ip[self.ip_from[i] as usize..self.ip_from[i + 1] as usize]
    }

    /// How many cells with a move come before cell `c`.
    pub(super) fn cells_before(&self, c: i64) -> usize {
        let w = c.div_euclid(64) - self.first;
        if w < 0 {
            return 0;
        }
        match self.cells.get(w as usize) {
            Some(&bits) => {
                let below = bits & ((1u64 << c.rem_euclid(64)) - 1);
                self.rank[w as usize] as usize + below.count_ones() as usize
            }
            None => self.slices.len(),
        }
    }
}

/// Moves before each word of a bit row (its rank).
fn ranks(row: &[u64]) -> Vec<u32> {
    let mut seen = 0u32;
    row.iter()
        .map(|w| {
            let r = seen;
            seen += w.count_ones();
            r
        })
        .collect()
}

/// The cells in or beside `cells` (ascending) and, for each, the slices
/// with a move in them or beside them: a move's slice and the slices either
/// side of it, across the edge of its cell.
fn near_slices(cells: &[i64], slices: &[u64]) -> (Vec<i64>, Vec<u64>) {
    let (mut at, mut masks): (Vec<i64>, Vec<u64>) = (Vec::new(), Vec::new());
    for (&c, &s) in cells.iter().zip(slices) {
        for (cell, mask) in [
            (c - 1, (s & 1) << 63),
            (c, s | s << 1 | s >> 1),
            (c + 1, s >> 63),
        ] {
            // Cells arrive ascending but for the two before `c`, which
            // may already be there: they are among the last two.
            let back = at.len().saturating_sub(2);
            match at[back..].iter().position(|&x| x == cell) {
                Some(p) => masks[back + p] |= mask,
                None => {
                    at.push(cell);
                    masks.push(mask);
                }
            }
        }
    }
    (at, masks)
}
