//! A site's own database as a source of moves: the SQL the daemon runs
//! there, kept in the store like every other SQL of `detect`. It connects
//! (PostgreSQL, MySQL/MariaDB or SQLite), checks the query's columns, and
//! reads the rows past a mark as plain values; turning them into moves (time
//! parsing, the record rule, numbering) is the caller's.

use sqlx::any::{AnyConnectOptions, AnyPoolOptions, AnyRow, AnyTypeInfoKind};
use sqlx::{AnyPool, Column, Connection, Executor, Row, Statement, ValueRef};
use std::str::FromStr;
use std::time::Duration;

/// What went wrong with a site database, as one sentence.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct SiteDbError(pub String);

type Result<T> = std::result::Result<T, SiteDbError>;

fn fail(m: impl Into<String>) -> SiteDbError {
    SiteDbError(m.into())
}

/// The key of a row, and the mark past which rows are read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SiteKey {
    Int(i64),
    Text(String),
}

/// A row's `timestamp`, as the database typed it.
#[derive(Debug, Clone, PartialEq)]
pub enum SiteTime {
    Epoch(i64),
    Float(f64),
    Text(String),
    Null,
}

/// One row of the query.
#[derive(Debug, Clone, PartialEq)]
pub struct SiteRow {
    pub key: SiteKey,
    pub timestamp: SiteTime,
    pub username: Option<String>,
    pub game: Option<String>,
    pub ip: Option<String>,
}

/// A site database and its query, ready to read.
#[derive(Debug)]
pub struct SiteDatabase {
    pool: AnyPool,
    query: String,
    key: String,
}

impl SiteDatabase {
    /// Connects once and prepares the query, so a wrong URL or query fails
    /// at start; `shown` is the URL without its password, for messages.
    pub async fn open(url: &str, shown: &str, query: &str, key: &str) -> Result<SiteDatabase> {
        sqlx::any::install_default_drivers();
        let options = AnyConnectOptions::from_str(url)
            .map_err(|e| fail(format!("cannot open the site database {shown}: {e}")))?;
        let mut conn = sqlx::AnyConnection::connect_with(&options)
            .await
            .map_err(|e| fail(format!("cannot open the site database {shown}: {e}")))?;
        let statement = (&mut conn).prepare(query).await.map_err(|e| {
            fail(format!(
                "the query of the site database {shown} does not work: {e}"
            ))
        })?;
        let columns: Vec<String> = statement
            .columns()
            .iter()
            .map(|c| c.name().to_owned())
            .collect();
        // SQLite cannot tell the columns of some statements before running
        // them; check what it tells.
        if !columns.is_empty() {
            for want in ["username", "game", "timestamp", "ip", key] {
                if !columns.iter().any(|c| c == want) {
                    return Err(fail(format!(
                        "the query of the site database {shown} returns no column `{want}` \
                         (it returns {}; it must return username, game, timestamp, ip and the key `{key}`)",
                        columns.join(", ")
                    )));
                }
            }
        }
        conn.close().await.ok();
        let pool = AnyPoolOptions::new()
            .max_connections(2)
            .acquire_timeout(Duration::from_secs(30))
            .connect_lazy_with(options);
        Ok(SiteDatabase {
            pool,
            query: query.to_owned(),
            key: key.to_owned(),
        })
    }

    /// The rows the query returns past `mark` (one page).
    pub async fn rows_past(&self, mark: &SiteKey) -> Result<Vec<SiteRow>> {
        let q = sqlx::query(&self.query);
        let q = match mark {
            SiteKey::Int(n) => q.bind(*n),
            SiteKey::Text(s) => q.bind(s.clone()),
        };
        let rows = q.fetch_all(&self.pool).await.map_err(|e| {
            let mark = match mark {
                SiteKey::Int(n) => n.to_string(),
                SiteKey::Text(s) => format!("{s:?}"),
            };
            fail(format!("the query failed past the mark {mark}: {e}"))
        })?;
        rows.iter().map(|r| self.read_row(r)).collect()
    }

    fn read_row(&self, row: &AnyRow) -> Result<SiteRow> {
        let key = &self.key;
        let key_value = match kind(row, key)? {
            AnyTypeInfoKind::SmallInt | AnyTypeInfoKind::Integer | AnyTypeInfoKind::BigInt => {
                SiteKey::Int(get(row, key)?)
            }
            AnyTypeInfoKind::Text => SiteKey::Text(get(row, key)?),
            AnyTypeInfoKind::Null => return Err(fail(format!("the key `{key}` of a row is NULL"))),
            other => {
                return Err(fail(format!(
                    "the key `{key}` is of type {}: it must be an integer or text",
                    type_name(other)
                )))
            }
        };
        let timestamp = match kind(row, "timestamp")? {
            AnyTypeInfoKind::SmallInt | AnyTypeInfoKind::Integer | AnyTypeInfoKind::BigInt => {
                SiteTime::Epoch(get(row, "timestamp")?)
            }
            AnyTypeInfoKind::Real | AnyTypeInfoKind::Double => {
                SiteTime::Float(get(row, "timestamp")?)
            }
            AnyTypeInfoKind::Text => SiteTime::Text(get(row, "timestamp")?),
            AnyTypeInfoKind::Null => SiteTime::Null,
            other => {
                return Err(fail(format!(
                    "the column `timestamp` is of type {}: return epoch seconds or text",
                    type_name(other)
                )))
            }
        };
        Ok(SiteRow {
            key: key_value,
            timestamp,
            username: text(row, "username")?,
            game: text(row, "game")?,
            ip: text(row, "ip")?,
        })
    }

    /// Closes the connections.
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

fn get<'r, T>(row: &'r AnyRow, column: &str) -> Result<T>
where
    T: sqlx::Decode<'r, sqlx::Any> + sqlx::Type<sqlx::Any>,
{
    row.try_get::<T, _>(column)
        .map_err(|e| fail(format!("the column `{column}` cannot be read: {e}")))
}

fn kind(row: &AnyRow, column: &str) -> Result<AnyTypeInfoKind> {
    let raw = row
        .try_get_raw(column)
        .map_err(|_| fail(format!("the query returns no column `{column}`")))?;
    if raw.is_null() {
        return Ok(AnyTypeInfoKind::Null);
    }
    Ok(raw.type_info().kind())
}

fn type_name(k: AnyTypeInfoKind) -> &'static str {
    match k {
        AnyTypeInfoKind::Null => "NULL",
        AnyTypeInfoKind::Bool => "BOOLEAN",
        AnyTypeInfoKind::SmallInt => "SMALLINT",
        AnyTypeInfoKind::Integer => "INTEGER",
        AnyTypeInfoKind::BigInt => "BIGINT",
        AnyTypeInfoKind::Real => "REAL",
        AnyTypeInfoKind::Double => "DOUBLE",
        AnyTypeInfoKind::Text => "TEXT",
        AnyTypeInfoKind::Blob => "BLOB",
    }
}

fn text(row: &AnyRow, column: &str) -> Result<Option<String>> {
    Ok(match kind(row, column)? {
        AnyTypeInfoKind::Null => None,
        AnyTypeInfoKind::Text => Some(get(row, column)?),
        AnyTypeInfoKind::SmallInt | AnyTypeInfoKind::Integer | AnyTypeInfoKind::BigInt => {
            Some(get::<i64>(row, column)?.to_string())
        }
        other => {
            return Err(fail(format!(
                "the column `{column}` is of type {}, not text",
                type_name(other)
            )))
        }
    })
}
