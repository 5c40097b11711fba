//! Reports of a scan: text for people, CSV and JSON for machines.
//!
//! CSV (`--format csv`) has one row per directed pair and names its columns
//! as the JSON report names its fields (`evidence.same_ip.count` is
//! `pairs[].evidence.same_ip.count`); the reference's own layout stays
//! available as `--format reference-csv` (its header
//! `similarity,user_a,user_b,match,mismatch,delay_match,delay_mismatch`,
//! filled, then every evidence column). Machine formats carry full
//! similarities; text rounds them ([`viz::guide::similarity`]).

pub mod csv;
pub mod known;
pub mod page;
pub mod picture_cache;
pub mod pictures;

pub use csv::{write_csv, write_reference_csv, CSV_HEADER, REFERENCE_CSV_HEADER};

use anyhow::Context;
use ingest::time::format_utc;
use schema::{PairScore, ScanResult, Season};
use serde::Serialize;
use std::io::Write;
use std::path::Path;
use viz::escape::terminal;
use viz::guide::season_words;

/// Where a report's scan came from.
#[derive(Debug, Clone, Serialize)]
pub struct ScanInfo {
    /// Stored scan id; `None` for an in-memory scan (`report --input`).
    pub scan_id: Option<i64>,
    /// UTC epoch seconds.
    pub created_at: Option<i64>,
    /// The model file an improved scan scored with (`StoredScan::model`);
    /// `None`: the shipped one.
    pub model: Option<String>,
    /// Known relationships (pairs judged different people or cleared) at
    /// or above the threshold, left out of the flagged counts; `None` when
    /// no verdict was consulted (set by the writers of [`known`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub known_not_counted: Option<usize>,
    /// Results only (`-q`): the text report leaves out its guide ("How to
    /// read this") and footnotes.
    #[serde(skip)]
    pub quiet: bool,
    /// Logs read into memory without `--season`: titled by their games,
    /// not as a season numbered 0.
    #[serde(skip)]
    pub no_season: bool,
}

impl ScanInfo {
    /// A stored scan's (`Some` id and time) or an in-memory scan's, with
    /// the model it scored with.
    pub fn new(scan_id: Option<i64>, created_at: Option<i64>, model: Option<String>) -> ScanInfo {
        ScanInfo {
            scan_id,
            created_at,
            model,
            known_not_counted: None,
            quiet: false,
            no_season: false,
        }
    }

    /// "Season 7", or "Logs read into memory" for logs without a season.
    pub fn title(&self, season: &Season) -> String {
        if self.no_season {
            "Logs read into memory".to_owned()
        } else {
            format!("Season {}", season.number)
        }
    }

    /// The model an improved scan scored with: the one recorded, else the
    /// shipped one.
    pub fn model(&self) -> anyhow::Result<std::borrow::Cow<'static, scoring::improved::Model>> {
        Ok(match &self.model {
            Some(json) => std::borrow::Cow::Owned(scoring::improved::Model::from_json(json)?),
            None => std::borrow::Cow::Borrowed(scoring::improved::Model::shipped()),
        })
    }

    /// What the flagged counts hold: known relationships left out (how
    /// many), or no verdict consulted.
    pub fn known_words(&self) -> String {
        match self.known_not_counted {
            None => "no verdict consulted".to_owned(),
            Some(0) => "no known relationship among them".to_owned(),
            Some(1) => "1 known relationship not counted".to_owned(),
            Some(n) => format!("{n} known relationships not counted"),
        }
    }
}

/// The pairs a report lists: all scored, or only flagged ones.
pub fn listed(result: &ScanResult, all: bool) -> Vec<&PairScore> {
    if all {
        result.pairs.iter().collect()
    } else {
        result.flagged().collect()
    }
}

#[derive(Serialize)]
pub(crate) struct JsonReport<'a> {
    /// "Season 7", or "Logs read into memory" ([`ScanInfo::title`]).
    title: String,
    season: JsonSeason<'a>,
    scan: &'a ScanInfo,
    params: &'a schema::ScanParams,
    summary: Summary,
    pairs: Vec<JsonPair<'a>>,
    cliques: &'a [schema::Clique],
    crowded: Vec<CrowdedLine>,
}

pub use viz::guide::{crowded_lines, crowded_pseudonym, CrowdedLine};

/// The season of a JSON report: [`Season`]'s fields, the number null for
/// logs read into memory without `--season` (not a season 0).
#[derive(Serialize)]
struct JsonSeason<'a> {
    number: Option<u32>,
    from: Option<schema::Epoch>,
    to: Option<schema::Epoch>,
    games: &'a str,
    inferred: bool,
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
        // Every candidate pair is scored both ways; `pairs` may hold only
        // the flagged ones (after a rescan, or with known pairs set apart).
        directed_pairs: 2 * result.candidate_pairs,
        flagged_directed_pairs: result.flagged().count(),
        flagged_pairs: scoring::both_ways(result, false).len(),
        cliques: result.cliques.len(),
    }
}

/// The JSON report of `result` (its flagged pairs, or `all`), before the
/// verdicts' keys ([`known::write_json_reviewed`] writes it).
pub(crate) fn json_report<'a>(
    season: &'a Season,
    info: &'a ScanInfo,
    result: &'a ScanResult,
    all: bool,
) -> JsonReport<'a> {
    let t = result.params.threshold;
    JsonReport {
        title: info.title(season),
        season: JsonSeason {
            number: (!info.no_season).then_some(season.number),
            from: season.from,
            to: season.to,
            games: &season.games,
            inferred: season.inferred,
        },
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
        crowded: crowded_lines(result),
    }
}

/// Where a scan came from, in a line: `scan #3 of 2026-05-01 10:00:00 UTC;
/// games ^4pLeague_S7_, all time`.
pub fn describe_scan(season: &Season, info: &ScanInfo) -> String {
    format!("{}; {}", scan_words(info), season_words(season))
}

/// `scan #3 of 2026-05-01 10:00:00 UTC`, or that it was scanned in memory.
fn scan_words(info: &ScanInfo) -> String {
    match (info.scan_id, info.created_at) {
        (Some(id), Some(at)) => format!("scan #{id} of {} UTC", format_utc(at)),
        _ => "scanned in memory".to_owned(),
    }
}

/// The text report: what was scanned, the summary, how to read it, the
/// pairs (flagged, or `all`), the cliques and the crowded addresses.
pub fn write_text(
    mut out: impl Write,
    season: &Season,
    info: &ScanInfo,
    result: &ScanResult,
    all: bool,
) -> anyhow::Result<()> {
    let p = &result.params;
    write_text_head(&mut out, season, info, result)?;
    if !info.quiet {
        writeln!(out)?;
        writeln!(out, "How to read this")?;
        for paragraph in viz::guide::how_to_read(p) {
            for line in wrap(&paragraph, 76) {
                writeln!(out, "  {line}")?;
            }
        }
    }
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
        write_pairs_table(&mut out, &rows, result)?;
        if !info.quiet {
            writeln!(
                out,
                "  * flagged direction. Times are of the stronger direction, counted in \
                 {}-minute steps.",
                p.bucket_seconds / 60
            )?;
            writeln!(
                out,
                "  Same IP: of the stronger direction's first account's active time \
                 (explain's \"In short\")."
            )?;
            if info.no_season {
                writeln!(
                    out,
                    "  Evidence of a pair: ingest these logs, define their season (detect season \
                     add N), then detect explain --season N ACCOUNT_A ACCOUNT_B"
                )?;
            } else {
                writeln!(
                    out,
                    "  Evidence of a pair: detect explain --season {} ACCOUNT_A ACCOUNT_B",
                    season.number
                )?;
            }
        }
    }
    if !result.cliques.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "Cliques (accounts linked by flagged pairs; -> marks a flagged direction)"
        )?;
        for (k, c) in result.cliques.iter().enumerate() {
            let names: Vec<_> = c.members.iter().map(|m| terminal(m)).collect();
            writeln!(out, "  {}. {}", k + 1, names.join(", "))?;
            for row in rows_in(&rows, &c.members) {
                writeln!(out, "     {}", clique_pair_line(row, p.threshold))?;
            }
        }
    }
    write_crowded(&mut out, result)?;
    Ok(())
}

/// The text report's head: the season, the scan and its parameters, and
/// the summary's figures.
fn write_text_head(
    mut out: impl Write,
    season: &Season,
    info: &ScanInfo,
    result: &ScanResult,
) -> anyhow::Result<()> {
    let p = &result.params;
    let s = summary(result);
    writeln!(
        out,
        "{} ({}{})",
        info.title(season),
        season_words(season),
        if season.inferred {
            ", inferred from game names"
        } else {
            ""
        }
    )?;
    writeln!(
        out,
        "{}; {}-minute buckets, {} mode, threshold {}",
        scan_words(info),
        p.bucket_seconds / 60,
        p.mode.as_str(),
        p.threshold
    )?;
    if p.mode == schema::Mode::Improved {
        let model = info.model()?;
        writeln!(out, "model: {}", model.name())?;
        writeln!(out, "{}", scoring::improved::score_words(&model))?;
    }
    writeln!(out)?;
    writeln!(out, "  participants      {}", s.participants)?;
    writeln!(
        out,
        "  candidate pairs   {} ({} directed pairs scored)",
        s.candidate_pairs, s.directed_pairs
    )?;
    writeln!(
        out,
        "  flagged pairs     {} ({} directions at or above {}; {})",
        s.flagged_pairs,
        s.flagged_directed_pairs,
        p.threshold,
        info.known_words()
    )?;
    writeln!(out, "  cliques           {}", s.cliques)?;
    Ok(())
}

/// The addresses left out of candidate pairs for crowding, by pseudonym.
fn write_crowded(mut out: impl Write, result: &ScanResult) -> anyhow::Result<()> {
    let lines = crowded_lines(result);
    if lines.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    writeln!(out, "{}", viz::guide::crowded_heading(&result.params))?;
    for c in &lines {
        writeln!(out, "  {}  {}  {} accounts", c.address, c.day, c.accounts)?;
    }
    Ok(())
}

/// The pairs table of the text report, columns sized to their content.
fn write_pairs_table(
    out: &mut impl Write,
    rows: &[scoring::BothWays<'_>],
    result: &ScanResult,
) -> anyhow::Result<()> {
    let t = result.params.threshold;
    let bs = result.params.bucket_seconds;
    let sim = |x: Option<&PairScore>| {
        x.map(|p| {
            let mark = if p.similarity >= t { "*" } else { " " };
            format!("{}{mark}", viz::guide::similarity(p.similarity))
        })
        .unwrap_or_else(|| "-".into())
    };
    let mut table: Vec<Vec<String>> = vec![viz::guide::PAIR_COLUMNS
        .iter()
        .map(|(h, _)| h.replace('\u{2192}', "->"))
        .collect()];
    for r in rows {
        let strong = viz::guide::stronger(r);
        let ev = strong.map(|p| viz::guide::evidence_cells(p, bs));
        let mut line = vec![
            terminal(r.a).into_owned(),
            terminal(r.b).into_owned(),
            sim(r.ab),
            sim(r.ba),
        ];
        line.extend(ev.unwrap_or_default());
        table.push(line);
    }
    let widths: Vec<usize> = (0..table[0].len())
        .map(|c| {
            table
                .iter()
                .map(|l| l[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for line in &table {
        let mut text = String::from(" ");
        for (c, cell) in line.iter().enumerate() {
            let w = widths[c];
            if c < 2 {
                text.push_str(&format!(" {cell:<w$}"));
            } else {
                text.push_str(&format!(" {cell:>w$}"));
            }
        }
        writeln!(out, "{}", text.trim_end())?;
    }
    Ok(())
}

/// The rows whose two accounts both belong to `members`.
pub fn rows_in<'r, 'a>(
    rows: &'r [scoring::BothWays<'a>],
    members: &[String],
) -> impl Iterator<Item = &'r scoring::BothWays<'a>> + 'r {
    let inside: std::collections::BTreeSet<String> = members.iter().cloned().collect();
    rows.iter()
        .filter(move |r| inside.contains(r.a) && inside.contains(r.b))
}

/// `alice -> bob 0.9512*, bob -> alice 0.8701`: both directions, flagged
/// ones starred.
fn clique_pair_line(r: &scoring::BothWays<'_>, threshold: f64) -> String {
    let dir = |x: &str, y: &str, p: Option<&PairScore>| match p {
        Some(p) => format!(
            "{x} -> {y} {}{}",
            viz::guide::similarity(p.similarity),
            if p.similarity >= threshold { "*" } else { "" }
        ),
        None => format!("{x} -> {y} not scored"),
    };
    let (a, b) = (terminal(r.a), terminal(r.b));
    format!("{}, {}", dir(&a, &b, r.ab), dir(&b, &a, r.ba))
}

/// Greedy word wrap at `width` characters.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// Writes bytes through [`write_atomically`].
pub fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    write_atomically(path, |out| Ok(out.write_all(bytes)?))
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
