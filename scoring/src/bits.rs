//! The reference walk of [`crate::similarity`] on bit rows: the same
//! [`PairOutcome`], bit for bit, at a cost that grows with the weeks two
//! accounts share rather than with their segments.
//!
//! An account's segments become three rows of bits over absolute bucket numbers
//! (`bucket / B`, 64 buckets a word), a stall run set as a range of bits in
//! a few word operations: *record* (a segment in the bucket),
//! *window moved* (a move in the bucket or either neighbour) and *window
//! stalled* (a stall in the bucket or either neighbour). For a directed pair
//! `(a, b)` and one word, the walked buckets are `a`'s records where `b`'s
//! window is not idle, and each matrix cell is a mask: moved/stalled,
//! stalled/moved and both stalled are counted with `popcount`; only the
//! moved/moved buckets look up addresses, and only they (and the first
//! both-stalled buckets the evidence keeps) need the joint-stall run, which
//! is the number of `a`'s records since its last walked bucket without a
//! stall in both windows.
//!
//! What this is not: a second definition of the method. The walk in
//! [`crate::similarity`] is the definition (and what `explain` replays);
//! `scoring/tests/it/bits.rs` checks that both agree on arbitrary timelines.

use crate::similarity::{keep_top, PairOutcome, INITIAL_WEIGHT, TOP_BUCKETS};
use schema::{Cell, CellTally, Contribution, Evidence, IpId, Segment};

mod both;

pub use both::score_rows_both;

/// One account's segments as bit rows. Build with [`Rows::new`].
#[derive(Debug, Clone, Default)]
pub struct Rows {
    /// The word number of the rows' first word (absolute bucket number / 64).
    first: i64,
    /// Each word's three rows side by side (`RECORD`, `MOVED`, `STALLED`):
    /// a pair's walk reads one stream of each account, not three.
    words: Vec<[u64; 3]>,
    /// Absolute bucket numbers of the moved buckets, ascending, and the
    /// addresses each moved from: `ips[ip_from[i]..ip_from[i + 1]]`.
    moved_at: Vec<i64>,
    ip_from: Vec<u32>,
    ips: Vec<IpId>,
    /// For each word, the moved buckets before it (`moved_at`'s index of
    /// the word's first), and the count of all after the last: a pair's
    /// first address lookup searches one word's moved buckets, not the
    /// account's (that search was an eighth of a scan's scoring).
    moved_before: Vec<u32>,
}

impl Rows {
    /// The rows of one account's segments (sorted by bucket), a stall run
    /// set as a range of bits. `None` when a segment does not start on a
    /// multiple of the bucket size, which the segmenter never produces; the
    /// walk handles that case.
    pub fn new(segs: &[Segment], bucket_seconds: i64) -> Option<Self> {
        if segs
            .iter()
            .any(|s| s.bucket.rem_euclid(bucket_seconds) != 0)
        {
            return None;
        }
        let (Some(lo), Some(hi)) = (segs.first(), segs.last()) else {
            return Some(Rows::default());
        };
        let first = (lo.bucket / bucket_seconds - 1).div_euclid(64);
        let last = (hi.last_bucket(bucket_seconds) / bucket_seconds + 1).div_euclid(64);
        let words = (last - first + 1) as usize;
        let moved = segs.iter().filter(|s| !s.moves.is_empty()).count();
        let mut rows = Rows {
            first,
            words: vec![[0; 3]; words],
            moved_at: Vec::with_capacity(moved),
            ip_from: Vec::with_capacity(moved + 1),
            ..Rows::default()
        };
        rows.ip_from.push(0);
        for s in segs {
            let k = s.bucket / bucket_seconds;
            let at = (k - first * 64) as usize;
            set_range(&mut rows.words, RECORD, at, at + s.span() as usize - 1);
            if !s.moves.is_empty() {
                set_range(&mut rows.words, MOVED, at - 1, at + 1);
                rows.moved_at.push(k);
                rows.ips.extend(s.moves.iter().map(|&(ip, _)| ip));
                rows.ip_from.push(rows.ips.len() as u32);
            }
            if s.stalls > 0 {
                // Every stalled bucket's window: one bucket either side.
                set_range(&mut rows.words, STALLED, at - 1, at + s.stalls as usize);
            }
        }
        rows.moved_before = Vec::with_capacity(words + 1);
        let mut m = 0;
        for w in first..=last + 1 {
            while m < rows.moved_at.len() && rows.moved_at[m] < w * 64 {
                m += 1;
            }
            rows.moved_before.push(m as u32);
        }
        Some(rows)
    }

    /// The moved buckets alone, for improved mode's signals.
    pub fn moved_buckets(&self) -> MovedBuckets<'_> {
        MovedBuckets {
            at: &self.moved_at,
            ip_from: &self.ip_from,
            ips: &self.ips,
        }
    }

    fn end(&self) -> i64 {
        self.first + self.words.len() as i64
    }

    /// The addresses moved from in buckets `k - 1 ..= k + 1`. `from` is
    /// where the previous (earlier) lookup of the same walk began: the first
    /// lookup searches, the later ones step forward from there.
    fn window_ips(&self, k: i64, from: &mut Option<usize>) -> &[IpId] {
        let n = self.moved_at.len();
        let mut lo = match *from {
            None => {
                // The moved buckets of the word `k - 1` is in: those before
                // it are earlier, those after it later.
                let last = self.words.len() as i64 - 1;
                let w = ((k - 1).div_euclid(64) - self.first).clamp(0, last);
                let (start, end) = (
                    self.moved_before[w as usize] as usize,
                    self.moved_before[w as usize + 1] as usize,
                );
                start + self.moved_at[start..end].partition_point(|&m| m < k - 1)
            }
            Some(lo) => lo,
        };
        while lo < n && self.moved_at[lo] < k - 1 {
            lo += 1;
        }
        *from = Some(lo);
        let mut hi = lo;
        while hi < n && self.moved_at[hi] <= k + 1 {
            hi += 1;
        }
        &self.ips[self.ip_from[lo] as usize..self.ip_from[hi] as usize]
    }
}

/// An account's moved buckets, without the stalls: absolute bucket numbers
/// (`bucket / B`), ascending, each with the addresses moved from in it.
#[derive(Debug, Clone, Copy)]
pub struct MovedBuckets<'r> {
    pub at: &'r [i64],
    ip_from: &'r [u32],
    ips: &'r [IpId],
}

impl<'r> MovedBuckets<'r> {
    pub fn len(&self) -> usize {
        self.at.len()
    }

    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }

    /// The addresses of the `i`-th moved bucket, in first-use order.
    pub fn ips(&self, i: usize) -> &'r [IpId] {
        &self.ips[self.ip_from[i] as usize..self.ip_from[i + 1] as usize]
    }
}

/// Where each row sits in a word of [`Rows`].
const RECORD: usize = 0;
const MOVED: usize = 1;
const STALLED: usize = 2;

/// Sets bits `lo ..= hi` of one row of `words` (the rows have a word of
/// margin each side, so a window one bucket wider than a segment fits).
fn set_range(words: &mut [[u64; 3]], row: usize, lo: usize, hi: usize) {
    let (wl, wh) = (lo / 64, hi / 64);
    let from = u64::MAX << (lo % 64);
    let to = up_to((hi % 64) as u32);
    if wl == wh {
        words[wl][row] |= from & to;
        return;
    }
    words[wl][row] |= from;
    for w in &mut words[wl + 1..wh] {
        w[row] = u64::MAX;
    }
    words[wh][row] |= to;
}

/// Bits `0 ..= p`.
fn up_to(p: u32) -> u64 {
    if p >= 63 {
        u64::MAX
    } else {
        (1u64 << (p + 1)) - 1
    }
}

/// One word of a directed pair: `a`'s records, both accounts' windows, and the
/// run in force when the word begins.
struct Word {
    record: u64,
    /// `a`'s records that end a run: walked without a stall in both windows,
    /// or not walked at all (`b` idle).
    breaks: u64,
    run_in: u32,
}

impl Word {
    /// The run in force at bit `i`: `a`'s records since the last break
    /// before `i`, in this word or carried in.
    fn run_at(&self, i: u32) -> u32 {
        let below = (1u64 << i) - 1;
        match self.breaks & below {
            0 => self.run_in + (self.record & below).count_ones(),
            b => (self.record & below & !up_to(63 - b.leading_zeros())).count_ones(),
        }
    }

    /// The run in force after the word.
    fn run_out(&self) -> u32 {
        match self.breaks {
            0 => self.run_in + self.record.count_ones(),
            b => (self.record & !up_to(63 - b.leading_zeros())).count_ones(),
        }
    }
}

/// Scores the directed pair `(a, b)` from their rows: equal to
/// [`crate::score_pair`] on the segments the rows were built from.
pub fn score_rows(a: &Rows, b: &Rows, bucket_seconds: i64) -> PairOutcome {
    let mut ev = Evidence::default();
    let mut first_both_stalled: Vec<Contribution> = Vec::new();
    let (lo, hi) = (a.first.max(b.first), a.end().min(b.end()));
    let mut run = 0u32;
    let (mut a_from, mut b_from) = (None, None);
    for w in lo..hi {
        let (ia, ib) = ((w - a.first) as usize, (w - b.first) as usize);
        let [record, ma, sa] = a.words[ia];
        if record == 0 {
            continue;
        }
        let [_, mb, sb] = b.words[ib];
        let walked = record & (mb | sb);
        let word = Word {
            record,
            breaks: record & !(sa & sb),
            run_in: run,
        };
        run = word.run_out();
        if walked == 0 {
            continue;
        }
        let moved_stalled = walked & ma & !mb;
        let stalled_moved = walked & !ma & mb;
        let both_stalled = walked & !ma & !mb;
        add(&mut ev.moved_stalled, moved_stalled, -5);
        add(&mut ev.stalled_moved, stalled_moved, -1);
        add(&mut ev.both_stalled, both_stalled, 1);
        let bucket_of = |i: u32| (w * 64 + i as i64) * bucket_seconds;
        let mut both_moved = walked & ma & mb;
        while both_moved != 0 {
            let i = both_moved.trailing_zeros();
            both_moved &= both_moved - 1;
            let k = w * 64 + i as i64;
            let theirs = b.window_ips(k, &mut b_from);
            if a.window_ips(k, &mut a_from)
                .iter()
                .any(|ip| theirs.contains(ip))
            {
                let run = word.run_at(i);
                let score = 10 + run as i64;
                ev.same_ip.count += 1;
                ev.same_ip.score += score;
                if run > ev.max_boost {
                    ev.max_boost = run;
                    ev.max_boost_bucket = Some(bucket_of(i));
                }
                let c = Contribution {
                    bucket: bucket_of(i),
                    cell: Cell::SameIp,
                    score,
                    run,
                };
                keep_top(&mut ev.top_buckets, c);
            } else {
                ev.other_ip.count += 1;
                ev.other_ip.score -= 10;
            }
        }
        let mut rest = both_stalled;
        while rest != 0 && first_both_stalled.len() < TOP_BUCKETS {
            let i = rest.trailing_zeros();
            rest &= rest - 1;
            first_both_stalled.push(Contribution {
                bucket: bucket_of(i),
                cell: Cell::BothStalled,
                score: 1,
                run: word.run_at(i),
            });
        }
    }
    // Same-IP buckets score at least 10 and both-stalled ones 1, so the
    // kept buckets are the same whichever comes first in time.
    for c in first_both_stalled {
        keep_top(&mut ev.top_buckets, c);
    }
    outcome(ev)
}

fn add(tally: &mut CellTally, mask: u64, score: i64) {
    let n = mask.count_ones();
    tally.count += n as u64;
    tally.score += score * n as i64;
}

fn outcome(evidence: Evidence) -> PairOutcome {
    let cells = [
        &evidence.same_ip,
        &evidence.other_ip,
        &evidence.moved_stalled,
        &evidence.stalled_moved,
        &evidence.both_stalled,
    ];
    let sum: i64 = cells.iter().map(|t| t.score).sum();
    let weight = INITIAL_WEIGHT + cells.iter().map(|t| t.score.abs()).sum::<i64>();
    PairOutcome {
        sum,
        weight,
        evidence,
    }
}
