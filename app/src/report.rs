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
pub mod season_report;
mod text;

pub use csv::{write_csv, write_reference_csv, CSV_HEADER, REFERENCE_CSV_HEADER};
pub use text::{rows_in, write_text};

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
    /// The store's version of that model (`StoredScan::model_version`);
    /// `None` for an in-memory scan and for scans stored before models
    /// were versioned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_version: Option<i64>,
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
            model_version: None,
            known_not_counted: None,
            quiet: false,
            no_season: false,
        }
    }

    /// A stored scan's: its id, time, model and model version.
    pub fn of_scan(scan: &store::StoredScan) -> ScanInfo {
        ScanInfo {
            model_version: scan.model_version,
            ..ScanInfo::new(Some(scan.id), Some(scan.created_at), scan.model.clone())
        }
    }

    /// The model's name, and its version when the store holds it.
    pub fn model_words(&self) -> anyhow::Result<String> {
        let model = self.model()?;
        Ok(match self.model_version {
            Some(v) => format!("{}, version {v} of the store", model.name()),
            None => model.name().to_owned(),
        })
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
        Ok(scoring::improved::Model::recorded(self.model.as_deref())?)
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
