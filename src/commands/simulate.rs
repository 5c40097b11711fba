//! `detect simulate`, `detect eval` and `detect demo`: a synthetic season
//! with ground truth, the measured accuracy of a scan, and the one-command
//! tour of the product.

use crate::cli::{DemoArgs, EvalArgs, EvalFormat, SimulateArgs};
use anyhow::{Context, Result};
use app::pipeline::{self, scan_params, DEFAULT_BUCKET_MINUTES};
use app::report::known::Reviewed;
use app::report::page::PageSource;
use scoring::DEFAULT_REOPEN_MARGIN;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::time::Instant;

/// Writes `dir/moves.jsonl` and `dir/truth.json`; returns the truth.
pub fn simulate_into(cfg: &sim::WorldConfig, dir: &Path) -> Result<sim::Truth> {
    cfg.validate().map_err(anyhow::Error::msg)?;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let moves = dir.join("moves.jsonl");
    let file = std::fs::File::create(&moves)
        .with_context(|| format!("cannot write {}", moves.display()))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let truth = sim::simulate(cfg, &mut out)
        .with_context(|| format!("cannot write {}", moves.display()))?;
    out.flush()?;
    let truth_path = dir.join("truth.json");
    std::fs::write(&truth_path, serde_json::to_vec_pretty(&truth)?)
        .with_context(|| format!("cannot write {}", truth_path.display()))?;
    Ok(truth)
}

pub fn run_simulate(args: SimulateArgs) -> Result<()> {
    let family = sim::WorldConfig::of_family(args.family, args.seed);
    let cfg = sim::WorldConfig {
        accounts: args.accounts.unwrap_or(family.accounts),
        days: args.days,
        cliques: args.cliques.unwrap_or(family.cliques),
        season: args.season,
        nat_crowd: args.nat_crowd.or(family.nat_crowd),
        ..family
    };
    let started = Instant::now();
    let truth = simulate_into(&cfg, &args.out)?;
    println!(
        "wrote {} and {} in {:.1} s: a {} world of {} accounts over {} days, {} multi-account people, {} honest look-alike groups",
        args.out.join("moves.jsonl").display(),
        args.out.join("truth.json").display(),
        started.elapsed().as_secs_f64(),
        cfg.family.as_str(),
        cfg.accounts,
        cfg.days,
        truth.groups.len(),
        truth.lookalikes.len()
    );
    Ok(())
}

fn read_truth(path: &Path) -> Result<sim::Truth> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text)
        .with_context(|| format!("{} is not a truth file of detect simulate", path.display()))
}

pub async fn run_eval(db: &app::pipeline::Db, args: EvalArgs) -> Result<()> {
    let truth = read_truth(&args.truth)?;
    let store = pipeline::open_store(db).await?;
    let (_, scan) = super::season_scan(&store, args.season, &args.scan).await?;
    store.close().await;
    let threshold = scan.result.params.threshold;
    let evaluation = sim::evaluate(&scan.result.pairs, &truth, threshold);
    match args.format {
        EvalFormat::Json => println!("{}", serde_json::to_string_pretty(&evaluation)?),
        EvalFormat::Text => print!("{evaluation}"),
    }
    Ok(())
}

pub async fn run_demo(args: DemoArgs) -> Result<()> {
    let started = Instant::now();
    let cfg = sim::WorldConfig {
        seed: args.seed,
        ..sim::WorldConfig::default()
    };
    let dir = &args.dir;
    println!(
        "1/4 simulating a season: {} accounts over {} days, {} of them people with several accounts (seed {})",
        cfg.accounts, cfg.days, cfg.cliques, cfg.seed
    );
    let truth = simulate_into(&cfg, dir)?;
    let db_path = dir.join("detect.db");
    for ext in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{ext}", db_path.display()));
    }
    let store = pipeline::open_store(&pipeline::Db::new(format!(
        "sqlite://{}",
        db_path.display()
    )))
    .await?;
    println!("2/4 ingesting into {}", db_path.display());
    let log = dir.join("moves.jsonl");
    let summary = pipeline::ingest_file(&store, &log.to_string_lossy(), false).await?;
    println!("    {summary}");
    println!("3/4 scanning season {}", cfg.season);
    let params = schema::ScanParams {
        mode: pipeline::DEFAULT_MODE,
        ..scan_params(0.9, DEFAULT_BUCKET_MINUTES)?
    };
    let season = pipeline::resolve_season(&store, cfg.season).await?;
    let scan = pipeline::scan_whole(&store, &season, &params, None).await?;
    let segments = pipeline::segments(&store, params.bucket_seconds, None).await?;
    let report_dir = dir.join("report");
    let pseudonyms = pipeline::ip_pseudonyms(&store, &season, &segments).await?;
    let info = app::report::ScanInfo::new(Some(scan.id), Some(scan.created_at), scan.model.clone());
    // A new store holds no verdicts.
    let reviewed = Reviewed::new(&scan.result, &[], false, DEFAULT_REOPEN_MARGIN);
    let index = app::report::pictures::write_report_dir(
        &report_dir,
        &PageSource {
            season: &season,
            info: &info,
            reviewed: &reviewed,
            segments: &segments,
            pseudonyms: &pseudonyms,
            show_ips: false,
            similarities: None,
        },
    )?;
    store.close().await;
    println!();
    let mut out = std::io::stdout().lock();
    app::report::write_text(&mut out, &season, &info, &scan.result, false)?;
    writeln!(out)?;
    writeln!(out, "4/4 evaluating against the simulator's ground truth")?;
    let evaluation = sim::evaluate(&scan.result.pairs, &truth, params.threshold);
    write!(out, "{evaluation}")?;
    writeln!(out)?;
    writeln!(out, "Report: {}  (open it in a browser)", index.display())?;
    writeln!(
        out,
        "Store:  {}  (try: detect --db {} explain --season {} A B)",
        db_path.display(),
        db_path.display(),
        cfg.season
    )?;
    writeln!(out, "Done in {:.1} s.", started.elapsed().as_secs_f64())?;
    Ok(())
}
