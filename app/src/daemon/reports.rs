//! The reports a scan tick leaves in `report_dir`. Each file is written to a
//! temporary name and renamed into place, so a reader never sees half a
//! report, even if the daemon is killed while writing.

use crate::report::known::{self, Reviewed};
use crate::report::page::PageSource;
use crate::report::{write_atomically, ScanInfo};
use anyhow::Result;
use schema::{IpPseudonyms, Season, Segments};
use std::path::{Path, PathBuf};
use store::StoredScan;

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
