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
//! to [`KEEP_FROM`] or more. The timing model reads a kept pair against
//! the number of members its hidden account was read against
//! ([`prior_offset`]): the more there are, the more follow it by chance.
//!
//! The search is in `search` (the following test made for all members at
//! once in `columns`), what it reads of the season in `scope`.
//!
//! This module does not score pairs that shared an address: those are the
//! ordinary candidate pairs, scored by the model's features.

mod columns;
mod scope;
mod search;

use super::fit::Sign;
pub use super::following::SHIFT_DAYS;
use super::following::SITTING_SECONDS;
use super::moves::MoveTimes;
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use schema::{AccountId, Season, Segments, Signals, Timing};
use scope::{is_hidden, shared_exits, Scope};
use search::{Found, Grid, Hidden, NearRows};
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
    /// Whether the intercept is per member read against
    /// ([`prior_offset`] is added to the log-odds). Model files written
    /// before it say nothing and are read as they were fitted: without.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub per_member: bool,
}

/// A timing pair's prior log-odds beside the model's intercept: minus the
/// log of the members its hidden account was read against. One of them
/// may be its owner, and each of the others follows it by chance now and
/// then, so the more members a season has, the more pairs reach the keep
/// threshold by chance and the less a kept pair is worth: a season of
/// 32,600 members keeps some 28 pairs a hidden account, nearly all of
/// them chance (EVALUATION.md). The sign is fixed by that reasoning and
/// the weight is 1, not fitted: the fit's worlds (300 to 1,200 accounts)
/// are too alike in size to learn it.
pub fn prior_offset(t: &Timing) -> f64 {
    -f64::from(t.tested.max(1)).ln()
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
        let offset = match (self.per_member, s.timing) {
            (true, Some(t)) => prior_offset(&t),
            _ => 0.0,
        };
        super::fit::logistic(z + offset)
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
    let near = NearRows::new(cx, &grid, members);
    let partners = partners(&hidden, candidates);
    let found = search::search(cx, &hidden, &partners, members, &near);
    let mut best: FxHashMap<u64, Found> = FxHashMap::default();
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
