//! Retention: deleting raw moves and IP-day rows older than a cutoff.
//!
//! What stays: scans (their pairs, evidence and cliques, so a report of an
//! old season still prints), game names (so old seasons are still known),
//! and the stored segments until they are next cut. The moves generation is
//! not bumped, so stored scans stay the current ones; the segmentations are
//! marked stale instead, so the next scan cuts its segments from the moves
//! that remain and covers only those.

use super::{Result, Store};
use crate::model::Epoch;
use sqlx::Row;

/// What a purge removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Purged {
    /// The cutoff: moves before it were deleted (UTC epoch seconds).
    pub before: Epoch,
    /// Raw moves deleted.
    pub moves: u64,
    /// IP-day rows (who moved from which IP on which day) deleted.
    pub ip_days: u64,
    /// Moves left.
    pub moves_left: i64,
}

/// `store_state` key: UTC epoch seconds of the last purge.
const LAST_PURGE: &str = "last_purge_at";

impl Store {
    /// Deletes the moves before `before` and the IP-day rows of the days
    /// wholly before it, in one transaction, recording `now` as the time
    /// of the purge.
    pub async fn purge_before(&self, before: Epoch, now: Epoch) -> Result<Purged> {
        let mut tx = self.pool.begin().await?;
        let moves = sqlx::query("DELETE FROM moves WHERE ts < $1")
            .bind(before)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        let ip_days = sqlx::query("DELETE FROM ip_days WHERE day < $1")
            .bind(before.div_euclid(86_400))
            .execute(&mut *tx)
            .await?
            .rows_affected();
        if moves > 0 {
            // Stale: the next cut starts again from the moves left.
            sqlx::query("UPDATE segmentations SET generation = -1")
                .execute(&mut *tx)
                .await?;
        }
        sqlx::query(
            "INSERT INTO store_state (key, value) VALUES ($1, $2) \
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        )
        .bind(LAST_PURGE)
        .bind(now.to_string())
        .execute(&mut *tx)
        .await?;
        let moves_left: i64 = sqlx::query("SELECT COUNT(*) FROM moves")
            .fetch_one(&mut *tx)
            .await?
            .try_get(0)?;
        tx.commit().await?;
        Ok(Purged {
            before,
            moves,
            ip_days,
            moves_left,
        })
    }

    /// When the store was last purged (UTC epoch seconds).
    pub async fn last_purge(&self) -> Result<Option<Epoch>> {
        let row = sqlx::query("SELECT value FROM store_state WHERE key = $1")
            .bind(LAST_PURGE)
            .fetch_optional(&self.pool)
            .await?;
        Ok(match row {
            Some(r) => r.try_get::<String, _>(0)?.parse().ok(),
            None => None,
        })
    }
}
