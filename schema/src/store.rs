//! The store: the only code in `detect` that speaks SQL.
//!
//! One [`Store`] over sqlx's `Any` driver serves both back ends: SQLite (the
//! embedded default, a file) and PostgreSQL (production). Queries are checked
//! at run time and written in the SQL both understand, with `$1`-style
//! parameters. Migrations live in `schema/migrations/{sqlite,postgres}` and
//! run when a store is opened.
//!
//! What is kept:
//! - **moves**, raw, so a season can be cut again with another bucket size;
//! - **segmentations**: the segments of all moves for one bucket size, tagged
//!   with the moves generation they were cut from (stalls as runs);
//! - **seasons**, **scans** (parameters, every directed pair with its
//!   evidence, cliques), and the daemon's **source marks**.

use crate::model::*;
use crate::season::Season;
use futures_util::TryStreamExt;
use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::{Any, AnyPool, Row, Transaction};
use std::collections::BTreeSet;
use std::str::FromStr;

/// The store URL used when none is given: `detect.db` in the current
/// directory.
pub const DEFAULT_DATABASE_URL: &str = "sqlite://detect.db";

/// Rows per multi-row `INSERT`.
const BATCH_ROWS: usize = 500;

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
    #[error("the database URL {0:?} is neither sqlite:// nor postgres://")]
    UnknownBackend(String),
    #[error("database error: {0}")]
    Sql(#[from] sqlx::Error),
    #[error("the database holds data this version cannot read: {0}")]
    Corrupt(String),
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// Which database a store speaks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// Turns what a user typed into a sqlx URL: a bare path is an SQLite file.
pub fn normalize_url(url: &str) -> String {
    if url.starts_with("sqlite:")
        || url.starts_with("postgres://")
        || url.starts_with("postgresql://")
    {
        url.to_owned()
    } else {
        format!("sqlite://{url}")
    }
}

/// The URL with any password replaced by `***`, for messages and logs.
pub fn redact_url(url: &str) -> String {
    if let Some((scheme, rest)) = url.split_once("://") {
        if let Some((cred, host)) = rest.split_once('@') {
            if let Some((user, _)) = cred.split_once(':') {
                return format!("{scheme}://{user}:***@{host}");
            }
        }
    }
    url.to_owned()
}

/// A store of moves, segments, seasons and scans.
#[derive(Debug, Clone)]
pub struct Store {
    pool: AnyPool,
    backend: Backend,
    url: String,
}

/// The segments stored for one bucket size.
#[derive(Debug, Clone)]
pub struct StoredSegmentation {
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
    pub result: ScanResult,
}

/// A move as the ingester hands it to the store: `occurrence` numbers
/// identical records within one file (0 for the first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewMove {
    pub mv: Move,
    pub occurrence: u32,
}

impl Store {
    /// Opens (creating an SQLite file if needed) and migrates the store.
    pub async fn open(url: &str) -> Result<Store> {
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
        let connect_url = match backend {
            Backend::Sqlite if !url.contains("mode=") => {
                let sep = if url.contains('?') { '&' } else { '?' };
                format!("{url}{sep}mode=rwc")
            }
            _ => url.clone(),
        };
        let options =
            AnyConnectOptions::from_str(&connect_url).map_err(|source| StoreError::Open {
                url: shown.clone(),
                source,
            })?;
        // One plain connection first: a pool that cannot connect only says
        // it timed out, while this says why (refused, bad password, ...).
        {
            use sqlx::{ConnectOptions, Connection};
            let conn = options.connect().await.map_err(|source| StoreError::Open {
                url: shown.clone(),
                source,
            })?;
            conn.close().await.ok();
        }
        let pool = AnyPoolOptions::new()
            .max_connections(if backend == Backend::Sqlite { 1 } else { 8 })
            .acquire_timeout(std::time::Duration::from_secs(10))
            .after_connect(move |conn, _| {
                Box::pin(async move {
                    if backend == Backend::Sqlite {
                        // A large ingest is one transaction: a page cache of
                        // 256 MB and statement journals in memory keep it
                        // from rewriting the same pages on disk.
                        for pragma in [
                            "PRAGMA journal_mode = WAL",
                            "PRAGMA synchronous = NORMAL",
                            "PRAGMA foreign_keys = ON",
                            "PRAGMA busy_timeout = 10000",
                            "PRAGMA cache_size = -262144",
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
                url: shown.clone(),
                source,
            })?;
        let migrator = match backend {
            Backend::Sqlite => sqlx::migrate!("./migrations/sqlite"),
            Backend::Postgres => sqlx::migrate!("./migrations/postgres"),
        };
        migrator
            .run(&pool)
            .await
            .map_err(|source| StoreError::Migrate {
                url: shown.clone(),
                source,
            })?;
        tracing::debug!(url = %shown, "store opened");
        Ok(Store {
            pool,
            backend,
            url: shown,
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

    // ---- moves ---------------------------------------------------------

    /// Starts an ingest: nothing is visible to others until
    /// [`IngestBatch::commit`], and dropping the batch rolls it back.
    pub async fn begin_ingest(&self) -> Result<IngestBatch<'_>> {
        Ok(IngestBatch {
            backend: self.backend,
            tx: self.pool.begin().await?,
            stored: 0,
        })
    }

    /// Bumped by every ingest that stores at least one move.
    pub async fn moves_generation(&self) -> Result<i64> {
        let row = sqlx::query("SELECT value FROM store_state WHERE key = 'moves_generation'")
            .fetch_one(&self.pool)
            .await?;
        let v: String = row.try_get(0)?;
        v.parse()
            .map_err(|_| StoreError::Corrupt(format!("moves_generation is {v:?}")))
    }

    pub async fn move_count(&self) -> Result<i64> {
        Ok(sqlx::query("SELECT COUNT(*) FROM moves")
            .fetch_one(&self.pool)
            .await?
            .try_get(0)?)
    }

    /// Streams every stored move to `each`: by time (ties in ingest order),
    /// or in ingest order alone for reference order.
    pub async fn for_each_move(
        &self,
        reference_order: bool,
        mut each: impl FnMut(Move),
    ) -> Result<u64> {
        let sql = if reference_order {
            "SELECT username, game, ts, ip FROM moves ORDER BY id"
        } else {
            "SELECT username, game, ts, ip FROM moves ORDER BY ts, id"
        };
        let mut rows = sqlx::query(sql).fetch(&self.pool);
        let mut n = 0;
        while let Some(row) = rows.try_next().await? {
            each(Move {
                username: row.try_get(0)?,
                game: row.try_get(1)?,
                timestamp: row.try_get(2)?,
                ip: row.try_get(3)?,
            });
            n += 1;
        }
        Ok(n)
    }

    /// Distinct game names, for inferring seasons.
    pub async fn game_names(&self) -> Result<Vec<String>> {
        let rows = sqlx::query("SELECT name FROM games ORDER BY name")
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(|r| Ok(r.try_get(0)?)).collect()
    }

    // ---- segments ------------------------------------------------------

    /// Replaces the stored segments of `segments.bucket_seconds` with these,
    /// in one transaction.
    pub async fn save_segmentation(
        &self,
        segments: &Segments,
        reference_order: bool,
        generation: i64,
    ) -> Result<()> {
        let mut tx = self.pool.begin().await?;
        let old: Vec<i64> = sqlx::query("SELECT id FROM segmentations WHERE bucket_seconds = $1")
            .bind(segments.bucket_seconds)
            .fetch_all(&mut *tx)
            .await?
            .iter()
            .map(|r| r.try_get(0))
            .collect::<Result<_, _>>()?;
        for id in old {
            for table in ["segment_moves", "segment_stalls", "ip_days", "game_days"] {
                sqlx::query(&format!("DELETE FROM {table} WHERE segmentation_id = $1"))
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
            }
            sqlx::query("DELETE FROM segmentations WHERE id = $1")
                .bind(id)
                .execute(&mut *tx)
                .await?;
        }
        let id: i64 = sqlx::query(
            "INSERT INTO segmentations (bucket_seconds, reference_order, generation) VALUES ($1, $2, $3) RETURNING id",
        )
        .bind(segments.bucket_seconds)
        .bind(reference_order as i64)
        .bind(generation)
        .fetch_one(&mut *tx)
        .await?
        .try_get(0)?;

        let users = &segments.users;
        let ips = &segments.ips;
        let mut moved = Vec::new();
        let mut stalls = Vec::new();
        for (u, segs) in segments.by_user.iter().enumerate() {
            let name = users.name(u as u32);
            for seg in segs {
                for (rank, &(ip, count)) in seg.moves.iter().enumerate() {
                    moved.push((name, seg.bucket, ips.name(ip), count as i64, rank as i64));
                }
            }
            for run in stall_runs(segs, segments.bucket_seconds) {
                stalls.push((name, run.0, run.1, run.2.map(|ip| ips.name(ip))));
            }
        }
        insert_rows(
            self.backend,
            &mut tx,
            "segment_moves (segmentation_id, username, bucket, ip, move_count, rank)",
            6,
            "",
            &moved,
            |q, &(user, bucket, ip, count, rank)| {
                q.bind(id)
                    .bind(user.to_owned())
                    .bind(bucket)
                    .bind(ip.to_owned())
                    .bind(count)
                    .bind(rank)
            },
        )
        .await?;
        insert_rows(
            self.backend,
            &mut tx,
            "segment_stalls (segmentation_id, username, first_bucket, last_bucket, ip)",
            5,
            "",
            &stalls,
            |q, &(user, first, last, ip)| {
                q.bind(id)
                    .bind(user.to_owned())
                    .bind(first)
                    .bind(last)
                    .bind(ip.map(str::to_owned))
            },
        )
        .await?;
        insert_rows(
            self.backend,
            &mut tx,
            "ip_days (segmentation_id, username, day, ip)",
            4,
            "",
            &segments.ip_days,
            |q, d| {
                q.bind(id)
                    .bind(users.name(d.user).to_owned())
                    .bind(d.day)
                    .bind(ips.name(d.ip).to_owned())
            },
        )
        .await?;
        insert_rows(
            self.backend,
            &mut tx,
            "game_days (segmentation_id, username, game, first_day, last_day)",
            5,
            "",
            &segments.game_days,
            |q, d| {
                q.bind(id)
                    .bind(users.name(d.user).to_owned())
                    .bind(segments.games.name(d.game).to_owned())
                    .bind(d.first_day)
                    .bind(d.last_day)
            },
        )
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The stored segments for `bucket_seconds`, if any. Rows come sorted by
    /// user and bucket, so each user's list is built by appending and one
    /// merge of moves with stalls.
    pub async fn load_segmentation(
        &self,
        bucket_seconds: i64,
    ) -> Result<Option<StoredSegmentation>> {
        let Some(row) = sqlx::query(
            "SELECT id, reference_order, generation FROM segmentations \
             WHERE bucket_seconds = $1 ORDER BY id DESC LIMIT 1",
        )
        .bind(bucket_seconds)
        .fetch_optional(&self.pool)
        .await?
        else {
            return Ok(None);
        };
        let id: i64 = row.try_get(0)?;
        let reference_order = row.try_get::<i64, _>(1)? != 0;
        let generation: i64 = row.try_get(2)?;

        let mut segs = Segments::new(bucket_seconds);
        let user_of = |segs: &mut Segments, name: &str| -> usize {
            let u = segs.users.intern(name) as usize;
            if u == segs.by_user.len() {
                segs.by_user.push(Vec::new());
            }
            u
        };
        let mut rows = sqlx::query(
            "SELECT username, bucket, ip, move_count FROM segment_moves \
             WHERE segmentation_id = $1 ORDER BY username, bucket, rank",
        )
        .bind(id)
        .fetch(&self.pool);
        let mut name = String::new();
        let mut user = 0usize;
        while let Some(r) = rows.try_next().await? {
            let n: &str = r.try_get(0)?;
            if n != name {
                name = n.to_owned();
                user = user_of(&mut segs, &name);
            }
            let bucket: i64 = r.try_get(1)?;
            let ip = segs.ips.intern(r.try_get::<&str, _>(2)?);
            let count: i64 = r.try_get(3)?;
            let list = &mut segs.by_user[user];
            if list.last().is_none_or(|s| s.bucket != bucket) {
                list.push(Segment {
                    bucket,
                    ..Segment::default()
                });
            }
            list.last_mut()
                .expect("pushed")
                .moves
                .push((ip, count as u32));
        }
        drop(rows);

        // Stall runs, expanded and merged into each user's moved buckets.
        let mut stalls: Vec<Vec<(Epoch, Option<IpId>)>> = Vec::new();
        let mut rows = sqlx::query(
            "SELECT username, first_bucket, last_bucket, ip FROM segment_stalls \
             WHERE segmentation_id = $1 ORDER BY username, first_bucket",
        )
        .bind(id)
        .fetch(&self.pool);
        name.clear();
        while let Some(r) = rows.try_next().await? {
            let n: &str = r.try_get(0)?;
            if n != name {
                name = n.to_owned();
                user = user_of(&mut segs, &name);
            }
            let (first, last): (i64, i64) = (r.try_get(1)?, r.try_get(2)?);
            let ip: Option<&str> = r.try_get(3)?;
            let ip = ip.map(|ip| segs.ips.intern(ip));
            if stalls.len() <= user {
                stalls.resize_with(user + 1, Vec::new);
            }
            let mut b = first;
            while b <= last {
                stalls[user].push((b, ip));
                b += bucket_seconds;
            }
        }
        drop(rows);
        for (user, stalled) in stalls.into_iter().enumerate() {
            if !stalled.is_empty() {
                let moved = std::mem::take(&mut segs.by_user[user]);
                segs.by_user[user] = merge_stalls(moved, stalled);
            }
        }

        let mut rows =
            sqlx::query("SELECT username, day, ip FROM ip_days WHERE segmentation_id = $1")
                .bind(id)
                .fetch(&self.pool);
        while let Some(r) = rows.try_next().await? {
            let user = user_of(&mut segs, r.try_get(0)?) as UserId;
            let day: i64 = r.try_get(1)?;
            let ip = segs.ips.intern(r.try_get::<&str, _>(2)?);
            segs.ip_days.push(IpDay { user, day, ip });
        }
        drop(rows);
        let mut rows = sqlx::query(
            "SELECT username, game, first_day, last_day FROM game_days WHERE segmentation_id = $1",
        )
        .bind(id)
        .fetch(&self.pool);
        while let Some(r) = rows.try_next().await? {
            let user = user_of(&mut segs, r.try_get(0)?) as UserId;
            let game = segs.games.intern(r.try_get::<&str, _>(1)?);
            segs.game_days.push(GameDays {
                user,
                game,
                first_day: r.try_get(2)?,
                last_day: r.try_get(3)?,
            });
        }
        drop(rows);
        segs.ip_days.sort_unstable();
        segs.game_days.sort_unstable();
        Ok(Some(StoredSegmentation {
            segments: segs,
            reference_order,
            generation,
        }))
    }

    /// The order of the most recent segmentation: `Some(true)` if the last
    /// ingest asked for reference order.
    pub async fn segmentation_order(&self) -> Result<Option<bool>> {
        let row = sqlx::query("SELECT reference_order FROM segmentations ORDER BY id DESC LIMIT 1")
            .fetch_optional(&self.pool)
            .await?;
        Ok(match row {
            Some(r) => Some(r.try_get::<i64, _>(0)? != 0),
            None => None,
        })
    }

    // ---- seasons -------------------------------------------------------

    /// Defines (or redefines) a season.
    pub async fn put_season(&self, season: &Season) -> Result<()> {
        sqlx::query(
            "INSERT INTO seasons (number, from_ts, to_ts, games) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (number) DO UPDATE SET from_ts = excluded.from_ts, to_ts = excluded.to_ts, games = excluded.games",
        )
        .bind(season.number as i64)
        .bind(season.from)
        .bind(season.to)
        .bind(season.games.clone())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The seasons defined by hand, by number.
    pub async fn seasons(&self) -> Result<Vec<Season>> {
        let rows = sqlx::query("SELECT number, from_ts, to_ts, games FROM seasons ORDER BY number")
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(season_of_row).collect()
    }

    pub async fn season(&self, number: u32) -> Result<Option<Season>> {
        let row =
            sqlx::query("SELECT number, from_ts, to_ts, games FROM seasons WHERE number = $1")
                .bind(number as i64)
                .fetch_optional(&self.pool)
                .await?;
        row.as_ref().map(season_of_row).transpose()
    }

    // ---- scans ---------------------------------------------------------

    /// Stores a scan (parameters, every pair with its evidence, cliques) in
    /// one transaction; returns its id.
    pub async fn save_scan(
        &self,
        season: &Season,
        result: &ScanResult,
        generation: i64,
        created_at: Epoch,
    ) -> Result<i64> {
        let mut tx = self.pool.begin().await?;
        let id: i64 = sqlx::query(
            "INSERT INTO scans (season, season_from, season_to, season_games, threshold, bucket_seconds, mode, \
             generation, created_at, participants, candidate_pairs) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id",
        )
        .bind(season.number as i64)
        .bind(season.from)
        .bind(season.to)
        .bind(season.games.clone())
        .bind(result.params.threshold)
        .bind(result.params.bucket_seconds)
        .bind(result.params.mode.as_str())
        .bind(generation)
        .bind(created_at)
        .bind(result.participants as i64)
        .bind(result.candidate_pairs as i64)
        .fetch_one(&mut *tx)
        .await?
        .try_get(0)?;
        let tops: Vec<String> = result
            .pairs
            .iter()
            .map(|p| {
                serde_json::to_string(&p.evidence.top_buckets).expect("contributions serialize")
            })
            .collect();
        let rows: Vec<(&PairScore, &String)> = result.pairs.iter().zip(&tops).collect();
        insert_rows(
            self.backend,
            &mut tx,
            "scan_pairs (scan_id, user_a, user_b, similarity, score_sum, score_weight, \
             same_ip_count, same_ip_score, other_ip_count, other_ip_score, moved_stalled_count, moved_stalled_score, \
             stalled_moved_count, stalled_moved_score, both_stalled_count, both_stalled_score, \
             max_boost, max_boost_bucket, top_buckets)",
            19,
            "",
            &rows,
            |mut q, (p, top)| {
                let e = &p.evidence;
                q = q
                    .bind(id)
                    .bind(p.user_a.clone())
                    .bind(p.user_b.clone())
                    .bind(p.similarity)
                    .bind(p.sum)
                    .bind(p.weight);
                for cell in Cell::ALL {
                    let t = e.tally(cell);
                    q = q.bind(t.count as i64).bind(t.score);
                }
                q.bind(e.max_boost as i64)
                    .bind(e.max_boost_bucket)
                    .bind((*top).clone())
            },
        )
        .await?;
        let members: Vec<(i64, &String)> = result
            .cliques
            .iter()
            .enumerate()
            .flat_map(|(k, c)| c.members.iter().map(move |m| (k as i64 + 1, m)))
            .collect();
        insert_rows(
            self.backend,
            &mut tx,
            "scan_cliques (scan_id, clique, username)",
            3,
            "",
            &members,
            |q, &(k, m)| q.bind(id).bind(k).bind(m.clone()),
        )
        .await?;
        tx.commit().await?;
        Ok(id)
    }

    /// Deletes all but the `keep` most recent scans of a season, in one
    /// transaction; returns how many were deleted.
    pub async fn prune_scans(&self, season: u32, keep: u32) -> Result<u64> {
        let mut tx = self.pool.begin().await?;
        let old: Vec<i64> = sqlx::query("SELECT id FROM scans WHERE season = $1 ORDER BY id DESC")
            .bind(season as i64)
            .fetch_all(&mut *tx)
            .await?
            .iter()
            .skip(keep as usize)
            .map(|r| r.try_get(0))
            .collect::<Result<_, _>>()?;
        for &id in &old {
            for table in ["scan_pairs", "scan_cliques"] {
                sqlx::query(&format!("DELETE FROM {table} WHERE scan_id = $1"))
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
            }
            sqlx::query("DELETE FROM scans WHERE id = $1")
                .bind(id)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(old.len() as u64)
    }

    /// The number of stored scans of a season.
    pub async fn scan_count(&self, season: u32) -> Result<i64> {
        Ok(sqlx::query("SELECT COUNT(*) FROM scans WHERE season = $1")
            .bind(season as i64)
            .fetch_one(&self.pool)
            .await?
            .try_get(0)?)
    }

    /// The most recent scan of a season, with every pair.
    pub async fn latest_scan(&self, season: u32) -> Result<Option<StoredScan>> {
        self.latest_scan_where(season, None).await
    }

    /// The most recent scan of a season with this bucket size and mode.
    pub async fn latest_scan_like(
        &self,
        season: u32,
        bucket_seconds: i64,
        mode: Mode,
    ) -> Result<Option<StoredScan>> {
        self.latest_scan_where(season, Some((bucket_seconds, mode)))
            .await
    }

    async fn latest_scan_where(
        &self,
        season: u32,
        like: Option<(i64, Mode)>,
    ) -> Result<Option<StoredScan>> {
        const COLUMNS: &str = "SELECT id, season, season_from, season_to, season_games, threshold, \
             bucket_seconds, mode, generation, created_at, participants, candidate_pairs FROM scans";
        let row = match like {
            None => {
                sqlx::query(&format!(
                    "{COLUMNS} WHERE season = $1 ORDER BY id DESC LIMIT 1"
                ))
                .bind(season as i64)
                .fetch_optional(&self.pool)
                .await?
            }
            Some((bucket_seconds, mode)) => {
                sqlx::query(&format!(
                    "{COLUMNS} WHERE season = $1 AND bucket_seconds = $2 AND mode = $3 \
                     ORDER BY id DESC LIMIT 1"
                ))
                .bind(season as i64)
                .bind(bucket_seconds)
                .bind(mode.as_str())
                .fetch_optional(&self.pool)
                .await?
            }
        };
        let Some(row) = row else {
            return Ok(None);
        };
        let id: i64 = row.try_get(0)?;
        let number: i64 = row.try_get(1)?;
        let season = Season {
            number: number as u32,
            from: row.try_get(2)?,
            to: row.try_get(3)?,
            games: row.try_get(4)?,
            inferred: false,
        };
        let mode: String = row.try_get(7)?;
        let params = ScanParams {
            threshold: row.try_get(5)?,
            bucket_seconds: row.try_get(6)?,
            mode: match mode.as_str() {
                "reference" => Mode::Reference,
                other => return Err(StoreError::Corrupt(format!("unknown scan mode {other:?}"))),
            },
        };
        let generation: i64 = row.try_get(8)?;
        let created_at: i64 = row.try_get(9)?;
        let participants: i64 = row.try_get(10)?;
        let candidate_pairs: i64 = row.try_get(11)?;

        let rows = sqlx::query(
            "SELECT user_a, user_b, similarity, score_sum, score_weight, \
             same_ip_count, same_ip_score, other_ip_count, other_ip_score, moved_stalled_count, moved_stalled_score, \
             stalled_moved_count, stalled_moved_score, both_stalled_count, both_stalled_score, \
             max_boost, max_boost_bucket, top_buckets FROM scan_pairs WHERE scan_id = $1",
        )
        .bind(id)
        .fetch_all(&self.pool)
        .await?;
        let mut pairs = Vec::with_capacity(rows.len());
        for r in rows {
            let mut evidence = Evidence::default();
            for (k, cell) in Cell::ALL.into_iter().enumerate() {
                let count: i64 = r.try_get(5 + 2 * k)?;
                let score: i64 = r.try_get(6 + 2 * k)?;
                *evidence.tally_mut(cell) = CellTally {
                    count: count as u64,
                    score,
                };
            }
            evidence.max_boost = r.try_get::<i64, _>(15)? as u32;
            evidence.max_boost_bucket = r.try_get(16)?;
            let top: String = r.try_get(17)?;
            evidence.top_buckets = serde_json::from_str(&top)
                .map_err(|e| StoreError::Corrupt(format!("top buckets of a pair: {e}")))?;
            pairs.push(PairScore {
                user_a: r.try_get(0)?,
                user_b: r.try_get(1)?,
                similarity: r.try_get(2)?,
                sum: r.try_get(3)?,
                weight: r.try_get(4)?,
                evidence,
            });
        }
        pairs.sort_by(|x, y| {
            y.similarity
                .total_cmp(&x.similarity)
                .then_with(|| x.user_a.cmp(&y.user_a))
                .then_with(|| x.user_b.cmp(&y.user_b))
        });
        let rows = sqlx::query("SELECT clique, username FROM scan_cliques WHERE scan_id = $1 ORDER BY clique, username")
            .bind(id)
            .fetch_all(&self.pool)
            .await?;
        let mut cliques: Vec<Clique> = Vec::new();
        let mut last = None;
        for r in rows {
            let k: i64 = r.try_get(0)?;
            let name: String = r.try_get(1)?;
            if last != Some(k) {
                cliques.push(Clique {
                    members: Vec::new(),
                });
                last = Some(k);
            }
            cliques.last_mut().expect("pushed").members.push(name);
        }
        Ok(Some(StoredScan {
            id,
            season,
            generation,
            created_at,
            result: ScanResult {
                params,
                participants: participants as usize,
                candidate_pairs: candidate_pairs as usize,
                pairs,
                cliques,
            },
        }))
    }

    // ---- source marks --------------------------------------------------

    /// The high-water mark of a daemon source, if any.
    pub async fn source_mark(&self, source: &str) -> Result<Option<String>> {
        let row = sqlx::query("SELECT mark FROM source_marks WHERE source = $1")
            .bind(source.to_owned())
            .fetch_optional(&self.pool)
            .await?;
        row.map(|r| r.try_get(0)).transpose().map_err(Into::into)
    }
}

/// Runs of consecutive stalled buckets with the same stall IP:
/// `(first, last, ip)`.
fn stall_runs(segs: &[Segment], bs: i64) -> Vec<(Epoch, Epoch, Option<IpId>)> {
    let mut runs: Vec<(Epoch, Epoch, Option<IpId>)> = Vec::new();
    for s in segs.iter().filter(|s| s.stalled) {
        match runs.last_mut() {
            Some(r) if r.1 + bs == s.bucket && r.2 == s.stall_ip => r.1 = s.bucket,
            _ => runs.push((s.bucket, s.bucket, s.stall_ip)),
        }
    }
    runs
}

/// One user's moved buckets (sorted) and stalled buckets (sorted) as one
/// sorted list; a bucket in both is moved and stalled.
fn merge_stalls(moved: Vec<Segment>, stalled: Vec<(Epoch, Option<IpId>)>) -> Vec<Segment> {
    let mut out = Vec::with_capacity(moved.len() + stalled.len());
    let mut moved = moved.into_iter().peekable();
    for (bucket, ip) in stalled {
        while let Some(m) = moved.next_if(|m| m.bucket < bucket) {
            out.push(m);
        }
        let mut seg = moved.next_if(|m| m.bucket == bucket).unwrap_or(Segment {
            bucket,
            ..Segment::default()
        });
        seg.stalled = true;
        seg.stall_ip = ip;
        out.push(seg);
    }
    out.extend(moved);
    out
}

fn season_of_row(r: &sqlx::any::AnyRow) -> Result<Season> {
    let number: i64 = r.try_get(0)?;
    Ok(Season {
        number: number as u32,
        from: r.try_get(1)?,
        to: r.try_get(2)?,
        games: r.try_get(3)?,
        inferred: false,
    })
}

type AnyQuery<'q> = sqlx::query::Query<'q, Any, sqlx::any::AnyArguments<'q>>;

/// `INSERT INTO {target} VALUES (...), (...) {on_conflict}` in batches,
/// binding each row with `bind`; returns the rows inserted.
async fn insert_rows<'r, T>(
    backend: Backend,
    tx: &mut Transaction<'_, Any>,
    target: &str,
    columns: usize,
    on_conflict: &str,
    rows: &'r [T],
    bind: impl for<'q> Fn(AnyQuery<'q>, &'r T) -> AnyQuery<'q>,
) -> Result<u64> {
    let mut affected = 0;
    for chunk in rows.chunks(BATCH_ROWS) {
        let sql = insert_sql(backend, target, columns, chunk.len(), on_conflict);
        let mut q = sqlx::query(&sql);
        for row in chunk {
            q = bind(q, row);
        }
        affected += q.execute(&mut **tx).await?.rows_affected();
    }
    Ok(affected)
}

/// A multi-row `INSERT`. SQLite gets anonymous `?` parameters: looking up a
/// named `$N` is linear in the number of parameters there, which made large
/// inserts quadratic.
fn insert_sql(backend: Backend, target: &str, columns: usize, rows: usize, suffix: &str) -> String {
    let mut sql = format!("INSERT INTO {target} VALUES ");
    let mut n = 0;
    for r in 0..rows {
        if r > 0 {
            sql.push(',');
        }
        sql.push('(');
        for c in 0..columns {
            if c > 0 {
                sql.push(',');
            }
            n += 1;
            match backend {
                Backend::Sqlite => sql.push('?'),
                Backend::Postgres => {
                    sql.push('$');
                    sql.push_str(&n.to_string());
                }
            }
        }
        sql.push(')');
    }
    sql.push_str(suffix);
    sql
}

/// An ingest in progress: one transaction. Moves already stored are ignored
/// and counted as duplicates.
pub struct IngestBatch<'s> {
    backend: Backend,
    tx: Transaction<'s, Any>,
    stored: u64,
}

impl IngestBatch<'_> {
    /// Stores moves not stored before; returns how many were new.
    pub async fn insert(&mut self, moves: &[NewMove]) -> Result<u64> {
        let games: BTreeSet<&str> = moves.iter().map(|m| m.mv.game.as_str()).collect();
        let games: Vec<&str> = games.into_iter().collect();
        insert_rows(
            self.backend,
            &mut self.tx,
            "games (name)",
            1,
            " ON CONFLICT (name) DO NOTHING",
            &games,
            |q, g| q.bind(g.to_string()),
        )
        .await?;
        let new = insert_rows(
            self.backend,
            &mut self.tx,
            "moves (username, game, ts, ip, occurrence)",
            5,
            " ON CONFLICT (ts, username, game, ip, occurrence) DO NOTHING",
            moves,
            |q, m| {
                q.bind(m.mv.username.clone())
                    .bind(m.mv.game.clone())
                    .bind(m.mv.timestamp)
                    .bind(m.mv.ip.clone())
                    .bind(m.occurrence as i64)
            },
        )
        .await?;
        self.stored += new;
        Ok(new)
    }

    /// Sets a daemon source's high-water mark in the same transaction as the
    /// moves it covers.
    pub async fn set_source_mark(&mut self, source: &str, mark: &str) -> Result<()> {
        sqlx::query(
            "INSERT INTO source_marks (source, mark) VALUES ($1, $2) \
             ON CONFLICT (source) DO UPDATE SET mark = excluded.mark",
        )
        .bind(source.to_owned())
        .bind(mark.to_owned())
        .execute(&mut *self.tx)
        .await?;
        Ok(())
    }

    /// Makes the ingest visible; bumps the moves generation if anything new
    /// was stored. Returns the number of new moves.
    pub async fn commit(mut self) -> Result<u64> {
        if self.stored > 0 {
            // Computed in Rust: the two back ends disagree on casting text.
            let row = sqlx::query("SELECT value FROM store_state WHERE key = 'moves_generation'")
                .fetch_one(&mut *self.tx)
                .await?;
            let v: String = row.try_get(0)?;
            let next = v.parse::<i64>().unwrap_or(0) + 1;
            sqlx::query("UPDATE store_state SET value = $1 WHERE key = 'moves_generation'")
                .bind(next.to_string())
                .execute(&mut *self.tx)
                .await?;
        }
        self.tx.commit().await?;
        Ok(self.stored)
    }

    /// Abandons the ingest: nothing of it is stored.
    pub async fn rollback(self) -> Result<()> {
        self.tx.rollback().await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        assert_eq!(normalize_url("x.db"), "sqlite://x.db");
        assert_eq!(normalize_url("sqlite::memory:"), "sqlite::memory:");
        assert_eq!(
            redact_url("postgres://me:secret@localhost/db"),
            "postgres://me:***@localhost/db"
        );
    }

    #[test]
    fn insert_sql_numbers_parameters() {
        assert_eq!(
            insert_sql(Backend::Postgres, "t (a, b)", 2, 2, ""),
            "INSERT INTO t (a, b) VALUES ($1,$2),($3,$4)"
        );
        assert_eq!(
            insert_sql(Backend::Sqlite, "t (a, b)", 2, 2, ""),
            "INSERT INTO t (a, b) VALUES (?,?),(?,?)"
        );
    }

    #[test]
    fn stall_runs_merge_consecutive_buckets_with_one_ip() {
        let s = |b, ip| Segment {
            bucket: b,
            moves: vec![],
            stalled: true,
            stall_ip: ip,
        };
        let segs = [
            s(0, Some(1)),
            s(10, Some(1)),
            s(20, Some(2)),
            s(40, Some(2)),
        ];
        assert_eq!(
            stall_runs(&segs, 10),
            vec![(0, 10, Some(1)), (20, 20, Some(2)), (40, 40, Some(2))]
        );
    }
}
