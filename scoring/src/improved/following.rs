//! Sittings (moves with no pause over [`SITTING_GAP_SECONDS`]) and
//! following against chance: how many of an account's sittings began within
//! a horizon after a move of the other account (from any address), and the
//! same share with its sittings moved one to three days either way (whole
//! days of buckets: the same hours of the day), of those that land where
//! the other played. Two evening players follow each other by chance; a
//! puppet follows its owner's main account more. Read at the sitting
//! horizon ([`SITTING_SECONDS`], two hours).
//!
//! This is the definition, on segments. The scan counts the same on bit
//! rows ([`super::moved`]); a property test checks that they agree.

use schema::Segment;

/// The sitting horizon: a sitting of one account that begins within this
/// many seconds after a move of the other follows it (a careful owner
/// spaces his accounts 30 to 90 minutes apart).
pub const SITTING_SECONDS: i64 = 2 * 3600;

/// A new sitting begins after this long without a move.
pub const SITTING_GAP_SECONDS: i64 = 3600;

/// The days a sitting is moved by to read chance (here and for the timing
/// pairs, [`super::timing`]).
pub const SHIFT_DAYS: [i64; 6] = [-3, -2, -1, 1, 2, 3];

/// One side's following at one horizon.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Following {
    /// `x`'s sittings that began at most the horizon after a move of `y`
    /// (or in the bucket of one).
    pub followed: u32,
    /// The share of `x`'s sittings, moved by each of [`SHIFT_DAYS`] and
    /// landing within `y`'s span of play (its first moved bucket to its
    /// last plus the horizon), that begin at most the horizon after a move
    /// of `y`, in thousandths; 500 when none land.
    pub by_chance_milli: u32,
}

/// Buckets in a day, rounded when the bucket size does not divide it.
pub fn day_in_buckets(bs: i64) -> i64 {
    (schema::SECONDS_PER_DAY as f64 / bs as f64).round() as i64
}

/// [`Following`] of `x` after `y` within `horizon` seconds (at least a
/// bucket), for buckets of `bs` seconds.
pub fn following(x: &[Segment], y: &[Segment], bs: i64, horizon: i64) -> Following {
    let horizon = horizon.max(bs);
    let gap = SITTING_GAP_SECONDS.max(bs);
    let day = day_in_buckets(bs) * bs;
    let moved: Vec<i64> = y
        .iter()
        .filter(|s| !s.moves.is_empty())
        .map(|s| s.bucket)
        .collect();
    let after = |b: i64| {
        let i = moved.partition_point(|&m| m < b - horizon);
        moved.get(i).is_some_and(|&m| m <= b)
    };
    let span = moved.first().zip(moved.last());
    let (mut followed, mut k, mut n) = (0u32, 0u32, 0u32);
    let mut last: Option<i64> = None;
    for s in x.iter().filter(|s| !s.moves.is_empty()) {
        let starts = last.is_none_or(|l| s.bucket - l > gap);
        last = Some(s.bucket);
        if !starts {
            continue;
        }
        followed += u32::from(after(s.bucket));
        let Some((&lo, &hi)) = span else { continue };
        for d in SHIFT_DAYS {
            let b = s.bucket + d * day;
            if (lo..=hi + horizon).contains(&b) {
                n += 1;
                k += u32::from(after(b));
            }
        }
    }
    Following {
        followed,
        by_chance_milli: milli(k, n),
    }
}

/// One account's side of the pair: its buckets and sittings, and
/// following, seen from `x`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Side {
    /// Buckets `x` moved in.
    pub buckets: u32,
    /// `x`'s sittings, and how many began within [`SITTING_SECONDS`] after
    /// a move of `y` (or in the bucket of one), from any address.
    pub sittings: u32,
    pub followed: u32,
    /// Following by chance ([`following`]), in thousandths.
    pub followed_by_chance_milli: u32,
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

/// `k / n` in thousandths, rounded; 500 when `n` is 0 (no reading).
pub(crate) fn milli(k: u32, n: u32) -> u32 {
    if n == 0 {
        500
    } else {
        ((1000 * k as u64 + n as u64 / 2) / n as u64) as u32
    }
}
