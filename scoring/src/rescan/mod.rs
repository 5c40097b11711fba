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

mod digests;
mod touched;

pub use digests::digests;
pub use touched::{PairsNaming, PreviousCandidates};

use crate::{
    both_directions, candidate_ids, participants, reference_scores, scan_result, season_rows,
    ScanError,
};
use rustc_hash::{FxHashMap, FxHashSet};
use schema::rescan::AccountDigests;
use schema::{
    AccountId, CrowdedAddress, Mode, PairScore, ScanParams, ScanResult, Season, Segments,
};

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
    let digests = match previous.changed {
        Some(changed) => digests::digests_reusing(segments, season, (previous.digests, changed)),
        None => digests(segments, season),
    };
    let changed = digests::digests_differ(segments, (&digests, previous.digests), previous.changed);
    let limit = params.crowd_limit;
    // The pairs scored again, the crowds, the replaced accounts' names and
    // the season's count of candidate pairs.
    let (again, crowded, names, count) = match previous.candidates {
        Some(before) => {
            let counted = touched::Counted::new(segments, season, &members);
            let (crowded, replaced, again) =
                counted.crowds_and_pairs(changed, previous.crowded, limit, |changed, crowded| {
                    with_crowd_changes(segments, changed, crowded, previous)
                });
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
/// flagged in either direction, and the cliques. `previous`: the previous
/// scan's pairs at hand, at least every directed pair it flagged at this
/// threshold; those naming a replaced account are left out. A kept pair
/// whose two directions are both at hand is copied; else it is scored again
/// from the segments, which gives the previous scan's very score, so that
/// both of its directions are at hand without reading the store.
pub fn flagged_result(
    segments: &Segments,
    season: &Season,
    rescan: &Rescan,
    previous: &[PairScore],
) -> ScanResult {
    let t = rescan.result.params.threshold;
    let replaced: FxHashSet<&str> = rescan.replaced.iter().map(String::as_str).collect();
    // The previous pairs at hand naming no replaced account, by unordered
    // names: each direction, when at hand.
    let mut at_hand: FxHashMap<(&str, &str), [Option<&PairScore>; 2]> = FxHashMap::default();
    for p in previous {
        let (a, b) = (p.account_a.as_str(), p.account_b.as_str());
        if replaced.contains(a) || replaced.contains(b) {
            continue;
        }
        at_hand.entry(unordered(a, b)).or_default()[usize::from(a > b)] = Some(p);
    }
    let mut pairs = Vec::new();
    let mut kept: Vec<(AccountId, AccountId)> = Vec::new();
    for ((a, b), both) in at_hand {
        if !both.iter().flatten().any(|p| p.similarity >= t) {
            continue;
        }
        let (Some(x), Some(y)) = (segments.accounts.get(a), segments.accounts.get(b)) else {
            continue;
        };
        match both {
            [Some(ab), Some(ba)] => pairs.extend([ab.clone(), ba.clone()]),
            _ => kept.push((x, y)),
        }
    }
    kept.sort_unstable();
    let rows = season_rows(segments, season, Some(&kept));
    pairs.extend(both_directions(segments, season, &rows, &kept));
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

fn unordered<'a>(a: &'a str, b: &'a str) -> (&'a str, &'a str) {
    if a <= b {
        (a, b)
    } else {
        (b, a)
    }
}
