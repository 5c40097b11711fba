//! Pace: how quickly each account moves on its own, so that close moves of
//! the two accounts are read against what one body of that pace does.
//!
//! Two moves of the two accounts within [`CLOSE_SECONDS`] take two bodies
//! only if neither account ever moves that quickly on its own: a player who
//! makes his moves seconds apart in his own games makes his accounts' moves
//! seconds apart as well. Of an account's own consecutive moves at most
//! [`PACE_SECONDS`] apart (moves in a row), the share at most
//! [`CLOSE_SECONDS`] apart is its pace; the pair's close moves, out of its
//! moves with one of the other account's within [`PACE_SECONDS`], are
//! evidence of two bodies only above that share.

use super::move_index::{Indexed, CELL_SECONDS};
use schema::{Epoch, IpId};

/// Two moves of the two accounts within this many seconds: two bodies,
/// unless the accounts move that quickly on their own.
pub const CLOSE_SECONDS: i64 = 15;

/// Moves in a row: one account's consecutive moves at most this far apart,
/// and the pair's moves with one of the other's at most this far apart
/// (five minutes: as a quick switch of hand-offs).
pub const PACE_SECONDS: i64 = 5 * 60;

/// One account's pace: of its consecutive moves at most [`PACE_SECONDS`]
/// apart (`near`), how many were at most [`CLOSE_SECONDS`] apart (`close`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pace {
    pub close: u32,
    pub near: u32,
}

/// The pace of one account's moves (sorted by time).
pub fn pace(moves: &[(Epoch, IpId)]) -> Pace {
    let mut out = Pace::default();
    for w in moves.windows(2) {
        let gap = w[1].0 - w[0].0;
        if gap <= PACE_SECONDS {
            out.near += 1;
            out.close += u32::from(gap <= CLOSE_SECONDS);
        }
    }
    out
}

/// Moves of `a` with a move of `b` at most `window` seconds either side
/// (each sorted by time): the definition of [`near`].
pub fn within(a: &[(Epoch, IpId)], b: &[(Epoch, IpId)], window: i64) -> u32 {
    let mut lo = 0usize;
    let mut n = 0;
    for &(t, _) in a {
        while lo < b.len() && b[lo].0 < t - window {
            lo += 1;
        }
        if b.get(lo).is_some_and(|m| m.0 <= t + window) {
            n += 1;
        }
    }
    n
}

/// The moves of either account with one of the other's within
/// [`PACE_SECONDS`]: the chances the pair had of a close move. The
/// definition; the scan counts the same from the accounts' move indexes
/// ([`near_indexed`]).
pub fn near(a: &[(Epoch, IpId)], b: &[(Epoch, IpId)]) -> u32 {
    within(a, b, PACE_SECONDS) + within(b, a, PACE_SECONDS)
}

// Two moves [`PACE_SECONDS`] apart or less lie in one cell of the move
// index or in two side by side.
const _: () = assert!(CELL_SECONDS >= PACE_SECONDS);

/// [`near`] from both accounts' moves and their indexes: only the cells of
/// time in which one moved and the other moved in or beside are looked at
/// (most of two accounts' moves are hours apart).
pub fn near_indexed(a: Indexed<'_>, b: Indexed<'_>) -> u32 {
    within_indexed(a, b) + within_indexed(b, a)
}

/// Moves of `me` with a move of `other` within [`PACE_SECONDS`], cell by
/// cell: one walk of `other`'s moves from the cell before each of `me`'s
/// cells, never back (the cells ascend).
fn within_indexed(me: Indexed<'_>, other: Indexed<'_>) -> u32 {
    let (mine, theirs) = (me.1, other.1);
    let lo = mine.first.max(theirs.first);
    let hi = (mine.first + mine.cells.len() as i64).min(theirs.first + theirs.cells.len() as i64);
    let (mut n, mut k) = (0, 0usize);
    for w in lo..hi {
        let (i, j) = ((w - mine.first) as usize, (w - theirs.first) as usize);
        let bits = mine.cells[i];
        let mut both = bits & theirs.near[j];
        while both != 0 {
            let bit = both.trailing_zeros();
            both &= both - 1;
            let at = mine.rank[i] as usize + (bits & ((1u64 << bit) - 1)).count_ones() as usize;
            let c = w * 64 + bit as i64;
            // Their moves before the cell beside lie over a cell away.
            k = k.max(theirs.cell_from[theirs.cells_before(c - 1)] as usize);
            for &(t, _) in &me.0[mine.cell_from[at] as usize..mine.cell_from[at + 1] as usize] {
                while other.0.get(k).is_some_and(|m| m.0 < t - PACE_SECONDS) {
                    k += 1;
                }
                n += u32::from(other.0.get(k).is_some_and(|m| m.0 <= t + PACE_SECONDS));
            }
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::improved::move_index::MoveIndex;
    use proptest::prelude::*;

    fn moves(times: Vec<i64>) -> Vec<(Epoch, IpId)> {
        let mut t: Vec<(Epoch, IpId)> = times.into_iter().map(|t| (t, 0)).collect();
        t.sort_unstable();
        t
    }

    #[test]
    fn pace_counts_moves_in_a_row_and_the_close_ones() {
        // Gaps 10, 20, 400, 15, 300: four in a row (<= 300), two close (<= 15).
        let m = moves(vec![0, 10, 30, 430, 445, 745]);
        assert_eq!(pace(&m), Pace { close: 2, near: 4 });
        assert_eq!(pace(&[]), Pace::default());
    }

    proptest! {
        /// From the move indexes, the chances are those of the
        /// definition, from either side (moves spread over hours, and
        /// across cells: a cell is 2,048 seconds).
        #[test]
        fn near_from_the_indexes_is_the_definition(
            a in proptest::collection::vec(-9_000i64..30_000, 0..60),
            b in proptest::collection::vec(-9_000i64..30_000, 0..60),
        ) {
            let (a, b) = (moves(a), moves(b));
            let (ia, ib) = (MoveIndex::new(&a), MoveIndex::new(&b));
            let want = near(&a, &b);
            prop_assert_eq!(near_indexed((&a, &ia), (&b, &ib)), want);
            prop_assert_eq!(near_indexed((&b, &ib), (&a, &ia)), want);
        }
    }
}
