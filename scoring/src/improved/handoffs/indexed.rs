//! Hand-offs as the scan computes them: the same counts as
//! [`super::handoffs`], from each account's moves put once per scan into
//! an index ([`MoveIndex`]) instead of merging the two accounts' moves.
//!
//! - **switches** need the two moves to share an address, so only the
//!   addresses both accounts moved from are looked at: each of one
//!   account's moves from such an address whose move just before it (in
//!   the merge of both accounts' moves) is the other's, from that address
//!   and within the sitting horizon. These are put in merge order and
//!   counted by `super::count_switch`, as the merge would count them.
//! - **close** moves are at most [`CLOSE_SECONDS`] apart, so only cells of
//!   time in which both moved, or side by side, are looked at; within a
//!   cell, a mask of 32-second slices says whether two moves can be that
//!   close before any move is compared.
//!
//! What this is not: a second definition. [`super::handoffs`] is the
//! definition; `scoring/tests/it/improved_scan_path.rs` checks that both agree
//! on arbitrary moves.

use super::{close, count_switch, Handoffs, CLOSE_SECONDS};
use crate::improved::context::Context;
use crate::improved::signals::SITTING_SECONDS;
use schema::{Epoch, IpId};

/// The width of a slice of time: two moves [`CLOSE_SECONDS`] apart or less
/// lie in one slice or in two side by side.
const SLICE_SECONDS: i64 = 32;
/// A cell is 64 slices.
const CELL_SECONDS: i64 = 64 * SLICE_SECONDS;
const _: () = assert!(SLICE_SECONDS >= CLOSE_SECONDS && CELL_SECONDS >= CLOSE_SECONDS);

/// One account's moves (sorted by time), indexed by address and by cell
/// of time. Build with [`MoveIndex::new`] on the moves it is used with.
#[derive(Debug, Clone, Default)]
pub struct MoveIndex {
    /// The addresses moved from, ascending; the moves (indexes, ascending)
    /// from `ips[i]` are `by_ip[ip_from[i]..ip_from[i + 1]]`.
    ips: Vec<IpId>,
    ip_from: Vec<u32>,
    by_ip: Vec<u32>,
    /// The word number of the first word of `cells`.
    first: i64,
    /// The cells with a move, as bits (absolute cell numbers, 64 a word).
    cells: Vec<u64>,
    /// Cells with a move in the words before each word.
    rank: Vec<u32>,
    /// Per cell with a move: the slices with a move, and where its moves
    /// begin (one more entry, the end).
    slices: Vec<u64>,
    cell_from: Vec<u32>,
    /// The cells with a move in them or beside them, as bits (same words
    /// as `cells`), with their ranks and, per such cell, the slices with a
    /// move in them or beside them (across cells too).
    near: Vec<u64>,
    near_rank: Vec<u32>,
    near_slices: Vec<u64>,
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
        (self.ips, self.ip_from, self.by_ip) = crate::improved::moved::groups(&pairs);
    }

    /// The moves (indexes) from the `i`-th address.
    fn group(&self, i: usize) -> &[u32] {
        &self.by_ip[self.ip_from[i] as usize..self.ip_from[i + 1] as usize]
    }

    /// How many cells with a move come before cell `c`.
    fn cells_before(&self, c: i64) -> usize {
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

/// One account's moves (sorted by time) and their index.
pub type Indexed<'a> = (&'a [(Epoch, IpId)], &'a MoveIndex);

/// [`super::handoffs`] from both accounts' indexes.
pub fn handoffs_indexed(cx: &Context<'_>, x: Indexed<'_>, y: Indexed<'_>) -> Handoffs {
    // The definition's order: ties go to the lesser move list.
    let (a, b) = if x.0 <= y.0 { (x, y) } else { (y, x) };
    // Closeness is mutual: without a close move of `a` there is none of `b`.
    let close = match close_indexed(a, b) {
        0 => 0,
        n => n + close_indexed(b, a),
    };
    let mut out = Handoffs {
        close,
        ..Handoffs::default()
    };
    let mut found: Vec<Switch> = Vec::new();
    let (mut i, mut j) = (0usize, 0usize);
    while i < a.1.ips.len() && j < b.1.ips.len() {
        match a.1.ips[i].cmp(&b.1.ips[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                let (ga, gb) = (a.1.group(i), b.1.group(j));
                switches_after((a.0, ga), (b.0, gb), false, &mut found);
                switches_after((b.0, gb), (a.0, ga), true, &mut found);
                i += 1;
                j += 1;
            }
        }
    }
    // Merge order: by time and address, `a` first among equals.
    found.sort_unstable_by_key(|s| (s.move_.0, s.move_.1, s.of_b));
    let mut last_switch = None;
    for s in found {
        let prev = (s.prev_time, s.move_.1, !s.of_b);
        count_switch(cx, &mut out, &mut last_switch, prev, s.move_);
    }
    out
}

/// A move of one account right after a move of the other from the same
/// address within the sitting horizon.
struct Switch {
    move_: (Epoch, IpId),
    of_b: bool,
    prev_time: Epoch,
}

/// The moves of `mine` (indexes into my moves, all from one address) whose
/// move just before them in the merge is one of `theirs` (the other's moves
/// from that address) within the sitting horizon. `of_b`: whether I am
/// `b`, whose moves come after `a`'s equal ones.
fn switches_after(
    (my_moves, mine): (&[(Epoch, IpId)], &[u32]),
    (their_moves, theirs): (&[(Epoch, IpId)], &[u32]),
    of_b: bool,
    found: &mut Vec<Switch>,
) {
    // Whether their move `o` comes before my move `m` in the merge.
    let before = |o: (Epoch, IpId), m: (Epoch, IpId)| if of_b { o <= m } else { o < m };
    let mut q = 0usize;
    for &i in mine {
        let m = my_moves[i as usize];
        while q < theirs.len() && before(their_moves[theirs[q] as usize], m) {
            q += 1;
        }
        let Some(&j) = q.checked_sub(1).map(|p| &theirs[p]) else {
            continue;
        };
        let (j, o) = (j as usize, their_moves[j as usize]);
        let last_of_theirs = their_moves.get(j + 1).is_none_or(|&n| !before(n, m));
        let after_my_previous = i == 0 || !before(o, my_moves[i as usize - 1]);
        if m.0 - o.0 <= SITTING_SECONDS && last_of_theirs && after_my_previous {
            found.push(Switch {
                move_: m,
                of_b,
                prev_time: o.0,
            });
        }
    }
}

/// Moves of `me` with a move of `other` within [`CLOSE_SECONDS`]: only in
/// cells where both moved, or side by side, and only where their slices
/// say two moves can be that close.
fn close_indexed(me: Indexed<'_>, other: Indexed<'_>) -> u32 {
    let (mine, theirs) = (me.1, other.1);
    let lo = mine.first.max(theirs.first);
    let hi = (mine.first + mine.cells.len() as i64).min(theirs.first + theirs.cells.len() as i64);
    let mut n = 0;
    for w in lo..hi {
        let (i, j) = ((w - mine.first) as usize, (w - theirs.first) as usize);
        let (bits, near) = (mine.cells[i], theirs.near[j]);
        let mut both = bits & near;
        while both != 0 {
            let bit = both.trailing_zeros();
            both &= both - 1;
            let below = (1u64 << bit) - 1;
            let at = mine.rank[i] as usize + (bits & below).count_ones() as usize;
            let reach = theirs.near_rank[j] as usize + (near & below).count_ones() as usize;
            if mine.slices[at] & theirs.near_slices[reach] == 0 {
                continue;
            }
            let c = w * 64 + bit as i64;
            let ours = &me.0[mine.cell_from[at] as usize..mine.cell_from[at + 1] as usize];
            let (lo, hi) = (theirs.cells_before(c - 1), theirs.cells_before(c + 2));
            let near_moves = &other.0[theirs.cell_from[lo] as usize..theirs.cell_from[hi] as usize];
            n += close(ours, near_moves);
        }
    }
    n
}
