//! # detect-scoring
//!
//! The method: candidate pairs (who shared an IP on a day), the asymmetric
//! similarity of each directed pair over a sliding window of three segments
//! with its stall-length boost, the evidence behind each score, flags and
//! cliques (SPEC sections 3 to 5), and the triage of flags against
//! moderators' verdicts.
//!
//! Pure and parallel: it takes [`schema::Segments`] and a [`schema::Season`]
//! and returns a [`schema::ScanResult`]. It reads no file and opens no
//! database; pairs are scored in parallel with rayon.

pub mod bits;
pub mod both_ways;
pub mod candidates;
pub mod cliques;
pub mod improved;
pub mod rescan;
pub mod search;
pub mod similarity;
pub mod triage;

pub use both_ways::{both_ways, BothWays};
pub use candidates::{candidate_ids, candidate_pairs, participants};
pub use cliques::cliques;
pub use similarity::{contributions, score_pair, PairOutcome};
pub use triage::{to_review, triage, Triage, DEFAULT_REOPEN_MARGIN};

use rayon::prelude::*;
use schema::{
    AccountId, CrowdedAddress, Epoch, Mode, PairScore, ScanParams, ScanResult, Season, SeasonError,
    Segment, Segments,
};
use std::borrow::Cow;

/// Why a scan could not run.
#[derive(Debug)]
pub enum ScanError {
    Season(SeasonError),
    BucketSize {
        segments: i64,
        wanted: i64,
    },
    /// Improved mode was asked for without the moves by second.
    NoMoveTimes,
}

impl std::fmt::Display for ScanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ScanError::Season(e) => write!(f, "{e}"),
            ScanError::BucketSize { segments, wanted } => write!(
                f,
                "the segments were cut into {segments}-second buckets but the scan asks for {wanted}"
            ),
            ScanError::NoMoveTimes => write!(
                f,
                "improved mode reads the moves by second, and none were given beside the segments"
            ),
        }
    }
}

/// The segments of one account whose buckets start inside the season's
/// range: a slice of the account's list, but for a stall run that crosses
/// either end of the range, which is cut to it (then the list is a copy).
pub fn in_season<'s>(
    segs: &'s [Segment],
    season: &Season,
    bucket_seconds: i64,
) -> Cow<'s, [Segment]> {
    let lo = season
        .from
        .map_or(0, |f| segs.partition_point(|s| s.end(bucket_seconds) <= f));
    let hi = season
        .to
        .map_or(segs.len(), |t| segs.partition_point(|s| s.bucket < t));
    let within = &segs[lo..hi.max(lo)];
    let cut = |s: Option<&Segment>| {
        s.is_some_and(|s| s.clip(season.from, season.to, bucket_seconds).as_ref() != Some(s))
    };
    if !cut(within.first()) && !cut(within.last()) {
        return Cow::Borrowed(within);
    }
    Cow::Owned(
        within
            .iter()
            .filter_map(|s| s.clip(season.from, season.to, bucket_seconds))
            .collect(),
    )
}

/// Whether any second of UTC day `day` lies in the season.
pub(crate) fn day_in_season(day: i64, season: &Season) -> bool {
    days_in_season(day, day, season)
}

/// Whether any second of the UTC days `first..=last` lies in the season.
pub fn days_in_season(first: i64, last: i64, season: &Season) -> bool {
    let start: Epoch = first * schema::SECONDS_PER_DAY;
    let end = (last + 1) * schema::SECONDS_PER_DAY;
    season.from.is_none_or(|f| end > f) && season.to.is_none_or(|t| start < t)
}

/// Scores a season: every candidate pair in both directions, flags at the
/// threshold, cliques of flagged pairs. Improved mode also needs the moves
/// by second: see [`scan_with_times`].
pub fn scan(
    segments: &Segments,
    season: &Season,
    params: &ScanParams,
) -> Result<ScanResult, ScanError> {
    scan_with_times(segments, None, season, params)
}

/// [`scan`] with the moves' seconds and addresses beside the segments
/// (required in improved mode, unused in reference mode); improved mode
/// scores with the shipped model ([`improved::Model::shipped`]).
pub fn scan_with_times(
    segments: &Segments,
    times: Option<&improved::MoveTimes>,
    season: &Season,
    params: &ScanParams,
) -> Result<ScanResult, ScanError> {
    scan_with_model(segments, times, season, params, improved::Model::shipped())
}

/// [`scan_with_times`], improved mode scoring with `model`.
pub fn scan_with_model(
    segments: &Segments,
    times: Option<&improved::MoveTimes>,
    season: &Season,
    params: &ScanParams,
    model: &improved::Model,
) -> Result<ScanResult, ScanError> {
    if segments.bucket_seconds != params.bucket_seconds {
        return Err(ScanError::BucketSize {
            segments: segments.bucket_seconds,
            wanted: params.bucket_seconds,
        });
    }
    let members = participants(segments, season).map_err(ScanError::Season)?;
    let (pairs, crowded) = candidate_pairs(segments, &members, season, params.crowd_limit);
    let mut timing = 0;
    let scores: Vec<PairScore> = match params.mode {
        Mode::Reference => reference_scores(segments, season, &pairs),
        Mode::Improved => {
            let times = times.ok_or(ScanError::NoMoveTimes)?;
            let hidden = match model.timing() {
                Some(_) => improved::timing_pairs(segments, season, times, &members, &pairs),
                None => Vec::new(),
            };
            timing = hidden.len();
            let scored: Vec<(AccountId, AccountId)> = pairs
                .iter()
                .copied()
                .chain(hidden.iter().map(|&(h, x, _)| (h, x)))
                .collect();
            let cx = improved::Context::for_pairs(segments, season, times, &scored);
            // Collected at the exact size and flattened in place, as
            // reference mode collects its directed pairs.
            let both: Vec<[PairScore; 2]> = pairs
                .par_iter()
                .map(|&(x, y)| improved::score_both(&cx, model, x, y))
                .chain(hidden.par_iter().map(|&(h, x, t)| {
                    let tm = model
                        .timing()
                        .expect("timing pairs only with a timing model");
                    improved::score_timing(&cx, tm, h, x, t)
                }))
                .collect();
            both.into_flattened()
        }
    };
    Ok(scan_result(
        *params,
        members.len(),
        pairs.len() + timing,
        scores,
        crowded,
    ))
}

/// Both directions of every candidate pair, the reference way, on bit rows
/// ([`bits`]) built once per account: `(x, y)` then `(y, x)`, both from
/// one pass over the words their rows share ([`score_directed_both`]).
pub(crate) fn reference_scores(
    segments: &Segments,
    season: &Season,
    pairs: &[(schema::AccountId, schema::AccountId)],
) -> Vec<PairScore> {
    let rows = season_rows(segments, season, Some(pairs));
    both_directions(segments, season, &rows, pairs)
}

/// The reference [`PairScore`]s of `(x, y)` then `(y, x)` for every pair,
/// on `rows`.
pub(crate) fn both_directions(
    segments: &Segments,
    season: &Season,
    rows: &[Option<bits::Rows>],
    pairs: &[(schema::AccountId, schema::AccountId)],
) -> Vec<PairScore> {
    // Collected at the exact size and flattened in place (a flat map
    // would gather pieces and copy them once more).
    let both: Vec<[PairScore; 2]> = pairs
        .par_iter()
        .map(|&(x, y)| {
            let (xy, yx) = score_directed_both(segments, season, rows, x, y);
            [
                pair_score(segments, x, y, xy),
                pair_score(segments, y, x, yx),
            ]
        })
        .collect();
    both.into_flattened()
}

/// The [`PairScore`] of the directed pair `(a, b)` from its outcome.
fn pair_score(
    segments: &Segments,
    a: schema::AccountId,
    b: schema::AccountId,
    out: PairOutcome,
) -> PairScore {
    PairScore {
        account_a: segments.accounts.name(a).to_owned(),
        account_b: segments.accounts.name(b).to_owned(),
        similarity: out.similarity(),
        sum: out.sum,
        weight: out.weight,
        evidence: out.evidence,
    }
}

/// The reference score of the directed pair `(a, b)`: on their bit rows,
/// or walked when either has none.
pub(crate) fn score_directed(
    segments: &Segments,
    season: &Season,
    rows: &[Option<bits::Rows>],
    a: schema::AccountId,
    b: schema::AccountId,
) -> PairOutcome {
    match (&rows[a as usize], &rows[b as usize]) {
        (Some(ra), Some(rb)) => bits::score_rows(ra, rb, segments.bucket_seconds),
        _ => {
            let bs = segments.bucket_seconds;
            score_pair(
                &in_season(&segments.by_account[a as usize], season, bs),
                &in_season(&segments.by_account[b as usize], season, bs),
                bs,
            )
        }
    }
}

/// The reference scores of `(a, b)` and `(b, a)`, equal to
/// [`score_directed`] of each: in one pass on their bit rows
/// ([`bits::score_rows_both`]), or walked when either has none.
pub(crate) fn score_directed_both(
    segments: &Segments,
    season: &Season,
    rows: &[Option<bits::Rows>],
    a: schema::AccountId,
    b: schema::AccountId,
) -> (PairOutcome, PairOutcome) {
    match (&rows[a as usize], &rows[b as usize]) {
        (Some(ra), Some(rb)) => bits::score_rows_both(ra, rb, segments.bucket_seconds),
        _ => (
            score_directed(segments, season, rows, a, b),
            score_directed(segments, season, rows, b, a),
        ),
    }
}

/// The bit rows of every account in a candidate pair (of every account without
/// `pairs`), by account id; `None` for the others, and for segments off the
/// bucket grid, which the walk scores.
pub(crate) fn season_rows(
    segments: &Segments,
    season: &Season,
    pairs: Option<&[(schema::AccountId, schema::AccountId)]>,
) -> Vec<Option<bits::Rows>> {
    let mut wanted = vec![pairs.is_none(); segments.by_account.len()];
    for &(x, y) in pairs.unwrap_or_default() {
        wanted[x as usize] = true;
        wanted[y as usize] = true;
    }
    segments
        .by_account
        .par_iter()
        .zip(wanted)
        .map(|(segs, wanted)| {
            let bs = segments.bucket_seconds;
            wanted.then(|| bits::Rows::new(&in_season(segs, season, bs), bs))?
        })
        .collect()
}

/// Account `u`'s records in `records`, sorted by account (a season's
/// sightings or game days): two searches, for the few accounts a rescan
/// reads, where [`account_starts`] searches for every account.
pub(crate) fn account_range<T>(
    records: &[T],
    u: AccountId,
    account: impl Fn(&T) -> AccountId,
) -> std::ops::Range<usize> {
    let start = records.partition_point(|r| account(r) < u);
    start..start + records[start..].partition_point(|r| account(r) <= u)
}

/// Where each account's records begin in `records`, sorted by account (a
/// season's sightings or game days), for accounts `0..accounts`, and where
/// the last one's end: account `u`'s are `records[starts[u]..starts[u + 1]]`.
pub(crate) fn account_starts<T>(
    records: &[T],
    accounts: usize,
    account: impl Fn(&T) -> AccountId,
) -> Vec<u32> {
    (0..=accounts)
        .map(|u| records.partition_point(|r| (account(r) as usize) < u) as u32)
        .collect()
}

/// A scan's result from its scored directed pairs: the pairs in the report
/// order ([`schema::order::sort_pairs`]) and the cliques of those flagged at the
/// threshold.
pub fn scan_result(
    params: ScanParams,
    participants: usize,
    candidate_pairs: usize,
    mut pairs: Vec<PairScore>,
    crowded: Vec<CrowdedAddress>,
) -> ScanResult {
    schema::order::sort_pairs(&mut pairs);
    let cliques = cliques(&pairs, params.threshold);
    ScanResult {
        params,
        participants,
        candidate_pairs,
        pairs,
        cliques,
        crowded,
    }
}

impl std::error::Error for ScanError {}
