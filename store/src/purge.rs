//! Retention: deleting raw moves older than a cutoff, and with them every
//! stored segmentation (segments, sightings and runs of game days are
//! derived from the moves and hold their IPs).
//!
//! What stays: scans (their pairs, evidence and cliques, so a report of an
//! old season still prints) and game names (so old seasons are still
//! known). The moves generation is not bumped, so stored scans stay the
//! current ones; the next scan cuts its segments from the moves that remain
//! and covers only those.
//!
//! A purge covers every site. The IP pseudonyms of addresses left in no
//! move of their site are retired: the row keeps its number (so `IP-n`
//! names of the addresses that remain never change, and no number is given
//! twice) but its address becomes `purged IP-n`, so no address of a purged
//! move lingers there, raw in a plain store or hashed in a keyed one.
//!
//! The audit log is append-only and keeps its entries, with the `ipfp_`
//! fingerprints of a plain store's addresses; every purge deletes the
//! store's fingerprint secret (a new one is made at the next use), so a
//! fingerprint written before a purge matches no address any more, not
//! even for someone holding the store.

use super::{Result, Store};
use schema::model::Epoch;
use sqlx::{Any, Row, Transaction};

/// What a purge removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Purged {
    /// The cutoff: moves before it were deleted (UTC epoch seconds).
    pub before: Epoch,
    /// Raw moves deleted.
    pub moves: u64,
    /// Stored segmentations deleted (segments, sightings and runs of game
    /// days of every site and bucket size; cut again when next needed).
    pub segmentations: u64,
    /// Moves left.
    pub moves_left: i64,
    /// IP pseudonyms whose address is in no move left: their address was
    /// replaced by `purged IP-n`.
    pub pseudonyms_retired: u64,
}

/// The address of a retired IP pseudonym starts so.
pub const RETIRED_IP_PREFIX: &str = "purged IP-";

/// `store_state` key: UTC epoch seconds of the last purge.
const LAST_PURGE: &str = "last_purge_at";
/// `store_state` key: the latest cutoff of a purge; ingests store no move
/// before it, so what was purged stays purged.
const PURGED_BEFORE: &str = "purged_before";

impl Store {
    /// Deletes the moves before `before` and, when there were any, every
    /// stored segmentation (derived data that holds their IPs), in one
    /// transaction, recording `now` as the time of the purge.
    pub async fn purge_before(&self, before: Epoch, now: Epoch) -> Result<Purged> {
        let mut tx = self.pool.begin().await?;
        let moves = sqlx::query("DELETE FROM moves WHERE ts < $1")
            .bind(before)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        // Segments are derived from the moves, and hold their IPs: they go
        // whole, and the next cut starts again from the moves left.
        let mut segmentations = 0;
        if moves > 0 {
            for table in super::segments::SEGMENTATION_TABLES {
                sqlx::query(&format!("DELETE FROM {table}"))
                    .execute(&mut *tx)
                    .await?;
            }
            segmentations = sqlx::query("DELETE FROM segmentations")
                .execute(&mut *tx)
                .await?
                .rows_affected();
        }
        let horizon = purged_before(&mut tx)
            .await?
            .map_or(before, |h| h.max(before));
        for (key, value) in [(LAST_PURGE, now), (PURGED_BEFORE, horizon)] {
            super::moves::set_state(&mut *tx, key, &value.to_string()).await?;
        }
        sqlx::query("DELETE FROM store_state WHERE key = $1")
            .bind(super::privacy::FINGERPRINT_SECRET)
            .execute(&mut *tx)
            .await?;
        let pseudonyms_retired = if moves > 0 {
            retire_pseudonyms(&mut tx).await?
        } else {
            0
        };
        let moves_left: i64 = sqlx::query("SELECT COUNT(*) FROM moves")
            .fetch_one(&mut *tx)
            .await?
            .try_get(0)?;
        tx.commit().await?;
        Ok(Purged {
            before,
            moves,
            segmentations,
            moves_left,
            pseudonyms_retired,
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

/// The latest purge cutoff, if the store was ever purged.
pub(super) async fn purged_before(tx: &mut Transaction<'_, Any>) -> Result<Option<Epoch>> {
    let row = sqlx::query("SELECT value FROM store_state WHERE key = $1")
        .bind(PURGED_BEFORE)
        .fetch_optional(&mut **tx)
        .await?;
    Ok(match row {
        Some(r) => r.try_get::<String, _>(0)?.parse().ok(),
        None => None,
    })
}

/// Retires the IP pseudonyms of addresses that no move of their site holds
/// any more, site by site (one pass over the site's moves each).
async fn retire_pseudonyms(tx: &mut Transaction<'_, Any>) -> Result<u64> {
    let sites: Vec<String> = sqlx::query("SELECT DISTINCT site FROM ip_pseudonyms")
        .fetch_all(&mut **tx)
        .await?
        .iter()
        .map(|r| r.try_get(0))
        .collect::<Result<_, _>>()?;
    let mut retired = 0;
    for site in sites {
        retired += sqlx::query(
            "UPDATE ip_pseudonyms SET ip = CAST($2 AS TEXT) || CAST(number AS TEXT) \
             WHERE site = $1 AND ip NOT LIKE $3 \
             AND ip NOT IN (SELECT ip FROM moves WHERE site = $1)",
        )
        .bind(site)
        .bind(RETIRED_IP_PREFIX)
        .bind(format!("{RETIRED_IP_PREFIX}%"))
        .execute(&mut **tx)
        .await?
        .rows_affected();
    }
    Ok(retired)
}
