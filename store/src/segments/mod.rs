//! Segmentations: the segments of all moves for one bucket size
//! (`segmentations`, `segment_chunks`, `account_days`, `segmentation_games`,
//! and the moves' times in `move_time_chunks`). Saved by a
//! [`SegmentationWriter`] (`writer.rs`) part by part as a cut goes, from a
//! whole cut or as an extension with the moves stored since (`tail.rs`); the
//! moves a cut reads are read in the writer's transaction (`read_moves.rs`),
//! and what a saved segmentation holds is counted in `saved.rs`. Loaded
//! whole (`load.rs`), decoded on every core (`decoded.rs`); chunks, days and
//! move times are encoded in `chunk.rs`, `days.rs` and `times.rs`.

pub(super) mod chunk;
mod days;
mod decoded;
mod load;
mod read_moves;
mod saved;
mod tail;
mod times;
mod writer;

pub(crate) use chunk::CHUNK_BYTES;
pub use saved::{Saved, SegmentCounts};
pub use tail::TailRecord;
pub use writer::SegmentationWriter;
pub(crate) use writer::SEGMENTATION_TABLES;

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
