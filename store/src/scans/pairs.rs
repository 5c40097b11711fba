//! Reading a scan's pairs, from its blocks ([`super::blocks`]) and its
//! rows. A scan stored as a change to an earlier one
//! ([`schema::rescan::Delta`]) holds only the pairs it scored again: its
//! pairs are read through its chain of bases, each level's pairs less those
//! naming an account a later level replaced.

use super::super::{Result, Store, StoreError};
use futures_util::TryStreamExt;
use rustc_hash::FxHashSet;
use schema::model::*;
use sqlx::Row;

/// Which of a scan's pairs to read.
#[derive(Debug, Clone, Copy)]
pub(crate) enum PairFilter<'a> {
    All,
    /// Similarity at or above.
    AtLeast(f64),
    /// Naming this account, either way.
    Naming(&'a str),
    /// Both accounts among these.
    Among(&'a [String]),
    /// These directed pairs (account a, account b).
    Pairs(&'a [(String, String)]),
}

/// A directed pair's similarity: account a, account b, similarity.
pub type PairSimilarity = (String, String, f64);

/// What a scan stored as a change to its base holds ([`Store::scan_change`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ScanChange {
    /// The scan it changes.
    pub base: i64,
    /// The accounts whose pairs it scored again: the base's pairs naming
    /// one of them are replaced.
    pub replaced: Vec<String>,
    /// Every directed pair it scored again.
    pub pairs: Vec<PairSimilarity>,
}

/// One level of a scan's chain: a scan and the accounts it replaced.
#[derive(Debug, Clone)]
pub(crate) struct Level {
    pub id: i64,
    pub replaced: Vec<String>,
}

/// The pairs SQLite indexes by similarity (migration 0024): those at or
/// above the first, a condition a query must repeat word for word, the
/// second, for SQLite to read them through that index.
const STRONG: (f64, &str) = (0.7, "similarity >= 0.7");

const COLUMNS: &str = "SELECT account_a, account_b, similarity, score_sum, score_weight, \
     same_ip_count, same_ip_score, other_ip_count, other_ip_score, moved_stalled_count, moved_stalled_score, \
     stalled_moved_count, stalled_moved_score, both_stalled_count, both_stalled_score, \
     max_boost, max_boost_bucket, top_buckets, signals, evidence FROM scan_pairs WHERE scan_id = $1";

impl Store {
    /// The levels whose stored pairs make up scan `id`: itself first, then
    /// its base, and so on to a scan that stores every pair.
    pub(crate) async fn scan_chain(&self, id: i64) -> Result<Vec<Level>> {
        let mut levels = Vec::new();
        let mut at = Some(id);
        while let Some(id) = at {
            if levels.iter().any(|l: &Level| l.id == id) || levels.len() > 10_000 {
                return Err(StoreError::Corrupt(format!("scan {id} is its own base")));
            }
            at = self.base_of(id).await?;
            let replaced = if at.is_some() {
                self.scan_replaced(id).await?
            } else {
                Vec::new()
            };
            levels.push(Level { id, replaced });
        }
        Ok(levels)
    }

    /// The scan whose pairs scan `id` changes, if it stores only a change.
    async fn base_of(&self, id: i64) -> Result<Option<i64>> {
        let row = sqlx::query("SELECT base_scan FROM scans WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| StoreError::Corrupt(format!("scan {id} is missing")))?;
        Ok(row.try_get(0)?)
    }

    /// A scan's pairs that `filter` selects, through its chain.
    pub(crate) async fn scan_pairs(
        &self,
        id: i64,
        filter: PairFilter<'_>,
    ) -> Result<Vec<PairScore>> {
        let chain = self.scan_chain(id).await?;
        let mut out = Vec::new();
        let mut replaced: FxHashSet<String> = FxHashSet::default();
        for level in &chain {
            let rows = self.stored_pairs(level.id, filter).await?;
            out.extend(
                rows.into_iter().filter(|p| {
                    !replaced.contains(&p.account_a) && !replaced.contains(&p.account_b)
                }),
            );
            replaced.extend(level.replaced.iter().cloned());
        }
        Ok(out)
    }

    /// The similarity of every directed pair of scan `id` by its two
    /// accounts, through its chain, in no order: what a chart of them
    /// needs, without the rest.
    pub async fn scan_similarities(&self, id: i64) -> Result<Vec<PairSimilarity>> {
        let mut out = Vec::new();
        let mut replaced: FxHashSet<String> = FxHashSet::default();
        for level in self.scan_chain(id).await? {
            for pair in self.stored_similarities(level.id).await? {
                if !replaced.contains(&pair.0) && !replaced.contains(&pair.1) {
                    out.push(pair);
                }
            }
            replaced.extend(level.replaced);
        }
        Ok(out)
    }

    /// What scan `id` stores as a change to its base (`None` for a scan
    /// that stores every pair): applied to the base's
    /// [`Store::scan_similarities`], it gives this scan's.
    pub async fn scan_change(&self, id: i64) -> Result<Option<ScanChange>> {
        let Some(base) = self.base_of(id).await? else {
            return Ok(None);
        };
        Ok(Some(ScanChange {
            base,
            replaced: self.scan_replaced(id).await?,
            pairs: self.stored_similarities(id).await?,
        }))
    }

    /// The similarity of each pair stored with scan `id` itself: in its
    /// blocks and its rows.
    async fn stored_similarities(&self, id: i64) -> Result<Vec<PairSimilarity>> {
        let mut out: Vec<PairSimilarity> = self
            .stored_blocks(id, PairFilter::All)
            .await?
            .into_iter()
            .map(|p| (p.account_a, p.account_b, p.similarity))
            .collect();
        let rows = sqlx::query(
            "SELECT account_a, account_b, similarity FROM scan_pairs WHERE scan_id = $1",
        )
        .bind(id)
        .fetch_all(&self.pool)
        .await?;
        for r in &rows {
            out.push((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?));
        }
        Ok(out)
    }

    /// The pairs stored with scan `id` itself that `filter` selects.
    pub(crate) async fn stored_pairs(
        &self,
        id: i64,
        filter: PairFilter<'_>,
    ) -> Result<Vec<PairScore>> {
        let list = |from: usize, n: usize| {
            (from..from + n)
                .map(|i| format!("${i}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let sql = match filter {
            PairFilter::All => COLUMNS.to_owned(),
            PairFilter::AtLeast(min) if min >= STRONG.0 => {
                format!("{COLUMNS} AND similarity >= $2 AND {}", STRONG.1)
            }
            PairFilter::AtLeast(_) => format!("{COLUMNS} AND similarity >= $2"),
            PairFilter::Naming(_) => format!("{COLUMNS} AND (account_a = $2 OR account_b = $2)"),
            PairFilter::Among(accounts) => format!(
                "{COLUMNS} AND account_a IN ({}) AND account_b IN ({})",
                list(2, accounts.len()),
                list(2 + accounts.len(), accounts.len())
            ),
            PairFilter::Pairs(pairs) => format!(
                "{COLUMNS} AND (account_a, account_b) IN (VALUES {})",
                (0..pairs.len())
                    .map(|i| format!("(${}, ${})", 2 + 2 * i, 3 + 2 * i))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let mut q = sqlx::query(&sql).bind(id);
        match filter {
            PairFilter::All => {}
            PairFilter::AtLeast(min) => q = q.bind(min),
            PairFilter::Naming(account) => q = q.bind(account.to_owned()),
            PairFilter::Among(accounts) => {
                for u in accounts.iter().chain(accounts) {
                    q = q.bind(u.clone());
                }
            }
            PairFilter::Pairs(pairs) => {
                for (a, b) in pairs {
                    q = q.bind(a.clone()).bind(b.clone());
                }
            }
        }
        // The scan's blocks first (migration 0025), then its rows, each
        // decoded as it comes: a whole scan's rows held at once were most
        // of a report's memory (1.3M rows at ten million moves).
        let mut pairs = self.stored_blocks(id, filter).await?;
        let mut rows = q.fetch(&self.pool);
        while let Some(row) = rows.try_next().await? {
            pairs.push(pair_of_row(&row)?);
        }
        super::signals::fill_from_partners(&mut pairs);
        Ok(pairs)
    }

    /// A scan's cliques, members sorted.
    pub(crate) async fn scan_cliques(&self, id: i64) -> Result<Vec<Clique>> {
        let rows = sqlx::query(
            "SELECT clique, username FROM scan_cliques WHERE scan_id = $1 ORDER BY clique, username",
        )
        .bind(id)
        .fetch_all(&self.pool)
        .await?;
        let mut cliques: Vec<Clique> = Vec::new();
        let mut last = None;
        for r in rows {
            let k: i64 = r.try_get(0)?;
            let name: String = r.try_get(1)?;
            if last != Some(k) {
                cliques.push(Clique {
                    members: Vec::new(),
                });
                last = Some(k);
            }
            cliques.last_mut().expect("pushed").members.push(name);
        }
        Ok(cliques)
    }
}

/// A `scan_pairs` row as the pair and its evidence: from its value of
/// bytes ([`super::evidence`]), or, for a pair stored before there was one,
/// from the columns.
fn pair_of_row(r: &sqlx::any::AnyRow) -> Result<PairScore> {
    let packed: Option<Vec<u8>> = r.try_get(19)?;
    let mut evidence = match packed {
        Some(data) => super::evidence::decode(&data)
            .map_err(|e| StoreError::Corrupt(format!("the evidence of a pair: {e}")))?,
        None => evidence_of_columns(r)?,
    };
    let signals: Option<String> = r.try_get(18)?;
    evidence.signals = signals
        .map(|s| serde_json::from_str(&s))
        .transpose()
        .map_err(|e| StoreError::Corrupt(format!("signals of a pair: {e}")))?;
    Ok(PairScore {
        account_a: r.try_get(0)?,
        account_b: r.try_get(1)?,
        similarity: r.try_get(2)?,
        sum: r.try_get(3)?,
        weight: r.try_get(4)?,
        evidence,
    })
}

/// The evidence of a pair stored before migration 0021, in its columns.
fn evidence_of_columns(r: &sqlx::any::AnyRow) -> Result<Evidence> {
    let mut evidence = Evidence::default();
    for (k, cell) in Cell::ALL.into_iter().enumerate() {
        let count: i64 = r.try_get(5 + 2 * k)?;
        let score: i64 = r.try_get(6 + 2 * k)?;
        *evidence.tally_mut(cell) = CellTally {
            count: count as u64,
            score,
        };
    }
    evidence.max_boost = r.try_get::<i64, _>(15)? as u32;
    evidence.max_boost_bucket = r.try_get(16)?;
    let top: String = r.try_get(17)?;
    evidence.top_buckets = serde_json::from_str(&top)
        .map_err(|e| StoreError::Corrupt(format!("top buckets of a pair: {e}")))?;
    Ok(evidence)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_strong_pairs_condition_is_the_partial_index_s_word_for_word() {
        let migration = include_str!("../../migrations/sqlite/0024_scan_pairs_by_key.sql");
        let (floor, condition) = super::STRONG;
        assert!(
            migration.contains(&format!("WHERE {condition};")),
            "{condition}"
        );
        assert_eq!(condition, format!("similarity >= {floor}"));
    }
}
