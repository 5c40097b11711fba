//! Files already ingested (`file_digests`): the SHA-256 of a file's bytes
//! per site, read and written inside the ingest transaction, so a digest is
//! stored exactly when the file's moves are.

use super::{IngestBatch, Result};
use sqlx::Row;

/// A file ingested before into the batch's site.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredFile {
    /// Moves the file held when it was ingested.
    pub moves: u64,
    /// Seconds since the epoch of that ingest.
    pub ingested_at: i64,
}

impl IngestBatch<'_> {
    /// The file with this digest, if it was ingested into the site before.
    pub async fn stored_file(&mut self, digest: &str) -> Result<Option<StoredFile>> {
        let row = sqlx::query(
            "SELECT moves, ingested_at FROM file_digests WHERE site = $1 AND digest = $2",
        )
        .bind(self.site.to_string())
        .bind(digest.to_owned())
        .fetch_optional(&mut *self.tx)
        .await?;
        let Some(row) = row else { return Ok(None) };
        let moves: i64 = row.try_get(0)?;
        Ok(Some(StoredFile {
            moves: moves as u64,
            ingested_at: row.try_get(1)?,
        }))
    }

    /// Records a file's digest, stored when the batch commits (and dropped
    /// with it when it rolls back).
    pub async fn record_file(
        &mut self,
        digest: &str,
        bytes: u64,
        moves: u64,
        ingested_at: i64,
    ) -> Result<()> {
        sqlx::query(
            "INSERT INTO file_digests (site, digest, bytes, moves, ingested_at) \
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (site, digest) DO NOTHING",
        )
        .bind(self.site.to_string())
        .bind(digest.to_owned())
        .bind(bytes as i64)
        .bind(moves as i64)
        .bind(ingested_at)
        .execute(&mut *self.tx)
        .await?;
        Ok(())
    }

    /// Whether moves of the store were ever purged (a file skipped as
    /// already stored does not bring them back).
    pub fn purged(&self) -> bool {
        self.purged_before.is_some()
    }
}
