//! The search for timing pairs: every hidden account read against every
//! other member, on bit rows of buckets.
//!
//! Two tests a pair, the cheap one first. **Following**: the hidden
//! account's sitting starts against the buckets within [`FOLLOW_SECONDS`]
//! after the member's moves, an AND and a count per word; fewer than half
//! its sittings after the member's moves and the pair is done (nearly every
//! pair). **First mover**: who opens the stretches both play in, as they
//! are and on the days either side.
//!
//! The first test is made for all members at once ([`Columns`]), so that
//! only the members that pass it (one pair in 70 at ten million moves) are
//! read one by one.

use super::super::following::{day_in_buckets, milli, SITTING_GAP_SECONDS};
use super::super::order::first_movers_by_stretches;
use super::columns::Columns;
use super::scope::Scope;
use super::{llr, ratios, FOLLOW_FROM, FOLLOW_SECONDS, KEEP_FROM, SHIFT_DAYS};
use rayon::prelude::*;
use schema::{AccountId, Epoch, IpId, Timing};

/// A pair kept: the hidden account, the other, its timing and the sum of
/// its two ratios.
pub(super) type Found = (AccountId, AccountId, Timing, f64);

/// Every pair of a hidden account and a member (not itself, not in its
/// `known` partners: `partners[i]` for `hidden[i]`, sorted) whose ratios
/// reach [`KEEP_FROM`], in no particular order.
pub(super) fn search(
    cx: &Scope<'_>,
    hidden: &[Hidden],
    partners: &[Vec<AccountId>],
    members: &[AccountId],
    near: &NearRows,
) -> Vec<Found> {
    let columns = Columns::new(&near.bits, near.words, members.len());
    // Every hidden account is read against all the other members.
    let tested = members.len() as u32 - 1;
    hidden
        .par_iter()
        .zip(partners)
        .flat_map_iter(|(h, known)| {
            let n = h.counts[0];
            // At least half its sittings, and one.
            let half = n.div_ceil(2).max(1);
            let columns = &columns;
            columns
                .at_least(&h.starts[0], half)
                .into_iter()
                .filter_map(move |i| {
                    let x = members[i];
                    if x == h.account || known.binary_search(&x).is_ok() {
                        return None;
                    }
                    let row = near.row(i);
                    h.kept(cx, (x, tested), row, hits(&h.starts[0], row))
                })
        })
        .collect()
}

/// The season's bucket grid from the day of its first move: shifting by
/// whole days is shifting by whole rows of buckets.
#[derive(Debug, Clone, Copy)]
pub(super) struct Grid {
    base: Epoch,
    bucket_seconds: i64,
    buckets: usize,
}

impl Grid {
    /// The grid over the members' in-season moves (`None`: no moves).
    pub(super) fn new(cx: &Scope<'_>, members: &[AccountId]) -> Option<Grid> {
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
        day_in_buckets(self.bucket_seconds)
    }

    /// Sets in `bits` the buckets within [`FOLLOW_SECONDS`] after one of
    /// `moves`: its moved buckets and the ones after them that the horizon
    /// reaches.
    fn near(&self, moves: &[(Epoch, IpId)], bits: &mut [u64]) {
        let reach = (FOLLOW_SECONDS / self.bucket_seconds) as usize;
        let mut next = 0usize;
        for &(t, _) in moves {
            let b = self.bucket(t);
            for k in b.max(next)..(b + reach + 1).min(self.buckets) {
                bits[k / 64] |= 1 << (k % 64);
            }
            next = next.max(b + reach + 1);
        }
    }
}

/// Every member's [`Grid::near`] buckets, one row of the grid's words each,
/// side by side in the members' order.
pub(super) struct NearRows {
    words: usize,
    bits: Vec<u64>,
}

impl NearRows {
    pub(super) fn new(cx: &Scope<'_>, grid: &Grid, members: &[AccountId]) -> Self {
        let words = grid.words();
        let mut bits = vec![0u64; words * members.len()];
        bits.par_chunks_mut(words)
            .zip(members)
            .for_each(|(row, &u)| grid.near(cx.moves(u), row));
        NearRows { words, bits }
    }

    /// The row of the `i`-th member.
    fn row(&self, i: usize) -> &[u64] {
        &self.bits[i * self.words..(i + 1) * self.words]
    }
}

/// The buckets set in both rows.
fn hits(starts: &[u64], near: &[u64]) -> u32 {
    starts
        .iter()
        .zip(near)
        .map(|(s, x)| (s & x).count_ones())
        .sum()
}

/// A hidden account's sitting starts as buckets, as they are and moved by
/// each of [`SHIFT_DAYS`] (starts moved off the grid are dropped), and its
/// stretches moved the same way.
pub(super) struct Hidden {
    pub(super) account: AccountId,
    starts: Vec<Vec<u64>>,
    /// How many starts each of `starts` holds.
    counts: Vec<u32>,
    shifted_stretches: Vec<Vec<(Epoch, Epoch)>>,
}

impl Hidden {
    pub(super) fn new(cx: &Scope<'_>, grid: &Grid, account: AccountId) -> Self {
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

    /// The pair of this account and `other`, whose `near` buckets hold `k`
    /// of its sitting starts (at least half of them), if kept: following is
    /// above chance by [`FOLLOW_FROM`] and the two ratios reach
    /// [`KEEP_FROM`].
    /// `tested` is the members read against ([`Timing::tested`]).
    fn kept(
        &self,
        cx: &Scope<'_>,
        (other, tested): (AccountId, u32),
        near: &[u64],
        k: u32,
    ) -> Option<Found> {
        let n = self.counts[0];
        let ck: u32 = self.starts[1..].iter().map(|s| hits(s, near)).sum();
        let cn: u32 = self.counts[1..].iter().sum();
        let followed_by_chance_milli = milli(ck, cn);
        let follow = llr(k, n, followed_by_chance_milli as f64 / 1000.0);
        if follow < FOLLOW_FROM {
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
        let t = Timing {
            a_hidden: true,
            sittings: n,
            followed: k,
            followed_by_chance_milli,
            other_opened: o,
            hidden_opened: h,
            other_opened_by_chance_milli: milli(co, co + ch),
            tested,
        };
        let [f, l] = ratios(&t);
        (f + l >= KEEP_FROM).then_some((self.account, other, t, f + l))
    }
}
