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

use crate::search::gallop;
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
/// [`PACE_SECONDS`]: the chances the pair had of a close move;
/// `within(a, b) + within(b, a)`, counted a run at a time (the nearest
/// moves of the other account to a run of one's moves are the last before
/// it and the first after it), stepping over each run with a galloping
/// search.
pub fn near(a: &[(Epoch, IpId)], b: &[(Epoch, IpId)]) -> u32 {
    let (mut i, mut j, mut n) = (0usize, 0usize, 0u32);
    let mut prev: Option<Epoch> = None;
    while i < a.len() || j < b.len() {
        let from_b = j < b.len() && (i >= a.len() || b[j].0 < a[i].0);
        let (run, next) = if from_b {
            let next = a.get(i).map(|m| m.0);
            let end = next.map_or(b.len(), |t| j + gallop(&b[j..], |m| m.0 < t));
            let run = &b[j..end];
            j = end;
            (run, next)
        } else {
            let next = b.get(j).map(|m| m.0);
            let end = next.map_or(a.len(), |t| i + gallop(&a[i..], |m| m.0 <= t));
            let run = &a[i..end];
            i = end;
            (run, next)
        };
        let near_prev = prev.map_or(0, |t0| run.partition_point(|m| m.0 <= t0 + PACE_SECONDS));
        let near_next = next.map_or(0, |t1| {
            run.len() - run.partition_point(|m| m.0 < t1 - PACE_SECONDS)
        });
        n += (near_prev + near_next).min(run.len()) as u32;
        prev = run.last().map(|m| m.0);
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
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
        /// Counted by runs, the chances are those of the definition, from
        /// both sides.
        #[test]
        fn near_by_runs_is_within_both_ways(
            a in proptest::collection::vec(0i64..5_000, 0..40),
            b in proptest::collection::vec(0i64..5_000, 0..40),
        ) {
            let (a, b) = (moves(a), moves(b));
            let both = within(&a, &b, PACE_SECONDS) + within(&b, &a, PACE_SECONDS);
            prop_assert_eq!(near(&a, &b), both);
            prop_assert_eq!(near(&b, &a), both);
        }
    }
}
