//! The moves a cut reads, inside the writer's transaction: by time (ties in
//! ingest order) or in ingest order, page by page, with their times kept for
//! improved mode.
//!
//! A page comes from the database as one value, a JSON array of
//! `[username, game, ts, ip, id, net]` rows, not as a row a move: handing
//! rows one by one from SQLite's thread cost most of a whole cut (a value
//! copied, converted and freed per column), while building and parsing the
//! page's text costs a fraction of it. The page is ordered again here by
//! its keys, whatever order the aggregate kept.

use super::super::{Backend, Result, StoreError};
use super::times::TIME_CHUNK_BYTES;
use super::writer::SegmentationWriter;
use schema::model::Move;
use sqlx::Row;
use std::borrow::Cow;

/// One stored move as a page carries it.
#[derive(serde::Deserialize)]
struct PageRow<'a>(
    #[serde(borrow)] Cow<'a, str>,
    #[serde(borrow)] Cow<'a, str>,
    i64,
    #[serde(borrow)] Cow<'a, str>,
    i64,
    #[serde(borrow)] Option<Cow<'a, str>>,
);

impl SegmentationWriter<'_> {
    /// The next stored moves, at most `limit` of them (none when all are
    /// read): by time, ties in ingest order, or in ingest order alone for
    /// reference order. Rows that break the record rule (stored by an older
    /// version) are left out, and reported once by `finish`.
    pub async fn next_moves(&mut self, limit: usize) -> Result<Vec<Move>> {
        let mut moves = Vec::with_capacity(limit.min(1 << 16));
        // A page of nothing but bad rows is not the end: read on.
        while moves.is_empty() {
            let text = match self.ahead.take() {
                Some(text) => text,
                None => self.next_page(limit).await?,
            };
            let Some(text) = text else { break };
            // serde's message may quote a value (an address): the place only.
            let mut rows: Vec<PageRow> = serde_json::from_str(&text).map_err(|e| {
                StoreError::Corrupt(format!("a page of stored moves, at byte {}", e.column()))
            })?;
            if rows.is_empty() {
                break;
            }
            if self.reference_order {
                rows.sort_by_key(|r| r.4);
            } else {
                rows.sort_by_key(|r| (r.2, r.4));
            }
            for PageRow(username, game, timestamp, ip, id, net) in rows {
                let m = Move {
                    username: username.into_owned(),
                    game: game.into_owned(),
                    timestamp,
                    ip: ip.into_owned(),
                };
                self.after = (timestamp, id);
                self.max_id = self.max_id.max(id);
                self.rows += 1;
                match self.store.limits.check_move(&m) {
                    Ok(()) => {
                        let bytes = self.store.chunk_bytes.min(TIME_CHUNK_BYTES);
                        self.times
                            .push(&m.username, m.timestamp, &m.ip, net.as_deref(), bytes);
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

    /// Reads the page after the moves [`SegmentationWriter::next_moves`]
    /// returned last, for its next call to return: the database reads it
    /// while the caller cuts what it has (join the two futures). `limit` is
    /// the next call's.
    pub async fn read_ahead(&mut self, limit: usize) -> Result<()> {
        if self.ahead.is_none() {
            self.ahead = Some(self.next_page(limit).await?);
        }
        Ok(())
    }

    /// The next page of stored moves after `self.after` as one JSON text
    /// (`None`, or an empty array, when there are none).
    async fn next_page(&mut self, limit: usize) -> Result<Option<String>> {
        let array = match self.store.backend {
            Backend::Sqlite => "json_group_array(json_array(username, game, ts, ip, id, net))",
            Backend::Postgres => {
                "json_agg(json_build_array(username, game, ts, ip, id, net))::text"
            }
        };
        let site = self.store.site.to_string();
        let sql = if self.reference_order {
            format!(
                "SELECT {array} FROM (SELECT username, game, ts, ip, id, net FROM moves \
                 WHERE site = $1 AND id > $2 ORDER BY id LIMIT $3) page"
            )
        } else {
            format!(
                "SELECT {array} FROM (SELECT username, game, ts, ip, id, net FROM moves \
                 WHERE site = $1 AND (ts, id) > ($2, $3) AND id > $4 ORDER BY ts, id LIMIT $5) page"
            )
        };
        let query = if self.reference_order {
            sqlx::query(&sql).bind(site).bind(self.after.1)
        } else {
            sqlx::query(&sql)
                .bind(site)
                .bind(self.after.0)
                .bind(self.after.1)
                .bind(self.min_id)
        };
        Ok(query
            .bind(limit as i64)
            .fetch_one(&mut *self.tx)
            .await?
            .try_get(0)?)
    }
}
