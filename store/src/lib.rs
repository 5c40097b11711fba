//! # detect-store
//!
//! The store: the only code in `detect` that speaks SQL.
//!
//! One [`Store`] over sqlx's `Any` driver serves both back ends: SQLite (the
//! embedded default, a file) and PostgreSQL (production). Queries are checked
//! at run time and written in the SQL both understand, with `$1`-style
//! parameters. Migrations live in `store/migrations/{sqlite,postgres}` and
//! run when a store is opened. The site-database reader (`site_db`) is here
//! too: it is SQL, run on a site's own database.
//!
//! What is kept:
//! - **moves**, raw, so a season can be cut again with another bucket size;
//! - **segmentations**: the segments of all moves for one bucket size, tagged
//!   with the moves generation they were cut from (stalls as runs);
//! - **seasons**, **scans** (parameters, every directed pair with its
//!   evidence, cliques), and the daemon's **source marks**.
//!
//! The code is split by table family: `moves` (raw moves, games, the
//! ingest transaction), `segments` (segmentations and their runs),
//! `seasons`, `scans` (scans, their pairs and cliques), `crowds` (the
//! addresses a scan left out for crowding), `marks` (the daemon's
//! high-water marks), `pseudonyms` (IP pseudonyms per season),
//! `verdicts` and `audit` (append-only), `alerts` (alerts delivered),
//! `users` (the workbench's users and their sessions), `models` (improved
//! mode's models, versioned), `links` (look-ups
//! across scans for the web pages); `sql` holds the batched insert helper
//! they share; `pool` opens the connections.

mod account_names;
mod alerts;
mod audit;
mod crowds;
mod health;
mod ingest;
mod links;
mod marks;
mod migrations;
mod models;
mod moves;
mod occurrences;
mod pool;
mod privacy;
mod pseudonyms;
mod purge;
mod queue;
mod scans;
mod seasons;
mod segments;
mod site_db;
mod sql;
mod users;
mod verdicts;

pub use ingest::{IngestBatch, StoredFile};
pub use links::AccountPair;
pub use models::{NewModel, ScanModel, StoredModel};
pub use occurrences::Occurrences;
pub use privacy::{network_of, IpKey, IpSighting, IP_HASH_PREFIX, NET_HASH_PREFIX};
pub use purge::Purged;
pub use queue::{FlagStatus, QueueFilter, QueueItem, QueuePage, QueueStatus};
pub use scans::{PairSimilarity, RescanBase, ScanChange};
pub use segments::{Saved, SegmentCounts, SegmentationWriter, TailRecord};
pub use site_db::{SiteDatabase, SiteDbError, SiteKey, SiteRow, SiteTime};
pub use users::{NewSession, Role, Session, User};
pub use verdicts::VerdictError;

use schema::model::*;
use schema::rules::Limits;
use schema::season::Season;
use sqlx::AnyPool;

/// The store URL used when none is given: `detect.db` in the current
/// directory.
pub const DEFAULT_DATABASE_URL: &str = "sqlite://detect.db";

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot open the database {url}: {source}")]
    Open {
        url: String,
        #[source]
        source: sqlx::Error,
    },
    #[error("cannot bring the database {url} up to date: {source}")]
    Migrate {
        url: String,
        #[source]
        source: sqlx::migrate::MigrateError,
    },
    #[error(
        "the store URL {0:?} is neither an SQLite file (a path or sqlite://) nor PostgreSQL (postgres://)"
    )]
    UnknownBackend(String),
    #[error("the IP key does not match the key this store was created with")]
    WrongIpKey,
    #[error(
        "this store keeps IP addresses keyed: set DETECT_IP_KEY (or ip_key in the daemon configuration) to its key"
    )]
    IpKeyNeeded,
    #[error(
        "this store already holds raw IP addresses, so an IP key cannot apply to it (a key is on from a store's first ingest): ingest into a new store"
    )]
    PlainStore,
    #[error("database error: {0}")]
    Sql(#[from] sqlx::Error),
    #[error("the database holds data this version cannot read: {0}")]
    Corrupt(String),
    #[error("bad site name: {0}")]
    Site(String),
    #[error("the store refuses {0}")]
    Refused(String),
    #[error("the store is not ready: {0}")]
    NotReady(String),
    #[error(transparent)]
    Verdict(#[from] VerdictError),
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// Which database a store speaks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// Turns a store's address as given (`--db`) into a sqlx URL: a bare path is an SQLite file.
/// Another scheme (`mysql://`, `foo://`) is kept as it is, and
/// [`Store::open`] refuses it.
pub fn normalize_url(url: &str) -> String {
    if url.starts_with("sqlite:")
        || url.starts_with("postgres://")
        || url.starts_with("postgresql://")
        || has_scheme(url)
    {
        url.to_owned()
    } else {
        format!("sqlite://{url}")
    }
}

/// Whether `url` starts with `scheme://` (a letter, then letters, digits,
/// `+`, `-` or `.`).
fn has_scheme(url: &str) -> bool {
    url.split_once("://").is_some_and(|(scheme, _)| {
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    })
}

/// The URL with any password replaced by `***`, for messages and logs.
/// Parsed with the `url` crate, never cut at a character: a password may
/// hold `@`, `:` or `/`. What cannot be parsed is not shown at all.
pub fn redact_url(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) => {
            if u.password().is_some() {
                // Only fails for URLs that cannot have a password.
                u.set_password(Some("***")).ok();
            }
            for (k, _) in u.query_pairs() {
                if k.eq_ignore_ascii_case("password") {
                    u.set_query(Some("password=***"));
                    break;
                }
            }
            u.to_string()
        }
        Err(_) if !url.contains('@') && !url.contains("password") => url.to_owned(),
        Err(_) => "<a database URL that cannot be parsed>".to_owned(),
    }
}

/// A store of moves, segments, seasons and scans.
#[derive(Debug, Clone)]
pub struct Store {
    pub(crate) pool: AnyPool,
    pub(crate) backend: Backend,
    url: String,
    /// The record rule: the store refuses to insert, and leaves out when
    /// loading, what breaks it.
    pub(crate) limits: Limits,
    /// The key IPs are hashed with, in a keyed store.
    pub(crate) ip_key: Option<std::sync::Arc<IpKey>>,
    /// The site this handle reads and writes: every move, game, season,
    /// segmentation, scan, pseudonym and verdict belongs to one site, and a
    /// handle never sees another site's rows (see [`Store::with_site`]).
    pub(crate) site: std::sync::Arc<str>,
    /// Bytes at which a chunk of an account's segments is saved (smaller in
    /// tests, to make many).
    pub(crate) chunk_bytes: usize,
}

/// The site of moves ingested without one.
pub const DEFAULT_SITE: &str = "default";

/// Checks a site name: 1 to 64 characters, letters, digits, `-`, `_` or `.`,
/// so it is safe in file names, URLs and logs.
pub fn check_site(name: &str) -> std::result::Result<(), String> {
    if name.is_empty() || name.len() > 64 {
        return Err(format!(
            "a site name has 1 to 64 characters, not {}",
            name.len()
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || "-_.".contains(*c)))
    {
        return Err(format!(
            "a site name holds only letters, digits, '-', '_' and '.', not {c:?}"
        ));
    }
    Ok(())
}

/// The segments stored for one bucket size.
#[derive(Debug, Clone)]
pub struct StoredSegmentation {
    /// Its id in the store: the same while extensions add to it.
    pub id: i64,
    pub segments: Segments,
    pub reference_order: bool,
    /// The moves generation they were cut from.
    pub generation: i64,
}

/// A scan as stored.
#[derive(Debug, Clone)]
pub struct StoredScan {
    pub id: i64,
    pub season: Season,
    pub generation: i64,
    /// UTC epoch seconds.
    pub created_at: Epoch,
    /// The model file (JSON) an improved scan scored with; `None` in
    /// reference mode and for scans stored before models were recorded.
    pub model: Option<String>,
    /// The stored model version ([`Store::model`]) it scored with; `None`
    /// in reference mode and for scans stored before models were versioned.
    pub model_version: Option<i64>,
    pub result: ScanResult,
}

/// A move as the ingest batch stores it: `occurrence` numbers identical
/// moves ([`Occurrences`]; 0 for the first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NewMove {
    pub(crate) mv: Move,
    pub(crate) occurrence: u32,
}

impl Store {
    /// Opens (creating an SQLite file if needed) and migrates the store.
    pub async fn open(url: &str) -> Result<Store> {
        Store::connect(url, true).await
    }

    /// Opens an existing store as it is, applying no migration (for
    /// `detect check`, which reports what is not applied). An SQLite file
    /// that does not exist is not created.
    pub async fn open_unmigrated(url: &str) -> Result<Store> {
        let url = normalize_url(url);
        let url = if url.starts_with("sqlite:") && !url.contains("mode=") {
            let sep = if url.contains('?') { '&' } else { '?' };
            format!("{url}{sep}mode=rw")
        } else {
            url
        };
        Store::connect(&url, false).await
    }

    async fn connect(url: &str, migrated: bool) -> Result<Store> {
        sqlx::any::install_default_drivers();
        let url = normalize_url(url);
        let shown = redact_url(&url);
        let backend = if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else if url.starts_with("postgres") {
            Backend::Postgres
        } else {
            return Err(StoreError::UnknownBackend(shown));
        };
        let pool = pool::connect(backend, &url, &shown).await?;
        if migrated {
            migrations::migrate(backend, &pool)
                .await
                .map_err(|source| StoreError::Migrate {
                    url: shown.clone(),
                    source,
                })?;
        }
        tracing::debug!(url = %shown, "store opened");
        Ok(Store {
            pool,
            backend,
            url: shown,
            limits: Limits::default(),
            ip_key: None,
            site: DEFAULT_SITE.into(),
            chunk_bytes: segments::CHUNK_BYTES,
        })
    }

    /// The same store with another record rule (see [`schema::rules`]).
    pub fn with_limits(mut self, limits: Limits) -> Store {
        self.limits = limits;
        self
    }

    /// The same store, saving segments in chunks of about `bytes` (the
    /// default is 8 KiB; tests make many small ones).
    pub fn with_chunk_bytes(mut self, bytes: usize) -> Store {
        self.chunk_bytes = bytes.max(1);
        self
    }

    /// The same store, seen as one site: what it reads and writes is that
    /// site's alone. The name must pass [`check_site`].
    pub fn with_site(mut self, site: &str) -> Result<Store> {
        check_site(site).map_err(StoreError::Site)?;
        self.site = site.into();
        Ok(self)
    }

    /// The site this handle reads and writes.
    pub fn site(&self) -> &str {
        &self.site
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Starts a write transaction. On SQLite it takes the write lock at
    /// `BEGIN IMMEDIATE`, so a second writer waits (the busy timeout) for
    /// the first to finish, instead of failing with `database is locked`
    /// when its read transaction cannot become a write transaction.
    pub(crate) async fn begin_write(&self) -> Result<sqlx::Transaction<'static, sqlx::Any>> {
        Ok(match self.backend {
            Backend::Sqlite => self.pool.begin_with("BEGIN IMMEDIATE").await?,
            Backend::Postgres => self.pool.begin().await?,
        })
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The store's URL, password redacted.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Closes the pool, waiting for connections to finish.
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn site_names() {
        for ok in ["default", "otm", "site-2", "a_b.c", &"x".repeat(64)] {
            assert_eq!(check_site(ok), Ok(()), "{ok}");
        }
        for bad in ["", "a/b", "a b", "é", "a\n", &"x".repeat(65)] {
            assert!(check_site(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn urls() {
        assert_eq!(normalize_url("x.db"), "sqlite://x.db");
        assert_eq!(normalize_url("sqlite::memory:"), "sqlite::memory:");
        assert_eq!(normalize_url("dir/x.db"), "sqlite://dir/x.db");
        assert_eq!(normalize_url("mysql://u@h/d"), "mysql://u@h/d");
        assert_eq!(normalize_url("foo://x"), "foo://x");
        assert_eq!(
            redact_url("postgres://me:secret@localhost/db"),
            "postgres://me:***@localhost/db"
        );
        // A password holding `@` and `:` is hidden whole (the old string
        // cutting showed `ss:w0rd@`).
        let shown = redact_url("postgres://me:p@ss:w0rd@db.example:5432/detect");
        assert_eq!(shown, "postgres://me:***@db.example:5432/detect");
        // Percent-encoded, as a URL must carry `/`: hidden whole.
        assert_eq!(
            redact_url("postgres://me:p%2Fss%40w0rd@db.example/detect"),
            "postgres://me:***@db.example/detect"
        );
        // What the parser cannot read is not shown at all.
        assert_eq!(
            redact_url("postgres://me:secret@db.example:port/detect"),
            "<a database URL that cannot be parsed>"
        );
        assert_eq!(redact_url("sqlite://detect.db"), "sqlite://detect.db");
        assert_eq!(
            redact_url("mysql://u@h/db?password=hunter2"),
            "mysql://u@h/db?password=***"
        );
    }
}
