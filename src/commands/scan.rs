//! `detect scan`, `detect report` and `detect explain`.

use crate::cli::{ExplainArgs, Format, ReportArgs, ScanArgs};
use crate::pipeline;
use crate::report::known::{self, Reviewed};
use crate::report::{self, ScanInfo};
use anyhow::{bail, Result};
use ingest::time::format_utc;
use schema::{
    Cell, Contribution, IpId, IpPseudonyms, Names, PairScore, ScanResult, Season, Segment, Segments,
};
use std::io::Write;
use viz::escape::terminal;

pub async fn run_scan(db: &str, args: ScanArgs) -> Result<()> {
    let params = args.scan.params()?;
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
    let params = args.scan.params()?;
    let show = Show {
        format: args.format,
        all: args.all,
        show_ips: args.show_ips,
    };
    let flagged = if !args.input.is_empty() {
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
            &args.limits.limits()?,
        )?;
        let bar = crate::ui::spinner("scoring");
        let result = scoring::scan(&segments, &season, &params)?;
        bar.finish_and_clear();
        ensure_participants(&season, &result, !segments.users.is_empty())?;
        let info = ScanInfo {
            scan_id: None,
            created_at: None,
        };
        let pseudonyms = pipeline::ip_pseudonyms_in_memory(&season, &segments);
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
        reviewed.to_review.flagged().count()
    } else {
        let number = args.season.expect("clap requires --season without --input");
        let store = pipeline::open_store(db).await?;
        let season = pipeline::resolve_season(&store, number).await?;
        let scan = pipeline::current_scan(&store, &season, &params).await?;
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
            scan_id: Some(scan.id),
            created_at: Some(scan.created_at),
        };
        let parts = pictures.as_ref().map(|(s, p)| (s, p));
        print_report(show, &season, &info, &scan.result, &reviewed, parts)?;
        if let (Some(dir), Some((segments, pseudonyms))) = (&args.out, &pictures) {
            let bar = crate::ui::spinner(format!("drawing the report into {}", dir.display()));
            let shown = schema::store::StoredScan {
                result: reviewed.to_review.clone(),
                ..scan.clone()
            };
            let index = super::pictures::write_report_dir(
                dir,
                &season,
                &shown,
                segments,
                pseudonyms,
                args.show_ips,
            )?;
            known::add_sections_to_page(&index, &reviewed)?;
            bar.finish_and_clear();
            crate::ui::note(format!("report written to {}", index.display()));
        }
        reviewed.to_review.flagged().count()
    };
    if args.exit_code && flagged > 0 {
        return Err(crate::FlagsFound(flagged).into());
    }
    Ok(())
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
            let parts =
                super::pictures::page_parts(season, result, segments, pseudonyms, show.show_ips)?;
            let page = viz::ReportPage {
                title: format!("detect: season {}", season.number),
                season: season.number,
                result: &reviewed.to_review,
                clique_svgs: Vec::new(),
                clique_pictures: parts.pictures,
                distribution_svg: None,
                distribution_inline: Some(parts.distribution.to_string()),
                evidence: parts.evidence,
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
    let params = args.scan.params()?;
    let store = pipeline::open_store(db).await?;
    let season = pipeline::resolve_season(&store, args.season).await?;
    let scan = pipeline::current_scan(&store, &season, &params).await?;
    let segments = pipeline::segments(&store, params.bucket_seconds, None).await?;
    let pseudonyms = pipeline::ip_pseudonyms(&store, &season, &segments).await?;
    store.close().await;
    let text = explain(
        &segments,
        &season,
        &scan.result,
        &args.user_a,
        &args.user_b,
        args.top,
        args.show_ips,
        &pseudonyms,
    )?;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// The evidence behind a pair, both directions, in a moderator's words. IPs
/// are named by the season's `pseudonyms` unless `show_ips`.
#[allow(clippy::too_many_arguments)]
pub fn explain(
    segments: &Segments,
    season: &Season,
    result: &ScanResult,
    a: &str,
    b: &str,
    top: usize,
    show_ips: bool,
    pseudonyms: &IpPseudonyms,
) -> Result<String> {
    for u in [a, b] {
        if segments.users.get(u).is_none() {
            bail!("no account named {u:?} has moves in the store");
        }
    }
    let find = |x: &str, y: &str| result.pairs.iter().find(|p| p.user_a == x && p.user_b == y);
    let (ab, ba) = (find(a, b), find(b, a));
    // From here on the names are only shown: escaped for the terminal.
    let sa = scoring::in_season(segments.of(a), season);
    let sb = scoring::in_season(segments.of(b), season);
    let (a, b) = (&*terminal(a), &*terminal(b));
    if ab.is_none() && ba.is_none() {
        bail!(
            "{a} and {b} are not a candidate pair of season {}: they never moved from the same IP on the same day \
             while both took part in the season",
            season.number
        );
    }
    let mut labels = IpLabels::new(show_ips, pseudonyms);
    let mut out = String::new();
    use std::fmt::Write as _;
    let t = result.params.threshold;
    writeln!(
        out,
        "{a} and {b}, season {} ({} mode, {}-minute buckets, threshold {t})",
        season.number,
        result.params.mode.as_str(),
        result.params.bucket_seconds / 60
    )?;
    if result.params.mode == schema::Mode::Improved {
        improved_words(&mut out, segments, season, a, b)?;
    }
    for (x, y, score, sx, sy) in [(a, b, ab, sa, sb), (b, a, ba, sb, sa)] {
        let Some(p) = score else { continue };
        writeln!(out)?;
        direction(&mut out, x, y, p, t, segments.bucket_seconds)?;
        let mut contribs = scoring::similarity::contributions(sx, sy, segments.bucket_seconds);
        contribs.sort_by(|c, d| d.score.cmp(&c.score).then(c.bucket.cmp(&d.bucket)));
        contribs.retain(|c| c.score > 0);
        if contribs.is_empty() {
            writeln!(out, "  No bucket speaks for one person.")?;
            continue;
        }
        writeln!(
            out,
            "  Strongest buckets (UTC, window of {x}'s bucket and its neighbours):"
        )?;
        for c in contribs.iter().take(top) {
            writeln!(out, "    {}", bucket_line(c, sx, sy, segments, &mut labels))?;
        }
    }
    if !show_ips && labels.used {
        writeln!(out)?;
        writeln!(
            out,
            "IP addresses are shown as the season's pseudonyms (the same in the timelines and \
             reports); --show-ips shows them."
        )?;
    }
    Ok(out)
}

/// Improved mode's signals of the pair, in words.
fn improved_words(
    out: &mut String,
    segments: &Segments,
    season: &Season,
    a: &str,
    b: &str,
) -> std::fmt::Result {
    use std::fmt::Write as _;
    let Some(s) = scoring::improved::signals_of(segments, season, a, b) else {
        return Ok(());
    };
    writeln!(out)?;
    writeln!(
        out,
        "The similarity is calibrated: on simulated seasons, that share of pairs scoring so were one person."
    )?;
    for line in scoring::improved::describe(&s, a, b) {
        writeln!(out, "  {line}")?;
    }
    Ok(())
}

fn direction(
    out: &mut String,
    x: &str,
    y: &str,
    p: &PairScore,
    threshold: f64,
    bucket_seconds: i64,
) -> std::fmt::Result {
    use std::fmt::Write as _;
    let flag = if p.similarity >= threshold {
        "FLAGGED"
    } else {
        "not flagged"
    };
    writeln!(
        out,
        "{x} -> {y}: similarity {:.4} ({flag}); score {} of weight {} over {x}'s buckets",
        p.similarity, p.sum, p.weight
    )?;
    for cell in Cell::ALL {
        let tally = p.evidence.tally(cell);
        if tally.count > 0 {
            writeln!(
                out,
                "  {:>5} x {:>+6}  {}",
                tally.count,
                tally.score,
                cell_in_words(cell, x, y)
            )?;
        }
    }
    if let (b, Some(at)) = (p.evidence.max_boost, p.evidence.max_boost_bucket) {
        writeln!(
            out,
            "  Longest joint wait before a same-IP move: {} ({b} buckets), ending {} UTC (+{b} on that move)",
            viz::guide::buckets_as_time(b.into(), bucket_seconds),
            &format_utc(at)[..16]
        )?;
    }
    Ok(())
}

/// What a cell means for the accounts `x` (the walked one) and `y`.
fn cell_in_words(cell: Cell, x: &str, y: &str) -> String {
    match cell {
        Cell::MovedStalled => format!("windows where {x} moved while {y} kept a game waiting"),
        Cell::StalledMoved => format!("windows where {x} kept a game waiting while {y} moved"),
        other => format!("windows where {}", other.describe()),
    }
}

/// `2015-05-03 16:30  +22  both moved from the same IP (IP-1), after 12 buckets of joint waiting`
fn bucket_line(
    c: &Contribution,
    sx: &[Segment],
    sy: &[Segment],
    segments: &Segments,
    labels: &mut IpLabels,
) -> String {
    let mut line = format!(
        "{}  {:>+4}  {}",
        &format_utc(c.bucket)[..16],
        c.score,
        c.cell.describe()
    );
    if c.cell == Cell::SameIp {
        let wx = window_ips(sx, c.bucket, segments.bucket_seconds);
        let wy = window_ips(sy, c.bucket, segments.bucket_seconds);
        let shared: Vec<String> = wx
            .iter()
            .filter(|ip| wy.contains(ip))
            .map(|&ip| labels.label(ip, &segments.ips))
            .collect();
        line.push_str(&format!(" ({})", shared.join(", ")));
        if c.run > 0 {
            line.push_str(&format!(
                ", after {} ({} buckets) of joint waiting",
                viz::guide::buckets_as_time(c.run.into(), segments.bucket_seconds),
                c.run
            ));
        }
    }
    line
}

fn window_ips(segs: &[Segment], t: i64, bs: i64) -> Vec<IpId> {
    let lo = segs.partition_point(|s| s.bucket < t - bs);
    let mut ips: Vec<IpId> = segs[lo..]
        .iter()
        .take_while(|s| s.bucket <= t + bs)
        .flat_map(|s| s.moves.iter().map(|&(ip, _)| ip))
        .collect();
    ips.sort_unstable();
    ips.dedup();
    ips
}

/// IP names in an explanation: the season's pseudonyms, or raw addresses
/// with `--show-ips`.
struct IpLabels<'p> {
    show_ips: bool,
    pseudonyms: &'p IpPseudonyms,
    /// Whether a pseudonym was printed.
    used: bool,
}

impl<'p> IpLabels<'p> {
    fn new(show_ips: bool, pseudonyms: &'p IpPseudonyms) -> Self {
        IpLabels {
            show_ips,
            pseudonyms,
            used: false,
        }
    }

    fn label(&mut self, ip: IpId, names: &Names) -> String {
        if self.show_ips {
            return terminal(names.name(ip)).into_owned();
        }
        self.used = true;
        self.pseudonyms.label(ip)
    }
}
