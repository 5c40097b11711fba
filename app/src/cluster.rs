//! The application's side of a scan on Apache DataFusion Ballista (feature
//! `cluster`): a season's Parquet layout written from the store or straight
//! from logs, the scan run on a cluster and stored as a scan, a results
//! folder imported. The plan, the scoring function and the nodes live in
//! the `cluster` crate.

use crate::pipeline;
use anyhow::{bail, Context, Result};
use cluster::layout::Meta;
use schema::{ScanParams, ScanResult, Season};
use std::path::{Path, PathBuf};
use store::Store;

/// What `detect export --input` reads and writes.
#[derive(Debug)]
pub struct LogExport<'a> {
    pub input: &'a [String],
    /// The season's number in `meta.json` (0: the logs' games, no season).
    pub season: u32,
    pub bucket_seconds: i64,
    pub reference_order: bool,
    pub limits: &'a ingest::Limits,
    /// The season's games [default: `^4pLeague_`].
    pub games: Option<String>,
    pub partitions: u32,
    /// An absent or empty folder.
    pub out: &'a Path,
}

/// The logs read as `report --input` reads them, each account's settled
/// segments spilled to its part's file as the reading goes, then the parts
/// written one by one.
pub fn export_logs(request: &LogExport<'_>) -> Result<Meta> {
    let games = request
        .games
        .clone()
        .unwrap_or_else(|| "^4pLeague_".to_owned());
    let season = Season::new(request.season, None, None, Some(games))?;
    let partitions = request.partitions;
    staged(request.out, |dir| {
        let mut spill = cluster::spill::Spill::create(&dir.join(".spill"), partitions)?;
        let segments = pipeline::segments_settling_from_files(
            request.input,
            request.bucket_seconds,
            request.reference_order,
            request.limits,
            &mut |handed| match handed {
                pipeline::Handover::Settled { accounts, settled } => spill.push(accounts, settled),
                pipeline::Handover::Restart => spill.restart(),
            },
        )?;
        let step = crate::progress::step(format!("writing {}", request.out.display()));
        let meta = cluster::export::write_season_from(
            &segments,
            &mut |part| spill.take_part(part),
            &season,
            partitions,
            0,
            dir,
        )?;
        spill.remove()?;
        step.finish();
        if meta.participants == 0 {
            bail!(
                "no account moved in a game matching {:?}: nothing to export",
                season.games
            );
        }
        Ok(meta)
    })
}

/// Writes the stored `season` into `out` (absent or empty).
pub async fn export_season(
    store: &Store,
    season: &Season,
    bucket_seconds: i64,
    partitions: u32,
    out: &Path,
) -> Result<Meta> {
    let generation = store.moves_generation().await?;
    let segments = pipeline::segments(store, bucket_seconds, None).await?;
    let step = crate::progress::step(format!(
        "writing season {} to {}",
        season.number,
        out.display()
    ));
    let meta = tokio::task::block_in_place(|| {
        staged(out, |dir| {
            cluster::export::write_season(&segments, season, partitions, generation, dir)
        })
    })?;
    step.finish();
    Ok(meta)
}

/// Writes a season folder at `out` (absent or empty) through `write`, into
/// a folder beside it renamed into place at the end: a failed export
/// leaves no half-written folder behind.
fn staged(out: &Path, write: impl FnOnce(&Path) -> Result<Meta>) -> Result<Meta> {
    let empty = |d: &Path| std::fs::read_dir(d).map(|mut e| e.next().is_none());
    if out.exists() && !empty(out).unwrap_or(false) {
        bail!(
            "{} is not an empty folder (it may hold a season already); choose an empty or new one",
            out.display()
        );
    }
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent)
        .with_context(|| format!("cannot create {}", parent.display()))?;
    let staging = tempfile::Builder::new()
        .prefix(".detect-export-")
        .tempdir_in(&parent)
        .with_context(|| format!("cannot create a folder in {}", parent.display()))?;
    let meta = write(staging.path())?;
    if out.exists() {
        std::fs::remove_dir(out).with_context(|| format!("cannot replace {}", out.display()))?;
    }
    std::fs::rename(staging.path(), out)
        .with_context(|| format!("cannot rename the export to {}", out.display()))?;
    // Renamed: nothing left for the guard to delete.
    let _ = staging.keep();
    Ok(meta)
}

/// Stores a cluster scan's result as a scan of `season`, made from the
/// moves of `generation`; returns its id.
pub async fn store_scan(
    store: &Store,
    season: &Season,
    result: &ScanResult,
    generation: i64,
) -> Result<i64> {
    let created_at = chrono::Utc::now().timestamp();
    Ok(store
        .save_scan(season, result, generation, created_at, None, None)
        .await?)
}

/// `detect scan --cluster`: season `number` of the store `db`, exported
/// into the work folder, scanned on the cluster at `url` ("local": in this
/// process), its results written there and stored as a scan. Returns the
/// season, the scan's id and its result.
pub async fn scan_season(
    db: &pipeline::Db,
    number: u32,
    params: &ScanParams,
    partitions: u32,
    work: Option<&Path>,
    url: &str,
) -> Result<(Season, i64, ScanResult)> {
    let work = work.context("--cluster needs --work-dir DIR, a folder every executor can read")?;
    let store = pipeline::open_store(db).await?;
    let season = pipeline::resolve_season(&store, number).await?;
    let season_dir = work.join(format!("season-{}", season.number));
    let scan_dir = work.join(format!("scan-{}", season.number));
    if season_dir.exists() || scan_dir.exists() {
        bail!(
            "{} already holds a cluster scan of season {}; choose another --work-dir",
            work.display(),
            season.number
        );
    }
    let target = Target {
        url,
        partitions,
        season_dir: &season_dir,
        scan_dir: &scan_dir,
    };
    let scanned = scan_into_store(&store, &season, params, &target).await;
    store.close().await;
    let (id, result) = scanned?;
    Ok((season, id, result))
}

/// Where a stored season is scanned: the cluster and the folders of its
/// export and its results, both readable by every executor at these paths.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    /// The scheduler's host:port, or "local": DataFusion in this process.
    pub url: &'a str,
    pub partitions: u32,
    /// Absent folders: the season's export and the scan's results.
    pub season_dir: &'a Path,
    pub scan_dir: &'a Path,
}

/// The one path of a stored season's cluster scan (`detect scan --cluster`
/// and the daemon's `[cluster]`): the season exported from `store`, scanned
/// on the target's cluster and stored as an ordinary scan, made from the
/// moves the export read. Returns the scan's id and its result.
pub async fn scan_into_store(
    store: &Store,
    season: &Season,
    params: &ScanParams,
    target: &Target<'_>,
) -> Result<(i64, ScanResult)> {
    if params.mode != schema::Mode::Reference {
        bail!(
            "a cluster scan scores in reference mode only (asked: {:?}); scan without --cluster",
            params.mode
        );
    }
    let bucket = params.bucket_seconds;
    let meta = export_season(store, season, bucket, target.partitions, target.season_dir).await?;
    let ctx = cluster::nodes::context(target.url, target.partitions as usize).await?;
    let step = crate::progress::step(format!(
        "scanning season {} on {}",
        season.number, target.url
    ));
    let result = cluster::scan::run(&ctx, target.season_dir, params, target.scan_dir).await?;
    step.finish();
    let id = store_scan(store, season, &result, meta.generation).await?;
    Ok((id, result))
}

/// What `detect report --input ... --cluster URL` scans: one season folder
/// (as `detect export` writes it), or logs exported first into the work
/// folder, as `export --input` exports them.
#[derive(Debug)]
pub struct InputScan<'a> {
    pub logs: crate::report::season_report::Logs<'a>,
    pub partitions: u32,
    /// Where logs are exported (`season-N`) and the results written
    /// (`scan-N`); every executor must read it at the same path.
    pub work: &'a Path,
    /// The scheduler's host:port, or "local": DataFusion in this process.
    pub url: &'a str,
}

/// `detect report --input ... --cluster URL`: the season folder (or the
/// logs, exported into the work folder) scanned on the cluster, its results
/// written to `WORK/scan-N`, the report written to `out`, nothing stored.
/// Returns how many pairs are flagged.
pub async fn report_input(
    request: &InputScan<'_>,
    params: &ScanParams,
    show: crate::report::season_report::Show,
    out: &mut dyn std::io::Write,
) -> Result<usize> {
    if params.mode != schema::Mode::Reference {
        bail!(
            "a cluster scan scores in reference mode only (asked: {:?}); add --mode reference",
            params.mode
        );
    }
    let logs = &request.logs;
    let folder = season_folder(logs.files)?;
    let season = match &folder {
        Some((dir, meta)) => {
            if logs.games.is_some() || logs.reference_order {
                bail!(
                    "{} is a season folder, its segments already cut: --games and \
                     --reference-order apply to logs",
                    dir.display()
                );
            }
            if logs.season.is_some_and(|n| n != meta.season) {
                bail!("{} holds season {}", dir.display(), meta.season);
            }
            Season::new(meta.season, None, None, meta.games.clone())?
        }
        None => logs.season()?,
    };
    let n = season.number;
    let scan_dir = request.work.join(format!("scan-{n}"));
    let exported = folder.is_none();
    let season_dir = match folder {
        Some((dir, _)) => dir,
        None => request.work.join(format!("season-{n}")),
    };
    if scan_dir.exists() || exported && season_dir.exists() {
        bail!(
            "{} already holds a cluster scan of season {n}; choose another --work-dir",
            request.work.display()
        );
    }
    if exported {
        let export = LogExport {
            input: logs.files,
            season: n,
            bucket_seconds: params.bucket_seconds,
            reference_order: logs.reference_order,
            limits: logs.limits,
            games: Some(season.games.clone()),
            partitions: request.partitions,
            out: &season_dir,
        };
        tokio::task::block_in_place(|| export_logs(&export))?;
    }
    let ctx = cluster::nodes::context(request.url, request.partitions as usize).await?;
    let step = crate::progress::step(format!(
        "scanning {} on {}",
        season_dir.display(),
        request.url
    ));
    let result = cluster::scan::run(&ctx, &season_dir, params, &scan_dir).await?;
    step.finish();
    let no_season = logs.season.is_none() && n == 0;
    crate::report::season_report::from_result(&season, no_season, &result, show, out)
}

/// The season folder `--input` names, with its `meta.json`: one folder.
fn season_folder(input: &[String]) -> Result<Option<(PathBuf, Meta)>> {
    match input {
        [one] if Path::new(one).is_dir() => {
            let dir = PathBuf::from(one);
            let meta = cluster::export::read_meta(&dir)?;
            Ok(Some((dir, meta)))
        }
        _ => Ok(None),
    }
}
