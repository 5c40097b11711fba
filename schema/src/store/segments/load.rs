//! Loading a stored segmentation back into [`Segments`].

use super::super::{Result, Store, StoredSegmentation};
use crate::model::*;
use crate::StallIp;
use futures_util::TryStreamExt;
use sqlx::Row;

impl Store {
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
