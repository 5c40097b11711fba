//! Extending a stored time-order segmentation with the moves stored after
//! it: only what those moves can change is read back and written again,
//! the latest chunk of each account who moved (holding at least their latest
//! two records) and the latest bucket of the games they moved in.

use super::super::moves::read_generation;
use super::super::sql::numbered_marks;
use super::super::{Backend, Result, Store, StoreError};
use super::chunk::decode;
use super::saved::{Before, SegmentCounts};
use super::writer::SegmentationWriter;
use rustc_hash::FxHashMap;
use schema::model::*;
use sqlx::any::AnyRow;
use sqlx::Row;

/// Games looked up per statement by [`SegmentationWriter::game_buckets`].
const GAMES_PER_QUERY: usize = 500;

/// Accounts whose tails [`SegmentationWriter::take_tails`] reads per
/// statement (two parameters each when their chunks are deleted).
const ACCOUNTS_PER_QUERY: usize = 400;

/// One of an account's latest records in a stored segmentation (a moved
/// bucket or a stall run, as [`Segment`]), by names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TailRecord {
    pub bucket: Epoch,
    /// IPs in order of first use, with move counts.
    pub moves: Vec<(String, u32)>,
    /// Buckets stalled from `bucket` on ([`Segment::stalls`]).
    pub stalls: u32,
    pub stall_ip: Option<String>,
}

impl Store {
    /// Starts extending the stored segmentation of `bucket_seconds` with the
    /// moves stored since it was cut, in one transaction, or `None` when
    /// only a whole cut will do: there is none, it is in reference order or
    /// from before extensions, a purge made it stale, or a new move is
    /// older than the latest one cut (moves that arrive out of order).
    pub async fn extend_segmentation(
        &self,
        bucket_seconds: i64,
    ) -> Result<Option<SegmentationWriter<'_>>> {
        let mut tx = self.begin_write().await?;
        let generation = read_generation(&mut *tx, &self.site).await?;
        let Some(row) = sqlx::query(
            "SELECT id, generation, reference_order, through_id, through_ts, rows_read, \
             account_count, segment_count, stalled_count FROM segmentations \
             WHERE bucket_seconds = $1 AND site = $2 ORDER BY id DESC LIMIT 1",
        )
        .bind(bucket_seconds)
        .bind(self.site.to_string())
        .fetch_optional(&mut *tx)
        .await?
        else {
            return Ok(None);
        };
        let id: i64 = row.try_get(0)?;
        let stale = row.try_get::<i64, _>(1)? < 0 || row.try_get::<i64, _>(2)? != 0;
        let Some(through_id) = row.try_get::<Option<i64>, _>(3)? else {
            return Ok(None);
        };
        let count = |i: usize| -> Result<u64> { Ok(row.try_get::<i64, _>(i)? as u64) };
        let before = Before {
            through_id,
            through_ts: row.try_get(4)?,
            rows: count(5)?,
            accounts: count(6)?,
            counts: SegmentCounts {
                segments: count(7)?,
                stalled: count(8)?,
            },
            removed: SegmentCounts::default(),
            new_accounts: 0,
        };
        if stale {
            return Ok(None);
        }
        let site = self.site.to_string();
        if self.backend == Backend::Postgres {
            // Ids are handed out before commit: a move with a smaller id can
            // commit after the cut that read past it. Then the rows up to
            // `through_id` are more than the cut read.
            let rows: i64 = sqlx::query("SELECT COUNT(*) FROM moves WHERE site = $1 AND id <= $2")
                .bind(&site)
                .bind(through_id)
                .fetch_one(&mut *tx)
                .await?
                .try_get(0)?;
            if rows as u64 != before.rows {
                return Ok(None);
            }
        }
        // The new moves by id, not every move by time: `MIN(ts)` alone walks
        // the time index from the oldest move (half a second at 10M moves).
        // In SQLite, `+site` keeps the site index out of the plan too.
        let oldest_sql = match self.backend {
            Backend::Sqlite => "SELECT MIN(+ts) FROM moves WHERE +site = $1 AND id > $2",
            Backend::Postgres => "SELECT MIN(ts + 0) FROM moves WHERE site = $1 AND id > $2",
        };
        let oldest: Option<i64> = sqlx::query(oldest_sql)
            .bind(&site)
            .bind(through_id)
            .fetch_one(&mut *tx)
            .await?
            .try_get(0)?;
        if oldest.is_some_and(|t| t < before.through_ts) {
            return Ok(None);
        }
        let mut writer = SegmentationWriter::new(self, tx, (id, generation), bucket_seconds, false);
        writer.after = (before.through_ts, i64::MIN);
        writer.min_id = through_id;
        writer.extending = Some(before);
        Ok(Some(writer))
    }
}

impl SegmentationWriter<'_> {
    /// Takes `account`'s latest chunks out of the segmentation being extended,
    /// enough to hold the account's latest two records (a stall run is one), to be cut again with
    /// the account's new moves and saved anew: nothing for an account new to it.
    async fn take_tail(&mut self, account: &str) -> Result<Vec<TailRecord>> {
        let mut taken = Taken::default();
        while taken.records.len() < 2 {
            let Some(row) = sqlx::query(
                "SELECT first_bucket, segments, stalled, data FROM segment_chunks \
                 WHERE segmentation_id = $1 AND username = $2 AND first_bucket < $3 \
                 ORDER BY first_bucket DESC LIMIT 1",
            )
            .bind(self.id)
            .bind(account)
            .bind(taken.from)
            .fetch_optional(&mut *self.tx)
            .await?
            else {
                break;
            };
            taken.push_earlier(&row, 0, self.bucket_seconds)?;
        }
        if taken.from != i64::MAX {
            sqlx::query(
                "DELETE FROM segment_chunks \
                 WHERE segmentation_id = $1 AND username = $2 AND first_bucket >= $3",
            )
            .bind(self.id)
            .bind(account)
            .bind(taken.from)
            .execute(&mut *self.tx)
            .await?;
        }
        self.taken(taken)
    }

    /// Takes each of `accounts`' latest chunks out of the segmentation being
    /// extended, enough to hold the account's latest two records (a stall
    /// run is one), to be cut again with the account's new moves and saved
    /// anew: nothing for an account new to it. Call it once per account,
    /// before the account's first new move. Each account's latest chunk is
    /// read, and deleted, for a few hundred accounts a statement; an
    /// account whose latest chunk holds fewer than two records is taken on
    /// its own. (A cut saves each account's latest records in one chunk,
    /// so that is an account with one record, unless the chunks were split
    /// otherwise; no test builds such a split.)
    ///
    /// # Panics
    /// If the writer does not extend a segmentation.
    pub async fn take_tails(
        &mut self,
        accounts: &[&str],
    ) -> Result<FxHashMap<String, Vec<TailRecord>>> {
        assert!(self.extending.is_some(), "take_tails needs an extension");
        let mut out = FxHashMap::default();
        for part in accounts.chunks(ACCOUNTS_PER_QUERY) {
            let latest_chunks = self.latest_chunks(part).await?;
            let rows: Vec<String> = (0..latest_chunks.len())
                .map(|i| format!("(${}, ${})", 2 + 2 * i, 3 + 2 * i))
                .collect();
            let sql = format!(
                "SELECT username, first_bucket, segments, stalled, data FROM segment_chunks \
                 WHERE segmentation_id = $1 AND (username, first_bucket) IN (VALUES {})",
                rows.join(", ")
            );
            let mut query = sqlx::query(&sql).bind(self.id);
            for (account, first) in &latest_chunks {
                query = query.bind(account).bind(*first);
            }
            let rows = match latest_chunks.is_empty() {
                true => Vec::new(),
                false => query.fetch_all(&mut *self.tx).await?,
            };
            let mut latest: FxHashMap<String, Taken> = FxHashMap::default();
            for row in rows {
                let mut taken = Taken::default();
                taken.push_earlier(&row, 1, self.bucket_seconds)?;
                latest.insert(row.try_get(0)?, taken);
            }
            let mut whole = Vec::new();
            for &account in part {
                match latest.get(account) {
                    Some(t) if t.records.len() < 2 => {
                        latest.remove(account);
                        let tail = self.take_tail(account).await?;
                        out.insert(account.to_owned(), tail);
                    }
                    Some(t) => whole.push((account, t.from)),
                    None => {
                        out.insert(account.to_owned(), self.taken(Taken::default())?);
                    }
                }
            }
            self.delete_chunks(&whole).await?;
            for (account, taken) in latest {
                let tail = self.taken(taken)?;
                out.insert(account, tail);
            }
        }
        Ok(out)
    }

    /// The first bucket of each of `accounts`' latest chunk, for those
    /// with one (read from the index alone).
    async fn latest_chunks(&mut self, accounts: &[&str]) -> Result<Vec<(String, Epoch)>> {
        let sql = format!(
            "SELECT username, MAX(first_bucket) FROM segment_chunks \
             WHERE segmentation_id = $1 AND username IN ({}) GROUP BY username",
            numbered_marks(2, accounts.len())
        );
        let mut query = sqlx::query(&sql).bind(self.id);
        for account in accounts {
            query = query.bind(*account);
        }
        let rows = query.fetch_all(&mut *self.tx).await?;
        rows.iter()
            .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
            .collect()
    }

    /// Deletes the chunk of each (account, first bucket).
    async fn delete_chunks(&mut self, chunks: &[(&str, Epoch)]) -> Result<()> {
        if chunks.is_empty() {
            return Ok(());
        }
        let rows: Vec<String> = (0..chunks.len())
            .map(|i| format!("(${}, ${})", 2 + 2 * i, 3 + 2 * i))
            .collect();
        let sql = format!(
            "DELETE FROM segment_chunks WHERE segmentation_id = $1 \
             AND (username, first_bucket) IN (VALUES {})",
            rows.join(", ")
        );
        let mut query = sqlx::query(&sql).bind(self.id);
        for &(account, first) in chunks {
            query = query.bind(account).bind(first);
        }
        query.execute(&mut *self.tx).await?;
        Ok(())
    }

    /// An account's records taken out, counted and named.
    fn taken(&mut self, taken: Taken) -> Result<Vec<TailRecord>> {
        let Taken {
            ips,
            records,
            removed,
            ..
        } = taken;
        // In time order an account's latest record is a bucket they moved in.
        if records
            .last()
            .is_some_and(|r| r.moves.is_empty() || r.stalled())
        {
            return Err(StoreError::Corrupt(
                "a stored stall at or after an account's latest move: not a time-order segmentation"
                    .to_owned(),
            ));
        }
        let extending = self.extending.as_mut().expect("an extension");
        if records.is_empty() {
            extending.new_accounts += 1;
        }
        extending.removed.segments += removed.segments;
        extending.removed.stalled += removed.stalled;
        let name = |ip: IpId| ips.name(ip).to_owned();
        Ok(records
            .into_iter()
            .map(|r| TailRecord {
                bucket: r.bucket,
                moves: r.moves.iter().map(|&(ip, n)| (name(ip), n)).collect(),
                stalls: r.stalls,
                stall_ip: r.stall_ip.map(|ip| name(ip.get())),
            })
            .collect())
    }

    /// The bucket of each game's latest move in the segmentation being
    /// extended, for those of `games` that had one: a statement for a few
    /// hundred games instead of one a game (each a round trip to the
    /// database's thread).
    pub async fn game_buckets(&mut self, games: &[&str]) -> Result<FxHashMap<String, Epoch>> {
        let mut out = FxHashMap::default();
        for part in games.chunks(GAMES_PER_QUERY) {
            let sql = format!(
                "SELECT game, last_bucket FROM segmentation_games \
                 WHERE segmentation_id = $1 AND game IN ({})",
                numbered_marks(2, part.len())
            );
            let mut query = sqlx::query(&sql).bind(self.id);
            for game in part {
                query = query.bind(*game);
            }
            for row in query.fetch_all(&mut *self.tx).await? {
                out.insert(row.try_get(0)?, row.try_get(1)?);
            }
        }
        Ok(out)
    }
}

/// An account's latest chunks read so far, latest last.
struct Taken {
    ips: Names,
    records: Vec<Segment>,
    removed: SegmentCounts,
    /// The first bucket of the earliest chunk read (`i64::MAX`: none).
    from: Epoch,
}

impl Default for Taken {
    fn default() -> Self {
        Taken {
            ips: Names::default(),
            records: Vec::new(),
            removed: SegmentCounts::default(),
            from: i64::MAX,
        }
    }
}

impl Taken {
    /// Puts before the records read the chunk in `row`, whose columns from
    /// `at` on are its first bucket, counts and data.
    fn push_earlier(&mut self, row: &AnyRow, at: usize, bucket_seconds: i64) -> Result<()> {
        self.from = row.try_get(at)?;
        self.removed.segments += row.try_get::<i64, _>(at + 1)? as u64;
        self.removed.stalled += row.try_get::<i64, _>(at + 2)? as u64;
        let mut chunk = Vec::new();
        let data: Vec<u8> = row.try_get(at + 3)?;
        let ips = &mut self.ips;
        decode(
            &data,
            self.from,
            bucket_seconds,
            |ip| ips.intern(ip),
            &mut chunk,
        )
        .map_err(|e| StoreError::Corrupt(format!("a stored chunk of segments: {e}")))?;
        chunk.append(&mut self.records);
        self.records = chunk;
        Ok(())
    }
}
