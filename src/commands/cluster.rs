//! `detect export`, `detect import-scan`, `detect scheduler`, `detect
//! executor` and `detect scan --cluster` (feature `cluster`): the store's
//! side of a scan on Apache DataFusion Ballista. The plan, the scoring
//! function and the nodes live in the `cluster` crate.

use crate::cli::{ExecutorArgs, ExportArgs, ImportScanArgs, ScanArgs, SchedulerArgs};
use anyhow::{bail, Context, Result};
use app::pipeline;
use schema::Season;
use std::path::Path;
use store::Store;

pub async fn run_export(db: &pipeline::Db, args: ExportArgs) -> Result<()> {
    let bucket_seconds = i64::from(args.bucket_minutes) * 60;
    let Some(number) = args.season else {
        let meta = tokio::task::block_in_place(|| export_logs(&args, bucket_seconds))?;
        let n = args.input.len();
        println!(
            "{n} log{}: {} participants, {} segments, {} IP-day rows written to {} in {} parts",
            if n == 1 { "" } else { "s" },
            meta.participants,
            meta.segments,
            meta.ip_days,
            args.out.display(),
            meta.partitions
        );
        return Ok(());
    };
    let store = pipeline::open_store(db).await?;
    let season = pipeline::resolve_season(&store, number).await?;
    let meta = export(&store, &season, bucket_seconds, args.partitions, &args.out).await?;
    store.close().await;
    println!(
        "season {}: {} participants, {} segments, {} IP-day rows written to {} in {} parts",
        meta.season,
        meta.participants,
        meta.segments,
        meta.ip_days,
        args.out.display(),
        meta.partitions
    );
    Ok(())
}

/// `detect export --input`: the logs read as `report --input` reads them,
/// each account's settled segments spilled to its part's file as the
/// reading goes, then the parts written one by one.
fn export_logs(args: &ExportArgs, bucket_seconds: i64) -> Result<cluster::layout::Meta> {
    let games = args
        .games
        .clone()
        .unwrap_or_else(|| "^4pLeague_".to_owned());
    let season = Season::new(0, None, None, Some(games))?;
    let limits = args.limits.limits()?;
    staged(&args.out, |dir| {
        let mut spill = cluster::spill::Spill::create(&dir.join(".spill"), args.partitions)?;
        let segments = pipeline::segments_settling_from_files(
            &args.input,
            bucket_seconds,
            args.reference_order,
            &limits,
            &mut |handed| match handed {
                pipeline::Handover::Settled { accounts, settled } => spill.push(accounts, settled),
                pipeline::Handover::Restart => spill.restart(),
            },
        )?;
        let bar = crate::ui::spinner(format!("writing {}", args.out.display()));
        let meta = cluster::export::write_season_from(
            &segments,
            &mut |part| spill.take_part(part),
            &season,
            args.partitions,
            0,
            dir,
        )?;
        spill.remove()?;
        bar.finish_and_clear();
        if meta.participants == 0 {
            bail!(
                "no account moved in a game matching {:?}: nothing to export",
                season.games
            );
        }
        Ok(meta)
    })
}

/// Writes a season folder at `out` (absent or empty) through `write`, into
/// a folder beside it renamed into place at the end: a failed export
/// leaves no half-written folder behind.
fn staged(
    out: &Path,
    write: impl FnOnce(&Path) -> Result<cluster::layout::Meta>,
) -> Result<cluster::layout::Meta> {
    let empty = |d: &Path| std::fs::read_dir(d).map(|mut e| e.next().is_none());
    if out.exists() && !empty(out).unwrap_or(false) {
        bail!(
            "{} is not an empty folder (it may hold a season already); choose an empty or new one",
            out.display()
        );
    }
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => std::path::PathBuf::from("."),
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

async fn export(
    store: &Store,
    season: &Season,
    bucket_seconds: i64,
    partitions: u32,
    out: &Path,
) -> Result<cluster::layout::Meta> {
    let generation = store.moves_generation().await?;
    let segments = pipeline::segments(store, bucket_seconds, None).await?;
    let bar = crate::ui::spinner(format!(
        "writing season {} to {}",
        season.number,
        out.display()
    ));
    let meta = tokio::task::block_in_place(|| {
        staged(out, |dir| {
            cluster::export::write_season(&segments, season, partitions, generation, dir)
        })
    })?;
    bar.finish_and_clear();
    Ok(meta)
}

pub async fn run_import_scan(db: &pipeline::Db, args: ImportScanArgs) -> Result<()> {
    let result = cluster::scan::read(&args.dir)?;
    let meta = cluster::export::read_meta(&args.dir)?;
    let store = pipeline::open_store(db).await?;
    let season = pipeline::resolve_season(&store, meta.season).await?;
    let id = import(&store, &season, &result, meta.generation).await?;
    store.close().await;
    print_stored(&season, id, &result);
    Ok(())
}

async fn import(
    store: &Store,
    season: &Season,
    result: &schema::ScanResult,
    generation: i64,
) -> Result<i64> {
    let created_at = chrono::Utc::now().timestamp();
    Ok(store
        .save_scan(season, result, generation, created_at, None, None)
        .await?)
}

fn print_stored(season: &Season, id: i64, result: &schema::ScanResult) {
    let s = app::report::summary(result);
    println!(
        "season {}: scan #{id} stored: {} participants, {} candidate pairs, {} flagged pairs, {} cliques",
        season.number, s.participants, s.candidate_pairs, s.flagged_pairs, s.cliques
    );
}

/// `detect scan --cluster URL`: exports the season into the work folder,
/// runs the plan on the cluster, writes its results there and stores them
/// as a scan.
pub async fn run_cluster_scan(db: &pipeline::Db, args: ScanArgs, url: &str) -> Result<()> {
    let params = args.scan.params()?;
    if params.mode != schema::Mode::Reference {
        bail!(
            "a cluster scan scores in reference mode only (asked: {:?}); scan without --cluster",
            params.mode
        );
    }
    let work = args
        .work_dir
        .clone()
        .context("--cluster needs --work-dir DIR, a folder every executor can read")?;
    let store = pipeline::open_store(db).await?;
    let season = pipeline::resolve_season(&store, args.season).await?;
    let season_dir = work.join(format!("season-{}", season.number));
    let scan_dir = work.join(format!("scan-{}", season.number));
    if season_dir.exists() || scan_dir.exists() {
        bail!(
            "{} already holds a cluster scan of season {}; choose another --work-dir",
            work.display(),
            season.number
        );
    }
    let meta = export(
        &store,
        &season,
        params.bucket_seconds,
        args.partitions,
        &season_dir,
    )
    .await?;
    let ctx = if url == "local" {
        cluster::nodes::local_context_with(args.partitions as usize)
    } else {
        cluster::nodes::remote_context(url, args.partitions as usize).await?
    };
    let bar = crate::ui::spinner(format!("scanning season {} on {url}", season.number));
    let result = cluster::scan::run(&ctx, &season_dir, &params, &scan_dir).await?;
    bar.finish_and_clear();
    let id = import(&store, &season, &result, meta.generation).await?;
    store.close().await;
    print_stored(&season, id, &result);
    Ok(())
}

pub async fn run_scheduler(args: SchedulerArgs) -> Result<()> {
    crate::ui::note(format!("scheduler listening on {}", args.bind));
    cluster::nodes::run_scheduler(args.bind).await
}

pub async fn run_executor(args: ExecutorArgs) -> Result<()> {
    let opt = cluster::nodes::ExecutorOptions {
        scheduler: args.scheduler,
        bind: args.bind,
        slots: args.slots as usize,
        memory_limit: args.memory_limit_mb.map(|m| m * 1024 * 1024),
        work_dir: args.work_dir,
    };
    crate::ui::note(format!(
        "executor on {} for the scheduler at {}",
        opt.bind, opt.scheduler
    ));
    cluster::nodes::run_executor(opt).await
}
