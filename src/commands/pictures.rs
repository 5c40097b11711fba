//! Pictures for moderators: `report --out DIR` (HTML report, clique
//! timelines, distribution), `detect timeline` and `detect compare`.

use crate::cli::{CompareArgs, TimelineArgs};
use crate::pipeline::{self, bucket_seconds};
use crate::report::write_atomically;
use anyhow::{bail, Context, Result};
use schema::store::StoredScan;
use schema::{IpPseudonyms, ScanResult, Season, Segments};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The pictures and evidence of a report page, drawn once for the page and
/// the files beside it.
pub struct PageParts {
    /// Per clique: its timeline (also written as `clique-K.svg`) and
    /// overview, as SVG text (each drawing is dropped once written out: a
    /// season of 801 cliques held 9 GB of drawings).
    pub pictures: Vec<viz::CliquePictures>,
    pub distribution: svg::Document,
    /// `detect explain` of each flagged pair, by (a, b) with a < b.
    pub evidence: BTreeMap<(String, String), String>,
}

/// Draws the clique pictures (with the season's IP pseudonyms and the
/// strongest buckets marked), the distribution chart, and the evidence of
/// every flagged pair. The chart shows `similarities`, every directed
/// pair's, when `result` holds only some pairs (after a rescan); else those
/// of `result`.
pub fn page_parts(
    season: &Season,
    result: &ScanResult,
    segments: &Segments,
    pseudonyms: &IpPseudonyms,
    show_ips: bool,
    similarities: Option<&[f64]>,
) -> Result<PageParts> {
    let mut pictures = Vec::new();
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
            highlights: highlights(result, &clique.members),
        };
        pictures.push(viz::CliquePictures {
            overview: viz::overview(segments, &members, &opts).to_string(),
            timeline: viz::timeline(segments, &members, &opts).to_string(),
        });
    }
    let sims: Vec<f64> = match similarities {
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
    );
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
        distribution,
        evidence,
    })
}

/// How many of the strongest buckets the evidence of a pair lists per
/// direction in the HTML report.
const EVIDENCE_BUCKETS: usize = 10;
/// How many buckets a clique timeline marks as the strongest evidence.
const HIGHLIGHTS: usize = 12;

/// The strongest buckets of the flagged directions inside a clique, for the
/// timeline: each flagged direction's top buckets, strongest first, one mark
/// per bucket.
fn highlights(result: &ScanResult, members: &[String]) -> Vec<viz::Highlight> {
    let t = result.params.threshold;
    let inside = |u: &str| members.iter().any(|m| m == u);
    let mut all: Vec<(i64, i64, String)> = Vec::new();
    for p in &result.pairs {
        if p.similarity < t || !inside(&p.user_a) || !inside(&p.user_b) {
            continue;
        }
        for c in p.evidence.top_buckets.iter().filter(|c| c.score > 0) {
            all.push((
                c.score,
                c.bucket,
                format!(
                    "{:+} for {} \u{2192} {}: {}",
                    c.score,
                    p.user_a,
                    p.user_b,
                    c.cell.describe()
                ),
            ));
        }
    }
    all.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
    let mut seen = std::collections::BTreeSet::new();
    all.into_iter()
        .filter(|(_, bucket, _)| seen.insert(*bucket))
        .take(HIGHLIGHTS)
        .map(|(_, bucket, note)| viz::Highlight { bucket, note })
        .collect()
}

/// Writes `dir/index.html`, `dir/clique-K.svg` for each clique and
/// `dir/distribution.svg` (of `similarities`, as [`page_parts`]); returns
/// the path of the index. Each file is written to a temporary name and
/// renamed, so a reader never sees half a file.
pub fn write_report_dir(
    dir: &Path,
    season: &Season,
    scan: &StoredScan,
    segments: &Segments,
    pseudonyms: &IpPseudonyms,
    show_ips: bool,
    similarities: Option<&[f64]>,
) -> Result<PathBuf> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create the report directory {}", dir.display()))?;
    let result = &scan.result;
    let parts = page_parts(season, result, segments, pseudonyms, show_ips, similarities)?;
    let mut clique_svgs = Vec::new();
    for (k, pictures) in parts.pictures.iter().enumerate() {
        let name = format!("clique-{}.svg", k + 1);
        write_atomic(&dir.join(&name), pictures.timeline.as_bytes())?;
        clique_svgs.push(name);
    }
    let distribution = parts.distribution.to_string();
    write_atomic(&dir.join("distribution.svg"), distribution.as_bytes())?;
    let page = viz::ReportPage {
        title: format!("detect: season {}", season.number),
        season: season.number,
        result,
        clique_svgs,
        clique_pictures: parts.pictures,
        distribution_svg: Some("distribution.svg".to_owned()),
        distribution_inline: Some(distribution),
        evidence: parts.evidence,
        generated_note: format!(
            "Scan #{} of {} UTC over moves generation {}; games {}.",
            scan.id,
            ingest::time::format_utc(scan.created_at),
            scan.generation,
            season.games
        ),
    };
    let index = dir.join("index.html");
    write_atomic(&index, viz::report_html(&page).as_bytes())?;
    remove_stale_cliques(dir, page.clique_svgs.len())?;
    Ok(index)
}

/// Removes the `clique-N.svg` of an earlier report with more cliques, so the
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

/// Writes bytes through [`write_atomically`].
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomically(path, |out| Ok(out.write_all(bytes)?))
}

fn emit(output: Option<&Path>, doc: &svg::Document) -> Result<()> {
    match output {
        Some(path) => {
            write_atomic(path, doc.to_string().as_bytes())?;
            crate::ui::note(format!("wrote {}", path.display()));
        }
        None => {
            let mut out = std::io::stdout().lock();
            writeln!(out, "{doc}")?;
            out.flush()?;
        }
    }
    Ok(())
}

pub async fn run_timeline(db: &crate::pipeline::Db, args: TimelineArgs) -> Result<()> {
    let store = pipeline::open_store(db).await?;
    let season = pipeline::resolve_season(&store, args.season).await?;
    let segments = pipeline::segments(&store, bucket_seconds(args.bucket_minutes), None).await?;
    let pseudonyms = pipeline::ip_pseudonyms(&store, &season, &segments).await?;
    store.close().await;
    let unknown: Vec<&str> = args
        .users
        .iter()
        .map(String::as_str)
        .filter(|u| segments.users.get(u).is_none())
        .collect();
    if !unknown.is_empty() {
        bail!("no moves are stored for {}", unknown.join(", "));
    }
    let users: Vec<&str> = args.users.iter().map(String::as_str).collect();
    let opts = viz::TimelineOptions {
        show_ips: args.show_ips,
        from: season.from,
        to: season.to,
        title: format!("Season {}: {}", season.number, args.users.join(", ")),
        pseudonyms: Some(pseudonyms),
        highlights: Vec::new(),
    };
    emit(
        args.output.as_deref(),
        &viz::timeline(&segments, &users, &opts),
    )
}

pub async fn run_compare(db: &crate::pipeline::Db, args: CompareArgs) -> Result<()> {
    let [a, b] = args.seasons[..] else {
        bail!(
            "compare takes exactly two seasons (--season A --season B), not {}",
            args.seasons.len()
        );
    };
    let params = args.scan.params()?;
    let store = pipeline::open_store(db).await?;
    let mut sims = Vec::new();
    for n in [a, b] {
        let season = pipeline::resolve_season(&store, n).await?;
        let scan = pipeline::current_scan(&store, &season, &params).await?;
        sims.push(
            scan.result
                .pairs
                .iter()
                .map(|p| p.similarity)
                .collect::<Vec<f64>>(),
        );
    }
    store.close().await;
    let (la, lb) = (format!("season {a}"), format!("season {b}"));
    let doc = viz::compare(
        &viz::Series {
            label: &la,
            similarities: &sims[0],
        },
        &viz::Series {
            label: &lb,
            similarities: &sims[1],
        },
        params.threshold,
    );
    for (label, s) in [(&la, &sims[0]), (&lb, &sims[1])] {
        let above = s.iter().filter(|&&x| x >= params.threshold).count();
        crate::ui::note(format!(
            "{label}: {above} of {} directed pairs at or above {} ({:.1}%)",
            s.len(),
            params.threshold,
            if s.is_empty() {
                0.0
            } else {
                100.0 * above as f64 / s.len() as f64
            }
        ));
    }
    emit(args.output.as_deref(), &doc)
}
