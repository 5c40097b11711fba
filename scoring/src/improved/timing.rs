//! Timing candidates: pairs that never shared an address on a day, found by
//! when they play.
//!
//! A careful owner may send a puppet through a VPN exit every time, so that
//! the puppet and his main account never share an address and are never a
//! candidate pair. Such a puppet is **hidden**: most of its sightings are on
//! shared exits, addresses that many accounts used over the season (VPN
//! exits, carrier NAT, a campus), never on an address of its own. Each hidden account is paired with every other participant that
//! is not already a candidate pair of it, and two counts are set against
//! chance, read from the same two accounts on other days:
//!
//! - **following**: how many of the hidden account's sittings began within
//!   two hours after a move of the other (in the bucket of one of its moves
//!   or in the [`FOLLOW_SECONDS`] of buckets after it: 4 at 30 minutes); by
//!   chance, the same count with the hidden account's sittings moved one to
//!   three days either way (the same hours of the day, so that two evening
//!   players are no evidence);
//! - **first mover**: of the stretches of play in which both moved, how many
//!   the other account opened; by chance, the same on the shifted days.
//!
//! Each becomes a log-likelihood ratio ([`llr`]: the observed share against
//! the share by chance, signed), and the model's [`TimeModel`] maps the two to the
//! probability of one person. A pair is kept, and so becomes a candidate
//! pair, when at least half the hidden account's sittings follow the other,
//! following is above chance by [`FOLLOW_FROM`] and the two ratios add up
//! to [`KEEP_FROM`] or more.
//!
//! This module does not score pairs that shared an address: those are the
//! ordinary candidate pairs, scored by the model's features.

use super::fit::Sign;
use super::following::milli;
pub use super::following::SHIFT_DAYS;
use super::following::SITTING_SECONDS;
use super::moves::MoveTimes;
use super::order::{first_movers_by_stretches, stretches};
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use schema::{AccountId, Epoch, IpDay, IpId, Season, Segments, Signals, Timing};
use serde::{Deserialize, Serialize};

/// An account is hidden when at least this share of its sightings are on
/// shared exits.
pub const HIDDEN_SHARE: f64 = 0.8;
/// A sitting of the hidden account follows the other account when the
/// other moved in its bucket or in the buckets this many seconds before:
/// the horizon of following in the other pairs' signals.
pub const FOLLOW_SECONDS: i64 = SITTING_SECONDS;
/// A pause longer than this begins a new sitting (as in the signals).
pub use super::following::SITTING_GAP_SECONDS;
/// Pairs whose two ratios add up to less are not kept.
pub const KEEP_FROM: f64 = 4.0;
/// Pairs whose following ratio is under this are not kept either (and
/// their first movers are not counted: most pairs stop here).
pub const FOLLOW_FROM: f64 = 1.0;

/// The logistic model timing pairs are scored with, over [`features`]:
/// part of improved mode's [`super::model::Model`] (its `timing`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TimeModel {
    pub intercept: f64,
    pub weights: [f64; 3],
}

/// The sign of each timing weight, and why.
pub const TIME_SIGNS: [(Sign, &str); 3] = [
    (
        Sign::Positive,
        "the hidden account's sittings follow the other's moves more often than on other days at the same hours",
    ),
    (
        Sign::Positive,
        "the other account opens the stretches both play in more often than on other days",
    ),
    (
        Sign::Negative,
        "moves of both within seconds of each other take two bodies",
    ),
];

impl TimeModel {
    /// The probability of one person from a timing pair's signals (0 for a
    /// pair without timing).
    pub fn probability(&self, s: &Signals) -> f64 {
        let Some(x) = features(s) else {
            return 0.0;
        };
        let z = self.intercept + self.weights.iter().zip(x).map(|(w, v)| w * v).sum::<f64>();
        super::fit::logistic(z)
    }
}

/// The signed log-likelihood ratio of `k` successes in `n` against a share
/// of `chance` (clamped to [0.02, 0.98]): positive when the observed share
/// is above chance, and larger the more trials there are.
pub fn llr(k: u32, n: u32, chance: f64) -> f64 {
    if n == 0 {
        return 0.0;
    }
    let f = k as f64 / n as f64;
    let c = chance.clamp(0.02, 0.98);
    let term = |p: f64, q: f64| if p > 0.0 { p * (p / q).ln() } else { 0.0 };
    let v = n as f64 * (term(f, c) + term(1.0 - f, 1.0 - c));
    if f > c {
        v
    } else {
        -v
    }
}

/// Following and first mover as log-likelihood ratios against chance, and
/// the moves of the two within seconds of each other (log): two bodies.
/// `None` for a pair without timing.
pub fn features(s: &Signals) -> Option<[f64; 3]> {
    let t = s.timing?;
    let [follow, lead] = ratios(&t);
    Some([follow, lead, (1.0 + s.close as f64).ln()])
}

/// Following and first mover as log-likelihood ratios against chance.
pub fn ratios(t: &Timing) -> [f64; 2] {
    [
        llr(
            t.followed,
            t.sittings,
            t.followed_by_chance_milli as f64 / 1000.0,
        ),
        llr(
            t.other_opened,
            t.other_opened + t.hidden_opened,
            t.other_opened_by_chance_milli as f64 / 1000.0,
        ),
    ]
}

/// The timing pairs of a season: `(hidden, other, timing)` for every pair of
/// a hidden account among `members` and another member that is not in
/// `candidates` (either way round) and whose ratios reach
/// [`KEEP_FROM`]. Each unordered pair once (the better reading when both
/// are hidden), in id order.
pub fn timing_pairs(
    segments: &Segments,
    season: &Season,
    times: &MoveTimes,
    members: &[AccountId],
    candidates: &[(AccountId, AccountId)],
) -> Vec<(AccountId, AccountId, Timing)> {
    let scope = Scope::new(segments, season, times, members);
    let cx = &scope;
    let exits = shared_exits(cx);
    let Some(grid) = Grid::new(cx, members) else {
        return Vec::new();
    };
    let hidden: Vec<Hidden> = members
        .par_iter()
        .filter(|&&u| is_hidden(cx, &exits, u))
        .map(|&u| Hidden::new(cx, &grid, u))
        .collect();
    if hidden.is_empty() {
        return Vec::new();
    }
    let near: Vec<Vec<u64>> = members
        .par_iter()
        .map(|&u| grid.near(cx.moves(u)))
        .collect();
    let partners = partners(&hidden, candidates);
    let found: Vec<(AccountId, AccountId, Timing, f64)> = hidden
        .par_iter()
        .zip(partners)
        .flat_map_iter(|(h, known)| {
            let near = &near;
            members.iter().zip(near).filter_map(move |(&x, near)| {
                if x == h.account || known.binary_search(&x).is_ok() {
                    return None;
                }
                let t = h.timing(cx, x, near)?;
                let [f, l] = ratios(&t);
                (f + l >= KEEP_FROM).then_some((h.account, x, t, f + l))
            })
        })
        .collect();
    let mut best: FxHashMap<u64, (AccountId, AccountId, Timing, f64)> = FxHashMap::default();
    for p in found {
        let k = key(p.0, p.1);
        match best.get(&k) {
            Some(q) if (q.3, q.0) >= (p.3, p.0) => {}
            _ => {
                best.insert(k, p);
            }
        }
    }
    let mut out: Vec<(AccountId, AccountId, Timing)> =
        best.into_values().map(|(h, x, t, _)| (h, x, t)).collect();
    out.sort_unstable_by_key(|p| key(p.0, p.1));
    out
}

/// Per hidden account, its candidate pairs' other accounts, sorted.
fn partners(hidden: &[Hidden], candidates: &[(AccountId, AccountId)]) -> Vec<Vec<AccountId>> {
    let index: FxHashMap<AccountId, usize> = hidden
        .iter()
        .enumerate()
        .map(|(i, h)| (h.account, i))
        .collect();
    let mut out = vec![Vec::new(); hidden.len()];
    for &(x, y) in candidates {
        for (a, b) in [(x, y), (y, x)] {
            if let Some(&i) = index.get(&a) {
                out[i].push(b);
            }
        }
    }
    for list in &mut out {
        list.sort_unstable();
    }
    out
}

fn key(x: AccountId, y: AccountId) -> u64 {
    (x.min(y) as u64) << 32 | x.max(y) as u64
}

/// What the timing pairs read of a season: the members' moves by second,
/// their sightings and their own stretches of play.
pub struct Scope<'s> {
    segments: &'s Segments,
    season: &'s Season,
    times: &'s MoveTimes,
    ip_days_from: Vec<u32>,
    stretches: Vec<Vec<(Epoch, Epoch)>>,
}

impl<'s> Scope<'s> {
    fn new(
        segments: &'s Segments,
        season: &'s Season,
        times: &'s MoveTimes,
        members: &[AccountId],
    ) -> Self {
        let accounts = segments.by_account.len().max(segments.accounts.len());
        let ip_days_from = crate::account_starts(&segments.ip_days, accounts, |d| d.account);
        let mut member = vec![false; accounts];
        for &u in members {
            member[u as usize] = true;
        }
        let stretches = (0..accounts as AccountId)
            .into_par_iter()
            .map(|u| {
                if member[u as usize] {
                    stretches(times.in_season(u, season))
                } else {
                    Vec::new()
                }
            })
            .collect();
        Scope {
            segments,
            season,
            times,
            ip_days_from,
            stretches,
        }
    }

    fn moves(&self, account: AccountId) -> &'s [(Epoch, IpId)] {
        self.times.in_season(account, self.season)
    }

    fn ip_days(&self, account: AccountId) -> &'s [IpDay] {
        let all = &self.segments.ip_days;
        match self
            .ip_days_from
            .get(account as usize..account as usize + 2)
        {
            Some(&[lo, hi]) => &all[lo as usize..hi as usize],
            _ => &[],
        }
    }

    fn stretches(&self, account: AccountId) -> &[(Epoch, Epoch)] {
        &self.stretches[account as usize]
    }
}

/// Per address id, whether it is a shared exit
/// ([`super::addresses::shared_exits`]).
fn shared_exits(cx: &Scope<'_>) -> Vec<bool> {
    super::addresses::shared_exits(cx.segments, cx.season)
}

/// Whether `user` is hidden: at least [`HIDDEN_SHARE`] of its in-season
/// sightings are on shared exits.
fn is_hidden(cx: &Scope<'_>, exits: &[bool], account: AccountId) -> bool {
    let (mut all, mut shared) = (0u32, 0u32);
    for d in cx.ip_days(account) {
        if crate::day_in_season(d.day, cx.season) {
            all += 1;
            shared += u32::from(exits.get(d.ip as usize).copied().unwrap_or(false));
        }
    }
    all > 0 && shared as f64 >= HIDDEN_SHARE * all as f64
}

/// The season's bucket grid from the day of its first move: shifting by
/// whole days is shifting by whole rows of buckets.
#[derive(Debug, Clone, Copy)]
struct Grid {
    base: Epoch,
    bucket_seconds: i64,
    buckets: usize,
}

impl Grid {
    /// The grid over the members' in-season moves (`None`: no moves).
    fn new(cx: &Scope<'_>, members: &[AccountId]) -> Option<Grid> {
        let (lo, hi) = members
            .iter()
            .filter_map(|&u| {
                let m = cx.moves(u);
                Some((m.first()?.0, m.last()?.0))
            })
            .reduce(|(a, b), (c, d)| (a.min(c), b.max(d)))?;
        let bucket_seconds = cx.segments.bucket_seconds.max(1);
        let base = lo.div_euclid(schema::SECONDS_PER_DAY) * schema::SECONDS_PER_DAY;
        Some(Grid {
            base,
            bucket_seconds,
            buckets: ((hi - base) / bucket_seconds + 1) as usize,
        })
    }

    fn words(&self) -> usize {
        self.buckets.div_ceil(64)
    }

    fn bucket(&self, t: Epoch) -> usize {
        ((t - self.base) / self.bucket_seconds) as usize
    }

    /// Buckets in a day (rounded when the bucket size does not divide it).
    fn per_day(&self) -> i64 {
        super::following::day_in_buckets(self.bucket_seconds)
    }

    /// Per account, the buckets within [`FOLLOW_SECONDS`] after one of its
    /// moves: its moved buckets and the ones after them that the horizon
    /// reaches.
    fn near(&self, moves: &[(Epoch, IpId)]) -> Vec<u64> {
        let reach = (FOLLOW_SECONDS / self.bucket_seconds) as usize;
        let mut bits = vec![0u64; self.words()];
        let mut next = 0usize;
        for &(t, _) in moves {
            let b = self.bucket(t);
            for k in b.max(next)..(b + reach + 1).min(self.buckets) {
                bits[k / 64] |= 1 << (k % 64);
            }
            next = next.max(b + reach + 1);
        }
        bits
    }
}

/// A hidden account's sitting starts as buckets, as they are and moved by
/// each of [`SHIFT_DAYS`] (starts moved off the grid are dropped), and its
/// stretches moved the same way.
struct Hidden {
    account: AccountId,
    starts: Vec<Vec<u64>>,
    /// How many starts each of `starts` holds.
    counts: Vec<u32>,
    shifted_stretches: Vec<Vec<(Epoch, Epoch)>>,
}

impl Hidden {
    fn new(cx: &Scope<'_>, grid: &Grid, account: AccountId) -> Self {
        let mut first = Vec::new();
        let mut last: Option<Epoch> = None;
        for &(t, _) in cx.moves(account) {
            if last.is_none_or(|l| t - l > SITTING_GAP_SECONDS) {
                first.push(grid.bucket(t) as i64);
            }
            last = Some(t);
        }
        let starts: Vec<Vec<u64>> = std::iter::once(0)
            .chain(SHIFT_DAYS)
            .map(|d| {
                let mut bits = vec![0u64; grid.words()];
                for b in first.iter().map(|b| b + d * grid.per_day()) {
                    if (0..grid.buckets as i64).contains(&b) {
                        bits[b as usize / 64] |= 1 << (b % 64);
                    }
                }
                bits
            })
            .collect();
        let counts = starts
            .iter()
            .map(|s| s.iter().map(|w| w.count_ones()).sum())
            .collect();
        let shifted_stretches = SHIFT_DAYS
            .iter()
            .map(|d| {
                let s = d * schema::SECONDS_PER_DAY;
                cx.stretches(account)
                    .iter()
                    .map(|&(a, b)| (a + s, b + s))
                    .collect()
            })
            .collect();
        Hidden {
            account,
            starts,
            counts,
            shifted_stretches,
        }
    }

    /// How this hidden account follows `other`, whose [`Grid::near`]
    /// buckets are `near`; `None` when fewer than half its sittings follow
    /// the other's moves, or no more than by chance (by less than
    /// [`FOLLOW_FROM`]).
    fn timing(&self, cx: &Scope<'_>, other: AccountId, near: &[u64]) -> Option<Timing> {
        let hits = |starts: &[u64]| -> u32 {
            starts
                .iter()
                .zip(near)
                .map(|(s, x)| (s & x).count_ones())
                .sum()
        };
        let (k, n) = (hits(&self.starts[0]), self.counts[0]);
        // Fewer than half its sittings after the other's moves: not kept,
        // before chance is read (most pairs stop here).
        if k == 0 || 2 * k < n {
            return None;
        }
        let ck: u32 = self.starts[1..].iter().map(|s| hits(s)).sum();
        let cn: u32 = self.counts[1..].iter().sum();
        let followed_by_chance_milli = milli(ck, cn);
        if llr(k, n, followed_by_chance_milli as f64 / 1000.0) < FOLLOW_FROM {
            return None;
        }
        let mine = cx.stretches(other);
        let (o, h) = first_movers_by_stretches(mine, cx.stretches(self.account));
        let (mut co, mut ch) = (0u32, 0u32);
        for s in &self.shifted_stretches {
            let (o, h) = first_movers_by_stretches(mine, s);
            co += o;
            ch += h;
        }
        Some(Timing {
            a_hidden: true,
            sittings: n,
            followed: k,
            followed_by_chance_milli,
            other_opened: o,
            hidden_opened: h,
            other_opened_by_chance_milli: milli(co, co + ch),
        })
    }
}
