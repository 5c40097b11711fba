//! Hand-offs as the scan computes them: the same counts as
//! [`super::handoffs`], from each account's moves put once per scan into
//! an index ([`MoveIndex`](crate::improved::move_index::MoveIndex))
//! instead of merging the two accounts' moves.
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
use crate::improved::following::SITTING_SECONDS;
use crate::improved::move_index::{CELL_SECONDS, SLICE_SECONDS};
use crate::search::gallop;
use schema::{Epoch, IpId};

// Two moves [`CLOSE_SECONDS`] apart or less lie in one slice of the index
// or in two side by side.
const _: () = assert!(SLICE_SECONDS >= CLOSE_SECONDS && CELL_SECONDS >= CLOSE_SECONDS);

pub use crate::improved::move_index::Indexed;

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
    FOUND.with_borrow_mut(|found| {
        found.clear();
        let (mut i, mut j) = (0usize, 0usize);
        while i < a.1.ips.len() && j < b.1.ips.len() {
            match a.1.ips[i].cmp(&b.1.ips[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    switches_on((a.0, a.1.group(i)), (b.0, b.1.group(j)), found);
                    i += 1;
                    j += 1;
                }
            }
        }
        // Merge order: by time and address, `a` first among equals.
        found.sort_unstable_by_key(|s| (s.move_.0, s.move_.1, s.of_b));
        let mut last_switch = None;
        for s in found.iter() {
            let prev = (s.prev_time, s.move_.1, !s.of_b);
            count_switch(cx, &mut out, &mut last_switch, prev, s.move_);
        }
    });
    out
}

thread_local! {
    /// The switches of the pair being read, a buffer kept per thread so
    /// that a pair allocates nothing.
    static FOUND: std::cell::RefCell<Vec<Switch>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A move of one account right after a move of the other from the same
/// address within the sitting horizon.
struct Switch {
    move_: (Epoch, IpId),
    of_b: bool,
    prev_time: Epoch,
}

/// The switches on one address both accounts moved from, `ga` and `gb`
/// their moves from it (indexes into their moves): one walk of both in
/// merge order (ties go to `a`), in which the other account's last move
/// seen is its last move from the address before each.
///
/// Only the first move of a run of one account's moves (before the
/// other's next from the address) can be a switch: each later one comes
/// after a move of its own that comes after the other's last. So each
/// run is stepped over by a galloping search.
fn switches_on(
    (a_moves, ga): (&[(Epoch, IpId)], &[u32]),
    (b_moves, gb): (&[(Epoch, IpId)], &[u32]),
    found: &mut Vec<Switch>,
) {
    let (mut i, mut j) = (0usize, 0usize);
    let (mut last_a, mut last_b): (Option<u32>, Option<u32>) = (None, None);
    while i < ga.len() || j < gb.len() {
        let from_b =
            j < gb.len() && (i >= ga.len() || b_moves[gb[j] as usize] < a_moves[ga[i] as usize]);
        if from_b {
            if let Some(o) = last_a {
                switch_after((b_moves, gb[j]), (a_moves, o), true, found);
            }
            let end = ga.get(i).map_or(gb.len(), |&n| {
                let n = a_moves[n as usize];
                j + gallop(&gb[j..], |&k| b_moves[k as usize] < n)
            });
            last_b = Some(gb[end - 1]);
            j = end;
        } else {
            if let Some(o) = last_b {
                switch_after((a_moves, ga[i]), (b_moves, o), false, found);
            }
            let end = gb.get(j).map_or(ga.len(), |&n| {
                let n = b_moves[n as usize];
                i + gallop(&ga[i..], |&k| a_moves[k as usize] <= n)
            });
            last_a = Some(ga[end - 1]);
            i = end;
        }
    }
}

/// Pushes my move `i` as a switch when their move `j` (from the same
/// address, the last of theirs from it before mine in the merge) is their
/// last move of all before mine, comes after my move before it and lies
/// within the sitting horizon. `of_b`: whether I am `b`, whose moves come
/// after `a`'s equal ones.
fn switch_after(
    (my_moves, i): (&[(Epoch, IpId)], u32),
    (their_moves, j): (&[(Epoch, IpId)], u32),
    of_b: bool,
    found: &mut Vec<Switch>,
) {
    // Whether their move `o` comes before my move `m` in the merge.
    let before = |o: (Epoch, IpId), m: (Epoch, IpId)| if of_b { o <= m } else { o < m };
    let (i, j) = (i as usize, j as usize);
    let (m, o) = (my_moves[i], their_moves[j]);
    let last_of_theirs = their_moves.get(j + 1).is_none_or(|&n| !before(n, m));
    let after_my_previous = i == 0 || !before(o, my_moves[i - 1]);
    if m.0 - o.0 <= SITTING_SECONDS && last_of_theirs && after_my_previous {
        found.push(Switch {
            move_: m,
            of_b,
            prev_time: o.0,
        });
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
