//! The reports a scan tick leaves in `report_dir`, written only when what
//! they are made of changed since the last (`publish`). Each file is
//! written to a temporary name and renamed into place, so a reader never
//! sees half a report, even if the daemon is killed while writing.

use super::scans::{loaded, TickSegments};
use crate::report::known::{self, Reviewed};
use crate::report::page::PageSource;
use crate::report::{write_atomically, ScanInfo};
use anyhow::Result;
use schema::{IpPseudonyms, Season, Segments};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use store::{Store, StoredScan};

/// Writes the report of one season's scan into `dir`: `season-N.json`
/// (the format of `detect report --format json`) and `season-N.txt` (the
/// text report), known relationships apart as `reviewed` sorted them.
/// `similarities`: every directed pair's, when the scan holds only some
/// (a rescan), for the distribution chart. Returns the files written.
///
/// This is the one place that decides what a scan tick publishes: the HTML
/// report and the SVG timelines of cliques go here too, written with
/// [`write_atomically`] like the others.
pub fn write_season_report(
    dir: &Path,
    season: &Season,
    scan: &StoredScan,
    reviewed: &Reviewed,
    segments: &Segments,
    pseudonyms: &IpPseudonyms,
    similarities: Option<&[f64]>,
) -> Result<Vec<PathBuf>> {
    let info = ScanInfo::of_scan(scan);
    let n = season.number;
    let json = dir.join(format!("season-{n}.json"));
    write_atomically(&json, |out| {
        known::write_json_reviewed(&mut *out, season, &info, reviewed, false)?;
        writeln!(out)?;
        Ok(())
    })?;
    let text = dir.join(format!("season-{n}.txt"));
    write_atomically(&text, |out| {
        known::write_text_reviewed(out, season, &info, reviewed, false)
    })?;
    let html = crate::report::pictures::write_report_dir(
        &dir.join(format!("season-{n}")),
        &PageSource {
            season,
            info: &info,
            reviewed,
            segments,
            pseudonyms,
            show_ips: false,
            similarities,
        },
    )?;
    Ok(vec![json, text, html])
}

/// A season's scan as a tick publishes it.
pub(super) struct Published<'a> {
    /// What logs call the season.
    pub label: &'a str,
    /// Where its report goes.
    pub dir: PathBuf,
    pub scan: &'a StoredScan,
    /// Whether the scan is new this tick.
    pub fresh: bool,
    /// The moves generation it is current at.
    pub generation: i64,
    /// Every pair's similarity, when the scan holds only some.
    pub similarities: Option<&'a [f64]>,
    pub verdicts: &'a [schema::Verdict],
    /// The scan's flags sorted by the verdicts.
    pub reviewed: &'a Reviewed<'a>,
}

/// What each season's report was last written from, and its files, by
/// site and season: a daemon's memory from one tick to the next.
pub(super) type Written = HashMap<(String, u32), (ReportKey, Vec<PathBuf>)>;

/// Writes the season's report, unless the report written last for it came
/// from the same scan, moves and verdicts and its files are all still
/// there: an idle tick (nothing new, no verdict) then costs the verdicts'
/// reading, not the report's pictures, evidence and pseudonyms (at ten
/// million moves, about 20 s a tick). Returns the report's files.
pub(super) async fn publish(
    store: &Store,
    written: &mut Written,
    season: &Season,
    p: Published<'_>,
    segments: &mut TickSegments,
) -> Result<Vec<PathBuf>> {
    let params = p.scan.result.params;
    let key = ReportKey {
        scan: p.scan.id,
        generation: p.generation,
        threshold: params.threshold.to_bits(),
        reopen_margin: p.reviewed.margin.to_bits(),
        dir: p.dir.clone(),
        verdicts: digest(&serde_json::to_vec(p.verdicts)?),
    };
    let memo = (store.site().to_owned(), season.number);
    if let Some((last, files)) = written.get(&memo) {
        if !p.fresh && *last == key && files.iter().all(|f| f.exists()) {
            tracing::debug!("{}: report unchanged, not written again", p.label);
            return Ok(files.clone());
        }
    }
    let segs = loaded(store, &params, segments).await?;
    let pseudonyms = crate::pipeline::ip_pseudonyms(store, season, segs).await?;
    std::fs::create_dir_all(&p.dir)?;
    let files = write_season_report(
        &p.dir,
        season,
        p.scan,
        p.reviewed,
        segs,
        &pseudonyms,
        p.similarities,
    )?;
    written.insert(memo, (key, files.clone()));
    Ok(files)
}

/// What a season's report is made of, beside its segments: the same key,
/// the same report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ReportKey {
    scan: i64,
    generation: i64,
    threshold: u64,
    reopen_margin: u64,
    dir: PathBuf,
    verdicts: u64,
}

fn digest(bytes: &[u8]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut h);
    h.finish()
}
