//! `detect export`, `detect import-scan`, `detect scheduler`, `detect
//! executor`, `detect scan --cluster` and `detect report --cluster`
//! (feature `cluster`): arguments to
//! `app::cluster` (exports, the scan and its import) and to the `cluster`
//! crate's nodes, and what they print.

use crate::cli::{ExecutorArgs, ExportArgs, ImportScanArgs, ReportArgs, ScanArgs, SchedulerArgs};
use anyhow::Result;
use app::pipeline;
use schema::Season;
use std::path::Path;

pub async fn run_export(db: &pipeline::Db, args: ExportArgs) -> Result<()> {
    let bucket_seconds = i64::from(args.bucket_minutes) * 60;
    let Some(number) = args.season else {
        let limits = args.logs.limits.limits()?;
        let request = app::cluster::LogExport {
            input: &args.logs.input,
            season: 0,
            bucket_seconds,
            reference_order: args.logs.reference_order,
            limits: &limits,
            games: args.logs.games.clone(),
            partitions: args.partitions,
            out: &args.out,
        };
        let meta = tokio::task::block_in_place(|| app::cluster::export_logs(&request))?;
        let n = args.logs.input.len();
        let logs = format!("{n} log{}", if n == 1 { "" } else { "s" });
        print_exported(&logs, &meta, &args.out);
        return Ok(());
    };
    let store = pipeline::open_store(db).await?;
    let season = pipeline::resolve_season(&store, number).await?;
    let meta =
        app::cluster::export_season(&store, &season, bucket_seconds, args.partitions, &args.out)
            .await;
    store.close().await;
    let meta = meta?;
    print_exported(&format!("season {}", meta.season), &meta, &args.out);
    Ok(())
}

fn print_exported(what: &str, meta: &cluster::layout::Meta, out: &std::path::Path) {
    println!(
        "{what}: {} participants, {} segments, {} IP-day rows written to {} in {} parts",
        meta.participants,
        meta.segments,
        meta.ip_days,
        out.display(),
        meta.partitions
    );
}

pub async fn run_import_scan(db: &pipeline::Db, args: ImportScanArgs) -> Result<()> {
    let result = cluster::scan::read(&args.dir)?;
    let meta = cluster::export::read_meta(&args.dir)?;
    let store = pipeline::open_store(db).await?;
    let season = pipeline::resolve_season(&store, meta.season).await?;
    let id = app::cluster::store_scan(&store, &season, &result, meta.generation).await;
    store.close().await;
    print_stored(&season, id?, &result);
    Ok(())
}

fn print_stored(season: &Season, id: i64, result: &schema::ScanResult) {
    let s = app::report::summary(result);
    println!(
        "season {}: scan #{id} stored: {} participants, {} candidate pairs, {} flagged pairs, {} cliques",
        season.number, s.participants, s.candidate_pairs, s.flagged_pairs, s.cliques
    );
}

/// `detect scan --cluster URL`.
pub async fn run_cluster_scan(db: &pipeline::Db, args: ScanArgs, url: &str) -> Result<()> {
    let params = args.scan.params()?;
    let work = args.work_dir.as_deref();
    let (season, id, result) =
        app::cluster::scan_season(db, args.season, &params, args.partitions, work, url).await?;
    print_stored(&season, id, &result);
    Ok(())
}

/// `detect report --input ... --cluster URL`.
pub async fn run_cluster_report(args: ReportArgs) -> Result<()> {
    let params = args.scan.params()?;
    let limits = args.logs.limits.limits()?;
    let request = app::cluster::InputScan {
        logs: args.logs.logs(args.season, &limits),
        partitions: args.partitions,
        work: args.work_dir.as_deref().unwrap_or(Path::new(".")),
        url: args.cluster.as_deref().unwrap_or("local"),
    };
    let show = super::scan::show(&args);
    let mut out = std::io::BufWriter::new(std::io::stdout());
    let flagged = app::cluster::report_input(&request, &params, show, &mut out).await?;
    if args.exit_code && flagged > 0 {
        return Err(crate::FlagsFound(flagged).into());
    }
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
