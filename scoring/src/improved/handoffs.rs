//! Hand-offs at second resolution: how the moves of two accounts follow each
//! other on one address, looked at as a distribution.
//!
//! Segments keep buckets only, so improved mode reads a compact copy of the
//! moves' seconds and addresses ([`super::moves::MoveTimes`]). Merging both accounts'
//! moves by time, a **switch** is a move of one account followed by a move
//! of the other from the same uncrowded address within the sitting horizon.
//! The gap of each switch is binned: a family taking turns at one computer
//! hands over after one turn (minutes to half an hour); a careful owner spaces
//! his accounts 30 to 90 minutes apart in one sitting, or switches back and
//! forth between two tabs (a **return**: the other account's run lasted at
//! most half an hour before the first moved again). Two people sitting side
//! by side can move within seconds of each other; one person needs time to
//! decide each move, so **close** moves (both within
//! [`CLOSE_SECONDS`], from any address) are evidence of two bodies.

pub mod indexed;

pub use indexed::handoffs_indexed;

use super::addresses::CROWDED_BELOW;
use super::context::Context;
use super::following::SITTING_SECONDS;
use crate::search::gallop;
use schema::{day_of, Epoch, IpId};

pub use super::pace::CLOSE_SECONDS;
/// A switch after less than this is quick (one person switching tabs).
pub const QUICK_SECONDS: i64 = 5 * 60;
/// A switch after less than this (and not quick) is a turn; longer, up to
/// [`SITTING_SECONDS`], it is spaced.
pub const TURN_SECONDS: i64 = 30 * 60;

/// The hand-offs of `{a, b}`: symmetric counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Handoffs {
    /// Moves of `a` with a move of `b` within [`CLOSE_SECONDS`].
    pub close: u32,
    /// Switches, and how they split by gap: quick, turn, spaced.
    pub switches: u32,
    pub quick: u32,
    pub turns: u32,
    pub spaced: u32,
    /// Switches back to the account that moved before the other's run of at
    /// most [`TURN_SECONDS`].
    pub returns: u32,
}

/// The hand-offs of the moves `a` and `b` (each sorted by time). The same
/// for `{b, a}`: moves at the very same second and address are taken in
/// one order, that of the lesser move list first.
pub fn handoffs(cx: &Context<'_>, a: &[(Epoch, IpId)], b: &[(Epoch, IpId)]) -> Handoffs {
    let (a, b) = if a <= b { (a, b) } else { (b, a) };
    let mut out = Handoffs {
        close: close(a, b) + close(b, a),
        ..Handoffs::default()
    };
    // The previous move (time, address, whose) and the last switch
    // (time of the first move after it, whose run it ended).
    let mut prev: Option<(Epoch, IpId, bool)> = None;
    let mut last_switch: Option<(Epoch, bool)> = None;
    let (mut i, mut j) = (0usize, 0usize);
    while i < a.len() || j < b.len() {
        let from_b = j < b.len() && (i >= a.len() || b[j] < a[i]);
        let (t, ip) = if from_b { b[j] } else { a[i] };
        if from_b {
            j += 1;
        } else {
            i += 1;
        }
        if let Some(p) = prev.filter(|p| p.2 != from_b) {
            count_switch(cx, &mut out, &mut last_switch, p, (t, ip));
        }
        prev = Some((t, ip, from_b));
    }
    out
}

/// [`handoffs`] as the scan computes it: the same counts, stepping over
/// each run of one account's moves (a switch can only begin a run, and
/// only a run's last move is the "previous move" of the next run) with a
/// binary search instead of move by move.
pub fn handoffs_by_runs(cx: &Context<'_>, a: &[(Epoch, IpId)], b: &[(Epoch, IpId)]) -> Handoffs {
    let (a, b) = if a <= b { (a, b) } else { (b, a) };
    let mut out = Handoffs::default();
    let mut prev: Option<(Epoch, IpId, bool)> = None;
    let mut last_switch: Option<(Epoch, bool)> = None;
    let (mut i, mut j) = (0usize, 0usize);
    while i < a.len() || j < b.len() {
        let from_b = j < b.len() && (i >= a.len() || b[j] < a[i]);
        // The run: this account's moves before the other's next one, in
        // the merge order of `handoffs` (ties go to `a`).
        let (run, next) = if from_b {
            let next = a.get(i);
            let end = next.map_or(b.len(), |n| j + gallop(&b[j..], |m| m < n));
            let run = &b[j..end];
            j = end;
            (run, next)
        } else {
            let next = b.get(j);
            let end = next.map_or(a.len(), |n| i + gallop(&a[i..], |m| m <= n));
            let run = &a[i..end];
            i = end;
            (run, next)
        };
        // Close moves: the other account's nearest moves in time are the
        // last one before the run and the first one after it.
        let near_prev = prev.map_or(0, |(t0, _, _)| {
            run.partition_point(|m| m.0 <= t0 + CLOSE_SECONDS)
        });
        let near_next = next.map_or(0, |n| {
            run.len() - run.partition_point(|m| m.0 < n.0 - CLOSE_SECONDS)
        });
        out.close += (near_prev + near_next).min(run.len()) as u32;
        if let Some(p) = prev {
            count_switch(cx, &mut out, &mut last_switch, p, run[0]);
        }
        let (t_last, ip_last) = run[run.len() - 1];
        prev = Some((t_last, ip_last, from_b));
    }
    out
}

/// Counts a switch when the move `(t, ip)` follows `prev`, a move of the
/// other account, from the same uncrowded address within the sitting
/// horizon; `last_switch` is the time of the previous switch's move and
/// whose run it ended.
pub(crate) fn count_switch(
    cx: &Context<'_>,
    out: &mut Handoffs,
    last_switch: &mut Option<(Epoch, bool)>,
    (t0, ip0, who0): (Epoch, IpId, bool),
    (t, ip): (Epoch, IpId),
) {
    let gap = t - t0;
    if ip0 != ip || gap > SITTING_SECONDS || cx.weight(day_of(t), ip) < CROWDED_BELOW {
        return;
    }
    out.switches += 1;
    match gap {
        g if g < QUICK_SECONDS => out.quick += 1,
        g if g < TURN_SECONDS => out.turns += 1,
        _ => out.spaced += 1,
    }
    if last_switch.is_some_and(|(s, ended)| ended != who0 && t0 - s <= TURN_SECONDS) {
        out.returns += 1;
    }
    *last_switch = Some((t, who0));
}

/// Moves of `a` with a move of `b` within [`CLOSE_SECONDS`] either side.
pub(crate) fn close(a: &[(Epoch, IpId)], b: &[(Epoch, IpId)]) -> u32 {
    super::pace::within(a, b, CLOSE_SECONDS)
}
