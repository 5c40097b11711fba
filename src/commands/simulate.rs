//! `detect simulate`, `detect eval` and `detect demo`: a synthetic season
//! with ground truth, the measured accuracy of a scan, and the one-command
//! tour of the product.

use crate::cli::{DemoArgs, EvalArgs, EvalFormat, SimulateArgs};
use anyhow::Result;
use app::pipeline;
use std::time::Instant;

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
    let truth = app::demo::simulate_into(&cfg, &args.out)?;
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

pub async fn run_eval(db: &app::pipeline::Db, args: EvalArgs) -> Result<()> {
    let truth = app::demo::read_truth(&args.truth)?;
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
    app::demo::run(args.seed, &args.dir, &mut std::io::stdout()).await
}
