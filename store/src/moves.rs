//! Reading raw moves and game names (`moves`, `games`), and the moves
//! generation (`store_state`); moves are written by the ingest batch
//! (`ingest/`).

use super::{Backend, Result, Store, StoreError};
use futures_util::TryStreamExt;
use schema::model::*;
use sqlx::{Any, Row};
use std::borrow::Cow;

/// One move as [`Store::for_each_move_time`] reads it: username, ip, time,
/// network (borrowed from the day's JSON unless a name holds an escape).
#[derive(serde::Deserialize)]
struct MoveTime<'a>(
    #[serde(borrow)] Cow<'a, str>,
    #[serde(borrow)] Cow<'a, str>,
    Epoch,
    #[serde(borrow)] Option<Cow<'a, str>>,
);

/// Stored moves that break the record rule (stored by an older version),
/// counted as a read leaves them out and reported once.
#[derive(Default)]
struct BadRows {
    count: u64,
    first: Option<schema::rules::Violation>,
}

impl BadRows {
    /// Whether `check` failed (then counted).
    fn broken(&mut self, check: std::result::Result<(), schema::rules::Violation>) -> bool {
        let Err(v) = check else { return false };
        self.count += 1;
        self.first.get_or_insert(v);
        true
    }

    /// One warning with their count, if any.
    fn warn(self) {
        if let Some(first) = self.first {
            tracing::warn!(
                rows = self.count,
                first = %first,
                "stored moves that break the record rule were left out"
            );
        }
    }
}

impl Store {
    /// The site's moves generation: bumped by every ingest that stores at
    /// least one move of the site (another site's ingest leaves it alone).
    pub async fn moves_generation(&self) -> Result<i64> {
        read_generation(&self.pool, &self.site).await
    }

    /// The site's stored moves.
    pub async fn move_count(&self) -> Result<i64> {
        Ok(sqlx::query("SELECT COUNT(*) FROM moves WHERE site = $1")
            .bind(self.site.to_string())
            .fetch_one(&self.pool)
            .await?
            .try_get(0)?)
    }

    /// Streams every stored move to `each`: by time (ties in ingest order),
    /// or in ingest order alone for reference order. Rows that break the
    /// record rule (stored by an older version) are left out and reported
    /// once, in one warning with their count.
    pub async fn for_each_move(
        &self,
        reference_order: bool,
        mut each: impl FnMut(Move),
    ) -> Result<u64> {
        let sql = if reference_order {
            "SELECT username, game, ts, ip FROM moves WHERE site = $1 ORDER BY id"
        } else {
            "SELECT username, game, ts, ip FROM moves WHERE site = $1 ORDER BY ts, id"
        };
        let mut rows = sqlx::query(sql)
            .bind(self.site.to_string())
            .fetch(&self.pool);
        let mut n = 0;
        let mut bad = BadRows::default();
        while let Some(row) = rows.try_next().await? {
            let m = Move {
                username: row.try_get(0)?,
                game: row.try_get(1)?,
                timestamp: row.try_get(2)?,
                ip: row.try_get(3)?,
            };
            if bad.broken(self.limits.check_move(&m)) {
                continue;
            }
            each(m);
            n += 1;
        }
        bad.warn();
        Ok(n)
    }

    /// Streams the time of every stored move to `each` as (username, time,
    /// ip, the network stored beside the ip), a day of moves at a time in
    /// no set order within the day: what improved mode reads beside the
    /// segments. Each day comes as one row, its moves in a JSON array built
    /// by the database (which escapes what a name may hold); one row per
    /// move costs several times more, as sqlx hands every row over a
    /// channel. Rows that break the record rule are left out and reported
    /// once, as in [`Store::for_each_move`]; the game is not read, so its
    /// own part of the rule is not checked here.
    pub async fn for_each_move_time(
        &self,
        mut each: impl FnMut(&str, Epoch, &str, Option<&str>),
    ) -> Result<u64> {
        let (mut n, mut bad) = (0u64, BadRows::default());
        // Day by day from each day's first move, so a gap of years between
        // two moves costs one query.
        let mut after = Epoch::MIN;
        while let Some(from) = self.first_move_time(after).await? {
            let to = from.saturating_add(schema::SECONDS_PER_DAY);
            let day = self.move_times_json(from, to).await?;
            let moves: Vec<MoveTime> = serde_json::from_str(day.as_deref().unwrap_or("[]"))
                .map_err(|e| StoreError::Corrupt(format!("stored move times: {e}")))?;
            for m in moves {
                if bad.broken(self.limits.check(&m.0, "", m.2, &m.1)) {
                    continue;
                }
                each(&m.0, m.2, &m.1, m.3.as_deref());
                n += 1;
            }
            after = to;
        }
        bad.warn();
        Ok(n)
    }

    /// The time of the site's first move at or after `after`, by the
    /// site-and-time index.
    async fn first_move_time(&self, after: Epoch) -> Result<Option<Epoch>> {
        Ok(
            sqlx::query("SELECT MIN(ts) FROM moves WHERE site = $1 AND ts >= $2")
                .bind(self.site.to_string())
                .bind(after)
                .fetch_one(&self.pool)
                .await?
                .try_get(0)?,
        )
    }

    /// The site's moves in `[from, to)` as one JSON array of
    /// `[username, ip, ts, net]` (`None`: none, on PostgreSQL).
    async fn move_times_json(&self, from: Epoch, to: Epoch) -> Result<Option<String>> {
        let sql = match self.backend {
            Backend::Sqlite => {
                "SELECT json_group_array(json_array(username, ip, ts, net)) FROM moves \
                 WHERE site = $1 AND ts >= $2 AND ts < $3"
            }
            Backend::Postgres => {
                "SELECT json_agg(json_build_array(username, ip, ts, net))::text FROM moves \
                 WHERE site = $1 AND ts >= $2 AND ts < $3"
            }
        };
        Ok(sqlx::query(sql)
            .bind(self.site.to_string())
            .bind(from)
            .bind(to)
            .fetch_one(&self.pool)
            .await?
            .try_get(0)?)
    }

    /// Distinct game names of the site, for inferring seasons.
    /// Whether a stored game of the site is named `4pLeague_S{number}_...`
    /// (an inferred season has games), without reading every name.
    pub async fn has_season_games(&self, number: u32) -> Result<bool> {
        let prefix = format!("4pLeague_S{number}_");
        let row = match self.backend {
            // Names compare byte by byte: the primary key's range.
            Backend::Sqlite => {
                sqlx::query(
                    "SELECT name FROM games WHERE site = $1 AND name >= $2 AND name < $3 \
                     ORDER BY name LIMIT 1",
                )
                .bind(self.site.to_string())
                .bind(prefix.clone())
                .bind(format!("4pLeague_S{number}`"))
                .fetch_optional(&self.pool)
                .await?
            }
            Backend::Postgres => {
                sqlx::query(
                    "SELECT name FROM games WHERE site = $1 AND starts_with(name, $2) LIMIT 1",
                )
                .bind(self.site.to_string())
                .bind(prefix.clone())
                .fetch_optional(&self.pool)
                .await?
            }
        };
        Ok(match row {
            Some(r) => r.try_get::<String, _>(0)?.starts_with(&prefix),
            None => false,
        })
    }

    pub async fn game_names(&self) -> Result<Vec<String>> {
        let rows = sqlx::query("SELECT name FROM games WHERE site = $1 ORDER BY name")
            .bind(self.site.to_string())
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(|r| Ok(r.try_get(0)?)).collect()
    }
}

/// The site's moves generation, read through `executor` (the pool, or a
/// transaction that must see the same moves it reads).
pub(crate) async fn read_generation<'e>(
    executor: impl sqlx::Executor<'e, Database = Any>,
    site: &str,
) -> Result<i64> {
    let row = sqlx::query("SELECT value FROM store_state WHERE key = $1")
        .bind(generation_key(site))
        .fetch_optional(executor)
        .await?;
    let Some(row) = row else { return Ok(0) };
    let v: String = row.try_get(0)?;
    v.parse()
        .map_err(|_| StoreError::Corrupt(format!("moves_generation is {v:?}")))
}

/// Sets `key` of `store_state` to `value`.
pub(crate) async fn set_state<'e>(
    executor: impl sqlx::Executor<'e, Database = Any>,
    key: &str,
    value: &str,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO store_state (key, value) VALUES ($1, $2) \
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    )
    .bind(key.to_owned())
    .bind(value.to_owned())
    .execute(executor)
    .await?;
    Ok(())
}

/// The `store_state` key of a site's moves generation (the default site
/// keeps the key stores had before sites).
pub(crate) fn generation_key(site: &str) -> String {
    if site == super::DEFAULT_SITE {
        "moves_generation".to_owned()
    } else {
        format!("moves_generation@{site}")
    }
}
