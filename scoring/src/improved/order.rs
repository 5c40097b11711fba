//! First mover: which of two accounts opens the stretches of play in which
//! both move.
//!
//! Merging both accounts' moves by time (from any address), a **stretch**
//! ends at a pause longer than [`STRETCH_GAP_SECONDS`]. In each stretch in
//! which both moved, the account that moved first **opened** it. A careful
//! owner plays his accounts in his own order, the main one first, every
//! time; a family taking turns at one computer shuffles who goes first, and
//! housemates who play on their own open their stretches at random. So a
//! lopsided count is evidence of one person, an even one of two.

use crate::search::gallop;
use schema::{Epoch, IpId};

/// A pause longer than this ends a stretch of play (about an evening's
/// break).
pub const STRETCH_GAP_SECONDS: i64 = 4 * 3600;

/// How many stretches `a` and `b` opened, of those in which both moved
/// (each list sorted by time). A stretch whose first moves of the two
/// accounts fall in the same second is opened by neither, so that
/// `first_movers(b, a)` is `first_movers(a, b)` swapped.
pub fn first_movers(a: &[(Epoch, IpId)], b: &[(Epoch, IpId)]) -> (u32, u32) {
    let mut out = (0u32, 0u32);
    // The first move of each account in the current stretch, and its last
    // move of either.
    let mut first: (Option<Epoch>, Option<Epoch>) = (None, None);
    let mut last: Option<Epoch> = None;
    let (mut i, mut j) = (0usize, 0usize);
    while i < a.len() || j < b.len() {
        let from_b = j < b.len() && (i >= a.len() || b[j].0 < a[i].0);
        let t = if from_b { b[j].0 } else { a[i].0 };
        if from_b {
            j += 1;
        } else {
            i += 1;
        }
        if last.is_some_and(|l| t - l > STRETCH_GAP_SECONDS) {
            close(first, &mut out);
            first = (None, None);
        }
        let mine = if from_b { &mut first.1 } else { &mut first.0 };
        mine.get_or_insert(t);
        last = Some(t);
    }
    close(first, &mut out);
    out
}

/// Counts who opened a stretch, given each account's first move in it.
fn close(first: (Option<Epoch>, Option<Epoch>), out: &mut (u32, u32)) {
    if let (Some(x), Some(y)) = first {
        if x < y {
            out.0 += 1;
        } else if y < x {
            out.1 += 1;
        }
    }
}

/// One account's own stretches of play, as (first, last) second: runs of
/// its moves (sorted by time) with no pause over [`STRETCH_GAP_SECONDS`].
pub fn stretches(moves: &[(Epoch, IpId)]) -> Vec<(Epoch, Epoch)> {
    let mut out: Vec<(Epoch, Epoch)> = Vec::new();
    for &(t, _) in moves {
        match out.last_mut() {
            Some(s) if t - s.1 <= STRETCH_GAP_SECONDS => s.1 = t,
            _ => out.push((t, t)),
        }
    }
    out
}

/// [`first_movers`] as the scan computes it, from each account's own
/// [`stretches`] (a few a week) instead of every move: the stretches of
/// the pair are the own stretches of both joined where they lie within
/// [`STRETCH_GAP_SECONDS`], and each account opens a joint stretch with
/// the start of its first own stretch in it.
///
/// Each list must be own stretches as [`stretches`] makes them (or all
/// moved by one time): sorted, each more than [`STRETCH_GAP_SECONDS`]
/// after the one before. So while the joint stretch holds none of the
/// other account's, each own stretch begins a joint stretch of its own in
/// which only its account moved, which counts for neither: a run of them
/// is stepped over by a galloping search (most runs are short).
pub fn first_movers_by_stretches(a: &[(Epoch, Epoch)], b: &[(Epoch, Epoch)]) -> (u32, u32) {
    debug_assert!(own_stretches(a) && own_stretches(b));
    let mut out = (0u32, 0u32);
    let mut first: (Option<Epoch>, Option<Epoch>) = (None, None);
    let mut end: Option<Epoch> = None;
    let (mut i, mut j) = (0usize, 0usize);
    while i < a.len() || j < b.len() {
        let from_b = j < b.len() && (i >= a.len() || b[j].0 < a[i].0);
        // A run of one account's stretches, the other's not in the joint
        // stretch: jump to the run's last (ties go to `a`, as below). With
        // nothing of the other left, nothing more counts.
        if from_b && first.0.is_none() {
            let Some(next) = a.get(i) else { break };
            j += gallop(&b[j..], |s| s.0 < next.0);
            (first, end) = ((None, Some(b[j - 1].0)), Some(b[j - 1].1));
            continue;
        }
        if !from_b && first.1.is_none() {
            let Some(next) = b.get(j) else { break };
            i += gallop(&a[i..], |s| s.0 <= next.0);
            (first, end) = ((Some(a[i - 1].0), None), Some(a[i - 1].1));
            continue;
        }
        let (start, last) = if from_b { b[j] } else { a[i] };
        if from_b {
            j += 1;
        } else {
            i += 1;
        }
        if end.is_some_and(|e| start - e > STRETCH_GAP_SECONDS) {
            close(first, &mut out);
            first = (None, None);
        }
        let mine = if from_b { &mut first.1 } else { &mut first.0 };
        mine.get_or_insert(start);
        end = Some(end.map_or(last, |e| e.max(last)));
    }
    close(first, &mut out);
    out
}

/// Whether `s` is own stretches: each ends no earlier than it begins and
/// begins more than [`STRETCH_GAP_SECONDS`] after the one before ends.
fn own_stretches(s: &[(Epoch, Epoch)]) -> bool {
    s.iter().all(|x| x.0 <= x.1) && s.windows(2).all(|w| w[1].0 - w[0].1 > STRETCH_GAP_SECONDS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ts: &[i64]) -> Vec<(Epoch, IpId)> {
        ts.iter().map(|&t| (t, 0)).collect()
    }

    #[test]
    fn a_pause_of_over_four_hours_ends_a_stretch() {
        let h = 3600;
        // Stretch 1: a at 0, b at 1 h (a opens). Pause 5 h. Stretch 2: b at
        // 6 h, a at 7 h (b opens). Pause of exactly 4 h does not end it: a
        // at 11 h belongs to stretch 2.
        let a = at(&[0, 7 * h, 11 * h]);
        let b = at(&[h, 6 * h]);
        assert_eq!(first_movers(&a, &b), (1, 1));
        assert_eq!(first_movers(&b, &a), (1, 1));
    }
}
