//! Bringing the queue's rows up to date: a season whose latest scan
//! changed is rebuilt from that scan's pairs at or above its threshold;
//! when only the verdicts changed, only the verdict columns are.

use super::Current;
use crate::scans::PairFilter;
use crate::sql::insert_rows;
use crate::{Result, Store};
use rustc_hash::FxHashMap;
use schema::verdict::Verdict;
use schema::Clique;
use sqlx::{Any, Row, Transaction};

impl Store {
    /// Brings the queue's rows up to date with each season's latest scan and
    /// the site's verdicts.
    pub async fn sync_review(&self) -> Result<()> {
        let site = self.site.to_string();
        let latest = pairs_i64(
            sqlx::query("SELECT season, MAX(id) FROM scans WHERE site = $1 GROUP BY season")
                .bind(site.clone())
                .fetch_all(&self.pool)
                .await?,
        )?;
        let built: FxHashMap<i64, (i64, i64)> =
            sqlx::query("SELECT season, scan_id, verdicts_seen FROM review_scans WHERE site = $1")
                .bind(site.clone())
                .fetch_all(&self.pool)
                .await?
                .iter()
                .map(|r| Ok((r.try_get(0)?, (r.try_get(1)?, r.try_get(2)?))))
                .collect::<Result<_>>()?;
        let seen: i64 = sqlx::query("SELECT COALESCE(MAX(id), 0) FROM verdicts WHERE site = $1")
            .bind(site.clone())
            .fetch_one(&self.pool)
            .await?
            .try_get(0)?;
        let stale: Vec<(i64, i64)> = latest
            .iter()
            .copied()
            .filter(|(season, scan)| built.get(season) != Some(&(*scan, seen)))
            .collect();
        let gone: Vec<i64> = built
            .keys()
            .copied()
            .filter(|s| !latest.iter().any(|(x, _)| x == s))
            .collect();
        if stale.is_empty() && gone.is_empty() {
            return Ok(());
        }
        let verdicts = self.verdicts().await?;
        let current = current_verdicts(&verdicts);
        for (season, scan) in stale {
            let rebuild = built.get(&season).is_none_or(|(s, _)| *s != scan);
            if rebuild {
                self.rebuild_season(season, scan, seen, &current).await?;
            } else {
                self.refresh_verdicts(season, seen, &current).await?;
            }
        }
        for season in gone {
            let mut tx = self.begin_write().await?;
            forget_season(&mut tx, &site, season).await?;
            tx.commit().await?;
        }
        Ok(())
    }

    /// The rows of a season from scan `scan`: its pairs at or above its
    /// threshold, once each, with their clique and current verdict.
    async fn rebuild_season(
        &self,
        season: i64,
        scan: i64,
        seen: i64,
        current: &FxHashMap<(String, String), Current>,
    ) -> Result<()> {
        let threshold: f64 = sqlx::query("SELECT threshold FROM scans WHERE id = $1")
            .bind(scan)
            .fetch_one(&self.pool)
            .await?
            .try_get(0)?;
        let pairs = self
            .scan_pairs(scan, PairFilter::AtLeast(threshold))
            .await?;
        let cliques = self.scan_cliques(scan).await?;
        let rows = flag_rows(&pairs, &cliques, current);
        let site = self.site.to_string();
        let mut tx = self.begin_write().await?;
        forget_season(&mut tx, &site, season).await?;
        insert_rows(
            self.backend,
            &mut tx,
            "review_flags (site, season, scan_id, account_a, account_b, score, clique, \
             clique_size, verdict_id, verdict_kind, verdict_similarity)",
            11,
            // Two readers rebuilding at once (PostgreSQL): the second's
            // rows are the same, so it keeps the first's.
            " ON CONFLICT DO NOTHING",
            &rows,
            |q, r| {
                let v = r.verdict.as_ref();
                q.bind(site.clone())
                    .bind(season)
                    .bind(scan)
                    .bind(r.a.clone())
                    .bind(r.b.clone())
                    .bind(r.score)
                    .bind(r.clique)
                    .bind(r.group)
                    .bind(v.map(|v| v.0))
                    .bind(v.map(|v| v.1.clone()))
                    .bind(v.and_then(|v| v.2))
            },
        )
        .await?;
        sqlx::query(
            "INSERT INTO review_scans (site, season, scan_id, verdicts_seen) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (site, season) DO UPDATE SET scan_id = excluded.scan_id, \
             verdicts_seen = excluded.verdicts_seen",
        )
        .bind(site)
        .bind(season)
        .bind(scan)
        .bind(seen)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The verdict columns of a season's rows, after new verdicts.
    async fn refresh_verdicts(
        &self,
        season: i64,
        seen: i64,
        current: &FxHashMap<(String, String), Current>,
    ) -> Result<()> {
        let site = self.site.to_string();
        let mut tx = self.begin_write().await?;
        let rows = sqlx::query(
            "SELECT account_a, account_b, verdict_id FROM review_flags WHERE site = $1 AND season = $2",
        )
        .bind(site.clone())
        .bind(season)
        .fetch_all(&mut *tx)
        .await?;
        for r in &rows {
            let (a, b): (String, String) = (r.try_get(0)?, r.try_get(1)?);
            let had: Option<i64> = r.try_get(2)?;
            let Some(v) = current.get(&(a.clone(), b.clone())) else {
                continue;
            };
            if had == Some(v.0) {
                continue;
            }
            sqlx::query(
                "UPDATE review_flags SET verdict_id = $1, verdict_kind = $2, verdict_similarity = $3 \
                 WHERE site = $4 AND season = $5 AND account_a = $6 AND account_b = $7",
            )
            .bind(v.0)
            .bind(v.1.clone())
            .bind(v.2)
            .bind(site.clone())
            .bind(season)
            .bind(a)
            .bind(b)
            .execute(&mut *tx)
            .await?;
        }
        sqlx::query("UPDATE review_scans SET verdicts_seen = $1 WHERE site = $2 AND season = $3")
            .bind(seen)
            .bind(site)
            .bind(season)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }
}

/// One row per unordered pair of `pairs` (the larger similarity of its
/// directions), with the clique holding it and its current verdict.
fn flag_rows(
    pairs: &[schema::PairScore],
    cliques: &[Clique],
    current: &FxHashMap<(String, String), Current>,
) -> Vec<FlagRow> {
    let mut best: FxHashMap<(String, String), f64> = FxHashMap::default();
    for p in pairs {
        let key = ordered(&p.account_a, &p.account_b);
        let s = best.entry(key).or_insert(p.similarity);
        *s = s.max(p.similarity);
    }
    best.into_iter()
        .map(|((a, b), score)| {
            let clique = cliques
                .iter()
                .position(|c| c.members.contains(&a) && c.members.contains(&b));
            let group = clique.map_or(2, |k| cliques[k].members.len());
            let verdict = current.get(&(a.clone(), b.clone())).cloned();
            FlagRow {
                a,
                b,
                score,
                clique: clique.map(|k| k as i64 + 1),
                group: group as i64,
                verdict,
            }
        })
        .collect()
}

/// A row to insert.
struct FlagRow {
    a: String,
    b: String,
    score: f64,
    clique: Option<i64>,
    group: i64,
    verdict: Option<Current>,
}

fn pairs_i64(rows: Vec<sqlx::any::AnyRow>) -> Result<Vec<(i64, i64)>> {
    rows.iter()
        .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
        .collect()
}

fn ordered(a: &str, b: &str) -> (String, String) {
    if a < b {
        (a.to_owned(), b.to_owned())
    } else {
        (b.to_owned(), a.to_owned())
    }
}

/// The newest verdict naming both accounts, for every pair some verdict
/// names (its own, or a clique's).
fn current_verdicts(verdicts: &[Verdict]) -> FxHashMap<(String, String), Current> {
    let mut out: FxHashMap<(String, String), (i64, i64, Current)> = FxHashMap::default();
    for v in verdicts {
        for (i, a) in v.accounts.iter().enumerate() {
            for b in &v.accounts[i + 1..] {
                let entry = (v.at, v.id, (v.id, v.kind.as_str().to_owned(), v.similarity));
                let slot = out.entry(ordered(a, b)).or_insert(entry.clone());
                if (v.at, v.id) > (slot.0, slot.1) {
                    *slot = entry;
                }
            }
        }
    }
    out.into_iter().map(|(k, (_, _, c))| (k, c)).collect()
}

/// Deletes a season's queue rows and its mark, in `tx`.
async fn forget_season(tx: &mut Transaction<'_, Any>, site: &str, season: i64) -> Result<()> {
    for table in ["review_flags", "review_scans"] {
        sqlx::query(&format!(
            "DELETE FROM {table} WHERE site = $1 AND season = $2"
        ))
        .bind(site.to_owned())
        .bind(season)
        .execute(&mut **tx)
        .await?;
    }
    Ok(())
}
