//! The signals of one unordered pair: one sitting, two bodies, co-travel
//! and crowded addresses (see [`schema::Signals`]).

use super::context::Context;
use schema::{day_of, IpDay, Segment, Signals};
use std::collections::BTreeSet;

/// The sitting horizon: two accounts moving within this many seconds of each
/// other from one address are one sitting (a careful owner spaces his
/// accounts 30 to 90 minutes apart).
pub const SITTING_SECONDS: i64 = 2 * 3600;

/// An address-day counts as crowded below this crowd weight.
pub const CROWDED_BELOW: f64 = 0.5;

/// The signals of `{a, b}` from their in-season segments and (day, address)
/// sightings.
pub fn signals(
    cx: &Context<'_>,
    a: &[Segment],
    b: &[Segment],
    a_days: &[IpDay],
    b_days: &[IpDay],
) -> Signals {
    let bs = cx.segments.bucket_seconds;
    let (a_buckets, a_acc) = accompanied(cx, a, b, bs);
    let (b_buckets, b_acc) = accompanied(cx, b, a, bs);
    let (shared_ip_days, crowded_ip_days, networks) = shared_days(cx, a_days, b_days);
    let (a_sittings, a_followed) = followed(a, b, bs);
    let (b_sittings, b_followed) = followed(b, a, bs);
    Signals {
        a_sittings,
        a_followed,
        b_sittings,
        b_followed,
        a_buckets,
        b_buckets,
        a_accompanied_milli: (a_acc * 1000.0).round() as u32,
        b_accompanied_milli: (b_acc * 1000.0).round() as u32,
        apart: apart(cx, a, b),
        networks,
        shared_ip_days,
        crowded_ip_days,
    }
}

/// One sitting, seen from `x`: how many buckets `x` moved in, and the sum
/// over them of the best crowd weight of an address `y` also moved from
/// within [`SITTING_SECONDS`].
pub fn accompanied(cx: &Context<'_>, x: &[Segment], y: &[Segment], bs: i64) -> (u32, f64) {
    let horizon = SITTING_SECONDS.max(bs);
    let (mut buckets, mut sum) = (0u32, 0.0f64);
    let mut lo = 0usize;
    for s in x.iter().filter(|s| !s.moves.is_empty()) {
        buckets += 1;
        while lo < y.len() && y[lo].bucket < s.bucket - horizon {
            lo += 1;
        }
        let day = day_of(s.bucket);
        let mut best = 0.0f64;
        for t in y[lo..]
            .iter()
            .take_while(|t| t.bucket <= s.bucket + horizon)
        {
            for &(ip, _) in &t.moves {
                if s.moves.iter().any(|&(mine, _)| mine == ip) {
                    best = best.max(cx.weight(day, ip));
                }
            }
        }
        sum += best;
    }
    (buckets, sum)
}

/// A new sitting begins after this long without a move.
pub const SITTING_GAP_SECONDS: i64 = 3600;

/// Following, seen from `x`: how many sittings `x` had, and how many of
/// them began within [`SITTING_SECONDS`] after a move of `y` (or in the
/// bucket of one), from any address.
pub fn followed(x: &[Segment], y: &[Segment], bs: i64) -> (u32, u32) {
    let horizon = SITTING_SECONDS.max(bs);
    let gap = SITTING_GAP_SECONDS.max(bs);
    let (mut sittings, mut followed) = (0u32, 0u32);
    let mut last: Option<i64> = None;
    let mut lo = 0usize;
    for s in x.iter().filter(|s| !s.moves.is_empty()) {
        let starts = last.is_none_or(|l| s.bucket - l > gap);
        last = Some(s.bucket);
        if !starts {
            continue;
        }
        sittings += 1;
        while lo < y.len() && y[lo].bucket < s.bucket - horizon {
            lo += 1;
        }
        if y[lo..]
            .iter()
            .take_while(|t| t.bucket <= s.bucket)
            .any(|t| !t.moves.is_empty())
        {
            followed += 1;
        }
    }
    (sittings, followed)
}

/// Two bodies: buckets in which both moved and no address of one lies in a
/// network of the other.
pub fn apart(cx: &Context<'_>, x: &[Segment], y: &[Segment]) -> u32 {
    let (mut i, mut j, mut n) = (0usize, 0usize, 0u32);
    while i < x.len() && j < y.len() {
        match x[i].bucket.cmp(&y[j].bucket) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
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
    let mut nets = BTreeSet::new();
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
                    nets.insert(cx.network_key(p.1));
                }
                i += 1;
                j += 1;
            }
        }
    }
    (shared, crowded, nets.len() as u32)
}
