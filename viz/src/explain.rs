//! The evidence behind a pair of accounts in a moderator's words: what
//! `detect explain` prints and the web application's pair page shows. Pure:
//! segments, season, scan and the season's IP pseudonyms in, text out. Names
//! are escaped for a terminal here (`escape::terminal`); a page escapes the
//! text again for HTML.

use crate::escape::terminal;
use crate::fmt::utc_minute;
use schema::{
    Cell, Contribution, IpId, IpPseudonyms, Names, PairScore, ScanParams, ScanResult, Season,
    Segment, Segments,
};
use scoring::improved::Model;
use std::fmt::Write as _;

/// Why a pair cannot be explained.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExplainError {
    #[error("no account named {0:?} has moves in the store")]
    UnknownAccount(String),
    #[error(
        "{a} and {b} are not a candidate pair of season {season}: they never moved from the same IP on the same day \
         while both took part in the season (nor, in improved mode, did one follow the other from behind a shared exit)"
    )]
    NotACandidatePair { a: String, b: String, season: u32 },
}

/// The evidence behind a pair, both directions, in a moderator's words. IPs
/// are named by the season's `pseudonyms` unless `show_ips`. `model` is
/// the one the scan scored with (read in improved mode only): its words
/// and its weights are the ones shown.
#[allow(clippy::too_many_arguments)]
pub fn explain(
    segments: &Segments,
    season: &Season,
    (result, model): (&ScanResult, &Model),
    a: &str,
    b: &str,
    top: usize,
    show_ips: bool,
    pseudonyms: &IpPseudonyms,
) -> Result<String, ExplainError> {
    let find = |x: &str, y: &str| {
        result
            .pairs
            .iter()
            .find(|p| p.account_a == x && p.account_b == y)
    };
    let scored = Scored {
        names: (a, b),
        scores: (find(a, b), find(b, a)),
        params: &result.params,
        model,
    };
    explain_scored(segments, season, scored, top, show_ips, pseudonyms)
}

/// A pair as its scan scored it: the two names, the scores of `(a, b)` and
/// of `(b, a)` (`None`: not scored that way), and the scan's parameters
/// and model.
pub struct Scored<'a> {
    pub names: (&'a str, &'a str),
    pub scores: (Option<&'a PairScore>, Option<&'a PairScore>),
    pub params: &'a ScanParams,
    pub model: &'a Model,
}

/// [`explain`] of a pair whose scores are at hand (a report explains each
/// flagged pair of a scan, its scores gathered once, not looked up among
/// every pair for each).
pub fn explain_scored(
    segments: &Segments,
    season: &Season,
    pair: Scored<'_>,
    top: usize,
    show_ips: bool,
    pseudonyms: &IpPseudonyms,
) -> Result<String, ExplainError> {
    let (a, b) = pair.names;
    for u in [a, b] {
        if segments.accounts.get(u).is_none() {
            return Err(ExplainError::UnknownAccount(terminal(u).into_owned()));
        }
    }
    let (ab, ba) = pair.scores;
    // From here on the names are only shown: escaped for the terminal.
    let bs = segments.bucket_seconds;
    let sa = scoring::in_season(segments.of(a), season, bs);
    let sb = scoring::in_season(segments.of(b), season, bs);
    let (a, b) = (&*terminal(a), &*terminal(b));
    if ab.is_none() && ba.is_none() {
        return Err(ExplainError::NotACandidatePair {
            a: a.to_owned(),
            b: b.to_owned(),
            season: season.number,
        });
    }
    let mut labels = IpLabels::new(show_ips, pseudonyms);
    let mut out = String::new();
    write_explanation(
        &mut out,
        segments,
        season,
        (pair.params, pair.model),
        [(a, b, ab, &sa, &sb), (b, a, ba, &sb, &sa)],
        top,
        &mut labels,
    )
    .expect("writing to a String cannot fail");
    Ok(out)
}

/// One direction of a pair: the shown names of `a` and `b`, its score, and
/// the two accounts' segments within the season.
type Direction<'s> = (
    &'s str,
    &'s str,
    Option<&'s PairScore>,
    &'s [Segment],
    &'s [Segment],
);

/// The pair's scores in both directions (shown names first, the names to
/// look up second), with the strongest buckets.
#[allow(clippy::too_many_arguments)]
fn write_explanation(
    out: &mut String,
    segments: &Segments,
    season: &Season,
    (params, model): (&ScanParams, &Model),
    directions: [Direction<'_>; 2],
    top: usize,
    labels: &mut IpLabels<'_>,
) -> std::fmt::Result {
    let [(a, b, ..), _] = directions;
    let show_ips = labels.show_ips;
    let t = params.threshold;
    writeln!(
        out,
        "{a} and {b}, season {} ({} mode, {}-minute buckets, threshold {t})",
        season.number,
        params.mode.as_str(),
        params.bucket_seconds / 60
    )?;
    let [(x, _, ab, ..), (y, _, ba, ..)] = directions;
    let stronger = match (ab, ba) {
        (Some(p), Some(q)) if q.similarity > p.similarity => Some((y, q)),
        (Some(p), _) => Some((x, p)),
        (None, q) => q.map(|q| (y, q)),
    };
    if let Some((walked, p)) = stronger {
        writeln!(
            out,
            "In short: {}",
            crate::guide::direction_summary(p, walked, params.bucket_seconds)
        )?;
    }
    if params.mode == schema::Mode::Improved {
        let [(_, _, ab, ..), (_, _, ba, ..)] = directions;
        let signals = ab
            .and_then(|p| p.evidence.signals.as_deref().copied())
            .or_else(|| {
                ba.and_then(|p| p.evidence.signals.as_deref())
                    .map(|s| s.swapped())
            });
        let reference =
            |p: Option<&PairScore>| p.map_or(0.5, |p| (p.sum as f64 / p.weight as f64) / 2.0 + 0.5);
        improved_words(out, model, signals, (reference(ab), reference(ba)), (a, b))?;
    }
    for (x, y, score, sx, sy) in directions {
        let Some(p) = score else { continue };
        writeln!(out)?;
        direction(out, x, y, p, t, segments.bucket_seconds)?;
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
            writeln!(out, "    {}", bucket_line(c, sx, sy, segments, labels))?;
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
    Ok(())
}

/// Improved mode's signals of the pair (as scored and stored), in words,
/// and how `model`, the scan's, weighed each (`ab`, `ba`: the reference
/// similarity from each side).
fn improved_words(
    out: &mut String,
    model: &Model,
    signals: Option<schema::Signals>,
    (ab, ba): (f64, f64),
    (a, b): (&str, &str),
) -> std::fmt::Result {
    use std::fmt::Write as _;
    let Some(s) = signals else {
        return Ok(());
    };
    writeln!(out)?;
    writeln!(out, "{}", scoring::improved::score_words(model))?;
    for line in scoring::improved::describe(&s, a, b) {
        writeln!(out, "  {line}")?;
    }
    if s.timing.is_some() {
        return Ok(());
    }
    let reading = scoring::improved::Reading {
        ab,
        ba,
        signals: &s,
    };
    let mut parts = model.contributions(&reading);
    parts.sort_by(|x, y| y.2.abs().total_cmp(&x.2.abs()));
    let parts: Vec<String> = parts
        .iter()
        .filter(|p| p.2.abs() >= 0.005)
        .map(|(name, _, c)| format!("{name} {c:+.2}"))
        .collect();
    writeln!(
        out,
        "  How the model weighed them (log-odds; + toward one person, from {:+.2}): {}.",
        model.intercept(),
        if parts.is_empty() {
            "nothing".to_owned()
        } else {
            parts.join(", ")
        }
    )
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
            crate::guide::buckets_as_time(b.into(), bucket_seconds),
            &utc_minute(at)
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
        &utc_minute(c.bucket),
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
                crate::guide::buckets_as_time(c.run.into(), segments.bucket_seconds),
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
