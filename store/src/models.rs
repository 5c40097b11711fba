//! Improved mode's models, versioned (`models`): every model file a site
//! scored with, numbered by the store, with where it came from and how it
//! was measured. A model is stored once per site (by the digest of the
//! model as the caller reads it); the file is kept as it came, so an export
//! writes the same bytes back. Scans name the version they scored with
//! (`scans.model_version`).

use super::{Result, Store};
use schema::model::Epoch;
use sqlx::Row;

/// A model to store.
#[derive(Debug, Clone)]
pub struct NewModel<'a> {
    /// The model's name, as its file gives it.
    pub name: &'a str,
    /// The model file, byte for byte.
    pub file: &'a str,
    /// Identifies the model whatever the file's layout (the caller's
    /// digest of the model as it writes it).
    pub digest: &'a str,
    /// What it was fitted on and how it was measured, as the model says.
    pub fitted_on: &'a str,
    pub measured: &'a str,
    /// Where it came from: "shipped", "fitted on season 7", "imported from
    /// site.json".
    pub source: &'a str,
    /// Who or what added it ("detect model import", "the daemon").
    pub added_by: &'a str,
}

/// A stored model.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredModel {
    /// Numbered by the store, in the order models were added.
    pub version: i64,
    pub name: String,
    pub file: String,
    pub fitted_on: String,
    pub measured: String,
    pub source: String,
    pub added_by: String,
    /// UTC epoch seconds.
    pub added_at: Epoch,
    /// The scans of this site that scored with it.
    pub scans: u64,
}

/// The model an improved scan scored with, as [`Store::save_scan`] records
/// it: the file and its stored version.
#[derive(Debug, Clone, Copy)]
pub struct ScanModel<'a> {
    pub file: &'a str,
    pub version: i64,
}

const COLUMNS: &str = "SELECT m.version, m.name, m.file, m.fitted_on, m.measured, m.source, \
     m.added_by, m.added_at, \
     (SELECT COUNT(*) FROM scans s WHERE s.model_version = m.version AND s.site = m.site) \
     FROM models m";

impl Store {
    /// Stores a model as the next version unless this site already holds
    /// one of the same digest; returns its version and whether it was
    /// added now.
    pub async fn add_model(&self, model: &NewModel<'_>, added_at: Epoch) -> Result<(i64, bool)> {
        let mut tx = self.begin_write().await?;
        // Looked up first: PostgreSQL's insert that conflicts would still
        // take a number, and versions would skip.
        let held = sqlx::query("SELECT version FROM models WHERE site = $1 AND digest = $2")
            .bind(self.site.to_string())
            .bind(model.digest.to_owned())
            .fetch_optional(&mut *tx)
            .await?;
        if let Some(row) = held {
            tx.commit().await?;
            return Ok((row.try_get(0)?, false));
        }
        let added = sqlx::query(
            "INSERT INTO models (site, name, file, digest, fitted_on, measured, source, added_by, added_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (site, digest) DO NOTHING",
        )
        .bind(self.site.to_string())
        .bind(model.name.to_owned())
        .bind(model.file.to_owned())
        .bind(model.digest.to_owned())
        .bind(model.fitted_on.to_owned())
        .bind(model.measured.to_owned())
        .bind(model.source.to_owned())
        .bind(model.added_by.to_owned())
        .bind(added_at)
        .execute(&mut *tx)
        .await?
        .rows_affected()
            > 0;
        let version: i64 =
            sqlx::query("SELECT version FROM models WHERE site = $1 AND digest = $2")
                .bind(self.site.to_string())
                .bind(model.digest.to_owned())
                .fetch_one(&mut *tx)
                .await?
                .try_get(0)?;
        tx.commit().await?;
        Ok((version, added))
    }

    /// Model `version` of this site, if it holds one.
    pub async fn model(&self, version: i64) -> Result<Option<StoredModel>> {
        let row = sqlx::query(&format!("{COLUMNS} WHERE m.site = $1 AND m.version = $2"))
            .bind(self.site.to_string())
            .bind(version)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|r| stored_model(&r)).transpose()
    }

    /// This site's models, oldest version first.
    pub async fn models(&self) -> Result<Vec<StoredModel>> {
        let rows = sqlx::query(&format!("{COLUMNS} WHERE m.site = $1 ORDER BY m.version"))
            .bind(self.site.to_string())
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(stored_model).collect()
    }
}

fn stored_model(r: &sqlx::any::AnyRow) -> Result<StoredModel> {
    Ok(StoredModel {
        version: r.try_get(0)?,
        name: r.try_get(1)?,
        file: r.try_get(2)?,
        fitted_on: r.try_get(3)?,
        measured: r.try_get(4)?,
        source: r.try_get(5)?,
        added_by: r.try_get(6)?,
        added_at: r.try_get(7)?,
        scans: r.try_get::<i64, _>(8)? as u64,
    })
}
