//! Retention: deleting raw moves and IP rows before a cutoff (`detect
//! purge`, the daemon's `retention_days`).

use anyhow::Result;
use ingest::time::format_utc;
use store::{Purged, Store};

/// Purges and logs what went.
pub async fn purge(store: &Store, before: i64, now: i64) -> Result<Purged> {
    let purged = store.purge_before(before, now).await?;
    tracing::info!(
        before = %format_utc(before),
        moves = purged.moves,
        segmentations = purged.segmentations,
        "store purged"
    );
    Ok(purged)
}

/// One line: what was removed, what stays.
pub fn describe(p: &Purged) -> String {
    format!(
        "purged everything before {} UTC: {} moves and {} stored segmentations deleted \
         (cut again from the moves left when next needed), {} moves left; \
         scans and their reports are kept",
        format_utc(p.before),
        p.moves,
        p.segmentations,
        p.moves_left
    )
}
