//! Pictures for moderators: `report --out DIR` (HTML report, clique
//! timelines, distribution), `detect timeline` and `detect compare`.

use crate::cli::{CompareArgs, TimelineArgs};
use crate::pipeline::{self, bucket_seconds};
use crate::report::write_atomically;
use anyhow::{bail, Context, Result};
use schema::store::StoredScan;
use schema::{Season, Segments};
use std::path::{Path, PathBuf};

/// Writes `dir/index.html`, `dir/clique-K.svg` for each clique and
/// `dir/distribution.svg`; returns the path of the index. Each file is
/// written to a temporary name and renamed, so a reader never sees half a
/// file.
pub fn write_report_dir(
    dir: &Path,
    season: &Season,
    scan: &StoredScan,
    segments: &Segments,
    show_ips: bool,
) -> Result<PathBuf> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create the report directory {}", dir.display()))?;
    let result = &scan.result;
    let mut clique_svgs = Vec::new();
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
        };
        let name = format!("clique-{}.svg", k + 1);
        write_atomic(
            &dir.join(&name),
            viz::timeline(segments, &members, &opts)
                .to_string()
                .as_bytes(),
        )?;
        clique_svgs.push(name);
    }
    let sims: Vec<f64> = result.pairs.iter().map(|p| p.similarity).collect();
    let chart = viz::distribution(
        &sims,
        result.params.threshold,
        &format!(
            "Season {}: similarity of every directed pair",
            season.number
        ),
    );
    write_atomic(&dir.join("distribution.svg"), chart.to_string().as_bytes())?;
    let page = viz::ReportPage {
        title: format!("detect: season {}", season.number),
        season: season.number,
        result,
        clique_svgs,
        distribution_svg: Some("distribution.svg".to_owned()),
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
            eprintln!("wrote {}", path.display());
        }
        None => println!("{doc}"),
    }
    Ok(())
}

pub async fn run_timeline(db: &str, args: TimelineArgs) -> Result<()> {
    let store = pipeline::open_store(db).await?;
    let season = pipeline::resolve_season(&store, args.season).await?;
    let segments = pipeline::segments(&store, bucket_seconds(args.bucket_minutes), None).await?;
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
    };
    emit(
        args.output.as_deref(),
        &viz::timeline(&segments, &users, &opts),
    )
}

pub async fn run_compare(db: &str, args: CompareArgs) -> Result<()> {
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
        eprintln!(
            "{label}: {above} of {} directed pairs at or above {} ({:.1}%)",
            s.len(),
            params.threshold,
            if s.is_empty() {
                0.0
            } else {
                100.0 * above as f64 / s.len() as f64
            }
        );
    }
    emit(args.output.as_deref(), &doc)
}
