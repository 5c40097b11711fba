//! `detect timeline` and `detect compare`: pictures of any accounts and
//! seasons (a report directory's pictures: `app::report::pictures`).

use crate::cli::{CompareArgs, TimelineArgs};
use anyhow::{bail, Result};
use app::pipeline::{self, bucket_seconds};
use app::report::write_atomic;
use std::io::Write;
use std::path::Path;

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

pub async fn run_timeline(db: &app::pipeline::Db, args: TimelineArgs) -> Result<()> {
    let store = pipeline::open_store(db).await?;
    let season = pipeline::resolve_season(&store, args.season).await?;
    let segments = pipeline::segments(&store, bucket_seconds(args.bucket_minutes), None).await?;
    let pseudonyms = pipeline::ip_pseudonyms(&store, &season, &segments).await?;
    store.close().await;
    let unknown: Vec<&str> = args
        .accounts
        .iter()
        .map(String::as_str)
        .filter(|u| segments.accounts.get(u).is_none())
        .collect();
    if !unknown.is_empty() {
        bail!("no moves are stored for {}", unknown.join(", "));
    }
    let accounts: Vec<&str> = args.accounts.iter().map(String::as_str).collect();
    let opts = viz::TimelineOptions {
        show_ips: args.show_ips,
        from: season.from,
        to: season.to,
        title: format!("Season {}: {}", season.number, args.accounts.join(", ")),
        pseudonyms: Some(pseudonyms),
        highlights: Vec::new(),
    };
    emit(
        args.output.as_deref(),
        &viz::timeline(&segments, &accounts, &opts),
    )
}

pub async fn run_compare(db: &app::pipeline::Db, args: CompareArgs) -> Result<()> {
    let [a, b] = args.seasons[..] else {
        bail!(
            "compare takes exactly two seasons (--season A --season B), not {}",
            args.seasons.len()
        );
    };
    let params = args.scan.params()?;
    args.scan.model_choice()?;
    let store = pipeline::open_store(db).await?;
    let model = args.scan.model(Some(&store)).await?;
    let mut sims = Vec::new();
    for n in [a, b] {
        let season = pipeline::resolve_season(&store, n).await?;
        let scan = pipeline::current_scan(
            &store,
            &season,
            &params,
            model.as_ref(),
            Some(params.threshold),
        )
        .await?;
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
