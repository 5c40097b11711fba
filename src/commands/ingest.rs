//! `detect ingest FILE...`

use crate::cli::IngestArgs;
use crate::pipeline::{self, bucket_seconds};
use anyhow::Result;

pub async fn run(db: &crate::pipeline::Db, args: IngestArgs) -> Result<()> {
    let store = pipeline::open_store(db)
        .await?
        .with_limits(args.limits.limits()?);
    let mut failed = None;
    let mut committed: Vec<String> = Vec::new();
    for file in &args.files {
        match pipeline::ingest_file(&store, file, args.skip_bad).await {
            Ok(summary) => {
                println!("{summary}");
                committed.push(format!("{} ({} new moves)", summary.file, summary.stored));
            }
            Err(e) => {
                // Files already ingested stay stored; the rest are not read.
                failed = Some(e);
                break;
            }
        }
    }
    // Cut the segments now, so reports start from them (also after a
    // failure: the files before it are stored).
    // A failure from here on comes after commits: say what is stored.
    let stored_note = |e: anyhow::Error| {
        if committed.is_empty() {
            e
        } else {
            e.context(format!(
                "the moves of {} are stored; cutting the segments failed, the next ingest or scan cuts them",
                committed.join(", ")
            ))
        }
    };
    let segments = pipeline::segments(
        &store,
        bucket_seconds(args.bucket_minutes),
        Some(args.reference_order),
    )
    .await
    .map_err(stored_note)?;
    let stalls: usize = segments
        .by_user
        .iter()
        .map(|s| s.iter().filter(|g| g.stalled).count())
        .sum();
    let total: usize = segments.by_user.iter().map(Vec::len).sum();
    if failed.is_none() {
        println!(
            "store: {} moves, {} users, {} segments ({} with stalls), {}-minute buckets{}",
            store.move_count().await?,
            segments.users.len(),
            total,
            stalls,
            args.bucket_minutes,
            if args.reference_order {
                ", reference (file) order"
            } else {
                ""
            }
        );
    }
    store.close().await;
    match failed {
        Some(e) => Err(e),
        None => Ok(()),
    }
}
