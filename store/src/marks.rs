//! The daemon's high-water marks (`source_marks`); they are set inside an
//! ingest transaction by [`super::IngestBatch::set_source_mark`].

use super::{Result, Store};
use sqlx::Row;

impl Store {
    /// The high-water mark of a daemon source, if any.
    pub async fn source_mark(&self, source: &str) -> Result<Option<String>> {
        let row = sqlx::query("SELECT mark FROM source_marks WHERE source = $1")
            .bind(source.to_owned())
            .fetch_optional(&self.pool)
            .await?;
        row.map(|r| r.try_get(0)).transpose().map_err(Into::into)
    }
}
