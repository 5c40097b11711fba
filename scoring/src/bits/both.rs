//! Both directions of a pair in one pass over the words their rows share:
//! equal to [`super::score_rows`] called for `(a, b)` and for `(b, a)`.
//!
//! The two directions read the same words of the same rows; only which
//! account's records are walked differs. And the address test of a bucket in
//! which both moved ("a window of `a` and one of `b` share an address") is
//! symmetric, so it is made once for both directions. Each direction keeps
//! its own tally, fed in the same order as [`super::score_rows`] feeds it
//! (buckets ascending), so every count, run and kept bucket is the same.
//! `scoring/tests/it/bits.rs` checks that on arbitrary timelines.
//!
//! Both modes score a candidate pair's two directions here;
//! [`super::score_rows`] scores one direction alone.

use super::{add, outcome, Rows, Word};
use crate::similarity::{keep_top, PairOutcome, TOP_BUCKETS};
use schema::{Cell, Contribution, Evidence};

/// One direction's tally: its evidence, its first both-stalled buckets
/// (kept after the same-IP ones, as [`super::score_rows`] keeps them) and
/// the run in force.
#[derive(Default)]
struct Tally {
    ev: Evidence,
    first_both_stalled: [Option<Contribution>; TOP_BUCKETS],
    stalled_kept: usize,
    run: u32,
}

/// One word of one direction: the walked buckets, those both stalled in
/// and the run lookups.
struct Walked {
    word: Word,
    walked: u64,
    both_stalled: u64,
}

impl Tally {
    /// Counts the word `mine` walks against `theirs` (moved and stalled
    /// windows each) but for the buckets both moved in.
    fn word(&mut self, record: u64, mine: (u64, u64), theirs: (u64, u64)) -> Walked {
        let ((m, s), (tm, ts)) = (mine, theirs);
        let walked = record & (tm | ts);
        let word = Word {
            record,
            breaks: record & !(s & ts),
            run_in: self.run,
        };
        self.run = word.run_out();
        let both_stalled = walked & !m & !tm;
        add(&mut self.ev.moved_stalled, walked & m & !tm, -5);
        add(&mut self.ev.stalled_moved, walked & !m & tm, -1);
        add(&mut self.ev.both_stalled, both_stalled, 1);
        Walked {
            word,
            walked,
            both_stalled,
        }
    }

    /// A bucket both moved in, at bit `i` of the word, starting at
    /// `bucket`: same IP when their windows share an address.
    fn both_moved(&mut self, w: &Walked, i: u32, same: bool, bucket: i64) {
        if !same {
            self.ev.other_ip.count += 1;
            self.ev.other_ip.score -= 10;
            return;
        }
        let run = w.word.run_at(i);
        let score = 10 + run as i64;
        self.ev.same_ip.count += 1;
        self.ev.same_ip.score += score;
        if run > self.ev.max_boost {
            self.ev.max_boost = run;
            self.ev.max_boost_bucket = Some(bucket);
        }
        let c = Contribution {
            bucket,
            cell: Cell::SameIp,
            score,
            run,
        };
        keep_top(&mut self.ev.top_buckets, c);
    }

    /// Notes the word's first both-stalled buckets while fewer than
    /// [`TOP_BUCKETS`] are noted.
    fn stalled(&mut self, w: &Walked, bucket_of: impl Fn(u32) -> i64) {
        let mut rest = w.both_stalled;
        while rest != 0 && self.stalled_kept < TOP_BUCKETS {
            let i = rest.trailing_zeros();
            rest &= rest - 1;
            self.first_both_stalled[self.stalled_kept] = Some(Contribution {
                bucket: bucket_of(i),
                cell: Cell::BothStalled,
                score: 1,
                run: w.word.run_at(i),
            });
            self.stalled_kept += 1;
        }
    }

    fn outcome(mut self) -> PairOutcome {
        for c in self.first_both_stalled.into_iter().flatten() {
            keep_top(&mut self.ev.top_buckets, c);
        }
        outcome(self.ev)
    }
}

/// Scores the directed pairs `(a, b)` and `(b, a)` from their rows: equal
/// to [`super::score_rows`]`(a, b)` and [`super::score_rows`]`(b, a)`.
pub fn score_rows_both(a: &Rows, b: &Rows, bucket_seconds: i64) -> (PairOutcome, PairOutcome) {
    let (mut ab, mut ba) = (Tally::default(), Tally::default());
    let (lo, hi) = (a.first.max(b.first), a.end().min(b.end()));
    let (mut a_from, mut b_from) = (None, None);
    for w in lo..hi {
        let (ia, ib) = ((w - a.first) as usize, (w - b.first) as usize);
        let ([ra, ma, sa], [rb, mb, sb]) = (a.words[ia], b.words[ib]);
        if ra | rb == 0 {
            continue;
        }
        let wa = ab.word(ra, (ma, sa), (mb, sb));
        let wb = ba.word(rb, (mb, sb), (ma, sa));
        let bucket_of = |i: u32| (w * 64 + i as i64) * bucket_seconds;
        let mut both_moved = (wa.walked | wb.walked) & ma & mb;
        while both_moved != 0 {
            let i = both_moved.trailing_zeros();
            both_moved &= both_moved - 1;
            let k = w * 64 + i as i64;
            let theirs = b.window_ips(k, &mut b_from);
            let same = a
                .window_ips(k, &mut a_from)
                .iter()
                .any(|ip| theirs.contains(ip));
            if wa.walked >> i & 1 == 1 {
                ab.both_moved(&wa, i, same, bucket_of(i));
            }
            if wb.walked >> i & 1 == 1 {
                ba.both_moved(&wb, i, same, bucket_of(i));
            }
        }
        ab.stalled(&wa, bucket_of);
        ba.stalled(&wb, bucket_of);
    }
    (ab.outcome(), ba.outcome())
}
