//! Each account's digest of what it brings to a season, and which digests
//! a rescan takes again: only those of the accounts that may have changed,
//! every other one copied from the previous scan, so that the cost follows
//! the accounts that moved (the names of the season's IPs and games are
//! hashed as those accounts meet them, not all of them each time).

use crate::{account_range, account_starts, day_in_season, days_in_season, in_season};
use rayon::prelude::*;
use rustc_hash::FxHasher;
use schema::rescan::AccountDigests;
use schema::{AccountId, Names, Season, Segments};
use std::hash::{Hash, Hasher};

/// Each account's digest of what it brings to the season: its segments (a
/// stall run whole, so its cost follows the runs, not the buckets they
/// span), its sightings and its game days in the season, IPs and games by
/// name.
pub fn digests(segments: &Segments, season: &Season) -> AccountDigests {
    let (ip, game) = rayon::join(
        || Hashes::all(&segments.ips),
        || Hashes::all(&segments.games),
    );
    let taker = Taker::new(segments, season, (ip, game), true);
    let named: Vec<(String, u64)> = (0..segments.by_account.len())
        .into_par_iter()
        .filter_map(|u| Some((taker.name(u).to_owned(), taker.digest(u)?)))
        .collect();
    AccountDigests::new(named)
}

/// [`digests`], taken again only of the accounts `changed` (by account id;
/// an id past the end may have changed): every other account's is the one
/// in `previous`, which the previous scan took of the same segments.
pub(super) fn digests_reusing(
    segments: &Segments,
    season: &Season,
    (previous, changed): (&AccountDigests, &[bool]),
) -> AccountDigests {
    let is_changed = |u: usize| changed.get(u).copied().unwrap_or(true);
    let hashes = (Hashes::Lazy(&segments.ips), Hashes::Lazy(&segments.games));
    let taker = Taker::new(segments, season, hashes, false);
    let mut named: Vec<(String, u64)> = (0..segments.by_account.len())
        .into_par_iter()
        .filter(|&u| is_changed(u))
        .filter_map(|u| Some((taker.name(u).to_owned(), taker.digest(u)?)))
        .collect();
    // An account no longer in the segments brings nothing now.
    named.extend(
        previous
            .iter()
            .filter(|(n, _)| {
                segments
                    .accounts
                    .get(n)
                    .is_some_and(|u| !is_changed(u as usize))
            })
            .map(|(n, d)| (n.to_owned(), d)),
    );
    AccountDigests::new(named)
}

/// By account id: whether the account's digest in `now` differs from the
/// one in `before`, where only the accounts `changed` (as in
/// [`digests_reusing`]) were taken again.
pub(super) fn digests_differ(
    segments: &Segments,
    (now, before): (&AccountDigests, &AccountDigests),
    changed: Option<&[bool]>,
) -> Vec<bool> {
    (0..segments.accounts.len())
        .into_par_iter()
        .map(|u| {
            if changed.is_some_and(|c| !c.get(u).copied().unwrap_or(true)) {
                return false;
            }
            let name = segments.accounts.name(u as AccountId);
            now.get(name) != before.get(name)
        })
        .collect()
}

/// The hashes of names by id: all taken at once, or each as it is met.
enum Hashes<'a> {
    All(Vec<u64>),
    Lazy(&'a Names),
}

impl<'a> Hashes<'a> {
    fn all(names: &Names) -> Hashes<'a> {
        Hashes::All(names.as_slice().par_iter().map(|n| text(n)).collect())
    }

    fn get(&self, id: u32) -> u64 {
        match self {
            Hashes::All(v) => v[id as usize],
            Hashes::Lazy(names) => text(names.name(id)),
        }
    }
}

fn text(s: &str) -> u64 {
    let mut h = FxHasher::default();
    s.hash(&mut h);
    h.finish()
}

/// What taking one account's digest reads.
struct Taker<'a> {
    segments: &'a Segments,
    season: &'a Season,
    ip: Hashes<'a>,
    game: Hashes<'a>,
    /// Where each account's sightings and game days begin (both are
    /// sorted by account), when every account's digest is taken; else
    /// each account's are searched for.
    starts: Option<(Vec<u32>, Vec<u32>)>,
}

impl<'a> Taker<'a> {
    /// `every`: whether every account's digest will be taken.
    fn new(
        segments: &'a Segments,
        season: &'a Season,
        (ip, game): (Hashes<'a>, Hashes<'a>),
        every: bool,
    ) -> Self {
        let accounts = segments.by_account.len();
        let starts = every.then(|| {
            (
                account_starts(&segments.ip_days, accounts, |d| d.account),
                account_starts(&segments.game_days, accounts, |d| d.account),
            )
        });
        Taker {
            segments,
            season,
            ip,
            game,
            starts,
        }
    }

    /// Account `u`'s sightings and game days.
    fn records(&self, u: usize) -> (&'a [schema::IpDay], &'a [schema::GameDays]) {
        let s = self.segments;
        match &self.starts {
            Some((ip, game)) => (
                &s.ip_days[ip[u] as usize..ip[u + 1] as usize],
                &s.game_days[game[u] as usize..game[u + 1] as usize],
            ),
            None => (
                &s.ip_days[account_range(&s.ip_days, u as AccountId, |d| d.account)],
                &s.game_days[account_range(&s.game_days, u as AccountId, |d| d.account)],
            ),
        }
    }

    fn name(&self, u: usize) -> &'a str {
        self.segments.accounts.name(u as AccountId)
    }

    /// Account `u`'s digest; `None` when it brings nothing to the season.
    fn digest(&self, u: usize) -> Option<u64> {
        let s = self.segments;
        let (ip_days, game_days) = self.records(u);
        let seen = self.sightings(ip_days, game_days);
        let segs = in_season(&s.by_account[u], self.season, s.bucket_seconds);
        if segs.is_empty() && seen.is_none() {
            return None;
        }
        let mut h = FxHasher::default();
        h.write_u64(seen.unwrap_or(0));
        for seg in segs.iter() {
            h.write_i64(seg.bucket);
            h.write_u32(seg.stalls);
            h.write_u64(seg.stall_ip.map_or(0, |i| self.ip.get(i.get())));
            h.write_usize(seg.moves.len());
            for &(i, count) in &seg.moves {
                h.write_u64(self.ip.get(i));
                h.write_u32(count);
            }
        }
        Some(h.finish())
    }

    /// An account's sightings and game days in the season, by IP and game
    /// name hashes, summed rather than hashed in a row: their stored order
    /// follows IP and game ids, which a cut from an earlier move numbers
    /// anew. `None` when it has neither.
    fn sightings(&self, ip_days: &[schema::IpDay], game_days: &[schema::GameDays]) -> Option<u64> {
        let season = self.season;
        let mut sum: Option<u64> = None;
        let mut add = |parts: [u64; 3]| {
            let mut h = FxHasher::default();
            parts.iter().for_each(|&p| h.write_u64(p));
            let s = sum.get_or_insert(0);
            *s = s.wrapping_add(mix(h.finish()));
        };
        for d in ip_days.iter().filter(|d| day_in_season(d.day, season)) {
            add([d.day as u64, self.ip.get(d.ip), 0]);
        }
        for d in game_days
            .iter()
            .filter(|d| days_in_season(d.first_day, d.last_day, season))
        {
            let days = (d.first_day as u64) << 32 | (d.last_day as u64 & 0xffff_ffff);
            add([self.game.get(d.game), days, 1]);
        }
        sum
    }
}

/// SplitMix64's finalizer: spreads a hash's bits before it is summed.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
