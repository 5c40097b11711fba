//! Participants and candidate pairs (SPEC section 3).

use crate::{day_in_season, days_in_season};
use rustc_hash::FxHashMap;
use schema::{AccountId, CrowdedAddress, Season, SeasonError, Segments};

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
    let name = |u: AccountId| segments.accounts.name(u);
    let mut pairs: Vec<(AccountId, AccountId)> = pairs
        .into_iter()
        .map(|(x, y)| if name(x) < name(y) { (x, y) } else { (y, x) })
        .collect();
    pairs.sort_unstable_by(|p, q| (name(p.0), name(p.1)).cmp(&(name(q.0), name(q.1))));
    (pairs, crowded)
}

/// [`candidate_pairs`] by id: each pair once, `(x, y)` with `x < y`, in
/// id order.
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
    let mut groups: FxHashMap<(i64, u32), Vec<AccountId>> = FxHashMap::default();
    for d in &segments.ip_days {
        if member[d.account as usize] && day_in_season(d.day, season) {
            groups.entry((d.day, d.ip)).or_default().push(d.account);
        }
    }
    // A pair met on several (IP, day)s is found once for each: pairs are
    // made unique by id, cheaply (`candidate_pairs` sorts fewer by names).
    let mut pairs: Vec<u64> = Vec::new();
    let mut crowded = Vec::new();
    for ((day, ip), mut accounts) in groups {
        accounts.sort_unstable();
        accounts.dedup();
        if accounts.len() > crowd_limit {
            crowded.push(CrowdedAddress {
                day,
                ip: segments.ips.name(ip).to_owned(),
                accounts: accounts.len(),
            });
            continue;
        }
        for (i, &x) in accounts.iter().enumerate() {
            for &y in &accounts[i + 1..] {
                // `accounts` is sorted: x < y.
                pairs.push((x as u64) << 32 | y as u64);
            }
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    let pairs = pairs
        .into_iter()
        .map(|p| ((p >> 32) as AccountId, p as AccountId))
        .collect();
    crowded.sort_by(|a, b| b.accounts.cmp(&a.accounts).then_with(|| a.cmp(b)));
    (pairs, crowded)
}
