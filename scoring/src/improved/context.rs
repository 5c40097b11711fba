//! The per-scan context every pair reads: the address lookups
//! ([`super::addresses`]) and, per account, what the signals read of it
//! alone (its totals, moves by network, moved rows and move index), built
//! once per scan.

use super::addresses::{crowd_of, crowd_weight, networks_of, shared_exits};
use super::following::totals;
use super::move_index::MoveIndex;
use super::moved_rows::MovedRows;
use super::moves::MoveTimes;
use super::pace::{pace, Pace};
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use schema::{AccountId, Epoch, IpDay, IpId, Season, Segments};

/// Per-scan lookups shared by every pair.
pub struct Context<'s> {
    pub segments: &'s Segments,
    pub season: &'s Season,
    /// The moves' seconds and addresses, for hand-offs.
    pub times: &'s MoveTimes,
    /// Accounts that moved from an address on a day, by `(day, ip)`.
    crowd: FxHashMap<(i64, IpId), u32>,
    /// The network of each address id (`None`: unknown).
    networks: Vec<Option<u128>>,
    /// Per address id, whether it is a shared exit ([`shared_exits`]).
    exits: Vec<bool>,
    /// Per account: where its sightings begin in `segments.ip_days` (one more
    /// entry than accounts, the last the end).
    ip_days_from: Vec<u32>,
    /// Per account: the bit rows the reference score is walked on.
    rows: Vec<Option<crate::bits::Rows>>,
    /// Per account: what the signals read of it alone.
    own: Vec<Own>,
    /// Per sighting of `segments.ip_days`: its [`Sighting`], read once per
    /// scan instead of once per pair that shares it.
    sightings: Vec<Sighting>,
}

/// What a (day, address) sighting two accounts share says of them
/// ([`super::signals::shared_days`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sighting {
    /// Outside the season: not counted.
    Out,
    /// Crowded that day ([`super::addresses::CROWDED_BELOW`]).
    Crowded,
    /// Uncrowded, on a shared exit ([`Context::is_exit`]).
    Exit,
    /// Uncrowded and no shared exit: a place of the two.
    Place,
}

/// What the signals read of one account alone, in the season.
#[derive(Debug, Clone, Default)]
struct Own {
    /// Buckets moved in and sittings.
    totals: (u32, u32),
    /// Its moves by network, for the private shares.
    networks: Vec<(u128, u32)>,
    /// Its moved buckets as rows, when it has bit rows.
    moved: Option<MovedRows>,
    /// Its moves by second, indexed for hand-offs.
    moves: MoveIndex,
    /// How quickly it moves on its own.
    pace: Pace,
}

impl<'s> Context<'s> {
    /// The context of every account of `segments`.
    pub fn new(segments: &'s Segments, season: &'s Season, times: &'s MoveTimes) -> Self {
        Self::build(segments, season, times, None)
    }

    /// The context of the accounts in `pairs` alone (what a scan reads).
    pub fn for_pairs(
        segments: &'s Segments,
        season: &'s Season,
        times: &'s MoveTimes,
        pairs: &[(AccountId, AccountId)],
    ) -> Self {
        Self::build(segments, season, times, Some(pairs))
    }

    fn build(
        segments: &'s Segments,
        season: &'s Season,
        times: &'s MoveTimes,
        pairs: Option<&[(AccountId, AccountId)]>,
    ) -> Self {
        let mut wanted = vec![pairs.is_none(); segments.by_account.len()];
        for &(x, y) in pairs.unwrap_or_default() {
            wanted[x as usize] = true;
            wanted[y as usize] = true;
        }
        let (((crowd, exits), networks), (rows, own)) = rayon::join(
            || {
                rayon::join(
                    || (crowd_of(segments), shared_exits(segments, season)),
                    || networks_of(segments, times),
                )
            },
            || {
                crate::season_rows(segments, season, pairs)
                    .into_par_iter()
                    .zip(wanted.clone())
                    .enumerate()
                    .map(|(u, (rows, wanted))| {
                        let own =
                            wanted.then(|| own(segments, season, times, u as AccountId, &rows));
                        (rows, own.unwrap_or_default())
                    })
                    .unzip()
            },
        );
        let accounts = segments.by_account.len().max(segments.accounts.len());
        let ip_days_from = crate::account_starts(&segments.ip_days, accounts, |d| d.account);
        let mut cx = Context {
            segments,
            season,
            times,
            crowd,
            networks,
            exits,
            ip_days_from,
            rows,
            own,
            sightings: Vec::new(),
        };
        cx.sightings = segments
            .ip_days
            .par_iter()
            .map(|d| cx.sighting(d.day, d.ip))
            .collect();
        // The moves by network, once the networks are known.
        let by_network: Vec<Vec<(u128, u32)>> = wanted
            .par_iter()
            .enumerate()
            .map(|(u, &w)| {
                if w {
                    cx.network_counts(cx.moves(u as AccountId))
                } else {
                    Vec::new()
                }
            })
            .collect();
        for (o, n) in cx.own.iter_mut().zip(by_network) {
            o.networks = n;
        }
        cx
    }

    /// The reference scores of `(a, b)` and `(b, a)`, in one pass.
    pub fn references(
        &self,
        a: AccountId,
        b: AccountId,
    ) -> (crate::PairOutcome, crate::PairOutcome) {
        crate::score_directed_both(self.segments, self.season, &self.rows, a, b)
    }

    /// The in-season moved buckets of `user`; `None` when its segments do
    /// not start on multiples of the bucket size (never from the segmenter).
    pub fn moved(&self, account: AccountId) -> Option<crate::bits::MovedBuckets<'_>> {
        self.rows[account as usize]
            .as_ref()
            .map(crate::bits::Rows::moved_buckets)
    }

    /// The in-season moved buckets of `user` as bit rows and lists by
    /// address, with the buckets themselves; `None` as for [`Self::moved`].
    pub fn moved_rows(
        &self,
        account: AccountId,
    ) -> Option<(&MovedRows, crate::bits::MovedBuckets<'_>)> {
        Some((
            self.own[account as usize].moved.as_ref()?,
            self.moved(account)?,
        ))
    }

    /// The in-season segments of `account`.
    pub fn in_season(&self, account: AccountId) -> std::borrow::Cow<'s, [schema::Segment]> {
        let segs = &self.segments.by_account[account as usize];
        crate::in_season(segs, self.season, self.segments.bucket_seconds)
    }

    /// The moves of `user` in the season, by second.
    pub fn moves(&self, account: AccountId) -> &'s [(Epoch, IpId)] {
        self.times.in_season(account, self.season)
    }

    /// The moves of `user` in the season, by second, with their index.
    pub fn indexed_moves(&self, account: AccountId) -> (&'s [(Epoch, IpId)], &MoveIndex) {
        (self.moves(account), &self.own[account as usize].moves)
    }

    /// The moves of `user` in the season by network
    /// ([`Self::network_counts`]).
    pub fn networks_moved(&self, account: AccountId) -> &[(u128, u32)] {
        &self.own[account as usize].networks
    }

    /// How quickly `account` moves on its own, in the season.
    pub fn pace(&self, account: AccountId) -> Pace {
        self.own[account as usize].pace
    }

    /// The buckets `user` moved in and its sittings, in the season.
    pub fn totals(&self, account: AccountId) -> (u32, u32) {
        self.own[account as usize].totals
    }

    /// What a sighting on `ip` on `day` says when two accounts share it.
    pub fn sighting(&self, day: i64, ip: IpId) -> Sighting {
        if !crate::day_in_season(day, self.season) {
            Sighting::Out
        } else if self.weight(day, ip) < super::addresses::CROWDED_BELOW {
            Sighting::Crowded
        } else if self.is_exit(ip) {
            Sighting::Exit
        } else {
            Sighting::Place
        }
    }

    /// The crowd weight of `ip` on `day`.
    pub fn weight(&self, day: i64, ip: IpId) -> f64 {
        crowd_weight(self.crowd.get(&(day, ip)).copied().unwrap_or(1))
    }

    /// Whether `ip` is a shared exit: many accounts used it this season.
    pub fn is_exit(&self, ip: IpId) -> bool {
        self.exits.get(ip as usize).copied().unwrap_or(false)
    }

    /// Whether two addresses lie in one network (or are one address).
    pub fn same_network(&self, x: IpId, y: IpId) -> bool {
        x == y
            || matches!(
                (self.networks.get(x as usize), self.networks.get(y as usize)),
                (Some(Some(p)), Some(Some(q))) if p == q
            )
    }

    /// A key that is the network when known, else the address.
    pub fn network_key(&self, ip: IpId) -> u128 {
        match self.networks.get(ip as usize) {
            Some(Some(n)) => *n,
            _ => u128::from(ip) | 3 << 64,
        }
    }

    /// One account's moves by network ([`Self::network_key`]): (network,
    /// moves), sorted by network.
    pub fn network_counts(&self, moves: &[(Epoch, IpId)]) -> Vec<(u128, u32)> {
        let mut keys: Vec<u128> = moves.iter().map(|m| self.network_key(m.1)).collect();
        keys.sort_unstable();
        let mut out: Vec<(u128, u32)> = Vec::new();
        for k in keys {
            match out.last_mut() {
                Some(last) if last.0 == k => last.1 += 1,
                _ => out.push((k, 1)),
            }
        }
        out
    }

    /// The (day, address) sightings of `user`, sorted.
    pub fn ip_days(&self, account: AccountId) -> &'s [IpDay] {
        self.ip_days_with_sightings(account).0
    }

    /// [`Self::ip_days`] of `account` and the [`Sighting`] of each.
    pub fn ip_days_with_sightings(&self, account: AccountId) -> (&'s [IpDay], &[Sighting]) {
        let all = &self.segments.ip_days;
        match self
            .ip_days_from
            .get(account as usize..account as usize + 2)
        {
            Some(&[lo, hi]) => {
                let range = lo as usize..hi as usize;
                (&all[range.clone()], &self.sightings[range])
            }
            _ => (&[], &[]),
        }
    }
}

/// What the signals read of `user` alone, beside its bit rows.
fn own(
    segments: &Segments,
    season: &Season,
    times: &MoveTimes,
    account: AccountId,
    rows: &Option<crate::bits::Rows>,
) -> Own {
    let bs = segments.bucket_seconds;
    let moved = rows.as_ref().map(|r| MovedRows::new(r.moved_buckets(), bs));
    let totals = match (rows, &moved) {
        (Some(r), Some(m)) => (r.moved_buckets().len() as u32, m.sittings()),
        _ => totals(
            &crate::in_season(&segments.by_account[account as usize], season, bs),
            bs,
        ),
    };
    let moves = times.in_season(account, season);
    Own {
        totals,
        networks: Vec::new(),
        moved,
        moves: MoveIndex::new(moves),
        pace: pace(moves),
    }
}
