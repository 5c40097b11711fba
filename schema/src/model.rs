//! Moves, segments and scores: the data that flows from ingest to scoring to
//! the pictures.

use crate::signals::Signals;
use serde::{Deserialize, Serialize};

/// Seconds since the Unix epoch, UTC.
pub type Epoch = i64;

/// The reference's bucket size: 30 minutes.
pub const DEFAULT_BUCKET_SECONDS: i64 = 1800;

/// Seconds in a UTC day, for the same-IP-same-day rule.
pub const SECONDS_PER_DAY: i64 = 86_400;

/// Dense id of an account within one [`Segments`].
pub type AccountId = u32;
/// Dense id of an IP address within one [`Segments`].
pub type IpId = u32;

/// One move of the log: who moved in which game, when, and from where.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Move {
    pub username: String,
    pub game: String,
    /// UTC epoch seconds.
    pub timestamp: Epoch,
    pub ip: String,
}

/// Start of the bucket holding `t`: `t - t mod B` (floored for times before
/// 1970 too).
pub fn bucket_of(t: Epoch, bucket_seconds: i64) -> Epoch {
    t - t.rem_euclid(bucket_seconds)
}

/// The UTC day number of `t`: `floor(t / 86400)`.
pub fn day_of(t: Epoch) -> i64 {
    t.div_euclid(SECONDS_PER_DAY)
}

pub use crate::names::Names;

pub use crate::segment::{Segment, SegmentState};

/// An account was seen moving from an IP on a UTC day: the raw material of
/// candidate pairs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IpDay {
    pub account: AccountId,
    pub day: i64,
    pub ip: IpId,
}

/// An account moved in a game on every UTC day from `first_day` to `last_day`
/// (a run of consecutive days, both inclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GameDays {
    pub account: AccountId,
    pub game: u32,
    pub first_day: i64,
    pub last_day: i64,
}

impl GameDays {
    /// Merges runs of the same account and game that touch or overlap: the
    /// result is sorted and holds each (account, game, day) in one run.
    /// The sort is stable, so runs already sorted in parts (the segmenter
    /// hands them so) are merged in one pass rather than sorted again, and
    /// the runs are joined in place.
    pub fn merge(mut runs: Vec<GameDays>) -> Vec<GameDays> {
        runs.sort();
        // `dedup_by` hands each run with the last one kept before it.
        runs.dedup_by(|r, l| {
            let joins = l.account == r.account && l.game == r.game && r.first_day <= l.last_day + 1;
            if joins {
                l.last_day = l.last_day.max(r.last_day);
            }
            joins
        });
        runs
    }
}

/// Every account's segments, as the segmenter produces them and scoring and the
/// pictures consume them.
#[derive(Debug, Clone, Default)]
pub struct Segments {
    pub bucket_seconds: i64,
    pub accounts: Names,
    pub ips: Names,
    /// Indexed by [`AccountId`]; each list sorted by bucket, a moved bucket
    /// or a whole stall run an entry (see [`Segment`]).
    pub by_account: Vec<Vec<Segment>>,
    /// Distinct (account, day, IP) sightings, sorted.
    pub ip_days: Vec<IpDay>,
    pub games: Names,
    /// Who moved in which game on which days, as runs of consecutive days,
    /// sorted: a season finds its participants here.
    pub game_days: Vec<GameDays>,
}

impl Segments {
    /// An empty set with the given bucket size.
    pub fn new(bucket_seconds: i64) -> Self {
        Segments {
            bucket_seconds,
            ..Default::default()
        }
    }

    /// The segments of `account` by name (empty if unknown).
    pub fn of(&self, account: &str) -> &[Segment] {
        self.accounts
            .get(account)
            .map(|id| self.by_account[id as usize].as_slice())
            .unwrap_or(&[])
    }

    /// The bucket records of the given accounts in canonical order (account,
    /// timestamp, ip, delay), in the reference's `time-buckets` shape.
    pub fn bucket_records(&self, accounts: &[AccountId]) -> Vec<BucketRecord> {
        let mut out = Vec::new();
        for &u in accounts {
            let account = self.accounts.name(u);
            let segs = &self.by_account[u as usize];
            for seg in segs.iter().flat_map(|s| s.buckets(self.bucket_seconds)) {
                for &(ip, count) in &seg.moves {
                    out.push(BucketRecord {
                        account: account.to_owned(),
                        timestamp: seg.bucket,
                        ip: self.ips.name(ip).to_owned(),
                        count,
                        delay: 0,
                    });
                }
                if seg.stalled() {
                    out.push(BucketRecord {
                        account: account.to_owned(),
                        timestamp: seg.bucket,
                        ip: seg
                            .stall_ip
                            .map(|ip| self.ips.name(ip.get()).to_owned())
                            .unwrap_or_default(),
                        count: 1,
                        delay: 1,
                    });
                }
            }
        }
        out.sort();
        out
    }
}

/// One line of the reference's time-buckets output: an account moved `count`
/// times from `ip` in the bucket starting at `timestamp` (`delay` 0), or was
/// stalled there (`delay` 1, `ip` of their next move).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct BucketRecord {
    /// `user` in the reference's output, which this record reproduces.
    #[serde(rename = "user")]
    pub account: String,
    pub timestamp: Epoch,
    pub ip: String,
    pub count: u32,
    pub delay: u8,
}

/// The cells of the similarity matrix that score something.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Cell {
    /// Both moved in the window and shared an IP: `+10 + run`.
    SameIp,
    /// Both moved in the window from different IPs: `-10`.
    OtherIp,
    /// `a` moved while `b` was stalled: `-5`.
    MovedStalled,
    /// `a` was stalled while `b` moved: `-1`.
    StalledMoved,
    /// Both stalled: `+1`.
    BothStalled,
}

impl Cell {
    pub const ALL: [Cell; 5] = [
        Cell::SameIp,
        Cell::OtherIp,
        Cell::MovedStalled,
        Cell::StalledMoved,
        Cell::BothStalled,
    ];

    /// Stable machine name, as used in JSON, CSV and the store.
    pub fn as_str(self) -> &'static str {
        match self {
            Cell::SameIp => "same_ip",
            Cell::OtherIp => "other_ip",
            Cell::MovedStalled => "moved_stalled",
            Cell::StalledMoved => "stalled_moved",
            Cell::BothStalled => "both_stalled",
        }
    }

    /// Inverse of [`Cell::as_str`].
    pub fn parse(s: &str) -> Option<Cell> {
        Cell::ALL.into_iter().find(|c| c.as_str() == s)
    }

    /// What the cell means, in a moderator's words.
    pub fn describe(self) -> &'static str {
        match self {
            Cell::SameIp => "both moved from the same IP",
            Cell::OtherIp => "both moved, from different IPs",
            Cell::MovedStalled => "A moved while B kept a game waiting",
            Cell::StalledMoved => "A kept a game waiting while B moved",
            Cell::BothStalled => "both kept games waiting",
        }
    }
}

/// How often a cell scored for a pair, and the sum of its scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct CellTally {
    pub count: u64,
    pub score: i64,
}

/// One bucket's contribution to a pair's score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Contribution {
    /// Start of `a`'s bucket, UTC epoch seconds.
    pub bucket: Epoch,
    pub cell: Cell,
    pub score: i64,
    /// The stall-length boost in force (only `SameIp` is paid it).
    pub run: u32,
}

/// Why a directed pair scored what it did.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Evidence {
    pub same_ip: CellTally,
    pub other_ip: CellTally,
    pub moved_stalled: CellTally,
    pub stalled_moved: CellTally,
    pub both_stalled: CellTally,
    /// The largest boost paid on a same-IP move, and the bucket it was paid in.
    pub max_boost: u32,
    pub max_boost_bucket: Option<Epoch>,
    /// The buckets that added most to the score, largest first (ties: earlier
    /// first).
    pub top_buckets: Vec<Contribution>,
    /// Improved mode's evidence of the unordered pair (absent in reference
    /// mode and in scans read back from a store). Boxed: a reference scan's
    /// million pairs would each carry its room (170 bytes) unused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signals: Option<Box<Signals>>,
}

impl Evidence {
    pub fn tally(&self, cell: Cell) -> &CellTally {
        match cell {
            Cell::SameIp => &self.same_ip,
            Cell::OtherIp => &self.other_ip,
            Cell::MovedStalled => &self.moved_stalled,
            Cell::StalledMoved => &self.stalled_moved,
            Cell::BothStalled => &self.both_stalled,
        }
    }

    pub fn tally_mut(&mut self, cell: Cell) -> &mut CellTally {
        match cell {
            Cell::SameIp => &mut self.same_ip,
            Cell::OtherIp => &mut self.other_ip,
            Cell::MovedStalled => &mut self.moved_stalled,
            Cell::StalledMoved => &mut self.stalled_moved,
            Cell::BothStalled => &mut self.both_stalled,
        }
    }
}

/// The similarity of a directed pair `(account_a, account_b)` and its evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairScore {
    pub account_a: String,
    pub account_b: String,
    /// `(sum / weight) / 2 + 0.5`, in (0, 1).
    pub similarity: f64,
    pub sum: i64,
    pub weight: i64,
    pub evidence: Evidence,
}

/// Which rules the similarity follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// The published method, reproducing the reference implementation.
    #[default]
    Reference,
    /// The published score plus the evidence of how people use their
    /// addresses, combined by a model into a score of one person: a
    /// ranking and a reason to look, not a calibrated probability.
    Improved,
}

impl Mode {
    pub const ALL: [Mode; 2] = [Mode::Reference, Mode::Improved];

    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Reference => "reference",
            Mode::Improved => "improved",
        }
    }

    /// Inverse of [`Mode::as_str`].
    pub fn parse(s: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.as_str() == s)
    }
}

/// The parameters of a scan: stored with it so a report is reproducible.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ScanParams {
    pub threshold: f64,
    pub bucket_seconds: i64,
    pub mode: Mode,
    /// Accounts on one address on one UTC day above which that address is
    /// left out of that day's candidate pairs (a crowd: a carrier NAT, a
    /// school), so pairs stay near-linear in the moves. At or below it every
    /// pair is kept, exactly as the reference does.
    #[serde(default = "default_crowd_limit")]
    pub crowd_limit: usize,
}

/// The default [`ScanParams::crowd_limit`].
pub const DEFAULT_CROWD_LIMIT: usize = 500;

fn default_crowd_limit() -> usize {
    DEFAULT_CROWD_LIMIT
}

impl Default for ScanParams {
    fn default() -> Self {
        ScanParams {
            threshold: 0.9,
            bucket_seconds: DEFAULT_BUCKET_SECONDS,
            mode: Mode::Reference,
            crowd_limit: DEFAULT_CROWD_LIMIT,
        }
    }
}

/// An address shared by more accounts on one day than the crowd limit: left
/// out of that day's candidate pairs, and named in the report.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CrowdedAddress {
    /// The UTC day (days since 1970-01-01).
    pub day: i64,
    /// The address, raw: reports show it by pseudonym unless asked.
    pub ip: String,
    /// Participating accounts that moved from it that day.
    pub accounts: usize,
}

/// A connected group of accounts linked by flagged pairs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clique {
    /// Members, sorted.
    pub members: Vec<String>,
}

/// The outcome of scoring one season.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScanResult {
    pub params: ScanParams,
    /// Accounts with a move in one of the season's games.
    pub participants: usize,
    /// Undirected candidate pairs (each scored in both directions).
    pub candidate_pairs: usize,
    /// Every directed pair, similarity descending, then account_a, account_b.
    pub pairs: Vec<PairScore>,
    /// Cliques of flagged pairs, largest first, then by first member.
    pub cliques: Vec<Clique>,
    /// Addresses left out of candidate pairs on a day for crowding, most
    /// accounts first.
    #[serde(default)]
    pub crowded: Vec<CrowdedAddress>,
}

impl ScanResult {
    /// The directed pairs at or above the threshold.
    pub fn flagged(&self) -> impl Iterator<Item = &PairScore> {
        let t = self.params.threshold;
        self.pairs.iter().filter(move |p| p.similarity >= t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_floor_before_the_epoch() {
        assert_eq!(bucket_of(1800 * 3 + 5, 1800), 5400);
        assert_eq!(bucket_of(-1, 1800), -1800);
        assert_eq!(day_of(-1), -1);
        assert_eq!(day_of(86_399), 0);
    }

    #[test]
    fn names_intern_once() {
        let mut n = Names::default();
        assert_eq!(n.intern("a"), 0);
        assert_eq!(n.intern("b"), 1);
        assert_eq!(n.intern("a"), 0);
        assert_eq!(n.name(1), "b");
        assert_eq!(n.get("c"), None);
    }

    #[test]
    fn game_day_runs_merge_when_they_touch() {
        let r = |game, first_day, last_day| GameDays {
            account: 0,
            game,
            first_day,
            last_day,
        };
        let merged = GameDays::merge(vec![
            r(1, 5, 5),
            r(0, 3, 4),
            r(0, 1, 2),
            r(0, 7, 7),
            r(1, 4, 6),
        ]);
        assert_eq!(merged, vec![r(0, 1, 4), r(0, 7, 7), r(1, 4, 6)]);
    }

    #[test]
    fn cell_names_round_trip() {
        for c in Cell::ALL {
            assert_eq!(Cell::parse(c.as_str()), Some(c));
        }
    }
}
