//! The store's migrations, embedded in the binary at build time.
//!
//! `build.rs` lists `migrations/<backend>/<VERSION>_<description>.sql` and
//! includes each file's text; this module hands them to sqlx's migrator as
//! sqlx reads a migrations folder: the version from the name, underscores
//! of the description as spaces, the checksum of the text, a transaction
//! unless the text opens with `-- no-transaction`. Stores migrated by
//! earlier builds (through sqlx's `migrate!` macro, which read the same
//! files the same way) match their recorded checksums; a test checks the
//! list against sqlx's own reading of the folders. Doing it here instead of
//! in the macro leaves sqlx's proc macro, and the database drivers it
//! compiles for the compiler, out of every build.

use crate::Backend;
use futures_util::future::BoxFuture;
use sqlx::error::BoxDynError;
use sqlx::migrate::{Migration, MigrationSource, MigrationType, Migrator};
use std::borrow::Cow;

/// One migration file: its version, description and SQL.
#[derive(Debug)]
pub(crate) struct Embedded {
    version: i64,
    description: &'static str,
    sql: &'static str,
}

include!(concat!(env!("OUT_DIR"), "/migrations.rs"));

/// The embedded migrations of one backend, as a source for sqlx.
#[derive(Debug)]
struct Source(&'static [Embedded]);

impl MigrationSource<'static> for Source {
    fn resolve(self) -> BoxFuture<'static, Result<Vec<Migration>, BoxDynError>> {
        let migrations = self
            .0
            .iter()
            .map(|m| {
                Migration::new(
                    m.version,
                    Cow::Borrowed(m.description),
                    MigrationType::Simple,
                    Cow::Borrowed(m.sql),
                    m.sql.starts_with("-- no-transaction"),
                )
            })
            .collect();
        Box::pin(async move { Ok(migrations) })
    }
}

/// The migrator of a backend: every migration of this build, by version.
pub(crate) async fn migrator(backend: Backend) -> Migrator {
    let embedded = match backend {
        Backend::Sqlite => SQLITE,
        Backend::Postgres => POSTGRES,
    };
    Migrator::new(Source(embedded))
        .await
        .expect("embedded migrations resolve without I/O")
}

/// Brings the store's tables up to date. sqlx takes PostgreSQL's advisory
/// lock around its migrations but no lock on SQLite: parallel first runs on
/// a new file each applied migration N, and all but one failed ("duplicate
/// column", "already exists"). Each migration is applied and recorded in
/// one transaction, so a run that lost the race finds it recorded when it
/// tries again; SQLite's runs retry, a little later each time.
pub(crate) async fn migrate(
    backend: Backend,
    pool: &sqlx::AnyPool,
) -> std::result::Result<(), sqlx::migrate::MigrateError> {
    let migrator = migrator(backend).await;
    let tries = match backend {
        Backend::Sqlite => 40,
        Backend::Postgres => 1,
    };
    let mut tried: u64 = 0;
    loop {
        match migrator.run(pool).await {
            Ok(()) => return Ok(()),
            Err(e) if tried + 1 >= tries => return Err(e),
            Err(e) => {
                tried += 1;
                tracing::debug!("migrations raced another process ({e}); trying again");
                // Spread the retries of processes that started together.
                let jitter = u64::from(std::process::id() % 17);
                let wait = 20 * tried.min(10) + jitter;
                tokio::time::sleep(std::time::Duration::from_millis(wait)).await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a migrator holds, comparable.
    fn summary(m: &Migrator) -> Vec<(i64, String, Vec<u8>, bool, bool)> {
        m.iter()
            .map(|m| {
                let kind = m.migration_type.is_up_migration();
                let fields = (m.description.to_string(), m.checksum.to_vec());
                (m.version, fields.0, fields.1, m.no_tx, kind)
            })
            .collect()
    }

    #[tokio::test]
    async fn the_embedded_migrations_are_what_sqlx_reads_from_the_folders() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
        for (backend, folder) in [(Backend::Sqlite, "sqlite"), (Backend::Postgres, "postgres")] {
            let read = Migrator::new(root.join(folder)).await.expect("the folder");
            let embedded = migrator(backend).await;
            assert!(
                embedded.iter().count() >= 19,
                "{folder}: migrations missing"
            );
            assert_eq!(summary(&embedded), summary(&read), "{folder}");
        }
    }
}
