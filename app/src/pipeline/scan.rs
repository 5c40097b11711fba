//! Scans: a season scored from the store's segments and stored. In
//! reference mode a scan is a rescan of the season's latest scan when that
//! one allows it: only the pairs naming an account whose season changed are
//! scored again and stored, as a change to it (`scoring::rescan`).

use super::{move_times, segments, Held};
use anyhow::Result;
use schema::rescan::{Delta, Lineage};
use schema::{Mode, ScanParams, ScanResult, Season, Segments};
use scoring::improved::Model;
use scoring::rescan::PreviousCandidates;
use store::{RescanBase, Store, StoredScan};

/// How many scans a chain of changes may hold before a scan stores every
/// pair again: reading a scan goes through its chain.
const MAX_CHAIN: usize = 32;

/// A scan just stored.
#[derive(Debug, Clone)]
pub struct Scanned {
    /// After a rescan, `scan.result.pairs` holds both directions of every
    /// pair flagged either way, not every pair: the store holds those.
    pub scan: StoredScan,
    /// `None` when the scan scored every pair.
    pub rescan: Option<Rescanned>,
    /// After a rescan, what a rescan of this scan starts from, as
    /// [`Store::rescan_base`] would read it: a caller that holds it until
    /// the next scan spares that read ([`Held::base`]).
    pub next_base: Option<RescanBase>,
}

/// What a rescan scored again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rescanned {
    /// The scan it is stored as a change to.
    pub base: i64,
    /// Accounts whose pairs it scored again.
    pub replaced_accounts: usize,
    /// Directed pairs it scored again.
    pub pairs: usize,
    /// No account's season changed: nothing was stored, and the scan is
    /// the base itself.
    pub nothing_new: bool,
}

/// Scores a season from the store and stores the scan, as a rescan when
/// the latest one allows it ([`scan_segments`]). Improved mode scores with
/// `model`, or the shipped one when `None`.
pub async fn scan(
    store: &Store,
    season: &Season,
    params: &ScanParams,
    model: Option<&Model>,
) -> Result<Scanned> {
    let generation = store.moves_generation().await?;
    let started = std::time::Instant::now();
    let segments = segments(store, params.bucket_seconds, None).await?;
    tracing::debug!(ms = started.elapsed().as_millis() as u64, "segments ready");
    scan_segments(store, season, params, model, &segments, None, generation).await
}

/// Scores a season from the store, every pair, and stores the scan whole.
pub async fn scan_whole(
    store: &Store,
    season: &Season,
    params: &ScanParams,
    model: Option<&Model>,
) -> Result<StoredScan> {
    let generation = store.moves_generation().await?;
    let segments = segments(store, params.bucket_seconds, None).await?;
    whole(store, season, params, model, &segments, generation).await
}

/// Scores a season from segments at hand (cut from the moves of
/// `generation`) and stores the scan in one transaction: a rescan of the
/// season's latest scan with the same bucket size, mode, crowd limit and
/// season definition, in reference mode, while its chain is short; else
/// every pair. `held`: when the segments are a daemon's held copy, which
/// of their accounts changed since the scans made from it (a rescan of one
/// of those takes again the digests of these accounts only), and the pairs
/// of a scan held (a rescan of it finds its candidates among the (IP,
/// day)s its change touched).
pub async fn scan_segments(
    store: &Store,
    season: &Season,
    params: &ScanParams,
    model: Option<&Model>,
    segments: &Segments,
    held: Option<Held<'_>>,
    generation: i64,
) -> Result<Scanned> {
    if params.mode == Mode::Reference {
        let base = rescan_base(store, season, params, held.and_then(|h| h.base)).await?;
        if let Some(base) = base.filter(|b| rescannable(b, season, params)) {
            let changed = held.and_then(|h| h.changes.since(base.scan.id, segments));
            let candidates = held
                .and_then(|h| h.pairs)
                .filter(|&(scan, _)| scan == base.scan.id)
                .map(|(_, naming)| PreviousCandidates {
                    count: base.scan.result.candidate_pairs,
                    naming,
                });
            let held = (segments, changed.as_deref(), candidates);
            let (scan, figures, next_base) =
                rescan(store, season, params, held, generation, base).await?;
            return Ok(Scanned {
                scan,
                rescan: Some(figures),
                next_base: Some(next_base),
            });
        }
    }
    Ok(Scanned {
        scan: whole(store, season, params, model, segments, generation).await?,
        rescan: None,
        next_base: None,
    })
}

/// The base of a rescan of the season's latest scan with this bucket size
/// and mode: `held` when it is that scan's at this threshold (its flagged
/// pairs were found at the same one), else read from the store.
async fn rescan_base(
    store: &Store,
    season: &Season,
    params: &ScanParams,
    held: Option<&RescanBase>,
) -> Result<Option<RescanBase>> {
    let (bucket_seconds, mode) = (params.bucket_seconds, params.mode);
    if let Some(held) = held.filter(|b| b.scan.result.params.threshold == params.threshold) {
        let latest = store
            .latest_scan_id(season.number, bucket_seconds, mode)
            .await?;
        if latest == Some(held.scan.id) {
            tracing::debug!(
                scan = held.scan.id,
                "a rescan of the scan held, from its base held"
            );
            return Ok(Some(held.clone()));
        }
    }
    let started = std::time::Instant::now();
    let base = store
        .rescan_base(season.number, bucket_seconds, mode, params.threshold)
        .await?;
    tracing::debug!(
        ms = started.elapsed().as_millis() as u64,
        "the latest scan read as a rescan's base"
    );
    Ok(base)
}

/// Whether a scan can be the base of a rescan: the same season definition
/// and crowd limit, and a chain neither too long nor half as large as the
/// whole scan at its root.
fn rescannable(base: &RescanBase, season: &Season, params: &ScanParams) -> bool {
    let s = &base.scan;
    s.season.from == season.from
        && s.season.to == season.to
        && s.season.games == season.games
        && s.result.params.crowd_limit == params.crowd_limit
        && base.depth < MAX_CHAIN
        && base.changed_pairs * 2 <= base.root_pairs
}

async fn whole(
    store: &Store,
    season: &Season,
    params: &ScanParams,
    model: Option<&Model>,
    segments: &Segments,
    generation: i64,
) -> Result<StoredScan> {
    let started = std::time::Instant::now();
    let bar = crate::progress::step(format!("scoring season {}", season.number));
    let times = match params.mode {
        Mode::Improved => {
            let times = move_times(store, segments, generation).await?;
            tracing::debug!(
                ms = started.elapsed().as_millis() as u64,
                "move times ready"
            );
            Some(times)
        }
        Mode::Reference => None,
    };
    // Scoring is CPU-bound (rayon): the runtime's other tasks, signals among
    // them, keep running meanwhile.
    let (result, lineage) = tokio::task::block_in_place(|| {
        let result = scoring::scan_with_model(
            segments,
            times.as_ref(),
            season,
            params,
            model.unwrap_or(Model::shipped()),
        )?;
        // Improved mode's signals read beyond two accounts: no rescans.
        let lineage = (params.mode == Mode::Reference).then(|| Lineage {
            digests: scoring::rescan::digests(segments, season),
            delta: None,
        });
        anyhow::Ok((result, lineage))
    })?;
    let scored = started.elapsed();
    bar.set_message(format!("storing the scan of season {}", season.number));
    let recorded = recorded_model(params, model);
    let model_version = match recorded {
        Some(_) => Some(crate::model::scan_version(store, model).await?),
        None => None,
    };
    let created_at = chrono::Utc::now().timestamp();
    let scan_model = recorded
        .as_deref()
        .zip(model_version)
        .map(|(file, version)| store::ScanModel { file, version });
    let id = store
        .save_scan(
            season,
            &result,
            generation,
            created_at,
            lineage.as_ref(),
            scan_model,
        )
        .await?;
    tracing::info!(
        season = season.number,
        scan = id,
        pairs = result.pairs.len(),
        flagged = result.flagged().count(),
        score_ms = scored.as_millis() as u64,
        save_ms = (started.elapsed() - scored).as_millis() as u64,
        "scan stored"
    );
    bar.finish();
    Ok(StoredScan {
        id,
        season: season.clone(),
        generation,
        created_at,
        model: recorded,
        model_version,
        result,
    })
}

/// A rescan of `base`: `changed`, by account id of `segments`, the accounts
/// that may have changed since it was made (`None`: any); `candidates`,
/// what the caller holds of its candidate pairs. With the scan, what a
/// rescan of it starts from.
async fn rescan(
    store: &Store,
    season: &Season,
    params: &ScanParams,
    (segments, changed, candidates): (&Segments, Option<&[bool]>, Option<PreviousCandidates<'_>>),
    generation: i64,
    base: RescanBase,
) -> Result<(StoredScan, Rescanned, RescanBase)> {
    let started = std::time::Instant::now();
    let bar = crate::progress::step(format!("scoring season {} again", season.number));
    if let Some(changed) = changed {
        tracing::debug!(
            accounts = changed.iter().filter(|&&c| c).count(),
            "digests taken again of the accounts changed since the base scan"
        );
    }
    if candidates.is_some() {
        tracing::debug!("candidates found where the change touched, the base scan's pairs held");
    }
    let previous = scoring::rescan::Previous {
        digests: &base.digests,
        crowded: &base.scan.result.crowded,
        changed,
        candidates,
    };
    let (again, view) = tokio::task::block_in_place(|| {
        let again = scoring::rescan::rescan(segments, season, params, &previous)?;
        // The base's pairs hold every one flagged at this threshold (read at
        // or above it, or held: both directions of those flagged either way).
        let view =
            scoring::rescan::flagged_result(segments, season, &again, &base.scan.result.pairs);
        anyhow::Ok((again, view))
    })?;
    let scored = started.elapsed();
    let replaced = again.replaced.len();
    if replaced == 0 && base.scan.result.params.threshold == params.threshold {
        // An empty change at the same threshold would only lengthen the
        // chain: the base holds.
        bar.finish();
        tracing::info!(
            season = season.number,
            scan = base.scan.id,
            "nothing new since the latest scan: none stored"
        );
        let figures = Rescanned {
            base: base.scan.id,
            replaced_accounts: 0,
            pairs: 0,
            nothing_new: true,
        };
        let scan = StoredScan {
            result: view,
            season: season.clone(),
            ..base.scan.clone()
        };
        return Ok((scan, figures, base));
    }
    let lineage = Lineage {
        digests: again.digests,
        delta: Some(Delta {
            base: base.scan.id,
            replaced: again.replaced,
        }),
    };
    let stored = ScanResult {
        cliques: view.cliques.clone(),
        ..again.result
    };
    let created_at = chrono::Utc::now().timestamp();
    let id = store
        .save_scan(
            season,
            &stored,
            generation,
            created_at,
            Some(&lineage),
            None,
        )
        .await?;
    tracing::info!(
        season = season.number,
        scan = id,
        base = base.scan.id,
        replaced_accounts = replaced,
        pairs_scored = stored.pairs.len(),
        flagged = view.flagged().count(),
        score_ms = scored.as_millis() as u64,
        save_ms = (started.elapsed() - scored).as_millis() as u64,
        "rescan stored"
    );
    bar.finish();
    let figures = Rescanned {
        base: base.scan.id,
        replaced_accounts: replaced,
        pairs: stored.pairs.len(),
        nothing_new: false,
    };
    let scan = StoredScan {
        id,
        season: season.clone(),
        generation,
        created_at,
        model: None,
        model_version: None,
        result: view,
    };
    // The chain of the new scan is the base's and itself.
    let next_base = RescanBase {
        scan: scan.clone(),
        digests: lineage.digests,
        depth: base.depth + 1,
        changed_pairs: base.changed_pairs + stored.pairs.len() as u64,
        root_pairs: base.root_pairs,
    };
    Ok((scan, figures, next_base))
}

/// The latest scan of a season if it is current (same moves, same season
/// definition, same bucket size and mode), else a new scan; every pair
/// either way. `threshold` is the one the caller asked for: applied afresh
/// (every pair is stored); without one the scan keeps the threshold it was
/// made at, so every surface shows one flag list per scan.
pub async fn current_scan(
    store: &Store,
    season: &Season,
    params: &ScanParams,
    model: Option<&Model>,
    threshold: Option<f64>,
) -> Result<StoredScan> {
    let generation = store.moves_generation().await?;
    if let Some(mut latest) = store
        .latest_scan_like(season.number, params.bucket_seconds, params.mode)
        .await?
    {
        if scan_is_current(&latest, season, params, model, generation) {
            latest.season = season.clone();
            if let Some(t) = threshold {
                rethreshold(&mut latest.result, t);
            }
            return Ok(latest);
        }
    }
    let scanned = scan(store, season, params, model).await?;
    if scanned.rescan.is_none() {
        return Ok(scanned.scan);
    }
    let mut latest = store
        .latest_scan_like(season.number, params.bucket_seconds, params.mode)
        .await?
        .expect("just stored");
    latest.season = season.clone();
    rethreshold(&mut latest.result, threshold.unwrap_or(params.threshold));
    Ok(latest)
}

/// Whether a stored scan still holds for the season: same moves, same season
/// definition, same bucket size and mode, in improved mode the same model
/// (the threshold is applied afresh).
pub fn scan_is_current(
    scan: &StoredScan,
    season: &Season,
    params: &ScanParams,
    model: Option<&Model>,
    generation: i64,
) -> bool {
    let p = &scan.result.params;
    scan.generation == generation
        && scan.season.from == season.from
        && scan.season.to == season.to
        && scan.season.games == season.games
        && p.bucket_seconds == params.bucket_seconds
        && p.mode == params.mode
        && p.crowd_limit == params.crowd_limit
        && scan.model == recorded_model(params, model)
}

/// What a scan with these parameters records as its model: improved mode's
/// model file (the shipped one unless another is given); none in reference
/// mode.
pub fn recorded_model(params: &ScanParams, model: Option<&Model>) -> Option<String> {
    (params.mode == Mode::Improved).then(|| model.unwrap_or(Model::shipped()).to_json())
}

/// Applies another threshold to a scan's pairs: the flags and cliques follow.
pub fn rethreshold(result: &mut ScanResult, threshold: f64) {
    result.params.threshold = threshold;
    result.cliques = scoring::cliques(&result.pairs, threshold);
}
