//! What operators ask of a running store: is it ready (reachable, its
//! migrations current), a consistent copy of it (SQLite), and a check of
//! what it holds, each problem said in one sentence.

use crate::moves::generation_key;
use crate::{Backend, Result, Store, StoreError};
use sqlx::Row;
use std::collections::BTreeMap;
use std::path::Path;

/// The migrations this build applies, by version, with their checksums.
async fn known_migrations(backend: Backend) -> BTreeMap<i64, Vec<u8>> {
    crate::migrations::migrator(backend)
        .await
        .iter()
        .filter(|m| m.migration_type.is_up_migration())
        .map(|m| (m.version, m.checksum.to_vec()))
        .collect()
}

impl Store {
    /// The store answers and every migration of this build is applied,
    /// whole and unchanged, with none unknown to it.
    pub async fn ready(&self) -> Result<()> {
        let problems = self.migration_problems().await?;
        match problems.first() {
            None => Ok(()),
            Some(p) => Err(StoreError::NotReady(p.trim_end_matches('.').to_owned())),
        }
    }

    /// What is wrong with the applied migrations, one sentence each.
    async fn migration_problems(&self) -> Result<Vec<String>> {
        let known = known_migrations(self.backend).await;
        let rows = sqlx::query(
            "SELECT version, CAST(CASE WHEN success THEN 1 ELSE 0 END AS BIGINT), checksum \
             FROM _sqlx_migrations",
        )
        .fetch_all(&self.pool)
        .await;
        let Ok(rows) = rows else {
            // Unreachable, or no table of migrations: ask again plainly,
            // so an unreachable server is an error, not a problem found.
            sqlx::query("SELECT 1").execute(&self.pool).await?;
            return Ok(vec![
                "the store records no migrations: detect never opened it.".to_owned(),
            ]);
        };
        let mut problems = Vec::new();
        let mut applied = BTreeMap::new();
        for row in rows {
            let version: i64 = row.try_get(0)?;
            let success = row.try_get::<i64, _>(1)? == 1;
            let checksum: Vec<u8> = row.try_get(2)?;
            if !success {
                problems.push(format!("migration {version} was left half applied."));
            }
            applied.insert(version, checksum);
        }
        for (version, checksum) in &known {
            match applied.get(version) {
                None => problems.push(format!("migration {version} is not applied.")),
                Some(c) if c != checksum => problems.push(format!(
                    "migration {version} was applied from a different text than this version's."
                )),
                Some(_) => {}
            }
        }
        for version in applied.keys().filter(|v| !known.contains_key(v)) {
            problems.push(format!(
                "migration {version} is unknown to this version (a newer detect wrote this store)."
            ));
        }
        Ok(problems)
    }

    /// Writes a consistent copy of the whole store (every site) to `dest`,
    /// a new file, while other processes read and write it: SQLite's
    /// `VACUUM INTO` reads one snapshot. PostgreSQL is refused: its own
    /// `pg_dump` does this.
    pub async fn backup(&self, dest: &Path) -> Result<()> {
        if self.backend != Backend::Sqlite {
            return Err(StoreError::Refused(
                "to back up a PostgreSQL store; use `pg_dump --format=custom --file=detect.dump DBNAME` \
                 and restore with `pg_restore --dbname=DBNAME detect.dump`"
                    .to_owned(),
            ));
        }
        if dest.exists() {
            return Err(StoreError::Refused(format!(
                "to overwrite {}; name a new file",
                dest.display()
            )));
        }
        let dest = dest
            .to_str()
            .ok_or_else(|| StoreError::Refused("a backup path that is not UTF-8".to_owned()))?;
        sqlx::query("VACUUM INTO $1")
            .bind(dest)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Checks the whole store: SQLite's integrity and foreign keys, the
    /// migrations, and for every site that no segmentation or scan claims
    /// moves newer than the site's, that every rescan's base scan is
    /// there, and that every scan's pairs read. One sentence per problem;
    /// none when the store is sound.
    pub async fn check(&self) -> Result<Vec<String>> {
        let mut problems = Vec::new();
        if self.backend == Backend::Sqlite {
            let rows = sqlx::query("PRAGMA integrity_check")
                .fetch_all(&self.pool)
                .await?;
            for row in rows {
                let line: String = row.try_get(0)?;
                if line != "ok" {
                    problems.push(format!("SQLite integrity check: {line}."));
                }
            }
            let rows = sqlx::query("PRAGMA foreign_key_check")
                .fetch_all(&self.pool)
                .await?;
            for row in rows {
                let table: String = row.try_get(0)?;
                let parent: String = row.try_get(2)?;
                problems.push(format!("a row of {table} names a missing row of {parent}."));
            }
        }
        let migrations = self.migration_problems().await?;
        if !migrations.is_empty() {
            // The tables read below may not be there, or not as read.
            problems.extend(migrations);
            return Ok(problems);
        }
        problems.extend(self.generation_problems().await?);
        problems.extend(self.rescan_problems().await?);
        problems.extend(self.pair_problems().await?);
        Ok(problems)
    }

    /// Segmentations and scans cut from a moves generation the site has
    /// not reached.
    async fn generation_problems(&self) -> Result<Vec<String>> {
        let mut problems = Vec::new();
        for (table, what) in [("segmentations", "segmentation"), ("scans", "scan")] {
            let sql = format!("SELECT id, site, generation FROM {table} ORDER BY id");
            for row in sqlx::query(&sql).fetch_all(&self.pool).await? {
                let id: i64 = row.try_get(0)?;
                let site: String = row.try_get(1)?;
                let generation: i64 = row.try_get(2)?;
                let current = crate::moves::read_generation(&self.pool, &site).await?;
                if generation > current {
                    problems.push(format!(
                        "{what} #{id} of site {site} claims moves generation {generation}, \
                         but the site's moves are at generation {current} ({}).",
                        generation_key(&site)
                    ));
                }
            }
        }
        Ok(problems)
    }

    /// Rescans whose base scan is gone, or of another site or season.
    async fn rescan_problems(&self) -> Result<Vec<String>> {
        let rows = sqlx::query(
            "SELECT s.id, s.base_scan, b.id, \
             CAST(CASE WHEN b.site = s.site AND b.season = s.season THEN 1 ELSE 0 END AS BIGINT) \
             FROM scans s LEFT JOIN scans b ON b.id = s.base_scan \
             WHERE s.base_scan IS NOT NULL ORDER BY s.id",
        )
        .fetch_all(&self.pool)
        .await?;
        let mut problems = Vec::new();
        for row in rows {
            let id: i64 = row.try_get(0)?;
            let base: i64 = row.try_get(1)?;
            let found: Option<i64> = row.try_get(2)?;
            let same: i64 = row.try_get(3)?;
            if found.is_none() {
                problems.push(format!("scan #{id} changes scan #{base}, which is gone."));
            } else if same != 1 {
                problems.push(format!(
                    "scan #{id} changes scan #{base} of another site or season."
                ));
            }
        }
        Ok(problems)
    }
}
