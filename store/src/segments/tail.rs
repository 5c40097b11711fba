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
use sqlx::Row;

/// Games looked up per statement by [`SegmentationWriter::game_buckets`].
const GAMES_PER_QUERY: usize = 500;

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
    /// Call it once per account, before the account's first new move.
    ///
    /// # Panics
    /// If the writer does not extend a segmentation.
    pub async fn take_tail(&mut self, account: &str) -> Result<Vec<TailRecord>> {
        assert!(self.extending.is_some(), "take_tail needs an extension");
        let (id, bs) = (self.id, self.bucket_seconds);
        let mut ips = Names::default();
        let mut records: Vec<Segment> = Vec::new();
        let mut removed = SegmentCounts::default();
        let mut before = i64::MAX;
        while records.len() < 2 {
            let Some(row) = sqlx::query(
                "SELECT first_bucket, segments, stalled, data FROM segment_chunks \
                 WHERE segmentation_id = $1 AND username = $2 AND first_bucket < $3 \
                 ORDER BY first_bucket DESC LIMIT 1",
            )
            .bind(id)
            .bind(account)
            .bind(before)
            .fetch_optional(&mut *self.tx)
            .await?
            else {
                break;
            };
            before = row.try_get(0)?;
            removed.segments += row.try_get::<i64, _>(1)? as u64;
            removed.stalled += row.try_get::<i64, _>(2)? as u64;
            let mut chunk = Vec::new();
            let data: Vec<u8> = row.try_get(3)?;
            decode(&data, before, bs, |ip| ips.intern(ip), &mut chunk)
                .map_err(|e| StoreError::Corrupt(format!("a stored chunk of segments: {e}")))?;
            chunk.append(&mut records);
            records = chunk;
        }
        if before != i64::MAX {
            sqlx::query(
                "DELETE FROM segment_chunks \
                 WHERE segmentation_id = $1 AND username = $2 AND first_bucket >= $3",
            )
            .bind(id)
            .bind(account)
            .bind(before)
            .execute(&mut *self.tx)
            .await?;
        }
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
        let extending = self.extending.as_mut().expect("checked");
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
