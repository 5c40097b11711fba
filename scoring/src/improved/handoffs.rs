//! Hand-offs at second resolution: how the moves of two accounts follow each
//! other on one address, looked at as a distribution.
//!
//! Segments keep buckets only, so improved mode reads a compact copy of the
//! moves' seconds and addresses ([`MoveTimes`]). Merging both accounts'
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

pub use indexed::{handoffs_indexed, MoveIndex};

use super::context::Context;
use super::signals::{CROWDED_BELOW, SITTING_SECONDS};
use crate::search::gallop;
use schema::{day_of, AccountId, Epoch, IpId, Season, Segments};

/// Two moves of the two accounts within this many seconds: two bodies.
pub const CLOSE_SECONDS: i64 = 15;
/// A switch after less than this is quick (one person switching tabs).
pub const QUICK_SECONDS: i64 = 5 * 60;
/// A switch after less than this (and not quick) is a turn; longer, up to
/// [`SITTING_SECONDS`], it is spaced.
pub const TURN_SECONDS: i64 = 30 * 60;

/// Every account's moves as (second, address), sorted; ids are those of the
/// [`Segments`] they were built beside.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MoveTimes {
    by_account: Vec<Vec<(Epoch, IpId)>>,
    /// Per address id, the network the store recorded for it (`moves.net`),
    /// numbered in order of first sight: all a keyed store keeps of an
    /// address's network, as its addresses are hashes (see
    /// [`MoveTimes::network`]).
    networks: Vec<Option<u32>>,
    network_ids: rustc_hash::FxHashMap<String, u32>,
}

impl MoveTimes {
    /// An empty set for the accounts of `segments`.
    pub fn new(segments: &Segments) -> Self {
        MoveTimes {
            by_account: vec![Vec::new(); segments.accounts.len()],
            ..MoveTimes::default()
        }
    }

    /// Adds one move; accounts or addresses the segments do not know are
    /// left out (they have no candidate pair).
    pub fn push(&mut self, segments: &Segments, account: &str, t: Epoch, ip: &str) {
        self.push_with_network(segments, account, t, ip, None);
    }

    /// [`MoveTimes::push`], with the network the store recorded for the
    /// address (`moves.net`: `None` for what is not an address).
    pub fn push_with_network(
        &mut self,
        segments: &Segments,
        account: &str,
        t: Epoch,
        ip: &str,
        network: Option<&str>,
    ) {
        let (Some(u), Some(ip)) = (segments.accounts.get(account), segments.ips.get(ip)) else {
            return;
        };
        if let Some(list) = self.by_account.get_mut(u as usize) {
            list.push((t, ip));
        }
        self.note_network(segments, ip, network);
    }

    /// Adds some moves of one account, as a store keeps them beside its
    /// segments: its addresses with their networks, and the moves as
    /// (second, index into the addresses). The same as
    /// [`MoveTimes::push_with_network`] move by move, names looked up once.
    pub fn push_chunk(
        &mut self,
        segments: &Segments,
        account: &str,
        ips: &[(&str, Option<&str>)],
        moves: &[(Epoch, u32)],
    ) {
        let Some(u) = segments.accounts.get(account) else {
            return;
        };
        let ids: Vec<Option<IpId>> = ips.iter().map(|&(ip, _)| segments.ips.get(ip)).collect();
        let Some(list) = self.by_account.get_mut(u as usize) else {
            return;
        };
        list.reserve(moves.len());
        list.extend(
            moves
                .iter()
                .filter_map(|&(t, i)| Some((t, ids.get(i as usize).copied().flatten()?))),
        );
        for (&(_, network), id) in ips.iter().zip(&ids) {
            if let Some(id) = *id {
                self.note_network(segments, id, network);
            }
        }
    }

    /// Records the network the store gave address `ip`, numbered in order
    /// of first sight.
    fn note_network(&mut self, segments: &Segments, ip: IpId, network: Option<&str>) {
        let Some(net) = network else {
            return;
        };
        if self.networks.len() <= ip as usize {
            self.networks
                .resize(segments.ips.len().max(ip as usize + 1), None);
        }
        if self.networks[ip as usize].is_none() {
            let next = self.network_ids.len() as u32;
            let id = *self.network_ids.entry(net.to_owned()).or_insert(next);
            self.networks[ip as usize] = Some(id);
        }
    }

    /// The network the store recorded for address `ip`, as a number (equal
    /// numbers, one network): read where the address itself says nothing,
    /// as in a keyed store, so that a key changes no score.
    pub fn network(&self, ip: IpId) -> Option<u32> {
        self.networks.get(ip as usize).copied().flatten()
    }

    /// Adds one move by ids: those the names will have in the [`Segments`]
    /// it is read beside, while a reader is still interning them (the list
    /// of accounts grows as they come). Finish with [`MoveTimes::finish_for`].
    pub fn push_ids(&mut self, account: AccountId, t: Epoch, ip: IpId) {
        let u = account as usize;
        if u >= self.by_account.len() {
            self.by_account.resize_with(u + 1, Vec::new);
        }
        self.by_account[u].push((t, ip));
    }

    /// Sorts every account's moves and makes room for every account of
    /// `segments`, as [`MoveTimes::new`] would have.
    pub fn finish_for(mut self, segments: &Segments) -> Self {
        let n = segments.accounts.len().max(self.by_account.len());
        self.by_account.resize_with(n, Vec::new);
        self.finish()
    }

    /// Sorts every account's moves (call once after the last push).
    pub fn finish(mut self) -> Self {
        for list in &mut self.by_account {
            list.sort_unstable();
        }
        self
    }

    /// The moves of `account` inside the season's range.
    pub fn in_season(&self, account: AccountId, season: &Season) -> &[(Epoch, IpId)] {
        let all = self
            .by_account
            .get(account as usize)
            .map_or(&[][..], Vec::as_slice);
        let lo = season.from.map_or(0, |f| all.partition_point(|m| m.0 < f));
        let hi = season
            .to
            .map_or(all.len(), |t| all.partition_point(|m| m.0 < t));
        &all[lo..hi.max(lo)]
    }
}

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
    let mut lo = 0usize;
    let mut n = 0;
    for &(t, _) in a {
        while lo < b.len() && b[lo].0 < t - CLOSE_SECONDS {
            lo += 1;
        }
        if b.get(lo).is_some_and(|m| m.0 <= t + CLOSE_SECONDS) {
            n += 1;
        }
    }
    n
}
