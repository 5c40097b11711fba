//! The similarity of a directed pair `(a, b)` in reference mode (SPEC
//! section 4).
//!
//! Walk `a`'s buckets in time order. For bucket `t` each account's window is
//! their segments at `t-B`, `t` and `t+B`: *moved* if it holds a move, else
//! *stalled* if it holds a stall, else *idle*. The bucket scores by the
//! asymmetric matrix (row `a`, column `b`):
//!
//! | a \ b   | moved                          | stalled | idle |
//! |---------|--------------------------------|---------|------|
//! | moved   | `+10 + run` same IP, else `-10` | `-5`    | 0    |
//! | stalled | `-1`                           | `+1`    | 0    |
//!
//! `run` counts the walked buckets just before `t` in which both windows held
//! a stall. `sum += score; weight += |score|` from `sum = 0, weight = 20`, and
//! `similarity = (sum / weight) / 2 + 0.5`.
//!
//! The walk reads one segment a bucket: it expands stall runs
//! ([`schema::expand`]) before it walks. Scans score on bit rows built from
//! the runs directly ([`crate::bits`]), equal to this walk in every field.

use schema::{expand, Cell, Contribution, Epoch, Evidence, Segment, SegmentState};

/// How many of the strongest buckets the evidence keeps.
pub const TOP_BUCKETS: usize = 5;

/// The initial weight: keeps pairs with few samples near the middle.
pub const INITIAL_WEIGHT: i64 = 20;

/// The score of one directed pair, before it becomes a [`schema::PairScore`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairOutcome {
    pub sum: i64,
    pub weight: i64,
    pub evidence: Evidence,
}

impl PairOutcome {
    /// `(sum / weight) / 2 + 0.5`, computed in that order as the reference does.
    pub fn similarity(&self) -> f64 {
        (self.sum as f64 / self.weight as f64) / 2.0 + 0.5
    }
}

/// An account's window around bucket `t`.
#[derive(Debug, Clone, Copy)]
struct Window<'s> {
    segs: &'s [Segment],
}

impl Window<'_> {
    fn moved(&self) -> bool {
        self.segs.iter().any(|s| !s.moves.is_empty())
    }

    fn stalled(&self) -> bool {
        self.segs.iter().any(|s| s.stalled())
    }

    fn state(&self) -> SegmentState {
        if self.moved() {
            SegmentState::Moved
        } else if self.stalled() {
            SegmentState::Stalled
        } else {
            SegmentState::Idle
        }
    }

    fn shares_ip(&self, other: &Window) -> bool {
        self.segs.iter().flat_map(|s| &s.moves).any(|&(ip, _)| {
            other
                .segs
                .iter()
                .flat_map(|s| &s.moves)
                .any(|&(theirs, _)| theirs == ip)
        })
    }
}

/// The matrix cell and score of one bucket, given both windows and the run.
pub fn cell_score(
    a: SegmentState,
    b: SegmentState,
    same_ip: bool,
    run: u32,
) -> Option<(Cell, i64)> {
    use SegmentState::*;
    match (a, b) {
        (Moved, Moved) if same_ip => Some((Cell::SameIp, 10 + run as i64)),
        (Moved, Moved) => Some((Cell::OtherIp, -10)),
        (Moved, Stalled) => Some((Cell::MovedStalled, -5)),
        (Stalled, Moved) => Some((Cell::StalledMoved, -1)),
        (Stalled, Stalled) => Some((Cell::BothStalled, 1)),
        _ => None,
    }
}

/// Scores the directed pair `(a, b)` from their segments (each sorted by
/// bucket) and the bucket size.
pub fn score_pair(a: &[Segment], b: &[Segment], bucket_seconds: i64) -> PairOutcome {
    let (a, b) = (expand(a, bucket_seconds), expand(b, bucket_seconds));
    walk(&a, &b, bucket_seconds, |_| {})
}

/// Every scoring bucket of the directed pair `(a, b)`, in time order: what
/// `detect explain` shows.
pub fn contributions(a: &[Segment], b: &[Segment], bucket_seconds: i64) -> Vec<Contribution> {
    let (a, b) = (expand(a, bucket_seconds), expand(b, bucket_seconds));
    let mut all = Vec::new();
    walk(&a, &b, bucket_seconds, |c| all.push(c));
    all
}

/// The walk over one-bucket segments.
fn walk(a: &[Segment], b: &[Segment], bs: i64, mut each: impl FnMut(Contribution)) -> PairOutcome {
    let mut evidence = Evidence::default();
    let (mut sum, mut weight) = (0i64, INITIAL_WEIGHT);
    let mut run: u32 = 0;
    let mut j = 0usize;
    let mut i = 0usize;
    while i < a.len() {
        let t: Epoch = a[i].bucket;
        while j < b.len() && b[j].bucket < t - bs {
            j += 1;
        }
        if j == b.len() || b[j].bucket > t + bs {
            // b is idle in this window and in every later one until b's next
            // record comes within reach: those buckets score 0 and reset the
            // run. Jump to the first of a's buckets that can see b again.
            run = 0;
            i = match b.get(j) {
                Some(next) => i + a[i..].partition_point(|s| s.bucket < next.bucket - bs),
                None => a.len(),
            };
            continue;
        }
        let lo = if i > 0 && a[i - 1].bucket == t - bs {
            i - 1
        } else {
            i
        };
        let hi = if i + 1 < a.len() && a[i + 1].bucket == t + bs {
            i + 2
        } else {
            i + 1
        };
        let aw = Window { segs: &a[lo..hi] };
        let mut k = j;
        while k < b.len() && b[k].bucket <= t + bs {
            k += 1;
        }
        let bw = Window { segs: &b[j..k] };

        let (sa, sb) = (aw.state(), bw.state());
        let same_ip = sa == SegmentState::Moved && sb == SegmentState::Moved && aw.shares_ip(&bw);
        if let Some((cell, score)) = cell_score(sa, sb, same_ip, run) {
            sum += score;
            weight += score.abs();
            let tally = evidence.tally_mut(cell);
            tally.count += 1;
            tally.score += score;
            if cell == Cell::SameIp && run > evidence.max_boost {
                evidence.max_boost = run;
                evidence.max_boost_bucket = Some(t);
            }
            let c = Contribution {
                bucket: t,
                cell,
                score,
                run,
            };
            keep_top(&mut evidence.top_buckets, c);
            each(c);
        }
        run = if aw.stalled() && bw.stalled() {
            run + 1
        } else {
            0
        };
        i += 1;
    }
    PairOutcome {
        sum,
        weight,
        evidence,
    }
}

/// Keeps the [`TOP_BUCKETS`] largest positive contributions, largest first,
/// earlier first among equals.
pub(crate) fn keep_top(top: &mut Vec<Contribution>, c: Contribution) {
    if c.score <= 0 {
        return;
    }
    if top.len() == TOP_BUCKETS && top.last().is_some_and(|l| l.score >= c.score) {
        return;
    }
    let at = top.partition_point(|x| x.score >= c.score);
    top.insert(at, c);
    top.truncate(TOP_BUCKETS);
}
