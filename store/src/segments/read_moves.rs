//! The moves a cut reads, inside the writer's transaction: by time (ties in
//! ingest order) or in ingest order, page by page, with their times kept for
//! improved mode.

use super::super::Result;
use super::times::TIME_CHUNK_BYTES;
use super::writer::SegmentationWriter;
use schema::model::Move;
use sqlx::Row;

impl SegmentationWriter<'_> {
    /// The next stored moves, at most `limit` of them (none when all are
    /// read): by time, ties in ingest order, or in ingest order alone for
    /// reference order. Rows that break the record rule (stored by an older
    /// version) are left out, and reported once by `finish`.
    pub async fn next_moves(&mut self, limit: usize) -> Result<Vec<Move>> {
        let mut moves = Vec::with_capacity(limit.min(1 << 16));
        // A page of nothing but bad rows is not the end: read on.
        while moves.is_empty() {
            let site = self.store.site.to_string();
            let query = if self.reference_order {
                sqlx::query(
                    "SELECT username, game, ts, ip, id, net FROM moves \
                     WHERE site = $1 AND id > $2 ORDER BY id LIMIT $3",
                )
                .bind(site)
                .bind(self.after.1)
            } else {
                sqlx::query(
                    "SELECT username, game, ts, ip, id, net FROM moves WHERE site = $1 \
                     AND (ts, id) > ($2, $3) AND id > $4 ORDER BY ts, id LIMIT $5",
                )
                .bind(site)
                .bind(self.after.0)
                .bind(self.after.1)
                .bind(self.min_id)
            };
            let rows = query.bind(limit as i64).fetch_all(&mut *self.tx).await?;
            if rows.is_empty() {
                break;
            }
            for row in rows {
                let m = Move {
                    username: row.try_get(0)?,
                    game: row.try_get(1)?,
                    timestamp: row.try_get(2)?,
                    ip: row.try_get(3)?,
                };
                self.after = (m.timestamp, row.try_get(4)?);
                self.max_id = self.max_id.max(self.after.1);
                self.rows += 1;
                match self.store.limits.check_move(&m) {
                    Ok(()) => {
                        let net: Option<&str> = row.try_get(5)?;
                        let bytes = self.store.chunk_bytes.min(TIME_CHUNK_BYTES);
                        self.times.push(&m.username, m.timestamp, &m.ip, net, bytes);
                        moves.push(m);
                    }
                    Err(v) => {
                        self.bad += 1;
                        self.first_bad.get_or_insert(v);
                    }
                }
            }
        }
        self.moves += moves.len() as u64;
        self.times.save(self.store, &mut self.tx, self.id).await?;
        Ok(moves)
    }
}
