//! Stores of an earlier schema, for the tests of a migration: a store
//! migrated only so far, and the shape of a store's schema to compare.

use super::Backend;
use sqlx::any::AnyPoolOptions;
use sqlx::{AnyPool, Row};
use std::collections::BTreeSet;

/// A pool of one connection to a test store (an SQLite file is made if
/// missing).
pub async fn pool(url: &str) -> AnyPool {
    sqlx::any::install_default_drivers();
    let url = match url.starts_with("sqlite:") {
        true => format!("{url}?mode=rwc"),
        false => url.to_owned(),
    };
    AnyPoolOptions::new()
        .max_connections(1)
        .connect(&url)
        .await
        .expect("connect")
}

/// Tables with their columns, indexes and triggers: what a migration
/// changes, in a form both back ends give.
pub async fn schema_shape(url: &str, backend: Backend) -> BTreeSet<String> {
    let p = pool(url).await;
    let queries: &[&str] = match backend {
        Backend::Sqlite => &[
            "SELECT m.type || ' ' || m.name || ' ' || coalesce(c.name, '') || ' ' \
             || coalesce(c.type, '') || ' ' || coalesce(c.\"notnull\", '') || ' ' || coalesce(c.pk, '') \
             FROM sqlite_master m LEFT JOIN pragma_table_info(m.name) c \
             WHERE m.name NOT LIKE 'sqlite_%' AND m.name <> '_sqlx_migrations'",
            "SELECT 'index ' || m.name || ' ' || i.name FROM sqlite_master m \
             JOIN pragma_index_info(m.name) i WHERE m.type = 'index'",
        ],
        Backend::Postgres => &[
            "SELECT 'column ' || table_name::text || ' ' || column_name::text || ' ' \
             || data_type::text || ' ' || is_nullable::text FROM information_schema.columns \
             WHERE table_schema = 'public' AND table_name <> '_sqlx_migrations'",
            "SELECT 'index ' || indexname::text || ' ' || indexdef::text FROM pg_indexes \
             WHERE schemaname = 'public' AND tablename <> '_sqlx_migrations'",
            "SELECT 'trigger ' || tgname::text || ' ' || tgrelid::regclass::text FROM pg_trigger \
             WHERE NOT tgisinternal",
            "SELECT 'constraint ' || conname::text || ' ' || conrelid::regclass::text FROM pg_constraint \
             WHERE connamespace = 'public'::regnamespace",
        ],
    };
    let mut out = BTreeSet::new();
    for q in queries {
        for r in sqlx::query(q).fetch_all(&p).await.expect(q) {
            out.insert(r.get::<String, _>(0));
        }
    }
    p.close().await;
    out
}

/// Checks that the store at `url`, taken back by a migration's undo, has
/// the schema of the release before migration `version`: that of the empty
/// store at `old_url` migrated only as far ([`previous_release`]).
pub async fn assert_shaped_as_release_before(
    url: &str,
    old_url: &str,
    backend: Backend,
    version: i64,
) {
    previous_release(old_url, backend, version).await;
    assert_eq!(
        schema_shape(url, backend).await,
        schema_shape(old_url, backend).await
    );
}

/// A store migrated by the migrations before `version` only: the schema
/// of the release before it.
pub async fn previous_release(url: &str, backend: Backend, version: i64) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("store/migrations")
        .join(match backend {
            Backend::Sqlite => "sqlite",
            Backend::Postgres => "postgres",
        });
    let mut m = sqlx::migrate::Migrator::new(dir).await.expect("migrations");
    m.migrations = m
        .migrations
        .iter()
        .filter(|m| m.version < version)
        .cloned()
        .collect::<Vec<_>>()
        .into();
    let p = pool(url).await;
    m.run(&p).await.expect("the migrations before it");
    p.close().await;
}
