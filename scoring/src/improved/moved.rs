//! The scan's path for following and two bodies: the same counts as
//! [`super::signals::side_near`] and [`super::signals::apart`], from each
//! account's moved buckets ([`MovedBuckets`], taken from the bit rows the
//! reference score already built) put once per scan into bit rows
//! ([`MovedRows`]). Most segments are stalls, which these signals never
//! read.
//!
//! - **following** is one `popcount` a word: the buckets that begin a
//!   sitting of `x` against those in which `y` moved at most the horizon
//!   (two hours) before; by chance, the same with `x`'s starts moved by
//!   whole days, counted per bucket in three bit planes built once per
//!   account;
//! - **two bodies** looks up addresses only in the buckets both moved in
//!   (one `and` a word).
//!
//! What this is not: a second definition. The functions in
//! [`mod@super::signals`] are the definition; the property test in
//! `scoring/tests/it/improved.rs` checks that the scan's path agrees with them.

use super::context::Context;
use super::following::{day_in_buckets, milli, Side, SHIFT_DAYS};
use super::moved_rows::{overlap, MovedRows};
use crate::bits::MovedBuckets;

/// [`super::signals::side_near`] of `x` against `y` on their rows.
pub fn side_near(
    (x, _): (&MovedRows, MovedBuckets<'_>),
    (y, _): (&MovedRows, MovedBuckets<'_>),
    bs: i64,
) -> Side {
    Side {
        followed: followed(x, y),
        followed_by_chance_milli: followed_by_chance(x, y, day_in_buckets(bs)),
        ..Side::default()
    }
}

/// Sittings of `x` that begin at most the horizon after a move of `y`, or
/// in the bucket of one.
fn followed(x: &MovedRows, y: &MovedRows) -> u32 {
    let Some((lo, hi)) = overlap(x, y) else {
        return 0;
    };
    let starts = &x.starts[(lo - x.first) as usize..(hi - x.first) as usize];
    let after = &y.after.bits[(lo - y.first) as usize..(hi - y.first) as usize];
    starts
        .iter()
        .zip(after)
        .map(|(s, a)| (s & a).count_ones())
        .sum()
}

/// [`super::following::Following::by_chance_milli`] on rows: `x`'s
/// sitting starts moved by whole days of `day` buckets (`shifted`, counted
/// per bucket in three bit planes) against the reach of `y`'s moves, a
/// word at a time. The reach lies within its span, so the starts that land
/// outside it meet no bit there.
fn followed_by_chance(x: &MovedRows, y: &MovedRows, day: i64) -> u32 {
    let after = &y.after;
    let Some((lo, hi)) = after.span else {
        return milli(0, 0);
    };
    let n: usize = SHIFT_DAYS
        .iter()
        .map(|d| {
            let shift = d * day;
            let from = x.start_list.partition_point(|&s| s + shift < lo);
            let to = x.start_list.partition_point(|&s| s + shift <= hi);
            to.saturating_sub(from)
        })
        .sum();
    let words = x.shifted[0].len() as i64;
    let (a, b) = (
        x.shifted_first.max(y.first),
        (x.shifted_first + words).min(y.first + after.bits.len() as i64),
    );
    let mut k = 0u32;
    for w in a..b {
        let bits = after.bits[(w - y.first) as usize];
        if bits != 0 {
            let i = (w - x.shifted_first) as usize;
            k += (0..3)
                .map(|p| (x.shifted[p][i] & bits).count_ones() << p)
                .sum::<u32>();
        }
    }
    milli(k, n as u32)
}

/// [`super::signals::apart`] on rows: buckets in which both moved and no
/// address of one lies in a network of the other.
pub fn apart(
    cx: &Context<'_>,
    (x, xm): (&MovedRows, MovedBuckets<'_>),
    (y, ym): (&MovedRows, MovedBuckets<'_>),
) -> u32 {
    let Some((lo, hi)) = overlap(x, y) else {
        return 0;
    };
    let mut n = 0;
    for w in lo..hi {
        let mut both = x.moved[(w - x.first) as usize] & y.moved[(w - y.first) as usize];
        while both != 0 {
            let bit = both.trailing_zeros();
            both &= both - 1;
            let (ours, theirs) = (xm.ips(x.index(w, bit)), ym.ips(y.index(w, bit)));
            let near = ours
                .iter()
                .any(|&u| theirs.iter().any(|&v| cx.same_network(u, v)));
            n += u32::from(!near);
        }
    }
    n
}
