//! The one way moves come in: an [`IngestBatch`] is one transaction that
//! numbers identical moves ([`Occurrences`]), hands them to the store in
//! bounded chunks (so memory does not grow with a file), records the files
//! it read (`file_digests`) and the daemon's marks (`source_marks`) with
//! them, and bumps the moves generation at commit. The command line, the
//! daemon's watched directories and its site databases all feed it.

mod insert;

use super::moves::{generation_key, read_generation, set_state};
use super::occurrences::Occurrences;
use super::privacy;
use super::{purge, NewMove, Result, Store};
use insert::{Inserted, Inserter, Writer};
use schema::Move;
use sqlx::Row;

/// Moves handed to the store per insert statement batch.
const INSERT_CHUNK: usize = 5000;

/// An ingest in progress: one transaction. Moves already stored are ignored
/// and counted as duplicates.
pub struct IngestBatch<'s> {
    /// The transaction, with the chunk of moves being written, if any.
    writer: Writer,
    /// How a chunk is written: the site every move of the batch belongs
    /// to, its key, its limits and its purge cutoff.
    inserter: Inserter,
    stored: u64,
    expired: u64,
    /// The store the batch writes to (its transaction is its own).
    store: std::marker::PhantomData<&'s Store>,
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
            writer: Writer::new(tx),
            inserter: Inserter {
                backend: self.backend,
                limits: self.limits,
                ip_key: self.ip_key.clone(),
                purged_before,
                site: self.site.clone(),
            },
            stored: 0,
            expired: 0,
            store: std::marker::PhantomData,
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
        let key = self.inserter.ip_key.as_deref();
        let numbered = self
            .occurrences
            .number(m, |ip| privacy::stored_ip(key, ip).0);
        self.pending.push(numbered);
        if self.pending.len() >= INSERT_CHUNK {
            self.flush().await?;
        }
        Ok(())
    }

    /// Starts storing the moves pushed and not yet stored, once the chunk
    /// before them is stored: the next chunk is read meanwhile.
    pub(super) async fn flush(&mut self) -> Result<()> {
        if !self.pending.is_empty() {
            let chunk = std::mem::replace(&mut self.pending, Vec::with_capacity(INSERT_CHUNK));
            let before = self.writer.start(&self.inserter, chunk).await?;
            self.count(before);
        }
        Ok(())
    }

    /// Stores what was pushed, and waits until it is stored.
    async fn settle(&mut self) -> Result<()> {
        self.flush().await?;
        let done = self.writer.settle().await?;
        self.count(done);
        Ok(())
    }

    fn count(&mut self, done: Inserted) {
        self.stored += done.new;
        self.expired += done.expired;
    }

    /// Moves stored for the first time so far (pushed moves count once they
    /// are stored; [`IngestBatch::commit`] returns the final count).
    pub async fn stored_so_far(&mut self) -> Result<u64> {
        self.settle().await?;
        Ok(self.stored)
    }

    /// The file with this digest, if it was ingested into the site before.
    pub async fn stored_file(&mut self, digest: &str) -> Result<Option<StoredFile>> {
        self.settle().await?;
        let row = sqlx::query(
            "SELECT moves, ingested_at FROM file_digests WHERE site = $1 AND digest = $2",
        )
        .bind(self.inserter.site.to_string())
        .bind(digest.to_owned())
        .fetch_optional(&mut **self.writer.tx())
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
        self.settle().await?;
        sqlx::query(
            "INSERT INTO file_digests (site, digest, bytes, moves, ingested_at) \
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (site, digest) DO NOTHING",
        )
        .bind(self.inserter.site.to_string())
        .bind(digest.to_owned())
        .bind(bytes as i64)
        .bind(moves as i64)
        .bind(ingested_at)
        .execute(&mut **self.writer.tx())
        .await?;
        Ok(())
    }

    /// Whether moves of the store were ever purged (a file skipped as
    /// already stored does not bring them back).
    pub fn purged(&self) -> bool {
        self.inserter.purged_before.is_some()
    }
}

impl IngestBatch<'_> {
    /// The numbering so far as the tail a source keeps with its mark
    /// ([`Occurrences::from_tail`] goes on from it): addresses in their
    /// stored form, so a keyed store keeps no raw address in it.
    pub fn numbering_tail(&self) -> String {
        let key = self.inserter.ip_key.as_deref();
        self.occurrences.tail(|ip| privacy::stored_ip(key, ip).0)
    }

    /// Moves not stored because they are older than the store's latest
    /// purge cutoff.
    pub fn expired(&self) -> u64 {
        self.expired
    }

    /// Sets a daemon source's high-water mark in the same transaction as the
    /// moves it covers.
    pub async fn set_source_mark(&mut self, source: &str, mark: &str) -> Result<()> {
        self.settle().await?;
        sqlx::query(
            "INSERT INTO source_marks (source, mark) VALUES ($1, $2) \
             ON CONFLICT (source) DO UPDATE SET mark = excluded.mark",
        )
        .bind(source.to_owned())
        .bind(mark.to_owned())
        .execute(&mut **self.writer.tx())
        .await?;
        Ok(())
    }

    /// Makes the ingest visible; bumps the moves generation if anything new
    /// was stored. Returns the number of new moves.
    pub async fn commit(mut self) -> Result<u64> {
        self.settle().await?;
        let mut tx = self.writer.into_tx().expect("settled");
        if self.stored > 0 {
            // A generation that cannot be read is an error, not a fresh
            // start: a store that counted again from 1 could take a stale
            // segmentation or scan for a current one.
            let site = &self.inserter.site;
            let next = read_generation(&mut *tx, site).await? + 1;
            set_state(&mut *tx, &generation_key(site), &next.to_string()).await?;
        }
        tx.commit().await?;
        Ok(self.stored)
    }

    /// [`IngestBatch::commit`], handing back the numbering for the source's
    /// next batch ([`Store::begin_ingest_numbered`]).
    pub async fn commit_numbered(mut self) -> Result<(u64, Occurrences)> {
        let numbering = std::mem::take(&mut self.occurrences);
        Ok((self.commit().await?, numbering))
    }

    /// Abandons the ingest: nothing of it is stored.
    pub async fn rollback(mut self) -> Result<()> {
        // A chunk's error is the caller's already: only the transaction
        // matters here.
        let _ = self.writer.settle().await;
        if let Some(tx) = self.writer.into_tx() {
            tx.rollback().await?;
        }
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
        let inserter = batch.inserter.clone();
        let tx = batch.writer.tx();
        let named = &mut insert::Named::default();
        let inserted = inserter.insert(tx, named, &[mv("10.0.0.1"), mv("")]).await;
        assert_eq!(inserted.unwrap().new, 2);
        for bad in ["10.0.0.1:80", " 10.0.0.2", "::ffff:10.0.0.3", "unknown"] {
            let e = inserter
                .insert(tx, named, &[mv(bad)])
                .await
                .unwrap_err()
                .to_string();
            assert!(e.contains("not an IP address in normal form"), "{bad}: {e}");
            assert!(!e.contains("10.0.0"), "{e}");
        }
        batch.rollback().await.unwrap();
    }

    /// A chunk refused while the next one is read: its error is the
    /// batch's at a later call, and rolling back stores nothing of it.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_chunk_refused_in_flight_fails_the_batch() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("s.db").display());
        let store = Store::open(&url).await.unwrap();
        let mv = |i: usize, ip: &str| Move {
            username: format!("u{}", i % 7),
            game: "g".into(),
            timestamp: 1_430_670_540 + i as i64,
            ip: ip.into(),
        };
        let mut batch = store.begin_ingest().await.unwrap();
        let mut failed = None;
        for i in 0..3 * INSERT_CHUNK {
            let ip = if i == 10 { "10.0.0.1:80" } else { "10.0.0.1" };
            if let Err(e) = batch.push(mv(i, ip)).await {
                failed = Some((i, e.to_string()));
                break;
            }
        }
        let (at, e) = failed.expect("the refused chunk fails a later push");
        assert!(at >= INSERT_CHUNK, "{at}");
        assert!(e.contains("not an IP address in normal form"), "{e}");
        batch.rollback().await.unwrap();
        let batch = store.begin_ingest().await.unwrap();
        assert_eq!(batch.commit().await.unwrap(), 0);
        assert_eq!(store.moves_generation().await.unwrap(), 0);

        // The same moves, well formed, are stored whole across chunks.
        let mut batch = store.begin_ingest().await.unwrap();
        for i in 0..3 * INSERT_CHUNK + 17 {
            batch.push(mv(i, "10.0.0.1")).await.unwrap();
        }
        assert_eq!(batch.commit().await.unwrap(), 3 * INSERT_CHUNK as u64 + 17);
    }

    /// Every game and account of a batch's moves gets its row, once, when
    /// its moves span chunks (a name sent with one chunk is not sent with
    /// the next) and when a later batch names them again beside new ones.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn names_across_chunks_and_batches_are_stored_once_each() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("s.db").display());
        let store = Store::open(&url).await.unwrap();
        let mv = |i: usize, games: usize| Move {
            username: format!("u{}", i % 11),
            game: format!("g{}", i % games),
            timestamp: 1_430_670_540 + i as i64,
            ip: "10.0.0.1".into(),
        };
        let count = |table: &'static str| {
            let pool = store.pool.clone();
            async move {
                let n: i64 = sqlx::query_scalar(&format!("SELECT COUNT(*) FROM {table}"))
                    .fetch_one(&pool)
                    .await
                    .unwrap();
                n
            }
        };
        let mut batch = store.begin_ingest().await.unwrap();
        for i in 0..2 * INSERT_CHUNK + 3 {
            batch.push(mv(i, 5)).await.unwrap();
        }
        batch.commit().await.unwrap();
        assert_eq!((count("games").await, count("accounts").await), (5, 11));
        // The next batch: the same names and two new games, in its last
        // chunk only.
        let mut batch = store.begin_ingest().await.unwrap();
        for i in 2 * INSERT_CHUNK + 3..4 * INSERT_CHUNK {
            let mut m = mv(i, 5);
            if i + 2 >= 4 * INSERT_CHUNK {
                m.game = format!("new{i}");
            }
            batch.push(m).await.unwrap();
        }
        batch.commit().await.unwrap();
        assert_eq!((count("games").await, count("accounts").await), (7, 11));
        let orphans: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM moves m WHERE NOT EXISTS \
             (SELECT 1 FROM games g WHERE g.site = m.site AND g.name = m.game) \
             OR NOT EXISTS (SELECT 1 FROM accounts a WHERE a.site = m.site AND a.username = m.username)",
        )
        .fetch_one(&store.pool)
        .await
        .unwrap();
        assert_eq!(orphans, 0);
    }

    /// A moves generation that cannot be read fails the ingest rather than
    /// counting again from 1, where a stale segmentation or scan could
    /// pass for a current one.
    #[tokio::test]
    async fn an_unreadable_generation_fails_the_commit() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("s.db").display());
        let store = Store::open(&url).await.unwrap();
        sqlx::query("UPDATE store_state SET value = 'x' WHERE key = 'moves_generation'")
            .execute(&store.pool)
            .await
            .unwrap();
        let mut batch = store.begin_ingest().await.unwrap();
        batch
            .push(Move {
                username: "a".into(),
                game: "g".into(),
                timestamp: 1_430_670_540,
                ip: "10.0.0.1".into(),
            })
            .await
            .unwrap();
        let e = batch.commit().await.unwrap_err().to_string();
        assert!(e.contains("moves_generation is \"x\""), "{e}");
    }
}
