//! Rescans: a season scored again after new moves, keeping the previous
//! scan's score of every pair whose two accounts' evidence did not change
//! (what a scan keeps for this: [`schema::rescan`]).
//!
//! Reference mode only: a reference score reads the two accounts' segments in
//! the season and nothing else, while improved mode's signals also read the
//! crowds and the moves by second.
//!
//! A rescan scores again every candidate pair naming a *replaced* account:
//! - one whose [`digests`] differs from the previous scan's (new moves,
//!   stalls, sightings or game days in the season, or none any more);
//! - one seen on an (IP, day) that became a crowd or stopped being one,
//!   since that adds or removes pairs among accounts who did not change.

mod touched;

pub use touched::{PairsNaming, PreviousCandidates};

use crate::{
    account_starts, both_directions, candidate_ids, day_in_season, days_in_season, in_season,
    participants, reference_scores, scan_result, season_rows, ScanError,
};
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet, FxHasher};
use schema::rescan::AccountDigests;
use schema::{AccountId, CrowdedAddress, Mode, ScanParams, ScanResult, Season, Segments};
use std::hash::{Hash, Hasher};

/// What the previous scan of the season, with the same parameters, left.
pub struct Previous<'a> {
    pub digests: &'a AccountDigests,
    pub crowded: &'a [CrowdedAddress],
    /// By account id of the segments rescanned: whether the account's
    /// segments, sightings or game days may differ from those `digests`
    /// were taken of (an id past the end: it may). Every other account's
    /// digest is the previous one, not taken again, so a rescan's cost
    /// follows the accounts that changed. `None`: every digest is taken
    /// again.
    pub changed: Option<&'a [bool]>,
    /// The previous scan's candidate pairs, when the caller holds them: the
    /// rescan then finds its candidates among the (IP, day)s its change
    /// touched, not among every sighting of the season.
    pub candidates: Option<PreviousCandidates<'a>>,
}

/// A season scored again.
#[derive(Debug, Clone)]
pub struct Rescan {
    /// Participants, candidate pairs and crowds of the whole season; as
    /// `pairs`, every directed pair naming a replaced account, in report order;
    /// no cliques (they need the kept flags too: [`flagged_result`]).
    pub result: ScanResult,
    /// The accounts whose pairs were scored again, sorted.
    pub replaced: Vec<String>,
    /// This scan's digests, for the next rescan.
    pub digests: AccountDigests,
}

/// Each account's digest of what it brings to the season: its segments (a
/// stall run whole, so its cost follows the runs, not the buckets they
/// span), its sightings and its game days in the season, IPs and games by
/// name.
pub fn digests(segments: &Segments, season: &Season) -> AccountDigests {
    digests_reusing(segments, season, None)
}

/// [`digests`], each unchanged account's taken from `reuse`: the previous
/// digests and, by account id, whether an account may have changed since
/// they were taken ([`Previous::changed`]).
fn digests_reusing(
    segments: &Segments,
    season: &Season,
    reuse: Option<(&AccountDigests, &[bool])>,
) -> AccountDigests {
    let text = |s: &String| {
        let mut h = FxHasher::default();
        s.hash(&mut h);
        h.finish()
    };
    let (ip, game): (Vec<u64>, Vec<u64>) = rayon::join(
        || segments.ips.as_slice().par_iter().map(text).collect(),
        || segments.games.as_slice().par_iter().map(text).collect(),
    );
    // Each account's sightings and game days (both sorted by account).
    let accounts = segments.by_account.len();
    let ip_days = account_starts(&segments.ip_days, accounts, |d| d.account);
    let game_days = account_starts(&segments.game_days, accounts, |d| d.account);
    let named: Vec<(String, u64)> = segments
        .by_account
        .par_iter()
        .enumerate()
        .filter_map(|(u, segs)| {
            let name = segments.accounts.name(u as AccountId);
            if let Some((previous, changed)) = reuse {
                if !changed.get(u).copied().unwrap_or(true) {
                    // No digest before: nothing of it in the season then,
                    // nor now.
                    return previous.get(name).map(|d| (name.to_owned(), d));
                }
            }
            let seen = sightings(
                &segments.ip_days[ip_days[u] as usize..ip_days[u + 1] as usize],
                &segments.game_days[game_days[u] as usize..game_days[u + 1] as usize],
                season,
                (&ip, &game),
            );
            let segs = in_season(segs, season, segments.bucket_seconds);
            if segs.is_empty() && seen.is_none() {
                return None;
            }
            let mut h = FxHasher::default();
            h.write_u64(seen.unwrap_or(0));
            for s in segs.iter() {
                h.write_i64(s.bucket);
                h.write_u32(s.stalls);
                h.write_u64(s.stall_ip.map_or(0, |i| ip[i.get() as usize]));
                h.write_usize(s.moves.len());
                for &(i, count) in &s.moves {
                    h.write_u64(ip[i as usize]);
                    h.write_u32(count);
                }
            }
            Some((name.to_owned(), h.finish()))
        })
        .collect();
    AccountDigests::new(named)
}

/// An account's sightings and game days in the season, by IP and game
/// name hashes, summed rather than hashed in a row: their stored order
/// follows IP and game ids, which a cut from an earlier move numbers anew.
/// `None` when it has neither.
fn sightings(
    ip_days: &[schema::IpDay],
    game_days: &[schema::GameDays],
    season: &Season,
    (ip, game): (&[u64], &[u64]),
) -> Option<u64> {
    let mut sum: Option<u64> = None;
    let mut add = |parts: [u64; 3]| {
        let mut h = FxHasher::default();
        parts.iter().for_each(|&p| h.write_u64(p));
        let s = sum.get_or_insert(0);
        *s = s.wrapping_add(mix(h.finish()));
    };
    for d in ip_days.iter().filter(|d| day_in_season(d.day, season)) {
        add([d.day as u64, ip[d.ip as usize], 0]);
    }
    for d in game_days
        .iter()
        .filter(|d| days_in_season(d.first_day, d.last_day, season))
    {
        let days = (d.first_day as u64) << 32 | (d.last_day as u64 & 0xffff_ffff);
        add([game[d.game as usize], days, 1]);
    }
    sum
}

/// Scores the season again after [`Previous`]: every candidate pair naming
/// a replaced account, both directions.
pub fn rescan(
    segments: &Segments,
    season: &Season,
    params: &ScanParams,
    previous: &Previous,
) -> Result<Rescan, ScanError> {
    if segments.bucket_seconds != params.bucket_seconds {
        return Err(ScanError::BucketSize {
            segments: segments.bucket_seconds,
            wanted: params.bucket_seconds,
        });
    }
    debug_assert_eq!(
        params.mode,
        Mode::Reference,
        "rescans score the reference way"
    );
    let members = participants(segments, season).map_err(ScanError::Season)?;
    let reuse = previous.changed.map(|changed| (previous.digests, changed));
    let digests = digests_reusing(segments, season, reuse);
    let changed = digest_changed(segments, &digests, previous);
    let limit = params.crowd_limit;
    // The pairs scored again, the crowds, the replaced accounts' names and
    // the season's count of candidate pairs.
    let (again, crowded, names, count) = match previous.candidates {
        Some(before) => {
            let counted = touched::Counted::new(segments, season, &members);
            let crowded = counted.crowded(&changed, previous.crowded, limit);
            let replaced = with_crowd_changes(segments, changed, &crowded, previous);
            let again = counted.pairs_naming(&replaced, limit);
            let names = replaced_names(segments, &replaced, &digests, previous);
            // (Held counts that disagree cannot make the count wrap.)
            let count = before.count.saturating_sub((before.naming)(&names)) + again.len();
            (again, crowded, names, count)
        }
        None => {
            let (pairs, crowded) = candidate_ids(segments, &members, season, limit);
            let replaced = with_crowd_changes(segments, changed, &crowded, previous);
            let again: Vec<(AccountId, AccountId)> = pairs
                .iter()
                .copied()
                .filter(|&(x, y)| replaced[x as usize] || replaced[y as usize])
                .collect();
            let names = replaced_names(segments, &replaced, &digests, previous);
            (again, crowded, names, pairs.len())
        }
    };
    let mut scores = reference_scores(segments, season, &again);
    schema::order::sort_pairs(&mut scores);
    Ok(Rescan {
        result: ScanResult {
            params: *params,
            participants: members.len(),
            candidate_pairs: count,
            pairs: scores,
            cliques: Vec::new(),
            crowded,
        },
        replaced: names,
        digests,
    })
}

/// By account id: whether the account's digest differs from the previous
/// one.
fn digest_changed(segments: &Segments, digests: &AccountDigests, previous: &Previous) -> Vec<bool> {
    (0..segments.accounts.len())
        .map(|u| {
            let name = segments.accounts.name(u as AccountId);
            digests.get(name) != previous.digests.get(name)
        })
        .collect()
}

/// By account id: whether the account's pairs are scored again: its digest
/// `changed`, or it is seen on an (IP, day) that became a crowd or stopped
/// being one.
fn with_crowd_changes(
    segments: &Segments,
    mut replaced: Vec<bool>,
    crowded: &[CrowdedAddress],
    previous: &Previous,
) -> Vec<bool> {
    let key = |c: &CrowdedAddress| (c.day, c.ip.clone());
    let now: FxHashSet<(i64, String)> = crowded.iter().map(key).collect();
    let before: FxHashSet<(i64, String)> = previous.crowded.iter().map(key).collect();
    let changed: FxHashSet<(i64, u32)> = now
        .symmetric_difference(&before)
        .filter_map(|(day, ip)| Some((*day, segments.ips.get(ip)?)))
        .collect();
    if !changed.is_empty() {
        for d in &segments.ip_days {
            if changed.contains(&(d.day, d.ip)) {
                replaced[d.account as usize] = true;
            }
        }
    }
    replaced
}

/// The names of the accounts `replaced`, and of those the previous scan
/// knew and this one does not (their pairs go), sorted.
fn replaced_names(
    segments: &Segments,
    replaced: &[bool],
    digests: &AccountDigests,
    previous: &Previous,
) -> Vec<String> {
    let mut names: Vec<String> = (0..segments.accounts.len())
        .filter(|&u| replaced[u])
        .map(|u| segments.accounts.name(u as AccountId).to_owned())
        .collect();
    names.extend(
        previous
            .digests
            .iter()
            .filter(|&(n, _)| digests.get(n).is_none() && segments.accounts.get(n).is_none())
            .map(|(n, _)| n.to_owned()),
    );
    names.sort_unstable();
    names.dedup();
    names
}

/// The scan a moderator sees after a rescan: both directions of every pair
/// flagged in either direction, and the cliques. `kept_flagged`: the
/// directed pairs the previous scan flagged at this threshold (those naming
/// a replaced account are left out). A kept pair is scored again from the
/// segments, which gives the previous scan's very score, so that both of
/// its directions are at hand without reading the store.
pub fn flagged_result(
    segments: &Segments,
    season: &Season,
    rescan: &Rescan,
    kept_flagged: &[(String, String)],
) -> ScanResult {
    let t = rescan.result.params.threshold;
    let replaced: FxHashSet<&str> = rescan.replaced.iter().map(String::as_str).collect();
    let mut kept: Vec<(AccountId, AccountId)> = kept_flagged
        .iter()
        .filter(|(a, b)| !replaced.contains(a.as_str()) && !replaced.contains(b.as_str()))
        .filter_map(|(a, b)| {
            let (x, y) = (segments.accounts.get(a)?, segments.accounts.get(b)?);
            Some(if a < b { (x, y) } else { (y, x) })
        })
        .collect();
    kept.sort_unstable();
    kept.dedup();
    let rows = season_rows(segments, season, Some(&kept));
    let mut pairs = both_directions(segments, season, &rows, &kept);
    // Of the pairs scored again, those flagged in either direction.
    let mut best: FxHashMap<(&str, &str), f64> = FxHashMap::default();
    for p in &rescan.result.pairs {
        let key = unordered(&p.account_a, &p.account_b);
        let s = best.entry(key).or_insert(f64::NEG_INFINITY);
        *s = s.max(p.similarity);
    }
    pairs.extend(
        rescan
            .result
            .pairs
            .iter()
            .filter(|p| best[&unordered(&p.account_a, &p.account_b)] >= t)
            .cloned(),
    );
    let r = &rescan.result;
    scan_result(
        r.params,
        r.participants,
        r.candidate_pairs,
        pairs,
        r.crowded.clone(),
    )
}

/// SplitMix64's finalizer: spreads a hash's bits before it is summed.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn unordered<'a>(a: &'a str, b: &'a str) -> (&'a str, &'a str) {
    if a <= b {
        (a, b)
    } else {
        (b, a)
    }
}
