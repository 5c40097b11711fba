//! Segments: one account's records over buckets, a stall run as one
//! interval.
//!
//! A bucket is *moved* when the account moved in it and *stalled* when a
//! game waited on them there and they did not move; idle buckets have no
//! record. Consecutive stalled buckets without a move charge the same stall
//! IP (the first IP of the account's next move), so they are kept as one
//! [`Segment`], a *stall run*: a player whose game waits three days in
//! 30-minute buckets is one record, not 144. The published method is
//! defined bucket by bucket; [`expand`] gives that view back.

use crate::{Epoch, IpCounts, StallIp};
use serde::{Deserialize, Serialize};

/// The state of an account in one bucket, or in a window of buckets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum SegmentState {
    Moved,
    Stalled,
    Idle,
}

/// One account's record over a span of buckets: a bucket they moved in,
/// or a run of consecutive stalled buckets charged to one stall IP.
///
/// A moved bucket spans one bucket, and is also stalled (`stalls == 1`)
/// only when moves came out of time order. A stall run has no moves and
/// spans `stalls` buckets from `bucket` on. In a list (an account's
/// [`crate::Segments::by_account`]) segments are sorted by bucket, their
/// spans never overlap, and no stall run is followed by another that
/// touches it with the same stall IP ([`push_joined`] keeps it so).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Segment {
    /// Start of the (first) bucket, UTC epoch seconds.
    pub bucket: Epoch,
    /// IPs moved from in this bucket with their move counts, in the order of
    /// each IP's first move (inline when there is at most one); empty for a
    /// stall run.
    pub moves: IpCounts,
    /// Buckets stalled from `bucket` on: 0 for a moved bucket, 1 for a moved
    /// bucket that was also stalled, the run's length for a stall run.
    pub stalls: u32,
    /// For stalls: the IP of the account's next move after them (the first
    /// IP of the nearest later bucket with moves). `None` if there is no
    /// later move, which the stall rule never produces from a sorted log.
    pub stall_ip: Option<StallIp>,
}

impl Segment {
    /// A bucket with no move yet (moves are pushed onto it).
    #[inline]
    pub fn moved(bucket: Epoch) -> Segment {
        Segment {
            bucket,
            ..Segment::default()
        }
    }

    /// A run of `stalls` stalled buckets from `bucket` on.
    #[inline]
    pub fn stall_run(bucket: Epoch, stalls: u32, stall_ip: Option<StallIp>) -> Segment {
        Segment {
            bucket,
            moves: IpCounts::new(),
            stalls,
            stall_ip,
        }
    }

    /// Whether the account was stalled in (some of) the segment's buckets.
    #[inline]
    pub fn stalled(&self) -> bool {
        self.stalls > 0
    }

    /// Whether this is a stall run: stalled buckets and no move.
    #[inline]
    pub fn is_run(&self) -> bool {
        self.moves.is_empty() && self.stalls > 0
    }

    /// Buckets the segment spans: one for a moved bucket, the run's length
    /// for a stall run.
    #[inline]
    pub fn span(&self) -> u32 {
        if self.moves.is_empty() {
            self.stalls.max(1)
        } else {
            1
        }
    }

    /// Start of the segment's last bucket.
    #[inline]
    pub fn last_bucket(&self, bucket_seconds: i64) -> Epoch {
        self.bucket + (self.span() as i64 - 1) * bucket_seconds
    }

    /// End of the segment's last bucket (exclusive).
    #[inline]
    pub fn end(&self, bucket_seconds: i64) -> Epoch {
        self.bucket + self.span() as i64 * bucket_seconds
    }

    /// The state of every bucket of the segment.
    #[inline]
    pub fn state(&self) -> SegmentState {
        if !self.moves.is_empty() {
            SegmentState::Moved
        } else if self.stalls > 0 {
            SegmentState::Stalled
        } else {
            SegmentState::Idle
        }
    }

    /// Whether `next` continues this stall run: both runs, one bucket
    /// apart, charged to the same IP.
    #[inline]
    pub fn continued_by(&self, next: &Segment, bucket_seconds: i64) -> bool {
        self.is_run()
            && next.is_run()
            && next.stall_ip == self.stall_ip
            && next.bucket == self.end(bucket_seconds)
    }

    /// Joins `next` to this stall run when it continues it (and the run's
    /// length still fits); whether it did.
    #[inline]
    pub fn join(&mut self, next: &Segment, bucket_seconds: i64) -> bool {
        let joined = self
            .continued_by(next, bucket_seconds)
            .then(|| self.stalls.checked_add(next.stalls))
            .flatten();
        if let Some(stalls) = joined {
            self.stalls = stalls;
        }
        joined.is_some()
    }

    /// The part of the segment whose buckets start in `from..to` (open
    /// ends), if any.
    pub fn clip(
        &self,
        from: Option<Epoch>,
        to: Option<Epoch>,
        bucket_seconds: i64,
    ) -> Option<Segment> {
        let span = self.span() as i64;
        // Buckets of the segment before `from`, and before `to`.
        let skip = match from {
            Some(f) if f > self.bucket => (f - self.bucket + bucket_seconds - 1) / bucket_seconds,
            _ => 0,
        };
        let keep = match to {
            Some(t) if t <= self.bucket => 0,
            Some(t) => ((t - self.bucket + bucket_seconds - 1) / bucket_seconds).min(span),
            None => span,
        };
        if skip >= keep {
            return None;
        }
        if skip == 0 && keep == span {
            return Some(self.clone());
        }
        // Only a run spans more than one bucket.
        Some(Segment::stall_run(
            self.bucket + skip * bucket_seconds,
            (keep - skip) as u32,
            self.stall_ip,
        ))
    }

    /// The segment bucket by bucket: each one-bucket segment it stands for.
    pub fn buckets(&self, bucket_seconds: i64) -> impl Iterator<Item = Segment> + '_ {
        (0..self.span() as i64).map(move |k| {
            if self.is_run() {
                Segment::stall_run(self.bucket + k * bucket_seconds, 1, self.stall_ip)
            } else {
                self.clone()
            }
        })
    }
}

/// One segment per bucket, in bucket order: the view the method is defined
/// on (SPEC section 2), and what the walk of `scoring::similarity` reads.
pub fn expand(segs: &[Segment], bucket_seconds: i64) -> Vec<Segment> {
    let buckets = segs.iter().map(|s| s.span() as usize).sum();
    let mut out = Vec::with_capacity(buckets);
    for s in segs {
        out.extend(s.buckets(bucket_seconds));
    }
    out
}

/// Appends `seg` to `list`, joining it to the last stall run when it
/// continues it: what keeps a list's runs whole.
#[inline]
pub fn push_joined(list: &mut Vec<Segment>, seg: Segment, bucket_seconds: i64) {
    if !list
        .last_mut()
        .is_some_and(|last| last.join(&seg, bucket_seconds))
    {
        list.push(seg);
    }
}

/// Segments sorted by bucket (one a bucket, or runs cut anywhere) with every
/// stall run whole.
pub fn join_runs(segs: impl IntoIterator<Item = Segment>, bucket_seconds: i64) -> Vec<Segment> {
    let mut out = Vec::new();
    for s in segs {
        push_joined(&mut out, s, bucket_seconds);
    }
    out
}

/// Buckets with a record in `segs`, and how many of them were stalled: the
/// reference counts segments by bucket.
pub fn bucket_counts(segs: &[Segment]) -> (u64, u64) {
    segs.iter().fold((0, 0), |(n, s), g| {
        (n + g.span() as u64, s + g.stalls as u64)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const B: i64 = 1800;

    fn moved(k: i64, ip: u32) -> Segment {
        let mut s = Segment::moved(k * B);
        s.moves.push((ip, 1));
        s
    }

    #[test]
    fn a_run_spans_its_buckets_and_expands_to_them() {
        let run = Segment::stall_run(4 * B, 3, Some(StallIp::new(2)));
        assert_eq!(
            (run.span(), run.last_bucket(B), run.end(B)),
            (3, 6 * B, 7 * B)
        );
        let list = [moved(1, 0), run.clone(), moved(7, 2)];
        let one: Vec<_> = expand(&list, B)
            .iter()
            .map(|s| (s.bucket / B, s.stalls))
            .collect();
        assert_eq!(one, [(1, 0), (4, 1), (5, 1), (6, 1), (7, 0)]);
        assert_eq!(join_runs(expand(&list, B), B), list);
        assert_eq!(bucket_counts(&list), (5, 3));
    }

    #[test]
    fn runs_join_only_when_they_touch_with_one_ip() {
        let ip = |i| Some(StallIp::new(i));
        let parts = [
            Segment::stall_run(0, 2, ip(1)),
            Segment::stall_run(2 * B, 1, ip(1)),
            Segment::stall_run(3 * B, 1, ip(2)),
            Segment::stall_run(5 * B, 1, ip(2)),
        ];
        let joined = join_runs(parts, B);
        let spans: Vec<_> = joined.iter().map(|s| (s.bucket / B, s.stalls)).collect();
        assert_eq!(spans, [(0, 3), (3, 1), (5, 1)]);
    }

    #[test]
    fn clipping_keeps_the_buckets_that_start_in_range() {
        let run = Segment::stall_run(10 * B, 5, None);
        let k = |s: Option<Segment>| s.map(|s| (s.bucket / B, s.stalls));
        assert_eq!(k(run.clip(Some(12 * B), None, B)), Some((12, 3)));
        assert_eq!(
            k(run.clip(Some(12 * B - 1), Some(14 * B + 1), B)),
            Some((12, 3))
        );
        assert_eq!(k(run.clip(None, Some(10 * B + 1), B)), Some((10, 1)));
        assert_eq!(k(run.clip(Some(15 * B), None, B)), None);
        assert_eq!(k(run.clip(None, Some(10 * B), B)), None);
        let m = moved(3, 0);
        assert_eq!(
            m.clip(Some(3 * B + 5), None, B),
            None,
            "the bucket starts before"
        );
        assert_eq!(m.clip(Some(3 * B - 5), None, B), Some(m.clone()));
        assert_eq!(m.clip(Some(3 * B), Some(3 * B + 1), B), Some(m.clone()));
    }
}
