//! Reports with verdicts: a scan is first sorted by [`mod@scoring::triage`];
//! flags and cliques to review go through the ordinary report writers, known
//! relationships and flagged pairs with a verdict get sections of their own
//! (text, JSON, and the report page through [`super::page`]), and CSV rows
//! get `status` and `verdict` columns.

use super::{json_report, write_csv, write_text, JsonReport, ScanInfo};
use ingest::time::format_utc;
use schema::{PairScore, ScanResult, Season, Verdict};
use scoring::triage::{to_review, Triage};
use serde::Serialize;
use std::io::Write;
use viz::escape::terminal;

/// A scan sorted against the verdicts, and the part of it to review.
pub struct Reviewed<'a> {
    /// The scan sorted.
    pub scan: &'a ScanResult,
    pub triage: Triage<'a>,
    /// The scan without known relationships, with only the cliques to
    /// review.
    pub to_review: std::borrow::Cow<'a, ScanResult>,
    pub margin: f64,
}

impl<'a> Reviewed<'a> {
    /// Known relationships at or above the threshold: flagged by the scan,
    /// left out of the pairs to review.
    pub fn known_flagged(&self) -> usize {
        let t = self.to_review.params.threshold;
        self.triage
            .known
            .iter()
            .filter(|k| k.pair.max() >= t)
            .count()
    }

    /// `info` saying how many known relationships the counts leave out.
    pub fn info(&self, info: &ScanInfo) -> ScanInfo {
        ScanInfo {
            known_not_counted: Some(self.known_flagged()),
            ..info.clone()
        }
    }

    pub fn new(result: &'a ScanResult, verdicts: &'a [Verdict], all: bool, margin: f64) -> Self {
        let triage = scoring::triage(result, verdicts, all, margin);
        let to_review = to_review(result, &triage);
        Reviewed {
            scan: result,
            triage,
            to_review,
            margin,
        }
    }
}

fn sim(p: Option<&PairScore>) -> String {
    p.map_or_else(|| "-".to_owned(), |p| format!("{:.4}", p.similarity))
}

/// "different people: household, by ann on 2026-05-01 10:00:00 UTC at 0.93
/// (verdict #4): note", control characters neutralised.
fn decided(v: &Verdict) -> String {
    let mut s = format!(
        "{}, by {} on {} UTC",
        v.kind.label(),
        terminal(&v.by),
        format_utc(v.at)
    );
    if let Some(level) = v.similarity {
        s.push_str(&format!(" at {level:.4}"));
    }
    s.push_str(&format!(" (verdict #{})", v.id));
    if !v.note.is_empty() {
        s.push_str(": ");
        s.push_str(&terminal(&v.note));
    }
    s
}

/// The text report: flags and cliques to review, then the verdict
/// sections.
pub fn write_text_reviewed(
    mut out: impl Write,
    season: &Season,
    info: &ScanInfo,
    r: &Reviewed,
    all: bool,
) -> anyhow::Result<()> {
    write_text(&mut out, season, &r.info(info), &r.to_review, all)?;
    let with_verdict: Vec<_> = r
        .triage
        .flags
        .iter()
        .filter(|f| f.verdict.is_some())
        .collect();
    if !with_verdict.is_empty() {
        writeln!(out)?;
        writeln!(out, "Flagged pairs with a verdict")?;
        for f in with_verdict {
            let v = f.verdict.expect("filtered");
            writeln!(
                out,
                "  {}  {}  {}{}",
                terminal(f.pair.a),
                terminal(f.pair.b),
                if f.reopened { "RE-OPENED, was " } else { "" },
                decided(v)
            )?;
        }
        if r.triage.flags.iter().any(|f| f.reopened) {
            writeln!(
                out,
                "  (re-opened: a known relationship whose similarity rose more than {} above the \
                 level at which it was decided)",
                r.margin
            )?;
        }
    }
    if !r.triage.known.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "Known relationships (different people or cleared: not flagged; current scores)"
        )?;
        for k in &r.triage.known {
            writeln!(
                out,
                "  {}  {}  sim(a,b) {}  sim(b,a) {}  {}",
                terminal(k.pair.a),
                terminal(k.pair.b),
                sim(k.pair.ab),
                sim(k.pair.ba),
                decided(k.verdict)
            )?;
        }
    }
    Ok(())
}

#[derive(Serialize)]
struct JsonKnown<'a> {
    account_a: &'a str,
    account_b: &'a str,
    similarity_ab: Option<f64>,
    similarity_ba: Option<f64>,
    verdict: &'a Verdict,
}

#[derive(Serialize)]
struct JsonFlagVerdict<'a> {
    account_a: &'a str,
    account_b: &'a str,
    reopened: bool,
    verdict: &'a Verdict,
}

/// The JSON report of the pairs to review (`JsonReport`), with
/// three more keys: `reopen_margin`, `known_relationships` (current scores
/// and verdict) and `flag_verdicts` (flagged pairs that carry a verdict,
/// `reopened` marked). Serialised once, from the triaged scan.
pub fn write_json_reviewed(
    out: impl Write,
    season: &Season,
    info: &ScanInfo,
    r: &Reviewed,
    all: bool,
) -> anyhow::Result<()> {
    // The counts say how many known relationships they leave out.
    let info = &r.info(info);
    let s = |p: Option<&PairScore>| p.map(|p| p.similarity);
    let known_relationships = r
        .triage
        .known
        .iter()
        .map(|k| JsonKnown {
            account_a: k.pair.a,
            account_b: k.pair.b,
            similarity_ab: s(k.pair.ab),
            similarity_ba: s(k.pair.ba),
            verdict: k.verdict,
        })
        .collect();
    let flag_verdicts = r
        .triage
        .flags
        .iter()
        .filter_map(|f| {
            Some(JsonFlagVerdict {
                account_a: f.pair.a,
                account_b: f.pair.b,
                reopened: f.reopened,
                verdict: f.verdict?,
            })
        })
        .collect();
    let report = JsonReviewed {
        report: json_report(season, info, &r.to_review, all),
        reopen_margin: r.margin,
        known_relationships,
        flag_verdicts,
    };
    serde_json::to_writer_pretty(out, &report)?;
    Ok(())
}

#[derive(Serialize)]
struct JsonReviewed<'a> {
    #[serde(flatten)]
    report: JsonReport<'a>,
    reopen_margin: f64,
    known_relationships: Vec<JsonKnown<'a>>,
    flag_verdicts: Vec<JsonFlagVerdict<'a>>,
}

/// The CSV report of every listed pair, known relationships included, with
/// two more columns: `status` (`flag`, `re-opened`, `known` or `scored`)
/// and `verdict` (the current verdict's kind, if any).
pub fn write_csv_reviewed(out: impl Write, r: &Reviewed, all: bool) -> anyhow::Result<()> {
    let result = r.scan;
    let threshold = result.params.threshold;
    // Every listed pair has an entry (with --all, every pair of the scan),
    // found by its place in the scan: the triage holds the scan's own pairs.
    let mut statuses: Vec<[&'static str; 2]> = vec![["scored", ""]];
    let mut status = vec![0u8; result.pairs.len()];
    let mut set = |pair: &scoring::BothWays, s: [&'static str; 2]| {
        let k = match statuses.iter().position(|&t| t == s) {
            Some(k) => k,
            None => {
                statuses.push(s);
                statuses.len() - 1
            }
        };
        for p in [pair.ab, pair.ba].into_iter().flatten() {
            status[place(&result.pairs, p)] = k as u8;
        }
    };
    for f in &r.triage.flags {
        let s = match (f.reopened, f.pair.max() >= threshold) {
            (true, _) => "re-opened",
            (false, true) => "flag",
            (false, false) => "scored",
        };
        set(&f.pair, [s, f.verdict.map_or("", |v| v.kind.as_str())]);
    }
    for k in &r.triage.known {
        set(&k.pair, ["known", k.verdict.kind.as_str()]);
    }
    write_csv(out, result, all, ["status", "verdict"], |p| {
        statuses[status[place(&result.pairs, p)] as usize]
    })
}

/// Where `p`, one of `pairs`, sits in it.
///
/// # Panics
/// If `p` is not an element of `pairs`.
fn place(pairs: &[PairScore], p: &PairScore) -> usize {
    let offset = (p as *const PairScore as usize).wrapping_sub(pairs.as_ptr() as usize);
    let k = offset / std::mem::size_of::<PairScore>();
    assert!(
        pairs.get(k).is_some_and(|q| std::ptr::eq(q, p)),
        "a pair of another scan"
    );
    k
}
