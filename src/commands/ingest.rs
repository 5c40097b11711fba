//! `detect ingest FILE...`

use crate::cli::IngestArgs;
use anyhow::Result;
use app::pipeline::{self, bucket_seconds};

/// An ingest's summary line on standard output, silent with `-q` (the
/// exit status says it worked; warnings still show).
fn say(line: impl std::fmt::Display) {
    if !crate::ui::quiet() {
        println!("{line}");
    }
}

pub async fn run(db: &app::pipeline::Db, args: IngestArgs) -> Result<()> {
    let store = pipeline::open_store(db)
        .await?
        .with_limits(args.limits.limits()?);
    let mut failed = None;
    let mut committed: Vec<String> = Vec::new();
    let mut nothing_new = true;
    for file in &args.files {
        match pipeline::ingest_file(&store, file, args.skip_bad).await {
            Ok(summary) => {
                say(&summary);
                nothing_new &= summary.stored == 0;
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
    // Nothing new and the stored segments current: nothing to cut.
    let bucket = bucket_seconds(args.bucket_minutes);
    let current = pipeline::segments_current(&store, bucket, Some(args.reference_order)).await?;
    if nothing_new && current.is_some() {
        if failed.is_none() {
            say(format!(
                "store: {} moves, nothing new; its {}-minute segments are current",
                store.move_count().await?,
                args.bucket_minutes
            ));
        }
        store.close().await;
        return failed.map_or(Ok(()), Err);
    }
    // The cut saves segments as it makes them: nothing here needs them all
    // in memory.
    let cut = pipeline::update_segments(&store, bucket, args.reference_order, false)
        .await
        .map_err(stored_note)?;
    if failed.is_none() {
        let order = if args.reference_order {
            ", reference (file) order"
        } else {
            ""
        };
        let how = if cut.extended {
            format!("; {} new moves cut onto the stored segments", cut.moves)
        } else {
            String::new()
        };
        say(format!(
            "store: {} moves, {} accounts, {} segments ({} with stalls), {}-minute buckets{order}{how}",
            cut.rows,
            cut.accounts,
            cut.counts.segments,
            cut.counts.stalled,
            args.bucket_minutes,
        ));
    }
    store.close().await;
    match failed {
        Some(e) => Err(e),
        None => Ok(()),
    }
}
