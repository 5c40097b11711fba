//! Saving a segmentation: one transaction, from [`Store::begin_segmentation`]
//! (or an extension, `tail.rs`) to [`SegmentationWriter::finish`], that writes
//! the segments part by part as the cut goes (the moves it reads:
//! `read_moves.rs`), so a cut never has to hold them all.

use super::super::sql::insert_rows;
use super::super::{Result, Store};
use super::chunk::{Chunk, ChunkWriter};
use super::saved::{Before, Saved, SegmentCounts};
use super::times::TimeChunks;
use schema::model::*;
use sqlx::{Any, Row, Transaction};

/// A segmentation being saved: from [`Store::begin_segmentation`], which
/// removes the old one for the bucket size, to [`SegmentationWriter::finish`],
/// which commits. Dropping it rolls everything back.
///
/// The moves come from [`SegmentationWriter::next_moves`], inside the same
/// transaction: on SQLite nobody writes moves meanwhile, so the segments
/// are those of [`SegmentationWriter::generation`] exactly. On PostgreSQL a
/// concurrent ingest bumps the generation, and the next scan brings the
/// segments up to date: an extension, or a whole cut when a move committed
/// below the largest id this one read (see [`Store::extend_segmentation`]).
pub struct SegmentationWriter<'s> {
    pub(super) store: &'s Store,
    pub(super) tx: Transaction<'s, Any>,
    pub(super) id: i64,
    pub(super) generation: i64,
    pub(super) bucket_seconds: i64,
    pub(super) reference_order: bool,
    /// The last move read: `(ts, id)`.
    pub(super) after: (i64, i64),
    /// Only moves with a larger id are read (an extension).
    pub(super) min_id: i64,
    /// The page after `after`, read ahead ([`SegmentationWriter::read_ahead`]).
    pub(super) ahead: Option<Option<String>>,
    /// The largest move id read, and how many move rows were read (bad
    /// ones too).
    pub(super) max_id: i64,
    pub(super) rows: u64,
    pub(super) moves: u64,
    pub(super) bad: u64,
    pub(super) first_bad: Option<schema::rules::Violation>,
    pub(super) counts: SegmentCounts,
    /// Per account (by the cut's ids): the chunk being filled.
    chunks: Vec<ChunkWriter>,
    /// The times of the moves read.
    pub(super) times: TimeChunks,
    /// An extension: what the segmentation held before it.
    pub(super) extending: Option<Before>,
}

/// The tables a segmentation's rows are in, beside `segmentations`.
pub(crate) const SEGMENTATION_TABLES: [&str; 4] = [
    "segment_chunks",
    "move_time_chunks",
    "account_days",
    "segmentation_games",
];

impl Store {
    /// Starts saving the segmentation of `bucket_seconds` in `reference_order`
    /// (or by time): the old one is deleted in the same transaction.
    pub async fn begin_segmentation(
        &self,
        bucket_seconds: i64,
        reference_order: bool,
    ) -> Result<SegmentationWriter<'_>> {
        let mut tx = self.begin_write().await?;
        let generation = super::super::moves::read_generation(&mut *tx, &self.site).await?;
        let old: Vec<i64> =
            sqlx::query("SELECT id FROM segmentations WHERE bucket_seconds = $1 AND site = $2")
                .bind(bucket_seconds)
                .bind(self.site.to_string())
                .fetch_all(&mut *tx)
                .await?
                .iter()
                .map(|r| r.try_get(0))
                .collect::<Result<_, _>>()?;
        for id in old {
            for table in SEGMENTATION_TABLES {
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
            "INSERT INTO segmentations (bucket_seconds, reference_order, generation, site) VALUES ($1, $2, $3, $4) RETURNING id",
        )
        .bind(bucket_seconds)
        .bind(reference_order as i64)
        .bind(generation)
        .bind(self.site.to_string())
        .fetch_one(&mut *tx)
        .await?
        .try_get(0)?;
        Ok(SegmentationWriter::new(
            self,
            tx,
            (id, generation),
            bucket_seconds,
            reference_order,
        ))
    }
}

impl<'s> SegmentationWriter<'s> {
    pub(super) fn new(
        store: &'s Store,
        tx: Transaction<'s, Any>,
        (id, generation): (i64, i64),
        bucket_seconds: i64,
        reference_order: bool,
    ) -> Self {
        SegmentationWriter {
            store,
            tx,
            id,
            generation,
            bucket_seconds,
            reference_order,
            after: (i64::MIN, i64::MIN),
            min_id: i64::MIN,
            ahead: None,
            max_id: i64::MIN,
            rows: 0,
            moves: 0,
            bad: 0,
            first_bad: None,
            counts: SegmentCounts::default(),
            chunks: Vec::new(),
            times: TimeChunks::default(),
            extending: None,
        }
    }

    /// The moves generation the segments are cut from.
    pub fn generation(&self) -> i64 {
        self.generation
    }

    /// Saves segments of some accounts (each account's in bucket order; an account's
    /// later segments may follow in a later call). `accounts` and `ips` name
    /// the ids, the same in every call of a cut. Each account's segments fill
    /// a chunk that is saved once it holds the store's chunk size.
    pub async fn write_accounts(
        &mut self,
        accounts: &Names,
        ips: &Names,
        part: &[(AccountId, &[Segment])],
    ) -> Result<()> {
        let bs = self.bucket_seconds;
        let mut ready = Vec::new();
        for &(account, segs) in part {
            let (buckets, stalled) = schema::bucket_counts(segs);
            self.counts.segments += buckets;
            self.counts.stalled += stalled;
            let u = account as usize;
            if self.chunks.len() <= u {
                self.chunks.resize_with(u + 1, ChunkWriter::default);
            }
            let chunk = &mut self.chunks[u];
            chunk.push(segs, ips, bs);
            if chunk.len() >= self.store.chunk_bytes {
                ready.extend(chunk.take().map(|c| (account, c)));
            }
        }
        self.insert_chunks(accounts, &ready).await
    }

    /// Saves every chunk still being filled.
    async fn close_chunks(&mut self, accounts: &Names) -> Result<()> {
        let chunks = std::mem::take(&mut self.chunks);
        let ready: Vec<(AccountId, Chunk)> = chunks
            .into_iter()
            .enumerate()
            .filter_map(|(u, mut c)| c.take().map(|c| (u as AccountId, c)))
            .collect();
        self.insert_chunks(accounts, &ready).await
    }

    async fn insert_chunks(
        &mut self,
        accounts: &Names,
        chunks: &[(AccountId, Chunk)],
    ) -> Result<()> {
        let (id, generation) = (self.id, self.generation);
        insert_rows(
            self.store.backend,
            &mut self.tx,
            "segment_chunks (segmentation_id, username, first_bucket, last_bucket, segments, stalled, data, generation)",
            8,
            "",
            chunks,
            |q, (account, c)| {
                q.bind(id)
                    .bind(accounts.name(*account).to_owned())
                    .bind(c.first_bucket)
                    .bind(c.last_bucket)
                    .bind(c.segments as i64)
                    .bind(c.stalled as i64)
                    .bind(c.data.clone())
                    .bind(generation)
            },
        )
        .await?;
        Ok(())
    }

    /// Saves `rest` (the segments not written yet, the sightings and the
    /// runs of game days of the cut) with each game's latest bucket
    /// (`last_buckets`, by id in `rest.games`), and commits.
    pub async fn finish(mut self, rest: &Segments, last_buckets: &[(u32, Epoch)]) -> Result<Saved> {
        let part: Vec<(AccountId, &[Segment])> = rest
            .by_account
            .iter()
            .enumerate()
            .map(|(u, segs)| (u as AccountId, segs.as_slice()))
            .collect();
        self.write_accounts(&rest.accounts, &rest.ips, &part)
            .await?;
        self.close_chunks(&rest.accounts).await?;
        self.times.close();
        self.times.save(self.store, &mut self.tx, self.id).await?;
        let mut saved = match self.extending {
            None => {
                self.insert_days(rest).await?;
                Saved {
                    counts: self.counts,
                    accounts: rest.accounts.len() as u64,
                    moves: self.moves,
                    extended: false,
                    rows: 0,
                }
            }
            Some(before) => {
                self.merge_days(rest).await?;
                before.saved(self.counts, self.moves)
            }
        };
        saved.rows = self.through().2;
        self.save_games(&rest.games, last_buckets).await?;
        self.save_state(&saved).await?;
        self.tx.commit().await?;
        if let Some(first) = self.first_bad {
            tracing::warn!(
                rows = self.bad,
                first = %first,
                "stored moves that break the record rule were left out"
            );
        }
        Ok(saved)
    }

    /// Each game's latest bucket, for a later extension (time order only).
    async fn save_games(&mut self, games: &Names, last_buckets: &[(u32, Epoch)]) -> Result<()> {
        if self.reference_order {
            return Ok(());
        }
        let (backend, id) = (self.store.backend, self.id);
        insert_rows(
            backend,
            &mut self.tx,
            "segmentation_games (segmentation_id, game, last_bucket)",
            3,
            "ON CONFLICT (segmentation_id, game) DO UPDATE SET last_bucket = excluded.last_bucket",
            last_buckets,
            |q, &(game, bucket)| q.bind(id).bind(games.name(game).to_owned()).bind(bucket),
        )
        .await?;
        Ok(())
    }

    /// Where the segmentation now stands. A reference-order one is never
    /// extended: it has no `through_id`.
    async fn save_state(&mut self, saved: &Saved) -> Result<()> {
        let (through_id, through_ts, rows) = self.through();
        let (through_id, through_ts) = match self.reference_order {
            true => (None, None),
            false => (Some(through_id), Some(through_ts)),
        };
        sqlx::query(
            "UPDATE segmentations SET generation = $1, through_id = $2, through_ts = $3, \
             rows_read = $4, account_count = $5, segment_count = $6, stalled_count = $7 \
             WHERE id = $8",
        )
        .bind(self.generation)
        .bind(through_id)
        .bind(through_ts)
        .bind(rows as i64)
        .bind(saved.accounts as i64)
        .bind(saved.counts.segments as i64)
        .bind(saved.counts.stalled as i64)
        .bind(self.id)
        .execute(&mut *self.tx)
        .await?;
        Ok(())
    }

    /// The largest move id and time cut, and the move rows read, over the
    /// whole segmentation (what came before an extension too).
    fn through(&self) -> (i64, i64, u64) {
        let read = (self.max_id.max(0), self.after.0, self.rows);
        match &self.extending {
            Some(b) => (
                read.0.max(b.through_id),
                read.1.max(b.through_ts),
                read.2 + b.rows,
            ),
            None => read,
        }
    }
}
