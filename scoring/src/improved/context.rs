//! What improved mode knows about addresses before it looks at a pair: how
//! crowded each address was on each day, and which network it belongs to.

use super::handoffs::{MoveIndex, MoveTimes};
use super::moved::MovedRows;
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use schema::{AccountId, Epoch, IpDay, IpId, Season, Segments};
use std::net::IpAddr;

/// An address with at most this many accounts on a day counts fully.
pub const CROWD_FULL: u32 = 6;
/// An address with at least this many accounts on a day counts for nothing
/// (carrier NAT, a university, a VPN exit).
pub const CROWD_NONE: u32 = 18;

/// How much one sighting on an address shared by `accounts` accounts that
/// day counts: 1 up to [`CROWD_FULL`], falling linearly to 0 at
/// [`CROWD_NONE`].
pub fn crowd_weight(accounts: u32) -> f64 {
    if accounts <= CROWD_FULL {
        1.0
    } else if accounts >= CROWD_NONE {
        0.0
    } else {
        (CROWD_NONE - accounts) as f64 / (CROWD_NONE - CROWD_FULL) as f64
    }
}

/// The network of an address: its /24 (IPv4) or /64 (IPv6). `None` when the
/// string is not an address (a hashed IP in a keyed store): the network is
/// then unknown and only the address itself compares.
pub fn network_of(ip: &str) -> Option<u128> {
    match ip.trim().parse::<IpAddr>().ok()? {
        IpAddr::V4(v4) => Some(u128::from(u32::from(v4) >> 8) | 1 << 64),
        IpAddr::V6(v6) => Some(u128::from(v6) >> 64 | 2 << 64),
    }
}

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
        let mut ip_days_from = Vec::with_capacity(accounts + 1);
        for u in 0..=accounts {
            ip_days_from.push(
                segments
                    .ip_days
                    .partition_point(|d| (d.account as usize) < u) as u32,
            );
        }
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
        };
        // The moves by network, once the networks are known.
        let by_network: Vec<Vec<(u128, u32)>> = wanted
            .par_iter()
            .enumerate()
            .map(|(u, &w)| {
                if w {
                    super::signals::network_counts(&cx, cx.moves(u as AccountId))
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
    /// ([`super::signals::network_counts`]).
    pub fn networks_moved(&self, account: AccountId) -> &[(u128, u32)] {
        &self.own[account as usize].networks
    }

    /// The buckets `user` moved in and its sittings, in the season.
    pub fn totals(&self, account: AccountId) -> (u32, u32) {
        self.own[account as usize].totals
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

    /// The (day, address) sightings of `user`, sorted.
    pub fn ip_days(&self, account: AccountId) -> &'s [IpDay] {
        let all = &self.segments.ip_days;
        match self
            .ip_days_from
            .get(account as usize..account as usize + 2)
        {
            Some(&[lo, hi]) => &all[lo as usize..hi as usize],
            _ => &[],
        }
    }
}

/// Per address id, whether it is a shared exit: used by at least
/// [`super::timing::EXIT_ACCOUNTS`] accounts in the season (a VPN exit,
/// carrier NAT, a campus; a household has fewer).
pub fn shared_exits(segments: &Segments, season: &Season) -> Vec<bool> {
    let mut seen: Vec<(IpId, AccountId)> = segments
        .ip_days
        .iter()
        .filter(|d| crate::day_in_season(d.day, season))
        .map(|d| (d.ip, d.account))
        .collect();
    seen.sort_unstable();
    seen.dedup();
    let mut accounts = vec![0usize; segments.ips.len()];
    for (ip, _) in seen {
        if let Some(n) = accounts.get_mut(ip as usize) {
            *n += 1;
        }
    }
    accounts
        .into_iter()
        .map(|n| n >= super::timing::EXIT_ACCOUNTS)
        .collect()
}

/// Accounts that moved from an address on a day, by `(day, ip)`.
fn crowd_of(segments: &Segments) -> FxHashMap<(i64, IpId), u32> {
    let mut crowd: FxHashMap<(i64, IpId), u32> = FxHashMap::default();
    for d in &segments.ip_days {
        *crowd.entry((d.day, d.ip)).or_default() += 1;
    }
    crowd
}

/// The network of each address id: read from the address, else as the
/// store recorded it (a keyed store's addresses are hashes).
fn networks_of(segments: &Segments, times: &MoveTimes) -> Vec<Option<u128>> {
    segments
        .ips
        .as_slice()
        .par_iter()
        .enumerate()
        .map(|(ip, s)| {
            network_of(s).or_else(|| times.network(ip as IpId).map(|n| u128::from(n) | 4 << 64))
        })
        .collect()
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
        _ => super::signals::totals(
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crowded_addresses_count_for_less_down_to_nothing() {
        assert_eq!(crowd_weight(2), 1.0);
        assert_eq!(crowd_weight(CROWD_FULL), 1.0);
        assert_eq!(crowd_weight(12), 0.5);
        assert_eq!(crowd_weight(CROWD_NONE), 0.0);
        assert_eq!(crowd_weight(400), 0.0);
    }

    #[test]
    fn networks_are_the_slash_24_or_slash_64_and_unknown_for_other_strings() {
        assert_eq!(network_of("10.1.2.3"), network_of("10.1.2.200"));
        assert_ne!(network_of("10.1.2.3"), network_of("10.1.3.3"));
        assert_eq!(
            network_of("2001:db8:0:1::5"),
            network_of("2001:db8:0:1:ffff::1")
        );
        assert_ne!(network_of("2001:db8:0:1::5"), network_of("2001:db8:0:2::5"));
        assert_ne!(network_of("0.0.0.1"), network_of("::1"));
        assert_eq!(network_of("k1:9f2c4e"), None);
    }
}
