//! Raw moves and game names (`moves`, `games`, `store_state`'s moves
//! generation), and the ingest transaction that stores them.

use super::sql::insert_rows;
use super::{Backend, NewMove, Result, Store, StoreError};
use crate::model::*;
use futures_util::TryStreamExt;
use sqlx::{Any, Row, Transaction};
use std::collections::BTreeSet;

impl Store {
    /// Starts an ingest: nothing is visible to others until
    /// [`IngestBatch::commit`], and dropping the batch rolls it back.
    pub async fn begin_ingest(&self) -> Result<IngestBatch<'_>> {
        let mut tx = self.pool.begin().await?;
        super::privacy::check_ingest_key(&mut tx, self.ip_key.as_ref()).await?;
        Ok(IngestBatch {
            backend: self.backend,
            tx,
            stored: 0,
            ip_key: self.ip_key.clone(),
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
}

/// An ingest in progress: one transaction. Moves already stored are ignored
/// and counted as duplicates.
pub struct IngestBatch<'s> {
    backend: Backend,
    tx: Transaction<'s, Any>,
    stored: u64,
    ip_key: Option<std::sync::Arc<super::IpKey>>,
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
        // No raw address is written in a keyed store: the IP and its
        // network are hashed here, on the one way moves come in.
        let ips: Vec<(String, Option<String>)> = moves
            .iter()
            .map(|m| super::privacy::stored_ip(self.ip_key.as_deref(), &m.mv.ip))
            .collect();
        let rows: Vec<(&NewMove, &(String, Option<String>))> = moves.iter().zip(&ips).collect();
        let new = insert_rows(
            self.backend,
            &mut self.tx,
            "moves (username, game, ts, ip, occurrence, net)",
            6,
            " ON CONFLICT (ts, username, game, ip, occurrence) DO NOTHING",
            &rows,
            |q, (m, (ip, net))| {
                q.bind(m.mv.username.clone())
                    .bind(m.mv.game.clone())
                    .bind(m.mv.timestamp)
                    .bind(ip.clone())
                    .bind(m.occurrence as i64)
                    .bind(net.clone())
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
