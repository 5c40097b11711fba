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
use super::following::{day_in_buckets, milli, SHIFT_DAYS};
use super::signals::{Side, SITTING_GAP_SECONDS, SITTING_SECONDS};
use crate::bits::MovedBuckets;
use schema::IpId;

/// One account's moved buckets as bit rows over absolute bucket numbers
/// (`bucket / B`, 64 a word).
#[derive(Debug, Clone, Default)]
pub struct MovedRows {
    /// The word number of the rows' first word.
    first: i64,
    /// A move in the bucket.
    moved: Vec<u64>,
    /// A move in the bucket and none in the sitting gap before it: the
    /// bucket begins a sitting.
    starts: Vec<u64>,
    /// A move in the bucket or in the horizon before it.
    after: Reach,
    /// Moved buckets in the words before each word.
    rank: Vec<u32>,
    /// The buckets that begin a sitting, ascending (as in `starts`).
    start_list: Vec<i64>,
    /// Those starts moved by each of [`SHIFT_DAYS`]: how many land in each
    /// bucket (at most six), as three bit planes (1, 2, 4) from word
    /// `shifted_first`.
    shifted: [Vec<u64>; 3],
    shifted_first: i64,
}

/// Sorted `(address, item)` pairs as groups: the addresses, where each
/// address's items begin in the third list (one more entry than addresses,
/// the last the end), and the items, so that the items of `ips[i]` are
/// `by_ip[ip_from[i]..ip_from[i + 1]]`.
pub(crate) fn groups(pairs: &[(IpId, u32)]) -> (Vec<IpId>, Vec<u32>, Vec<u32>) {
    let (mut ips, mut ip_from, mut by_ip) = (Vec::new(), vec![0], Vec::with_capacity(pairs.len()));
    for (n, &(ip, i)) in pairs.iter().enumerate() {
        if ips.last() != Some(&ip) {
            if !ips.is_empty() {
                ip_from.push(n as u32);
            }
            ips.push(ip);
        }
        by_ip.push(i);
    }
    if !ips.is_empty() {
        ip_from.push(pairs.len() as u32);
    }
    (ips, ip_from, by_ip)
}

/// The buckets at most a horizon after a move, as a bit row beside the
/// rows' others, and the span they lie in: the first moved bucket to the
/// last plus the horizon.
#[derive(Debug, Clone, Default)]
struct Reach {
    bits: Vec<u64>,
    span: Option<(i64, i64)>,
}

impl Reach {
    /// The reach of the moved buckets `at` (ascending) over `words` words
    /// from word `first`, for a horizon of `horizon` buckets.
    fn new(at: &[i64], first: i64, words: usize, horizon: i64) -> Reach {
        let mut bits = vec![0u64; words];
        let base = first * 64;
        let mut covered = 0usize;
        for &k in at {
            let at = (k - base) as usize;
            for p in at.max(covered)..=at + horizon as usize {
                bits[p / 64] |= 1 << (p % 64);
            }
            covered = at + horizon as usize + 1;
        }
        Reach {
            bits,
            span: at
                .first()
                .zip(at.last())
                .map(|(&lo, &hi)| (lo, hi + horizon)),
        }
    }
}

/// The sitting horizon and the sitting gap in buckets: "within s seconds"
/// is "within s / B buckets", rounded down (buckets are multiples of B).
fn reach(bs: i64) -> (i64, i64) {
    (
        SITTING_SECONDS.max(bs) / bs,
        SITTING_GAP_SECONDS.max(bs) / bs,
    )
}

impl MovedRows {
    /// The rows of one account's moved buckets, for buckets of `bs` seconds.
    pub fn new(m: MovedBuckets<'_>, bs: i64) -> Self {
        let (horizon, gap) = reach(bs);
        let (Some(&lo), Some(&hi)) = (m.at.first(), m.at.last()) else {
            return MovedRows::default();
        };
        let first = lo.div_euclid(64);
        let words = ((hi + horizon).div_euclid(64) - first + 1) as usize;
        let mut rows = MovedRows {
            first,
            moved: vec![0; words],
            starts: vec![0; words],
            after: Reach::new(m.at, first, words, horizon),
            ..MovedRows::default()
        };
        let base = first * 64;
        for (i, &k) in m.at.iter().enumerate() {
            let at = (k - base) as usize;
            rows.moved[at / 64] |= 1 << (at % 64);
            if i == 0 || m.at[i - 1] < k - gap {
                rows.starts[at / 64] |= 1 << (at % 64);
                rows.start_list.push(k);
            }
        }
        rows.shift_starts(day_in_buckets(bs));
        let mut seen = 0u32;
        rows.rank = rows
            .moved
            .iter()
            .map(|w| {
                let r = seen;
                seen += w.count_ones();
                r
            })
            .collect();
        rows
    }

    /// The buckets that begin a sitting.
    pub fn sittings(&self) -> u32 {
        self.starts.iter().map(|w| w.count_ones()).sum()
    }

    /// Fills `shifted` from `start_list`, for days of `day` buckets.
    fn shift_starts(&mut self, day: i64) {
        let (Some(&lo), Some(&hi)) = (self.start_list.first(), self.start_list.last()) else {
            return;
        };
        let reach = SHIFT_DAYS.iter().map(|d| d.abs()).max().unwrap_or(0) * day;
        self.shifted_first = (lo - reach).div_euclid(64);
        let words = ((hi + reach).div_euclid(64) - self.shifted_first + 1) as usize;
        self.shifted = std::array::from_fn(|_| vec![0u64; words]);
        let base = self.shifted_first * 64;
        for &s in &self.start_list {
            for d in SHIFT_DAYS {
                let at = (s + d * day - base) as usize;
                // Adds one to the three-bit count of bucket `at`.
                let mut carry = 1u64 << (at % 64);
                for plane in &mut self.shifted {
                    let over = plane[at / 64] & carry;
                    plane[at / 64] ^= carry;
                    carry = over;
                }
            }
        }
    }

    fn end(&self) -> i64 {
        self.first + self.moved.len() as i64
    }

    /// The index of the moved bucket at bit `bit` of word `w` (absolute).
    fn index(&self, w: i64, bit: u32) -> usize {
        let i = (w - self.first) as usize;
        self.rank[i] as usize + (self.moved[i] & ((1u64 << bit) - 1)).count_ones() as usize
    }
}

/// The words both rows cover, as offsets into each.
fn overlap(x: &MovedRows, y: &MovedRows) -> Option<(i64, i64)> {
    let (lo, hi) = (x.first.max(y.first), x.end().min(y.end()));
    (lo < hi).then_some((lo, hi))
}

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
