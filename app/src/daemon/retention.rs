//! `retention_days`: the daemon purges moves and IP rows older than that,
//! once a day (at the first tick a day after the last purge).

use anyhow::Result;
use store::Store;

/// Seconds between two purges.
const PURGE_EVERY: i64 = 86_400;

/// Purges when retention is configured and the last purge is a day old (or
/// there was none); returns whether it purged.
pub async fn apply_daily(store: &Store, retention_days: Option<u32>) -> Result<bool> {
    let Some(days) = retention_days else {
        return Ok(false);
    };
    let now = chrono::Utc::now().timestamp();
    if store
        .last_purge()
        .await?
        .is_some_and(|last| now - last < PURGE_EVERY)
    {
        return Ok(false);
    }
    let purged = crate::purge::purge(store, now - days as i64 * 86_400, now).await?;
    tracing::info!(
        "retention of {days} days: {}",
        crate::purge::describe(&purged)
    );
    Ok(true)
}
