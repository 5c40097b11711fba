//! The connection pool: one connection for SQLite with its pragmas, eight
//! for PostgreSQL, and SQLite's process-wide settings made before its first
//! connection.

use super::{Backend, Result, StoreError};
use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use std::str::FromStr;

/// A pool of connections to `url` (shown as `shown` in errors): one for
/// SQLite, with its pragmas on each connection; eight for PostgreSQL. A
/// first plain connection says why a server refuses.
pub(crate) async fn connect(backend: Backend, url: &str, shown: &str) -> Result<sqlx::AnyPool> {
    if backend == Backend::Sqlite {
        sqlite_config();
    }
    let connect_url = match backend {
        Backend::Sqlite if !url.contains("mode=") => {
            let sep = if url.contains('?') { '&' } else { '?' };
            format!("{url}{sep}mode=rwc")
        }
        _ => url.to_owned(),
    };
    let options = AnyConnectOptions::from_str(&connect_url).map_err(|source| StoreError::Open {
        url: shown.to_owned(),
        source,
    })?;
    // One plain connection first: a pool that cannot connect only says
    // it timed out, while this says why (refused, bad password, ...).
    {
        use sqlx::{ConnectOptions, Connection};
        let conn = options.connect().await.map_err(|source| StoreError::Open {
            url: shown.to_owned(),
            source,
        })?;
        conn.close().await.ok();
    }
    AnyPoolOptions::new()
        .max_connections(if backend == Backend::Sqlite { 1 } else { 8 })
        .acquire_timeout(std::time::Duration::from_secs(10))
        .after_connect(move |conn, _| {
            Box::pin(async move {
                if backend == Backend::Sqlite {
                    // A large ingest is one transaction: statement
                    // journals in memory keep it from rewriting pages on
                    // disk. Its inserts go mostly to the right edge of
                    // each B-tree, so a page cache of 64 MB holds what
                    // they touch: at 10M moves 256 MB made the ingest
                    // and a whole scan slower, and 190 MB larger.
                    for pragma in [
                        "PRAGMA journal_mode = WAL",
                        "PRAGMA synchronous = NORMAL",
                        "PRAGMA foreign_keys = ON",
                        "PRAGMA busy_timeout = 10000",
                        "PRAGMA cache_size = -65536",
                        "PRAGMA temp_store = MEMORY",
                    ] {
                        sqlx::query(pragma).execute(&mut *conn).await?;
                    }
                }
                Ok(())
            })
        })
        .connect_with(options)
        .await
        .map_err(|source| StoreError::Open {
            url: shown.to_owned(),
            source,
        })
}

/// Turns off SQLite's count of its memory in use, once, before its first
/// connection. The count takes one process-wide mutex around every
/// allocation and free, and a read's rows are freed on another thread than
/// the one that made them: a whole cut at 2M moves spent a fifth of its time
/// waking threads on that mutex. Nothing here reads the count. Once SQLite
/// has started the setting is refused and left as it was, which only costs
/// speed.
fn sqlite_config() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: `sqlite3_config` is SQLite's documented start-up call; with
        // SQLITE_CONFIG_MEMSTATUS it reads one int. Called before SQLite is
        // initialized it changes a global no connection uses yet; after, it
        // returns SQLITE_MISUSE and changes nothing.
        let rc = unsafe {
            libsqlite3_sys::sqlite3_config(libsqlite3_sys::SQLITE_CONFIG_MEMSTATUS, 0i32)
        };
        if rc != libsqlite3_sys::SQLITE_OK {
            tracing::debug!(rc, "SQLite had started: its memory count stays on");
        }
    });
}
