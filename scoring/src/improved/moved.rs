//! The scan's path for one sitting, following and two bodies: the same
//! counts as [`super::signals::side_near`] and [`super::signals::apart`],
//! walked over the pair's moved buckets alone ([`MovedBuckets`], taken from
//! the bit rows the reference score already built) instead of every
//! segment. Most segments are stalls, which these signals never read.
//!
//! What this is not: a second definition. The functions in
//! [`super::signals`] are the definition; the property test in
//! `scoring/tests/improved.rs` checks that the scan's path agrees with them.

use super::context::Context;
use super::signals::{Side, SITTING_GAP_SECONDS, SITTING_SECONDS};
use crate::bits::MovedBuckets;
use crate::search::gallop;
use schema::day_of;

/// [`super::signals::side_near`] of `x` against `y` on moved buckets.
pub fn side_near(cx: &Context<'_>, x: MovedBuckets<'_>, y: MovedBuckets<'_>, bs: i64) -> Side {
    // Buckets are multiples of `bs`: "within s seconds" is "within s / bs
    // buckets", rounded down.
    let horizon = SITTING_SECONDS.max(bs) / bs;
    let gap = SITTING_GAP_SECONDS.max(bs) / bs;
    let mut out = Side::default();
    let (mut i, mut lo) = (0usize, 0usize);
    while i < x.len() {
        let k = x.at[i];
        while lo < y.len() && y.at[lo] < k - horizon {
            lo += 1;
        }
        let Some(&first) = y.at.get(lo) else { break };
        if first > k + horizon {
            i += gallop(&x.at[i..], |&t| t < first - horizon);
            continue;
        }
        let mut hi = lo;
        while hi < y.len() && y.at[hi] <= k + horizon {
            hi += 1;
        }
        let near = lo..hi;
        let mut best = 0.0f64;
        for &ip in x.ips(i) {
            if near.clone().any(|j| y.ips(j).contains(&ip)) {
                best = best.max(cx.weight(day_of(k * bs), ip));
            }
        }
        out.accompanied += best;
        let starts = i == 0 || x.at[i - 1] < k - gap;
        if starts && first <= k {
            out.followed += 1;
        }
        i += 1;
    }
    out
}

/// [`super::signals::apart`] on moved buckets: buckets in which both moved
/// and no address of one lies in a network of the other.
pub fn apart(cx: &Context<'_>, x: MovedBuckets<'_>, y: MovedBuckets<'_>) -> u32 {
    let (mut i, mut j, mut n) = (0usize, 0usize, 0u32);
    while i < x.len() && j < y.len() {
        let (p, q) = (x.at[i], y.at[j]);
        if p < q {
            i += gallop(&x.at[i..], |&t| t < q);
        } else if p > q {
            j += gallop(&y.at[j..], |&t| t < p);
        } else {
            let (ours, theirs) = (x.ips(i), y.ips(j));
            let near = ours
                .iter()
                .any(|&u| theirs.iter().any(|&v| cx.same_network(u, v)));
            if !near {
                n += 1;
            }
            i += 1;
            j += 1;
        }
    }
    n
}
