//! A report directory (`report --out DIR`, `detect simulate`, the
//! daemon's reports): the page and its pictures (each clique's timeline and
//! overview, the distribution chart), drawn once by [`page_parts`] and
//! written atomically beside the page, pictures still current kept.

use crate::report::page::{page_parts, report_page, PageFiles, PageSource};
use crate::report::picture_cache::{self, overview_file, timeline_file, PictureCache};
use crate::report::write_atomic;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// Writes `dir/index.html`, `dir/clique-K.svg` (and its overview) for
/// each clique and `dir/distribution.svg` (as [`page_parts`]); returns the
/// path of the index. Each file is written to a temporary name and renamed,
/// so a reader never sees half a file; the page is written once, from
/// [`report_page`].
pub fn write_report_dir(dir: &Path, src: &PageSource) -> Result<PathBuf> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create the report directory {}", dir.display()))?;
    let cache = PictureCache::open(dir);
    let parts = page_parts(src, Some(&cache))?;
    // The keys go first: a report cut short leaves none, and the next one
    // draws every picture again.
    match std::fs::remove_file(dir.join(picture_cache::KEYS_FILE)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e.into()),
        _ => {}
    }
    let mut clique_svgs = Vec::new();
    for (k, pictures) in parts.pictures.iter().enumerate() {
        let name = timeline_file(k + 1);
        if !parts.kept[k] {
            write_atomic(&dir.join(&name), pictures.timeline.as_bytes())?;
            write_atomic(
                &dir.join(overview_file(k + 1)),
                pictures.overview.as_bytes(),
            )?;
        }
        clique_svgs.push(name);
    }
    picture_cache::write_keys(dir, &parts.keys)?;
    tracing::debug!(
        cliques = parts.kept.len(),
        kept = parts.kept.iter().filter(|&&k| k).count(),
        "clique pictures written"
    );
    let distribution_svg = "distribution.svg".to_owned();
    write_atomic(&dir.join(&distribution_svg), parts.distribution.as_bytes())?;
    let cliques = clique_svgs.len();
    let files = PageFiles {
        clique_svgs,
        distribution_svg,
    };
    let page = report_page(src, parts, Some(files));
    let index = dir.join("index.html");
    write_atomic(&index, viz::report_html(&page).as_bytes())?;
    remove_stale_cliques(dir, cliques)?;
    Ok(index)
}

/// Removes the `clique-N.svg` and `clique-N-overview.svg` of an earlier
/// report with more cliques, so the
/// directory's pictures are this report's, all of them and only them.
fn remove_stale_cliques(dir: &Path, cliques: usize) -> Result<()> {
    let entries = std::fs::read_dir(dir)
        .with_context(|| format!("cannot list the report directory {}", dir.display()))?;
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        let Some(n) = name
            .to_str()
            .and_then(|n| n.strip_prefix("clique-"))
            .and_then(|n| n.strip_suffix(".svg"))
            .map(|n| n.strip_suffix("-overview").unwrap_or(n))
            .and_then(|n| n.parse::<usize>().ok())
        else {
            continue;
        };
        if n == 0 || n > cliques {
            std::fs::remove_file(entry.path()).with_context(|| {
                format!("cannot remove the stale picture {}", entry.path().display())
            })?;
        }
    }
    Ok(())
}
