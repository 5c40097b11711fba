//! `detect scan`, `detect report` and `detect explain`.

use crate::cli::{ExplainArgs, ReportArgs, ScanArgs};
use anyhow::Result;
use app::pipeline;
use app::report::known::Reviewed;
use app::report::season_report::{self, Show};
use app::report::{self, ScanInfo};
use std::io::Write;

pub async fn run_scan(db: &app::pipeline::Db, args: ScanArgs) -> Result<()> {
    let params = args.scan.params()?;
    args.scan.model_choice()?;
    let store = pipeline::open_store(db).await?;
    let model = args.scan.model(Some(&store)).await?;
    let season = pipeline::resolve_season(&store, args.season).await?;
    let scanned = pipeline::scan(&store, &season, &params, model.as_ref()).await?;
    let scan = &scanned.scan;
    // The counts `report` shows: known relationships set apart.
    let verdicts = store.verdicts().await?;
    let reviewed = Reviewed::new(
        &scan.result,
        &verdicts,
        false,
        scoring::DEFAULT_REOPEN_MARGIN,
    );
    let s = report::summary(&reviewed.to_review);
    let known = reviewed
        .info(&ScanInfo::new(None, None, None))
        .known_words();
    // A rescan says what it scored again.
    let again = scanned.rescan.map_or(" stored".to_owned(), |r| {
        let s = if r.replaced_accounts == 1 { "" } else { "s" };
        if r.nothing_new {
            " still holds (nothing new: no scan stored)".to_owned()
        } else {
            format!(
                " stored (a rescan of #{}: {} directed pairs of {} account{s} scored again)",
                r.base, r.pairs, r.replaced_accounts
            )
        }
    });
    println!(
        "season {}: scan #{}{again}: {} participants, {} candidate pairs, {} flagged pairs ({known}), {} cliques; threshold {}",
        season.number, scan.id, s.participants, s.candidate_pairs, s.flagged_pairs, s.cliques,
        scan.result.params.threshold
    );
    store.close().await;
    // The process ends next and frees the scan's pairs at once: freed one
    // by one they took 0.5 s of a 10M-move season's scan (1.3M pairs).
    drop(reviewed);
    std::mem::forget(scanned);
    Ok(())
}

pub async fn run_report(db: &app::pipeline::Db, args: ReportArgs) -> Result<()> {
    let params = args.scan.params()?;
    let show = show(&args);
    let mut out = std::io::BufWriter::new(std::io::stdout());
    let flagged = if !args.logs.input.is_empty() {
        // Logs store nothing: the store is opened only to read a version.
        let model = match args.scan.model_choice()? {
            app::model::ModelChoice::Version(_) => {
                let store = pipeline::open_store(db).await?;
                let model = args.scan.model(Some(&store)).await;
                store.close().await;
                model?
            }
            _ => args.scan.model(None).await?,
        };
        let limits = args.logs.limits.limits()?;
        let logs = args.logs.logs(args.season, &limits);
        season_report::from_logs(&logs, &params, model.as_ref(), show, &mut out)?
    } else {
        let number = args.season.expect("clap requires --season without --input");
        let store = pipeline::open_store(db).await?;
        let (season, scan) = super::season_scan(&store, number, &args.scan).await?;
        let dir = args.out.as_deref();
        let (flagged, index) =
            season_report::from_store(store, &season, &scan, &params, show, dir, &mut out).await?;
        if let Some(index) = index {
            crate::ui::note(format!("report written to {}", index.display()));
        }
        flagged
    };
    if args.exit_code && flagged > 0 {
        return Err(crate::FlagsFound(flagged).into());
    }
    Ok(())
}

/// How `report` writes its report.
pub(crate) fn show(args: &ReportArgs) -> Show {
    Show {
        format: args.format,
        all: args.all,
        show_ips: args.show_ips,
        reopen_margin: args.reopen_margin,
        quiet: crate::ui::quiet(),
    }
}

pub async fn run_explain(db: &app::pipeline::Db, args: ExplainArgs) -> Result<()> {
    let params = args.scan.params()?;
    let store = pipeline::open_store(db).await?;
    let (season, scan) = super::season_scan(&store, args.season, &args.scan).await?;
    let segments = pipeline::segments(&store, params.bucket_seconds, None).await?;
    let pseudonyms = pipeline::ip_pseudonyms(&store, &season, &segments).await?;
    store.close().await;
    let model = scoring::improved::Model::recorded(scan.model.as_deref())?;
    let text = viz::explain(
        &segments,
        &season,
        (&scan.result, &model),
        &args.account_a,
        &args.account_b,
        args.top,
        args.show_ips,
        &pseudonyms,
    )?;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}
