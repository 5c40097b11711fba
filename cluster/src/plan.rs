//! The scan as a distributed plan, in SQL over the season's Parquet folder.
//!
//! 1. `open_groups`: the participants of each (day, IP), gathered in one
//!    aggregation; a group above the crowd limit is a crowd and gives no
//!    pairs (the scoring's crowded-IP rule), nor does a group of one.
//! 2. `pairs`: each group's accounts paired among themselves (two unnests),
//!    each undirected pair once with `x < y` (byte order of the names, as
//!    [`scoring::candidate_pairs`] orders them), with the least address
//!    they share. The IP-day rows cross the network once, grouped, where a
//!    join of the rows with their groups' counts and a self-join shuffled
//!    them three times.
//! 3. `tagged`: each pair is scored in the part of its link, the least of
//!    the addresses its accounts share ([`part`] of the address): the
//!    accounts behind one address meet in one part, so an account travels to
//!    about as many parts as it has shared addresses (at most the number of
//!    parts), not to one for each partner.
//! 4. `needed`: the distinct (part, account) of both members of every pair;
//!    `shipped` joins them with the packed segments (one row an account, as
//!    the layout stores them, packed by [`packed`] as they are read; the
//!    segments are the join's build side), so an account's segments travel
//!    once to each part that needs them, never with a pair: the shuffle is
//!    bounded by parts times accounts.
//! 5. A part's rows (its pairs, and its accounts with their segments) meet
//!    in one task, and the window function `detect_score` ([`score`]) scores
//!    every pair of the part both ways, holding the part's accounts once.
//!    The session partitions every join (see `nodes`), so no task collects
//!    a whole side.

use crate::layout;
use crate::{packed, part, score};
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

/// The distinct participants of a (day, IP) group. One shuffle of the
/// IP-day rows: `COUNT(DISTINCT ...)` and `array_agg(DISTINCT ...)` group
/// twice (by account, then by group), shuffling twice.
const GATHERED: &str = r#"array_distinct(array_agg("account"))"#;

/// The crowded (day, IP) groups: more participants than `crowd_limit`,
/// gathered as `pairs_sql` gathers them.
pub fn crowded_sql(crowd_limit: usize) -> String {
    format!(
        r#"SELECT day, ip, CAST(cardinality(accounts) AS BIGINT) AS accounts FROM (
    SELECT day, ip, {GATHERED} AS accounts FROM ip_days GROUP BY day, ip
) WHERE cardinality(accounts) > {crowd_limit}"#
    )
}

/// Every candidate pair, scored both ways: columns of [`layout::pairs_schema`].
/// `parts`: how many parts the pairs are scored in (the session's
/// partitions); each part receives the segments of the accounts its pairs
/// name, once.
pub fn pairs_sql(crowd_limit: usize, bucket_seconds: i64, parts: usize) -> String {
    let (score, part, pack) = (score::NAME, part::NAME, packed::NAME);
    format!(
        r#"WITH open_groups AS (
    SELECT ip, accounts FROM (
        SELECT ip, {GATHERED} AS accounts FROM ip_days GROUP BY day, ip
    ) WHERE cardinality(accounts) BETWEEN 2 AND {crowd_limit}
), members AS (
    SELECT ip, unnest(accounts) AS x, accounts FROM open_groups
), met AS (
    SELECT ip, x, unnest(accounts) AS y FROM members
), pairs AS (
    SELECT x, y, MIN(ip) AS link FROM met WHERE x < y GROUP BY x, y
), tagged AS (
    SELECT {part}(link, CAST({parts} AS BIGINT)) AS part, x, y FROM pairs
), roles AS (
    SELECT part, unnest(make_array(x, y)) AS "account", unnest(make_array(y, NULL)) AS partner FROM tagged
), needed AS (
    SELECT part, "account", array_agg(partner) FILTER (WHERE partner IS NOT NULL) AS partners
    FROM roles GROUP BY part, "account"
), shipped AS (
    SELECT n.part, n."account", n.partners, s.segs
    FROM (SELECT "account", {pack}(segments) AS segs FROM segments) s
    RIGHT JOIN needed n ON s."account" = n."account"
), scored AS (
    SELECT "account",
           {score}("account", partners, segs, CAST({bucket_seconds} AS BIGINT)) OVER (PARTITION BY part) AS scores
    FROM shipped
), flat AS (
    SELECT "account" AS account_x, unnest(scores) AS p FROM scored
)
SELECT account_x, p['account_y'] AS account_y, p['score'] AS score FROM flat"#
    )
}
