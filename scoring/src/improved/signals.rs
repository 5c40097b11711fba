//! The signals of one unordered pair: one sitting, two bodies, co-travel
//! and crowded addresses (see [`schema::Signals`]).

use super::context::Context;
use super::following::{following, LONG_FOLLOW_SECONDS};
use super::handoffs::{handoffs, Handoffs};
use super::order::{first_movers, first_movers_by_stretches};
use schema::{day_of, AccountId, Epoch, IpDay, IpId, Segment, Signals};

/// One account's moves by second: (time, address), sorted.
pub type Moves<'s> = &'s [(Epoch, IpId)];

/// The sitting horizon: two accounts moving within this many seconds of each
/// other from one address are one sitting (a careful owner spaces his
/// accounts 30 to 90 minutes apart).
pub const SITTING_SECONDS: i64 = 2 * 3600;

/// An address-day counts as crowded below this crowd weight.
pub const CROWDED_BELOW: f64 = 0.5;

/// The signals of `{a, b}` from their in-season segments, (day, address)
/// sightings and moves by second.
pub fn signals(
    cx: &Context<'_>,
    (a, b): (&[Segment], &[Segment]),
    (a_days, b_days): (&[IpDay], &[IpDay]),
    (a_moves, b_moves): (Moves<'_>, Moves<'_>),
) -> Signals {
    let bs = cx.segments.bucket_seconds;
    combine(
        cx,
        side(cx, a, b, bs),
        side(cx, b, a, bs),
        apart(cx, a, b),
        (a_days, b_days),
        handoffs(cx, a_moves, b_moves),
        first_movers(a_moves, b_moves),
    )
}

/// [`signals`] of two accounts of the context's segments, with their counts
/// taken from the context.
pub fn signals_of_accounts(cx: &Context<'_>, x: AccountId, y: AccountId) -> Signals {
    let bs = cx.segments.bucket_seconds;
    let with_totals = |u: AccountId, near: Side| {
        let (buckets, sittings) = cx.totals(u);
        Side {
            buckets,
            sittings,
            ..near
        }
    };
    // On the moved buckets of the bit rows when both have them (always,
    // from the segmenter), else on the segments.
    let (near_x, near_y, apart_xy) = match (cx.moved_rows(x), cx.moved_rows(y)) {
        (Some(p), Some(q)) => (
            super::moved::side_near(cx, p, q, bs),
            super::moved::side_near(cx, q, p, bs),
            super::moved::apart(cx, p, q),
        ),
        _ => {
            let (a, b) = (cx.in_season(x), cx.in_season(y));
            (
                side_near(cx, &a, &b, bs),
                side_near(cx, &b, &a, bs),
                apart(cx, &a, &b),
            )
        }
    };
    combine(
        cx,
        with_totals(x, near_x),
        with_totals(y, near_y),
        apart_xy,
        (cx.ip_days(x), cx.ip_days(y)),
        super::handoffs::handoffs_indexed(cx, cx.indexed_moves(x), cx.indexed_moves(y)),
        first_movers_by_stretches(cx.stretches(x), cx.stretches(y)),
    )
}

fn combine(
    cx: &Context<'_>,
    x: Side,
    y: Side,
    apart: u32,
    (a_days, b_days): (&[IpDay], &[IpDay]),
    h: Handoffs,
    (a_first, b_first): (u32, u32),
) -> Signals {
    let (shared_ip_days, crowded_ip_days, networks) = shared_days(cx, a_days, b_days);
    Signals {
        a_sittings: x.sittings,
        a_followed: x.followed,
        b_sittings: y.sittings,
        b_followed: y.followed,
        a_followed_by_chance_milli: x.followed_by_chance_milli,
        b_followed_by_chance_milli: y.followed_by_chance_milli,
        a_followed_long: x.followed_long,
        b_followed_long: y.followed_long,
        a_followed_long_by_chance_milli: x.followed_long_by_chance_milli,
        b_followed_long_by_chance_milli: y.followed_long_by_chance_milli,
        a_buckets: x.buckets,
        b_buckets: y.buckets,
        a_accompanied_milli: (x.accompanied * 1000.0).round() as u32,
        b_accompanied_milli: (y.accompanied * 1000.0).round() as u32,
        apart,
        networks,
        shared_ip_days,
        crowded_ip_days,
        close: h.close,
        switches: h.switches,
        quick: h.quick,
        turns: h.turns,
        spaced: h.spaced,
        returns: h.returns,
        a_first,
        b_first,
        timing: None,
    }
}

/// One account's side of the pair: one sitting and following, seen from
/// `x`, in one pass over its segments.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Side {
    /// Buckets `x` moved in.
    pub buckets: u32,
    /// One sitting: the sum over those buckets of the best crowd weight of
    /// an address `y` also moved from within [`SITTING_SECONDS`].
    pub accompanied: f64,
    /// `x`'s sittings, and how many began within [`SITTING_SECONDS`] after
    /// a move of `y` (or in the bucket of one), from any address.
    pub sittings: u32,
    pub followed: u32,
    /// Following by chance ([`super::following`]), in thousandths.
    pub followed_by_chance_milli: u32,
    /// Following at the long horizon ([`LONG_FOLLOW_SECONDS`]), and by
    /// chance, in thousandths.
    pub followed_long: u32,
    pub followed_long_by_chance_milli: u32,
}

/// A new sitting begins after this long without a move.
pub const SITTING_GAP_SECONDS: i64 = 3600;

/// [`Side`] of `x` against `y`.
pub fn side(cx: &Context<'_>, x: &[Segment], y: &[Segment], bs: i64) -> Side {
    let (buckets, sittings) = totals(x, bs);
    Side {
        buckets,
        sittings,
        ..side_near(cx, x, y, bs)
    }
}

/// The buckets `x` moved in and its sittings.
pub fn totals(x: &[Segment], bs: i64) -> (u32, u32) {
    let gap = SITTING_GAP_SECONDS.max(bs);
    let (mut buckets, mut sittings) = (0u32, 0u32);
    let mut last: Option<i64> = None;
    for s in x.iter().filter(|s| !s.moves.is_empty()) {
        buckets += 1;
        if last.is_none_or(|l| s.bucket - l > gap) {
            sittings += 1;
        }
        last = Some(s.bucket);
    }
    (buckets, sittings)
}

/// The parts of [`Side`] that read `y` (the counts are left 0):
/// `accompanied` visits only `x`'s buckets within [`SITTING_SECONDS`] of
/// one of `y`'s, jumping over the rest; following, at both horizons and
/// by chance, is [`following`]'s.
pub fn side_near(cx: &Context<'_>, x: &[Segment], y: &[Segment], bs: i64) -> Side {
    let horizon = SITTING_SECONDS.max(bs);
    let reach = 2 * (horizon / bs) as usize + 1;
    let mut out = Side::default();
    let (mut i, mut lo) = (0usize, 0usize);
    while i < x.len() {
        let s = &x[i];
        while lo < y.len() && y[lo].bucket < s.bucket - horizon {
            lo += 1;
        }
        let Some(first) = y.get(lo) else { break };
        if first.bucket > s.bucket + horizon {
            let target = first.bucket - horizon;
            i += x[i..].partition_point(|t| t.bucket < target);
            continue;
        }
        i += 1;
        if s.moves.is_empty() {
            continue;
        }
        let near = &y[lo..y.len().min(lo + reach)];
        let mut best = 0.0f64;
        for &(ip, _) in &s.moves {
            let shared = near
                .iter()
                .take_while(|t| t.bucket <= s.bucket + horizon)
                .any(|t| t.moves.iter().any(|&(theirs, _)| theirs == ip));
            if shared {
                best = best.max(cx.weight(day_of(s.bucket), ip));
            }
        }
        out.accompanied += best;
    }
    let short = following(x, y, bs, SITTING_SECONDS);
    out.followed = short.followed;
    out.followed_by_chance_milli = short.by_chance_milli;
    let long = following(x, y, bs, LONG_FOLLOW_SECONDS);
    out.followed_long = long.followed;
    out.followed_long_by_chance_milli = long.by_chance_milli;
    out
}

/// Two bodies: buckets in which both moved and no address of one lies in a
/// network of the other.
pub fn apart(cx: &Context<'_>, x: &[Segment], y: &[Segment]) -> u32 {
    let (mut i, mut j, mut n) = (0usize, 0usize, 0u32);
    while i < x.len() && j < y.len() {
        match x[i].bucket.cmp(&y[j].bucket) {
            std::cmp::Ordering::Less => {
                let b = y[j].bucket;
                i += x[i..].partition_point(|s| s.bucket < b);
            }
            std::cmp::Ordering::Greater => {
                let b = x[i].bucket;
                j += y[j..].partition_point(|s| s.bucket < b);
            }
            std::cmp::Ordering::Equal => {
                let (p, q) = (&x[i].moves, &y[j].moves);
                let near = p
                    .iter()
                    .any(|&(u, _)| q.iter().any(|&(v, _)| cx.same_network(u, v)));
                if !p.is_empty() && !q.is_empty() && !near {
                    n += 1;
                }
                i += 1;
                j += 1;
            }
        }
    }
    n
}

/// Co-travel and crowding: the (day, address) sightings both accounts share,
/// how many of them were crowded, and the distinct networks among the
/// uncrowded ones.
pub fn shared_days(cx: &Context<'_>, x: &[IpDay], y: &[IpDay]) -> (u32, u32, u32) {
    let (mut i, mut j) = (0usize, 0usize);
    let (mut shared, mut crowded) = (0u32, 0u32);
    let mut nets = Distinct::default();
    while i < x.len() && j < y.len() {
        let (p, q) = ((x[i].day, x[i].ip), (y[j].day, y[j].ip));
        match p.cmp(&q) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal if !crate::day_in_season(p.0, cx.season) => {
                i += 1;
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                shared += 1;
                if cx.weight(p.0, p.1) < CROWDED_BELOW {
                    crowded += 1;
                } else {
                    nets.push(cx.network_key(p.1));
                }
                i += 1;
                j += 1;
            }
        }
    }
    (shared, crowded, nets.count())
}

/// Counts distinct keys: the first few on the stack (a pair shares few
/// networks), the rest in a list sorted at the end.
#[derive(Default)]
struct Distinct {
    few: [u128; 8],
    len: usize,
    more: Vec<u128>,
}

impl Distinct {
    fn push(&mut self, key: u128) {
        if self.few[..self.len].contains(&key) {
            return;
        }
        match self.few.get_mut(self.len) {
            Some(slot) => {
                *slot = key;
                self.len += 1;
            }
            None => self.more.push(key),
        }
    }

    fn count(mut self) -> u32 {
        if self.more.is_empty() {
            return self.len as u32;
        }
        self.more.extend_from_slice(&self.few);
        self.more.sort_unstable();
        self.more.dedup();
        self.more.len() as u32
    }
}
