//! `detect purge --older-than 90d`: retention.

use crate::cli::PurgeArgs;
use anyhow::{bail, Result};
use app::pipeline;
use app::purge::{describe, purge};
use ingest::time::{parse_date, parse_time};

pub async fn run(db: &pipeline::Db, args: PurgeArgs) -> Result<()> {
    let now = chrono::Utc::now().timestamp();
    let before = match (args.older_than, &args.before) {
        (Some(age), _) => now - age,
        (None, Some(t)) => parse_date(t)
            .or_else(|_| parse_time(t))
            .map_err(|e| anyhow::anyhow!("--before {t:?}: {e}"))?,
        (None, None) => bail!("give --older-than or --before"),
    };
    let store = pipeline::open_store(db).await?;
    let purged = purge(&store, before, now).await?;
    println!("{}", describe(&purged));
    store.close().await;
    Ok(())
}
