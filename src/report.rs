//! Reports of a scan: text for people, CSV and JSON for machines.
//!
//! CSV keeps the reference's first columns (`similarity,user_a,user_b,match,
//! mismatch,delay_match,delay_mismatch`) and fills them, then adds every
//! evidence column. JSON field names are stable.

pub mod known;

use crate::commands::season::describe;
use anyhow::Context;
use ingest::time::format_utc;
use schema::{Cell, PairScore, ScanResult, Season};
use serde::Serialize;
use std::io::Write;
use std::path::Path;

/// Where a report's scan came from.
#[derive(Debug, Clone, Serialize)]
pub struct ScanInfo {
    /// Stored scan id; `None` for an in-memory scan (`report --input`).
    pub scan_id: Option<i64>,
    /// UTC epoch seconds.
    pub created_at: Option<i64>,
}

/// The reference's header, then the evidence columns.
pub const CSV_HEADER: [&str; 18] = [
    "similarity",
    "user_a",
    "user_b",
    "match",
    "mismatch",
    "delay_match",
    "delay_mismatch",
    "same_ip_score",
    "other_ip_score",
    "moved_stalled",
    "moved_stalled_score",
    "stalled_moved",
    "stalled_moved_score",
    "both_stalled_score",
    "sum",
    "weight",
    "max_boost",
    "max_boost_bucket",
];

/// The pairs a report lists: all scored, or only flagged ones.
pub fn listed(result: &ScanResult, all: bool) -> Vec<&PairScore> {
    if all {
        result.pairs.iter().collect()
    } else {
        result.flagged().collect()
    }
}

pub fn write_csv(out: impl Write, result: &ScanResult, all: bool) -> anyhow::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record(CSV_HEADER)?;
    for p in listed(result, all) {
        let e = &p.evidence;
        let n = |c: Cell| e.tally(c).count.to_string();
        let s = |c: Cell| e.tally(c).score.to_string();
        w.write_record([
            p.similarity.to_string(),
            p.user_a.clone(),
            p.user_b.clone(),
            n(Cell::SameIp),
            n(Cell::OtherIp),
            n(Cell::BothStalled),
            (e.moved_stalled.count + e.stalled_moved.count).to_string(),
            s(Cell::SameIp),
            s(Cell::OtherIp),
            n(Cell::MovedStalled),
            s(Cell::MovedStalled),
            n(Cell::StalledMoved),
            s(Cell::StalledMoved),
            s(Cell::BothStalled),
            p.sum.to_string(),
            p.weight.to_string(),
            e.max_boost.to_string(),
            e.max_boost_bucket
                .map(|b| b.to_string())
                .unwrap_or_default(),
        ])?;
    }
    w.flush()?;
    Ok(())
}

#[derive(Serialize)]
struct JsonReport<'a> {
    season: &'a Season,
    scan: &'a ScanInfo,
    params: &'a schema::ScanParams,
    summary: Summary,
    pairs: Vec<JsonPair<'a>>,
    cliques: &'a [schema::Clique],
}

#[derive(Serialize)]
struct JsonPair<'a> {
    #[serde(flatten)]
    pair: &'a PairScore,
    flagged: bool,
}

/// The headline figures of a scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub participants: usize,
    pub candidate_pairs: usize,
    pub directed_pairs: usize,
    pub flagged_directed_pairs: usize,
    /// Unordered pairs with at least one direction flagged.
    pub flagged_pairs: usize,
    pub cliques: usize,
}

pub fn summary(result: &ScanResult) -> Summary {
    Summary {
        participants: result.participants,
        candidate_pairs: result.candidate_pairs,
        directed_pairs: result.pairs.len(),
        flagged_directed_pairs: result.flagged().count(),
        flagged_pairs: scoring::both_ways(result, false).len(),
        cliques: result.cliques.len(),
    }
}

pub fn write_json(
    out: impl Write,
    season: &Season,
    info: &ScanInfo,
    result: &ScanResult,
    all: bool,
) -> anyhow::Result<()> {
    let t = result.params.threshold;
    let report = JsonReport {
        season,
        scan: info,
        params: &result.params,
        summary: summary(result),
        pairs: listed(result, all)
            .into_iter()
            .map(|p| JsonPair {
                pair: p,
                flagged: p.similarity >= t,
            })
            .collect(),
        cliques: &result.cliques,
    };
    serde_json::to_writer_pretty(out, &report)?;
    Ok(())
}

/// Where a scan came from, in a line: `scan #3 of 2026-05-01 10:00:00 UTC;
/// games ^4pLeague_S7_, all time`.
pub fn describe_scan(season: &Season, info: &ScanInfo) -> String {
    let when = match (info.scan_id, info.created_at) {
        (Some(id), Some(at)) => format!("scan #{id} of {} UTC", format_utc(at)),
        _ => "scanned in memory".to_owned(),
    };
    format!("{when}; {}", describe(season))
}

pub fn write_text(
    mut out: impl Write,
    season: &Season,
    info: &ScanInfo,
    result: &ScanResult,
    all: bool,
) -> anyhow::Result<()> {
    let p = &result.params;
    let s = summary(result);
    writeln!(
        out,
        "Season {} ({}{})",
        season.number,
        describe(season),
        if season.inferred {
            ", inferred from game names"
        } else {
            ""
        }
    )?;
    let when = match (info.scan_id, info.created_at) {
        (Some(id), Some(at)) => format!("scan #{id} of {} UTC", format_utc(at)),
        _ => "scanned in memory".to_owned(),
    };
    writeln!(
        out,
        "{when}; {}-minute buckets, {} mode, threshold {}",
        p.bucket_seconds / 60,
        p.mode.as_str(),
        p.threshold
    )?;
    writeln!(out)?;
    writeln!(out, "  participants      {}", s.participants)?;
    writeln!(
        out,
        "  candidate pairs   {} ({} directed pairs scored)",
        s.candidate_pairs, s.directed_pairs
    )?;
    writeln!(
        out,
        "  flagged pairs     {} ({} directions at or above {})",
        s.flagged_pairs, s.flagged_directed_pairs, p.threshold
    )?;
    writeln!(out, "  cliques           {}", s.cliques)?;
    let rows = scoring::both_ways(result, all);
    writeln!(out)?;
    if rows.is_empty() {
        writeln!(out, "No pair reaches the threshold.")?;
    } else {
        writeln!(
            out,
            "{}",
            if all { "Scored pairs" } else { "Flagged pairs" }
        )?;
        let wa = rows
            .iter()
            .map(|r| r.a.chars().count())
            .max()
            .unwrap_or(6)
            .max(6);
        let wb = rows
            .iter()
            .map(|r| r.b.chars().count())
            .max()
            .unwrap_or(6)
            .max(6);
        writeln!(
            out,
            "  {:<wa$}  {:<wb$}  {:>8}  {:>8}  {:>7}  {:>8}  {:>8}  {:>9}",
            "user_a",
            "user_b",
            "sim(a,b)",
            "sim(b,a)",
            "same ip",
            "other ip",
            "stalls",
            "max boost"
        )?;
        for r in &rows {
            let sim = |x: Option<&PairScore>| {
                x.map(|p| {
                    let mark = if p.similarity >= result.params.threshold {
                        "*"
                    } else {
                        " "
                    };
                    format!("{:.4}{mark}", p.similarity)
                })
                .unwrap_or_else(|| "-".into())
            };
            let ev = r.ab.or(r.ba).map(|p| &p.evidence);
            let (same, other, stalls, boost) = ev
                .map(|e| {
                    (
                        e.same_ip.count,
                        e.other_ip.count,
                        e.both_stalled.count,
                        r.max_boost(),
                    )
                })
                .unwrap_or_default();
            writeln!(
                out,
                "  {:<wa$}  {:<wb$}  {:>8}  {:>8}  {:>7}  {:>8}  {:>8}  {:>9}",
                r.a,
                r.b,
                sim(r.ab),
                sim(r.ba),
                same,
                other,
                stalls,
                boost
            )?;
        }
        writeln!(
            out,
            "  (* at or above the threshold; same ip / other ip / stalls: windows of user_a where both moved \
             from one IP / from different IPs / both kept games waiting)"
        )?;
    }
    if !result.cliques.is_empty() {
        writeln!(out)?;
        writeln!(out, "Cliques")?;
        for (k, c) in result.cliques.iter().enumerate() {
            writeln!(out, "  {}. {}", k + 1, c.members.join(", "))?;
        }
    }
    Ok(())
}

/// Writes `path` through a temporary file beside it, synced and then renamed
/// over it: a reader never sees half a report, even if the process is killed
/// while writing. On failure the old file stays and no temporary is left.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .context("a report path without a file name")?;
    let tmp = path.with_file_name(format!(".{name}.tmp"));
    let result = (|| -> anyhow::Result<()> {
        let file = std::fs::File::create(&tmp)?;
        let mut out = std::io::BufWriter::new(file);
        write(&mut out)?;
        let file = out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)?;
        Ok(())
    })();
    if result.is_err() {
        std::fs::remove_file(&tmp).ok();
    }
    result.with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.txt");
        write_atomically(&path, |w| Ok(w.write_all(b"old")?)).unwrap();
        let err = write_atomically(&path, |w| {
            w.write_all(b"half")?;
            anyhow::bail!("boom")
        })
        .unwrap_err();
        assert!(crate::error_sentence(&err).contains("boom"));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }
}
