//! Segmentations: the segments of all moves for one bucket size
//! (`segmentations`, `segment_moves`, `segment_stalls`, `ip_days`,
//! `game_days`).

use super::sql::insert_rows;
use super::{Result, Store, StoredSegmentation};
use crate::model::*;
use crate::StallIp;
use futures_util::TryStreamExt;
use sqlx::Row;

impl Store {
    /// Replaces the stored segments of `segments.bucket_seconds` with these,
    /// in one transaction.
    pub async fn save_segmentation(
        &self,
        segments: &Segments,
        reference_order: bool,
        generation: i64,
    ) -> Result<()> {
        let mut tx = self.begin_write().await?;
        let old: Vec<i64> =
            sqlx::query("SELECT id FROM segmentations WHERE bucket_seconds = $1 AND site = $2")
                .bind(segments.bucket_seconds)
                .bind(self.site.to_string())
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
            "INSERT INTO segmentations (bucket_seconds, reference_order, generation, site) VALUES ($1, $2, $3, $4) RETURNING id",
        )
        .bind(segments.bucket_seconds)
        .bind(reference_order as i64)
        .bind(generation)
        .bind(self.site.to_string())
        .fetch_one(&mut *tx)
        .await?
        .try_get(0)?;

        let users = &segments.users;
        let ips = &segments.ips;
        // Rows go out in chunks as they are made: the whole table of rows
        // at once cost as much memory as the segments themselves.
        let mut moved: Vec<MovedRow<'_>> = Vec::with_capacity(SAVE_CHUNK);
        let mut stalls: Vec<StallRow<'_>> = Vec::with_capacity(SAVE_CHUNK);
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
            if moved.len() >= SAVE_CHUNK {
                insert_moved(self.backend, &mut tx, id, &moved).await?;
                moved.clear();
            }
            if stalls.len() >= SAVE_CHUNK {
                insert_stalls(self.backend, &mut tx, id, &stalls).await?;
                stalls.clear();
            }
        }
        insert_moved(self.backend, &mut tx, id, &moved).await?;
        insert_stalls(self.backend, &mut tx, id, &stalls).await?;
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
        // `None` before the first row: any name, the empty one too, starts
        // a new user.
        let mut name: Option<String> = None;
        let mut user = 0usize;
        while let Some(r) = rows.try_next().await? {
            let n: &str = r.try_get(0)?;
            if name.as_deref() != Some(n) {
                name = Some(n.to_owned());
                user = user_of(&mut segs, n);
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
        name = None;
        while let Some(r) = rows.try_next().await? {
            let n: &str = r.try_get(0)?;
            if name.as_deref() != Some(n) {
                name = Some(n.to_owned());
                user = user_of(&mut segs, n);
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

    /// The moves generation and order of the stored segmentation for
    /// `bucket_seconds`, without loading it: whether it is current is one
    /// query.
    pub async fn segmentation_state(&self, bucket_seconds: i64) -> Result<Option<(i64, bool)>> {
        let row = sqlx::query(
            "SELECT generation, reference_order FROM segmentations \
             WHERE bucket_seconds = $1 AND site = $2 ORDER BY id DESC LIMIT 1",
        )
        .bind(bucket_seconds)
        .bind(self.site.to_string())
        .fetch_optional(&self.pool)
        .await?;
        Ok(match row {
            Some(r) => Some((r.try_get(0)?, r.try_get::<i64, _>(1)? != 0)),
            None => None,
        })
    }

    /// The order of the most recent segmentation: `Some(true)` if the last
    /// ingest asked for reference order.
    pub async fn segmentation_order(&self) -> Result<Option<bool>> {
        let row = sqlx::query(
            "SELECT reference_order FROM segmentations WHERE site = $1 ORDER BY id DESC LIMIT 1",
        )
        .bind(self.site.to_string())
        .fetch_optional(&self.pool)
        .await?;
        Ok(match row {
            Some(r) => Some(r.try_get::<i64, _>(0)? != 0),
            None => None,
        })
    }
}

/// Rows saved per chunk of a segmentation.
const SAVE_CHUNK: usize = 50_000;

/// A `segment_moves` row: user, bucket, IP, move count, rank.
type MovedRow<'s> = (&'s str, Epoch, &'s str, i64, i64);
/// A `segment_stalls` row: user, first and last bucket, IP.
type StallRow<'s> = (&'s str, Epoch, Epoch, Option<&'s str>);

async fn insert_moved(
    backend: super::Backend,
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    id: i64,
    rows: &[MovedRow<'_>],
) -> Result<()> {
    insert_rows(
        backend,
        tx,
        "segment_moves (segmentation_id, username, bucket, ip, move_count, rank)",
        6,
        "",
        rows,
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
    Ok(())
}

async fn insert_stalls(
    backend: super::Backend,
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    id: i64,
    rows: &[StallRow<'_>],
) -> Result<()> {
    insert_rows(
        backend,
        tx,
        "segment_stalls (segmentation_id, username, first_bucket, last_bucket, ip)",
        5,
        "",
        rows,
        |q, &(user, first, last, ip)| {
            q.bind(id)
                .bind(user.to_owned())
                .bind(first)
                .bind(last)
                .bind(ip.map(str::to_owned))
        },
    )
    .await?;
    Ok(())
}

/// Runs of consecutive stalled buckets with the same stall IP:
/// `(first, last, ip)`.
fn stall_runs(segs: &[Segment], bs: i64) -> Vec<(Epoch, Epoch, Option<IpId>)> {
    let mut runs: Vec<(Epoch, Epoch, Option<IpId>)> = Vec::new();
    for s in segs.iter().filter(|s| s.stalled) {
        match runs.last_mut() {
            Some(r) if r.1 + bs == s.bucket && r.2 == s.stall_ip.map(StallIp::get) => {
                r.1 = s.bucket
            }
            _ => runs.push((s.bucket, s.bucket, s.stall_ip.map(StallIp::get))),
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
        seg.stall_ip = ip.map(StallIp::new);
        out.push(seg);
    }
    out.extend(moved);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stall_runs_merge_consecutive_buckets_with_one_ip() {
        let s = |b, ip: Option<IpId>| Segment {
            bucket: b,
            moves: Default::default(),
            stalled: true,
            stall_ip: ip.map(StallIp::new),
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
