//! Loading a stored segmentation back into [`Segments`].

use super::super::{Result, Store, StoreError, StoredSegmentation};
use super::chunk::decode;
use super::days;
use futures_util::TryStreamExt;
use rayon::slice::ParallelSliceMut;
use schema::model::*;
use sqlx::Row;

impl Store {
    /// The stored segments for `bucket_seconds`, if any. Chunks come sorted
    /// by account and first bucket, so each account's list is built by appending.
    pub async fn load_segmentation(
        &self,
        bucket_seconds: i64,
    ) -> Result<Option<StoredSegmentation>> {
        let Some(row) = sqlx::query(
            "SELECT id, reference_order, generation FROM segmentations \
             WHERE bucket_seconds = $1 AND site = $2 ORDER BY id DESC LIMIT 1",
        )
        .bind(bucket_seconds)
        .bind(self.site.to_string())
        .fetch_optional(&self.pool)
        .await?
        else {
            return Ok(None);
        };
        let id: i64 = row.try_get(0)?;
        let reference_order = row.try_get::<i64, _>(1)? != 0;
        let generation: i64 = row.try_get(2)?;

        let mut segs = Segments::new(bucket_seconds);
        self.load_chunks(id, &mut segs).await?;
        self.load_account_days(id, &mut segs).await?;
        // Both cores: a tick's rescan waits on this load.
        rayon::join(
            || segs.ip_days.par_sort_unstable(),
            || segs.game_days.par_sort_unstable(),
        );
        Ok(Some(StoredSegmentation {
            segments: segs,
            reference_order,
            generation,
        }))
    }

    /// Appends segmentation `id`'s chunks of segments to `segs`, by account.
    async fn load_chunks(&self, id: i64, segs: &mut Segments) -> Result<()> {
        let bucket_seconds = segs.bucket_seconds;
        let mut rows = sqlx::query(
            "SELECT username, first_bucket, data FROM segment_chunks \
             WHERE segmentation_id = $1 ORDER BY username, first_bucket",
        )
        .bind(id)
        .fetch(&self.pool);
        // `None` before the first row: any name, the empty one too, starts
        // a new account.
        let mut name: Option<String> = None;
        let mut account = 0usize;
        while let Some(r) = rows.try_next().await? {
            let n: &str = r.try_get(0)?;
            if name.as_deref() != Some(n) {
                name = Some(n.to_owned());
                account = account_of(segs, n);
            }
            let first: i64 = r.try_get(1)?;
            let data: &[u8] = r.try_get(2)?;
            let ips = &mut segs.ips;
            let list = &mut segs.by_account[account];
            decode(data, first, bucket_seconds, |ip| ips.intern(ip), list)
                .map_err(|e| StoreError::Corrupt(format!("a stored chunk of segments: {e}")))?;
        }
        Ok(())
    }

    /// Appends segmentation `id`'s days of each account (addresses and games)
    /// to `segs`, unsorted.
    async fn load_account_days(&self, id: i64, segs: &mut Segments) -> Result<()> {
        let mut rows =
            sqlx::query("SELECT username, data FROM account_days WHERE segmentation_id = $1")
                .bind(id)
                .fetch(&self.pool);
        while let Some(r) = rows.try_next().await? {
            let account = account_of(segs, r.try_get(0)?) as AccountId;
            let data: &[u8] = r.try_get(1)?;
            let (ips, games) = (&mut segs.ips, &mut segs.games);
            let (ip_days, game_days) = (&mut segs.ip_days, &mut segs.game_days);
            days::decode(
                data,
                |ip| ips.intern(ip),
                |game| games.intern(game),
                |day, ip| ip_days.push(IpDay { account, day, ip }),
                |game, first_day, last_day| {
                    game_days.push(GameDays {
                        account,
                        game,
                        first_day,
                        last_day,
                    })
                },
            )
            .map_err(|e| StoreError::Corrupt(format!("an account's stored days: {e}")))?;
        }
        Ok(())
    }
}

/// The id of account `name` in `segs`, with an empty list of segments if new.
fn account_of(segs: &mut Segments, name: &str) -> usize {
    let u = segs.accounts.intern(name) as usize;
    if u == segs.by_account.len() {
        segs.by_account.push(Vec::new());
    }
    u
}
