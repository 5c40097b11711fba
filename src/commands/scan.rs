//! `detect scan`, `detect report` and `detect explain`.

use crate::cli::{ExplainArgs, Format, ReportArgs, ScanArgs};
use crate::pipeline::{self, scan_params};
use crate::report::known::{self, Reviewed};
use crate::report::{self, ScanInfo};
use anyhow::{bail, Result};
use ingest::time::format_utc;
use schema::{Cell, Contribution, IpId, Names, PairScore, ScanResult, Season, Segment, Segments};
use std::collections::BTreeMap;
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
    let text = explain(
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

/// The evidence behind a pair, both directions, in a moderator's words.
pub fn explain(
    segments: &Segments,
    season: &Season,
    result: &ScanResult,
    a: &str,
    b: &str,
    top: usize,
    show_ips: bool,
) -> Result<String> {
    for u in [a, b] {
        if segments.users.get(u).is_none() {
            bail!("no account named {u:?} has moves in the store");
        }
    }
    let find = |x: &str, y: &str| result.pairs.iter().find(|p| p.user_a == x && p.user_b == y);
    let (ab, ba) = (find(a, b), find(b, a));
    if ab.is_none() && ba.is_none() {
        bail!(
            "{a} and {b} are not a candidate pair of season {}: they never moved from the same IP on the same day \
             while both took part in the season",
            season.number
        );
    }
    let sa = scoring::in_season(segments.of(a), season);
    let sb = scoring::in_season(segments.of(b), season);
    let mut labels = IpLabels::new(show_ips);
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
    for (x, y, score, sx, sy) in [(a, b, ab, sa, sb), (b, a, ba, sb, sa)] {
        let Some(p) = score else { continue };
        writeln!(out)?;
        direction(&mut out, x, y, p, t)?;
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
    if !show_ips && !labels.order.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "IP addresses are shown as pseudonyms (IP-1 is the first IP met above); --show-ips shows them."
        )?;
    }
    Ok(out)
}

fn direction(
    out: &mut String,
    x: &str,
    y: &str,
    p: &PairScore,
    threshold: f64,
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
            "  Longest joint wait before a same-IP move: {b} buckets, ending {} UTC (+{b} on that move)",
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
            line.push_str(&format!(", after {} buckets of joint waiting", c.run));
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

/// Pseudonyms for IPs, `IP-1`, `IP-2`, ... in order of first mention.
struct IpLabels {
    show_ips: bool,
    order: BTreeMap<IpId, usize>,
}

impl IpLabels {
    fn new(show_ips: bool) -> Self {
        IpLabels {
            show_ips,
            order: BTreeMap::new(),
        }
    }

    fn label(&mut self, ip: IpId, names: &Names) -> String {
        if self.show_ips {
            return names.name(ip).to_owned();
        }
        let next = self.order.len() + 1;
        format!("IP-{}", self.order.entry(ip).or_insert(next))
    }
}
