//! `detect scan`, `detect report` and `detect explain`.

use crate::cli::{ExplainArgs, Format, ReportArgs, ScanArgs};
use crate::pipeline::{self, scan_params};
use crate::report::known::{self, Reviewed};
use crate::report::{self, ScanInfo};
use anyhow::Result;
use schema::{ScanResult, Season};
use std::io::Write;

pub async fn run_scan(db: &str, args: ScanArgs) -> Result<()> {
    let params = scan_params(args.scan.threshold, args.scan.bucket_minutes)?;
    let store = pipeline::open_store(db).await?;
    let season = pipeline::resolve_season(&store, args.season).await?;
    let scan = pipeline::scan(&store, &season, &params).await?;
    let s = report::summary(&scan.result);
    println!(
        "season {}: scan #{} stored: {} participants, {} candidate pairs, {} flagged pairs, {} cliques",
        season.number, scan.id, s.participants, s.candidate_pairs, s.flagged_pairs, s.cliques
    );
    store.close().await;
    Ok(())
}

pub async fn run_report(db: &str, args: ReportArgs) -> Result<()> {
    let params = scan_params(args.scan.threshold, args.scan.bucket_minutes)?;
    if !args.input.is_empty() {
        let number = args.season.unwrap_or(0);
        let games = match (&args.games, args.season) {
            (Some(g), _) => g.clone(),
            (None, Some(n)) => schema::season::default_games(n),
            (None, None) => "^4pLeague_".to_owned(),
        };
        let season = Season::new(number, None, None, Some(games))?;
        let segments = pipeline::segments_from_files(
            &args.input,
            params.bucket_seconds,
            args.reference_order,
        )?;
        let result = scoring::scan(&segments, &season, &params)?;
        let info = ScanInfo {
            scan_id: None,
            created_at: None,
        };
        // Logs read into memory meet no store: no verdicts.
        let reviewed = Reviewed::new(&result, &[], args.all, args.reopen_margin);
        return print_report(args.format, &season, &info, &result, &reviewed, args.all);
    }
    let number = args.season.expect("clap requires --season without --input");
    let store = pipeline::open_store(db).await?;
    let season = pipeline::resolve_season(&store, number).await?;
    let scan = pipeline::current_scan(&store, &season, &params).await?;
    let info = ScanInfo {
        scan_id: Some(scan.id),
        created_at: Some(scan.created_at),
    };
    let verdicts = store.verdicts().await?;
    let reviewed = Reviewed::new(&scan.result, &verdicts, args.all, args.reopen_margin);
    print_report(
        args.format,
        &season,
        &info,
        &scan.result,
        &reviewed,
        args.all,
    )?;
    if let Some(dir) = &args.out {
        let segments = pipeline::segments(&store, params.bucket_seconds, None).await?;
        let shown = schema::store::StoredScan {
            result: reviewed.to_review.clone(),
            ..scan.clone()
        };
        let index =
            super::pictures::write_report_dir(dir, &season, &shown, &segments, args.show_ips)?;
        known::add_sections_to_page(&index, &reviewed)?;
        eprintln!("report written to {}", index.display());
    }
    store.close().await;
    Ok(())
}

fn print_report(
    format: Format,
    season: &Season,
    info: &ScanInfo,
    result: &ScanResult,
    reviewed: &Reviewed,
    all: bool,
) -> Result<()> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    match format {
        Format::Text => known::write_text_reviewed(&mut out, season, info, reviewed, all)?,
        Format::Json => {
            known::write_json_reviewed(&mut out, season, info, reviewed, all)?;
            writeln!(out)?;
        }
        Format::Csv => known::write_csv_reviewed(&mut out, result, reviewed, all)?,
        Format::Html => {
            let page = viz::ReportPage {
                title: format!("detect: season {}", season.number),
                season: season.number,
                result: &reviewed.to_review,
                clique_svgs: Vec::new(),
                distribution_svg: None,
                generated_note: report::describe_scan(season, info),
            };
            let sections = viz::verdict_sections_html(&reviewed.triage, reviewed.margin);
            let html = viz::known::with_sections(&viz::report_html(&page), &sections);
            out.write_all(html.as_bytes())?;
        }
    }
    out.flush()?;
    Ok(())
}

pub async fn run_explain(db: &str, args: ExplainArgs) -> Result<()> {
    let params = scan_params(args.scan.threshold, args.scan.bucket_minutes)?;
    let store = pipeline::open_store(db).await?;
    let season = pipeline::resolve_season(&store, args.season).await?;
    let scan = pipeline::current_scan(&store, &season, &params).await?;
    let segments = pipeline::segments(&store, params.bucket_seconds, None).await?;
    store.close().await;
    let text = viz::explain(
        &segments,
        &season,
        &scan.result,
        &args.user_a,
        &args.user_b,
        args.top,
        args.show_ips,
    )?;
    print!("{text}");
    Ok(())
}
