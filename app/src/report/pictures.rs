//! The pictures of a report page and of a report directory (`report --out
//! DIR`, `detect simulate`, the daemon's reports): each clique's timeline
//! and overview, the distribution chart and each flagged pair's evidence,
//! drawn once; in a directory written atomically beside the page.

use crate::report::page::{report_page, PageFiles, PageSource};
use crate::report::picture_cache::{self, overview_file, timeline_file, PictureCache};
use crate::report::write_atomic;
use anyhow::{Context, Result};
use schema::ScanResult;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The pictures and evidence of a report page, drawn once for the page and
/// the files beside it.
pub struct PageParts {
    /// Per clique: its timeline (also written as `clique-K.svg`) and
    /// overview, as SVG text (each drawing is dropped once written out: a
    /// season of 801 cliques held 9 GB of drawings).
    pub pictures: Vec<viz::CliquePictures>,
    /// Per clique: the key its pictures were drawn for
    /// ([`picture_cache::key`]).
    pub keys: Vec<String>,
    /// Per clique: whether its pictures were read back from an earlier
    /// report, not drawn.
    pub kept: Vec<bool>,
    /// The distribution chart, as SVG text.
    pub distribution: String,
    /// `detect explain` of each flagged pair, by (a, b) with a < b.
    pub evidence: BTreeMap<(String, String), String>,
}

/// Draws the clique pictures (with the season's IP pseudonyms and the
/// strongest buckets marked), the distribution chart, and the evidence of
/// every flagged pair of the scan `src` shows. The chart shows
/// `src.similarities`, every directed pair's, when the scan holds only some
/// pairs (after a rescan); else those of the scan.
pub fn page_parts(src: &PageSource, cache: Option<&PictureCache>) -> Result<PageParts> {
    let (season, segments, pseudonyms) = (src.season, src.segments, src.pseudonyms);
    let show_ips = src.show_ips;
    let result: &ScanResult = &src.reviewed.to_review;
    let mut pictures = Vec::new();
    let mut keys = Vec::new();
    let mut kept_any = Vec::new();
    for (k, clique) in result.cliques.iter().enumerate() {
        let members: Vec<&str> = clique.members.iter().map(String::as_str).collect();
        let opts = viz::TimelineOptions {
            show_ips,
            from: season.from,
            to: season.to,
            title: format!(
                "Season {}, clique {}: {}",
                season.number,
                k + 1,
                clique.members.join(", ")
            ),
            pseudonyms: Some(pseudonyms.clone()),
            highlights: viz::timeline::strongest_buckets(result, &members),
        };
        let key = picture_cache::key(segments, &members, &opts);
        let kept = cache.and_then(|c| c.get(k + 1, &key));
        kept_any.push(kept.is_some());
        pictures.push(kept.unwrap_or_else(|| viz::CliquePictures {
            overview: viz::overview(segments, &members, &opts).to_string(),
            timeline: viz::timeline(segments, &members, &opts).to_string(),
        }));
        keys.push(key);
    }
    let sims: Vec<f64> = match src.similarities {
        Some(s) => s.to_vec(),
        None => result.pairs.iter().map(|p| p.similarity).collect(),
    };
    let distribution = viz::distribution(
        &sims,
        result.params.threshold,
        &format!(
            "Season {}: similarity of every directed pair",
            season.number
        ),
    )
    .to_string();
    let mut evidence = BTreeMap::new();
    for row in scoring::both_ways(result, false) {
        let text = viz::explain(
            segments,
            season,
            result,
            row.a,
            row.b,
            EVIDENCE_BUCKETS,
            show_ips,
            pseudonyms,
        )?;
        evidence.insert((row.a.to_owned(), row.b.to_owned()), text);
    }
    Ok(PageParts {
        pictures,
        keys,
        kept: kept_any,
        distribution,
        evidence,
    })
}

/// How many of the strongest buckets the evidence of a pair lists per
/// direction in the HTML report.
const EVIDENCE_BUCKETS: usize = 10;
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
