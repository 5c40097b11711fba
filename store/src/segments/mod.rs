//! Segmentations: the segments of all moves for one bucket size
//! (`segmentations`, `segment_chunks`, `account_days`, `segmentation_games`,
//! and the moves' times in `move_time_chunks`). Saved by a
//! [`SegmentationWriter`] part by part, from a whole cut or as an extension with the moves stored
//! since (`tail.rs`); loaded whole.

pub(super) mod chunk;
mod days;
mod load;
mod save;
mod tail;
mod times;

pub(crate) use chunk::CHUNK_BYTES;
pub(crate) use save::SEGMENTATION_TABLES;
pub use save::{Saved, SegmentCounts, SegmentationWriter};
pub use tail::TailRecord;

use super::{Result, Store};
use sqlx::Row;

impl Store {
    /// The moves generation and order of the stored segmentation for
    /// `bucket_seconds`, without loading it: whether it is current is one
    /// query.
    pub async fn segmentation_state(&self, bucket_seconds: i64) -> Result<Option<(i64, bool)>> {
        let row = sqlx::query(
            "SELECT generation, reference_order FROM segmentations \
             WHERE bucket_seconds = $1 AND site = $2 ORDER BY id DESC LIMIT 1",
        )
        .bind(bucket_seconds)
        .bind(self.site.to_string())
        .fetch_optional(&self.pool)
        .await?;
        Ok(match row {
            Some(r) => Some((r.try_get(0)?, r.try_get::<i64, _>(1)? != 0)),
            None => None,
        })
    }

    /// The order of the most recent segmentation: `Some(true)` if the last
    /// ingest asked for reference order.
    pub async fn segmentation_order(&self) -> Result<Option<bool>> {
        let row = sqlx::query(
            "SELECT reference_order FROM segmentations WHERE site = $1 ORDER BY id DESC LIMIT 1",
        )
        .bind(self.site.to_string())
        .fetch_optional(&self.pool)
        .await?;
        Ok(match row {
            Some(r) => Some(r.try_get::<i64, _>(0)? != 0),
            None => None,
        })
    }
}
