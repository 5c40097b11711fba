//! Participants and candidate pairs (SPEC section 3).

use crate::{day_in_season, days_in_season};
use rayon::prelude::*;
use schema::{AccountId, CrowdedAddress, Names, Season, SeasonError, Segments};

/// The season's participants: accounts with at least one move in a game whose
/// name matches the season's pattern, within its range. Sorted by id.
pub fn participants(segments: &Segments, season: &Season) -> Result<Vec<AccountId>, SeasonError> {
    let re = season.games_regex()?;
    let matching: Vec<bool> = segments
        .games
        .as_slice()
        .iter()
        .map(|g| re.is_match(g))
        .collect();
    let mut accounts: Vec<AccountId> = segments
        .game_days
        .iter()
        .filter(|gd| {
            matching[gd.game as usize] && days_in_season(gd.first_day, gd.last_day, season)
        })
        .map(|gd| gd.account)
        .collect();
    accounts.sort_unstable();
    accounts.dedup();
    Ok(accounts)
}

/// Undirected candidate pairs among `participants`: both moved from the same
/// IP on the same UTC day, within the season. Each pair once, `(x, y)` with
/// `name(x) < name(y)`, sorted by names.
///
/// An (IP, day) shared by more than `crowd_limit` participants is a crowd:
/// it gives no pairs (they would grow with the square of its size) and is
/// returned instead, most accounts first. Below the limit every pair is
/// kept.
pub fn candidate_pairs(
    segments: &Segments,
    participants: &[AccountId],
    season: &Season,
    crowd_limit: usize,
) -> (Vec<(AccountId, AccountId)>, Vec<CrowdedAddress>) {
    let (pairs, crowded) = candidate_ids(segments, participants, season, crowd_limit);
    let (id, rank) = name_order(&segments.accounts);
    // Each pair as its two ranks in one number, which sorts as the names
    // do: no name is read during the sort.
    let mut keyed: Vec<u64> = pairs
        .into_par_iter()
        .map(|(x, y)| {
            let (p, q) = (rank[x as usize], rank[y as usize]);
            u64::from(p.min(q)) << 32 | u64::from(p.max(q))
        })
        .collect();
    // Distinct pairs: one order, whichever sort gives it.
    keyed.par_sort_unstable();
    let pairs = keyed
        .into_par_iter()
        .map(|k| (id[(k >> 32) as usize], id[k as u32 as usize]))
        .collect();
    (pairs, crowded)
}

/// The ids of `accounts` in name order (byte order, as `str` compares)
/// and each id's place in it: `id[rank[u]] == u`.
fn name_order(accounts: &Names) -> (Vec<AccountId>, Vec<u32>) {
    let names = accounts.as_slice();
    let mut id: Vec<AccountId> = (0..names.len() as AccountId).collect();
    id.par_sort_unstable_by(|&x, &y| names[x as usize].cmp(&names[y as usize]));
    let mut rank = vec![0u32; names.len()];
    for (r, &u) in id.iter().enumerate() {
        rank[u as usize] = r as u32;
    }
    (id, rank)
}

/// [`candidate_pairs`] by id: each pair once, `(x, y)` with `x < y`, in
/// id order.
///
/// The season's sightings are sorted by (day, IP) on every core, so that
/// each (IP, day)'s accounts lie side by side, and the groups are paired on
/// every core too: no table of groups, no list for each.
pub fn candidate_ids(
    segments: &Segments,
    participants: &[AccountId],
    season: &Season,
    crowd_limit: usize,
) -> (Vec<(AccountId, AccountId)>, Vec<CrowdedAddress>) {
    let mut member = vec![false; segments.accounts.len()];
    for &u in participants {
        member[u as usize] = true;
    }
    let mut seen: Vec<(i64, u32, AccountId)> = segments
        .ip_days
        .par_iter()
        .filter(|d| member[d.account as usize] && day_in_season(d.day, season))
        .map(|d| (d.day, d.ip, d.account))
        .collect();
    seen.par_sort_unstable();
    seen.dedup();
    let pairs = pairs_in(&seen, crowd_limit, |_, _| true);
    let crowded = crowds_in(&seen, &segments.ips, crowd_limit);
    (pairs, crowded)
}

/// A sighting counted for candidates: (day, IP, account).
pub(crate) type Sighting = (i64, u32, AccountId);

/// Each pair of accounts seen together on an (IP, day) of `seen` (sorted,
/// each once) that is no crowd, for which `keep(x, y)`: once each, `(x,
/// y)` with `x < y`, in id order. The groups are paired on every core.
pub(crate) fn pairs_in(
    seen: &[Sighting],
    crowd_limit: usize,
    keep: impl Fn(AccountId, AccountId) -> bool + Sync,
) -> Vec<(AccountId, AccountId)> {
    let groups: Vec<&[Sighting]> = seen
        .chunk_by(|a, b| (a.0, a.1) == (b.0, b.1))
        .filter(|g| g.len() <= crowd_limit)
        .collect();
    let keep = &keep;
    // A pair met on several (IP, day)s is found once for each: pairs are
    // made unique by id, cheaply (`candidate_pairs` sorts fewer by names).
    let mut pairs: Vec<u64> = groups
        .par_iter()
        .flat_map_iter(|g| {
            // Sorted by account within the group: x < y.
            g.iter().enumerate().flat_map(move |(i, &(_, _, x))| {
                g[i + 1..]
                    .iter()
                    .filter(move |&&(_, _, y)| keep(x, y))
                    .map(move |&(_, _, y)| (x as u64) << 32 | y as u64)
            })
        })
        .collect();
    pairs.par_sort_unstable();
    pairs.dedup();
    pairs
        .into_iter()
        .map(|p| ((p >> 32) as AccountId, p as AccountId))
        .collect()
}

/// The crowds among the (IP, day)s of `seen` (sorted, each once): more
/// than `crowd_limit` accounts, most first.
pub(crate) fn crowds_in(seen: &[Sighting], ips: &Names, crowd_limit: usize) -> Vec<CrowdedAddress> {
    let mut crowded: Vec<CrowdedAddress> = seen
        .chunk_by(|a, b| (a.0, a.1) == (b.0, b.1))
        .filter(|g| g.len() > crowd_limit)
        .map(|g| CrowdedAddress {
            day: g[0].0,
            ip: ips.name(g[0].1).to_owned(),
            accounts: g.len(),
        })
        .collect();
    crowded.sort_by(|a, b| b.accounts.cmp(&a.accounts).then_with(|| a.cmp(b)));
    crowded
}
