//! The signals of one unordered pair: following, two bodies, co-travel,
//! places, private networks and crowded addresses (see
//! [`schema::Signals`]).

use super::context::{Context, Sighting};
use super::following::{following, totals, Side, SITTING_SECONDS};
use super::handoffs::{handoffs, Handoffs};
use super::pace::{near, pace, Pace};
use schema::{AccountId, Epoch, IpDay, IpId, Segment, Signals};

/// One account's moves by second: (time, address), sorted.
pub type Moves<'s> = &'s [(Epoch, IpId)];

/// The signals of `{a, b}` from their in-season segments, (day, address)
/// sightings and moves by second.
pub fn signals(
    cx: &Context<'_>,
    (a, b): (&[Segment], &[Segment]),
    (a_days, b_days): (&[IpDay], &[IpDay]),
    (a_moves, b_moves): (Moves<'_>, Moves<'_>),
) -> Signals {
    let bs = cx.segments.bucket_seconds;
    with_pace(
        combine(
            side(a, b, bs),
            side(b, a, bs),
            apart(cx, a, b),
            shared_days(cx, a_days, b_days),
            handoffs(cx, a_moves, b_moves),
            private_shares(&cx.network_counts(a_moves), &cx.network_counts(b_moves)),
        ),
        (pace(a_moves), pace(b_moves)),
        || near(a_moves, b_moves),
    )
}

/// `s` with the paces of `a` and `b` and, when they made a close move,
/// their chances of one (`near`, [`super::pace`]): without a close move
/// there is nothing to read against pace, and most pairs have none.
fn with_pace(s: Signals, (x, y): (Pace, Pace), near: impl FnOnce() -> u32) -> Signals {
    let near = if s.close > 0 { near() } else { 0 };
    Signals {
        a_pace_close: x.close,
        a_pace_near: x.near,
        b_pace_close: y.close,
        b_pace_near: y.near,
        near,
        ..s
    }
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
            super::moved::side_near(p, q, bs),
            super::moved::side_near(q, p, bs),
            super::moved::apart(cx, p, q),
        ),
        _ => {
            let (a, b) = (cx.in_season(x), cx.in_season(y));
            (
                side_near(&a, &b, bs),
                side_near(&b, &a, bs),
                apart(cx, &a, &b),
            )
        }
    };
    let s = combine(
        with_totals(x, near_x),
        with_totals(y, near_y),
        apart_xy,
        shared_days_of_accounts(cx, x, y),
        super::handoffs::handoffs_indexed(cx, cx.indexed_moves(x), cx.indexed_moves(y)),
        private_shares(cx.networks_moved(x), cx.networks_moved(y)),
    );
    let near = || super::pace::near_indexed(cx.indexed_moves(x), cx.indexed_moves(y));
    with_pace(s, (cx.pace(x), cx.pace(y)), near)
}

fn combine(
    x: Side,
    y: Side,
    apart: u32,
    shared: Shared,
    h: Handoffs,
    (a_private_milli, b_private_milli): (u32, u32),
) -> Signals {
    Signals {
        a_sittings: x.sittings,
        a_followed: x.followed,
        b_sittings: y.sittings,
        b_followed: y.followed,
        a_followed_by_chance_milli: x.followed_by_chance_milli,
        b_followed_by_chance_milli: y.followed_by_chance_milli,
        a_buckets: x.buckets,
        b_buckets: y.buckets,
        apart,
        networks: shared.networks,
        places: shared.places,
        shared_ip_days: shared.ip_days,
        crowded_ip_days: shared.crowded,
        close: h.close,
        switches: h.switches,
        quick: h.quick,
        turns: h.turns,
        spaced: h.spaced,
        returns: h.returns,
        a_private_milli,
        b_private_milli,
        ..Signals::default()
    }
}

/// [`Side`] of `x` against `y`.
pub fn side(x: &[Segment], y: &[Segment], bs: i64) -> Side {
    let (buckets, sittings) = totals(x, bs);
    Side {
        buckets,
        sittings,
        ..side_near(x, y, bs)
    }
}

/// The parts of [`Side`] that read `y` (the counts are left 0): following
/// and following by chance ([`following`]).
pub fn side_near(x: &[Segment], y: &[Segment], bs: i64) -> Side {
    let f = following(x, y, bs, SITTING_SECONDS);
    Side {
        followed: f.followed,
        followed_by_chance_milli: f.by_chance_milli,
        ..Side::default()
    }
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

/// What two accounts' shared (day, address) sightings say: how many, how
/// many of them crowded, the distinct uncrowded networks among the others
/// (co-travel), and the most of those networks in use at one time
/// (places). Shared exits ([`Context::is_exit`]: VPN exits, a campus) are
/// places of many and count in neither.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Shared {
    pub ip_days: u32,
    pub crowded: u32,
    pub networks: u32,
    pub places: u32,
}

/// [`Shared`] of the sightings `x` and `y` (each sorted).
pub fn shared_days(cx: &Context<'_>, x: &[IpDay], y: &[IpDay]) -> Shared {
    shared_days_by(cx, x, y, |i| cx.sighting(x[i].day, x[i].ip))
}

/// [`shared_days`] of two accounts of the context, each shared sighting's
/// [`Sighting`] read from the context (the same for both accounts: it is
/// of the day and the address).
pub fn shared_days_of_accounts(cx: &Context<'_>, x: AccountId, y: AccountId) -> Shared {
    let (xs, sightings) = cx.ip_days_with_sightings(x);
    shared_days_by(cx, xs, cx.ip_days(y), |i| sightings[i])
}

/// [`shared_days`], `sighting(i)` the [`Sighting`] of `x[i]`.
fn shared_days_by(
    cx: &Context<'_>,
    x: &[IpDay],
    y: &[IpDay],
    sighting: impl Fn(usize) -> Sighting,
) -> Shared {
    let (mut i, mut j) = (0usize, 0usize);
    let mut out = Shared::default();
    let mut spans = Spans::default();
    while i < x.len() && j < y.len() {
        let (p, q) = ((x[i].day, x[i].ip), (y[j].day, y[j].ip));
        match p.cmp(&q) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                match sighting(i) {
                    Sighting::Out => {}
                    Sighting::Crowded => {
                        out.ip_days += 1;
                        out.crowded += 1;
                    }
                    Sighting::Exit => out.ip_days += 1,
                    Sighting::Place => {
                        out.ip_days += 1;
                        spans.push(cx.network_key(p.1), p.0);
                    }
                }
                i += 1;
                j += 1;
            }
        }
    }
    (out.networks, out.places) = spans.count();
    out
}

/// Each network's span of days, from its first shared day to its last.
#[derive(Default)]
struct Spans(Vec<(u128, i64, i64)>);

impl Spans {
    fn push(&mut self, key: u128, day: i64) {
        match self.0.iter_mut().find(|s| s.0 == key) {
            Some(s) => {
                s.1 = s.1.min(day);
                s.2 = s.2.max(day);
            }
            None => self.0.push((key, day, day)),
        }
    }

    /// The distinct networks, and the most whose spans hold one day (the
    /// first day of one of them: the most overlapping spans always do).
    fn count(&self) -> (u32, u32) {
        let places = self
            .0
            .iter()
            .map(|&(_, from, _)| self.0.iter().filter(|s| s.1 <= from && from <= s.2).count())
            .max()
            .unwrap_or(0);
        (self.0.len() as u32, places as u32)
    }
}

/// Private shares: of each account's moves, the share made from networks
/// the other never moved from, in thousandths (0 for an account without
/// moves).
pub fn private_shares(a: &[(u128, u32)], b: &[(u128, u32)]) -> (u32, u32) {
    let (mut shared_a, mut shared_b) = (0u64, 0u64);
    let (mut i, mut j) = (0usize, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].0.cmp(&b[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared_a += a[i].1 as u64;
                shared_b += b[j].1 as u64;
                i += 1;
                j += 1;
            }
        }
    }
    let milli = |shared: u64, list: &[(u128, u32)]| {
        let total: u64 = list.iter().map(|x| x.1 as u64).sum();
        ((total - shared) * 1000 + total / 2)
            .checked_div(total)
            .unwrap_or(0) as u32
    };
    (milli(shared_a, a), milli(shared_b, b))
}
