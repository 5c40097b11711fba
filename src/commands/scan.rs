//! `detect scan`, `detect report` and `detect explain`.

use crate::cli::{ExplainArgs, Format, ReportArgs, ScanArgs};
use anyhow::{bail, Result};
use app::pipeline;
use app::report::known::{self, Reviewed};
use app::report::page::{self, PageSource};
use app::report::{self, ScanInfo};
use schema::{IpPseudonyms, ScanParams, ScanResult, Season, Segments};
use scoring::improved::MoveTimes;
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
    Ok(())
}

pub async fn run_report(db: &app::pipeline::Db, args: ReportArgs) -> Result<()> {
    let params = args.scan.params()?;
    let show = Show {
        format: args.format,
        all: args.all,
        show_ips: args.show_ips,
    };
    let flagged = if !args.input.is_empty() {
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
        report_from_logs(&args, &params, model.as_ref(), show)?
    } else {
        report_from_store(db, &args, &params, show).await?
    };
    if args.exit_code && flagged > 0 {
        return Err(crate::FlagsFound(flagged).into());
    }
    Ok(())
}

/// Reports on logs read into memory, storing nothing; returns how many
/// pairs are flagged.
fn report_from_logs(
    args: &ReportArgs,
    params: &ScanParams,
    model: Option<&scoring::improved::Model>,
    show: Show,
) -> Result<usize> {
    let number = args.season.unwrap_or(0);
    let games = match (&args.games, args.season) {
        (Some(g), _) => g.clone(),
        (None, Some(n)) => schema::season::default_games(n),
        (None, None) => "^4pLeague_".to_owned(),
    };
    let season = Season::new(number, None, None, Some(games))?;
    let (segments, times) = read_logs(args, params)?;
    let bar = crate::ui::spinner("scoring");
    // The pseudonyms walk every segment once: beside the scoring, on
    // the core its sequential steps leave idle.
    let (result, pseudonyms) = rayon::join(
        || {
            let model = model.unwrap_or(scoring::improved::Model::shipped());
            scoring::scan_with_model(&segments, times.as_ref(), &season, params, model)
        },
        || pipeline::ip_pseudonyms_in_memory(&season, &segments),
    );
    let result = result?;
    bar.finish_and_clear();
    ensure_participants(&season, &result, !segments.accounts.is_empty())?;
    let info = ScanInfo {
        quiet: crate::ui::quiet(),
        no_season: args.season.is_none(),
        ..ScanInfo::new(None, None, pipeline::recorded_model(params, model))
    };
    // Logs read into memory meet no store: no verdicts.
    let reviewed = Reviewed::new(&result, &[], args.all, args.reopen_margin);
    print_report(
        show,
        &season,
        &info,
        &result,
        &reviewed,
        Some((&segments, &pseudonyms)),
    )?;
    let flagged = reviewed.to_review.flagged().count();
    // The process ends with the report: handing back a 10M-move world's
    // gigabytes block by block took about a second, for nothing.
    std::mem::forget(reviewed);
    std::mem::forget((result, times, pseudonyms, segments));
    Ok(flagged)
}

/// The segments of the logs `args.input`, and improved mode's move times
/// from the same one read.
fn read_logs(args: &ReportArgs, params: &ScanParams) -> Result<(Segments, Option<MoveTimes>)> {
    let (files, limits) = (&args.input, &args.limits.limits()?);
    let (bucket, order) = (params.bucket_seconds, args.reference_order);
    Ok(match params.mode {
        schema::Mode::Improved => {
            let (segments, times) =
                pipeline::segments_and_times_from_files(files, bucket, order, limits)?;
            (segments, Some(times))
        }
        schema::Mode::Reference => (
            pipeline::segments_from_files(files, bucket, order, limits)?,
            None,
        ),
    })
}

/// Reports on the season's current scan in the store; returns how many
/// pairs are flagged.
async fn report_from_store(
    db: &app::pipeline::Db,
    args: &ReportArgs,
    params: &ScanParams,
    show: Show,
) -> Result<usize> {
    let number = args.season.expect("clap requires --season without --input");
    let store = pipeline::open_store(db).await?;
    let (season, scan) = super::season_scan(&store, number, &args.scan).await?;
    if scan.result.participants == 0 {
        ensure_participants(&season, &scan.result, store.move_count().await? > 0)?;
    }
    let verdicts = store.verdicts().await?;
    let reviewed = Reviewed::new(&scan.result, &verdicts, args.all, args.reopen_margin);
    // The pictures and the evidence need the segments; text, JSON and
    // CSV do not.
    let pictures = if args.format == Format::Html || args.out.is_some() {
        let segments = pipeline::segments(&store, params.bucket_seconds, None).await?;
        let pseudonyms = pipeline::ip_pseudonyms(&store, &season, &segments).await?;
        Some((segments, pseudonyms))
    } else {
        None
    };
    store.close().await;
    let info = ScanInfo {
        quiet: crate::ui::quiet(),
        ..ScanInfo::new(Some(scan.id), Some(scan.created_at), scan.model.clone())
    };
    let parts = pictures.as_ref().map(|(s, p)| (s, p));
    print_report(show, &season, &info, &scan.result, &reviewed, parts)?;
    if let (Some(dir), Some((segments, pseudonyms))) = (&args.out, &pictures) {
        let bar = crate::ui::spinner(format!("drawing the report into {}", dir.display()));
        let index = app::report::pictures::write_report_dir(
            dir,
            &PageSource {
                season: &season,
                info: &info,
                reviewed: &reviewed,
                segments,
                pseudonyms,
                show_ips: args.show_ips,
                similarities: None,
            },
        )?;
        bar.finish_and_clear();
        crate::ui::note(format!("report written to {}", index.display()));
    }
    Ok(reviewed.to_review.flagged().count())
}

/// A report of a season nobody took part in would read as "no cheaters":
/// it fails instead, saying why.
fn ensure_participants(season: &Season, result: &ScanResult, has_moves: bool) -> Result<()> {
    if result.participants > 0 {
        return Ok(());
    }
    let what = if !has_moves {
        "the store holds no moves (ingest a log first: detect ingest FILE)".to_owned()
    } else {
        format!(
            "no stored move is in one of its games ({}); check the pattern with \
             `detect season list` and redefine it with `detect season add {} --games REGEX`",
            super::season::describe(season),
            season.number
        )
    };
    bail!("season {} has no participants: {what}", season.number)
}

/// How a report is printed.
#[derive(Debug, Clone, Copy)]
struct Show {
    format: Format,
    all: bool,
    show_ips: bool,
}

fn print_report(
    show: Show,
    season: &Season,
    info: &ScanInfo,
    result: &ScanResult,
    reviewed: &Reviewed,
    pictures: Option<(&Segments, &IpPseudonyms)>,
) -> Result<()> {
    let all = show.all;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    match show.format {
        Format::Text => known::write_text_reviewed(&mut out, season, info, reviewed, all)?,
        Format::Json => {
            known::write_json_reviewed(&mut out, season, info, reviewed, all)?;
            writeln!(out)?;
        }
        Format::Csv => known::write_csv_reviewed(&mut out, result, reviewed, all)?,
        Format::ReferenceCsv => report::write_reference_csv(&mut out, result, all)?,
        Format::Html => {
            let (segments, pseudonyms) = pictures.expect("an HTML report loads its segments");
            let html = page::page_html(&PageSource {
                season,
                info,
                reviewed,
                segments,
                pseudonyms,
                show_ips: show.show_ips,
                similarities: None,
            })?;
            out.write_all(html.as_bytes())?;
        }
    }
    out.flush()?;
    Ok(())
}

pub async fn run_explain(db: &app::pipeline::Db, args: ExplainArgs) -> Result<()> {
    let params = args.scan.params()?;
    let store = pipeline::open_store(db).await?;
    let (season, scan) = super::season_scan(&store, args.season, &args.scan).await?;
    let segments = pipeline::segments(&store, params.bucket_seconds, None).await?;
    let pseudonyms = pipeline::ip_pseudonyms(&store, &season, &segments).await?;
    store.close().await;
    let text = viz::explain(
        &segments,
        &season,
        &scan.result,
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
