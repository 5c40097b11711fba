//! The one way moves come in: an [`IngestBatch`] is one transaction that
//! numbers identical moves ([`Occurrences`]), hands them to the store in
//! bounded chunks (so memory does not grow with a file), records the files
//! it read (`file_digests`) and the daemon's marks (`source_marks`) with
//! them, and bumps the moves generation at commit. The command line, the
//! daemon's watched directories and its site databases all feed it.

use super::moves::generation_key;
use super::occurrences::Occurrences;
use super::privacy::{self, IpKey};
use super::sql::insert_rows;
use super::{purge, Backend, NewMove, Result, Store, StoreError};
use schema::rules::Limits;
use schema::{Epoch, Move};
use sqlx::{Any, Row, Transaction};
use std::collections::BTreeSet;

/// Moves handed to the store per insert statement batch.
const INSERT_CHUNK: usize = 5000;

/// An ingest in progress: one transaction. Moves already stored are ignored
/// and counted as duplicates.
pub struct IngestBatch<'s> {
    backend: Backend,
    tx: Transaction<'s, Any>,
    stored: u64,
    limits: Limits,
    ip_key: Option<std::sync::Arc<IpKey>>,
    /// Moves before this were purged: they are not stored again.
    purged_before: Option<Epoch>,
    expired: u64,
    /// The site every move of the batch belongs to.
    site: std::sync::Arc<str>,
    /// Numbers identical moves pushed into the batch.
    occurrences: Occurrences,
    /// Moves pushed and not yet stored.
    pending: Vec<NewMove>,
}

/// A file ingested before into the batch's site.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredFile {
    /// Moves the file held when it was ingested.
    pub moves: u64,
    /// Seconds since the epoch of that ingest.
    pub ingested_at: i64,
}

impl Store {
    /// Starts an ingest: nothing is visible to others until
    /// [`IngestBatch::commit`], and dropping the batch rolls it back.
    /// Identical moves are numbered within the batch (a file).
    pub async fn begin_ingest(&self) -> Result<IngestBatch<'_>> {
        self.begin_ingest_numbered(Occurrences::default()).await
    }

    /// Starts an ingest whose identical moves are numbered on from
    /// `numbering`: a source read in several batches (a site database's
    /// pages and ticks) numbers its moves as one file would.
    pub async fn begin_ingest_numbered(&self, numbering: Occurrences) -> Result<IngestBatch<'_>> {
        let mut tx = self.begin_write().await?;
        privacy::check_ingest_key(&mut tx, self.ip_key.as_ref()).await?;
        let purged_before = purge::purged_before(&mut tx).await?;
        Ok(IngestBatch {
            backend: self.backend,
            tx,
            stored: 0,
            limits: self.limits,
            ip_key: self.ip_key.clone(),
            purged_before,
            expired: 0,
            site: self.site.clone(),
            occurrences: numbering,
            pending: Vec::new(),
        })
    }
}

impl IngestBatch<'_> {
    /// Adds one move: numbered among identical moves of the batch (and of
    /// the numbering it went on from), and stored once a chunk is full (or
    /// at commit).
    pub async fn push(&mut self, m: Move) -> Result<()> {
        let key = self.ip_key.as_deref();
        let numbered = self
            .occurrences
            .number(m, |ip| privacy::stored_ip(key, ip).0);
        self.pending.push(numbered);
        if self.pending.len() >= INSERT_CHUNK {
            self.flush().await?;
        }
        Ok(())
    }

    /// Stores the moves pushed and not yet stored.
    pub(super) async fn flush(&mut self) -> Result<()> {
        if !self.pending.is_empty() {
            let chunk = std::mem::take(&mut self.pending);
            self.insert(&chunk).await?;
            self.pending = chunk;
            self.pending.clear();
        }
        Ok(())
    }

    /// Moves stored for the first time so far (pushed moves count once they
    /// are flushed; [`IngestBatch::commit`] returns the final count).
    pub async fn stored_so_far(&mut self) -> Result<u64> {
        self.flush().await?;
        Ok(self.stored)
    }

    /// The file with this digest, if it was ingested into the site before.
    pub async fn stored_file(&mut self, digest: &str) -> Result<Option<StoredFile>> {
        let row = sqlx::query(
            "SELECT moves, ingested_at FROM file_digests WHERE site = $1 AND digest = $2",
        )
        .bind(self.site.to_string())
        .bind(digest.to_owned())
        .fetch_optional(&mut *self.tx)
        .await?;
        let Some(row) = row else { return Ok(None) };
        let moves: i64 = row.try_get(0)?;
        Ok(Some(StoredFile {
            moves: moves as u64,
            ingested_at: row.try_get(1)?,
        }))
    }

    /// Records a file's digest, stored when the batch commits (and dropped
    /// with it when it rolls back).
    pub async fn record_file(
        &mut self,
        digest: &str,
        bytes: u64,
        moves: u64,
        ingested_at: i64,
    ) -> Result<()> {
        sqlx::query(
            "INSERT INTO file_digests (site, digest, bytes, moves, ingested_at) \
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (site, digest) DO NOTHING",
        )
        .bind(self.site.to_string())
        .bind(digest.to_owned())
        .bind(bytes as i64)
        .bind(moves as i64)
        .bind(ingested_at)
        .execute(&mut *self.tx)
        .await?;
        Ok(())
    }

    /// Whether moves of the store were ever purged (a file skipped as
    /// already stored does not bring them back).
    pub fn purged(&self) -> bool {
        self.purged_before.is_some()
    }
}

impl IngestBatch<'_> {
    /// The numbering so far as the tail a source keeps with its mark
    /// ([`Occurrences::from_tail`] goes on from it): addresses in their
    /// stored form, so a keyed store keeps no raw address in it.
    pub fn numbering_tail(&self) -> String {
        let key = self.ip_key.as_deref();
        self.occurrences.tail(|ip| privacy::stored_ip(key, ip).0)
    }

    /// Stores numbered moves not stored before; returns how many were new.
    /// The one insert path of moves: a move that breaks the record rule is
    /// refused (an error, and nothing of the batch is inserted).
    async fn insert(&mut self, moves: &[NewMove]) -> Result<u64> {
        for m in moves {
            self.limits
                .check_move(&m.mv)
                .map_err(|v| StoreError::Refused(format!("a move of {:?}: {v}", m.mv.username)))?;
            // Every source gives an address in its one normal form
            // (`schema::address`) before numbering and hashing it.
            if !schema::rules::normal_ip(&m.mv.ip).is_ok_and(|n| n == m.mv.ip) {
                return Err(StoreError::Refused(format!(
                    "a move of {:?}: its ip is not an IP address in normal form",
                    m.mv.username
                )));
            }
        }
        let kept: Vec<NewMove>;
        let moves = match self.purged_before {
            Some(cut) if moves.iter().any(|m| m.mv.timestamp < cut) => {
                kept = moves
                    .iter()
                    .filter(|m| m.mv.timestamp >= cut)
                    .cloned()
                    .collect();
                self.expired += (moves.len() - kept.len()) as u64;
                &kept[..]
            }
            _ => moves,
        };
        let games: BTreeSet<&str> = moves.iter().map(|m| m.mv.game.as_str()).collect();
        let games: Vec<&str> = games.into_iter().collect();
        insert_rows(
            self.backend,
            &mut self.tx,
            "games (site, name)",
            2,
            " ON CONFLICT (site, name) DO NOTHING",
            &games,
            |q, g| q.bind(self.site.to_string()).bind(g.to_string()),
        )
        .await?;
        let accounts: BTreeSet<&str> = moves.iter().map(|m| m.mv.username.as_str()).collect();
        let accounts: Vec<&str> = accounts.into_iter().collect();
        insert_rows(
            self.backend,
            &mut self.tx,
            "accounts (site, username)",
            2,
            " ON CONFLICT (site, username) DO NOTHING",
            &accounts,
            |q, a| q.bind(self.site.to_string()).bind(a.to_string()),
        )
        .await?;
        // No raw address is written in a keyed store: the IP and its
        // network are hashed here, on the one way moves come in.
        let ips: Vec<(String, Option<String>)> = moves
            .iter()
            .map(|m| privacy::stored_ip(self.ip_key.as_deref(), &m.mv.ip))
            .collect();
        let rows: Vec<(&NewMove, &(String, Option<String>))> = moves.iter().zip(&ips).collect();
        let site = self.site.to_string();
        let new = insert_rows(
            self.backend,
            &mut self.tx,
            "moves (username, game, ts, ip, occurrence, net, site)",
            7,
            " ON CONFLICT (ts, username, game, ip, occurrence, site) DO NOTHING",
            &rows,
            |q, (m, (ip, net))| {
                q.bind(m.mv.username.clone())
                    .bind(m.mv.game.clone())
                    .bind(m.mv.timestamp)
                    .bind(ip.clone())
                    .bind(m.occurrence as i64)
                    .bind(net.clone())
                    .bind(site.clone())
            },
        )
        .await?;
        self.stored += new;
        Ok(new)
    }

    /// Moves not stored because they are older than the store's latest
    /// purge cutoff.
    pub fn expired(&self) -> u64 {
        self.expired
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
        self.flush().await?;
        if self.stored > 0 {
            // Computed in Rust: the two back ends disagree on casting text.
            let key = generation_key(&self.site);
            let row = sqlx::query("SELECT value FROM store_state WHERE key = $1")
                .bind(key.clone())
                .fetch_optional(&mut *self.tx)
                .await?;
            let v: Option<String> = row.map(|r| r.try_get(0)).transpose()?;
            let next = v.and_then(|v| v.parse::<i64>().ok()).unwrap_or(0) + 1;
            sqlx::query(
                "INSERT INTO store_state (key, value) VALUES ($1, $2) \
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            )
            .bind(key)
            .bind(next.to_string())
            .execute(&mut *self.tx)
            .await?;
        }
        self.tx.commit().await?;
        Ok(self.stored)
    }

    /// [`IngestBatch::commit`], handing back the numbering for the source's
    /// next batch ([`Store::begin_ingest_numbered`]).
    pub async fn commit_numbered(mut self) -> Result<(u64, Occurrences)> {
        let numbering = std::mem::take(&mut self.occurrences);
        Ok((self.commit().await?, numbering))
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

    /// The one insert path refuses an address that is not in its normal
    /// form, whoever hands it over (issue 36, item 12).
    #[tokio::test]
    async fn the_insert_path_takes_addresses_in_normal_form_only() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("s.db").display());
        let store = Store::open(&url).await.unwrap();
        let mv = |ip: &str| NewMove {
            mv: Move {
                username: "a".into(),
                game: "g".into(),
                timestamp: 1_430_670_540,
                ip: ip.into(),
            },
            occurrence: 0,
        };
        let mut batch = store.begin_ingest().await.unwrap();
        assert_eq!(batch.insert(&[mv("10.0.0.1"), mv("")]).await.unwrap(), 2);
        for bad in ["10.0.0.1:80", " 10.0.0.2", "::ffff:10.0.0.3", "unknown"] {
            let e = batch.insert(&[mv(bad)]).await.unwrap_err().to_string();
            assert!(e.contains("not an IP address in normal form"), "{bad}: {e}");
            assert!(!e.contains("10.0.0"), "{e}");
        }
        batch.rollback().await.unwrap();
    }
}
