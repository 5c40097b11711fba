//! A season's report as `detect report` makes it: from logs read into
//! memory (scored there, storing nothing) or from the season's current scan
//! in the store; triaged against the verdicts, written in one format, with
//! the pictures beside it when asked. Plain arguments in, the report written
//! to the caller's output, progress through [`crate::progress`].

use super::known::{self, Reviewed};
use super::page::{self, PageSource};
use super::ScanInfo;
use crate::pipeline;
use anyhow::{bail, Result};
use schema::rules::Limits;
use schema::{IpPseudonyms, ScanParams, ScanResult, Season, Segments};
use scoring::improved::MoveTimes;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The formats of a report (`detect report --format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Format {
    /// For people: a summary, how to read it, the flagged pairs and cliques.
    Text,
    /// Every figure, with stable field names.
    Json,
    /// One row per directed pair, columns named as the JSON fields.
    Csv,
    /// The reference implementation's pairs file layout.
    ReferenceCsv,
    /// The HTML page, with timelines and evidence (pictures also with --out DIR).
    Html,
}

/// How a report is written.
#[derive(Debug, Clone, Copy)]
pub struct Show {
    pub format: Format,
    /// Every pair, not only the flagged ones.
    pub all: bool,
    /// Addresses in clear, not pseudonyms.
    pub show_ips: bool,
    /// How far below the threshold a pair judged different people reopens.
    pub reopen_margin: f64,
    /// Results only: no guide, no footnotes.
    pub quiet: bool,
}

/// Logs to report on, read into memory.
#[derive(Debug, Clone, Copy)]
pub struct Logs<'a> {
    pub files: &'a [String],
    /// The season's number; `None`: the logs' games, titled as such.
    pub season: Option<u32>,
    /// The games' pattern; `None`: the season's default (or every league
    /// game without a season).
    pub games: Option<&'a str>,
    pub reference_order: bool,
    pub limits: &'a Limits,
}

impl Logs<'_> {
    /// The season the logs are read as: `--season N` or 0, its games the
    /// pattern given, else the season's default (every league game without
    /// a season).
    pub fn season(&self) -> Result<Season> {
        let games = match (self.games, self.season) {
            (Some(g), _) => g.to_owned(),
            (None, Some(n)) => schema::season::default_games(n),
            (None, None) => "^4pLeague_".to_owned(),
        };
        Ok(Season::new(
            self.season.unwrap_or(0),
            None,
            None,
            Some(games),
        )?)
    }
}

/// Reports on logs read into memory, storing nothing, to `out`; returns how
/// many pairs are flagged.
pub fn from_logs(
    logs: &Logs,
    params: &ScanParams,
    model: Option<&scoring::improved::Model>,
    show: Show,
    out: &mut dyn Write,
) -> Result<usize> {
    let season = logs.season()?;
    let started = std::time::Instant::now();
    let (segments, times) = read_logs(logs, params)?;
    tracing::debug!(ms = started.elapsed().as_millis() as u64, "logs read");
    let bar = crate::progress::step("scoring");
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
    bar.finish();
    tracing::debug!(ms = started.elapsed().as_millis() as u64, "season scored");
    ensure_participants(&season, &result, !segments.accounts.is_empty())?;
    let info = ScanInfo {
        quiet: show.quiet,
        no_season: logs.season.is_none(),
        ..ScanInfo::new(None, None, pipeline::recorded_model(params, model))
    };
    // Logs read into memory meet no store: no verdicts.
    let reviewed = Reviewed::new(&result, &[], show.all, show.reopen_margin);
    let pictures = Some((&segments, &pseudonyms));
    write_report(out, show, &season, &info, &result, &reviewed, pictures)?;
    tracing::debug!(ms = started.elapsed().as_millis() as u64, "report written");
    let flagged = reviewed.to_review.flagged().count();
    // The process ends with the report: handing back a 10M-move world's
    // gigabytes block by block took about a second, for nothing.
    std::mem::forget(reviewed);
    std::mem::forget((result, times, pseudonyms, segments));
    Ok(flagged)
}

/// The segments of the logs, and improved mode's move times from the same
/// one read.
fn read_logs(logs: &Logs, params: &ScanParams) -> Result<(Segments, Option<MoveTimes>)> {
    let (files, limits) = (logs.files, logs.limits);
    let (bucket, order) = (params.bucket_seconds, logs.reference_order);
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

/// Reports on a scan made elsewhere (a cluster's, read from its results
/// folder), storing nothing, to `out`; `no_season`: logs read without
/// `--season`, titled as such. No pictures: the segments stayed in the
/// season folder, so an HTML report is refused. Returns how many pairs are
/// flagged.
pub fn from_result(
    season: &Season,
    no_season: bool,
    result: &ScanResult,
    show: Show,
    out: &mut dyn Write,
) -> Result<usize> {
    if show.format == Format::Html {
        bail!("an HTML report draws the segments, which a cluster scan leaves in its season folder: choose --format text, json, csv or reference-csv");
    }
    ensure_participants(season, result, true)?;
    let info = ScanInfo {
        quiet: show.quiet,
        no_season,
        ..ScanInfo::new(None, None, pipeline::recorded_model(&result.params, None))
    };
    // Nothing stored, so no verdicts.
    let reviewed = Reviewed::new(result, &[], show.all, show.reopen_margin);
    write_report(out, show, season, &info, result, &reviewed, None)?;
    Ok(reviewed.to_review.flagged().count())
}

/// Reports on `scan`, the season's current scan in `store`, to `out`, and
/// draws the report with its pictures into `dir` when given (the
/// store is closed once read). Returns how many pairs are flagged and the
/// page written into `dir`.
pub async fn from_store(
    store: store::Store,
    season: &Season,
    scan: &store::StoredScan,
    params: &ScanParams,
    show: Show,
    dir: Option<&Path>,
    out: &mut dyn Write,
) -> Result<(usize, Option<PathBuf>)> {
    if scan.result.participants == 0 {
        ensure_participants(season, &scan.result, store.move_count().await? > 0)?;
    }
    let verdicts = store.verdicts().await?;
    let reviewed = Reviewed::new(&scan.result, &verdicts, show.all, show.reopen_margin);
    // The pictures and the evidence need the segments; text, JSON and
    // CSV do not.
    let pictures = if show.format == Format::Html || dir.is_some() {
        let segments = pipeline::segments(&store, params.bucket_seconds, None).await?;
        let pseudonyms = pipeline::ip_pseudonyms(&store, season, &segments).await?;
        Some((segments, pseudonyms))
    } else {
        None
    };
    store.close().await;
    let info = ScanInfo {
        quiet: show.quiet,
        ..ScanInfo::of_scan(scan)
    };
    let parts = pictures.as_ref().map(|(s, p)| (s, p));
    write_report(out, show, season, &info, &scan.result, &reviewed, parts)?;
    let flagged = reviewed.to_review.flagged().count();
    let (Some(dir), Some((segments, pseudonyms))) = (dir, &pictures) else {
        return Ok((flagged, None));
    };
    let bar = crate::progress::step(format!("drawing the report into {}", dir.display()));
    let index = super::pictures::write_report_dir(
        dir,
        &PageSource {
            season,
            info: &info,
            reviewed: &reviewed,
            segments,
            pseudonyms,
            show_ips: show.show_ips,
            similarities: None,
        },
    )?;
    bar.finish();
    Ok((flagged, Some(index)))
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
            viz::guide::season_words(season),
            season.number
        )
    };
    bail!("season {} has no participants: {what}", season.number)
}

/// Writes the report in `show.format` and flushes `out`.
fn write_report(
    out: &mut dyn Write,
    show: Show,
    season: &Season,
    info: &ScanInfo,
    result: &ScanResult,
    reviewed: &Reviewed,
    pictures: Option<(&Segments, &IpPseudonyms)>,
) -> Result<()> {
    let all = show.all;
    match show.format {
        Format::Text => known::write_text_reviewed(&mut *out, season, info, reviewed, all)?,
        Format::Json => {
            known::write_json_reviewed(&mut *out, season, info, reviewed, all)?;
            writeln!(out)?;
        }
        Format::Csv => known::write_csv_reviewed(&mut *out, reviewed, all)?,
        Format::ReferenceCsv => super::write_reference_csv(&mut *out, result, all)?,
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
