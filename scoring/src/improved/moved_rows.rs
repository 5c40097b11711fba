//! One account's moved buckets as bit rows ([`MovedRows`]), built once per
//! scan from the bit rows the reference score already built: the buckets
//! it moved in, those that begin a sitting, those within the horizon after
//! a move, and its sitting starts moved by whole days. The scan's following
//! and two bodies ([`super::moved`]) read them a word at a time.

use super::following::{day_in_buckets, SHIFT_DAYS, SITTING_GAP_SECONDS, SITTING_SECONDS};
use crate::bits::MovedBuckets;

/// One account's moved buckets as bit rows over absolute bucket numbers
/// (`bucket / B`, 64 a word).
#[derive(Debug, Clone, Default)]
pub struct MovedRows {
    /// The word number of the rows' first word.
    pub(super) first: i64,
    /// A move in the bucket.
    pub(super) moved: Vec<u64>,
    /// A move in the bucket and none in the sitting gap before it: the
    /// bucket begins a sitting.
    pub(super) starts: Vec<u64>,
    /// A move in the bucket or in the horizon before it.
    pub(super) after: Reach,
    /// Moved buckets in the words before each word.
    pub(super) rank: Vec<u32>,
    /// The buckets that begin a sitting, ascending (as in `starts`).
    pub(super) start_list: Vec<i64>,
    /// Those starts moved by each of [`SHIFT_DAYS`]: how many land in each
    /// bucket (at most six), as three bit planes (1, 2, 4) from word
    /// `shifted_first`.
    pub(super) shifted: [Vec<u64>; 3],
    pub(super) shifted_first: i64,
}

/// The buckets at most a horizon after a move, as a bit row beside the
/// rows' others, and the span they lie in: the first moved bucket to the
/// last plus the horizon.
#[derive(Debug, Clone, Default)]
pub(super) struct Reach {
    pub(super) bits: Vec<u64>,
    pub(super) span: Option<(i64, i64)>,
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

    pub(super) fn end(&self) -> i64 {
        self.first + self.moved.len() as i64
    }

    /// The index of the moved bucket at bit `bit` of word `w` (absolute).
    pub(super) fn index(&self, w: i64, bit: u32) -> usize {
        let i = (w - self.first) as usize;
        self.rank[i] as usize + (self.moved[i] & ((1u64 << bit) - 1)).count_ones() as usize
    }
}

/// The words both rows cover, as offsets into each.
pub(super) fn overlap(x: &MovedRows, y: &MovedRows) -> Option<(i64, i64)> {
    let (lo, hi) = (x.first.max(y.first), x.end().min(y.end()));
    (lo < hi).then_some((lo, hi))
}
