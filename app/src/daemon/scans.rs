//! Where a tick's scan of a season comes from: the latest stored scan when
//! it is current, else a new one, made in this process (a rescan when the
//! last scan allows) or on the configured cluster (`[cluster]`).

use super::config::Config;
use super::similarities::HeldSimilarities;
use crate::pipeline::{self, rethreshold, HeldSegments};
use anyhow::Result;
use schema::{Mode, ScanParams, Season, Segments};
use store::{RescanBase, Store, StoredScan};

/// What the daemon holds of a season's latest scan from one tick to the
/// next.
#[derive(Default)]
pub(super) struct HeldScan {
    /// Every pair's similarity, for the chart.
    pub similarities: Option<HeldSimilarities>,
    /// After a rescan, what a rescan of it starts from: the next tick does
    /// not read it from the store while the scan is still the latest.
    pub base: Option<RescanBase>,
}

/// A new scan: the scan, how many directed pairs were scored, and for a
/// rescan every pair's similarity (a rescan's result holds the flagged
/// pairs only).
type NewScan = (StoredScan, usize, Option<Vec<f64>>);

/// The season's latest scan if it is current (`fresh` false), else a new
/// scan (`fresh` true), older scans beyond `keep_scans` pruned; and for a
/// rescan, every pair's similarity for the chart (a rescan's result holds
/// the flagged pairs only), from the similarities `held` since the last
/// tick.
pub(super) async fn current_scan(
    config: &Config,
    store: &Store,
    season: &Season,
    latest: Option<StoredScan>,
    params: &ScanParams,
    generation: i64,
    (segments, held): (&mut TickSegments, &mut HeldScan),
) -> Result<(StoredScan, bool, Option<Vec<f64>>)> {
    let number = season.number;
    let similarities = &mut held.similarities;
    let current = latest.filter(|l| {
        pipeline::scan_is_current(l, season, params, config.model.as_deref(), generation)
    });
    let reusable = match current {
        Some(mut l) => match HeldSimilarities::values_held(similarities, l.id) {
            // Every pair's similarity is held since the last tick: the
            // flagged pairs, both ways, are all the report needs of the
            // scan, as after a rescan; every pair is not read again.
            Some(values) => {
                store.complete_directions(&mut l).await?;
                l.season = season.clone();
                rethreshold(&mut l.result, params.threshold);
                return Ok((l, false, Some(values)));
            }
            None => store.latest_scan(number).await?,
        },
        None => None,
    };
    if let Some(mut l) = reusable {
        // Every pair of it is at hand: the next rescan's chart starts here.
        HeldSimilarities::hold(similarities, l.id, &l.result.pairs);
        if params.mode == Mode::Reference && held.base.as_ref().map(|b| b.scan.id) != Some(l.id) {
            hold_base(store, season, params, l.id, (segments, held)).await?;
        }
        l.season = season.clone();
        rethreshold(&mut l.result, params.threshold);
        return Ok((l, false, None));
    }
    let started = std::time::Instant::now();
    let (scan, scored, similarities) = match &config.cluster {
        Some(target) => on_cluster(store, season, params, target).await?,
        None => {
            let held = (segments, held);
            in_process(config, store, season, params, generation, held).await?
        }
    };
    let labels = [
        ("site", store.site().to_owned()),
        ("season", number.to_string()),
    ];
    metrics::histogram!("detect_scan_duration_seconds", &labels)
        .record(started.elapsed().as_secs_f64());
    metrics::counter!("detect_pairs_scored_total", &labels).increment(scored as u64);
    let started = std::time::Instant::now();
    let pruned = store.prune_scans(number, config.keep_scans).await?;
    tracing::debug!(
        pruned,
        ms = started.elapsed().as_millis() as u64,
        "season {number}: older scans pruned"
    );
    Ok((scan, true, similarities))
}

/// Reads, while the daemon waits for moves, what the next rescan of scan
/// `id` (the season's latest, current) starts from, its flagged pairs both
/// ways. When the segments held give that scan's very digests, the scan is
/// recorded as made from them: the next rescan then takes again the
/// digests of the accounts read again since, not of every account.
async fn hold_base(
    store: &Store,
    season: &Season,
    params: &ScanParams,
    id: i64,
    (segments, held): (&mut TickSegments, &mut HeldScan),
) -> Result<()> {
    let (bucket_seconds, t) = (params.bucket_seconds, params.threshold);
    let base = store.rescan_base(season.number, bucket_seconds, params.mode, t);
    held.base = base.await?.filter(|b| b.scan.id == id);
    let Some(base) = &mut held.base else {
        return Ok(());
    };
    // Both directions of each flagged pair, as a rescan leaves its base:
    // the next rescan copies the pairs it keeps instead of scoring them.
    store.complete_directions(&mut base.scan).await?;
    let segs = loaded(store, params, segments).await?;
    let same =
        tokio::task::block_in_place(|| scoring::rescan::digests(segs, season) == base.digests);
    tracing::debug!(
        scan = id,
        same,
        "the latest scan's digests compared with the segments held"
    );
    if same {
        segments.held.scanned(id);
    }
    Ok(())
}

/// A new scan in this process (a rescan when the last one allows).
async fn in_process(
    config: &Config,
    store: &Store,
    season: &Season,
    params: &ScanParams,
    generation: i64,
    (segments, held_scan): (&mut TickSegments, &mut HeldScan),
) -> Result<NewScan> {
    loaded(store, params, segments).await?;
    let held = &mut held_scan.similarities;
    let (segs, changes) = segments.held.with_changes().expect("brought up to date");
    let model = config.model.as_deref();
    // Every pair of the latest scan, held for the chart: a rescan of it
    // counts the candidate pairs it replaces there.
    let naming = |names: &[String]| held.as_ref().map_or(0, |h| h.pairs_naming(names));
    let pairs = held
        .as_ref()
        .map(|h| (h.scan(), &naming as scoring::rescan::PairsNaming));
    let held_now = pipeline::Held {
        changes,
        pairs,
        base: held_scan.base.as_ref(),
    };
    let scanned = pipeline::scan_segments(
        store,
        season,
        params,
        model,
        segs,
        Some(held_now),
        generation,
    )
    .await?;
    // The held copy is what this scan was made from: the next rescan of it
    // takes again only the digests of the accounts read again meanwhile.
    segments.held.scanned(scanned.scan.id);
    held_scan.base = scanned.next_base;
    let scored = scanned
        .rescan
        .map_or(2 * scanned.scan.result.candidate_pairs, |r| r.pairs);
    let started = std::time::Instant::now();
    let id = scanned.scan.id;
    let similarities = match scanned.rescan {
        Some(_) => Some(HeldSimilarities::of_scan(held, store, id).await?),
        None => {
            HeldSimilarities::hold(held, id, &scanned.scan.result.pairs);
            None
        }
    };
    tracing::debug!(
        ms = started.elapsed().as_millis() as u64,
        "every pair's similarity read, for the chart"
    );
    Ok((scanned.scan, scored, similarities))
}

/// A new scan of the whole season on the configured cluster, its export
/// and results in a folder of their own under the work folder, deleted
/// once the scan is stored.
#[cfg(feature = "cluster")]
async fn on_cluster(
    store: &Store,
    season: &Season,
    params: &ScanParams,
    target: &super::config::ClusterTarget,
) -> Result<NewScan> {
    use anyhow::Context as _;
    std::fs::create_dir_all(&target.work_dir)
        .with_context(|| format!("cannot create {}", target.work_dir.display()))?;
    let folder = tempfile::Builder::new()
        .prefix(&format!("season-{}-", season.number))
        .tempdir_in(&target.work_dir)
        .with_context(|| format!("cannot write in {}", target.work_dir.display()))?;
    let (season_dir, scan_dir) = (folder.path().join("season"), folder.path().join("scan"));
    let on = crate::cluster::Target {
        url: &target.url,
        partitions: target.partitions,
        season_dir: &season_dir,
        scan_dir: &scan_dir,
    };
    let (id, result) = crate::cluster::scan_into_store(store, season, params, &on).await?;
    let mut scan = store
        .latest_scan(season.number)
        .await?
        .filter(|s| s.id == id)
        .context("the cluster scan just stored is not the season's latest")?;
    scan.season = season.clone();
    Ok((scan, 2 * result.candidate_pairs, None))
}

/// Without the cluster feature `[cluster]` is refused when the
/// configuration loads.
#[cfg(not(feature = "cluster"))]
async fn on_cluster(
    _: &Store,
    _: &Season,
    _: &ScanParams,
    _: &super::config::ClusterTarget,
) -> Result<NewScan> {
    anyhow::bail!("[cluster] needs a detect built with the cluster feature")
}

/// The store's segments for one tick: the copy held from the last tick,
/// brought up to date once, on first use.
pub(super) struct TickSegments {
    pub held: HeldSegments,
    fresh: bool,
}

impl TickSegments {
    pub fn new(held: HeldSegments) -> Self {
        TickSegments { held, fresh: false }
    }
}

/// The store's segments, brought up to date on first use in a tick.
pub(super) async fn loaded<'s>(
    store: &Store,
    params: &ScanParams,
    segments: &'s mut TickSegments,
) -> Result<&'s Segments> {
    if !segments.fresh {
        segments.held.current(store, params.bucket_seconds).await?;
        segments.fresh = true;
    }
    Ok(segments.held.get().expect("brought up to date"))
}
