//! `detect purge --older-than 90d`: retention.

use crate::pipeline;
use anyhow::{bail, Result};
use clap::Args;
use ingest::time::{format_utc, parse_date, parse_time};
use store::{Purged, Store};

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("cutoff").required(true))]
pub struct PurgeArgs {
    /// Delete what is older than this, counted back from now: 90d, 12w, 36h.
    #[arg(long, group = "cutoff", value_parser = parse_age)]
    pub older_than: Option<i64>,
    /// Delete what is before this UTC time (YYYY-MM-DD or a full time).
    #[arg(long, group = "cutoff")]
    pub before: Option<String>,
}

/// `90d` (days), `12w` (weeks) or `36h` (hours) as seconds.
pub fn parse_age(s: &str) -> Result<i64, String> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (n, unit) = s.split_at(split);
    let n: i64 = n
        .parse()
        .map_err(|_| format!("{s:?} is not an age such as 90d, 12w or 36h"))?;
    let unit = match unit {
        "h" => 3_600,
        "d" => 86_400,
        "w" => 7 * 86_400,
        _ => return Err(format!("{s:?} is not an age such as 90d, 12w or 36h")),
    };
    if n == 0 {
        return Err("an age of 0 would delete every move".into());
    }
    Ok(n * unit)
}

pub async fn run(db: &crate::pipeline::Db, args: PurgeArgs) -> Result<()> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages() {
        assert_eq!(parse_age("90d"), Ok(90 * 86_400));
        assert_eq!(parse_age("2w"), Ok(14 * 86_400));
        assert_eq!(parse_age("36h"), Ok(36 * 3_600));
        for bad in ["90", "d", "9x", "-3d", "0d", ""] {
            assert!(parse_age(bad).is_err(), "{bad}");
        }
    }
}
