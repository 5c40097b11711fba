//! The reports a scan tick leaves in `report_dir`. Each file is written to a
//! temporary name and renamed into place, so a reader never sees half a
//! report, even if the daemon is killed while writing.

use crate::report::{self, ScanInfo};
use anyhow::{Context, Result};
use schema::store::StoredScan;
use schema::Season;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes the report of one season's scan into `dir`: `season-N.json`
/// (the format of `detect report --format json`) and `season-N.txt` (the
/// text report). Returns the files written.
///
/// This is the one place that decides what a scan tick publishes: the HTML
/// report and the SVG timelines of cliques go here too, written with
/// [`write_atomically`] like the others.
pub fn write_season_report(dir: &Path, season: &Season, scan: &StoredScan) -> Result<Vec<PathBuf>> {
    let info = ScanInfo {
        scan_id: Some(scan.id),
        created_at: Some(scan.created_at),
    };
    let n = season.number;
    let json = dir.join(format!("season-{n}.json"));
    write_atomically(&json, |out| {
        report::write_json(&mut *out, season, &info, &scan.result, false)?;
        writeln!(out)?;
        Ok(())
    })?;
    let text = dir.join(format!("season-{n}.txt"));
    write_atomically(&text, |out| {
        report::write_text(out, season, &info, &scan.result, false)
    })?;
    Ok(vec![json, text])
}

/// Writes `path` through a temporary file beside it, synced and then
/// renamed over it.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> Result<()>,
) -> Result<()> {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .context("a report path without a file name")?;
    let tmp = path.with_file_name(format!(".{name}.tmp"));
    let result = (|| -> Result<()> {
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
    result.with_context(|| format!("cannot write the report {}", path.display()))
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
