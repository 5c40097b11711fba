//! The scan as a distributed plan, in SQL over the season's Parquet folder.
//!
//! 1. `counts`: participants a (day, IP); those above the crowd limit are
//!    crowds and give no pairs (the scoring's crowded-IP rule).
//! 2. `pairs`: a self-join of the remaining IP-day rows on (day, IP), each
//!    undirected pair once with `x < y` (byte order of the names, as
//!    [`scoring::candidate_pairs`] orders them).
//! 3. `packed`: each account's segments, one row an account as the layout stores
//!    them.
//! 4. The pairs join the packed segments of `x`, then of `y` (each a
//!    shuffle by that account, so an executor loads only the segments of the
//!    accounts of its pairs), and `detect_score` scores both directions. The
//!    packed segments are each join's build side (a task holds the
//!    segments of its partition's accounts, about 1/P of the season) and the
//!    pairs stream past them; the session partitions every join (see
//!    `nodes`), so no task collects a whole side.

use crate::layout;
use crate::score;
use datafusion::prelude::{ParquetReadOptions, SessionContext};
use std::path::Path;

/// The tables a scan reads, registered from a season folder (replacing
/// those of an earlier scan in the session).
pub async fn register_season(ctx: &SessionContext, dir: &Path) -> datafusion::error::Result<()> {
    let path = |sub: &str| format!("{}/", dir.join(sub).display());
    // A session may scan several seasons (or one season twice): the names
    // point at this folder from now on.
    for table in ["segments", "ip_days"] {
        ctx.deregister_table(table)?;
    }
    ctx.register_parquet(
        "segments",
        path(layout::SEGMENTS),
        ParquetReadOptions::default(),
    )
    .await?;
    ctx.register_parquet(
        "ip_days",
        path(layout::IP_DAYS),
        ParquetReadOptions::default(),
    )
    .await
}

/// The (day, IP) groups with their number of participants.
const COUNTS: &str =
    r#"SELECT day, ip, COUNT(DISTINCT "account") AS accounts FROM ip_days GROUP BY day, ip"#;

/// The crowded (day, IP) groups: more participants than `crowd_limit`.
pub fn crowded_sql(crowd_limit: usize) -> String {
    format!("SELECT day, ip, accounts FROM ({COUNTS}) WHERE accounts > {crowd_limit}")
}

/// Every candidate pair, scored both ways: columns of [`layout::pairs_schema`].
pub fn pairs_sql(crowd_limit: usize, bucket_seconds: i64) -> String {
    let score = score::NAME;
    format!(
        r#"WITH open_groups AS (
    SELECT day, ip FROM ({COUNTS}) WHERE accounts <= {crowd_limit}
), sightings AS (
    SELECT i."account", i.day, i.ip FROM ip_days i JOIN open_groups o ON i.day = o.day AND i.ip = o.ip
), pairs AS (
    SELECT DISTINCT a."account" AS x, b."account" AS y
    FROM sightings a JOIN sightings b ON a.day = b.day AND a.ip = b.ip AND a."account" < b."account"
), packed AS (
    SELECT "account", segments AS segs FROM segments
), with_x AS (
    SELECT p.x, p.y, s.segs AS segs_x FROM packed s RIGHT JOIN pairs p ON s."account" = p.x
)
SELECT w.x AS account_x, w.y AS account_y,
       {score}(w.segs_x, s.segs, CAST({bucket_seconds} AS BIGINT)) AS score
FROM packed s RIGHT JOIN with_x w ON s."account" = w.y"#
    )
}
