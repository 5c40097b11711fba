//! Scans: one season scored with its parameters, every directed pair with
//! its evidence, and the cliques (`scans`, `scan_pairs`, `scan_cliques`,
//! `scan_accounts`). A rescan may store only the pairs it scored again, as a
//! change to an earlier scan (`pairs.rs` reads through such chains).

use super::sql::{insert_rows, insert_rows_as};
use super::Backend;
use super::{Result, Store, StoreError, StoredScan};
pub(super) use pairs::PairFilter;
pub use pairs::{PairSimilarity, ScanChange};
use schema::model::*;
use schema::order::sort_pairs;
use schema::rescan::Lineage;
use schema::season::Season;
use sqlx::{Any, Row, Transaction};

mod accounts;
mod blocks;
mod evidence;
mod pairs;
mod signals;

pub use accounts::RescanBase;

impl Store {
    /// Stores a scan (parameters, its pairs with their evidence, cliques,
    /// and what the next rescan needs) in one transaction; returns its id.
    /// With a [`schema::rescan::Delta`], `result.pairs` are the pairs scored
    /// again and the rest are read from its base; else every pair. `model`
    /// is the model an improved scan scored with (its file and stored version).
    pub async fn save_scan(
        &self,
        season: &Season,
        result: &ScanResult,
        generation: i64,
        created_at: Epoch,
        lineage: Option<&Lineage>,
        model: Option<super::ScanModel<'_>>,
    ) -> Result<i64> {
        let mut tx = self.begin_write().await?;
        let delta = lineage.and_then(|l| l.delta.as_ref());
        let id: i64 = sqlx::query(
            "INSERT INTO scans (season, season_from, season_to, season_games, threshold, bucket_seconds, mode, \
             generation, created_at, participants, candidate_pairs, crowd_limit, site, base_scan, stored_pairs, model, model_version) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) RETURNING id",
        )
        .bind(season.number as i64)
        .bind(season.from)
        .bind(season.to)
        .bind(season.games.clone())
        .bind(result.params.threshold)
        .bind(result.params.bucket_seconds)
        .bind(result.params.mode.as_str())
        .bind(generation)
        .bind(created_at)
        .bind(result.participants as i64)
        .bind(result.candidate_pairs as i64)
        .bind(result.params.crowd_limit as i64)
        .bind(self.site.to_string())
        .bind(delta.map(|d| d.base))
        .bind(result.pairs.len() as i64)
        .bind(model.map(|m| m.file.to_owned()))
        .bind(model.map(|m| m.version))
        .fetch_one(&mut *tx)
        .await?
        .try_get(0)?;
        save_pairs(self.backend, &mut tx, id, &result.pairs).await?;
        save_cliques(self.backend, &mut tx, id, &result.cliques).await?;
        super::crowds::save_crowds(self.backend, &mut tx, id, &result.crowded).await?;
        if let Some(l) = lineage {
            let replaced = delta.map(|d| d.replaced.as_slice());
            accounts::save_accounts(&mut tx, id, &l.digests, replaced).await?;
        }
        tx.commit().await?;
        Ok(id)
    }

    /// Deletes all but the `keep` most recent scans of a season, and the
    /// bases they are stored as changes to, in one transaction; returns how
    /// many were deleted.
    pub async fn prune_scans(&self, season: u32, keep: u32) -> Result<u64> {
        let mut tx = self.begin_write().await?;
        let rows = sqlx::query(
            "SELECT id, base_scan FROM scans WHERE season = $1 AND site = $2 ORDER BY id DESC",
        )
        .bind(season as i64)
        .bind(self.site.to_string())
        .fetch_all(&mut *tx)
        .await?;
        let scans: Vec<(i64, Option<i64>)> = rows
            .iter()
            .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
            .collect::<Result<_>>()?;
        let base_of: std::collections::HashMap<i64, Option<i64>> = scans.iter().copied().collect();
        let mut needed = std::collections::HashSet::new();
        for &(id, _) in scans.iter().take(keep as usize) {
            let mut at = Some(id);
            while let Some(id) = at.filter(|id| needed.insert(*id)) {
                at = base_of.get(&id).copied().flatten();
            }
        }
        let old: Vec<i64> = scans
            .iter()
            .map(|&(id, _)| id)
            .filter(|id| !needed.contains(id))
            .collect();
        for &id in &old {
            for table in [
                "scan_pairs",
                "scan_pair_blocks",
                "scan_cliques",
                "scan_crowds",
                "scan_accounts",
            ] {
                sqlx::query(&format!("DELETE FROM {table} WHERE scan_id = $1"))
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
            }
            sqlx::query("DELETE FROM scans WHERE id = $1")
                .bind(id)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(old.len() as u64)
    }

    /// The number of stored scans of a season.
    pub async fn scan_count(&self, season: u32) -> Result<i64> {
        Ok(
            sqlx::query("SELECT COUNT(*) FROM scans WHERE season = $1 AND site = $2")
                .bind(season as i64)
                .bind(self.site.to_string())
                .fetch_one(&self.pool)
                .await?
                .try_get(0)?,
        )
    }

    /// The most recent scan of a season, with every pair.
    pub async fn latest_scan(&self, season: u32) -> Result<Option<StoredScan>> {
        self.latest_scan_where(season, None, None).await
    }

    /// The most recent scan of a season with this bucket size and mode.
    pub async fn latest_scan_like(
        &self,
        season: u32,
        bucket_seconds: i64,
        mode: Mode,
    ) -> Result<Option<StoredScan>> {
        self.latest_scan_where(season, Some((bucket_seconds, mode)), None)
            .await
    }

    /// The id of the most recent scan of a season with this bucket size and
    /// mode (what [`Store::latest_scan_like`] reads), reading nothing else.
    pub async fn latest_scan_id(
        &self,
        season: u32,
        bucket_seconds: i64,
        mode: Mode,
    ) -> Result<Option<i64>> {
        let header = self
            .latest_scan_header(season, Some((bucket_seconds, mode)))
            .await?;
        Ok(header.map(|h| h.id))
    }

    /// The most recent scan of a season with only its pairs at or above
    /// `min_similarity`: what is flagged at any threshold from there up,
    /// without reading every pair (a season of 10M moves has 757,756).
    pub async fn latest_scan_at_least(
        &self,
        season: u32,
        min_similarity: f64,
    ) -> Result<Option<StoredScan>> {
        self.latest_scan_where(season, None, Some(min_similarity))
            .await
    }

    /// The most recent scan of a season with only its flagged pairs (at or
    /// above its own threshold): what the season's pages list, without
    /// reading every pair.
    pub async fn latest_scan_flagged(&self, season: u32) -> Result<Option<StoredScan>> {
        let Some(header) = self.latest_scan_header(season, None).await? else {
            return Ok(None);
        };
        let Some(mut scan) = self
            .latest_scan_where(season, None, Some(header.params.threshold))
            .await?
        else {
            return Ok(None);
        };
        self.complete_directions(&mut scan).await?;
        Ok(Some(scan))
    }

    /// Adds to a scan read with only some of its pairs (those at or above a
    /// similarity) the other direction of each, flagged or not, read by
    /// their keys; the pairs end in report order. What a page of flagged
    /// pairs, or a report of them, shows of each pair: both directions.
    pub async fn complete_directions(&self, scan: &mut StoredScan) -> Result<()> {
        let have: rustc_hash::FxHashSet<(String, String)> = scan
            .result
            .pairs
            .iter()
            .map(|p| (p.account_a.clone(), p.account_b.clone()))
            .collect();
        let missing: Vec<(String, String)> = have
            .iter()
            .map(|(a, b)| (b.clone(), a.clone()))
            .filter(|k| !have.contains(k))
            .collect();
        for batch in missing.chunks(400) {
            let more = self.scan_pairs(scan.id, PairFilter::Pairs(batch)).await?;
            scan.result.pairs.extend(more);
        }
        sort_pairs(&mut scan.result.pairs);
        Ok(())
    }

    pub(super) async fn latest_scan_where(
        &self,
        season: u32,
        like: Option<(i64, Mode)>,
        min_similarity: Option<f64>,
    ) -> Result<Option<StoredScan>> {
        let Some(header) = self.latest_scan_header(season, like).await? else {
            return Ok(None);
        };
        let id = header.id;
        let filter = min_similarity.map_or(PairFilter::All, PairFilter::AtLeast);
        let mut pairs = self.scan_pairs(id, filter).await?;
        sort_pairs(&mut pairs);
        Ok(Some(StoredScan {
            id,
            season: header.season,
            generation: header.generation,
            created_at: header.created_at,
            model: header.model,
            model_version: header.model_version,
            result: ScanResult {
                params: header.params,
                participants: header.participants,
                candidate_pairs: header.candidate_pairs,
                pairs,
                cliques: self.scan_cliques(id).await?,
                crowded: self.scan_crowds(id).await?,
            },
        }))
    }

    /// The row of the most recent scan of a season.
    async fn latest_scan_header(
        &self,
        season: u32,
        like: Option<(i64, Mode)>,
    ) -> Result<Option<ScanHeader>> {
        const COLUMNS: &str = "SELECT id, season, season_from, season_to, season_games, threshold, \
             bucket_seconds, mode, generation, created_at, participants, candidate_pairs, crowd_limit, model, model_version FROM scans";
        let row = match like {
            None => {
                sqlx::query(&format!(
                    "{COLUMNS} WHERE season = $1 AND site = $2 ORDER BY id DESC LIMIT 1"
                ))
                .bind(season as i64)
                .bind(self.site.to_string())
                .fetch_optional(&self.pool)
                .await?
            }
            Some((bucket_seconds, mode)) => {
                sqlx::query(&format!(
                    "{COLUMNS} WHERE season = $1 AND bucket_seconds = $2 AND mode = $3 \
                     AND site = $4 ORDER BY id DESC LIMIT 1"
                ))
                .bind(season as i64)
                .bind(bucket_seconds)
                .bind(mode.as_str())
                .bind(self.site.to_string())
                .fetch_optional(&self.pool)
                .await?
            }
        };
        let Some(row) = row else {
            return Ok(None);
        };
        let number: i64 = row.try_get(1)?;
        let mode: String = row.try_get(7)?;
        Ok(Some(ScanHeader {
            id: row.try_get(0)?,
            season: Season {
                number: number as u32,
                from: row.try_get(2)?,
                to: row.try_get(3)?,
                games: row.try_get(4)?,
                inferred: false,
            },
            params: ScanParams {
                threshold: row.try_get(5)?,
                bucket_seconds: row.try_get(6)?,
                mode: Mode::parse(&mode)
                    .ok_or_else(|| StoreError::Corrupt(format!("unknown scan mode {mode:?}")))?,
                crowd_limit: row
                    .try_get::<Option<i64>, _>(12)?
                    .map_or(DEFAULT_CROWD_LIMIT, |n| n as usize),
            },
            generation: row.try_get(8)?,
            created_at: row.try_get(9)?,
            participants: row.try_get::<i64, _>(10)? as usize,
            candidate_pairs: row.try_get::<i64, _>(11)? as usize,
            model: row.try_get(13)?,
            model_version: row.try_get(14)?,
        }))
    }
}

/// A stored scan's own row.
struct ScanHeader {
    id: i64,
    season: Season,
    params: ScanParams,
    generation: i64,
    created_at: Epoch,
    participants: usize,
    candidate_pairs: usize,
    model: Option<String>,
    model_version: Option<i64>,
}

/// Stores every directed pair of scan `id` with its evidence and signals:
/// as blocks, a row per account a ([`blocks`]), but for the pairs whose
/// other direction is not among them, which are rows of their own.
async fn save_pairs(
    backend: Backend,
    tx: &mut Transaction<'_, Any>,
    id: i64,
    pairs: &[PairScore],
) -> Result<()> {
    let signals = signals::stored(pairs);
    let (blocks, rows) = blocks::split(pairs, &signals);
    insert_rows(
        backend,
        tx,
        "scan_pair_blocks (scan_id, account_a, strongest, pairs)",
        4,
        "",
        &blocks,
        |q, b| {
            q.bind(id)
                .bind(b.account_a)
                .bind(b.strongest)
                .bind(b.data.as_slice())
        },
    )
    .await?;
    // Each row with its evidence's bytes, in the order of the key SQLite
    // keeps them in (migration 0024): each insert lands at the end of the
    // table, not at a random place in it. The evidence in its own value
    // ([`evidence`]); the columns that held it before are left 0, NULL
    // and ''.
    let rows: Vec<(&PairScore, Vec<u8>, Option<&str>)> = rows
        .into_iter()
        .map(|i| {
            let p = &pairs[i as usize];
            (
                p,
                evidence::encode(&p.evidence),
                signals[i as usize].as_deref(),
            )
        })
        .collect();
    insert_rows_as(
        backend,
        tx,
        "scan_pairs (scan_id, account_a, account_b, similarity, score_sum, score_weight, \
         same_ip_count, same_ip_score, other_ip_count, other_ip_score, moved_stalled_count, moved_stalled_score, \
         stalled_moved_count, stalled_moved_score, both_stalled_count, both_stalled_score, \
         max_boost, max_boost_bucket, top_buckets, evidence, signals)",
        "(?,?,?,?,?,?,0,0,0,0,0,0,0,0,0,0,0,NULL,'',?,?)",
        "",
        &rows,
        |q, (p, evidence, signals)| {
            q.bind(id)
                .bind(p.account_a.as_str())
                .bind(p.account_b.as_str())
                .bind(p.similarity)
                .bind(p.sum)
                .bind(p.weight)
                .bind(evidence.as_slice())
                .bind(*signals)
        },
    )
    .await?;
    Ok(())
}

/// Stores the members of each clique of scan `id`, numbered from 1.
async fn save_cliques(
    backend: Backend,
    tx: &mut Transaction<'_, Any>,
    id: i64,
    cliques: &[Clique],
) -> Result<()> {
    let members: Vec<(i64, &String)> = cliques
        .iter()
        .enumerate()
        .flat_map(|(k, c)| c.members.iter().map(move |m| (k as i64 + 1, m)))
        .collect();
    insert_rows(
        backend,
        tx,
        "scan_cliques (scan_id, clique, username)",
        3,
        "",
        &members,
        |q, &(k, m)| q.bind(id).bind(k).bind(m.clone()),
    )
    .await?;
    Ok(())
}
