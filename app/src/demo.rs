//! `detect demo`, the one-command tour of the product, and the simulated
//! worlds it starts from: a season simulated with ground truth, ingested
//! into a new store, scanned, drawn as a report and evaluated against the
//! truth, each step said on the caller's output.

use crate::pipeline::{self, scan_params, DEFAULT_BUCKET_MINUTES};
use crate::report::known::Reviewed;
use crate::report::page::PageSource;
use anyhow::{Context, Result};
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
    let truth = match sim::simulate(cfg, &mut out) {
        Ok(truth) => truth,
        // A world that cannot be built (too many accounts for the
        // address space) is said as it is, and leaves no empty log.
        Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => {
            drop(out);
            let _ = std::fs::remove_file(&moves);
            return Err(anyhow::Error::msg(e.to_string()));
        }
        Err(e) => return Err(e).with_context(|| format!("cannot write {}", moves.display())),
    };
    out.flush()?;
    let truth_path = dir.join("truth.json");
    std::fs::write(&truth_path, serde_json::to_vec_pretty(&truth)?)
        .with_context(|| format!("cannot write {}", truth_path.display()))?;
    Ok(truth)
}

/// A truth file `detect simulate` wrote.
pub fn read_truth(path: &Path) -> Result<sim::Truth> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text)
        .with_context(|| format!("{} is not a truth file of detect simulate", path.display()))
}

/// The tour in `dir` (its store made anew) with the world of `seed`, each
/// step said on `out`.
pub async fn run(seed: u64, dir: &Path, out: &mut (dyn Write + Send)) -> Result<()> {
    let started = Instant::now();
    let cfg = sim::WorldConfig {
        seed,
        ..sim::WorldConfig::default()
    };
    writeln!(
        out,
        "1/4 simulating a season: {} accounts over {} days, {} of them people with several accounts (seed {})",
        cfg.accounts, cfg.days, cfg.cliques, cfg.seed
    )?;
    let truth = simulate_into(&cfg, dir)?;
    let db_path = dir.join("detect.db");
    for ext in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{ext}", db_path.display()));
    }
    let db = pipeline::Db::new(format!("sqlite://{}", db_path.display()));
    let store = pipeline::open_store(&db).await?;
    writeln!(out, "2/4 ingesting into {}", db_path.display())?;
    let log = dir.join("moves.jsonl");
    let summary = pipeline::ingest_file(&store, &log.to_string_lossy(), false).await?;
    writeln!(out, "    {summary}")?;
    writeln!(out, "3/4 scanning season {}", cfg.season)?;
    let params = schema::ScanParams {
        mode: pipeline::DEFAULT_MODE,
        ..scan_params(0.9, DEFAULT_BUCKET_MINUTES)?
    };
    let season = pipeline::resolve_season(&store, cfg.season).await?;
    let scan = pipeline::scan_whole(&store, &season, &params, None).await?;
    let segments = pipeline::segments(&store, params.bucket_seconds, None).await?;
    let report_dir = dir.join("report");
    let pseudonyms = pipeline::ip_pseudonyms(&store, &season, &segments).await?;
    let info = crate::report::ScanInfo::of_scan(&scan);
    // A new store holds no verdicts.
    let reviewed = Reviewed::new(&scan.result, &[], false, DEFAULT_REOPEN_MARGIN);
    let index = crate::report::pictures::write_report_dir(
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
    writeln!(out)?;
    crate::report::write_text(&mut *out, &season, &info, &scan.result, false)?;
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
